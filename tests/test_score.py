"""score(): precision, recall, F-beta, error analysis, documents missing on either side."""

from __future__ import annotations

import pytest

from spanagree import Span, SpanSet, score
from spanagree.errors import SpanagreeWarning
from spanagree.span import Document

TEXT = "Dr. Ana Ruiz of Mercy Hospital gave aspirin to Bo in Porto ."
#       0   4   8    13 16    22       31   36      44 47 50 53   59


def spanset(name, spans, docs=("d1",)):
    return SpanSet(name, {d: Document(d, TEXT, [Span(d, (s, e), label) for s, e, label in spans]) for d in docs})


# gold  [Ana Ruiz]PER  [Mercy Hospital]ORG  [aspirin]DRUG  [Bo]PER  [Porto]LOC
# pred  [Dr. Ana Ruiz]PER [Mercy Hospital]LOC [aspirin]DRUG          [Porto]LOC  [gave]DRUG
GOLD = spanset("gold", [(4, 12, "PER"), (16, 30, "ORG"), (36, 43, "DRUG"), (47, 49, "PER"), (53, 58, "LOC")])
PRED = spanset("sys", [(0, 12, "PER"), (16, 30, "LOC"), (36, 43, "DRUG"), (53, 58, "LOC"), (31, 35, "DRUG")])


def test_exact_strict_by_hand():
    result = score(GOLD, PRED)
    counts = result.counts
    assert (counts.a, counts.b, counts.c) == (2, 3, 3)  # aspirin, Porto
    assert counts.precision == 2 / 5 and counts.recall == 2 / 5
    assert result.error_counts() == {"correct": 2, "partial": 1, "wrong_label": 1, "wrong_label_and_boundary": 0,
                                     "missed": 1, "spurious": 1}
    kinds = {(e.kind, e.gold_text, e.pred_text) for e in result.errors()}
    assert kinds == {("partial", "Ana Ruiz", "Dr. Ana Ruiz"), ("wrong_label", "Mercy Hospital", "Mercy Hospital"),
                     ("missed", "Bo", None), ("spurious", None, "gave")}


def test_the_classification_never_changes_the_counts():
    for match in ("exact", "overlap", "partial"):
        for labels in ("strict", "ignore"):
            result = score(GOLD, PRED, match=match, labels=labels)
            counts = result.counts
            assert counts.a + counts.b == 5 and counts.a + counts.c == 5
            assert sum(result.error_counts().values()) == 6  # 4 pairs + 1 missed + 1 spurious
    partial = score(GOLD, PRED, match="partial").counts
    assert (partial.a, partial.b, partial.c) == (2.5, 2.5, 2.5)
    overlap_ignore = score(GOLD, PRED, match="overlap", labels="ignore").counts
    assert (overlap_ignore.a, overlap_ignore.b, overlap_ignore.c) == (4, 1, 1)


def test_f_beta_and_json_contract():
    pred = spanset("sys", [(4, 12, "PER"), (16, 30, "ORG")])
    result = score(GOLD, pred, beta=2)
    # a=2, b=0, c=3: P=1, R=0.4, F2 = 5*2 / (5*2 + 4*3 + 0) = 10/22
    data = result.to_dict()
    assert data["precision"] == 1 and data["recall"] == 0.4
    assert data["f2"] == pytest.approx(10 / 22)
    assert data["f1"] == pytest.approx(4 / 7)
    for key in ("spanagree", "options", "a", "b", "c", "precision", "recall", "f1", "by_label", "errors"):
        assert key in data
    assert data["by_label"]["PER"]["a"] == 1 and data["by_label"]["PER"]["c"] == 1
    assert data["confusion"]["labels"][-1] == "(none)"


def test_missing_and_extra_prediction_documents():
    gold = spanset("gold", [(4, 12, "PER")], docs=("d1", "d2"))
    pred = spanset("sys", [(4, 12, "PER")], docs=("d1", "d3"))
    with pytest.warns(SpanagreeWarning) as caught:
        result = score(gold, pred)
    messages = " ".join(str(w.message) for w in caught)
    assert "d2" in messages and "d3" in messages
    assert (result.counts.a, result.counts.b, result.counts.c) == (1, 0, 1)
    assert result.missing_predictions == ["d2"]


def test_several_predictions():
    results = score(GOLD, [PRED, GOLD])
    assert [r.prediction for r in results] == ["sys", "gold"]
    assert results[1].counts.f1 == 1


def test_confusion_matrix():
    confusion = score(GOLD, PRED).confusion()
    labels = confusion["labels"]
    assert labels == ["DRUG", "LOC", "ORG", "PER", "(none)"]
    m = confusion["matrix"]
    assert m[labels.index("ORG")][labels.index("LOC")] == 1
    assert m[labels.index("PER")][labels.index("PER")] == 1  # Ana Ruiz, a boundary error
    assert m[labels.index("PER")][labels.index("(none)")] == 1  # Bo missed
    assert m[labels.index("(none)")][labels.index("DRUG")] == 1  # gave spurious
