"""agree(): pairs, mean and pooled F1, per label and per document, texts that differ."""

from __future__ import annotations

import math

import pytest

from spanagree import Span, SpanSet, agree
from spanagree.errors import FormatError, SpanagreeWarning, UsageError
from spanagree.span import Document

TEXT = "Ana Ruiz met Bo Li in Porto and Lisbon ."
#       0   4    9   13 16 19 22    28  32     39


def spanset(name, spans, text=TEXT, doc="d1", extra_docs=()):
    documents = {doc: Document(doc, text, [Span(doc, (s, e), label) for s, e, label in spans])}
    for other in extra_docs:
        documents[other] = Document(other, "Nothing here .", [])
    return SpanSet(name, documents)


# ann1  [Ana Ruiz]PER      [Bo Li]PER     [Porto]LOC    [Lisbon]LOC
# ann2  [Ana Ruiz]PER      [Bo]PER        [Porto]ORG    [Lisbon]LOC
# ann3  [Ana Ruiz]PER      [Bo Li]PER                   [Lisbon]LOC
ANN1 = spanset("ann1", [(0, 8, "PER"), (13, 18, "PER"), (22, 27, "LOC"), (32, 38, "LOC")])
ANN2 = spanset("ann2", [(0, 8, "PER"), (13, 15, "PER"), (22, 27, "ORG"), (32, 38, "LOC")])
ANN3 = spanset("ann3", [(0, 8, "PER"), (13, 18, "PER"), (32, 38, "LOC")])


def figures(result):
    return [(p.first, p.second, p.counts.a, p.counts.b, p.counts.c) for p in result.pairs]


def test_three_annotators_exact_strict_by_hand():
    result = agree([ANN1, ANN2, ANN3])
    # ann1–ann2: Ana Ruiz, Lisbon agree; Bo Li/Bo and Porto LOC/ORG do not → a=2, b=2, c=2
    # ann1–ann3: 3 agree; Porto only in ann1 → a=3, b=1, c=0
    # ann2–ann3: Ana Ruiz, Lisbon → a=2, b=2 (Bo, Porto), c=1 (Bo Li)
    assert figures(result) == [("ann1", "ann2", 2, 2, 2), ("ann1", "ann3", 3, 1, 0), ("ann2", "ann3", 2, 2, 1)]
    f1s = [4 / 8, 6 / 7, 4 / 7]
    assert result.mean.mean == pytest.approx(sum(f1s) / 3)
    mean = sum(f1s) / 3
    assert result.mean.sd == pytest.approx(math.sqrt(sum((f - mean) ** 2 for f in f1s) / 3))
    assert result.pooled.as_dict()["f1"] == pytest.approx(2 * 7 / (2 * 7 + 5 + 3))
    data = result.to_dict()
    assert data["annotators"] == ["ann1", "ann2", "ann3"]
    assert data["documents"] == 1
    assert data["pairs"][0] == {"annotators": ["ann1", "ann2"], "a": 2.0, "b": 2.0, "c": 2.0,
                                "precision": 0.5, "recall": 0.5, "f1": 0.5, "jaccard": pytest.approx(1 / 3)}
    assert data["matrix"]["f1"][0][2] == pytest.approx(6 / 7)


def test_modes_on_the_same_data():
    # overlap/ignore: Bo Li~Bo and Porto LOC~ORG now match: ann1–ann2 a=4
    assert figures(agree([ANN1, ANN2], match="overlap", labels="ignore"))[0][2:] == (4, 0, 0)
    # partial/strict: Bo Li~Bo earns 0.5; Porto LOC/ORG earns nothing
    assert figures(agree([ANN1, ANN2], match="partial", labels="strict"))[0][2:] == (2.5, 1.5, 1.5)
    # exact/ignore: Porto counts, Bo Li/Bo does not
    assert figures(agree([ANN1, ANN2], match="exact", labels="ignore"))[0][2:] == (3, 1, 1)


def test_by_label_and_by_document():
    result = agree([ANN1, ANN2])
    per_label = {label: (c.a, c.b, c.c) for label, c in result.pairs[0].by_label.items()}
    assert per_label == {"PER": (1, 1, 1), "LOC": (1, 1, 0), "ORG": (0, 0, 1)}
    data = result.to_dict(by_document=True)
    assert data["by_label"]["ORG"]["mean_f1"] == 0
    assert data["by_document"]["d1"]["pairs"][0]["f1"] == 0.5


def test_label_map_and_only():
    mapped = agree([ANN1, ANN2], label_map=["ORG=LOC"])
    assert figures(mapped)[0][2:] == (3, 1, 1)
    only = agree([ANN1, ANN2], only="LOC")
    assert figures(only)[0][2:] == (1, 1, 0)
    assert only.to_dict()["options"]["only"] == ["LOC"]


def test_documents_not_annotated_by_everyone_are_left_out():
    with pytest.warns(SpanagreeWarning, match="d2"):
        result = agree([spanset("x", [(0, 8, "PER")], extra_docs=["d2"]), spanset("y", [(0, 8, "PER")])])
    assert result.documents == ["d1"]
    assert result.to_dict()["left_out"] == {"not_annotated_by_everyone": ["d2"]}


def test_undefined_f1_is_nan_and_skipped_in_the_mean():
    empty = spanset("e1", [])
    result = agree([empty, spanset("e2", []), ANN1])
    data = result.to_dict()
    assert math.isnan(data["pairs"][0]["f1"])
    assert data["pairs_with_undefined_f1"] == 1
    assert data["mean_f1"] == 0.0  # the two defined pairs (empty vs ANN1) have F1 0


def test_different_texts_are_an_error_naming_the_document():
    other = spanset("ann9", [(0, 8, "PER")], text=TEXT.replace("Porto", "Braga"))
    with pytest.raises(FormatError, match="'d1'.*ann9"):
        agree([ANN1, other])


def test_align_whitespace_maps_offsets():
    # ann2 stored the text with doubled spaces and a line break: offsets differ, characters do not.
    spaced = "Ana  Ruiz met\nBo Li in  Porto and Lisbon ."
    #          0         10    16      24   29   34
    ann2 = spanset("ann2", [(0, 9, "PER"), (14, 19, "PER"), (24, 29, "LOC"), (34, 40, "LOC")], text=spaced)
    assert [spaced[s:e] for s, e in [(0, 9), (14, 19), (24, 29), (34, 40)]] == ["Ana  Ruiz", "Bo Li", "Porto", "Lisbon"]
    with pytest.raises(FormatError):
        agree([ANN1, ann2])
    result = agree([ANN1, ann2], align_whitespace=True)
    assert figures(result)[0][2:] == (4, 0, 0)
    assert any("whitespace" in note for note in result.notes)
    # texts that differ beyond whitespace are left out, with a warning naming them
    different = spanset("ann3", [(0, 8, "PER")], text=TEXT.replace("Porto", "Braga"), extra_docs=["d2"])
    with pytest.warns(SpanagreeWarning, match="d1"):
        result = agree([spanset("x", [], extra_docs=["d2"]), different], align_whitespace=True)
    assert result.documents == ["d2"]


def test_needs_two_annotators():
    with pytest.raises(UsageError):
        agree([ANN1])


def test_does_not_rename_the_callers_spansets():
    first, second = spanset("same", [(0, 8, "PER")]), spanset("same", [(0, 8, "PER")])
    result = agree([first, second])
    assert result.annotators == ["same", "same#2"]
    assert second.name == "same"


def test_jobs_give_identical_results():
    documents = {}
    spans1, spans2 = [], []
    sets = []
    for k in range(40):
        doc = f"doc{k:02d}"
        sets.append(doc)
    ann1 = SpanSet("a", {d: Document(d, TEXT, [Span(d, (0, 8), "PER"), Span(d, (22, 27), "LOC")]) for d in sets})
    ann2 = SpanSet("b", {d: Document(d, TEXT, [Span(d, (0, 8), "PER")] + ([Span(d, (22, 27), "ORG")] if int(d[3:]) % 3 else []))
                         for d in sets})
    one = agree([ann1, ann2], jobs=1).to_dict(by_document=True)
    two = agree([ann1, ann2], jobs=2).to_dict(by_document=True)
    assert one == two
    assert one["pairs"][0]["a"] == 40
