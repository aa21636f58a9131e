"""Every registered measure, tested by the same loops (after scikit-learn's metrics/tests/test_common.py).

Each measure in :data:`spanagree.measures.registry.MEASURES` must declare how it behaves when the
two sides are swapped (``symmetric``, or its swap ``partner``), must be reachable from
:class:`~spanagree.Counts`, and must have a hand-computed value on the worked example below; the
loops then check, for each one, that

- its single implementation gives the same figures on floats and on numpy arrays;
- swapping the sides (``Counts.swapped``, and ``agree``/``score`` on exchanged span sets) keeps
  a symmetric measure's value and gives the partner's value otherwise;
- the order of documents and of spans, and a duplicated span, change nothing.

Measures that need d are checked with a given d (spans have no fourth cell).
"""

from __future__ import annotations

import math
import re
import warnings
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spanagree import Counts, SpanagreeWarning, agree, score
from spanagree.measures import registry
from spanagree.measures.registry import MEASURES
from spanagree.span import Span, SpanSet

ROOT = Path(__file__).resolve().parent.parent

# -- every measure, as Counts gives it ---------------------------------------------------------
# (measure key → function of (counts, d, parameters)). A measure added to the registry without an
# entry here fails test_every_measure_is_reachable_from_counts: "we shouldn't forget any metrics".

FROM_COUNTS = {
    "precision": lambda c, d, p: c.precision,
    "recall": lambda c, d, p: c.recall,
    "f1": lambda c, d, p: c.f1,
    "f_beta": lambda c, d, p: c.f(p["beta"]),
    "jaccard": lambda c, d, p: c.jaccard,
    "accuracy": lambda c, d, p: c.accuracy(d),
    "specificity": lambda c, d, p: c.specificity(d),
    "npv": lambda c, d, p: c.npv(d),
    "kappa": lambda c, d, p: c.kappa(d),
    "scott_pi": lambda c, d, p: c.kappa(d, pooled=True),
    "informedness": lambda c, d, p: c.informedness(d),
    "markedness": lambda c, d, p: c.markedness(d),
    "mcc": lambda c, d, p: c.mcc(d),
}

# The parameter values a family (F-beta) is checked at; swapping the sides maps β to 1/β.
PARAMETERS = {"beta": [0, 0.5, 1, 2, 3, math.inf]}
SWAPPED_PARAMETER = {"beta": lambda beta: math.inf if beta == 0 else 0 if math.isinf(beta) else 1 / beta}

# -- the worked example: Counts(120, 40, 30) with d = 310 (n = 500), by hand ------------------------
#   a = 120, b = 40, c = 30, d = 310;  a + b = 160, a + c = 150, b + d = 350, c + d = 340;
#   ad − bc = 37200 − 1200 = 36000.

EXAMPLE, EXAMPLE_D = Counts(120, 40, 30), 310
BY_HAND = {
    "precision": {(): F(120, 160)},                        # 0.75
    "recall": {(): F(120, 150)},                           # 0.8
    "f1": {(): F(240, 310)},                               # 24/31
    "f_beta": {(2,): F(5 * 120, 5 * 120 + 4 * 30 + 40),    # 600/760 = 15/19
               (0.5,): F(5 * 120, 5 * 120 + 30 + 4 * 40),  # (1.25·120) / (1.25·120 + 0.25·30 + 40), ×4
               (0,): F(120, 160), (math.inf,): F(120, 150)},
    "jaccard": {(): F(120, 190)},                          # 12/19
    "accuracy": {(): F(430, 500)},                         # 0.86 (Counts.accuracy's docstring)
    "specificity": {(): F(310, 350)},                      # 31/35 ≈ 0.8857 (docstring)
    "npv": {(): F(310, 340)},                              # 31/34 ≈ 0.9118
    "kappa": {(): F(2 * 36000, 160 * 350 + 150 * 340)},    # 72000/107000 = 72/107
    "scott_pi": {(): F(4 * 120 * 310 - 70 ** 2, 310 * 690)},  # 143900/213900 = 1439/2139
    "informedness": {(): F(36000, 150 * 350)},             # 24/35 ≈ 0.6857 (docstring)
    "markedness": {(): F(36000, 160 * 340)},               # 45/68 ≈ 0.6618 (docstring)
    "mcc": {(): None},                                     # √(24/35 · 45/68) = √(54/119) ≈ 0.6736 (docstring)
}


def parameter_sets(measure):
    """``[{}]``, or one ``{parameter: value}`` per checked value of a family's parameter."""
    if measure.parameter is None:
        return [{}]
    return [{measure.parameter: v} for v in PARAMETERS[measure.parameter]]


def quietly(function, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        return function(*args)


def same(x, y) -> bool:
    """Equal to the last bit, NaN equal to NaN."""
    return (math.isnan(x) and math.isnan(y)) or x == y


def close(x, y) -> bool:
    """Equal up to rounding (sums of fractional credits in another order), NaN equal to NaN."""
    return (math.isnan(x) and math.isnan(y)) or x == pytest.approx(y, rel=1e-12, abs=1e-15)


def swapped_value(measure, counts: Counts, d, parameters) -> float:
    """What ``measure`` of the swapped comparison must equal: its own value or its partner's."""
    if measure.symmetric:
        return quietly(FROM_COUNTS[measure.key], counts, d, parameters)
    partner = MEASURES[measure.partner]
    if partner is measure:  # a family: F-beta swaps into F-(1/β)
        parameters = {k: SWAPPED_PARAMETER[k](v) for k, v in parameters.items()}
    return quietly(FROM_COUNTS[partner.key], counts, d, parameters)


# ---------------------------------------------------------------- the registry's declarations


@pytest.mark.parametrize("measure", MEASURES.values(), ids=list(MEASURES))
def test_every_measure_declares_its_swap(measure):
    # Exactly one of symmetric / partner; a partner is registered and partners back.
    assert measure.symmetric != (measure.partner is not None), measure.key
    if measure.partner is not None:
        partner = MEASURES[measure.partner]
        assert partner.partner == measure.key
        assert partner.needs_d == measure.needs_d
        assert (partner is measure) == (measure.parameter is not None)  # only families partner themselves
    assert measure.formula and measure.reference and measure.name
    assert re.search(r"\(1[89]\d\d|\d{4}\)", measure.reference), measure.reference  # a dated reference


def test_a_measure_without_its_swap_is_refused():
    with pytest.raises(ValueError, match="symmetric=True or a swap partner"):
        registry.Measure("dice", "Dice", "2a / (2a + b + c)", False, "Dice (1945)", registry._f1)
    with pytest.raises(ValueError, match="symmetric=True or a swap partner"):
        registry.Measure("x", "X", "a", False, "X (2000)", registry._f1, symmetric=True, partner="f1")


def test_every_measure_is_reachable_from_counts_and_computed_by_hand():
    assert list(FROM_COUNTS) == list(MEASURES)
    assert list(BY_HAND) == list(MEASURES)


def test_the_registry_order_is_the_json_order():
    assert list(MEASURES)[:5] == ["precision", "recall", "f1", "f_beta", "jaccard"]
    assert not any(m.needs_d for m in list(MEASURES.values())[:5])
    assert all(m.needs_d for m in list(MEASURES.values())[5:])
    counts = Counts(2, 0, 3)
    assert list(registry.counts_dict(counts)) == ["a", "b", "c", "precision", "recall", "f1", "jaccard"]
    assert list(registry.counts_dict(counts, beta=1)) == ["a", "b", "c", "precision", "recall", "f1", "jaccard"]
    assert list(registry.counts_dict(counts, beta=0.5)) == ["a", "b", "c", "precision", "recall", "f1", "f0.5",
                                                            "jaccard"]


# ---------------------------------------------------------------- the worked example


@pytest.mark.parametrize("measure", MEASURES.values(), ids=list(MEASURES))
def test_worked_example_by_hand(measure):
    for parameter_values, expected in BY_HAND[measure.key].items():
        parameters = dict(zip([measure.parameter] if measure.parameter else [], parameter_values))
        got = FROM_COUNTS[measure.key](EXAMPLE, EXAMPLE_D, parameters)
        if measure.key == "mcc":
            assert got == pytest.approx(math.sqrt(54 / 119), rel=1e-15)
            assert got == pytest.approx(math.sqrt(EXAMPLE.informedness(310) * EXAMPLE.markedness(310)), rel=1e-15)
            assert round(got, 4) == 0.6736
        else:
            assert got == pytest.approx(float(expected), rel=1e-15), (measure.key, parameter_values)
        # the registry's function, Counts and value() agree to the last bit
        d = EXAMPLE_D if measure.needs_d else None
        assert got == registry.value(measure.key, 120, 40, 30, d, **parameters)


def test_worked_example_reduced_fractions():
    # The same figures as reduced fractions, to read against the docstrings.
    assert BY_HAND["f1"][()] == F(24, 31) and BY_HAND["jaccard"][()] == F(12, 19)
    assert BY_HAND["f_beta"][(2,)] == F(15, 19) and BY_HAND["f_beta"][(0.5,)] == F(60, 79)
    assert BY_HAND["kappa"][()] == F(72, 107) and BY_HAND["scott_pi"][()] == F(1439, 2139)
    assert BY_HAND["informedness"][()] == F(24, 35) and BY_HAND["markedness"][()] == F(45, 68)
    assert BY_HAND["informedness"][()] * BY_HAND["markedness"][()] == F(54, 119)
    # informedness = recall + specificity − 1, markedness = precision + NPV − 1 (Powers 2011)
    assert BY_HAND["informedness"][()] == BY_HAND["recall"][()] + BY_HAND["specificity"][()] - 1
    assert BY_HAND["markedness"][()] == BY_HAND["precision"][()] + BY_HAND["npv"][()] - 1


def test_measures_needing_d_refuse_to_go_without():
    for measure in MEASURES.values():
        if measure.needs_d:
            with pytest.raises(ValueError, match="needs d"):
                registry.value(measure.key, 1, 2, 3)
            with pytest.raises(ValueError, match="d must be >= 0"):
                FROM_COUNTS[measure.key](EXAMPLE, -1, {})


# ---------------------------------------------------------------- floats and arrays alike

counts_values = st.one_of(st.integers(0, 6), st.integers(0, 10**6),
                          st.integers(0, 40).map(lambda k: k / 2), st.floats(0, 1e6, allow_nan=False))


@pytest.mark.parametrize("measure", MEASURES.values(), ids=list(MEASURES))
@settings(max_examples=60, derandomize=True)
@given(st.lists(st.tuples(counts_values, counts_values, counts_values, counts_values), min_size=1, max_size=8))
@pytest.mark.slow
def test_one_implementation_for_floats_and_arrays(measure, rows):
    a, b, c, d = (np.array(column, dtype=float) for column in zip(*rows))
    for parameters in parameter_sets(measure):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # quiet on arrays too: no numpy RuntimeWarning
            array = measure.compute(a, b, c, d if measure.needs_d else None, **parameters)
        assert array.shape == a.shape
        for i, row in enumerate(rows):
            scalar = quietly(FROM_COUNTS[measure.key], Counts(*row[:3]), row[3], parameters)
            assert same(float(array[i]), scalar), (measure.key, row, parameters)


@pytest.mark.parametrize("measure", MEASURES.values(), ids=list(MEASURES))
def test_zero_division_is_nan_quietly_in_the_registry_and_with_a_warning_in_counts(measure):
    for parameters in parameter_sets(measure):
        d = 0 if measure.needs_d else None
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert math.isnan(measure.compute(0, 0, 0, d, **parameters))
            assert np.isnan(measure.compute(np.zeros(2), np.zeros(2), np.zeros(2),
                                            np.zeros(2) if measure.needs_d else None, **parameters)).all()
        with pytest.warns(SpanagreeWarning, match=r"is undefined \(0/0\): reported as NaN"):
            assert math.isnan(FROM_COUNTS[measure.key](Counts(0, 0, 0), 0, parameters))


# ---------------------------------------------------------------- swapping the sides


@pytest.mark.parametrize("measure", MEASURES.values(), ids=list(MEASURES))
@settings(max_examples=150, derandomize=True)
@given(st.integers(0, 50), st.integers(0, 50), st.integers(0, 50), st.integers(0, 500))
@pytest.mark.slow
def test_swapped_counts_give_the_same_or_the_partners_value(measure, a, b, c, d):
    counts = Counts(a, b, c)
    for parameters in parameter_sets(measure):
        value = quietly(FROM_COUNTS[measure.key], counts.swapped(), d, parameters)
        expected = swapped_value(measure, counts, d, parameters)
        # whole counts: exact, except F-beta (β and 1/β round differently) — within rounding
        assert (close if measure.parameter else same)(value, expected), (measure.key, a, b, c, d, parameters)


@pytest.mark.parametrize("measure", MEASURES.values(), ids=list(MEASURES))
@settings(max_examples=100, derandomize=True)
@given(st.integers(0, 80).map(lambda k: k / 4), st.integers(0, 40).map(lambda k: k / 3),
       st.floats(0, 100, allow_nan=False), st.floats(0, 1000, allow_nan=False))
@pytest.mark.slow
def test_swapped_fractional_counts_within_rounding(measure, a, b, c, d):
    counts = Counts(a, b, c)
    for parameters in parameter_sets(measure):
        value = quietly(FROM_COUNTS[measure.key], counts.swapped(), d, parameters)
        assert close(value, swapped_value(measure, counts, d, parameters)), (measure.key, a, b, c, d, parameters)


# -- on span sets: agree and score --------------------------------------------------------------

DOCS = ("d1", "d2", "d3")
TEXTS = {doc: "w " * 20 for doc in DOCS}
RULES = [("exact", "strict", 0.5), ("exact", "ignore", 0.5), ("overlap", "strict", 0.5), ("overlap", "ignore", 0.5),
         ("partial", "strict", 0.5), ("partial", "ignore", 0.5), ("partial", "strict", "dice")]
RULE_IDS = ["-".join(map(str, r)) for r in RULES]

span_strategy = st.builds(lambda doc, start, length, label: Span(doc, (start, start + length), label),
                          st.sampled_from(DOCS), st.integers(0, 30), st.integers(1, 8), st.sampled_from(["PER", "LOC"]))
span_lists = st.lists(span_strategy, max_size=10)


def spanset(name, spans, documents=DOCS):
    return SpanSet.from_spans(name, spans, {doc: TEXTS[doc] for doc in documents})


def pair_counts(first, second, rule) -> Counts:
    match, labels, partial_credit = rule
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)  # duplicates, 0/0
        return agree([first, second], match=match, labels=labels, partial_credit=partial_credit).pairs[0].counts


def checker(rule):
    """Exact equality, but within rounding for Dice credits (fractions summed in another order may
    round differently; credits of 1 and 0.5 add up exactly)."""
    return close if rule[2] == "dice" else same


def all_values(counts: Counts, d: float) -> dict:
    """Every registered measure (each parameter value) of ``counts``, d given to those needing it."""
    return {(m.key, tuple(p.items())): quietly(FROM_COUNTS[m.key], counts, d, p)
            for m in MEASURES.values() for p in parameter_sets(m)}


@pytest.mark.parametrize("rule", RULES, ids=RULE_IDS)
@settings(max_examples=60, derandomize=True)
@given(span_lists, span_lists, st.integers(0, 100))
@pytest.mark.slow
def test_agree_and_score_on_swapped_span_sets(rule, first, second, d):
    one, two = spanset("one", first), spanset("two", second)
    forward, backward = pair_counts(one, two, rule), pair_counts(two, one, rule)
    assert (backward.a, backward.b, backward.c) == pytest.approx((forward.a, forward.c, forward.b), abs=1e-12)
    # score: the prediction is the first side, the gold the second
    match, labels, partial_credit = rule
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        scored = score(two, one, match=match, labels=labels, partial_credit=partial_credit).counts
        scored_back = score(one, two, match=match, labels=labels, partial_credit=partial_credit).counts
    assert scored == forward and scored_back == backward
    check = checker(rule)
    for measure in MEASURES.values():
        for parameters in parameter_sets(measure):
            value = quietly(FROM_COUNTS[measure.key], backward, d, parameters)
            expected = swapped_value(measure, forward, d, parameters)
            exact = check is same and not measure.parameter
            assert (same if exact else close)(value, expected), (measure.key, rule, parameters)


@pytest.mark.parametrize("rule", RULES, ids=RULE_IDS)
@settings(max_examples=60, derandomize=True)
@given(span_lists, span_lists, st.integers(0, 100), st.randoms(use_true_random=False))
@pytest.mark.slow
def test_document_order_span_order_and_a_duplicate_change_nothing(rule, first, second, d, rnd):
    reference = all_values(pair_counts(spanset("one", first), spanset("two", second), rule), d)
    check = checker(rule)
    # span order
    shuffled_first, shuffled_second = first[:], second[:]
    rnd.shuffle(shuffled_first)
    rnd.shuffle(shuffled_second)
    # document order
    documents = list(DOCS)
    rnd.shuffle(documents)
    # a duplicated span on either side (identical spans count once)
    duplicated_first = first + first[:1]
    duplicated_second = second + second[-1:]
    for one, two in [(shuffled_first, shuffled_second), (first, second), (duplicated_first, duplicated_second)]:
        for docs in (DOCS, documents):
            values = all_values(pair_counts(spanset("one", one, docs), spanset("two", two, docs), rule), d)
            assert all(check(values[k], reference[k]) for k in reference), (rule, docs)


# ---------------------------------------------------------------- the reference page


def test_the_reference_page_holds_exactly_the_generated_table():
    page = (ROOT / "docs" / "measures.md").read_text(encoding="utf-8")
    table = registry.markdown()
    # between the markers, the generated table and nothing else
    begin = "<!-- generated by spanagree.measures.registry.markdown(): do not edit by hand -->\n"
    end = "<!-- end of the generated table -->"
    assert page.count(begin) == page.count(end) == 1
    assert page[page.index(begin) + len(begin):page.index(end)] == table
    for measure in MEASURES.values():
        assert f"| {measure.name} |" in table and measure.formula in table


def test_the_reference_page_is_linked():
    assert "docs/measures.md" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "measures.md" in (ROOT / "docs" / "concepts.md").read_text(encoding="utf-8")


def test_the_reference_page_examples_run():
    import doctest

    failures, tried = doctest.testfile(str(ROOT / "docs" / "measures.md"), module_relative=False)
    assert tried >= 6 and failures == 0
