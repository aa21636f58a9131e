"""seqeval 1.2.2's scoring test cases, run through spanagree.score (tests skip without ../shared).

Inputs and expected figures: ``../shared/corpora/peer-tests/seqeval/seqeval_cases.json`` (seqeval's
``tests/test_v1.py`` and ``tests/test_metrics.py``; provenance in the file). The tables that test
tag decoding alone (``test_scheme.py``, ``get_entities``, conlleval's fixture) are in
``test_conll.py``; this file checks the *scores*. seqeval is never imported here.

Where the definitions coincide — micro-averaged P, R, F1 (= spanagree's pooled figures), per-type
P, R, F1 and support, F-beta including β = ∞ — the figures are equal. Where they do not, the
test says why:

- **zero division**: seqeval reports 0 (with a warning) for a rate whose denominator is 0;
  spanagree reports NaN with a warning (docs/design.md, "Contracts"). Only the 0/0 cells differ.
- **macro and weighted averages over types**: seqeval averages the per-type rates (an undefined
  one as 0); spanagree reports per-type figures and the pooled (micro) figure, not type averages.
  The test shows that seqeval's macro figures are the plain means of spanagree's per-type figures
  once 0/0 is read as 0.
- ``test_performance_measure`` counts *tokens* (TP/FP/TN/FN of non-O tags); spanagree's spans
  have no TN. Token-level tables are ``--chance`` (``test_chance.py``).
- ``TestAutoDetect`` and suffix-style tags (``MISC-B``): spanagree never guesses a scheme and
  does not read suffix tags (``test_conll.py``).
"""

from __future__ import annotations

import json
import math
import warnings

import pytest

from spanagree import score
from spanagree.errors import SpanagreeWarning
from spanagree.formats.schemes import tags_to_spans
from spanagree.span import Span, SpanSet


@pytest.fixture(scope="module")
def cases(shared_corpora):
    with open(shared_corpora / "peer-tests" / "seqeval" / "seqeval_cases.json", encoding="utf-8") as handle:
        return json.load(handle)


def tagged(name: str, sentences: list[list[str]], scheme: str | None = None) -> SpanSet:
    """Sentences of tags as one document (token offsets; an O between sentences, as seqeval)."""
    tags = []
    for sentence in sentences:
        tags += sentence + ["O"]
    chunks, _ = tags_to_spans(tags, scheme)
    return SpanSet.from_spans(name, [Span("1", ((s, e),), label) for s, e, label in chunks], {"1": None})


def quiet_score(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        return score(*args, **kwargs)


def per_type(result) -> dict:
    """label → (precision, recall, f1, support), NaN where undefined (quietly)."""
    from spanagree.measures.registry import counts_dict

    table = {}
    for label, counts in result.pair.by_label.items():
        d = counts_dict(counts)
        table[label] = (d["precision"], d["recall"], d["f1"], d["a"] + d["c"])
    return table


def same(ours: float, theirs: float, digits: int | None = None) -> bool:
    return (round(ours, digits) if digits else ours) == theirs or math.isclose(ours, theirs, abs_tol=1e-12)


# y_true / y_pred of test_v1.py's TestPrecisionRecallFscoreSupport and TestClassificationReport.
Y_TRUE = [["B-A", "B-B", "O", "B-A"]]
Y_PRED = [["O", "B-B", "B-C", "B-A"]]


def test_scores_per_type(cases):
    """test_v1.py::test_scores (strict IOB2, average=None): per type P, R, F1, support."""
    case = cases["inline"]["test_v1.py::TestPrecisionRecallFscoreSupport::test_scores"]
    assert (case["y_true"], case["y_pred"]) == (Y_TRUE, Y_PRED)
    result = quiet_score(tagged("true", Y_TRUE, "iob2"), tagged("pred", Y_PRED, "iob2"))
    ours = per_type(result)
    expected = case["expected"]
    assert sorted(ours) == expected["labels"]
    for k, label in enumerate(expected["labels"]):
        precision, recall, f1, support = ours[label]
        assert support == expected["support"][k]
        assert same(precision, expected["precision"][k], 2) and same(f1, expected["f1"][k], 2)
        if support == 0:
            # C: predicted once, never in the truth. Recall 0/0: seqeval 0, spanagree NaN.
            assert math.isnan(recall) and expected["recall"][k] == 0.0
        else:
            assert same(recall, expected["recall"][k], 2)


def test_classification_report_and_averages(cases):
    """test_v1.py::test_output_dict (default mode): per type, micro, macro, weighted."""
    expected = cases["inline"]["test_v1.py::TestClassificationReport::test_output_dict"]["expected"]
    result = quiet_score(tagged("true", Y_TRUE), tagged("pred", Y_PRED))
    ours = per_type(result)
    for label in ("A", "B", "C"):
        precision, recall, f1, support = ours[label]
        theirs = expected[label]
        assert (precision, f1, support) == (theirs["precision"], theirs["f1-score"], theirs["support"])
        assert recall == theirs["recall"] or (math.isnan(recall) and theirs["recall"] == 0.0)  # 0/0
    # micro = spanagree's pooled figures (summed a, b, c)
    counts = result.counts
    micro = expected["micro avg"]
    assert (counts.precision, counts.recall, counts.f1, counts.a + counts.c) == (
        micro["precision"], micro["recall"], micro["f1-score"], micro["support"])
    # macro: not a spanagree figure; it is the mean of the per-type rates with 0/0 read as 0
    zeroed = {label: [0.0 if math.isnan(v) else v for v in values[:3]] for label, values in ours.items()}
    macro = expected["macro avg"]
    for k, key in enumerate(("precision", "recall", "f1-score")):
        assert math.isclose(sum(v[k] for v in zeroed.values()) / 3, macro[key], abs_tol=1e-12)
    # and the weighted average weighs them by support
    weighted = expected["weighted avg"]
    for k, key in enumerate(("precision", "recall", "f1-score")):
        value = sum(zeroed[label][k] * ours[label][3] for label in ours) / sum(v[3] for v in ours.values())
        assert math.isclose(value, weighted[key], abs_tol=1e-12)


@pytest.mark.parametrize("beta", [1, math.inf])
def test_average_scores_micro_and_beta_inf(cases, beta):
    """test_average_scores / test_average_scores_beta_inf, average="micro": F-beta of pooled
    counts; β = ∞ gives recall."""
    name = "test_average_scores" if beta == 1 else "test_average_scores_beta_inf"
    table = cases["parametrized"][f"test_v1.py::TestPrecisionRecallFscoreSupport::{name}"]
    micro = next(row for row in table if row["average"] == "micro")["expected"]
    result = quiet_score(tagged("true", Y_TRUE, "iob2"), tagged("pred", Y_PRED, "iob2"), beta=beta)
    data = result.to_dict()
    f_key = "f1" if beta == 1 else "finf"
    assert [round(data["precision"], 2), round(data["recall"], 2), round(data[f_key], 2), data["a"] + data["c"]] == micro
    # macro with β = ∞: the mean of per-type recalls (0/0 as 0) — again not a spanagree figure
    macro = next(row for row in table if row["average"] == "macro")["expected"]
    recalls = [0.0 if math.isnan(v[1]) else v[1] for v in per_type(result).values()]
    assert round(sum(recalls) / len(recalls), 2) == macro[1]


@pytest.mark.parametrize("mode", ["conll", "strict"])
def test_f1score_default_and_strict(cases, mode):
    """test_metrics.py::TestF1score: true B-ORG I-ORG, pred I-ORG I-ORG. Default (conlleval)
    decoding reads the prediction as one ORG chunk (F1 = 1); strict IOB2 drops it (F1 = 0)."""
    table = cases["parametrized"][f"test_metrics.py::TestF1score::test_{mode}_f1score"]
    expected = next(row for row in table if row["average"] == "micro")["expected"]
    scheme = "iob2" if mode == "strict" else None
    result = quiet_score(tagged("true", [["B-ORG", "I-ORG"]], scheme), tagged("pred", [["I-ORG", "I-ORG"]], scheme))
    assert result.counts.f1 == expected
    if mode == "strict":
        # the prediction has no valid chunk: precision 0/0 — seqeval 0, spanagree NaN with a warning
        with pytest.warns(SpanagreeWarning, match="precision undefined"):
            score(tagged("true", [["B-ORG", "I-ORG"]], scheme), tagged("pred", [["I-ORG", "I-ORG"]], scheme))


def test_nothing_to_score_is_undefined_not_zero(cases):
    """test_weighted_true_sum_zero: O vs O. seqeval: P = R = F1 = 0, support 0. spanagree: a = b = c
    = 0 and every rate NaN with a warning — agreement on nothing is not disagreement."""
    case = cases["inline"]["test_v1.py::TestPrecisionRecallFscoreSupport::test_weighted_true_sum_zero"]
    assert case["expected"] == [0.0, 0.0, 0.0, 0]
    with pytest.warns(SpanagreeWarning, match="precision, recall, F1 undefined"):
        result = score(tagged("true", case["y_true"]), tagged("pred", case["y_pred"]))
    counts = result.counts
    assert (counts.a, counts.b, counts.c) == (0, 0, 0)
    assert all(math.isnan(result.to_dict()[k]) for k in ("precision", "recall", "f1"))


def test_unique_labels(cases):
    """test_v1.py::test_unique_labels: the types of either side are spanagree's by_label keys."""
    for case in cases["parametrized"]["test_v1.py::test_unique_labels"]:
        result = quiet_score(tagged("true", case["y_true"]), tagged("pred", case["y_pred"]))
        assert sorted(result.pair.by_label) == case["expected"]


def test_performance_measure_is_token_level(cases):
    """test_performance_measure counts tokens (TP 3, FP 3, TN 4, FN 1): not a span figure. On spans
    the same input gives: gold MISC [3, 5), ORG [6, 7), PER [8, 10), PER [11, 12) (tokens of both
    sentences, an O between them); predicted MISC [2, 5), PER [8, 10), MISC [11, 12): one exact
    match (PER), one boundary error (MISC), one wrong type, one miss."""
    case = cases["inline"]["test_metrics.py::TestMetrics::test_performance_measure"]
    assert case["expected"] == {"FN": 1, "FP": 3, "TN": 4, "TP": 3}
    result = quiet_score(tagged("true", case["y_true"]), tagged("pred", case["y_pred"]))
    assert (result.counts.a, result.counts.b, result.counts.c) == (1, 2, 3)
    assert result.error_counts() == {"correct": 1, "partial": 1, "wrong_label": 1, "wrong_label_and_boundary": 0,
                                     "missed": 1, "spurious": 0}
