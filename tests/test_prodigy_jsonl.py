"""Prodigy's JSONL: rejected and ignored answers are not annotations; ``_annotator_id`` splits one
file into annotators (a container); ``_input_hash`` is the document id when there is no ``id``."""

from __future__ import annotations

import json
import warnings

import pytest

from spanagree import agree, score
from spanagree.cli import main
from spanagree.errors import UsageError
from spanagree.formats import collect, container_streams, open_annotators, read
from spanagree.formats.jsonl import annotator_ids, annotators_jsonl

from conftest import run


def _records(spanset, session, answer="accept"):
    """The demo span set as Prodigy records of one session: ``_input_hash`` instead of ``id``."""
    for number, (doc_id, document) in enumerate(spanset.documents.items()):
        yield {"text": document.text, "_input_hash": 1000 + number, "_task_hash": -number,
               "spans": [{"start": s.start, "end": s.end, "label": s.label, "token_start": 0, "token_end": 0}
                         for s in document.spans],
               "answer": answer, "_annotator_id": f"ner_demo-{session}", "_session_id": f"ner_demo-{session}"}


@pytest.fixture
def sessions(demo, tmp_path):
    """alice = the demo's ann1, bob = its ann2, interleaved as Prodigy's db-out writes them, plus
    one rejected and one ignored record of bob's and one record of carol's that she rejected."""
    alice = list(_records(read(demo / "jsonl" / "ann1.jsonl"), "alice"))
    bob = list(_records(read(demo / "jsonl" / "ann2.jsonl"), "bob"))
    extra = [dict(bob[0], answer="reject", _input_hash=99), dict(bob[1], answer="ignore", _input_hash=98)]
    carol = [dict(alice[0], _annotator_id="ner_demo-carol", answer="reject")]
    lines = [r for pair in zip(alice, bob) for r in pair] + extra + carol
    path = tmp_path / "ner_demo.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    return path


def test_the_real_prodigy_record_is_keyed_by_its_input_hash(shared_corpora):
    spans = read(shared_corpora / "spacy-docbin-samples" / "ner_tweets" / "demo.jsonl")
    assert list(spans.documents) == ["885944384"]
    assert [(s.start, s.end, s.label, s.text(spans.documents["885944384"].text)) for s in spans] == [
        (11, 21, "PERSON", "Ed Sheeran")]
    assert spans.name == "demo" and spans.notes == []


def test_annotator_ids_are_split_and_named_by_session(sessions):
    assert annotator_ids(str(sessions)) == ["ner_demo-alice", "ner_demo-bob", "ner_demo-carol"]
    streams = annotators_jsonl(sessions)
    assert [s.name for s in streams] == ["alice", "bob", "carol"]
    alice, bob, carol = (read(sessions, annotator=name) for name in ("alice", "bob", "carol"))
    assert (len(alice.documents), len(alice)) == (10, 75)  # the demo's ann1: 10 documents, 75 flat spans
    assert (len(bob.documents), len(bob)) == (10, 73)
    assert bob.notes == ["2 records answered reject or ignore left out (Prodigy: not annotations)"]
    assert (len(carol.documents), carol.notes) == (0, ["1 record answered reject or ignore left out (Prodigy: not "
                                                        "annotations)"])
    assert list(alice.documents)[:2] == ["1000", "1001"]


def test_agree_on_one_prodigy_file_equals_agree_on_the_demo(sessions, demo, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = agree([demo / "jsonl" / "ann1.jsonl", demo / "jsonl" / "ann2.jsonl"])
    assert main(["agree", str(sessions), "--annotators", "alice,bob", "--output", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["annotators"] == ["alice", "bob"]
    assert document["pairs"][0]["f1"] == expected.pairs[0].counts.f1
    assert document["notes"] == ["bob: 2 records answered reject or ignore left out (Prodigy: not annotations)"]
    # Without --annotators, carol (no accepted record) joins: no document is shared by all three.
    assert main(["agree", str(sessions)]) == 1
    assert "no document is annotated by every annotator: alice has 10; bob has 10; carol has 0" in capsys.readouterr().err


def test_score_takes_a_session_as_gold(sessions, demo):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = score(sessions, annotators=["alice", "bob"])
        expected = score(demo / "jsonl" / "ann1.jsonl", demo / "jsonl" / "ann2.jsonl")
    assert (result.gold, result.prediction) == ("alice", "bob")
    assert result.pair.counts == expected.pair.counts


def test_a_file_without_annotator_ids_is_one_span_set_named_by_its_stem(demo):
    (stream,) = container_streams(demo / "jsonl" / "ann1.jsonl")
    assert stream.name == "ann1" and stream.role == "annotator"


def test_records_without_an_id_in_a_split_file_are_named_by_the_stem(tmp_path):
    path = tmp_path / "mixed.jsonl"
    path.write_text('{"text": "a", "spans": [], "_input_hash": 1}\n'
                    '{"text": "b", "spans": [{"start": 0, "end": 1, "label": "X"}], "_input_hash": 1, '
                    '"_annotator_id": "ds-ann"}\n', encoding="utf-8")
    assert [s.name for s in annotators_jsonl(path)] == ["mixed", "ann"]
    assert read(path, annotator="mixed").texts() == {"1": "a"}
    assert read(path, annotator="ann").texts() == {"1": "b"}
    with pytest.raises(UsageError, match="holds 2 annotators"):
        read(path)


def test_rejected_records_of_a_single_annotator_file(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": 1, "text": "a", "spans": [{"start": 0, "end": 1, "label": "X"}], "answer": "accept"}\n'
                    '{"id": 1, "text": "a", "spans": [{"start": 0, "end": 1, "label": "Y"}], "answer": "reject"}\n'
                    '{"id": 2, "text": "b", "answer": "ignore"}\n', encoding="utf-8")
    spans = read(path)
    assert [(s.doc, s.label) for s in spans] == [("1", "X")]  # the rejected copy of 1 is not an id seen twice
    assert spans.notes == ["2 records answered reject or ignore left out (Prodigy: not annotations)"]


@pytest.mark.parametrize("padding", range(0, 40))
def test_the_annotator_key_is_found_wherever_the_scan_chunks_cut_it(tmp_path, monkeypatch, padding):
    """The scan for "_annotator_id" reads 16-byte chunks here: the key (15 bytes) lies in one
    chunk, across two, or (padding 0) at the file's start; a file without it gives [None]."""
    from spanagree.formats import jsonl

    monkeypatch.setattr(jsonl, "SCAN_CHUNK", 16)
    record = {"id": "d1", "text": "abc", "spans": []}
    path = tmp_path / "a.jsonl"
    path.write_text(" " * padding + '{"_annotator_id": "alice", ' + json.dumps(record)[1:] + "\n")
    assert annotator_ids(str(path)) == ["alice"]
    path.write_text(" " * padding + json.dumps(record) + "\n")
    assert annotator_ids(str(path)) == [None]


# -- issue 32: "_annotator_id" read as the JSON parser reads the record ------------------------------

def _line(doc: str, annotator, extra: str = "") -> str:
    """A record of document ``doc`` (one span) whose ``_annotator_id`` is written ``annotator`` (raw JSON)."""
    return (f'{{"id": "{doc}", "text": "Ana", "spans": [{{"start": 0, "end": 3, "label": "PER"}}], '
            f'"_annotator_id": {annotator}{extra}}}\n')


def _read_all(path) -> dict:
    return {s.name: sorted(collect(s).documents) for s in container_streams(path, "jsonl")}


def test_a_numeric_annotator_id_is_its_text_and_no_record_vanishes(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text(_line("d1", '"ner-alice"') + _line("d2", "7") + _line("d3", '"ner-bob"') + _line("d4", "7")
                    + _line("d5", "2.5"), encoding="utf-8")
    assert annotator_ids(str(path)) == ["ner-alice", "7", "ner-bob", "2.5"]
    # the sessions named by their session though the number shares no dataset prefix
    assert _read_all(path) == {"alice": ["d1"], "7": ["d2", "d4"], "bob": ["d3"], "2.5": ["d5"]}


def test_a_duplicate_key_is_read_as_json_reads_it_the_last_one(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text(_line("d1", '"ds-alice", "_annotator_id": "ds-bob"') + _line("d2", '"ds-alice"'),
                    encoding="utf-8")
    assert _read_all(path) == {"bob": ["d1"], "alice": ["d2"]}


def test_a_key_nested_in_meta_is_no_annotator(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text(_line("d1", '"ds-alice"') + '{"id": "d2", "text": "Bo", "meta": {"_annotator_id": "ghost"}}\n'
                    + _line("d3", '"ds-alice"'), encoding="utf-8")
    assert _read_all(path) == {"p": ["d2"], "alice": ["d1", "d3"]}


def test_an_escaped_key_is_the_key(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text(_line("d1", '"ds-alice"') + _line("d2", '"ds-bob"').replace('"_annotator_id"',
                                                                                   '"\\u005fannotator_id"'),
                    encoding="utf-8")
    assert _read_all(path) == {"alice": ["d1"], "bob": ["d2"]}


@pytest.mark.parametrize("value, shown", [('["ds-alice"]', '["ds-alice"]'), ('{"name": "alice"}', '{"name": "alice"}'),
                                          ("true", "true")])
def test_a_list_or_object_as_annotator_id_is_one_line(tmp_path, capsys, value, shown):
    path = tmp_path / "p.jsonl"
    path.write_text(_line("d1", '"ds-alice"') + _line("d2", value), encoding="utf-8")
    code, out, err = run(capsys, "agree", path)
    assert (code, out) == (1, "")
    assert err == (f'spanagree: error: {path}:2: "_annotator_id" must be a string or a number, got {shown}\n')


def test_the_whole_id_picks_the_session_too(tmp_path):
    path = tmp_path / "ner_news.jsonl"
    path.write_text(_line("d1", '"ner_news-alice"') + _line("d1", '"ner_news-bob"'), encoding="utf-8")
    assert [s.name for s in open_annotators(path, annotators=["ner_news-bob", "alice"])] == ["bob", "alice"]
    assert list(read(path, annotator="ner_news-alice").documents) == ["d1"]


@pytest.mark.parametrize("answer", ['["accept", "reject"]', '{"x": 1}', "3"])
def test_an_answer_of_the_wrong_type_is_one_line(tmp_path, capsys, answer):
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": "d1", "text": "Ana"}\n' + f'{{"id": "d2", "text": "Bo", "answer": {answer}}}\n',
                    encoding="utf-8")
    code, out, err = run(capsys, "convert", path, "--to", "jsonl", "--out", tmp_path / "x.jsonl")
    assert (code, out) == (1, "")
    assert err == (f'spanagree: error: {path}:2: "answer" must be a string ("accept", "reject" or "ignore"), '
                   f"got {answer}\n")


@pytest.mark.parametrize("record", [
    {"id": "d1", "text": "Ana met Bo.", "_input_hash": 7, "_task_hash": -3, "meta": {"source": "x"},
     "spans": [{"start": 0, "end": 3, "label": "PER", "token_start": 0, "token_end": 0},
               {"start": 8, "end": 10, "label": "PER", "fragments": [[8, 9], [9, 10]]}],
     "answer": "accept", "_annotator_id": "ds-alice", "_session_id": "ds-alice"},
    {"id": 3, "text": "Ana met Bo.", "label": [[0, 3, "PER"]]},
    {"text": "Ana met Bo.", "entities": [{"start_offset": 0, "end_offset": 3, "label": "PER"}]},
])
def test_every_field_of_a_record_swapped_for_another_type(tmp_path, record):
    """Read, or one FormatError naming the file and line (never another exception)."""
    from spanagree.errors import FormatError

    from json_swaps import type_swaps

    outcomes = {"read": 0, "refused": 0}
    path = tmp_path / "p.jsonl"
    neighbour = {"id": "d9", "text": "Bo.", "_annotator_id": "ds-bob"}
    for what, mutated in type_swaps(record):
        path.write_text(json.dumps(neighbour) + "\n" + json.dumps(mutated) + "\n", encoding="utf-8")
        try:
            for stream in container_streams(path, "jsonl"):
                collect(stream)
        except (FormatError, UsageError) as error:
            assert "\n" not in str(error) and str(error).startswith(f"{path}:2: "), what
            outcomes["refused"] += 1
        else:
            outcomes["read"] += 1
    assert outcomes["read"] and outcomes["refused"]
