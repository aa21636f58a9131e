"""The matcher: hand-computed cases with span pictures, a brute-force reference, and properties."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spanagree.match import MatchRule, align, shared_characters
from spanagree.span import Span

MODES = [(b, l) for b in ("exact", "overlap", "partial") for l in ("strict", "ignore")]


def S(start, end, label="X", doc="d"):
    return Span(doc, ((start, end),), label)


def D(fragments, label="X", doc="d"):
    return Span(doc, tuple(fragments), label)


# ---------------------------------------------------------------- hand-computed cases


def test_greedy_in_reading_order_is_wrong():
    #   0         10  12   16
    #   [====A====]  [=B=]          first
    #       [=====X======]          second
    #   [=Y]
    # Greedy (first A takes its best overlap X) leaves B and Y unmatched: a = 1.
    # The optimum pairs A–Y and B–X: a = 2.
    first = [S(0, 10), S(12, 15)]
    second = [S(4, 16), S(0, 3)]
    counts = align(first, second, MatchRule("overlap", "ignore")).counts
    assert (counts.a, counts.b, counts.c) == (2, 0, 0)


def test_exact_beats_overlap_only_on_ties():
    #   [====A====]          first  (0, 10)
    #   [====X====]          second (0, 10) exact
    #   [=B]                 first  (0, 2)
    #           [Y]          second (8, 10)
    # overlap: A–Y and B–X would give 2 pairs, A–X + nothing gives 1: credit wins (2 pairs),
    # although no pair is then exact.
    first = [S(0, 10), S(0, 2)]
    second = [S(0, 10), S(8, 10)]
    alignment = align(first, second, MatchRule("overlap", "ignore"))
    assert alignment.counts.a == 2
    # With equal credit the exact pair is preferred:
    #   [====A====]   first
    #   [====X====]   second, exact
    #     [==Z==]     second
    alignment = align([S(0, 10)], [S(0, 10), S(2, 8)], MatchRule("overlap", "ignore"))
    assert [(p.second.fragments) for p in alignment.pairs] == [((0, 10),)]
    assert (alignment.counts.a, alignment.counts.b, alignment.counts.c) == (1, 0, 1)


def test_partial_credit_half_and_dice():
    #   0    5    10   15
    #   [====A====]           first  PER (0, 10)
    #        [====X====]      second PER (5, 15): 5 shared characters
    first, second = [S(0, 10, "PER")], [S(5, 15, "PER")]
    assert align(first, second, MatchRule("partial", "strict")).counts.a == 0.5
    assert align(first, second, MatchRule("partial", "strict", "dice")).counts.a == 2 * 5 / 20
    assert align(first, second, MatchRule("exact", "strict")).counts.a == 0
    assert align(first, second, MatchRule("overlap", "strict")).counts.a == 1
    # labels strict: no credit at all for a different label, also partial
    assert align(first, [S(5, 15, "ORG")], MatchRule("partial", "strict")).counts.a == 0
    assert align(first, [S(5, 15, "ORG")], MatchRule("partial", "ignore")).counts.a == 0.5


def test_partial_prefers_the_exact_pair():
    #   [===A===]            first (0, 8)
    #   [===X===]            second (0, 8)   exact → 1
    #      [====Y====]       second (3, 12)  partial → 0.5
    counts = align([S(0, 8)], [S(0, 8), S(3, 12)], MatchRule("partial", "ignore")).counts
    assert (counts.a, counts.b, counts.c) == (1, 0, 1)


def test_discontinuous_spans():
    #   0    5    10   15
    #   [=A=]     [=A=]        first: one span, fragments (0,5) and (10,15)
    #        [=X=]             second (5, 10): hull overlaps, characters do not
    disc = D([(0, 5), (10, 15)])
    assert shared_characters(disc.fragments, ((5, 10),)) == 0
    assert align([disc], [S(5, 10)], MatchRule("overlap", "ignore")).counts.a == 0
    assert align([disc], [S(3, 12)], MatchRule("overlap", "ignore")).counts.a == 1
    assert align([disc], [D([(0, 5), (10, 15)])], MatchRule("exact", "strict")).counts.a == 1
    assert align([disc], [S(0, 15)], MatchRule("exact", "ignore")).counts.a == 0
    # dice: 10 shared of 10 + 15 characters
    assert align([disc], [S(0, 15)], MatchRule("partial", "ignore", "dice")).counts.a == pytest.approx(20 / 25)


def test_nested_spans_are_ordinary_spans():
    #   [========ORG========]      both: "University of Lisbon"
    #                 [=LOC=]      both: "Lisbon"
    first = [S(0, 20, "ORG"), S(14, 20, "LOC")]
    second = [S(0, 20, "ORG"), S(14, 20, "LOC")]
    for boundary, labels in MODES:
        counts = align(first, second, MatchRule(boundary, labels)).counts
        assert (counts.a, counts.b, counts.c) == (2, 0, 0)


def test_duplicates_count_once():
    first = [S(0, 5, "PER"), S(0, 5, "PER"), S(0, 5, "ORG")]
    strict = align(first, [S(0, 5, "PER")], MatchRule("exact", "strict"))
    assert strict.duplicates == (1, 0)
    assert (strict.counts.a, strict.counts.b, strict.counts.c) == (1, 1, 0)
    ignore = align(first, [S(0, 5, "PER")], MatchRule("exact", "ignore"))
    assert ignore.duplicates == (2, 0)
    assert (ignore.counts.a, ignore.counts.b, ignore.counts.c) == (1, 0, 0)


def test_labels_ignore_prefers_same_label_pair():
    #   [==PER==]        first
    #   [==ORG==]        second
    #   [==PER==]  (0, 8) vs second (0, 8) exact fragments under ignore: duplicates
    # Different fragments: A (0,8) PER; second (0,8) ORG and (1,8) PER — overlap/ignore:
    # both give credit 1; exact is preferred over same label.
    alignment = align([S(0, 8, "PER")], [S(0, 8, "ORG"), S(1, 8, "PER")], MatchRule("overlap", "ignore"))
    assert [p.second.label for p in alignment.pairs] == ["ORG"]
    alignment = align([S(0, 8, "PER")], [S(1, 8, "ORG"), S(0, 7, "PER")], MatchRule("overlap", "ignore"))
    assert [p.second.label for p in alignment.pairs] == ["PER"]


def test_rule_validation():
    from spanagree.errors import UsageError

    with pytest.raises(UsageError, match="unknown match rule"):
        MatchRule("fuzzy", "strict")
    with pytest.raises(UsageError, match="partial-credit"):
        MatchRule("partial", "strict", 1.5)
    with pytest.raises(UsageError, match="unknown label rule"):
        MatchRule("exact", "loose")


# ---------------------------------------------------------------- brute force reference


def exact_credit(rule, x, y):
    """The rule's credit as an exact Fraction (reference, written independently)."""
    if rule.labels == "strict" and x.label != y.label:
        return Fraction(0)
    if x.fragments == y.fragments:
        return Fraction(1)
    if rule.boundary == "exact":
        return Fraction(0)
    xs = {c for s, e in x.fragments for c in range(s, e)}
    ys = {c for s, e in y.fragments for c in range(s, e)}
    shared = len(xs & ys)
    if not shared:
        return Fraction(0)
    if rule.boundary == "overlap":
        return Fraction(1)
    if rule.partial_credit == "dice":
        return Fraction(2 * shared, len(xs) + len(ys))
    return Fraction(str(rule.partial_credit))


def brute_force(first, second, rule):
    """Exhaustive search over every one-to-one assignment: best (credit, #exact, #same label)."""
    # Duplicates on the key count once; under labels ignore the convention keeps the label that
    # sorts first (documented in docs/matching.md).
    def unique(spans):
        kept = {}
        for span in sorted(spans, key=lambda s: s.label):
            kept.setdefault(rule.key(span), span)
        return list(kept.values())

    first, second = unique(first), unique(second)
    best = (Fraction(0), 0, 0)
    small, large, flipped = (first, second, False) if len(first) <= len(second) else (second, first, True)
    for targets in itertools.permutations(list(range(len(large))) + [None] * len(small), len(small)):
        credit, exact, same = Fraction(0), 0, 0
        for i, j in enumerate(targets):
            if j is None:
                continue
            x, y = (small[i], large[j]) if not flipped else (large[j], small[i])
            value = exact_credit(rule, x, y)
            if value:
                credit += value
                exact += x.fragments == y.fragments
                same += x.label == y.label
        best = max(best, (credit, exact, same))
    return best, len(first), len(second)


def span_lists(max_size=5):
    span = st.builds(
        lambda start, length, label, gap: (
            Span("d", ((start, start + length),), label)
            if gap is None
            else Span("d", ((start, start + length), (start + length + gap, start + length + gap + 2)), label)
        ),
        st.integers(0, 18),
        st.integers(1, 6),
        st.sampled_from(["A", "B"]),
        st.one_of(st.none(), st.integers(1, 3)),
    )
    return st.lists(span, max_size=max_size)


@settings(max_examples=600, deadline=None)
@given(span_lists(), span_lists(), st.sampled_from(MODES + [("partial", "strict", "dice"), ("partial", "ignore", "dice")]))
def test_matches_brute_force(first, second, mode):
    rule = MatchRule(*mode)
    (credit, exact, same), n1, n2 = brute_force(first, second, rule)
    alignment = align(first, second, rule)
    assert alignment.counts.a == pytest.approx(float(credit), abs=1e-9)
    assert alignment.counts.b == pytest.approx(n1 - float(credit), abs=1e-9)
    assert alignment.counts.c == pytest.approx(n2 - float(credit), abs=1e-9)
    if "dice" not in mode:  # dice credits compare at 1e-6 resolution; the tie levels are exact otherwise
        assert sum(p.exact for p in alignment.pairs) == exact
        assert sum(p.same_label for p in alignment.pairs) == same
    # one-to-one
    assert len({id(p.first) for p in alignment.pairs}) == len(alignment.pairs)
    assert len({id(p.second) for p in alignment.pairs}) == len(alignment.pairs)


# ---------------------------------------------------------------- properties


def pair_keys(alignment):
    return sorted((p.first.fragments, p.first.label, p.second.fragments, p.second.label) for p in alignment.pairs)


@settings(max_examples=300, deadline=None)
@given(span_lists(8), span_lists(8), st.sampled_from(MODES), st.randoms(use_true_random=False))
def test_symmetry_and_order_invariance(first, second, mode, rnd):
    rule = MatchRule(*mode)
    forward = align(first, second, rule)
    backward = align(second, first, rule)
    assert backward.counts == forward.counts.swapped()
    assert pair_keys(backward) == sorted((c, d, a, b) for a, b, c, d in pair_keys(forward))
    shuffled_first, shuffled_second = first[:], second[:]
    rnd.shuffle(shuffled_first)
    rnd.shuffle(shuffled_second)
    again = align(shuffled_first, shuffled_second, rule)
    assert pair_keys(again) == pair_keys(forward)


@settings(max_examples=300, deadline=None)
@given(span_lists(8), span_lists(8), st.sampled_from(["strict", "ignore"]))
def test_exact_le_partial_le_overlap_and_identity(first, second, labels):
    a = {b: align(first, second, MatchRule(b, labels)).counts.a for b in ("exact", "partial", "overlap")}
    assert a["exact"] <= a["partial"] <= a["overlap"]
    if first:
        assert align(first, list(first), MatchRule("exact", labels)).counts.f1 == 1
    counts = align(first, second, MatchRule("partial", labels)).counts
    n1 = len({MatchRule("partial", labels).key(s) for s in first})
    assert counts.a + counts.b == pytest.approx(n1)


def test_large_component_uses_sparse_solver_and_stays_optimal():
    # One long span on each side covering 600 short spans of the other side's: a component of
    # 601 × 601 spans, beyond the dense limit.
    rnd = random.Random(7)
    first = [S(0, 10_000, "A")] + [S(i * 16, i * 16 + 5, "A") for i in range(1, 600)]
    second = [S(0, 10_000, "A")] + [S(i * 16 + rnd.randint(0, 3), i * 16 + 6, "A") for i in range(1, 600)]
    alignment = align(first, second, MatchRule("overlap", "strict"))
    assert alignment.counts.a == 600
    assert sum(p.exact for p in alignment.pairs) == 1 + sum(
        1 for x, y in zip(first[1:], second[1:]) if x.fragments == y.fragments
    )
