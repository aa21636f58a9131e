"""The label checks (spanagree.pipeline.labels): label sets that do not line up, and ``--map`` /
``--only`` naming labels no input has — warned on stderr and listed in the JSON's notes, the same
under ``--jobs`` and streaming."""

from __future__ import annotations

import json
import warnings
from collections import Counter

import pytest

from spanagree import agree, score, vote
from spanagree.cli import main
from spanagree.errors import SpanagreeWarning
from spanagree.formats import read, write
from spanagree.pipeline.labels import MIN_SHARE, MIN_SPANS, unknown_labels, unshared_labels
from spanagree.span import Document, SpanSet

LONG = {"PER": "PERSON", "LOC": "LOCATION", "ORG": "ORGANIZATION", "DRUG": "MEDICATION", "DISEASE": "CONDITION"}


def _relabelled(spanset: SpanSet, mapping: dict[str, str], name: str) -> SpanSet:
    documents = {d: Document(d, doc.text, [s.relabel(mapping.get(s.label, s.label)) for s in doc.spans])
                 for d, doc in spanset.documents.items()}
    return SpanSet(name, documents)


@pytest.fixture
def renamed(demo, tmp_path):
    """The demo's ann1 as it is, and its ann2 with every label spelt out (PERSON, LOCATION, ...)."""
    write(read(demo / "brat" / "ann1"), tmp_path / "ann1", "brat")
    write(_relabelled(read(demo / "brat" / "ann2"), LONG, "ann2"), tmp_path / "ann2", "brat")
    return tmp_path / "ann1", tmp_path / "ann2"


def _json(args, capsys) -> tuple[dict, str]:
    assert main([*args, "--output", "json"]) == 0
    captured = capsys.readouterr()
    return json.loads(captured.out), captured.err


def test_label_sets_that_share_nothing_are_warned_and_noted(renamed, demo, capsys):
    ann1, ann2 = renamed
    document, err = _json(["agree", str(ann1), str(ann2)], capsys)
    message = ("ann1 and ann2 share no label: ann1 has DISEASE, DRUG, LOC, ORG, PER; ann2 has CONDITION, "
               "LOCATION, MEDICATION, ORGANIZATION, PERSON; with strict labels none of their spans can match "
               "(relabel with --map OLD=NEW, or compare boundaries only with --labels ignore)")
    assert message in document["notes"]
    assert f"spanagree: warning: {message}" in err
    assert document["pairs"][0]["f1"] == 0.0
    # Mapped back: no warning, and the demo's own figure.
    mapping = ",".join(f"{new}={old}" for old, new in LONG.items())
    mapped, err = _json(["agree", str(ann1), str(ann2), "--map", mapping], capsys)
    original, _ = _json(["agree", str(demo / "brat" / "ann1"), str(demo / "brat" / "ann2")], capsys)
    assert mapped["notes"] == [] and "label" not in err
    assert mapped["pairs"][0]["f1"] == original["pairs"][0]["f1"]
    assert original["pairs"][0]["f1"] > 0.8


def test_labels_ignore_checks_no_label_set(renamed, capsys):
    document, err = _json(["agree", *map(str, renamed), "--labels", "ignore"], capsys)
    assert document["notes"] == [] and err == ""


def test_a_label_one_side_lacks(demo, tmp_path, capsys):
    """ORG renamed ORGANISATION in ann2 only: the other labels are shared."""
    write(_relabelled(read(demo / "brat" / "ann2"), {"ORG": "ORGANISATION"}, "ann2"), tmp_path / "ann2", "brat")
    first, second = read(demo / "brat" / "ann1"), read(tmp_path / "ann2")
    org1 = sum(s.label == "ORG" for s in first)
    org2 = sum(s.label == "ORGANISATION" for s in second)
    assert (org1, org2) == (19, 17)  # counted (grep -c) from the demo's ann1 and ann2 .ann files
    document, err = _json(["agree", str(demo / "brat" / "ann1"), str(tmp_path / "ann2")], capsys)
    message = ("ann1 and ann2: labels only one of them uses: ann1: ORG (19 spans); ann2: ORGANISATION (17 spans); "
               "with strict labels those spans cannot match (relabel with --map OLD=NEW if they name the same thing)")
    assert document["notes"] == [message]
    # The --map misspelt: the map is unknown, and the labels still do not line up.
    document, err = _json(["agree", str(demo / "brat" / "ann1"), str(tmp_path / "ann2"), "--map",
                           "ORGANIZATION=ORG"], capsys)
    assert document["notes"][0] == ("--map names a label no input has: ORGANIZATION (the inputs have: DISEASE, "
                                    "DRUG, LOC, ORG, ORGANISATION, PER); it relabels nothing")
    assert document["notes"][1] == message
    document, err = _json(["agree", str(demo / "brat" / "ann1"), str(tmp_path / "ann2"), "--map",
                           "ORGANISATION=ORG"], capsys)
    assert document["notes"] == []


def test_the_threshold_rule():
    share = MIN_SHARE
    assert (MIN_SPANS, share) == (10, 0.05)
    # 10 spans of 200 (5 %): reported; 9 spans, or 10 of 201: not.
    assert unshared_labels("a", Counter({"X": 190, "Y": 10}), "b", Counter({"X": 150})) is not None
    assert unshared_labels("a", Counter({"X": 191, "Y": 9}), "b", Counter({"X": 150})) is None
    assert unshared_labels("a", Counter({"X": 191, "Y": 10}), "b", Counter({"X": 150})) is None
    # Nothing on one side: no label set to compare.
    assert unshared_labels("a", Counter({"X": 3}), "b", Counter()) is None


def test_map_and_only_naming_unknown_labels(demo, capsys):
    ann1, ann2 = (str(demo / "brat" / n) for n in ("ann1", "ann2"))
    document, err = _json(["agree", ann1, ann2, "--map", "ORGANISATION=ORG,PER=PERSON", "--only", "PERSON,MISC"],
                          capsys)
    assert document["notes"] == [
        "--map names a label no input has: ORGANISATION (the inputs have: DISEASE, DRUG, LOC, ORG, PER); it "
        "relabels nothing",
        "--only names a label no input has (after --map): MISC (the inputs have: DISEASE, DRUG, LOC, ORG, PERSON); "
        "it selects nothing",
    ]
    assert err.count("spanagree: warning: --map names") == 1 and err.count("spanagree: warning: --only") == 1
    unknown = unknown_labels([Counter({"A": 1})], {"B": "A", "C": "A"}, None)
    assert [str(w) for w in unknown] == ["label_map names labels no input has: B, C (the inputs have: A); they relabel nothing"]
    assert [w.command_line_message() for w in unknown] == [
        "--map names labels no input has: B, C (the inputs have: A); they relabel nothing"]


def test_score_and_merge_check_labels_too(renamed, demo, capsys):
    ann1, ann2 = map(str, renamed)
    document, err = _json(["score", ann1, ann2, "--only", "MISC"], capsys)
    # no --map in this run: the message does not speak of it
    assert document["notes"][0].startswith("--only names a label no input has: MISC (the inputs have: ")
    document, err = _json(["score", ann1, ann2], capsys)
    assert document["notes"] == [n for n in document["notes"] if "share no label" in n] and len(document["notes"]) == 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = vote([read(renamed[0]), read(renamed[1]), read(demo / "brat" / "ann3")], 2)
    shared = [n for n in result.notes if "share no label" in n]
    assert [n.split(":")[0] for n in shared] == ["ann1 and ann2 share no label", "ann2 and ann3 share no label"]
    # the notes (an output) as the command line says them; the warnings in the API's words
    warned = [w.message for w in caught if w.category is SpanagreeWarning and "share no label" in str(w.message)]
    assert [w.command_line_message() for w in warned] == shared
    assert [str(w) for w in warned] == [n.replace("--map OLD=NEW", 'label_map={"OLD": "NEW"}')
                                        .replace("--labels ignore", 'labels="ignore"') for n in shared]
    assert all("--" not in str(w) for w in warned)


def _big_jsonl(path, labels, documents=100, spans=500):
    """``documents`` documents of ``spans`` one-character spans each, labelled in turn from ``labels``."""
    text = "x " * spans
    lines = []
    for d in range(documents):
        entries = [{"start": 2 * k, "end": 2 * k + 1, "label": labels[k % len(labels)]} for k in range(spans)]
        lines.append(json.dumps({"id": f"d{d}", "text": text, "spans": entries}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


@pytest.mark.slow
def test_the_checks_do_not_depend_on_jobs(tmp_path, capsys):
    """Forked shards add up the labels read: the notes are those of one process."""
    a = _big_jsonl(tmp_path / "a.jsonl", ["PER", "LOC", "ORG"])
    b = _big_jsonl(tmp_path / "b.jsonl", ["PER", "LOC", "ORGANISATION"])
    runs = []
    for jobs in ("1", "2"):
        document, err = _json(["agree", a, b, "--jobs", jobs, "--map", "ORGANIZATION=ORG"], capsys)
        runs.append((document["notes"], err, document["pairs"][0]["f1"]))
    assert runs[0] == runs[1]
    notes = runs[0][0]
    assert notes[1] == ("a and b: labels only one of them uses: a: ORG (16600 spans); b: ORGANISATION (16600 spans); "
                        "with strict labels those spans cannot match (relabel with --map OLD=NEW if they name the "
                        "same thing)")
    # 500 spans per document: 167 PER, 167 LOC, 166 ORG; the ORG ones never match.
    assert runs[0][2] == pytest.approx((334 * 100) / (500 * 100))


def test_streaming_and_reading_whole_agree(renamed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        streamed = agree([str(p) for p in renamed])
        whole = agree([read(p) for p in renamed])
        scored = score(str(renamed[0]), str(renamed[1]))
    assert streamed.notes == whole.notes and len(streamed.notes) == 1
    assert scored.notes == ["ann1 and ann2 share no label: " + streamed.notes[0].split("share no label: ")[1]]
