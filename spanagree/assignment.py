"""Exact linear assignment for the small components of the matcher, in pure Python.

The matcher solves each connected component of its candidate graph exactly. Components are
almost always a handful of spans, where importing numpy and scipy (about half a second) would
cost more than the rest of a run. :func:`max_assignment` is a line-by-line port of the shortest
augmenting path algorithm that ``scipy.optimize.linear_sum_assignment`` runs (Crouse 2016, as
implemented by P. M. Larsen in scipy's ``rectangular_lsap.cpp``): same transposition, same
order of scanning columns, same tie rule, same arithmetic on the same doubles — so it returns the
assignment scipy returns, ties included (``tests/test_match_index.py`` checks this against scipy
on random matrices full of ties). Its cost grows as rows² × columns, so the matcher hands larger
components to scipy.

Why not scipy for every component (measured on the benchmark corpus, ``benchmarks/RESULTS.md``,
"Hand-written where scipy was measured"): ``score`` on its JSONL files solves 126 components (109 of
them 2 × 1, the largest 3 × 2) in 1.3 ms here, 1.1 ms with scipy once imported — but importing
``scipy.optimize`` took 2.3 s against 0.15 s for a bare interpreter (best of 5, same machine), and
``score`` solves some component in practically every corpus with boundary errors. Forcing scipy on
every component made that run 25% slower (10.1 → 12.6 s, best of 3, on a loaded machine), which
would break the benchmark's target of staying within 3× of a plain parse. Per component, scipy is
faster from 3 × 3 up (11 µs against 41 µs; 164 against 703 µs at 20 × 20), so up to :data:`SMALL`
cells the import is what decides.

Reference
---------
Crouse DF (2016). On implementing 2D rectangular assignment algorithms. IEEE Transactions on
Aerospace and Electronic Systems 52(4):1679–1696, doi:10.1109/TAES.2016.140952 (pp. 1685–1686).
"""

from __future__ import annotations

from typing import Sequence

INFINITY = float("inf")

#: Largest component (rows × columns) solved here; larger ones go to scipy.
SMALL = 400


def max_assignment(weights: Sequence[Sequence[float]]) -> list[tuple[int, int]]:
    """A maximum-weight full assignment of the smaller side of a dense weight matrix.

    Equivalent to ``zip(*scipy.optimize.linear_sum_assignment(weights, maximize=True))`` for
    finite weights (the same pairs, in the same order).

    Examples
    --------
    >>> max_assignment([[3, 1], [2, 2]])
    [(0, 0), (1, 1)]
    >>> max_assignment([[1], [5], [2]])
    [(1, 0)]
    """
    n_rows = len(weights)
    n_cols = len(weights[0]) if n_rows else 0
    if n_rows == 0 or n_cols == 0:
        return []
    transpose = n_cols < n_rows
    if transpose:  # scipy solves a wide matrix: the transpose of a tall one
        cost = [[-float(weights[r][c]) for r in range(n_rows)] for c in range(n_cols)]
        n_rows, n_cols = n_cols, n_rows
    else:
        cost = [[-float(w) for w in row] for row in weights]
    u = [0.0] * n_rows
    v = [0.0] * n_cols
    path = [-1] * n_cols
    col4row = [-1] * n_rows
    row4col = [-1] * n_cols
    for current in range(n_rows):
        # the shortest augmenting path from row `current`
        min_value = 0.0
        remaining = list(range(n_cols - 1, -1, -1))  # reversed: a constant matrix gives the identity
        in_rows = [False] * n_rows
        in_cols = [False] * n_cols
        shortest = [INFINITY] * n_cols
        i = current
        sink = -1
        while sink == -1:
            index = -1
            lowest = INFINITY
            in_rows[i] = True
            row = cost[i]
            u_i = u[i]
            for it in range(len(remaining)):
                j = remaining[it]
                r = min_value + row[j] - u_i - v[j]
                if r < shortest[j]:
                    path[j] = i
                    shortest[j] = r
                # among equally short paths, prefer one that ends at a free column
                if shortest[j] < lowest or (shortest[j] == lowest and row4col[j] == -1):
                    lowest = shortest[j]
                    index = it
            min_value = lowest
            if min_value == INFINITY:  # cannot happen with finite weights
                raise ValueError("infeasible assignment")
            j = remaining[index]
            if row4col[j] == -1:
                sink = j
            else:
                i = row4col[j]
            in_cols[j] = True
            remaining[index] = remaining[-1]
            remaining.pop()
        # update the dual variables
        u[current] += min_value
        for i in range(n_rows):
            if in_rows[i] and i != current:
                u[i] += min_value - shortest[col4row[i]]
        for j in range(n_cols):
            if in_cols[j]:
                v[j] -= min_value - shortest[j]
        # augment the previous solution along the path
        j = sink
        while True:
            i = path[j]
            row4col[j] = i
            col4row[i], j = j, col4row[i]
            if i == current:
                break
    if transpose:
        return sorted((col4row[c], c) for c in range(n_rows))
    return [(r, col4row[r]) for r in range(n_rows)]
