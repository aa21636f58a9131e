"""score(): precision, recall, F-beta, error analysis, documents missing on either side."""

from __future__ import annotations

import importlib
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spanagree import Span, SpanSet, score
from spanagree.pipeline.compare import LabelTally
from spanagree.match import MatchRule, align
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
    result = score(GOLD, PRED, errors=True)
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


def test_error_listing_has_document_offsets_text_labels_and_source():
    listing = score(GOLD, PRED, errors=True).errors_frame()
    assert listing.columns.tolist()[:5] == ["document", "kind", "aligned", "credit", "gold_start"]
    partial = listing[listing.kind == "partial"].iloc[0]
    assert (partial.document, partial.gold_start, partial.gold_end, partial.gold_label, partial.gold_text) == (
        "d1", 4, 12, "PER", "Ana Ruiz")
    assert (partial.pred_start, partial.pred_end, partial.pred_label, partial.pred_text) == (0, 12, "PER", "Dr. Ana Ruiz")
    assert not partial.aligned and partial.credit == 0  # exact/strict: the pair earns nothing
    # under partial matching the same pair is aligned and earns the partial credit
    listing = score(GOLD, PRED, match="partial", errors=True).errors_frame()
    partial = listing[listing.kind == "partial"].iloc[0]
    assert partial.aligned and partial.credit == 0.5
    assert set(listing.kind) == {"partial", "wrong_label", "missed", "spurious"}  # correct spans are not errors


# -- the demo corpus: every error kind counted by hand (corpora/demo/README.md) --------------------

#: ann1 as gold, ann2 as prediction: the README's "Deliberate disagreements" between the two.
DEMO_ANN2 = {
    ("partial", "Mr. Tomas Berg", "Tomas Berg"),
    ("missed", "Metformin", None),
    ("wrong_label", "Mercy Hospital", "Mercy Hospital"),
    ("spurious", None, "BRCA1 mutation"),
    ("partial", "breast cancer", "breast and ovarian cancer"),  # aligned with one of ann1's two spans
    ("missed", "ovarian cancer", None),
    ("wrong_label", "Hillcrest Medical Centre", "Hillcrest Medical Centre"),
    ("missed", "neurological deficit", None),
    ("partial", "Apixaban", "Apixaban 5 mg"),
    ("partial", "chronic obstructive pulmonary disease", "exacerbation of chronic obstructive pulmonary disease"),
    ("partial", "Helmark Group", "Helmark"),
    ("partial", "Estádio Municipal", "the Estádio Municipal"),
    ("wrong_label_and_boundary", "Valmora", "city council of Valmora"),
    ("missed", "Lisbon", None),
    ("partial", "Professor Inês Carvalho", "Inês Carvalho"),
    ("wrong_label", "Hospital Santa Maria", "Hospital Santa Maria"),
    ("missed", "formoterol", None),
}


def test_demo_error_analysis_by_hand(demo):
    from spanagree import read

    ann1, ann2, ann3 = (read(demo / "brat" / name, "brat") for name in ("ann1", "ann2", "ann3"))
    result = score(ann1, ann2, errors=True)
    assert (result.counts.a, result.counts.b, result.counts.c) == (61, 12, 16)
    assert result.error_counts() == {"correct": 61, "partial": 7, "wrong_label": 3, "wrong_label_and_boundary": 1,
                                     "missed": 5, "spurious": 1}
    assert {(e.kind, e.gold_text, e.pred_text) for e in result.errors()} == DEMO_ANN2
    assert len(result.errors()) == len(DEMO_ANN2)
    # ann3: Tomas Berg, diabetes, Okafor, Inês Carvalho (partial); St. Anne's, Northgate (label);
    # neurological deficit, pneumonia, Castelo Alto, pancreatic tumours (missed); fever, regulators (spurious)
    result = score(ann1, ann3, errors=True)
    assert result.error_counts() == {"correct": 67, "partial": 4, "wrong_label": 2, "wrong_label_and_boundary": 0,
                                     "missed": 4, "spurious": 2}
    # every span is classified once: pairs + missed = gold spans, pairs + spurious = predicted spans
    for pred in (ann2, ann3):
        kinds = score(ann1, pred).error_counts()
        paired = sum(kinds[k] for k in ("correct", "partial", "wrong_label", "wrong_label_and_boundary"))
        assert paired + kinds["missed"] == len(ann1) and paired + kinds["spurious"] == len(pred)


def test_classification_keeps_spans_that_share_fragments_but_not_labels():
    # Regression: the second alignment used to count spans with the same fragments once, so one of
    # two gold spans on the same words (PER and ORG, both kept under labels strict) went unlisted.
    gold = spanset("gold", [(4, 12, "PER"), (4, 12, "ORG")])
    empty = spanset("sys", [])
    with pytest.warns(SpanagreeWarning, match="precision undefined"):
        result = score(gold, empty)
    assert (result.counts.a, result.counts.b, result.counts.c) == (0, 0, 2)
    assert result.error_counts()["missed"] == 2
    pred = spanset("sys", [(4, 12, "LOC"), (4, 12, "DRUG"), (4, 12, "PER")])
    result = score(gold, pred)
    assert (result.counts.a, result.counts.b, result.counts.c) == (1, 2, 1)
    assert result.error_counts() == {"correct": 1, "partial": 0, "wrong_label": 1, "wrong_label_and_boundary": 0,
                                     "missed": 0, "spurious": 1}


def test_f_beta_family_and_bad_beta():
    pred = spanset("sys", [(4, 12, "PER"), (16, 30, "ORG")])  # a=2, b=0, c=3: P = 1, R = 0.4
    for beta, key, value in [(0.5, "f0.5", 2.5 / 3.25), (0, "f0", 1.0), (float("inf"), "finf", 0.4), (3, "f3", 20 / 47)]:
        assert score(GOLD, pred, beta=beta).to_dict()[key] == pytest.approx(value, abs=1e-15)
    assert "f1" in score(GOLD, pred).to_dict() and not [k for k in score(GOLD, pred).to_dict() if k.startswith("f1.")]
    assert score(GOLD, pred, beta=2).by_label_frame().query("label == 'PER'")["f2"].item() == pytest.approx(5 / 9)
    from spanagree.errors import UsageError

    for beta in (-1, float("nan")):
        with pytest.raises(UsageError, match="^beta must be >= 0"):
            score(GOLD, pred, beta=beta)


def test_undefined_rates_warn_and_are_null_in_json():
    from spanagree.report import json_safe

    empty = spanset("sys", [])
    with pytest.warns(SpanagreeWarning, match=r"^sys: precision undefined \(0/0\), reported as NaN$"):
        result = score(GOLD, empty)
    data = json_safe(result.to_dict())
    assert data["precision"] is None and data["recall"] == 0 and data["f1"] == 0


def test_greedy_peer_example_two_predictions_on_one_gold_span():
    # docs/peers.md (a): nervaluate's figures depend on the order of the predictions; ours do not.
    #   token   0 1 2 3 4 5 6 7 8 9
    #   gold    [=======PER=========]     PER [0, 10)
    #   pred 1  [===PER===]               PER [0, 5)
    #   pred 2  [=======PER=========]     PER [0, 10), exact
    text = "t0 t1 t2 t3 t4 t5 t6 t7 t8 t9"
    gold = SpanSet.from_spans("gold", [Span("d", (0, 29), "PER")], {"d": text})
    for order in ([(0, 14), (0, 29)], [(0, 29), (0, 14)]):
        pred = SpanSet.from_spans("pred", [Span("d", o, "PER") for o in order], {"d": text})
        for match, labels in (("exact", "strict"), ("exact", "ignore"), ("partial", "ignore"), ("overlap", "strict")):
            result = score(gold, pred, match=match, labels=labels)
            assert (result.counts.a, result.counts.b, result.counts.c) == (1, 1, 0)
            assert result.error_counts()["correct"] == 1 and result.error_counts()["spurious"] == 1


def test_greedy_peer_example_from_wnut17():
    # WNUT-17 test sentence 1056 with mic-cis's prediction (docs/peers.md): nervaluate's ent_type
    # pairs the gold span with the first overlapping prediction, "Auto" (person: INC), and counts
    # "DJ Show" as spurious. The one-to-one optimum pairs the gold span with the same-type "DJ Show".
    #   Auto DJ Show is starting now !
    #   [==creative-work==]              gold
    #   [P=]                             pred person
    #        [creative-work]             pred creative-work
    text = "Auto DJ Show is starting now !"
    gold = SpanSet.from_spans("gold", [Span("d", (0, 12), "creative-work")], {"d": text})
    pred = SpanSet.from_spans("mic-cis", [Span("d", (0, 4), "person"), Span("d", (5, 12), "creative-work")], {"d": text})
    result = score(gold, pred, match="overlap", labels="strict", errors=True)  # nervaluate ent_type
    assert (result.counts.a, result.counts.b, result.counts.c) == (1, 1, 0)  # nervaluate: COR 0, INC 1, SPU 1
    assert {(e.kind, e.pred_text) for e in result.items} == {("partial", "DJ Show"), ("spurious", "Auto")}
    # partial/ignore: both predictions earn 0.5 with the gold span; the same-label one is chosen
    result = score(gold, pred, match="partial", labels="ignore", errors=True)
    assert result.counts.a == 0.5
    assert [(e.kind, e.pred_text, e.aligned) for e in result.items if e.gold] == [("partial", "DJ Show", True)]


def test_dataframes():
    result = score(GOLD, PRED, errors=True)
    by_label = result.by_label_frame()
    assert by_label["label"].tolist() == ["DRUG", "LOC", "ORG", "PER"]
    assert by_label[["a", "b", "c"]].values.tolist() == [[1, 1, 0], [1, 1, 0], [0, 0, 1], [0, 1, 2]]
    by_document = result.by_document_frame()
    assert by_document[["document", "a", "b", "c"]].values.tolist() == [["d1", 2, 3, 3]]
    assert len(result.errors_frame()) == 4


def span_lists():
    span = st.builds(lambda start, length, label: Span("d", ((start, start + length),), label),
                     st.integers(0, 20), st.integers(1, 6), st.sampled_from(["A", "B", "C"]))
    return st.lists(span, max_size=8)


@pytest.mark.parametrize("labels", ["strict", "ignore"])
@pytest.mark.parametrize("match", ["exact", "overlap", "partial"])
@settings(max_examples=200, deadline=None, derandomize=True)
@given(pred=span_lists(), gold=span_lists())
@pytest.mark.slow
def test_the_tally_is_the_same_whether_or_not_it_knows_the_rule(match, labels, pred, gold):
    # Knowing the rule (exact, labels strict), the aligned pairs are counted from the label tally.
    errorkinds = importlib.import_module("spanagree.errorkinds")
    rule = MatchRule(match, labels)
    alignment = align(pred, gold, rule)
    tally = Counter(errorkinds.error_keys("d", alignment))  # every item looked at
    label_tally = LabelTally(ones=Counter(p.first.label for p in alignment.pairs))
    knowing = Counter(errorkinds.error_keys("d", alignment, rule))
    knowing.update(errorkinds.correct_pairs(label_tally, rule))
    assert knowing == tally
    keys, items = errorkinds.keys_and_items("d", alignment, None, rule)  # the listing's one pass
    assert Counter(keys) == Counter(errorkinds.error_keys("d", alignment, rule))
    assert [(e.kind, e.gold, e.pred) for e in items] == [
        (kind, gold_span, pred_span) for kind, _, _, gold_span, pred_span in errorkinds.records_of(alignment)]
    listed = {}
    for record in errorkinds.records_of(alignment):
        kind, _, _, gold_span, pred_span = record
        key = (kind, gold_span.label if gold_span else None, pred_span.label if pred_span else None)
        listed[key] = listed.get(key, 0) + 1
    assert dict(tally) == listed
