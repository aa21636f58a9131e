"""Paired significance tests between systems (or pairs of annotators) scored on the same units.

Two systems scored against the same gold differ by ``Δ = m(first) − m(second)`` for a measure
``m`` (F1, precision, recall) of their counts summed over the units (documents, or sentences).
F1 is not a mean over units, so the tests resample units and recompute the measure from the
summed counts, as the point estimate does (Dror et al. 2018 recommend exactly these two for
such measures, where no parametric test applies):

- **approximate randomization** (Noreen 1989; Yeh 2000): under the null hypothesis that the two
  systems are exchangeable, each unit's counts may be swapped between them. ``R`` times, each unit
  is swapped with probability ½ and ``Δ_r`` recomputed; the two-sided p-value is
  ``(r + 1) / (R + 1)`` with ``r`` the number of rounds where ``|Δ_r| ≥ |Δ|`` (the +1 counts the
  observed assignment, so that p is never 0: Noreen 1989, §3);
- **paired bootstrap** (Koehn 2004; Berg-Kirkpatrick et al. 2012): ``B`` resamples of the units
  with replacement, the same units for both systems, give ``Δ*``. The null distribution is the
  resampled one shifted to 0 (Berg-Kirkpatrick et al.'s test of ``Δ* > 2Δ``, made two-sided):
  ``p = (r + 1) / (B + 1)`` with ``r`` the resamples where ``|Δ* − Δ| ≥ |Δ|``.

Whichever the test, the 95% interval of ``Δ`` is the percentile interval of the paired bootstrap
(Efron & Tibshirani 1993, §13.3). Across the pairs compared on one measure, the p-values are
also adjusted by Holm's step-down method (Holm 1979), which controls the family-wise error rate
without assuming independence. Resamples and rounds where a measure is undefined (0/0) are left
out of its figures.

With few units (fewer than :data:`FEW_UNITS`) a warning says what that means for what the run
computes: a bootstrap's intervals are too narrow and unstable; a test's p-values are coarse too
(the randomization test over ``n`` units has at most ``2ⁿ`` distinct swaps).

References
----------
Berg-Kirkpatrick T, Burkett D, Klein D (2012). An empirical investigation of statistical
significance in NLP. EMNLP-CoNLL, 995–1005.
Dror R, Baumer G, Shlomov S, Reichart R (2018). The hitchhiker's guide to testing statistical
significance in natural language processing. ACL, 1383–1392.
Efron B, Tibshirani RJ (1993). An Introduction to the Bootstrap. Chapman & Hall.
Holm S (1979). A simple sequentially rejective multiple test procedure. Scand J Stat 6:65–70.
Koehn P (2004). Statistical significance tests for machine translation evaluation. EMNLP, 388–395.
Noreen EW (1989). Computer-Intensive Methods for Testing Hypotheses. Wiley.
Yeh A (2000). More accurate tests for the statistical significance of result differences. COLING.
"""

from __future__ import annotations

import math
import warnings
from typing import Sequence

from ..errors import Parameter, SpanagreeWarning, UsageError, find_stack_level
from .registry import MEASURES as REGISTRY

#: The tests (``--test``).
TESTS = ("randomization", "bootstrap")
#: What is resampled or swapped (``--unit``).
UNITS = ("document", "sentence")
#: The measures compared, one entry per pair and measure.
COMPARED = ("f1", "precision", "recall")
#: Fewer units than this and the intervals and p-values come with a warning.
FEW_UNITS = 30
#: Resamples × units drawn at once (bounds memory, not results).
CHUNK_CELLS = 1 << 21


def check_test_options(test: str, unit: str, resamples) -> None:
    """``test``, ``unit`` and ``resamples`` must be known choices and a positive whole number."""
    if test not in TESTS:
        raise UsageError(f"unknown test {test!r}; choose one of: {', '.join(TESTS)}", option="test")
    if unit not in UNITS:
        raise UsageError(f"unknown unit {unit!r}; choose one of: {', '.join(UNITS)}", option="unit")
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise UsageError(f"{{option}} must be a whole number, at least 1; got {resamples!r}", option="resamples")


def warn_few_units(what: str | Parameter, units: int, unit: str, test: str | None = None) -> None:
    """The warning for a bootstrap or a test over fewer than :data:`FEW_UNITS` units; ``what``
    (a :class:`~spanagree.errors.Parameter` when it names one) begins it. It speaks of what the
    run computes: ``test=None`` (a bootstrap), intervals; a test (``"randomization"``,
    ``"bootstrap"``: ``compare``), its intervals and p-values, and of the randomization test's swaps
    only when that is the test.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_few_units("bootstrap", 7, "document")
    >>> print(caught[0].message)
    bootstrap: only 7 documents to resample: with fewer than 30 units the intervals are too narrow and unstable; read them with care
    """
    if not 2 <= units < FEW_UNITS:
        return
    if test is None:
        text = f"only {units} {unit}s to resample: with fewer than {FEW_UNITS} units the intervals are too narrow and unstable"
    elif test == "randomization":
        text = (f"only {units} {unit}s to resample and swap: with fewer than {FEW_UNITS} units the intervals are too "
                f"narrow and unstable and the p-values coarse (a randomization test over {units} units has at most "
                f"2^{units} distinct swaps)")
    else:
        text = (f"only {units} {unit}s to resample: with fewer than {FEW_UNITS} units the intervals are too narrow "
                "and unstable and the p-values coarse")
    warnings.warn(SpanagreeWarning(f"{{what}}: {text}; read them with care",
                                   what=what if isinstance(what, Parameter) else Parameter(what, what)),
                  stacklevel=find_stack_level())


def paired_comparisons(unit_counts, names: Sequence[str], *, test: str = "randomization", unit: str = "document",
                       resamples: int = 10_000, seed: int | None = None, level: float = 0.95) -> list[dict]:
    """Every pair of systems compared on every measure of :data:`COMPARED`.

    Parameters
    ----------
    unit_counts : array-like, units × systems × 3
        Each unit's ``(a, b, c)`` for each system (every system scored on the same units).
    names : sequence of str
        The systems' names (a pair of annotators may be named ``"A × B"``).
    test : {"randomization", "bootstrap"}
    unit : {"document", "sentence"}
        What a unit is (echoed in each entry).
    resamples : int
        Rounds of the randomization test, and resamples of the bootstrap (interval and test).
    seed : int, optional
        Seed of ``numpy.random.default_rng``; drawn (and echoed) when not given.
    level : float
        Coverage of the interval.

    Returns
    -------
    list of dict
        The systems ranked by F1 (the summed counts'), every pair ``(first, second)`` with
        ``first`` ranked higher, for each measure: ``first``, ``second``, ``measure``,
        ``difference`` (first − second), ``low``, ``high`` (the interval), ``p_value``,
        ``p_value_holm``, ``test``, ``unit``, ``units``, ``resamples``, ``seed``. With fewer
        than two units the interval and p-values are ``None``.

    Examples
    --------
    Two systems on four units; the first is better on every unit:

    >>> units = [[(9, 1, 1), (7, 3, 3)], [(8, 2, 2), (6, 4, 4)], [(9, 0, 1), (7, 2, 3)], [(8, 1, 2), (6, 3, 4)]]
    >>> found = paired_comparisons(units, ["A", "B"], test="randomization", resamples=2000, seed=1)
    >>> entry = found[0]
    >>> entry["first"], entry["second"], entry["measure"], round(entry["difference"], 4)   # 68/78 − 52/78
    ('A', 'B', 'f1', 0.2051)
    >>> 0.1 < entry["p_value"] < 0.15   # exactly 2 of the 16 swaps are as extreme: p → 0.125
    True
    """
    import numpy as np

    counts = np.asarray(unit_counts, dtype=float)
    if counts.size == 0:  # no unit compared by every system: differences of nothing, no test
        counts = counts.reshape(0, len(names), 3)
    if counts.ndim != 3 or counts.shape[2] != 3:
        raise ValueError("unit_counts must be units × systems × (a, b, c)")
    n_units, n_systems = counts.shape[0], counts.shape[1]
    if seed is None:
        seed = int(np.random.SeedSequence().entropy)
    rng = np.random.default_rng(seed)
    totals = counts.sum(axis=0)  # systems × 3
    f1 = [REGISTRY["f1"].compute(*totals[s], None) for s in range(n_systems)]
    order = sorted(range(n_systems), key=lambda s: (math.isnan(f1[s]), -f1[s] if not math.isnan(f1[s]) else 0, s))
    tail = (1 - level) / 2 * 100
    entries: list[dict] = []
    for i_rank, i in enumerate(order):
        for j in order[i_rank + 1:]:
            found = _compare_two(counts[:, i, :], counts[:, j, :], test, resamples, rng, tail)
            for measure in COMPARED:
                difference, low, high, p = found[measure]
                entries.append({"first": names[i], "second": names[j], "measure": measure, "difference": difference,
                                "low": low, "high": high, "p_value": p, "p_value_holm": None, "test": test,
                                "unit": unit, "units": n_units, "resamples": resamples, "seed": seed})
    for measure in COMPARED:
        own = [e for e in entries if e["measure"] == measure]
        for entry, adjusted in zip(own, holm([e["p_value"] for e in own])):
            entry["p_value_holm"] = adjusted
    entries.sort(key=lambda e: COMPARED.index(e["measure"]))
    return entries


def _compare_two(first, second, test: str, resamples: int, rng, tail: float) -> dict:
    """Per measure: the difference, its interval and the test's p-value for two systems' unit counts."""
    import numpy as np

    n_units = first.shape[0]
    total_first, total_second = first.sum(axis=0), second.sum(axis=0)
    observed = {m: float(_value(m, total_first) - _value(m, total_second)) for m in COMPARED}
    if n_units < 2:
        return {m: (observed[m], None, None, None) for m in COMPARED}
    both = np.concatenate([first, second], axis=1)  # units × 6
    block = max(1, CHUNK_CELLS // n_units)
    boot = []
    for start in range(0, resamples, block):
        m = min(block, resamples - start)
        drawn = rng.integers(0, n_units, size=(m, n_units))
        weights = np.bincount((drawn + n_units * np.arange(m)[:, None]).ravel(), minlength=m * n_units)
        boot.append(weights.reshape(m, n_units).astype(float) @ both)
    boot = np.concatenate(boot)
    deltas_boot = {m: _value(m, boot[:, :3].T) - _value(m, boot[:, 3:].T) for m in COMPARED}
    if test == "randomization":
        gap = second - first  # units × 3: what a swap moves from the first to the second
        swapped = []
        for start in range(0, resamples, block):
            m = min(block, resamples - start)
            swaps = rng.integers(0, 2, size=(m, n_units)).astype(float)
            moved = swaps @ gap  # m × 3
            swapped.append(np.concatenate([total_first + moved, total_second - moved], axis=1))
        swapped = np.concatenate(swapped)
        null = {m: _value(m, swapped[:, :3].T) - _value(m, swapped[:, 3:].T) for m in COMPARED}
    else:
        null = {m: deltas_boot[m] - observed[m] for m in COMPARED}
    result = {}
    for m in COMPARED:
        delta = observed[m]
        interval = deltas_boot[m][~np.isnan(deltas_boot[m])]
        low, high = (float(v) for v in np.percentile(interval, [tail, 100 - tail])) if interval.size else (None, None)
        draws = null[m][~np.isnan(null[m])]
        if math.isnan(delta) or draws.size == 0:
            p = None
        else:
            extreme = int(np.sum(np.abs(draws) >= abs(delta) - 1e-12 * max(1.0, abs(delta))))
            p = (extreme + 1) / (draws.size + 1)
        result[m] = (delta, low, high, p)
    return result


def _value(measure: str, counts):
    """The registry's measure of ``(a, b, c)`` (arrays: a vector per resample), NaN where undefined."""
    a, b, c = counts[0], counts[1], counts[2]
    return REGISTRY[measure].compute(a, b, c, None)


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values (Holm 1979); ``None`` stays ``None``.

    The smallest of the m p-values is multiplied by m, the next by m − 1, and so on, each kept at
    least as large as the one before it and at most 1.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03, None])
    [0.03, 0.06, 0.06, None]
    """
    known = sorted((p, k) for k, p in enumerate(p_values) if p is not None)
    m = len(known)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, k) in enumerate(known):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[k] = running
    return adjusted
