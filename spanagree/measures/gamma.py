"""Mathet, Widlöcher & Métivier's γ (Computational Linguistics 41(3), 2015), as pygamma-agreement 0.5.9
computes it, with an exact best alignment.

A **continuum** is one document's units, per annotator: each fragment of a span is a unit
``[start, end)`` on the character axis with the span's label as its category; a unit marked
twice by one annotator (same boundaries and category) is one unit (pygamma keeps a set).
Annotators are taken in the order of their names, units in the order of ``(start, end, category)``.

- **Dissimilarity** (pygamma's ``CombinedCategoricalDissimilarity``): between two units
  ``d(u, v) = α · δ∅ · ((|s_u − s_v| + |e_u − e_v|) / (ℓ_u + ℓ_v))² + β · [cat_u ≠ cat_v]``,
  computed in single precision as pygamma does (its categorical part is not scaled by
  ``δ∅``: pygamma's quirk, kept).
- **Unitary alignment**: one unit or none per annotator; its disorder is the mean over the
  ``C(n, 2)`` pairs of annotators of ``d``, a pair with a missing unit counting ``δ∅``.
- **Best alignment**: the partition of the units into unitary alignments with the least total
  disorder; its disorder is that total divided by the mean number of units per annotator
  (``disorder``, observed). A unitary alignment of ``k`` units whose disorder is not below
  ``k · δ∅`` (its units left alone) is never needed for the optimum, so only the others are
  candidates; the candidates form a set-partitioning problem solved exactly, component by
  component: a small one by a search over the partitions of its units, a larger one by dynamic
  programming along the axis (candidates hold units close together, so its states stay few),
  or, for a component whose states would grow past a bound, as a mixed-integer program (HiGHS
  through :func:`scipy.optimize.milp`, zero optimality gap).
- **Expected disorder**: the mean disorder of the best alignments of continua sampled from the
  document (pygamma's samplers: ``"statistical"``, its default, draws each annotator's number of
  units, gaps, durations and categories from normal laws fitted to the document; ``"shuffle"``
  shifts whole annotations around the continuum), ``samples`` of them, more when
  ``precision`` asks (pygamma's ``precision_level``). Seeded with ``seed``, the samples are
  those pygamma draws after ``numpy.random.seed(seed)``.
- **γ** ``= 1 − observed / expected`` (1 when nothing is in disorder); **γ-cat** and **γ-k**
  the same over pygamma's categorical disorder of the alignments (``gamma_k_disorder``).

Over a corpus, units never align across documents: the corpus's observed and expected
disorders are the documents' weighted by their mean number of units per annotator (the weight
of each in the observed disorder of the whole), so a corpus of one document gives that
document's figures. :class:`GammaTally` holds each document's figures and adds up.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass, field

import numpy as np

SAMPLERS = ("statistical", "shuffle")
PRECISION_LEVELS = {"high": 0.01, "medium": 0.02, "low": 0.1}  # pygamma's named precision levels
SEGMENT_PRECISION = 1e-6  # pyannote.core's: shorter sampled units are drawn again


@dataclass(frozen=True)
class GammaSettings:
    """The settings of γ: the dissimilarity's ``alpha``, ``beta`` and ``delta_empty``, the
    ``sampler``, the number of ``samples``, the ``precision`` (``None``: exactly ``samples``) and
    the ``seed`` of each document's samples."""

    alpha: float = 1.0
    beta: float = 1.0
    delta_empty: float = 1.0
    sampler: str = "statistical"
    samples: int = 30
    precision: float | None = None
    seed: int = 0

    def as_dict(self) -> dict:
        """The settings a figure is reproduced from (the number of samples asked for is the
        options'; the figures give those drawn)."""
        return {"sampler": self.sampler, "alpha": self.alpha, "beta": self.beta, "delta_empty": self.delta_empty,
                "precision": self.precision, "seed": self.seed}


class Continuum:
    """One document's units per annotator (``starts``, ``ends``, ``categories``: the index of
    each unit's category in :attr:`labels`), annotators and units in pygamma's order."""

    def __init__(self, units: list[list[tuple[float, float, str]]], labels: list[str] | None = None):
        self.labels = sorted({label for own in units for _, _, label in own}) if labels is None else labels
        index = {label: k for k, label in enumerate(self.labels)}
        self.units = [sorted(set(own)) for own in units]
        self.starts = [np.array([u[0] for u in own], dtype=np.float64) for own in self.units]
        self.ends = [np.array([u[1] for u in own], dtype=np.float64) for own in self.units]
        self.categories = [np.array([index[u[2]] for u in own], dtype=np.int64) for own in self.units]

    @property
    def annotators(self) -> int:
        return len(self.units)

    @property
    def sizes(self) -> list[int]:
        return [len(own) for own in self.units]

    @property
    def total(self) -> int:
        return sum(self.sizes)


def continuum_of(spans_per_annotator: list) -> Continuum:
    """The continuum of one document: per annotator (already in the order of their names), its
    spans (:class:`~spanagree.span.Span`), one unit per fragment."""
    return Continuum([[(float(start), float(end), span.label) for span in spans for start, end in span.fragments
                       if end > start] for spans in spans_per_annotator])


# ---------------------------------------------------------------------------------------------
# dissimilarities, in single precision as pygamma computes them


def _unit_arrays(continuum: Continuum, a: int):
    start = continuum.starts[a].astype(np.float32)
    end = continuum.ends[a].astype(np.float32)
    length = (continuum.ends[a] - continuum.starts[a]).astype(np.float32)
    return start, end, length, continuum.categories[a]


def _dissimilarity(settings: GammaSettings, first, second, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """``d`` between units ``i`` of one annotator (``first``: its arrays) and ``j`` of another, as
    pygamma's compiled ``d_mat`` (float32)."""
    s1, e1, l1, c1 = first
    s2, e2, l2, c2 = second
    delta = np.float32(settings.delta_empty)
    dist = (np.abs(s1[i] - s2[j]) + np.abs(e1[i] - e2[j])) / (l1[i] + l2[j])
    positional = dist * dist * delta
    categorical = (c1[i] != c2[j]).astype(np.float32)
    return (settings.alpha * positional.astype(np.float64) + settings.beta * categorical.astype(np.float64)
            ).astype(np.float32)


def _close_pairs(settings: GammaSettings, first, second, bound: float):
    """Every pair of units (one of each annotator) whose dissimilarity is at most ``bound``:
    ``(i, j, d)``. Units far apart are skipped without computing ``d`` (the positional part
    alone exceeds the bound)."""
    s1, e1, l1, _ = first
    s2, e2, l2, _ = second
    if len(s1) == 0 or len(s2) == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.float32)
    weight = settings.alpha * settings.delta_empty
    order = np.argsort(s2, kind="stable")
    sorted_starts = s2[order].astype(np.float64)
    if weight > 0:
        # d ≥ weight · ((|Δs| + |Δe|) / (ℓ1 + ℓ2))², so |Δs| < reach · (ℓ1 + ℓ2)
        reach = math.sqrt(bound / weight) * 1.000001 + 1e-9
        span = reach * (l1.astype(np.float64) + float(l2.max()))
        low = np.searchsorted(sorted_starts, s1 - span, side="left")
        high = np.searchsorted(sorted_starts, s1 + span, side="right")
    else:
        low = np.zeros(len(s1), np.int64)
        high = np.full(len(s1), len(s2), np.int64)
    counts = high - low
    i = np.repeat(np.arange(len(s1)), counts)
    offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    j = order[np.repeat(low, counts) + offsets]
    d = _dissimilarity(settings, first, second, i, j)
    keep = d <= bound
    return i[keep], j[keep], d[keep]


# ---------------------------------------------------------------------------------------------
# candidate unitary alignments and the best alignment


@dataclass
class Candidates:
    """The candidate unitary alignments of a continuum: ``tuples`` (one row each, per annotator
    a unit's index or the annotator's number of units for none) and their disorders (float32)."""

    tuples: np.ndarray
    disorders: np.ndarray
    single: float = 1.0


def candidates(continuum: Continuum, settings: GammaSettings) -> Candidates:
    """Every unitary alignment that may be part of a best alignment: each unit alone, and every
    tuple of ``k ≥ 2`` units of different annotators whose disorder is at most ``k · δ∅`` (above,
    its units alone do better) and no more than that of one of its units alone and the others together. Disorders as pygamma computes them (float32)."""
    n = continuum.annotators
    sizes = continuum.sizes
    pairs = n * (n - 1) // 2
    delta = np.float32(settings.delta_empty)
    arrays = [_unit_arrays(continuum, a) for a in range(n)]
    # a kept tuple of k units has a sum of real pairs' d below (k·C(n,2) − C(n,2) + C(k,2))·δ∅
    allowed = {k: ((k - 1) * pairs + k * (k - 1) // 2) * settings.delta_empty for k in range(2, n + 1)}
    bound = allowed[n]
    edges = {}
    for a in range(n):
        for b in range(a + 1, n):
            i, j, d = _close_pairs(settings, arrays[a], arrays[b], bound)
            edges[a, b] = (i, j, d)
    # grow tuples annotator by annotator: rows of unit indices (-1: none), the sum of their real pairs' d
    rows = np.full((1, 1), -1, np.int64)
    rows = np.concatenate([rows, np.arange(sizes[0]).reshape(-1, 1)])
    sums = np.zeros(len(rows), np.float64)
    for b in range(1, n):
        grown_rows = [np.concatenate([rows, np.full((len(rows), 1), -1, np.int64)], axis=1)]
        grown_sums = [sums]
        empty = (rows == -1).all(axis=1)
        # a unit of b starting a tuple
        starting = np.full((sizes[b], b + 1), -1, np.int64)
        starting[:, b] = np.arange(sizes[b])
        grown_rows.append(starting)
        grown_sums.append(np.zeros(sizes[b], np.float64))
        # a unit of b joining a tuple: a neighbour of the tuple's first unit, checked against the others
        if not empty.all():
            first = np.argmax(rows != -1, axis=1)
            for a in range(b):
                chosen = np.nonzero(~empty & (first == a))[0]
                if len(chosen) == 0:
                    continue
                i, j, d = edges[a, b]
                order = np.argsort(i, kind="stable")
                i, j, d = i[order], j[order], d[order]
                low = np.searchsorted(i, rows[chosen, a], side="left")
                high = np.searchsorted(i, rows[chosen, a], side="right")
                counts = high - low
                which = np.repeat(chosen, counts)
                offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
                picked = np.repeat(low, counts) + offsets
                joined = j[picked]
                total = sums[which] + d[picked].astype(np.float64)
                ok = np.ones(len(which), bool)
                for other in range(a + 1, b):
                    units = rows[which, other]
                    real = units != -1
                    if not real.any():
                        continue
                    found = _edge_dissimilarity(edges[other, b], sizes[b], units[real], joined[real])
                    ok[np.nonzero(real)[0][np.isnan(found)]] = False
                    total[real] += np.nan_to_num(found)
                ok &= total <= bound
                new = np.concatenate([rows[which[ok]], joined[ok].reshape(-1, 1)], axis=1)
                grown_rows.append(new)
                grown_sums.append(total[ok])
        rows = np.concatenate(grown_rows)
        sums = np.concatenate(grown_sums)
    real = (rows != -1).sum(axis=1)
    keep = real >= 2
    rows, sums, real = rows[keep], sums[keep], real[keep]
    limits = np.array([0.0, 0.0, *(allowed[k] for k in range(2, n + 1))], dtype=np.float64)
    keep = sums <= limits[real]
    rows, real = rows[keep], real[keep]
    tuples = np.where(rows == -1, np.array(sizes, np.int64), rows)
    singles = [np.full((size, n), sizes, np.int64) for size in sizes]
    for a, single in enumerate(singles):
        single[:, a] = np.arange(sizes[a])
    tuples = np.concatenate([tuples, *singles]) if n else tuples
    disorders = tuple_disorders(continuum, settings, tuples, arrays)
    ones = (tuples != np.array(sizes)).sum(axis=1)
    # a unit alone: every pair of annotators counts δ∅ (summed as tuple_disorders sums)
    single = float(np.float32(pairs * float(delta)) / np.float32(pairs)) if pairs else 0.0
    cost = disorders.astype(np.float64)
    useful = (ones == 1) | (cost <= single * ones)  # a tie is kept: the fewer unitary alignments win it
    for a in range(n):  # a tuple that does worse than itself without one of its units and that unit alone
        without = tuples.copy()
        without[:, a] = sizes[a]
        lighter = (ones >= 3) & (tuples[:, a] != sizes[a])
        if lighter.any():
            rest = tuple_disorders(continuum, settings, without[lighter], arrays).astype(np.float64)
            useful[np.nonzero(lighter)[0][rest + single < cost[lighter]]] = False
    return Candidates(tuples[useful], disorders[useful], single)


def _edge_dissimilarity(edge, size_b: int, units: np.ndarray, joined: np.ndarray) -> np.ndarray:
    """``d`` of each pair ``(units[k], joined[k])`` among the close pairs ``edge``; NaN where
    the pair is not close."""
    i, j, d = edge
    keys = i * (size_b + 1) + j
    order = np.argsort(keys, kind="stable")
    keys, d = keys[order], d[order]
    wanted = units * (size_b + 1) + joined
    at = np.searchsorted(keys, wanted)
    at = np.minimum(at, max(len(keys) - 1, 0))
    found = np.full(len(wanted), np.nan)
    if len(keys):
        hit = keys[at] == wanted
        found[hit] = d[at[hit]]
    return found


def tuple_disorders(continuum: Continuum, settings: GammaSettings, tuples: np.ndarray, arrays=None) -> np.ndarray:
    """The disorder of each unitary alignment (rows of unit indices, an annotator's number of
    units for none), as pygamma computes it: the pairs' ``d`` summed in double precision in
    pygamma's order, stored in single precision and divided by ``C(n, 2)``."""
    n = continuum.annotators
    sizes = continuum.sizes
    arrays = arrays or [_unit_arrays(continuum, a) for a in range(n)]
    delta = np.float32(settings.delta_empty)
    total = np.zeros(len(tuples), np.float64)
    for a in range(n):
        for b in range(a):
            ia, ib = tuples[:, a], tuples[:, b]
            real = (ia != sizes[a]) & (ib != sizes[b])
            d = np.full(len(tuples), delta, np.float32)
            if real.any():
                d[real] = _dissimilarity(settings, arrays[a], arrays[b], ia[real], ib[real])
            total += d.astype(np.float64)
    return total.astype(np.float32) / np.float32(n * (n - 1) // 2)


@dataclass
class BestAlignment:
    """A continuum's best alignment: its unitary alignments (``tuples``, in pygamma's order) and
    their disorders, and the alignment's disorder."""

    tuples: np.ndarray
    disorders: np.ndarray
    disorder: float


def best_alignment(continuum: Continuum, settings: GammaSettings, *, searched: int | None = None,
                   states: int | None = None) -> BestAlignment:
    """The best alignment of ``continuum`` (exact: see the module's docstring). ``searched``:
    components of at most this many units are solved by a search over the partitions of their
    units (default :data:`SMALL`); ``states``: the larger ones by dynamic programming along the
    axis, unless it would reach more than this many states (default :data:`SEARCH_STATES`), then
    by HiGHS (``searched=0, states=0``: every component by HiGHS).

    Examples
    --------
    Two annotators agree on a name and nearly on a place (one character off):
    ``d = ((1 + 0) / (6 + 5))²`` for the places, over 2 units per annotator.

    >>> continuum = Continuum([[(0.0, 4.0, "PER"), (10.0, 16.0, "LOC")], [(0.0, 4.0, "PER"), (11.0, 16.0, "LOC")]])
    >>> best = best_alignment(continuum, GammaSettings())
    >>> best.tuples.tolist(), round(best.disorder, 6), round((1 / 11) ** 2 / 2, 6)
    ([[0, 0], [1, 1]], 0.004132, 0.004132)
    """
    found = candidates(continuum, settings)
    chosen = _partition(continuum, found.tuples, found.disorders, found.single,
                        SMALL if searched is None else searched, SEARCH_STATES if states is None else states)
    tuples, disorders = found.tuples[chosen], found.disorders[chosen]
    order = np.lexsort(tuples.T)  # pygamma's order: the first annotator's unit varies fastest
    tuples, disorders = tuples[order], disorders[order]
    average = continuum.total / continuum.annotators
    return BestAlignment(tuples, disorders, float(np.sum(disorders) / average))


def _partition(continuum: Continuum, tuples: np.ndarray, disorders: np.ndarray, single: float,
               searched: int, states: int) -> np.ndarray:
    """The candidates chosen (their indices): each unit in exactly one, the least total disorder
    and, among partitions of the same disorder, the fewest unitary alignments.

    The units that candidates of several units link form components, each solved on its own:
    a unit no such candidate holds stays alone; a component of one candidate takes it (it costs
    no more than its units alone, or it would not be a candidate); the others are solved by a
    search over the partitions of their units when they have at most ``searched`` units
    (:func:`_small_components`, which picks among equal partitions as version 0.5.0 did), by
    dynamic programming along the axis (:func:`_searched_partition`), or, when that would reach
    more than ``states`` states, together as one set-partitioning program (:func:`_set_partition`)."""
    sizes = continuum.sizes
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    real = tuples != np.array(sizes)
    width = real.sum(axis=1)
    several = np.nonzero(width >= 2)[0]
    if len(several) == 0:
        return np.arange(len(tuples))
    total = int(offsets[-1])
    rows, cols = np.nonzero(real)
    units = offsets[cols] + tuples[rows, cols]  # each candidate's units (rows: the candidate), in annotator order
    first_unit = np.zeros(len(tuples), np.int64)
    first_unit[rows[::-1]] = units[::-1]  # each candidate's first unit
    component = _components(total, first_unit[rows], units)
    of_candidate = component[first_unit]
    per_component = np.bincount(of_candidate[several], minlength=total)
    chosen = np.zeros(len(tuples), bool)
    chosen[per_component[of_candidate] == 0] = True  # units no several-unit candidate holds
    chosen[(per_component[of_candidate] == 1) & (width >= 2)] = True
    hard = np.nonzero(per_component[of_candidate] >= 2)[0]
    if len(hard):
        hard = _small_components(hard, of_candidate, units, rows, disorders, chosen, searched)
    if len(hard):
        hard = _searched_partition(continuum, hard, of_candidate, rows, units, disorders, chosen, states)
    if len(hard):
        from scipy.sparse import csr_matrix

        links = csr_matrix((np.ones(len(rows)), (units, rows)), shape=(total, len(tuples)))
        chosen[hard[_set_partition(links[:, hard], disorders[hard].astype(np.float64), width[hard], single,
                                   of_candidate[hard])]] = True
    return np.nonzero(chosen)[0]


def _components(total: int, first: np.ndarray, other: np.ndarray) -> np.ndarray:
    """The connected component of each of ``total`` units linked by the edges ``first[k]`` –
    ``other[k]``: the lowest unit of each component (the labels spread along the edges, each
    jumping to its label's label, until nothing changes)."""
    label = np.arange(total, dtype=np.int64)
    while True:
        lower = np.minimum(label[first], label[other])
        spread = label.copy()
        np.minimum.at(spread, first, lower)
        np.minimum.at(spread, other, lower)
        spread = spread[spread]
        if np.array_equal(spread, label):
            return label
        label = spread


SMALL = 12  # components of at most this many units are solved by an exact search here


def _small_components(hard: np.ndarray, of_candidate: np.ndarray, units: np.ndarray, rows: np.ndarray,
                      disorders: np.ndarray, chosen: np.ndarray, searched: int) -> np.ndarray:
    """Every component of at most ``searched`` units solved exactly by a search over the
    partitions of its units (the least total disorder, then the fewest unitary alignments;
    each state, the units covered, solved once), its candidates marked in ``chosen``; the
    candidates of the larger components are returned."""
    members: dict[int, list[int]] = {}
    for candidate in hard.tolist():
        members.setdefault(int(of_candidate[candidate]), []).append(candidate)
    covers: dict[int, list[int]] = {}
    for row, unit in zip(rows.tolist(), units.tolist()):
        covers.setdefault(row, []).append(unit)
    costs = disorders.astype(np.float64).tolist()
    left = []
    for component, candidates in members.items():
        numbers = {unit: k for k, unit in enumerate(sorted({u for c in candidates for u in covers[c]}))}
        if len(numbers) > searched:
            left += candidates
            continue
        by_lowest: dict[int, list] = {}
        for candidate in candidates:
            mask = 0
            for unit in covers[candidate]:
                mask |= 1 << numbers[unit]
            by_lowest.setdefault((mask & -mask).bit_length() - 1, []).append((mask, costs[candidate], candidate))
        full = (1 << len(numbers)) - 1
        solved: dict[int, tuple] = {full: (0.0, 0, None, 0)}

        def best(mask: int) -> tuple:
            found = solved.get(mask)
            if found is not None:
                return found
            free = ~mask & (mask + 1)  # the lowest unit not covered yet
            found = (math.inf, 0, None, 0)
            for candidate_mask, cost, candidate in by_lowest[free.bit_length() - 1]:
                if candidate_mask & mask:
                    continue
                rest = best(mask | candidate_mask)
                total, count = rest[0] + cost, rest[1] + 1
                if found[2] is None or total < found[0] - 1e-9 * max(1.0, found[0]) or (
                        total <= found[0] + 1e-9 * max(1.0, found[0]) and count < found[1]):
                    found = (total, count, candidate, mask | candidate_mask)
            solved[mask] = found
            return found

        mask = 0
        while mask != full:
            _, _, candidate, mask = best(mask)
            chosen[candidate] = True
    return np.array(left, dtype=np.int64)


SEARCH_STATES = 200_000  # a component whose search reaches more states than this goes to HiGHS


def _searched_partition(continuum: Continuum, hard: np.ndarray, of_candidate: np.ndarray, rows: np.ndarray,
                        units: np.ndarray, disorders: np.ndarray, chosen: np.ndarray, states: int) -> np.ndarray:
    """Every component solved exactly by a search, its candidates marked in ``chosen``; the
    candidates of the components whose search reaches more than ``states`` states are
    returned. The units of a component are numbered along the axis (by start, end, annotator);
    a state is the set of units covered, every unit before its first uncovered one among them;
    from each, every candidate that holds that first uncovered unit and no covered one leads on
    (dynamic programming over these states: the least total disorder, then the fewest unitary
    alignments). Candidates hold units close together on the axis, so few units beyond the
    first uncovered one are ever covered and the states stay few."""
    if states <= 0:
        return hard
    sizes = continuum.sizes
    annotator = np.repeat(np.arange(len(sizes)), sizes)
    starts = np.concatenate(continuum.starts)
    ends = np.concatenate(continuum.ends)
    # units numbered within their component along the axis
    component = np.full(len(starts), -1, np.int64)
    in_hard = np.isin(rows, hard)
    component[units[in_hard]] = of_candidate[rows[in_hard]]
    held = np.nonzero(component >= 0)[0]
    order = held[np.lexsort((annotator[held], ends[held], starts[held], component[held]))]
    blocks = component[order]
    first_of_block = np.searchsorted(blocks, blocks, side="left")
    local = np.full(len(starts), -1, np.int64)
    local[order] = np.arange(len(order)) - first_of_block
    # each hard candidate: its lowest unit and its units as bits from there, grouped by component
    hard_rows = rows[in_hard]
    bits = local[units[in_hard]]
    lowest = np.full(len(disorders), np.iinfo(np.int64).max, np.int64)
    np.minimum.at(lowest, hard_rows, bits)
    masks: dict[int, int] = {}
    for row, bit in zip(hard_rows.tolist(), (bits - lowest[hard_rows]).tolist()):
        masks[row] = masks.get(row, 0) | 1 << bit
    groups: dict[int, dict[int, list]] = {}  # component → lowest unit → its candidates
    for candidate, group, first, cost in zip(hard.tolist(), of_candidate[hard].tolist(), lowest[hard].tolist(),
                                            disorders[hard].astype(np.float64).tolist()):
        groups.setdefault(group, {}).setdefault(first, []).append((masks[candidate], cost, candidate))
    left = []
    for options in groups.values():
        # every unit of the component is the lowest of one candidate at least: itself alone
        picked = _search(options, len(options), states)
        if picked is None:
            left += [candidate for leading in options.values() for _, _, candidate in leading]
        else:
            chosen[picked] = True
    return np.array(left, dtype=np.int64)


def _search(options: dict[int, list], units: int, most: int) -> list[int] | None:
    """The candidates of the best partition of ``units`` units numbered along the axis, or
    ``None`` past ``most`` states. ``options``: by lowest unit, the candidates that hold it
    (their units as bits from it, their cost, their index). A state is ``(k, covered)``: ``k``
    the first uncovered unit, ``covered`` the units covered from ``k`` on as bits from ``k``
    (bit 0 clear); the states of one ``k`` are settled before any later one is reached from them."""
    reached: list[dict] = [{} for _ in range(units + 1)]
    reached[0][0] = (0.0, 0, None, None)  # total cost, unitary alignments, previous state, candidate taken
    states = 0
    for k in range(units):
        here = reached[k]
        states += len(here)
        if states > most:
            return None
        leading = options[k]
        for covered, (cost, count, _, _) in here.items():
            for mask, own, candidate in leading:
                if mask & covered:
                    continue
                after = covered | mask
                shift = (~after & (after + 1)).bit_length() - 1  # the units now covered from k on
                target = reached[k + shift]
                key = after >> shift
                total = cost + own
                known = target.get(key)
                if known is None:
                    target[key] = (total, count + 1, (k, covered), candidate)
                    continue
                tolerance = 1e-9 * known[0] if known[0] > 1.0 else 1e-9
                if total < known[0] - tolerance or (total <= known[0] + tolerance and count + 1 < known[1]):
                    target[key] = (total, count + 1, (k, covered), candidate)
    picked = []
    state = reached[units][0]
    while state[3] is not None:
        picked.append(state[3])
        k, covered = state[2]
        state = reached[k][covered]
    return picked


SCALE = 2.0 ** 20  # costs scaled so that the solvers' absolute tolerances are far below a disorder's precision


def _set_partition(links, costs: np.ndarray, width: np.ndarray, single: float, component: np.ndarray) -> np.ndarray:
    """The columns of ``links`` (units × candidates, ``component``: each one's component of
    units) chosen so that every unit that a column covers is covered once, at the least total
    cost, and with the fewest columns among partitions of that cost.

    The linear relaxation of every component is solved at once (HiGHS); a component whose
    solution is integral has its optimum (the relaxation is a lower bound); the others are
    solved again as one mixed-integer program (HiGHS, no optimality gap). Partitions of the same
    least cost may differ in their number of columns (a pair and a unit alone against three
    units alone and a pair elsewhere), so a second program keeps that least cost (the costs add
    up over the components, so one bound on their sum keeps each at its least) and takes the
    fewest columns: its relaxation, or, where that is fractional, its integer program."""
    from scipy.optimize import linprog

    covered = np.asarray(links.sum(axis=1)).ravel() > 0
    matrix = links[covered].tocsc()
    scaled = costs * SCALE
    relaxed = linprog(scaled, A_eq=matrix, b_eq=np.ones(matrix.shape[0]), bounds=(0, 1), method="highs")
    chosen = np.zeros(len(costs), bool)
    if relaxed.x is None:  # cannot happen: every unit alone is a partition
        raise RuntimeError(f"no best alignment found: {relaxed.message}")
    fractional = np.minimum(relaxed.x, 1 - relaxed.x) > 1e-9
    unsure = np.isin(component, component[fractional])
    chosen[~unsure] = relaxed.x[~unsure] > 0.5
    if unsure.any():
        columns = np.nonzero(unsure)[0]
        part = matrix[:, columns]
        part = part[np.asarray(part.sum(axis=1)).ravel() > 0]
        chosen[columns[_integer_partition(part, scaled[columns])]] = True
    least = float(scaled[chosen].sum())
    bound = least + 1e-9 * max(1.0, least)
    fewest = linprog(np.ones(len(costs)), A_ub=scaled.reshape(1, -1), b_ub=[bound], A_eq=matrix,
                     b_eq=np.ones(matrix.shape[0]), bounds=(0, 1), method="highs")
    if fewest.x is not None and not (np.minimum(fewest.x, 1 - fewest.x) > 1e-9).any():
        return fewest.x > 0.5
    return _integer_partition(matrix, np.ones(len(costs)), (scaled, bound))


def _integer_partition(matrix, objective: np.ndarray, at_most=None) -> np.ndarray:
    """The exact set-partitioning program (HiGHS's branch and cut, no optimality gap);
    ``at_most``: ``(costs, bound)``, a cost the partition must not exceed."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    constraints = [LinearConstraint(matrix, 1, 1)]
    if at_most is not None:
        constraints.append(LinearConstraint(at_most[0].reshape(1, -1), -np.inf, at_most[1]))
    result = milp(objective, integrality=np.ones(len(objective)), bounds=Bounds(0, 1), constraints=constraints,
                  options={"mip_rel_gap": 0})
    if result.x is None:  # cannot happen: every unit alone is a partition
        raise RuntimeError(f"no best alignment found: {result.message}")
    return result.x > 0.5


# ---------------------------------------------------------------------------------------------
# the samplers (pygamma's, drawing what it draws from numpy's legacy generator)


class StatisticalSampler:
    """pygamma's ``StatisticalContinuumSampler``: per annotator, a number of units, then each
    unit's gap from the previous one, its duration and its category drawn from the document's
    means and standard deviations (and the categories' frequencies)."""

    def __init__(self, continuum: Continuum):
        gaps = [0.0]
        durations = []
        counts = np.zeros(len(continuum.labels))
        for own in continuum.units:
            for k, (start, end, _) in enumerate(own):
                if k:
                    gaps.append(start - own[k - 1][1])
                durations.append(end - start)
        for own in continuum.units:
            if own and own[0][0] > 0:
                gaps.append(own[0][0])
        for categories in continuum.categories:
            np.add.at(counts, categories, 1)
        self.gap = (float(np.mean(gaps)), float(np.std(gaps)))
        self.duration = (float(np.mean(durations)), float(np.std(durations)))
        sizes = continuum.sizes
        self.count = (float(np.mean(sizes)), float(np.std(sizes)))
        self.labels = continuum.labels
        weights = counts / continuum.total
        self.cumulative = weights.cumsum()
        self.cumulative /= self.cumulative[-1]
        self.annotators = continuum.annotators

    def sample(self, random: np.random.RandomState) -> Continuum:
        """A continuum drawn as pygamma draws it from ``random`` (which is left where
        pygamma's draws leave it)."""
        draws = LegacyDraws(random)
        units: list[list] = []
        anything = False
        for _ in range(self.annotators):
            count = abs(int(draws.normal(*self.count)))
            if not anything:
                count = max(1, count)
            own = self._drawn_at_once(draws, count)
            if own is None:
                own = self._drawn_one_by_one(draws, count)
            anything = anything or bool(own)
            units.append(own)
        draws.close()
        return Continuum(units, self.labels)

    def _drawn_one_by_one(self, draws: "LegacyDraws", count: int) -> list:
        """One annotator's ``count`` units, drawn as pygamma draws them: a gap, a duration (again
        while shorter than :data:`SEGMENT_PRECISION`) and a category per unit."""
        normal, uniform = draws.normal, draws.uniform
        cumulative = self.cumulative.tolist()
        own = []
        last = 0.0
        for _ in range(count):
            start = last + normal(*self.gap)
            end = start + abs(normal(*self.duration))
            while end - start < SEGMENT_PRECISION:
                end = start + abs(normal(*self.duration))
            # numpy's choice(p=...): one uniform draw looked up in the cumulative weights
            own.append((start, end, self.labels[bisect_right(cumulative, uniform())]))
            last = end
        return own

    def _drawn_at_once(self, draws: "LegacyDraws", count: int) -> list | None:
        """The same units from draws made at once (:meth:`LegacyDraws.triples`), the starts and
        ends added up in the same order; ``None`` (nothing drawn) when a duration would have to
        be drawn again."""
        if count == 0:
            return []
        found = draws.triples(count)
        if found is None:
            return None
        gaps, durations, uniforms, after = found
        steps = np.empty(2 * count)
        steps[0::2] = self.gap[0] + self.gap[1] * gaps
        steps[1::2] = np.abs(self.duration[0] + self.duration[1] * durations)
        steps[0] += 0.0  # as 0.0 + gap: no negative zero
        bounds = np.cumsum(steps)  # sequential: start = last + gap, end = start + duration
        starts, ends = bounds[0::2], bounds[1::2]
        if ((ends - starts) < SEGMENT_PRECISION).any():
            return None
        draws.move_to(after)
        categories = np.searchsorted(self.cumulative, uniforms, side="right").tolist()
        labels = self.labels
        return [(start, end, labels[k]) for start, end, k in zip(starts.tolist(), ends.tolist(), categories)]


class LegacyDraws:
    """numpy's legacy generator's scalar ``normal`` and ``random_sample`` (what pygamma's
    sampler calls), replayed in Python from doubles drawn in bulk: both take the generator's
    doubles in turn, ``random_sample`` one, ``normal`` a pair or more (the polar method,
    ``loc + scale · x₂ · f``, keeping ``x₁ · f`` for the next call). Calling numpy once per draw
    costs more than the draw. :meth:`close` leaves ``random`` exactly where those scalar calls
    would have. ``chunk``: how many doubles are drawn at a time.

    Examples
    --------
    >>> draws = LegacyDraws(np.random.RandomState(3))
    >>> mine = [draws.normal(1.0, 2.0), draws.uniform(), draws.normal(0.0, 1.0)]
    >>> draws.close()
    >>> random = np.random.RandomState(3)
    >>> mine == [random.normal(1.0, 2.0), random.random_sample(), random.normal(0.0, 1.0)]
    True
    """

    def __init__(self, random: np.random.RandomState, chunk: int = 8192):
        self.random = random
        self.chunk = chunk
        self.state = random.get_state()
        self.cached = float(self.state[4]) if self.state[3] else None
        self.array = np.empty(0)
        self.doubles: list[float] = []
        self.at = 0
        self.drawn = 0

    def _ahead(self, wanted: int) -> None:
        """At least ``wanted`` doubles ready from :attr:`at` on."""
        if len(self.doubles) - self.at >= wanted:
            return
        more = max(self.chunk, wanted)
        self.array = np.concatenate([self.array[self.at:], self.random.random_sample(more)])
        self.doubles = self.array.tolist()
        self.drawn += more
        self.at = 0

    def uniform(self) -> float:
        """``random_sample()``: the next double in ``[0, 1)``."""
        if self.at == len(self.doubles):
            self._ahead(1)
        self.at += 1
        return self.doubles[self.at - 1]

    def normal(self, loc: float, scale: float) -> float:
        """``normal(loc, scale)``, as numpy's ``legacy_gauss`` computes it."""
        if self.cached is not None:
            gauss, self.cached = self.cached, None
            return loc + scale * gauss
        doubles, at = self.doubles, self.at
        while True:
            if at + 2 <= len(doubles):
                x1 = 2.0 * doubles[at] - 1.0
                x2 = 2.0 * doubles[at + 1] - 1.0
                at += 2
            else:  # across two chunks
                self.at = at
                x1 = 2.0 * self.uniform() - 1.0
                x2 = 2.0 * self.uniform() - 1.0
                doubles, at = self.doubles, self.at
            r2 = x1 * x1 + x2 * x2
            if r2 < 1.0 and r2 != 0.0:
                break
        self.at = at
        f = math.sqrt(-2.0 * math.log(r2) / r2)
        self.cached = f * x1
        return loc + scale * (f * x2)

    def triples(self, count: int):
        """``count`` times ``(normal(0, 1), normal(0, 1), random_sample())`` as the scalar calls
        would give them, as three arrays, and where the draws are then (for :meth:`move_to`,
        which takes them); ``None`` when they run past the doubles drawn ahead.

        Each triple takes one accepted pair of the polar method (the rejected pairs before it
        skipped) and one double: the first normal is the one kept from before (or the pair's
        second value), the second the pair's (or the value it keeps), so the pairs are found
        at once and their values computed together (``log`` as the scalar draws take it)."""
        self._ahead(4 * count + 64)
        window = self.array[self.at:]
        x = 2.0 * window - 1.0
        r2 = x[:-1] * x[:-1] + x[1:] * x[1:]  # the pair at each position
        pairs = len(r2)
        accepted = np.where((r2 < 1.0) & (r2 != 0.0), np.arange(pairs), pairs)
        following = np.empty(pairs, np.int64)  # the first accepted pair from each position, in steps of 2
        for parity in (0, 1):
            following[parity::2] = np.minimum.accumulate(accepted[parity::2][::-1])[::-1]
        following = following.tolist()
        taken = []
        at = 0
        for _ in range(count):
            if at >= pairs:
                return None
            pair = following[at]
            taken.append(pair)
            at = pair + 3  # the pair, then one double
        if at > len(window):
            return None
        taken = np.array(taken)
        squares = r2[taken]
        factor = np.sqrt(-2.0 * np.array([math.log(r) for r in squares.tolist()]) / squares)
        kept, given = factor * x[taken], factor * x[taken + 1]
        uniforms = window[taken + 2]
        if self.cached is None:
            return given, kept, uniforms, (self.at + at, None)
        first = np.concatenate([[self.cached], kept[:-1]])
        return first, given, uniforms, (self.at + at, float(kept[-1]))

    def move_to(self, where) -> None:
        """Take the draws :meth:`triples` made."""
        self.at, self.cached = where

    def close(self) -> None:
        """Put ``random`` where the scalar draws would have left it: the doubles taken, the
        Gaussian kept."""
        random = self.random
        random.set_state(self.state)
        used = self.drawn - (len(self.doubles) - self.at)
        if used:
            random.random_sample(used)
        state = random.get_state()
        random.set_state((*state[:3], int(self.cached is not None), self.cached or 0.0))


class ShuffleSampler:
    """pygamma's ``ShuffleContinuumSampler`` (the gamma paper's, section 5.2): for each annotator
    of the sample, one annotator's units shifted by a whole-number pivot drawn away from the
    pivots already drawn, wrapping around the continuum's bounds."""

    def __init__(self, continuum: Continuum):
        self.continuum = continuum
        starts = [u[0] for own in continuum.units for u in own]
        ends = [u[1] for own in continuum.units for u in own]
        self.low, self.high = min([0.0, *starts]), max([0.0, *ends])
        self.spacing = (sum(e - s for s, e in zip(starts, ends)) / len(starts)) / 2
        self.labels = continuum.labels

    @staticmethod
    def _without(pivot: float, segments: list, dist: float) -> list:
        kept = []
        while segments:
            start, end = segments.pop()
            if start >= pivot - dist:
                if end > pivot + dist:
                    kept.append((pivot + dist, end))
            else:
                kept.append((start, pivot - dist))
                if end > pivot + dist:
                    kept.append((pivot + dist, end))
        return kept

    @staticmethod
    def _pivot(random, segments: list) -> float:
        weights = np.array([end - start for start, end in segments], dtype=np.float64)
        weights /= np.sum(weights)
        try:
            start, end = segments[random.choice(len(segments), p=weights)]
        except ValueError:
            return 1
        return int(random.uniform(start, end))

    def sample(self, random: np.random.RandomState) -> Continuum:
        n = self.continuum.annotators
        low, high = self.low, self.high
        while True:
            segments = [(low, high)]
            drawn = {}
            for index in range(n):
                if segments:
                    pivot = self._pivot(random, segments)
                    segments = self._without(pivot, segments, self.spacing)
                else:
                    pivot = random.uniform(low, high)
                chosen = self.continuum.units[random.choice(n)]
                drawn[f"Sampled_annotation {index}"] = [
                    (s + pivot + low - high, e + pivot + low - high, label) if s + pivot > high
                    else (s + pivot, e + pivot, label) for s, e, label in chosen]
            if any(drawn.values()):
                return Continuum([drawn[name] for name in sorted(drawn)], self.labels)


SAMPLER_CLASSES = {"statistical": StatisticalSampler, "shuffle": ShuffleSampler}


# ---------------------------------------------------------------------------------------------
# γ-cat and γ-k's disorders


def categorical_disorders(continuum: Continuum, alignment: BestAlignment, settings: GammaSettings) -> dict:
    """pygamma's ``gamma_k_disorder`` of the alignment for γ-cat (key ``None``) and for each
    category (its label): each pair of units of a unitary alignment weighted by
    ``max(0, 1 − α·positional) / (units − 1)``, its categorical dissimilarity averaged; a unit
    facing no unit adds ``δ∅²`` over a weight of ``δ∅``. Computed in double precision (pygamma
    adds in single precision)."""
    n = continuum.annotators
    sizes = continuum.sizes
    tuples = alignment.tuples
    delta = settings.delta_empty
    real = tuples != np.array(sizes)
    width = real.sum(axis=1)
    base = np.where(width < 2, 0.0, 1.0 / np.maximum(width - 1, 1))
    cats = [np.where(real[:, a], continuum.categories[a][np.minimum(tuples[:, a], sizes[a] - 1)], -1)
            if sizes[a] else np.full(len(tuples), -1) for a in range(n)]
    parts = []  # per pair of annotators: both units' categories, which tuples have one or both, d and weights
    for i in range(n):
        for j in range(i + 1, n):
            both = real[:, i] & real[:, j]
            one = real[:, i] ^ real[:, j]
            disorder = np.zeros(len(tuples))
            weight = np.zeros(len(tuples))
            disorder[one] = delta * delta
            weight[one] = delta
            if both.any():
                ui, uj = tuples[both, i], tuples[both, j]
                si, ei = continuum.starts[i][ui], continuum.ends[i][ui]
                sj, ej = continuum.starts[j][uj], continuum.ends[j][uj]
                dist = (np.abs(si - sj) + np.abs(ei - ej)) / ((ei - si) + (ej - sj))
                confidence = np.maximum(0.0, 1 - settings.alpha * (dist * dist * delta))
                w = base[both] * confidence
                disorder[both] = (cats[i][both] != cats[j][both]) * delta * w
                weight[both] = w
            parts.append((cats[i], cats[j], one, both, disorder, weight))
    found = {}
    for category in [None, *range(len(continuum.labels))]:
        total = weight_sum = 0.0
        no_category, no_pair = True, True
        for ci, cj, one, both, disorder, weight in parts:
            seen = np.ones(len(ci), bool) if category is None else (ci == category) | (cj == category)
            counted = (one | both) & seen
            no_category = no_category and not seen.any()
            no_pair = no_pair and not (counted & both).any()
            total += float(disorder[counted].sum())
            weight_sum += float(weight[counted].sum())
        if no_pair:
            value = 1.0 if no_category else 0.0
        else:
            value = 0.0 if total == 0 else total / weight_sum
        found[None if category is None else continuum.labels[category]] = value
    return found


# ---------------------------------------------------------------------------------------------
# a document's γ, and the tally that adds documents up

CONFIDENCE = 1.96  # pygamma's precision rule: 95% confidence


@dataclass
class DocumentGamma:
    """One document's γ figures: its ``weight`` (mean number of units per annotator), the best
    alignment's ``disorder`` and ``alignments``, the sampled continua's disorders (``sampled``),
    and the categorical disorders (γ-cat: key ``None``; γ-k: each label) of the best alignment
    (``categorical``) and of each sample (``sampled_categorical``), its labels and its ``units``."""

    weight: float
    disorder: float
    alignments: int
    sampled: list
    categorical: dict
    sampled_categorical: list
    labels: list = field(default_factory=list)
    units: int = 0

    @property
    def expected(self) -> float:
        """The mean of the samples' disorders (in single precision, as pygamma's)."""
        return float(np.mean(np.array(self.sampled, dtype=np.float32)))

    def expected_categorical(self, key) -> float:
        return float(np.mean(np.array([found[key] for found in self.sampled_categorical])))


def document_gamma(continuum: Continuum, settings: GammaSettings,
                   samples: list[Continuum] | None = None) -> DocumentGamma | None:
    """One document's γ figures (``None`` for a document without units). ``samples``: the
    sampled continua, drawn here when not given (``settings``' sampler, seeded with its seed,
    as pygamma draws them after ``numpy.random.seed``)."""
    if continuum.total == 0 or continuum.annotators < 2:
        return None
    best = best_alignment(continuum, settings)
    categorical = categorical_disorders(continuum, best, settings)
    sampled, sampled_categorical = [], []

    def add(sample: Continuum) -> None:
        alignment = best_alignment(sample, settings)
        sampled.append(alignment.disorder)
        found = categorical_disorders(sample, alignment, settings)
        sampled_categorical.append({None: found[None], **{label: found.get(label, 1.0) for label in continuum.labels}})

    if samples is None:
        sampler = SAMPLER_CLASSES[settings.sampler](continuum)
        random = np.random.RandomState(settings.seed)
        for _ in range(settings.samples):
            add(sampler.sample(random))
        if settings.precision is not None:
            variation = np.std(sampled) / np.mean(sampled)
            required = int(np.ceil((variation * CONFIDENCE / settings.precision) ** 2))
            for _ in range(required - settings.samples):
                add(sampler.sample(random))
    else:
        for sample in samples:
            add(sample)
    return DocumentGamma(continuum.total / continuum.annotators, best.disorder, len(best.tuples), sampled,
                         categorical, sampled_categorical, list(continuum.labels), continuum.total)


def _ratio(observed: float, expected: float, *, zero_expected: float) -> float:
    if observed == 0:
        return 1.0
    if expected == 0:
        return zero_expected
    return 1 - observed / expected


def gamma_figures(documents: list, settings: GammaSettings) -> dict:
    """γ, γ-cat and γ-k of documents (one: pygamma's figures for its continuum), with the
    observed and expected disorders, the unitary alignments, the sampling's spread and the
    settings (see the module's docstring for how documents add up; ``None`` entries, documents
    without units, are skipped)."""
    return {**_figures([d for d in documents if d is not None]), **settings.as_dict()}


def document_figures(document: DocumentGamma | None) -> dict:
    """One document's figures (``by_document.<id>.gamma``): as :func:`gamma_figures`, without
    the settings."""
    return _figures([document] if document is not None else [])


def _figures(documents: list[DocumentGamma]) -> dict:
    if not documents:
        return {"gamma": None, "gamma_cat": None, "gamma_k": {}, "disorder": None, "expected_disorder": None,
                "expected_disorder_se": None, "alignments": 0, "units": 0, "samples": 0, "documents": 0}
    weights = [d.weight for d in documents]
    total = sum(weights)

    def weighted(values: list[float], own: list[float]) -> float:
        if len(values) == 1:
            return values[0]
        return sum(w * v for w, v in zip(own, values)) / sum(own)

    observed = weighted([d.disorder for d in documents], weights)
    expected = weighted([d.expected for d in documents], weights)
    spread = math.sqrt(sum(w * w * float(np.var(d.sampled)) / len(d.sampled) for w, d in zip(weights, documents)))

    def categorical(key, zero_expected: float) -> float | None:
        having = [(w, d) for w, d in zip(weights, documents) if key is None or key in d.labels]
        own = [w for w, _ in having]
        return _ratio(weighted([d.categorical[key] for _, d in having], own),
                      weighted([d.expected_categorical(key) for _, d in having], own), zero_expected=zero_expected)

    labels = sorted({label for d in documents for label in d.labels})
    return {
        "gamma": _ratio(observed, expected, zero_expected=float("nan")),
        "gamma_cat": categorical(None, 0.0),
        "gamma_k": {label: categorical(label, float("nan")) for label in labels},
        "disorder": observed,
        "expected_disorder": expected,
        "expected_disorder_se": spread / total,
        "alignments": sum(d.alignments for d in documents),
        "units": sum(d.units for d in documents),
        "samples": sum(len(d.sampled) for d in documents),
        "documents": len(documents),
    }


def gamma_settings(options) -> GammaSettings:
    """The :class:`GammaSettings` of a run's options (``gamma_*`` and ``seed``; a seed is drawn
    when none is given, and reported)."""
    seed = options.seed if options.seed is not None else int(np.random.SeedSequence().entropy % 2 ** 32)
    precision = options.gamma_precision
    if isinstance(precision, str):
        precision = PRECISION_LEVELS[precision]
    return GammaSettings(float(options.gamma_alpha), float(options.gamma_beta), float(options.gamma_delta_empty),
                         options.gamma_sampler, int(options.gamma_samples), precision, seed)


def check_gamma_options(options) -> None:
    """The γ settings checked before anything is read (:class:`~spanagree.errors.UsageError`)."""
    from ..errors import UsageError

    if options.gamma_sampler not in SAMPLERS:
        raise UsageError(f"unknown γ sampler {options.gamma_sampler!r}; choose one of: {', '.join(SAMPLERS)}",
                         option="gamma_sampler")
    if int(options.gamma_samples) < 1:
        raise UsageError("{option} must be at least 1", option="gamma_samples")
    for name in ("gamma_alpha", "gamma_beta"):
        if not float(getattr(options, name)) >= 0:
            raise UsageError("{option} must be at least 0", option=name)
    if not float(options.gamma_delta_empty) > 0:
        raise UsageError("{option} must be above 0", option="gamma_delta_empty")
    precision = options.gamma_precision
    if precision is not None and precision not in PRECISION_LEVELS and not (
            not isinstance(precision, str) and 0 < float(precision) < 1):
        raise UsageError("{option} is high, medium, low or a number between 0 and 1 (exclusive)",
                         option="gamma_precision")
    if options.seed is not None and not 0 <= options.seed < 2 ** 32:
        raise UsageError("{option} must be between 0 and 2**32 − 1 for γ (numpy's legacy seeding)", option="seed")


class GammaTally:
    """Each document's :class:`DocumentGamma` by id, in document order; adds up with ``+=``."""

    def __init__(self):
        self.documents: dict = {}

    def __iadd__(self, other: "GammaTally") -> "GammaTally":
        self.documents.update(other.documents)
        return self

    def __getstate__(self):
        return self.documents

    def __setstate__(self, state):
        self.documents = state
