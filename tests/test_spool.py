"""The per-process spool databases (spanagree.pipeline.spool): records written by several spools
(as several processes write them) add up into one index whose entries still read their own
records; a spool keeps its temporary folder alive, and the folder goes with the last of them."""

from __future__ import annotations

import copy
import gc
import os
import pickle
import sqlite3

from spanagree.pipeline.parts import TextParts
from spanagree.pipeline.spool import DocumentSpool, MemoryFolder, ObjectSpool, SpoolFolder


def test_each_record_is_a_row_of_its_spools_sqlite_database(tmp_path):
    spool = ObjectSpool(str(tmp_path))
    spool.add("d1", ["one"])
    spool.add("d1", ["again"])   # a document given twice keeps its last record
    spool.add("d2", ["two"])
    spool.close()
    (database,) = spool.files
    rows = sqlite3.connect(database).execute("SELECT document, record FROM records ORDER BY document").fetchall()
    assert [(doc, pickle.loads(record)) for doc, record in rows] == [("d1", ["again"]), ("d2", ["two"])]
    assert spool.entries == {"d1": 0, "d2": 0} and spool.load("d1") == ["again"]


def test_a_spool_owns_its_folder_also_when_it_comes_back_from_a_worker():
    folder = SpoolFolder()
    path = folder.path
    spool = ObjectSpool(folder)
    spool.add("d1", ["one"])
    returned = pickle.loads(pickle.dumps(spool))  # as a worker's tally comes back: the same folder object
    assert returned.folder is folder
    del folder, spool
    gc.collect()
    assert os.path.isdir(path) and returned.load("d1") == ["one"]
    del returned
    gc.collect()
    assert not os.path.exists(path)


def test_object_spools_add_up_with_their_files_renumbered(tmp_path):
    first, second, third = ObjectSpool(str(tmp_path)), ObjectSpool(str(tmp_path)), ObjectSpool(str(tmp_path))
    first.add("d1", ["one"])
    second.add("d2", ("two", 2))
    third.add("d3", {"three": 3})
    second += third                     # second's files: its own, then third's
    first += pickle.loads(pickle.dumps(second))  # as a worker's tally comes back
    assert len(first.files) == 3 and list(first.entries) == ["d1", "d2", "d3"]
    assert list(first.entries.values()) == [0, 1, 2]
    assert [first.load(d) for d in first.entries] == [["one"], ("two", 2), {"three": 3}]


def test_document_spools_join_a_documents_records(tmp_path):
    pair_a, pair_b = DocumentSpool(str(tmp_path)), DocumentSpool(str(tmp_path))
    pair_a.add("d", 2, {"spans": {"A": [1]}, "items": [["x"]]})
    pair_a.add("e", 0, {"spans": {}, "items": []})
    pair_b.add("d", 3, {"spans": {"B": [2]}, "items": [["y"]]})
    pair_a.join(pair_b)
    assert pair_a.disagreements("d") == 5 and pair_a.disagreements("e") == 0 and pair_a.disagreements("f") == 0
    assert pair_a.record("d") == {"spans": {"A": [1], "B": [2]}, "items": [["x"], ["y"]]}
    copied = copy.deepcopy(pair_a)
    assert copied.record("d") == pair_a.record("d") and copied.files == pair_a.files


def test_text_parts_keep_their_failed_documents(tmp_path):
    mine, theirs = TextParts(str(tmp_path)), TextParts(str(tmp_path))
    mine.add("d1", "é\n")
    theirs.add("d2", "b\n")
    theirs.failed.add("d3")
    mine += pickle.loads(pickle.dumps(theirs))
    assert mine.ready("d1") and mine.ready("d2") and not mine.ready("d3")
    assert [mine.read(d, mine.entries[d]) for d in ("d1", "d2")] == ["é\n".encode(), b"b\n"]


def test_without_a_folder_every_spool_keeps_its_records_in_memory_and_adds_up(tmp_path):
    """A MemoryFolder (a cluster whose workers share no folder with the client), or None: no file;
    each entry is a 1-tuple holding the record, and it travels with the index (pickled back to the
    client) and adds up with the spools that wrote files."""
    kept, written = ObjectSpool(MemoryFolder()), ObjectSpool(str(tmp_path))
    kept.add("d1", ["one"])
    written.add("d2", ["two"])
    returned = pickle.loads(pickle.dumps(kept))
    assert returned.in_memory and returned.files == [] and returned.entries == {"d1": (["one"],)}
    returned += written
    assert [returned.load(d) for d in ("d1", "d2")] == [["one"], ["two"]]
    assert ObjectSpool(None).in_memory and not written.in_memory
    records = DocumentSpool(MemoryFolder())
    records.add("d1", 2, {"id": "d1", "spans": {}, "items": []})
    assert records.files == [] and records.entries == {"d1": (b'{"id":"d1","spans":{},"items":[]}\n',)}
    assert pickle.loads(pickle.dumps(records)).record("d1") == {"id": "d1", "spans": {}, "items": []}
