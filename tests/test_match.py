"""The matcher: hand-computed cases with span pictures, a brute-force reference, and properties.

Pictures use character positions; ``[==A==]`` is a span, half-open ``[start, end)``.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spanagree.errors import UsageError
from spanagree.match import MatchRule, align, candidate_edges, shared_characters
from spanagree.span import Span

MODES = [(b, l) for b in ("exact", "overlap", "partial") for l in ("strict", "ignore")]
DICE = [("partial", "strict", "dice"), ("partial", "ignore", "dice")]


def S(start, end, label="X", doc="d"):
    return Span(doc, ((start, end),), label)


def D(fragments, label="X", doc="d"):
    return Span(doc, tuple(fragments), label)


def abc(alignment):
    counts = alignment.counts
    return counts.a, counts.b, counts.c


def chosen(alignment):
    """The aligned pairs as ((first start, end, label), (second start, end, label)), sorted."""
    return sorted(((p.first.fragments, p.first.label), (p.second.fragments, p.second.label)) for p in alignment.pairs)


def in_every_order(first, second, rule):
    """The alignments of every permutation of both inputs, both ways round (mirrored back)."""
    results = []
    for f in itertools.permutations(first):
        for s in itertools.permutations(second):
            results.append(chosen(align(list(f), list(s), rule)))
            results.append(sorted((y, x) for x, y in chosen(align(list(s), list(f), rule))))
    return results


# ---------------------------------------------------------------- hand-computed cases


def greedy(first, second, rule):
    """A greedy matcher as several peers do it: each first-side span, in reading order, takes the
    free second-side span it shares the most characters with (the reference for the test below)."""
    taken, credit = set(), 0
    for x in sorted(first, key=Span.sort_key):
        best = max((j for j, y in enumerate(second) if j not in taken and rule.credit(x, y) > 0),
                   key=lambda j: shared_characters(x.fragments, second[j].fragments), default=None)
        if best is not None:
            taken.add(best)
            credit += rule.credit(x, second[best])
    return credit


def test_greedy_matching_is_wrong_and_the_optimum_is_not():
    #   0 1 2 3 4 5 6 7 8 9 10 11 12
    #   [=========A=========]           first  A [0, 10)
    #                   [==B==]         first  B [8, 12)
    #       [=========X===========]     second X [2, 12): shares 8 with A, 4 with B
    #   [Y]                             second Y [0, 2):  shares 2 with A
    # Greedy: A takes X (its largest overlap), B finds nothing free → a = 1, b = 1, c = 1.
    # Optimum: A–Y and B–X → a = 2, b = 0, c = 0.
    first = [S(0, 10), S(8, 12)]
    second = [S(2, 12), S(0, 2)]
    rule = MatchRule("overlap", "ignore")
    assert greedy(first, second, rule) == 1
    alignment = align(first, second, rule)
    assert abc(alignment) == (2, 0, 0)
    assert chosen(alignment) == [((((0, 10),), "X"), (((0, 2),), "X")), ((((8, 12),), "X"), (((2, 12),), "X"))]
    # the same picture under partial credit: greedy 0.5, optimum 1.0
    assert greedy(first, second, MatchRule("partial", "ignore")) == 0.5
    assert abc(align(first, second, MatchRule("partial", "ignore"))) == (1, 1, 1)


def test_greedy_in_list_order_is_order_dependent():
    #   0         10  12   16
    #   [====A====]  [=B=]          first
    #       [=====X======]          second, listed first
    #   [=Y]                        second
    # Taking "the first overlapping span in list order" pairs A–X and leaves B and Y: a = 1; with
    # the second list reversed it finds a = 2. spanagree gives a = 2 in every order.
    first = [S(0, 10), S(12, 15)]
    second = [S(4, 16), S(0, 3)]
    rule = MatchRule("overlap", "ignore")

    def first_free(first, second):  # each first-side span takes the first free overlapping one
        taken = set()
        for x in first:
            j = next((j for j, y in enumerate(second) if j not in taken and rule.credit(x, y)), None)
            if j is not None:
                taken.add(j)
        return len(taken)

    assert first_free(first, second) == 1 and first_free(first, second[::-1]) == 2
    for order in in_every_order(first, second, rule):
        assert order == [((((0, 10),), "X"), (((0, 3),), "X")), ((((12, 15),), "X"), (((4, 16),), "X"))]


def test_exact_pairs_win_ties():
    # Credit first: two overlapping pairs beat one exact pair.
    #   [====A====]          first  (0, 10)
    #   [====X====]          second (0, 10) exact with A
    #   [B]                  first  (0, 2)
    #           [Y]          second (8, 10)
    # overlap/ignore: A–Y + B–X = 2 beats A–X = 1, although neither pair is then exact.
    alignment = align([S(0, 10), S(0, 2)], [S(0, 10), S(8, 10)], MatchRule("overlap", "ignore"))
    assert abc(alignment) == (2, 0, 0)
    assert sum(p.exact for p in alignment.pairs) == 0
    # With equal credit the exact pair is preferred, whatever the order:
    #   [====A====]   first
    #   [====X====]   second, exact
    #     [==Z==]     second
    for rule in (MatchRule("overlap", "ignore"), MatchRule("overlap", "strict")):
        for pairs in in_every_order([S(0, 10)], [S(0, 10), S(2, 8)], rule):
            assert pairs == [((((0, 10),), "X"), (((0, 10),), "X"))]
    # Two exact pairs beat one exact pair plus one overlap, at equal credit (2 = 2):
    #   [==A==]  [==B==]            first  (0, 5), (7, 12)
    #   [==X==]  [==W==]            second (0, 5), (7, 12)
    #   [=====V==========]          second (0, 14): overlaps both
    first, second = [S(0, 5), S(7, 12)], [S(0, 5), S(7, 12), S(0, 14)]
    for pairs in in_every_order(first, second, MatchRule("overlap", "ignore")):
        assert [p[1][0] for p in pairs] == [((0, 5),), ((7, 12),)]


def test_same_label_pairs_win_ties_after_exact_ones():
    # Equal credit, no exact pair: the same-label partner is preferred, in every order.
    #   [====PER====]      first  (0, 8)
    #    [===ORG====]      second (1, 8)
    #   [===PER===]        second (0, 7)
    for pairs in in_every_order([S(0, 8, "PER")], [S(1, 8, "ORG"), S(0, 7, "PER")], MatchRule("overlap", "ignore")):
        assert pairs == [((((0, 8),), "PER"), (((0, 7),), "PER"))]
    # An exact pair outranks a same-label pair:
    #   [====PER====]      first  (0, 8)
    #   [====ORG====]      second (0, 8): exact, other label
    #    [===PER====]      second (1, 8): same label, not exact
    for pairs in in_every_order([S(0, 8, "PER")], [S(0, 8, "ORG"), S(1, 8, "PER")], MatchRule("overlap", "ignore")):
        assert pairs == [((((0, 8),), "PER"), (((0, 8),), "ORG"))]
    # Under partial/ignore the exact pair earns more (1 > 0.5) anyway; under exact/ignore it is the
    # only candidate. Two same-label pairs beat none at equal credit (2 = 2, no pair exact):
    #   0 1 2 3 4 5 6 7 8 9 10 11
    #   [==PER==]     [===ORG===]      first  A PER (0, 5), B ORG (7, 12)
    #     [=====PER=======]            second X PER (1, 9): overlaps A and B
    #           [=====ORG=======]      second Y ORG (4, 12): overlaps A and B
    # A–X + B–Y (both same label) is chosen over A–Y + B–X (neither).
    first = [S(0, 5, "PER"), S(7, 12, "ORG")]
    second = [S(1, 9, "PER"), S(4, 12, "ORG")]
    for pairs in in_every_order(first, second, MatchRule("overlap", "ignore")):
        assert pairs == [((((0, 5),), "PER"), (((1, 9),), "PER")), ((((7, 12),), "ORG"), (((4, 12),), "ORG"))]


def test_canonical_choice_among_equal_alignments():
    # Two alignments are equally good on credit, exact and same-label pairs:
    #   0 1 2 3 4 5 6 7
    #   [==A==]               first  (0, 4)
    #       [==B==]           first  (2, 6)
    #     [==X==]             second (1, 5)
    #         [==Y==]         second (3, 7)
    # A–X + B–Y or A–Y + B–X. spanagree picks the same one in every input order and, mirrored,
    # with the sides swapped.
    first, second = [S(0, 4), S(2, 6)], [S(1, 5), S(3, 7)]
    for rule in (MatchRule("overlap", "strict"), MatchRule("partial", "ignore"), MatchRule("partial", "strict", "dice")):
        orders = in_every_order(first, second, rule)
        assert all(order == orders[0] for order in orders)
        assert len(orders[0]) == 2


def test_partial_credit_half_and_dice():
    #   0    5    10   15
    #   [====A====]           first  PER (0, 10)
    #        [====X====]      second PER (5, 15): 5 shared characters
    first, second = [S(0, 10, "PER")], [S(5, 15, "PER")]
    assert abc(align(first, second, MatchRule("partial", "strict"))) == (0.5, 0.5, 0.5)
    assert align(first, second, MatchRule("partial", "strict", "dice")).counts.a == 2 * 5 / 20
    assert align(first, second, MatchRule("partial", "strict", 0.25)).counts.a == 0.25
    assert align(first, second, MatchRule("exact", "strict")).counts.a == 0
    assert align(first, second, MatchRule("overlap", "strict")).counts.a == 1
    # labels strict: no credit at all for a different label, also partial and dice
    assert align(first, [S(5, 15, "ORG")], MatchRule("partial", "strict")).counts.a == 0
    assert align(first, [S(5, 15, "ORG")], MatchRule("partial", "strict", "dice")).counts.a == 0
    assert align(first, [S(5, 15, "ORG")], MatchRule("overlap", "strict")).counts.a == 0
    assert align(first, [S(5, 15, "ORG")], MatchRule("partial", "ignore")).counts.a == 0.5
    assert align(first, [S(5, 15, "ORG")], MatchRule("partial", "ignore", "dice")).counts.a == 0.5
    # an exact pair earns 1 under partial, not the partial credit
    assert align(first, [S(0, 10, "PER")], MatchRule("partial", "strict", 0.25)).counts.a == 1


def test_touching_spans_do_not_overlap():
    #   [==A==]                first  (0, 5)
    #         [==X==]          second (5, 10): they touch, no shared character
    for boundary, labels in MODES:
        assert abc(align([S(0, 5)], [S(5, 10)], MatchRule(boundary, labels))) == (0, 1, 1)


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
    assert align([disc], [D([(0, 5), (10, 14)])], MatchRule("exact", "strict")).counts.a == 0
    assert align([disc], [S(0, 15)], MatchRule("exact", "ignore")).counts.a == 0
    # dice: 10 shared of 10 + 15 characters
    assert align([disc], [S(0, 15)], MatchRule("partial", "ignore", "dice")).counts.a == pytest.approx(20 / 25)
    # two discontinuous spans that interleave without sharing a character
    #   [A]  [A]  [A]         (0,2) (5,7) (10,12)
    #     [B]  [B]            (2,5) (7,10)
    assert align([D([(0, 2), (5, 7), (10, 12)])], [D([(2, 5), (7, 10)])], MatchRule("overlap", "ignore")).counts.a == 0


def test_nested_spans_are_ordinary_spans():
    #   [========ORG========]      both: "University of Lisbon"
    #                 [=LOC=]      both: "Lisbon"
    first = [S(0, 20, "ORG"), S(14, 20, "LOC")]
    second = [S(0, 20, "ORG"), S(14, 20, "LOC")]
    for boundary, labels in MODES:
        assert abc(align(first, second, MatchRule(boundary, labels))) == (2, 0, 0)
    # Only the outer span on the other side: under overlap/ignore the outer pair is exact, the
    # inner span stays unmatched (one-to-one).
    assert abc(align(first, [S(0, 20, "ORG")], MatchRule("overlap", "ignore"))) == (1, 1, 0)


def test_duplicates_count_once():
    first = [S(0, 5, "PER"), S(0, 5, "PER"), S(0, 5, "ORG")]
    strict = align(first, [S(0, 5, "PER")], MatchRule("exact", "strict"))
    assert strict.duplicates == (1, 0)
    assert abc(strict) == (1, 1, 0)
    ignore = align(first, [S(0, 5, "PER")], MatchRule("exact", "ignore"))
    assert ignore.duplicates == (2, 0)
    assert abc(ignore) == (1, 0, 0)
    # the same fragments, different labels: one span under labels ignore, the label that sorts first
    assert [s.label for s in align(first, [], MatchRule("overlap", "ignore")).first] == ["ORG"]
    # discontinuous duplicates
    twice = [D([(0, 2), (4, 6)]), D([(0, 2), (4, 6)])]
    assert align(twice, twice, MatchRule("partial", "strict")).duplicates == (1, 1)


def test_rule_validation():
    with pytest.raises(UsageError, match="unknown match rule 'fuzzy'; choose one of: exact, overlap, partial"):
        MatchRule("fuzzy", "strict")
    with pytest.raises(UsageError, match="partial_credit"):
        MatchRule("partial", "strict", 1.5)
    with pytest.raises(UsageError, match="partial_credit"):
        MatchRule("partial", "strict", 0)
    with pytest.raises(UsageError, match="partial_credit"):
        MatchRule("partial", "strict", "half")
    with pytest.raises(UsageError, match="unknown label rule"):
        MatchRule("exact", "loose")
    assert MatchRule("partial", "strict", "0.25").partial_credit == 0.25


def test_candidates_are_every_pair_with_credit():
    # The sweep finds exactly the pairs with positive credit (no all-pairs loop needed).
    rnd = random.Random(3)
    for _ in range(50):
        first = [S(s, s + rnd.randint(1, 30), rnd.choice("AB")) for s in rnd.sample(range(300), 40)]
        second = [S(s, s + rnd.randint(1, 30), rnd.choice("AB")) for s in rnd.sample(range(300), 40)]
        for rule in (MatchRule("overlap", "strict"), MatchRule("partial", "ignore", "dice")):
            swept = sorted((i, j) for i, j, _ in candidate_edges(first, second, rule))
            every = sorted((i, j) for i, x in enumerate(first) for j, y in enumerate(second) if rule.credit(x, y) > 0)
            assert swept == every


# ---------------------------------------------------------------- brute force reference


def exact_credit(rule, x, y):
    """The rule's credit as an exact Fraction (reference, written independently of match.py)."""
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


def unique(spans, rule):
    """Duplicates on the key count once; under labels ignore the label that sorts first is kept
    (the convention documented in docs/matching.md)."""
    kept = {}
    for span in sorted(spans, key=lambda s: s.label):
        key = (span.fragments, span.label) if rule.labels == "strict" else span.fragments
        kept.setdefault(key, span)
    return list(kept.values())


def brute_force(first, second, rule):
    """Exhaustive search over every one-to-one assignment: the best (credit, #exact, #same label).

    Each first-side span in turn is left alone or given any free second-side span; the memo on
    (position, spans taken) only avoids recomputing identical sub-searches.
    """
    first, second = unique(first, rule), unique(second, rule)
    credit = [[exact_credit(rule, x, y) for y in second] for x in first]

    @lru_cache(maxsize=None)
    def best(i, taken):
        if i == len(first):
            return (Fraction(0), 0, 0)
        result = best(i + 1, taken)
        for j, y in enumerate(second):
            if not taken >> j & 1 and credit[i][j]:
                c, e, s = best(i + 1, taken | 1 << j)
                x = first[i]
                result = max(result, (c + credit[i][j], e + (x.fragments == y.fragments), s + (x.label == y.label)))
        return result

    return best(0, 0), len(first), len(second)


def span_lists(max_size=6):
    span = st.builds(
        lambda start, length, label, gap: (
            Span("d", ((start, start + length),), label)
            if gap is None
            else Span("d", ((start, start + length), (start + length + gap, start + length + gap + 2)), label)
        ),
        st.integers(0, 15),
        st.integers(1, 6),
        st.sampled_from(["A", "B"]),
        st.one_of(st.none(), st.none(), st.integers(1, 3)),
    )
    return st.lists(span, max_size=max_size)


@pytest.mark.parametrize("mode", MODES + DICE, ids=lambda m: "-".join(m))
@settings(max_examples=1000, deadline=None, derandomize=True)
@given(first=span_lists(), second=span_lists())
@pytest.mark.slow
def test_matches_brute_force(mode, first, second):
    """1000 random pairs of span lists per mode × 8 modes = 8000 comparisons with the exhaustive optimum."""
    rule = MatchRule(*mode)
    (credit, exact, same), n1, n2 = brute_force(first, second, rule)
    alignment = align(first, second, rule)
    assert (len(alignment.first), len(alignment.second)) == (n1, n2)
    if "dice" in mode:  # dice credits are compared at a resolution of 1e-6
        assert alignment.counts.a == pytest.approx(float(credit), abs=1e-5)
    else:  # exact: credits are multiples of 0.5, sums of them are exact in floating point
        assert alignment.counts.a == credit
        assert (alignment.counts.b, alignment.counts.c) == (n1 - credit, n2 - credit)
        assert sum(p.exact for p in alignment.pairs) == exact
        assert sum(p.same_label for p in alignment.pairs) == same
    # one-to-one, and every pair earns its rule's credit
    assert len({id(p.first) for p in alignment.pairs}) == len(alignment.pairs)
    assert len({id(p.second) for p in alignment.pairs}) == len(alignment.pairs)
    assert all(p.credit == float(exact_credit(rule, p.first, p.second)) > 0 for p in alignment.pairs)


# ---------------------------------------------------------------- properties


@settings(max_examples=250, deadline=None, derandomize=True)
@given(span_lists(8), span_lists(8), st.sampled_from(MODES + DICE), st.randoms(use_true_random=False))
@pytest.mark.slow
def test_symmetry_and_order_invariance(first, second, mode, rnd):
    rule = MatchRule(*mode)
    forward = align(first, second, rule)
    backward = align(second, first, rule)
    # swapping the sides swaps b and c and mirrors the chosen pairs, nothing else
    assert backward.counts == forward.counts.swapped()
    assert chosen(backward) == sorted((y, x) for x, y in chosen(forward))
    shuffled_first, shuffled_second = first[:], second[:]
    rnd.shuffle(shuffled_first)
    rnd.shuffle(shuffled_second)
    again = align(shuffled_first, shuffled_second, rule)
    assert chosen(again) == chosen(forward)
    assert again.counts == forward.counts


@settings(max_examples=300, deadline=None, derandomize=True)
@given(span_lists(8), span_lists(8), st.sampled_from(MODES + DICE))
@pytest.mark.slow
def test_the_unmatched_spans_are_those_in_no_pair_in_order(first, second, mode):
    # The exact join hands them over as it finds them; the other rules work them out from the pairs.
    alignment = align(first, second, MatchRule(*mode))
    paired_first = {id(p.first) for p in alignment.pairs}
    paired_second = {id(p.second) for p in alignment.pairs}
    expected = ([s for s in alignment.first if id(s) not in paired_first],
                [s for s in alignment.second if id(s) not in paired_second])
    for got, want in zip((alignment.unmatched_first(), alignment.unmatched_second()), expected):
        assert list(map(id, got)) == list(map(id, want))
    assert (mode[0] == "exact") == (alignment.unmatched is not None)
    swapped = alignment.swapped()
    assert list(map(id, swapped.unmatched_first())) == list(map(id, expected[1]))
    assert list(map(id, swapped.unmatched_second())) == list(map(id, expected[0]))


@settings(max_examples=250, deadline=None, derandomize=True)
@given(span_lists(8), span_lists(8), st.sampled_from(["strict", "ignore"]))
@pytest.mark.slow
def test_exact_le_partial_le_overlap_sizes_and_identity(first, second, labels):
    a = {b: align(first, second, MatchRule(b, labels)).counts.a for b in ("exact", "partial", "overlap")}
    assert a["exact"] <= a["partial"] <= a["overlap"]
    assert a["exact"] <= align(first, second, MatchRule("partial", labels, "dice")).counts.a <= a["overlap"]
    for rule in [MatchRule(b, labels) for b in ("exact", "overlap", "partial")] + [MatchRule("partial", labels, "dice")]:
        n1, n2 = len({rule.key(s) for s in first}), len({rule.key(s) for s in second})
        counts = align(first, second, rule).counts
        assert counts.a + counts.b == pytest.approx(n1, abs=1e-9)  # a + b = |first|
        assert counts.a + counts.c == pytest.approx(n2, abs=1e-9)  # a + c = |second|
        if first:  # identity gives F1 = 1 under every rule
            identity = align(first, list(reversed(first)), rule).counts
            assert (identity.b, identity.c, identity.f1) == (0, 0, 1)


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
    swapped = align(second, first, MatchRule("overlap", "strict"))
    assert chosen(swapped) == sorted((y, x) for x, y in chosen(alignment))
