"""Issue 26, point 3: a doccano multi-user export is a container, one annotator per user (named
by the user id); every record is a document of every user; label ids stay the labels unless the
project's label list is given (``--doccano-labels``); annotation-like lists the reader does not
understand never give 0 spans silently."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import pytest

from spanagree import agree, read
from spanagree.errors import FormatError, UsageError
from spanagree.match import MatchRule, align

from conftest import DEMO, run

DATA = Path(__file__).parent / "data" / "doccano"
EXPORT, LABELS = DATA / "collaborative.jsonl", DATA / "labels.json"
IDS = {"DISEASE": "21", "DRUG": "22", "LOC": "23", "ORG": "24", "PER": "25"}


def demo_spans(k: int, documents: int = 4, relabel=None) -> list[set]:
    """Annotator ``ann{k}``'s spans on the demo's first documents: (start, end, label) per document."""
    records = [json.loads(line) for line in (DEMO / "jsonl" / f"ann{k}.jsonl").read_text().splitlines()][:documents]
    return [{(s["start"], s["end"], relabel(s["label"]) if relabel else s["label"]) for s in r["spans"]}
            for r in records]


def test_one_annotator_per_user_and_every_record_a_document_of_each(capsys):
    code, out, err = run(capsys, "agree", EXPORT, "--output", "json", "--doccano-labels", LABELS)
    assert code == 0, err
    result = json.loads(out)
    assert result["annotators"] == ["1", "2", "3"]
    assert result["documents"] == 4  # user 3 marked nothing in document 43: it is still theirs
    # the pairwise counts equal those of the demo's annotators on the same four documents
    spans = {user: demo_spans(k) for user, k in (("1", 1), ("2", 2), ("3", 3))}
    spans["3"][3] = set()
    for pair, (first, second) in zip(result["pairs"], combinations("123", 2)):
        a = sum(len(x & y) for x, y in zip(spans[first], spans[second]))
        b = sum(len(x - y) for x, y in zip(spans[first], spans[second]))
        c = sum(len(y - x) for x, y in zip(spans[first], spans[second]))
        assert (pair["annotators"], pair["a"], pair["b"], pair["c"]) == ([first, second], a, b, c)


def test_label_ids_stay_the_labels_without_the_list(capsys):
    with_names = read(EXPORT, annotator="2", doccano_labels=LABELS)
    with_ids = read(EXPORT, annotator="2")
    assert {s.label for s in with_names} == set(IDS)
    assert sorted((s.doc, s.fragments, IDS[s.label]) for s in with_names) == \
        sorted((s.doc, s.fragments, s.label) for s in with_ids)
    assert any("--doccano-labels" in note for note in with_ids.notes)
    assert not any("doccano" in note for note in with_names.notes)


def test_a_user_who_marked_nothing_has_the_document_without_spans():
    user3 = read(EXPORT, annotator="3", doccano_labels=LABELS)
    assert list(user3.documents) == ["40", "41", "42", "43"] and len(user3.documents["43"]) == 0
    assert {(s.fragments[0][0], s.fragments[0][1], s.label) for s in user3 if s.doc == "41"} == demo_spans(3)[1]


def test_several_users_need_a_choice_and_an_unknown_one_is_named():
    with pytest.raises(UsageError, match=r"holds 3 annotators \(1, 2, 3\)"):
        read(EXPORT)
    with pytest.raises(UsageError, match="no span set called '9'|holds no annotator '9'"):
        read(EXPORT, annotator="9")


def test_convert_one_user_and_names(tmp_path, capsys):
    out = tmp_path / "user1.jsonl"
    code, said, err = run(capsys, "convert", EXPORT, "--annotators", "1", "--doccano-labels", LABELS,
                          "--to", "jsonl", "--out", out)
    assert code == 0, err
    assert said == f"wrote 4 documents, {sum(map(len, demo_spans(1)))} spans to {out} (jsonl)\n"
    code, out_json, err = run(capsys, "agree", f"team={EXPORT}", "--output", "json")
    assert json.loads(out_json)["annotators"] == ["team/1", "team/2", "team/3"]


def test_a_label_id_missing_from_the_list_is_one_line(tmp_path, capsys):
    short = tmp_path / "labels.json"
    short.write_text(json.dumps([e for e in json.loads(LABELS.read_text()) if e["text"] != "PER"]))
    code, _, err = run(capsys, "agree", EXPORT, "--doccano-labels", short)
    assert code == 1
    assert err.startswith(f"spanagree: error: {EXPORT}:1: annotation ") and "label id 25 is not in doccano's" in err
    assert len(err.splitlines()) == 1
    bad = tmp_path / "bad.json"
    bad.write_text('{"PER": 25}')
    code, _, err = run(capsys, "agree", EXPORT, "--doccano-labels", bad)
    assert code == 1 and err == (f"spanagree: error: {bad}: not a doccano label list: expected "
                                 '[{"id": 21, "text": "PER", ...}, ...]\n')


def test_a_bad_user_is_one_line(tmp_path, capsys):
    records = [json.loads(line) for line in EXPORT.read_text().splitlines()]
    records[1]["annotations"][0]["user"] = [1]
    broken = tmp_path / "broken.jsonl"
    broken.write_text("".join(json.dumps(r) + "\n" for r in records))
    code, _, err = run(capsys, "agree", broken)
    assert code == 1 and err == (f"spanagree: error: {broken}:2: a doccano annotation's \"user\" must be an integer "
                                 "or a string, got [1]\n")


def test_unread_annotation_lists_are_never_silent(tmp_path):
    """The safety net: a key the reader does not know that holds annotation-like entries is named."""
    lines = [{"id": "a", "text": "Ana met Bo", "ents": [{"start": 0, "end": 3, "label": "PER"}]},
             {"id": "b", "text": "Bo", "ents": [{"start": 0, "end": 2, "label": "PER"}]},
             {"id": "c", "text": "Cy", "tags": ["x"], "spans": []}]
    path = tmp_path / "odd.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    spans = read(path)
    assert len(spans) == 0
    assert spans.notes == ['2 records hold a list under "ents" that looks like annotations but is not read as '
                           'spans (their spans are not counted: convert them to "spans": [{"start", "end", '
                           '"label"}])']


def test_the_single_user_shapes_keep_working(tmp_path):
    path = tmp_path / "single.jsonl"
    path.write_text('{"id": 1, "text": "Ana met Bo", "label": [[0, 3, "PER"], [8, 10, "PER"]]}\n'
                    '{"id": 2, "text": "Cy", "entities": [{"id": 5, "label": "PER", "start_offset": 0, '
                    '"end_offset": 2}]}\n')
    spans = read(path)
    assert sorted((s.doc, s.fragments, s.label) for s in spans) == [
        ("1", ((0, 3),), "PER"), ("1", ((8, 10),), "PER"), ("2", ((0, 2),), "PER")]
    assert spans.notes == []


# --- doccano 1.6 and later: the export zip (tests/data/doccano/separate.zip, exported by doccano 1.8.4) ---

SEPARATE, COLLABORATIVE = DATA / "separate.zip", DATA / "collaborative.zip"


def test_a_doccano_export_zip_is_one_annotator_per_member(capsys):
    """doccano 1.8.4's export of a project without collaborative annotation: one JSONL file per
    member; the members who annotated are the annotators, with the demo's pairwise counts."""
    code, out, err = run(capsys, "agree", SEPARATE, "--output", "json")
    assert code == 0, err
    result = json.loads(out)
    assert result["annotators"] == ["ann1", "ann2", "ann3"] and result["documents"] == 4
    assert result["notes"] == ["ann1: admin marked no span in any document of the export: not compared unless "
                               "named among the annotators"]
    spans = {f"ann{k}": demo_spans(k) for k in (1, 2, 3)}
    for pair, (first, second) in zip(result["pairs"], combinations(spans, 2)):
        a = sum(len(x & y) for x, y in zip(spans[first], spans[second]))
        b = sum(len(x - y) for x, y in zip(spans[first], spans[second]))
        c = sum(len(y - x) for x, y in zip(spans[first], spans[second]))
        assert (pair["annotators"], pair["a"], pair["b"], pair["c"]) == ([first, second], a, b, c)


def test_the_member_who_marked_nothing_joins_when_named(capsys):
    admin = read(SEPARATE, annotator="admin")
    assert len(admin.documents) == 4 and len(admin) == 0
    code, out, _ = run(capsys, "agree", SEPARATE, "--annotators", "admin,ann1", "--output", "json")
    result = json.loads(out)
    assert result["annotators"] == ["admin", "ann1"] and (result["pairs"][0]["a"], result["pairs"][0]["b"]) == (0, 0)
    assert result["pairs"][0]["c"] == sum(map(len, demo_spans(1)))


def test_a_collaborative_export_zip_is_refused_with_what_to_do(capsys):
    """doccano (1.6 and later) merges a collaborative project's members into all.jsonl without
    saying whose: never read as one annotator."""
    code, out, err = run(capsys, "agree", COLLABORATIVE, SEPARATE)
    assert code == 1 and out == ""
    assert err.strip().splitlines() == [
        f"spanagree: error: {COLLABORATIVE}: a doccano export of a collaborative project: all.jsonl holds every "
        "member's spans merged, without saying whose, so annotators cannot be compared; export again with "
        "collaborative annotation switched off (the project's settings), which writes one file per member"]


def test_a_member_file_with_annotations_it_cannot_read_says_so(capsys, tmp_path):
    """A member's records whose annotation-like lists the reader does not know: a note, never 0
    spans in silence."""
    import zipfile

    record = {"id": 1, "text": "Ana met Bo.", "label": [[0, 3, "PER"]]}
    odd = {"id": 1, "text": "Ana met Bo.", "marks": [{"start": 0, "end": 3, "tag": "PER"}]}
    export = tmp_path / "export.zip"
    with zipfile.ZipFile(export, "w") as archive:
        archive.writestr("ann1.jsonl", json.dumps(record) + "\n")
        archive.writestr("ann2.jsonl", json.dumps(odd) + "\n")
    ann2 = read(export, annotator="ann2")
    assert len(ann2) == 0
    assert ann2.notes == ['1 record holds a list under "marks" that looks like annotations but is not read as spans '
                          '(their spans are not counted: convert them to "spans": [{"start", "end", "label"}])']


@pytest.mark.parametrize("line, message", [
    (b'{"id": 1, "text": }', "invalid JSON: Expecting value (column 19)"),
    (b'[1, 2]', "a record must be a JSON object, got list"),
    (b'{"id": 1, "text": "Ana", "label": [[0, 3, "PER"]]}\xff', "not UTF-8 (byte 0xff)"),
    (b'{"id": 1, "text": "Ana", "n": ' + b"[" * 5000 + b"]" * 5000 + b"}", "nested deeper than Python's recursion limit"),
])
def test_a_member_file_line_that_cannot_be_read_is_one_line_naming_it(capsys, tmp_path, line, message):
    """A member's lines are read as the JSONL reader reads its own (one loop): a bad line is one
    error naming the member and the line."""
    import zipfile

    good = json.dumps({"id": 1, "text": "Ana met Bo.", "label": [[0, 3, "PER"]]}).encode()
    export = tmp_path / "export.zip"
    with zipfile.ZipFile(export, "w") as archive:
        archive.writestr("ann1.jsonl", good + b"\n")
        archive.writestr("ann2.jsonl", good + b"\n\n" + line + b"\n")
    code, out, err = run(capsys, "agree", export)
    assert code == 1 and out == ""
    assert err.startswith(f"spanagree: error: {export}/ann2.jsonl:3: {message}") and err.count("\n") == 1
