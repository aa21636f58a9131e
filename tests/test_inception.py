"""INCEpTION project exports (issue 14): a container, one span set per user, the curation its own.

The projects are built here in the layout INCEpTION's exporters write (``build_demo.inception_project``)
with XMI written by dkpro-cassis (``xmi_build``); INCEpTION's own test export without a secondary
format (``tests/data/inception/``, SOURCE.md there) checks the error for binary-only exports.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from spanagree import agree
from spanagree.formats import collect, container_streams, detect_format, open_annotators, read

from conftest import DEMO, run
from xmi_build import inception_zip, stored_zip

DATA = Path(__file__).parent / "data" / "inception"
TEXT = "Ana met Bo in Porto. Bo works for Acme."
A = {"d1.txt": [(0, 3, "PER"), (8, 10, "PER"), (14, 19, "LOC")], "d2.txt": [(0, 2, "PER"), (13, 17, "ORG")]}
B = {"d1.txt": [(0, 3, "PER"), (14, 19, "ORG")], "d2.txt": [(0, 2, "PER"), (13, 17, "ORG")]}
C = {"d1.txt": [(0, 3, "PER"), (8, 10, "PER")]}  # never opened d2
CURATED = {"d1.txt": [(0, 3, "PER"), (8, 10, "PER"), (14, 19, "LOC")], "d2.txt": [(0, 2, "PER"), (13, 17, "ORG")]}
DOCUMENTS = [("d1.txt", TEXT), ("d2.txt", "Bo works for Acme.")]


@pytest.fixture
def project(tmp_path) -> Path:
    path = tmp_path / "project.zip"
    inception_zip(path, DOCUMENTS, {"alice": A, "bob": B, "carol": C}, curation=CURATED)
    return path


def test_the_users_are_the_annotators_the_curation_its_own_span_set(project):
    assert detect_format(project) == "inception"
    with zipfile.ZipFile(project) as archive:  # what INCEpTION writes: INITIAL_CAS beside the users
        names = archive.namelist()
    assert "annotation/d1.txt/INITIAL_CAS.zip" in names and "curation/d2.txt/CURATION_USER.zip" in names
    streams = container_streams(project)
    assert [(s.name, s.role) for s in streams] == [("alice", "annotator"), ("bob", "annotator"),
                                                   ("carol", "annotator"), ("curation", "curation")]
    spansets = {s.name: collect(s) for s in streams}
    assert {n: list(s.documents) for n, s in spansets.items()} == {
        "alice": ["d1.txt", "d2.txt"], "bob": ["d1.txt", "d2.txt"], "carol": ["d1.txt"],
        "curation": ["d1.txt", "d2.txt"]}
    alice = spansets["alice"].documents["d1.txt"]
    assert alice.text == TEXT
    assert [(TEXT[s.start:s.end], s.label) for s in alice.spans] == [("Ana", "PER"), ("Bo", "PER"), ("Porto", "LOC")]
    assert [s.name for s in open_annotators(project)] == ["alice", "bob", "carol"]


def test_agree_gives_the_pairs_of_its_users(project, capsys):
    code, out, err = run(capsys, "agree", project, "--output", "json")
    assert code == 0, err
    assert "1 document(s) not annotated by every annotator are left out: d2.txt" in err
    document = json.loads(out)
    assert document["options"]["format"] is None or document["options"]["format"] == "inception"
    # d1 by hand: alice {Ana PER, Bo PER, Porto LOC}, bob {Ana PER, Porto ORG}, carol {Ana PER, Bo PER}
    assert {tuple(p["annotators"]): (p["a"], p["b"], p["c"]) for p in document["pairs"]} == {
        ("alice", "bob"): (1, 2, 1), ("alice", "carol"): (2, 1, 0), ("bob", "carol"): (1, 1, 1)}
    code, out, err = run(capsys, "agree", project, "--annotators", "bob,alice", "--output", "json")
    assert code == 0, err
    document = json.loads(out)
    assert document["options"]["annotators"] == ["bob", "alice"]
    # both documents now: d2 adds 2 shared spans
    assert [(*p["annotators"], p["a"], p["b"], p["c"]) for p in document["pairs"]] == [("bob", "alice", 3, 1, 2)]


def test_score_against_the_curation_and_merge(project, tmp_path, capsys):
    code, out, err = run(capsys, "score", project, "--gold", "curation", "--annotators", "curation,alice,bob",
                         "--output", "json")
    assert code == 0, err
    document = json.loads(out)
    assert document["gold"] == "curation"
    assert [(p["prediction"], p["a"], p["b"], p["c"]) for p in document["predictions"]] == [
        ("alice", 5, 0, 0), ("bob", 3, 1, 2)]  # bob: Porto as ORG extra; Bo (d1) and Porto LOC missed
    merged = tmp_path / "merged.jsonl"
    code, _, err = run(capsys, "merge", project, "--annotators", "alice,bob", "--min-votes", "2", "--to", "jsonl",
                       "--out", merged)
    assert code == 0, err
    records = {r["id"]: r for r in map(json.loads, merged.read_text(encoding="utf-8").splitlines())}
    assert {i: [(s["start"], s["end"], s["label"]) for s in r["spans"]] for i, r in records.items()} == {
        "d1.txt": [(0, 3, "PER")], "d2.txt": [(0, 2, "PER"), (13, 17, "ORG")]}


def test_the_unpacked_folder_reads_as_the_zip(project, tmp_path):
    folder = tmp_path / "unpacked"
    with zipfile.ZipFile(project) as archive:
        archive.extractall(folder)
    assert detect_format(folder) == "inception"
    from_zip = {s.name: collect(s) for s in container_streams(project)}
    from_folder = {s.name: collect(s) for s in container_streams(folder)}
    assert list(from_zip) == list(from_folder)
    for name, spanset in from_zip.items():
        assert {d: [(s.fragments, s.label) for s in doc.spans] for d, doc in spanset.documents.items()} == \
               {d: [(s.fragments, s.label) for s in doc.spans] for d, doc in from_folder[name].documents.items()}


def test_the_demo_project_agrees_as_the_demo_xmi_folders():
    from_project = agree([DEMO / "inception" / "demo"])
    from_xmi = agree([DEMO / "xmi" / n for n in ("ann1", "ann2", "ann3")])
    assert from_project.annotators == ["ann1", "ann2", "ann3"]
    assert [p.counts for p in from_project.pairs] == [p.counts for p in from_xmi.pairs]
    curation = read(DEMO / "inception" / "demo", annotator="curation")
    assert sum(len(d.spans) for d in curation.documents.values()) == 76  # ann1: 77 spans, 1 discontinuous


@pytest.mark.slow
def test_the_bratiaa_example_in_an_inception_project_agrees_exactly_as_in_brat(shared_corpora, tmp_path):
    project = shared_corpora / "bratiaa-example" / "example-project"
    names = ["Lisa", "Maria", "Max", "Peter"]
    brat = [read(project / name, "brat") for name in names]
    documents = [(f"{doc_id}.txt", document.text) for doc_id, document in brat[0].documents.items()]
    users = {s.name: {f"{doc_id}.txt": [(span.start, span.end, span.label) for span in document.spans]
                      for doc_id, document in s.documents.items()} for s in brat}
    path = tmp_path / "bratiaa.zip"
    inception_zip(path, documents, users)
    for options in ({}, {"match": "overlap"}, {"match": "partial", "labels": "ignore"}):
        from_project, from_brat = agree([path], **options), agree(brat, **options)
        assert from_project.annotators == names
        assert [(p.first, p.second, p.counts) for p in from_project.pairs] == \
               [(p.first, p.second, p.counts) for p in from_brat.pairs]
        assert from_project.mean.mean == from_brat.mean.mean


def test_an_export_of_binary_cases_only_says_which_format_to_choose(capsys):
    export = DATA / "test-project-with-recommenders.zip"
    assert detect_format(export) == "inception"
    code, out, err = run(capsys, "agree", export)
    assert code == 1 and out == ""
    assert err == (f"spanagree: error: {export}: holds 2 binary CAS file(s) (.ser) and no annotator's file in a "
                   "format spanagree reads (UIMA CAS XMI or WebAnno TSV); export the project again from INCEpTION "
                   "(Project settings > Export) choosing 'UIMA CAS XMI (XML 1.0)' or 'WebAnno TSV v3.3' as the "
                   "secondary format\n")


def test_files_of_other_secondary_formats_are_left_out_and_noted(tmp_path, capsys):
    # a plain-text secondary export (as WebAnno 3.6 wrote annotation/<doc>/<user>.txt) beside the .ser
    path = tmp_path / "text.zip"
    path.write_bytes(stored_zip([("exportedproject1.json", b"{}"), ("source/d.txt", b"Ana."),
                                 ("annotation_ser/d.txt/admin.ser", b"\xac\xed\x00\x05"),
                                 ("annotation/d.txt/admin.txt", b"Ana.")]))
    code, _, err = run(capsys, "agree", path)
    assert code == 1 and "holds 1 binary CAS file(s) (.ser), 1 .txt file(s) and no annotator's file" in err
    mixed = tmp_path / "mixed.zip"
    inception_zip(mixed, DOCUMENTS, {"alice": A, "bob": B})
    with zipfile.ZipFile(mixed, "a") as archive:
        archive.writestr("annotation/d3.txt/alice.conll", "Ana\tB-PER\n")
    streams = container_streams(mixed)
    for stream in streams:
        collect(stream)
    assert streams[0].notes == ["1 .conll annotation file(s) in formats spanagree does not read left out; to read "
                                "them, export the project again from INCEpTION (Project settings > Export) choosing "
                                "'UIMA CAS XMI (XML 1.0)' or 'WebAnno TSV v3.3' as the secondary format"]
    assert streams[1].notes == []


def test_zip_bombs_and_damaged_members_are_one_line(project, tmp_path, capsys):
    code, _, err = run(capsys, "agree", project, "--max-record-bytes", "300")
    assert code == 1 and err.count("\n") == 1
    assert err.startswith(f"spanagree: error: {project}/annotation/d1.txt/alice.zip") and "longer than 300 bytes" in err
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("exportedproject.json", "{}")
        archive.writestr("annotation/d.txt/alice.zip", b"\0" * 5_000_000)  # 5 MB of zeros, ~5 KB packed
    assert bomb.stat().st_size < 20_000
    code, _, err = run(capsys, "agree", bomb, "--annotators", "alice,alice", "--max-record-bytes", "1000000")
    assert code == 1 and err == (f"spanagree: error: {bomb}/annotation/d.txt/alice.zip: the file is longer than "
                                 "1,000,000 bytes, the largest record read (raise it with --max-record-bytes)\n")
    damaged = tmp_path / "damaged.zip"
    damaged.write_bytes(stored_zip([("exportedproject.json", b"{}"), ("annotation/d.txt/alice.zip", b"PK\x03\x04no"),
                                    ("annotation/d.txt/bob.zip", stored_zip([("d.txt.xmi", b"<x/>")]))]))
    code, _, err = run(capsys, "agree", damaged)
    assert code == 1 and err.startswith(f"spanagree: error: {damaged}/annotation/d.txt/alice.zip: not a readable "
                                        "zip file")
    code, _, err = run(capsys, "convert", damaged, "--annotators", "bob", "--to", "jsonl", "--out", tmp_path / "x")
    assert code == 1 and err == (f"spanagree: error: {damaged}/annotation/d.txt/bob.zip: holds no TypeSystem.xml "
                                 "beside its XMI; give --xmi-typesystem PATH\n")


def test_member_names_are_never_paths(tmp_path, capsys):
    # zip-slip names: read as names (a document called ".."), never written anywhere
    evil = tmp_path / "inside" / "evil.zip"
    evil.parent.mkdir()
    good = stored_zip([("d.xmi", (DEMO / "xmi" / "ann1" / "news-01.xmi").read_bytes()),
                       ("TypeSystem.xml", (DEMO / "xmi" / "ann1" / "TypeSystem.xml").read_bytes())])
    evil.write_bytes(stored_zip([("exportedproject.json", b"{}"), ("annotation/../alice.zip", good),
                                 ("annotation/../../x/bob.zip", good), ("/annotation/d/carol.zip", good)]))
    before = sorted(p.name for p in tmp_path.rglob("*"))
    (stream,) = container_streams(evil)
    assert stream.name == "alice" and list(collect(stream).documents) == [".."]
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def test_not_an_export(tmp_path, capsys):
    other = tmp_path / "other.zip"
    other.write_bytes(stored_zip([("readme.txt", b"hello")]))
    code, _, err = run(capsys, "agree", other)
    assert code == 1 and err == (f"spanagree: error: {other}: not an INCEpTION project export: no annotation/ or "
                                 "source/ folder in it\n")
    other.write_bytes(b"not a zip")
    code, _, err = run(capsys, "agree", other)
    assert code == 1 and err.startswith(f"spanagree: error: {other}: not a readable zip file")


def test_webanno_tsv_files_in_a_project_read_as_the_tsv_reader_reads_them(shared_corpora, tmp_path):
    pytest.importorskip("spanagree.formats.webanno", reason="the WebAnno TSV reader (helper A's branch) is merged "
                        "with this one")
    suite = shared_corpora / "inception-tsv3-samples" / "curation-testsuite"
    cases = sorted(p for p in suite.iterdir() if p.is_dir())
    members = [("exportedproject.json", b"{}")]
    for case in cases:
        for user in ("user1", "user2"):
            members.append((f"annotation/{case.name}.txt/{user}.tsv", (case / f"{user}.tsv").read_bytes()))
        members.append((f"curation/{case.name}.txt/CURATION_USER.tsv", (case / "curator.tsv").read_bytes()))
    path = tmp_path / "tsv.zip"
    path.write_bytes(stored_zip(members))
    streams = {s.name: collect(s) for s in container_streams(path)}
    assert [(n, s.documents.keys() == {f"{c.name}.txt" for c in cases}) for n, s in streams.items()] == [
        ("user1", True), ("user2", True), ("curation", True)]
    for name, file in (("user1", "user1.tsv"), ("user2", "user2.tsv"), ("curation", "curator.tsv")):
        for case in cases:
            alone = read(case / file, "webanno").documents["1"]
            inside = streams[name].documents[f"{case.name}.txt"]
            assert inside.text == alone.text
            assert [(s.fragments, s.label) for s in inside.spans] == [(s.fragments, s.label) for s in alone.spans]


# -- issue 32: work proportional to the export ------------------------------------------------------

def _many_members(path: Path, count: int, declared: int | None = None) -> None:
    """A zip of ``count`` empty stored members ``m/<n>``, built by hand (fast), its end record declaring
    ``declared`` members (default the truth)."""
    import struct

    local, central = [], []
    offset = 0
    for number in range(count):
        name = b"m/%07d" % number
        header = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 0, 0, 0, 0, 0, 0, len(name), 0) + name
        central.append(struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 0, 0, 0, 0, 0, 0, len(name), 0, 0, 0, 0,
                                   0, offset) + name)
        local.append(header)
        offset += len(header)
    directory = b"".join(central)
    declared = count if declared is None else declared
    end = b""
    if declared > 0xFFFF:  # zip64: its end record and locator, the classic one saying "see zip64"
        end = (struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, declared, declared, len(directory), offset)
               + struct.pack("<4sLQL", b"PK\x06\x07", 0, offset + len(directory), 1))
        declared = 0xFFFF
    end += struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, declared, declared, len(directory), offset, 0)
    path.write_bytes(b"".join(local) + directory + end)


@pytest.mark.parametrize("declared", [None, 1])  # the end record's count, true or a lie
def test_a_zip_with_more_members_than_the_limit_is_refused_fast(tmp_path, capsys, declared):
    import time

    from spanagree.formats.inception import MAX_ZIP_MEMBERS

    export = tmp_path / "project.zip"
    _many_members(export, MAX_ZIP_MEMBERS + 1, declared)
    started = time.perf_counter()
    code, out, err = run(capsys, "agree", export)
    assert time.perf_counter() - started < 5
    assert (code, out) == (1, "")
    assert err == (f"spanagree: error: {export}: a zip of more than {MAX_ZIP_MEMBERS:,} members (at most "
                   f"{MAX_ZIP_MEMBERS:,} are read)\n")


def test_the_zips_central_directory_is_read_once_for_every_user(project):
    """Every opening of the export is counted (Python's audit events): the users' streams and the
    curation's share one reading of its central directory."""
    import sys

    opened = []
    watching = [True]

    def hook(event, args):
        if watching and event == "open" and str(args[0]) == str(project):
            opened.append(args)

    sys.addaudithook(hook)  # (a hook stays for the process: it only records while watching)
    try:
        streams = container_streams(project, "inception")
        spansets = [collect(stream) for stream in streams]
    finally:
        watching.clear()
    assert [len(s.documents) for s in spansets] == [2, 2, 1, 2]
    assert len(opened) == 1
