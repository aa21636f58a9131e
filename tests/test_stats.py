"""When d is known: Counts' d-based measures and spanagree.measures.tables on k×k and items × categories tables.

Worked examples from the literature, through the public API:

- Hripcsak & Rothschild (2005) / Manning, Raghavan & Schütze (2008, Table 8.2): a = 300, b = 20,
  c = 10, d = 70.
- Matos et al., Tabela 4 (2×2: a = 120, b = 40, c = 30, d = 310), Tabela 6 and Tabela 8 (k×k).

Then cross-checks against scikit-learn, statsmodels and the ``krippendorff`` package (test-only
dependencies), and properties over random tables (hypothesis).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spanagree import Counts, SpanagreeWarning
from spanagree.measures import tables as stats


# -- Counts: the 2×2 table with d ------------------------------------------------------------------


def test_hripcsak_manning_example():
    counts = Counts(a=300, b=20, c=10)
    assert counts.f1 == counts.psa == pytest.approx(600 / 630)
    assert round(counts.kappa(d=70), 4) == 0.7761  # Hripcsak & Rothschild eq. 5
    assert round(counts.kappa(d=70, pooled=True), 4) == 0.7759  # Manning et al. Table 8.2: 0.776
    assert round(counts.kappa(d=70, pooled=True), 3) == 0.776
    # Manning's own steps: P(A) = 370/400, pooled P(relevant) = 0.7875, P(E) = 0.665...
    p_yes = (300 + 320 + 310 - 300) / 800
    assert p_yes == 0.7875
    p_e = p_yes**2 + (1 - p_yes) ** 2
    assert counts.kappa(d=70, pooled=True) == pytest.approx((370 / 400 - p_e) / (1 - p_e), abs=1e-12)
    assert counts.accuracy(d=70) == 370 / 400


def test_kappa_tends_to_psa_as_d_grows():
    counts = Counts(300, 20, 10)
    assert abs(counts.kappa(d=10**9) - counts.psa) < 1e-6
    assert abs(counts.kappa(d=10**9, pooled=True) - counts.psa) < 1e-6
    # monotone approach from below, for both forms
    values = [counts.kappa(d=d) for d in (70, 700, 7_000, 70_000, 700_000)]
    pooled = [counts.kappa(d=d, pooled=True) for d in (70, 700, 7_000, 70_000, 700_000)]
    assert values == sorted(values) and pooled == sorted(pooled)
    assert values[-1] < counts.psa and counts.psa - values[-1] < 1e-3
    # and it stays accurate far out (cancellation-free forms)
    assert counts.kappa(d=10**15) == pytest.approx(counts.psa, abs=1e-12)
    assert counts.kappa(d=10**15, pooled=True) == pytest.approx(counts.psa, abs=1e-12)


def test_matos_tabela_4():
    counts = Counts(a=120, b=40, c=30)
    assert counts.precision == 0.75
    assert counts.recall == 0.8
    assert round(counts.f1, 3) == 0.774
    assert round(counts.f(2), 3) == 0.789
    assert counts.accuracy(d=310) == pytest.approx(0.86)
    assert round(counts.specificity(d=310), 3) == 0.886
    assert counts.specificity(d=310) == 310 / 350
    assert round(counts.informedness(d=310), 4) == 0.6857
    assert round(counts.markedness(d=310), 4) == 0.6618
    assert round(counts.mcc(d=310), 4) == 0.6736
    # informedness = recall + specificity − 1; markedness = precision + NPV − 1
    assert counts.informedness(d=310) == pytest.approx(0.8 + 310 / 350 - 1)
    assert counts.markedness(d=310) == pytest.approx(0.75 + 310 / 340 - 1)


def test_orientation_second_side_is_gold():
    # b = first marked only (in score: spurious), c = second marked only (missed)
    counts = Counts(120, 40, 30)
    swapped = counts.swapped()
    assert swapped.precision == counts.recall
    assert swapped.informedness(310) == pytest.approx(counts.markedness(310))
    assert swapped.markedness(310) == pytest.approx(counts.informedness(310))
    for symmetric in ("accuracy", "mcc"):
        assert getattr(swapped, symmetric)(310) == pytest.approx(getattr(counts, symmetric)(310))
    assert swapped.kappa(310) == pytest.approx(counts.kappa(310))
    assert swapped.kappa(310, pooled=True) == pytest.approx(counts.kappa(310, pooled=True))


def test_counts_d_measures_equal_sklearn():
    from sklearn.metrics import balanced_accuracy_score, cohen_kappa_score, matthews_corrcoef

    a, b, c, d = 120, 40, 30, 310
    # first = prediction, second = gold; b = predicted only, c = gold only
    pred = [1] * a + [1] * b + [0] * c + [0] * d
    gold = [1] * a + [0] * b + [1] * c + [0] * d
    counts = Counts(a, b, c)
    assert counts.kappa(d) == pytest.approx(cohen_kappa_score(pred, gold), abs=1e-12)
    assert counts.mcc(d) == pytest.approx(matthews_corrcoef(gold, pred), abs=1e-12)
    assert counts.informedness(d) == pytest.approx(balanced_accuracy_score(gold, pred, adjusted=True), abs=1e-12)
    assert counts.markedness(d) == pytest.approx(balanced_accuracy_score(pred, gold, adjusted=True), abs=1e-12)


def test_d_must_be_non_negative():
    with pytest.raises(ValueError, match="d must be >= 0"):
        Counts(1, 1, 1).kappa(-1)
    with pytest.raises(ValueError, match="d must be >= 0"):
        Counts(1, 1, 1).accuracy(float("nan"))


def test_undefined_is_nan_with_warning():
    with pytest.warns(SpanagreeWarning, match="Cohen's kappa is undefined"):
        assert math.isnan(Counts(0, 0, 0).kappa(5))  # one category only
    with pytest.warns(SpanagreeWarning, match="informedness is undefined"):
        assert math.isnan(Counts(0, 3, 0).informedness(5))  # the reference marks nothing
    with pytest.warns(SpanagreeWarning, match="MCC is undefined"):
        assert math.isnan(Counts(2, 0, 0).mcc(0))


# -- stats: k×k tables -----------------------------------------------------------------------------

TABELA_8 = [[25, 2, 5], [3, 26, 5], [1, 3, 30]]


def test_matos_tabela_8_and_6():
    assert round(stats.cohen_kappa(TABELA_8), 4) == 0.7146
    # the report's 0.72 rounds P(E) = 0.3342 to 0.33 before dividing
    assert stats.observed_agreement(TABELA_8) == 0.81
    assert round((0.81 - 0.33) / (1 - 0.33), 2) == 0.72
    assert round(stats.cohen_kappa([[5, 1], [1, 3]]), 4) == 0.5833


def test_input_types_agree():
    expected = stats.cohen_kappa(TABELA_8)
    frame = pd.DataFrame(TABELA_8, index=list("xyz"), columns=list("xyz"))
    for table in (TABELA_8, np.array(TABELA_8), np.array(TABELA_8, dtype=float), frame):
        for function in (stats.cohen_kappa, stats.scott_pi, stats.mcc, stats.informedness, stats.markedness):
            assert function(table) == pytest.approx(function(TABELA_8), abs=0)
        assert stats.cohen_kappa(table) == expected


def test_bad_tables_are_refused():
    with pytest.raises(ValueError, match="square"):
        stats.cohen_kappa([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(ValueError, match="non-negative"):
        stats.cohen_kappa([[1, -2], [3, 4]])
    with pytest.raises(ValueError, match="2-D"):
        stats.mcc([1, 2, 3])
    with pytest.raises(ValueError, match="gold must be"):
        stats.informedness(TABELA_8, gold="prediction")


def test_manning_table_through_stats():
    assert round(stats.scott_pi([[300, 20], [10, 70]]), 4) == 0.7759
    assert round(stats.cohen_kappa([[300, 20], [10, 70]]), 4) == 0.7761


def random_labels(rng, n, k, agreement):
    first = rng.integers(0, k, size=n)
    second = np.where(rng.random(n) < agreement, first, rng.integers(0, k, size=n))
    return first, second


@pytest.mark.parametrize("seed", range(6))
def test_k_by_k_equal_sklearn(seed):
    from sklearn.metrics import balanced_accuracy_score, cohen_kappa_score, confusion_matrix, matthews_corrcoef

    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 7))
    first, second = random_labels(rng, int(rng.integers(30, 400)), k, agreement=rng.random())
    table = confusion_matrix(first, second, labels=range(k))  # rows = first, columns = second
    assert stats.cohen_kappa(table) == pytest.approx(cohen_kappa_score(first, second), abs=1e-12)
    assert stats.mcc(table) == pytest.approx(matthews_corrcoef(second, first), abs=1e-12)
    if k == 2:
        assert stats.informedness(table) == pytest.approx(
            balanced_accuracy_score(second, first, adjusted=True), abs=1e-12)
        assert stats.informedness(table.T, gold="rows") == pytest.approx(stats.informedness(table), abs=1e-12)


def test_informedness_reference_side():
    table = np.array(TABELA_8)
    assert stats.informedness(table, gold="rows") == pytest.approx(stats.informedness(table.T))
    assert stats.markedness(table) == pytest.approx(stats.informedness(table, gold="rows"))
    assert stats.informedness(table) != pytest.approx(stats.markedness(table))


# -- properties -------------------------------------------------------------------------------------

cells = st.integers(min_value=0, max_value=500)


@st.composite
def square_tables(draw, max_k=5):
    k = draw(st.integers(min_value=2, max_value=max_k))
    return np.array(draw(st.lists(st.lists(cells, min_size=k, max_size=k), min_size=k, max_size=k)), dtype=float)


def quietly(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        return function(*args, **kwargs)


def same(x, y, tol=1e-9):
    return (math.isnan(x) and math.isnan(y)) or x == pytest.approx(y, abs=tol)


@settings(max_examples=200, deadline=None)
@given(cells, cells, cells, cells)
def test_two_by_two_stats_equal_counts(a, b, c, d):
    table = [[a, b], [c, d]]
    counts = Counts(a, b, c)
    assert same(quietly(stats.cohen_kappa, table), quietly(counts.kappa, d))
    assert same(quietly(stats.scott_pi, table), quietly(counts.kappa, d, pooled=True))
    assert same(quietly(stats.informedness, table), quietly(counts.informedness, d))
    assert same(quietly(stats.markedness, table), quietly(counts.markedness, d))
    assert same(quietly(stats.mcc, table), quietly(counts.mcc, d))
    assert same(quietly(stats.observed_agreement, table), quietly(counts.accuracy, d))


@settings(max_examples=200, deadline=None)
@given(square_tables())
@pytest.mark.slow
def test_k_by_k_properties(table):
    kappa, pi = quietly(stats.cohen_kappa, table), quietly(stats.scott_pi, table)
    inform, marked, corr = (quietly(stats.informedness, table), quietly(stats.markedness, table),
                            quietly(stats.mcc, table))
    # kappa, pi and MCC are symmetric in the two raters; informedness and markedness are duals
    assert same(kappa, quietly(stats.cohen_kappa, table.T))
    assert same(pi, quietly(stats.scott_pi, table.T))
    assert same(corr, quietly(stats.mcc, table.T))
    assert same(inform, quietly(stats.markedness, table.T))
    # pooled marginals never expect less chance agreement: pi ≤ kappa
    if not (math.isnan(kappa) or math.isnan(pi)):
        assert pi <= kappa + 1e-12
    # MCC is the signed geometric mean of informedness and markedness (Powers 2011)
    if not any(math.isnan(x) for x in (inform, marked, corr)):
        assert corr == pytest.approx(math.copysign(math.sqrt(inform * marked), corr), abs=1e-9)
    # multiclass informedness = one-vs-rest informedness weighted by g_k (1 − g_k), g = gold shares
    n = table.sum()
    gold = table.sum(axis=0) / n if n else None
    if gold is not None and not math.isnan(inform):
        total, weight = 0.0, 0.0
        for k in range(len(table)):
            a = table[k, k]
            b = table[k].sum() - a
            c = table[:, k].sum() - a
            d = n - a - b - c
            w = gold[k] * (1 - gold[k])
            if w:
                total += w * Counts(a, b, c).informedness(d)
                weight += w
        assert inform == pytest.approx(total / weight, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 200), st.integers(0, 200), st.integers(0, 200))
def test_kappa_limit_is_psa(a, b, c):
    counts = Counts(a, b, c)
    assert counts.kappa(10**12) == pytest.approx(counts.psa, abs=1e-8)
    assert counts.kappa(10**12, pooled=True) == pytest.approx(counts.psa, abs=1e-8)


# -- several raters --------------------------------------------------------------------------------


def random_ratings(rng, raters, items, k, missing=0.0):
    truth = rng.integers(0, k, size=items)
    ratings = np.where(rng.random((raters, items)) < 0.7, truth, rng.integers(0, k, size=(raters, items))).astype(float)
    if missing:
        ratings[rng.random((raters, items)) < missing] = np.nan
    return ratings


@pytest.mark.parametrize("seed", range(5))
def test_fleiss_equals_statsmodels(seed):
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    rng = np.random.default_rng(seed)
    ratings = random_ratings(rng, int(rng.integers(2, 7)), int(rng.integers(10, 300)), int(rng.integers(2, 6)))
    table, _ = aggregate_raters(ratings.T.astype(int))
    counts, categories = stats.category_counts(ratings.astype(int).tolist())
    assert stats.fleiss_kappa(counts) == pytest.approx(fleiss_kappa(table, method="fleiss"), abs=1e-12)
    assert stats.fleiss_kappa(table) == pytest.approx(fleiss_kappa(table, method="fleiss"), abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_krippendorff_equals_package(seed):
    import krippendorff

    rng = np.random.default_rng(100 + seed)
    ratings = random_ratings(rng, int(rng.integers(2, 6)), int(rng.integers(10, 300)), int(rng.integers(2, 6)),
                             missing=0.2 if seed % 2 else 0.0)
    reference = krippendorff.alpha(reliability_data=ratings, level_of_measurement="nominal")
    rows = [[None if math.isnan(v) else int(v) for v in r] for r in ratings]
    counts, _ = stats.category_counts(rows)
    assert stats.krippendorff_alpha(counts) == pytest.approx(reference, abs=1e-12)
    assert stats.krippendorff_alpha(counts) == pytest.approx(
        krippendorff.alpha(value_counts=counts, level_of_measurement="nominal"), abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_row_weights_equal_the_rows_repeated(seed):
    """A table of distinct rows and how many items each stands for (``agree --chance`` sums its
    tokens up so) gives the figures of the table with every row repeated; against the references."""
    import krippendorff
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    rng = np.random.default_rng(200 + seed)
    ratings = random_ratings(rng, int(rng.integers(2, 6)), int(rng.integers(50, 300)), 3,
                             missing=0.2 if seed % 2 else 0.0)
    rows = [[None if math.isnan(v) else int(v) for v in r] for r in ratings]
    counts, _ = stats.category_counts(rows, categories=range(3))
    distinct, weights = np.unique(counts, axis=0, return_counts=True)
    assert len(distinct) < len(counts)  # some rows do repeat
    alpha = krippendorff.alpha(value_counts=counts, level_of_measurement="nominal")
    assert stats.krippendorff_alpha(distinct, weights=weights) == pytest.approx(alpha, abs=1e-12)
    assert stats.krippendorff_alpha(distinct, weights=weights) == pytest.approx(stats.krippendorff_alpha(counts),
                                                                                abs=1e-12)
    if not seed % 2:
        table, _ = aggregate_raters(ratings.T.astype(int))
        assert stats.fleiss_kappa(distinct, weights=weights) == pytest.approx(fleiss_kappa(table, method="fleiss"),
                                                                              abs=1e-12)
        # integer counts: the same sums, to the last bit
        assert stats.fleiss_kappa(distinct, weights=weights) == stats.fleiss_kappa(counts)
    with pytest.raises(ValueError, match="one weight per row"):
        stats.krippendorff_alpha(distinct, weights=weights[1:])


def test_two_raters_fleiss_is_scott():
    first, second = random_labels(np.random.default_rng(3), 200, 4, 0.6)
    counts, _ = stats.category_counts([first.tolist(), second.tolist()], categories=range(4))
    table = np.zeros((4, 4))
    np.add.at(table, (first, second), 1)
    assert stats.fleiss_kappa(counts) == pytest.approx(stats.scott_pi(table), abs=1e-12)
    # Krippendorff's alpha is pi with the small-sample correction: alpha = 1 − (2n−1)/(2n) (1 − pi)
    n = 200
    assert stats.krippendorff_alpha(counts) == pytest.approx(1 - (2 * n - 1) / (2 * n) * (1 - stats.scott_pi(table)))


def test_fleiss_needs_equal_raters():
    with pytest.raises(ValueError, match="same number of ratings"):
        stats.fleiss_kappa([[2, 0], [1, 0]])
    with pytest.raises(ValueError, match="at least two ratings"):
        stats.fleiss_kappa([[1, 0], [0, 1]])


def test_category_counts_checks():
    with pytest.raises(ValueError, match="one entry per item"):
        stats.category_counts([["A", "B"], ["A"]])
    with pytest.raises(ValueError, match="not among the categories"):
        stats.category_counts([["A", "B"]], categories=["A"])


def test_krippendorff_unpairable_items_drop_out():
    # the third item has one rating only: it does not change alpha
    with_single = stats.krippendorff_alpha([[2, 0], [1, 1], [0, 1], [0, 2]])
    without = stats.krippendorff_alpha([[2, 0], [1, 1], [0, 2]])
    assert with_single == without
    # by hand: coincidences o = [[2, 1], [1, 2]] (n = 6), D_o = 2/6; n_c = 3, 3, D_e = 2·3·3/(6·5) = 0.6
    assert without == pytest.approx(1 - (2 / 6) / 0.6) == pytest.approx(4 / 9)
