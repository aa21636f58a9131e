"""Issue 26, point 5: ``--document-key text`` pairs the copies of a document by their text when
the tools gave them other ids (tasks re-imported into another Label Studio project); two documents
of one input with the same text are an error naming both."""

from __future__ import annotations

import json
import random

import pytest

from spanagree import agree, score
from spanagree.errors import FormatError, UsageError

from conftest import DEMO, run, same_under

ANN = [DEMO / "jsonl" / f"ann{number}.jsonl" for number in (1, 2, 3)]


def reimported(source, dest, *, seed: int, prefix: str = "task-", drop: int = 0, spaces: bool = False):
    """``source``'s documents under new ids, shuffled (as another project exports them)."""
    records = [json.loads(line) for line in source.read_text().splitlines()]
    random.Random(seed).shuffle(records)
    for number, record in enumerate(records[drop:], 1000):
        record["id"] = f"{prefix}{number}"
        if spaces:  # whitespace differs; the offsets shift with it
            record["text"] = record["text"].replace(" ", "  ", 1)
            first = record["text"].index("  ")
            for span in record["spans"]:
                span["start"] += span["start"] > first
                span["end"] += span["end"] > first
    dest.write_text("".join(json.dumps(record) + "\n" for record in records[drop:]))
    return dest


def test_agree_by_text_equals_agree_by_id(tmp_path, capsys):
    (tmp_path / "moved").mkdir()
    moved = [ANN[0], reimported(ANN[1], tmp_path / "moved" / "ann2.jsonl", seed=1),
             reimported(ANN[2], tmp_path / "moved" / "ann3.jsonl", seed=2, prefix="")]
    code, out, err = run(capsys, "agree", *moved, "--output", "json")
    assert code == 1 and err.startswith("spanagree: error: no document is annotated by every annotator")
    code, out, err = run(capsys, "agree", *moved, "--output", "json", "--document-key", "text", "--by", "document")
    assert code == 0, err
    by_text = json.loads(out)
    code, plain, _ = run(capsys, "agree", *ANN, "--output", "json", "--by", "document")
    by_id = json.loads(plain)
    assert by_text["options"]["document_key"] == "text" and by_id["options"]["document_key"] == "id"
    for key in ("pairs", "pooled", "by_label", "mean_f1", "documents", "by_document"):
        assert by_text[key] == by_id[key], key  # by_document: named by the first input's ids


def test_score_and_merge_by_text(tmp_path, capsys):
    (tmp_path / "moved").mkdir()
    moved = reimported(ANN[1], tmp_path / "moved" / "ann2.jsonl", seed=3)
    code, out, err = run(capsys, "score", ANN[0], moved, "--output", "json", "--document-key", "text")
    assert code == 0, err
    code, plain, _ = run(capsys, "score", ANN[0], ANN[1], "--output", "json")
    assert {k: v for k, v in json.loads(out).items() if k != "options"} == \
        {k: v for k, v in json.loads(plain).items() if k != "options"}
    gold_text, gold_id = tmp_path / "by-text.jsonl", tmp_path / "by-id.jsonl"
    assert run(capsys, "merge", ANN[0], moved, ANN[2], "--to", "jsonl", "--out", gold_text,
               "--document-key", "text")[0] == 0
    assert run(capsys, "merge", ANN[0], ANN[1], ANN[2], "--to", "jsonl", "--out", gold_id)[0] == 0
    assert gold_text.read_text() == gold_id.read_text()


def test_a_text_the_reference_lacks_is_left_out_under_its_own_id(tmp_path):
    moved = reimported(ANN[1], tmp_path / "b.jsonl", seed=4, prefix="")  # ids 1000.. are not the reference's
    records = [json.loads(line) for line in moved.read_text().splitlines()]
    records[0]["text"] = "A text nobody else has."
    records[0]["spans"] = []
    records[0]["id"] = "clinic-01"  # an id of the reference's, with another text
    moved.write_text("".join(json.dumps(r) + "\n" for r in records))
    with pytest.warns(Warning, match="b:clinic-01"):
        result = agree([ANN[0], moved], document_key="text")
    assert len(result.documents) == 9


def test_two_documents_with_one_text_are_an_error_naming_both(tmp_path, capsys):
    records = [json.loads(line) for line in ANN[1].read_text().splitlines()]
    records[4]["text"] = records[2]["text"]
    records[4]["spans"] = []
    twice = tmp_path / "twice.jsonl"
    twice.write_text("".join(json.dumps(r) + "\n" for r in records))
    code, _, err = run(capsys, "agree", ANN[0], twice, "--document-key", "text")
    assert code == 1
    assert err == (f"spanagree: error: {twice}: documents {records[2]['id']!r} and {records[4]['id']!r} have the "
                   "same text, and documents are paired by their text (--document-key text): give each text "
                   "once, or pair by id\n")


def test_whitespace_is_left_out_with_align_whitespace(tmp_path, capsys):
    spaced = reimported(ANN[1], tmp_path / "b.jsonl", seed=5, spaces=True)
    code, out, err = run(capsys, "agree", ANN[0], spaced, "--document-key", "text", "--output", "json")
    assert code != 0  # no text is the same
    code, out, err = run(capsys, "agree", ANN[0], spaced, "--document-key", "text", "--align-whitespace",
                         "--output", "json")
    assert code == 0, err
    code, plain, _ = run(capsys, "agree", ANN[0], ANN[1], "--output", "json")
    assert json.loads(out)["pairs"][0]["f1"] == json.loads(plain)["pairs"][0]["f1"]


def test_the_key_is_checked():
    with pytest.raises(UsageError, match="unknown document key 'name'; choose one of: id, text"):
        agree(ANN[:2], document_key="name")


def test_by_text_under_jobs(tmp_path, capsys, small_shards):
    moved = reimported(ANN[1], tmp_path / "b.jsonl", seed=6)
    same_under(capsys, ["agree", ANN[0], moved, ANN[2], "--document-key", "text", "--output", "json"],
               calls=small_shards)
