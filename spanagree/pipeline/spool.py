"""Per-document records spooled to disk as a run streams: the HTML report's (``--report``,
:class:`DocumentSpool`) and ``merge``'s clusters (:class:`ObjectSpool`).

A comparison that reports writes one JSON line per document it compares (its text, every
copy's spans, how they were paired and classified: see docs/report.md) to a temporary file and
keeps only where the line is and how much the document disagrees. A :class:`DocumentSpool` is
part of the comparison's tally, so it adds up with ``+=`` like the counts: batch by batch, and
shard by shard under ``--jobs`` (each forked process writes its own file in the spool's folder;
the index entries travel back with the tally). Memory holds a few numbers per document; the
report is assembled from the files at the end (:mod:`spanagree.report.html`).

``merge`` spools each document's clusters and text the same way (pickled: they are read back by
this process only), so that writing its gold, its adjudication listings and its report reads one
document at a time (:class:`~spanagree.voting.VoteClusters`).
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import tempfile
import weakref


#: Numbers the spool files a process writes (one per spool: several spools may write at once).
_FILES = itertools.count()


class SpoolFolder:
    """A temporary folder for the spool files of one run, removed when the last object that
    holds it is gone (or on :meth:`remove`)."""

    def __init__(self):
        self.path = tempfile.mkdtemp(prefix="spanagree-report-")
        self._finalizer = weakref.finalize(self, shutil.rmtree, self.path, True)

    def remove(self) -> None:
        self._finalizer()


class DocumentSpool:
    """Document records written as JSON lines; the index (document → file, offset, length,
    disagreements) kept in memory, in the order the documents were added.

    Attributes
    ----------
    folder : str
        Where this process's file goes (one file per spool and process: ``<pid>-<n>.jsonl``).
    entries : dict
        ``document id → (file, offset, length, disagreements)``.
    """

    def __init__(self, folder: str):
        self.folder = folder
        self.entries: dict[str, tuple[str, int, int, int]] = {}
        self.more: dict[str, list[tuple[str, int, int, int]]] = {}  # further records of a document (join)
        self.folder_owner: SpoolFolder | None = None  # keeps the temporary folder alive (the result's)
        self._file = None
        self._pid = None

    def add(self, doc_id: str, disagreements: int, record: dict) -> None:
        """Write ``record`` (a JSON-able dict) for ``doc_id``."""
        if self._file is None or self._pid != os.getpid():
            self._pid = os.getpid()
            self._file = open(os.path.join(self.folder, f"{self._pid}-{next(_FILES)}.jsonl"), "ab")
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        offset = self._file.tell()
        self._file.write(line)
        self.entries[doc_id] = (self._file.name, offset, len(line) - 1, disagreements)

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def __iadd__(self, other: "DocumentSpool") -> "DocumentSpool":
        other.flush()
        self.entries.update(other.entries)
        for doc_id, entries in other.more.items():
            self.more.setdefault(doc_id, []).extend(entries)
        return self

    def join(self, other: "DocumentSpool") -> None:
        """Add ``other``'s records, joining a document's records when both spools hold one: records
        of the same document written by different groups of annotators (``agree --documents
        pairwise``) become one (spans by annotator united, classified items concatenated,
        disagreements added)."""
        other.flush()
        for doc_id, entry in other.entries.items():
            mine = self.entries.get(doc_id)
            if mine is None:
                self.entries[doc_id] = entry
            else:
                self.more.setdefault(doc_id, []).append(entry)
                self.entries[doc_id] = (*mine[:3], mine[3] + entry[3])
        for doc_id, entries in other.more.items():
            self.more.setdefault(doc_id, []).extend(entries)

    def __getstate__(self):
        self.flush()
        return {"folder": self.folder, "entries": self.entries, "more": self.more}

    def __setstate__(self, state):
        self.folder = state["folder"]
        self.entries = state["entries"]
        self.more = state.get("more", {})
        self.folder_owner = None
        self._file = None
        self._pid = None

    def __deepcopy__(self, memo):
        copy = DocumentSpool(self.folder)
        copy.entries = dict(self.entries)
        copy.more = {d: list(e) for d, e in self.more.items()}
        copy.folder_owner = self.folder_owner
        return copy

    def disagreements(self, doc_id: str) -> int:
        entry = self.entries.get(doc_id)
        return entry[3] if entry is not None else 0

    def record(self, doc_id: str) -> dict | None:
        """The record written for ``doc_id`` (``None`` if none was)."""
        entry = self.entries.get(doc_id)
        if entry is None:
            return None
        self.flush()
        record = _read(entry)
        for more in self.more.get(doc_id, ()):
            part = _read(more)
            record["spans"].update(part["spans"])
            record["items"] += part["items"]
        return record

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def _read(entry: tuple) -> dict:
    path, offset, length, _ = entry
    with open(path, "rb") as handle:
        handle.seek(offset)
        return json.loads(handle.read(length).decode("utf-8"))


def span_entry(span) -> tuple:
    """A span as the report's documents block gives it: ``[[[start, end], ...], label]`` (tuples,
    written as JSON arrays)."""
    return span.fragments, span.label


def spans_entry(spans) -> tuple[list, dict[int, int]]:
    """Every span of one copy as :func:`span_entry` and the index of each span object (by ``id``)."""
    return [span_entry(s) for s in spans], {id(s): k for k, s in enumerate(spans)}


def items_entry(records, first_index: dict[int, int], second_index: dict[int, int]) -> tuple[list, int]:
    """scoring's classified records ``(kind, aligned, credit, second span, first span)`` of one
    pair as ``[kind, first span's index or None, second span's index or None, credit]``, and the
    number that are not ``correct``."""
    items, disagreements = [], 0
    for kind, _, credit, second, first in records:
        items.append([kind, first_index.get(id(first)) if first is not None else None,
                      second_index.get(id(second)) if second is not None else None, credit])
        disagreements += kind != "correct"
    return items, disagreements


class ObjectSpool:
    """One picklable object per document, spooled to disk as a run streams: ``merge``'s clusters
    and texts (:class:`~spanagree.voting.VoteTally`), ``score --errors``' items, so that what
    memory holds per document is where its record lies (one integer), not the record.

    Each process appends to a file of its own in ``folder`` (``<pid>-<n>.pickle``); the index
    (document → file, offset, length, packed in one integer) travels with the tally and adds up
    with ``+=`` in document order, shard by shard under ``--jobs``. Without a folder
    (``folder=None``: a Dask cluster, whose workers' disks the client cannot read) the objects
    are kept in memory and travel with the index instead.

    Examples
    --------
    >>> import tempfile
    >>> spool = ObjectSpool(tempfile.mkdtemp())
    >>> spool.add("d1", ("text", [1, 2]))
    >>> spool.add("d2", ("more", []))
    >>> spool.load("d1"), list(spool.entries)
    (('text', [1, 2]), ['d1', 'd2'])
    """

    #: Bits of a packed entry for the file's number and for the record's length (the offset above).
    FILE_BITS, LENGTH_BITS = 16, 40

    def __init__(self, folder: str | None):
        self.folder = folder
        self.entries: dict[str, int | tuple] = {}
        self.files: list[str] = []   # the files entries point into, by number
        self.folder_owner: SpoolFolder | None = None  # keeps the temporary folder alive (the result's)
        self._file = None
        self._file_number = None
        self._pid = None
        self._last: tuple[str, object] | None = None  # the record read last (a document is read in turn)

    def add(self, doc_id: str, record) -> None:
        """Spool ``record`` for ``doc_id`` (a document given twice keeps its last record)."""
        if self.folder is None:
            self.entries[doc_id] = (record,)
            return
        import pickle

        if self._file is None or self._pid != os.getpid():
            self._pid = os.getpid()
            self._file = open(os.path.join(self.folder, f"{self._pid}-{next(_FILES)}.pickle"), "ab")
            weakref.finalize(self, self._file.close)  # closed with the spool, if not before
            self._file_number = len(self.files)
            self.files.append(self._file.name)
        data = pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL)
        offset = self._file.tell()
        self._file.write(data)
        self.entries[doc_id] = self._packed(self._file_number, offset, len(data))

    @classmethod
    def _packed(cls, file_number: int, offset: int, length: int) -> int:
        return (((offset << cls.LENGTH_BITS) | length) << cls.FILE_BITS) | file_number

    @classmethod
    def _unpacked(cls, entry: int) -> tuple[int, int, int]:
        file_number = entry & ((1 << cls.FILE_BITS) - 1)
        entry >>= cls.FILE_BITS
        return file_number, entry >> cls.LENGTH_BITS, entry & ((1 << cls.LENGTH_BITS) - 1)

    def load(self, doc_id: str):
        """The record spooled for ``doc_id`` (``KeyError`` if none was)."""
        if self._last is not None and self._last[0] == doc_id:
            return self._last[1]
        entry = self.entries[doc_id]
        if isinstance(entry, tuple):
            return entry[0]
        import pickle

        self.close()  # reading: the writing is over
        file_number, offset, length = self._unpacked(entry)
        with open(self.files[file_number], "rb") as handle:
            handle.seek(offset)
            record = pickle.loads(handle.read(length))
        self._last = (doc_id, record)
        return record

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    # the mapping operations a tally uses on a dict of per-document lists (``score``'s items)
    __setitem__ = add

    def get(self, doc_id: str, default=None):
        return self.load(doc_id) if doc_id in self.entries else default

    def update(self, other: "ObjectSpool") -> None:
        self += other

    def __iadd__(self, other: "ObjectSpool") -> "ObjectSpool":
        other.close()  # what is added is complete
        if other.files == self.files or not other.files:
            self.entries.update(other.entries)
        else:  # other's files are numbered after this spool's
            number = {}
            for k, name in enumerate(other.files):
                if name not in self.files:
                    self.files.append(name)
                number[k] = self.files.index(name)
            for doc_id, entry in other.entries.items():
                if not isinstance(entry, tuple):
                    file_number, offset, length = self._unpacked(entry)
                    entry = self._packed(number[file_number], offset, length)
                self.entries[doc_id] = entry
        self._last = None
        return self

    def __getstate__(self):
        self.flush()
        return {"folder": self.folder, "entries": self.entries, "files": self.files}

    def __setstate__(self, state):
        self.__init__(state["folder"])
        self.entries = state["entries"]
        self.files = state["files"]

    def __deepcopy__(self, memo):
        copy = ObjectSpool(self.folder)
        copy.entries = dict(self.entries)
        copy.files = list(self.files)
        copy.folder_owner = self.folder_owner
        return copy
