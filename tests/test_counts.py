"""Counts(a, b, c) and the rates that need no d: hand-computed figures, addition, zero division.

(The measures that need d — kappa, pi, MCC, ... — are tested in ``test_stats.py``.)
"""

from __future__ import annotations

import math
import warnings

import pytest

from spanagree import Counts, SpanagreeWarning

# Hripcsak & Rothschild (2005), Table 1 / eq. 3–5: a = 300, b = 20, c = 10.
HR = Counts(300, 20, 10)


def test_rates_by_hand():
    assert HR.precision == 300 / 320
    assert HR.recall == 300 / 310
    assert HR.f1 == HR.psa == 600 / 630
    assert HR.jaccard == 300 / 330
    # F1 = 2PR / (P + R), Jaccard = F1 / (2 − F1)
    p, r = HR.precision, HR.recall
    assert HR.f1 == pytest.approx(2 * p * r / (p + r), abs=1e-15)
    assert HR.jaccard == pytest.approx(HR.f1 / (2 - HR.f1), abs=1e-15)


def test_f_beta():
    counts = Counts(2, 0, 3)  # P = 1, R = 0.4
    assert counts.f(1) == counts.f1 == 4 / 7
    assert counts.f(2) == 10 / 22  # (1+4)·2 / ((1+4)·2 + 4·3 + 0)
    assert counts.f(0.5) == 2.5 / 3.25  # (1+¼)·2 / ((1+¼)·2 + ¼·3 + 0)
    assert counts.f(0) == counts.precision == 1  # β = 0: precision
    assert counts.f(math.inf) == counts.recall == 0.4  # β → ∞: recall
    assert counts.f(1000) == pytest.approx(0.4, abs=1e-5)
    # F-beta is the weighted harmonic mean 1 / (α/P + (1−α)/R), α = 1/(1+β²)
    for beta in (0.5, 2, 3):
        alpha = 1 / (1 + beta * beta)
        assert HR.f(beta) == pytest.approx(1 / (alpha / HR.precision + (1 - alpha) / HR.recall), abs=1e-15)
    with pytest.raises(ValueError, match="beta"):
        counts.f(-1)
    with pytest.raises(ValueError, match="beta"):
        counts.f(math.nan)


def test_fractional_a():
    # partial credit: one exact pair (1) and one partial pair (0.5) among 3 and 2 spans
    counts = Counts(1.5, 1.5, 0.5)
    assert counts.n_first == 3 and counts.n_second == 2
    assert counts.precision == 0.5 and counts.recall == 0.75
    assert counts.f1 == 3 / 5


def test_addition_and_swapping():
    documents = [Counts(2, 1, 0), Counts(0.5, 0.5, 1.5), Counts(0, 0, 3)]
    total = sum(documents, Counts())
    assert total == Counts(2.5, 1.5, 4.5)
    assert sum(documents) == total  # sum() starting from 0
    assert Counts(1, 2, 3) + Counts(4, 5, 6) == Counts(5, 7, 9)
    # pooled F1 is computed from summed counts, not averaged
    assert total.f1 == 5 / (5 + 6)
    assert Counts(1, 2, 3).swapped() == Counts(1, 3, 2)
    assert HR.swapped().precision == HR.recall
    with pytest.raises(TypeError):
        Counts(1, 2, 3) + (1, 2, 3)


def test_counts_are_validated_and_frozen():
    with pytest.raises(ValueError, match="Counts.b must be >= 0"):
        Counts(1, -1, 0)
    with pytest.raises(ValueError, match="Counts.a"):
        Counts(math.nan, 0, 0)
    with pytest.raises(AttributeError):
        HR.a = 3  # frozen


@pytest.mark.parametrize(
    "counts, rate, undefined",
    [
        (Counts(0, 0, 4), "precision", True),   # the first side marked nothing
        (Counts(0, 4, 0), "recall", True),      # the second side marked nothing
        (Counts(0, 4, 0), "precision", False),  # 0 / 4 = 0, defined
        (Counts(0, 0, 0), "f1", True),          # nobody marked anything
        (Counts(0, 0, 0), "psa", True),
        (Counts(0, 0, 0), "jaccard", True),
        (Counts(0, 2, 3), "f1", False),         # 0 / 5 = 0, defined
    ],
)
def test_zero_division_is_nan_with_a_warning(counts, rate, undefined):
    if undefined:
        with pytest.warns(SpanagreeWarning, match=r"is undefined \(0/0\): reported as NaN"):
            value = getattr(counts, rate)
        assert math.isnan(value)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("error", SpanagreeWarning)
            assert getattr(counts, rate) == 0


def test_f_beta_zero_division():
    with pytest.warns(SpanagreeWarning, match="F2 is undefined"):
        assert math.isnan(Counts(0, 0, 0).f(2))
    with pytest.warns(SpanagreeWarning, match="undefined"):
        assert math.isnan(Counts(0, 3, 0).f(math.inf))  # recall of nothing


def test_as_dict_is_quiet_and_nan_where_undefined():
    with warnings.catch_warnings():
        warnings.simplefilter("error", SpanagreeWarning)
        data = Counts(0, 0, 0).as_dict()
    assert data["a"] == 0 and all(math.isnan(data[k]) for k in ("precision", "recall", "f1"))


def test_each_formula_cites_its_source():
    for name in ("precision", "recall", "f1", "psa", "jaccard"):
        doc = getattr(Counts, name).__doc__
        assert any(source in doc for source in ("van Rijsbergen", "Hripcsak", "Jaccard", "Manning")), name
    assert "van Rijsbergen" in Counts.f.__doc__


def test_npv_by_hand_and_its_zero_division():
    # Matos et al., Tabela 4: a = 120, b = 40, c = 30, d = 310 → NPV = d / (c + d) = 310 / 340
    assert Counts(120, 40, 30).npv(d=310) == 310 / 340
    assert Counts(120, 40, 30).swapped().npv(d=310) == Counts(120, 40, 30).specificity(d=310) == 310 / 350
    with pytest.warns(SpanagreeWarning, match=r"NPV is undefined \(0/0\)"):
        assert math.isnan(Counts(3, 2, 0).npv(d=0))
    with pytest.raises(ValueError, match="d must be >= 0"):
        Counts(1, 1, 1).npv(d=-1)


# -- the rates of results: counts_dict, f_beta, undefined_rates (spanagree.measures.registry) ---------

def test_counts_dict_keys_types_and_values():
    from spanagree.measures.registry import counts_dict

    data = counts_dict(Counts(2.0, 0, 3), beta=2)
    assert list(data) == ["a", "b", "c", "precision", "recall", "f1", "f2", "jaccard"]
    assert [type(data[k]) for k in "abc"] == [int, int, int]  # whole counts are ints in JSON
    assert (data["precision"], data["recall"], data["f1"], data["f2"], data["jaccard"]) == (1, 0.4, 4 / 7, 10 / 22, 0.4)
    partial = counts_dict(Counts(1.5, 1.5, 0.5))  # partial credit stays a float
    assert (partial["a"], type(partial["a"])) == (1.5, float) and partial["f1"] == 3 / 5
    assert list(counts_dict(Counts(1, 2, 3), beta=1)) == list(counts_dict(Counts(1, 2, 3)))  # no f1 twice
    assert "finf" in counts_dict(Counts(1, 2, 3), beta=math.inf) and "f0.5" in counts_dict(Counts(1, 2, 3), beta=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SpanagreeWarning)  # quiet: NaN, rendered null
        empty = counts_dict(Counts(0, 0, 0), beta=2)
    assert all(math.isnan(empty[k]) for k in ("precision", "recall", "f1", "f2", "jaccard"))


def test_f_beta_of_results_is_counts_f_to_the_last_bit():
    from spanagree.measures.registry import f_beta, f_beta_key

    for counts in (HR, Counts(2, 0, 3), Counts(1.5, 1.5, 0.5), Counts(7, 0.25, 1 / 3)):
        for beta in (0, 0.5, 1, 2, 3, math.inf):
            assert f_beta(counts, beta) == counts.f(beta)
    assert [f_beta_key(b) for b in (2, 0.5, 1.5, math.inf)] == ["f2", "f0.5", "f1.5", "finf"]


@pytest.mark.parametrize("counts, beta, names", [
    (Counts(3, 1, 2), 2, []),
    (Counts(0, 0, 4), None, ["precision"]),                # nothing predicted
    (Counts(0, 4, 0), None, ["recall"]),                   # nothing in the gold
    (Counts(0, 0, 0), None, ["precision", "recall", "F1"]),
    (Counts(0, 0, 0), 2, ["precision", "recall", "F1"]),   # F2 (and Jaccard) undefined with F1: not named again
    (Counts(0, 0, 4), 2, ["precision"]),                   # F2 = 0 / 16: defined
    (Counts(0, 0, 4), 0, ["precision", "F0"]),             # F0 is precision
    (Counts(0, 4, 0), math.inf, ["recall", "Finf"]),       # F∞ is recall
])
def test_undefined_rates_names(counts, beta, names):
    from spanagree.measures.registry import undefined_rates

    assert undefined_rates(counts, beta) == names
