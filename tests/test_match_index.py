"""The matcher's candidate indexes (sorted sweep, intervaltree) and its small-component solver.

Both indexes must find the same candidate pairs, in the same order, so that the alignment never
depends on the index; the pure-Python solver must return what scipy's returns, ties included.
Pictures use character positions; ``[==A==]`` is a span, half-open ``[start, end)``.
"""

from __future__ import annotations

import random
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spanagree.assignment import max_assignment
from spanagree.errors import UsageError
from spanagree.match import (CANDIDATE_INDEXES, MatchRule, align, candidate_edges, intervaltree_candidates,
                             sweep_candidates)
from spanagree.span import Span

MODES = [(b, l) for b in ("exact", "overlap", "partial") for l in ("strict", "ignore")]
RULES = [MatchRule(*mode) for mode in MODES] + [MatchRule("partial", "strict", "dice"),
                                                MatchRule("partial", "ignore", "dice")]


def S(start, end, label="X"):
    return Span("d", ((start, end),), label)


def every_pair(first, second):
    """The reference: every (i, j) whose hulls intersect, by checking all pairs."""
    return [(i, j) for i, x in enumerate(first) for j, y in enumerate(second) if x.start < y.end and y.start < x.end]


def spans(max_size=12, width=40):
    """Span lists with what stresses an index: identical intervals (with the same or another
    label), nesting, touching ends, discontinuous spans whose gap holds the other side's spans."""
    span = st.builds(
        lambda start, length, label, gap: (
            Span("d", ((start, start + length),), label)
            if gap is None
            else Span("d", ((start, start + length), (start + length + gap, start + length + gap + 3)), label)
        ),
        st.integers(0, width),
        st.integers(1, 12),
        st.sampled_from(["A", "B"]),
        st.one_of(st.none(), st.none(), st.integers(1, 6)),
    )
    return st.lists(span, max_size=max_size)


# ---------------------------------------------------------------- hand-made cases


def test_identical_intervals_do_not_collapse_in_the_tree():
    #   0    5    10
    #   [====]         first  A [0, 5)
    #   [====]         second X [0, 5)   three spans on the same interval: three pairs
    #   [====]         second Y [0, 5)
    #   [====]         second Z [0, 5)
    first = [S(0, 5, "A")]
    second = [S(0, 5, "X"), S(0, 5, "Y"), S(0, 5, "Z")]
    assert intervaltree_candidates(first, second) == sweep_candidates(first, second) == [(0, 0), (0, 1), (0, 2)]


def test_touching_spans_are_not_candidates():
    #   [====)[====)   [0, 5) and [5, 10) share no character
    for finder in CANDIDATE_INDEXES.values():
        assert finder([S(0, 5)], [S(5, 10)]) == []
        assert finder([S(5, 10)], [S(0, 5)]) == []


def test_discontinuous_spans_are_found_by_their_hull_and_kept_by_the_credit():
    #   0    5    10   15   20
    #   [====]    [====]          first  [0, 5) + [10, 15)
    #         [=]                 second [6, 8): inside the gap, no shared character
    #            [====]           second [9, 14): shares 4 characters with the second fragment
    first = [Span("d", ((0, 5), (10, 15)), "A")]
    second = [S(6, 8, "A"), S(9, 14, "A")]
    for name, finder in CANDIDATE_INDEXES.items():
        assert finder(first, second) == [(0, 0), (0, 1)], name  # hulls intersect
        assert [(i, j) for i, j, _ in candidate_edges(first, second, MatchRule("overlap"), index=name)] == [(0, 1)]


def test_empty_sides_and_unknown_index():
    for finder in CANDIDATE_INDEXES.values():
        assert finder([], [S(0, 1)]) == finder([S(0, 1)], []) == []
    with pytest.raises(UsageError, match="unknown candidate index 'rtree'; choose one of: sweep, intervaltree"):
        align([S(0, 1)], [S(0, 1)], MatchRule("overlap"), index="rtree")


def test_large_documents_take_the_sweep_not_the_small_shortcut():
    # Long chains of overlaps on both sides (beyond the shortcut for a few pairs): still every pair.
    rnd = random.Random(11)
    first = [S(s, s + rnd.randint(1, 40)) for s in (rnd.randrange(2000) for _ in range(300))]
    second = [S(s, s + rnd.randint(1, 40)) for s in (rnd.randrange(2000) for _ in range(300))]
    expected = every_pair(first, second)
    assert sweep_candidates(first, second) == expected
    assert intervaltree_candidates(first, second) == expected


# ---------------------------------------------------------------- properties


@settings(max_examples=400, deadline=None, derandomize=True)
@given(spans(), spans())
@pytest.mark.slow
def test_both_indexes_find_every_hull_overlapping_pair_in_order(first, second):
    expected = every_pair(first, second)
    for name, finder in CANDIDATE_INDEXES.items():
        assert finder(first, second) == expected, name
    assert sweep_candidates(first, second, few=0) == expected  # the sweep itself, without the shortcut


@pytest.mark.parametrize("rule", RULES, ids=lambda r: f"{r.boundary}-{r.labels}-{r.partial_credit}")
@settings(max_examples=300, deadline=None, derandomize=True)
@given(first=spans(10, 30), second=spans(10, 30))
@pytest.mark.slow
def test_alignments_do_not_depend_on_the_index(rule, first, second):
    by_sweep = align(first, second, rule, index="sweep")
    by_tree = align(first, second, rule, index="intervaltree")
    assert by_sweep.pairs == by_tree.pairs  # the same pairs, in the same order
    assert by_sweep.counts == by_tree.counts
    assert (by_sweep.first, by_sweep.second, by_sweep.duplicates) == (by_tree.first, by_tree.second, by_tree.duplicates)


def test_intervaltree_is_imported_only_when_asked_for():
    code = ("import sys\n"
            "from spanagree.match import MatchRule, align\n"
            "from spanagree.span import Span\n"
            "a = [Span('d', ((0, 5),), 'A')]\n"
            "align(a, a, MatchRule('overlap'))\n"
            "assert 'intervaltree' not in sys.modules\n"
            "align(a, a, MatchRule('overlap'), index='intervaltree')\n"
            "assert 'intervaltree' in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------- the small-component solver


def test_max_assignment_hand_computed():
    # Greedy takes 3 (row 0, col 0) and is left with 0; the optimum is 2 + 2 = 4.
    assert max_assignment([[3, 2], [2, 0]]) == [(0, 1), (1, 0)]
    assert max_assignment([[1], [5], [2]]) == [(1, 0)]  # a tall matrix is solved transposed
    assert max_assignment([]) == []


def test_max_assignment_is_scipy_ties_included():
    np = pytest.importorskip("numpy")
    linear_sum_assignment = pytest.importorskip("scipy.optimize").linear_sum_assignment
    rnd = random.Random(5)
    for _ in range(3000):
        rows, cols = rnd.randint(1, 8), rnd.randint(1, 8)
        top = rnd.choice([1, 2, 3, 50])
        weights = [[rnd.choice([0, 0, rnd.randint(1, top)]) for _ in range(cols)] for _ in range(rows)]
        r, c = linear_sum_assignment(np.array(weights, dtype=float), maximize=True)
        assert max_assignment(weights) == list(zip(r.tolist(), c.tolist())), weights


def test_small_components_need_neither_numpy_nor_scipy():
    code = ("import sys\n"
            "from spanagree.match import MatchRule, align\n"
            "from spanagree.span import Span\n"
            "first = [Span('d', ((0, 10),), 'A'), Span('d', ((8, 12),), 'A')]\n"
            "second = [Span('d', ((2, 12),), 'A'), Span('d', ((0, 2),), 'A')]\n"
            "assert align(first, second, MatchRule('overlap')).counts.a == 2\n"
            "assert 'scipy' not in sys.modules and 'numpy' not in sys.modules, sorted(sys.modules)\n")
    subprocess.run([sys.executable, "-c", code], check=True)
