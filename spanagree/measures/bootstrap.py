"""Percentile bootstrap intervals for F1 (= PSA), precision and recall, resampling documents.

Documents are the independent units (spans within a document are not), so a resample draws as
many documents as the corpus has, with replacement, from ``numpy.random.default_rng(seed)``;
each pair's a, b, c are summed over the drawn documents (pooled counts, as in the point
estimate) and its precision ``a/(a+b)``, recall ``a/(a+c)`` and F1 ``2a/(2a+b+c)`` recomputed
(all resamples at once, by the registry's implementations: :mod:`spanagree.measures.registry`);
the mean pairwise F1 is recomputed in each resample too (over the pairs whose F1 is defined).
The interval is the ``(1 − level)/2`` and ``(1 + level)/2`` percentiles (numpy's linear
interpolation) of the resampled values — the percentile interval of Efron & Tibshirani (1993,
§13.3). A resample where a figure is undefined (0/0) is left out for that figure, and the number
left out is reported. With fewer than two documents there is nothing to resample: no interval,
and a warning.

The percentile interval describes how much the figure would vary over corpora of documents like
these; it does not cover disagreement that every document shares, and with few documents it is
too narrow.

References
----------
Efron B, Tibshirani RJ (1993). An Introduction to the Bootstrap. Chapman & Hall, ch. 13.
"""

from __future__ import annotations

import warnings
from typing import Mapping, Sequence

from ..errors import SpanagreeWarning, UsageError, find_stack_level
from .registry import MEASURES as REGISTRY

MEASURES = ("f1", "precision", "recall")  # keys of the registry's measures given an interval
CHUNK_CELLS = 1 << 21  # resamples × documents drawn at once (bounds memory, not results)


def bootstrap_intervals(per_document, *, n: int = 1000, seed: int | None = None, level: float = 0.95,
                        pairs: Sequence | None = None, mean: bool = True, unit: str = "document",
                        documents: int | None = None) -> dict:
    """Percentile intervals of each pair's F1, precision and recall, and of the mean pairwise F1.

    Parameters
    ----------
    per_document : sequence or mapping
        ``per_document[doc][pair] = (a, b, c)``: each document's counts for each pair (a mapping
        of document id to that list is accepted too).
    n : int
        Number of resamples (at least 1; 1000 or more for a 95% interval).
    seed : int, optional
        Seed of ``numpy.random.default_rng``. Without one a seed is drawn and reported, so the run
        can be repeated.
    level : float
        Coverage of the interval, in (0, 1) (default 0.95: the 2.5th and 97.5th percentiles).
    pairs : sequence, optional
        A name for each pair (e.g. ``["ann1", "ann2"]``), copied into the result.
    mean : bool
        Also give the interval of the mean pairwise F1 (``False`` for ``score``, where the pair
        is a prediction and its gold).
    unit : {"document", "sentence"}
        What a row of ``per_document`` is: a document, or a sentence (``--unit sentence``:
        sentences are resampled; ``documents`` then gives how many documents they come from).

    Returns
    -------
    dict
        ``method``, ``level``, ``n``, ``seed``, ``documents``; ``pairs``: per pair
        ``{"f1": [lo, hi], "precision": [lo, hi], "recall": [lo, hi], "undefined": {measure:
        resamples left out}}``; ``mean_f1``: ``[lo, hi]`` (``None`` when ``mean`` is false) and
        ``mean_f1_undefined``. With fewer than two documents ``pairs`` and ``mean_f1`` are
        ``None`` and ``reason`` says why. An interval is ``None`` when every resample left the
        figure undefined.

    Examples
    --------
    >>> docs = [[(8, 1, 1)], [(5, 0, 2)], [(9, 2, 0)], [(4, 1, 1)]]
    >>> result = bootstrap_intervals(docs, n=2000, seed=1)
    >>> lo, hi = result["pairs"][0]["f1"]
    >>> bool(lo < 2 * 26 / (2 * 26 + 4 + 4) < hi)
    True
    """
    import numpy as np

    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise UsageError(f"the number of bootstrap resamples must be a positive integer, got {n!r}")
    if not 0 < level < 1:
        raise UsageError(f"the bootstrap level must be in (0, 1), got {level!r}")
    if isinstance(per_document, Mapping):
        per_document = list(per_document.values())
    counts = np.asarray(per_document, dtype=float)
    units = counts.shape[0] if counts.ndim else 0
    if seed is None:
        seed = int(np.random.SeedSequence().entropy)
    result = {"method": "percentile", "resampled": f"{unit}s", "level": level, "n": int(n), "seed": seed,
              "documents": units if unit == "document" or documents is None else documents, "units": units}
    if units < 2:
        warnings.warn(f"bootstrap: {units} {unit}(s): at least two are needed to resample {unit}s; "
                      "no interval", SpanagreeWarning, stacklevel=find_stack_level())
        return {**result, "pairs": None, "mean_f1": None, "reason": f"fewer than two {unit}s"}
    from .significance import warn_few_units

    warn_few_units("bootstrap", units, unit)
    if counts.ndim != 3 or counts.shape[2] != 3:
        raise ValueError("per_document must be documents × pairs × (a, b, c)")
    n_pairs = counts.shape[1]

    sums = resampled_sums(counts, n, np.random.default_rng(seed))  # n × pairs × 3
    a, b, c = sums[..., 0], sums[..., 1], sums[..., 2]
    values = {measure: REGISTRY[measure].compute(a, b, c, None) for measure in MEASURES}  # NaN where 0/0
    tail = (1 - level) / 2 * 100
    entries = []
    for p in range(n_pairs):
        entry = {} if pairs is None else {"annotators": list(pairs[p]) if not isinstance(pairs[p], str) else pairs[p]}
        undefined = {}
        for measure in MEASURES:
            entry[measure], undefined[measure] = percentile_interval(values[measure][:, p], tail)
        entry["undefined"] = undefined
        entries.append(entry)
    result["pairs"] = entries
    if mean:
        f1 = values["f1"]
        defined = ~np.isnan(f1)
        with np.errstate(invalid="ignore"):
            means = np.where(defined.any(axis=1), np.nansum(f1, axis=1) / np.maximum(defined.sum(axis=1), 1), np.nan)
        result["mean_f1"], result["mean_f1_undefined"] = percentile_interval(means, tail)
    else:
        result["mean_f1"], result["mean_f1_undefined"] = None, 0
    skipped = {m: sum(e["undefined"][m] for e in entries) for m in MEASURES}
    if any(skipped.values()) or result["mean_f1_undefined"]:
        parts = [f"{m} {k}" for m, k in skipped.items() if k]
        if result["mean_f1_undefined"]:
            parts.append(f"mean F1 {result['mean_f1_undefined']}")
        warnings.warn("bootstrap: resamples where a figure is undefined (0/0) were left out of its interval: "
                      + ", ".join(parts), SpanagreeWarning, stacklevel=find_stack_level())
    return result


def resampled_sums(counts, n: int, rng):
    """Counts summed over ``n`` resamples of the documents (rows of ``counts``), drawn with replacement.

    Returns an ``n × pairs × 3`` array. Draws ``n × documents`` indices from ``rng`` in order, a
    block of resamples at a time (the block size bounds memory and does not change the draws).
    """
    import numpy as np

    documents = counts.shape[0]
    flat = counts.reshape(documents, -1)
    block = max(1, CHUNK_CELLS // documents)
    parts = []
    for start in range(0, n, block):
        m = min(block, n - start)
        drawn = rng.integers(0, documents, size=(m, documents))
        # how often each document was drawn in each resample, then one matrix product
        weights = np.bincount((drawn + documents * np.arange(m)[:, None]).ravel(), minlength=m * documents)
        parts.append(weights.reshape(m, documents).astype(float) @ flat)
    return np.concatenate(parts).reshape(n, *counts.shape[1:])


def percentile_interval(values, tail: float) -> tuple[list[float] | None, int]:
    """``[lower, upper]`` percentiles of the defined values, and how many were undefined."""
    import numpy as np

    defined = values[~np.isnan(values)]
    undefined = int(values.size - defined.size)
    if defined.size == 0:
        return None, undefined
    lower, upper = np.percentile(defined, [tail, 100 - tail])
    return [float(lower), float(upper)], undefined


def interval_columns(boot: dict, n_pairs: int) -> list[dict]:
    """Per pair, the intervals as flat CSV columns ``f1_low``, ``f1_high``, ... (empty without intervals)."""
    entries = (boot or {}).get("pairs") or [{}] * n_pairs
    rows = []
    for entry in entries:
        row = {}
        for measure in MEASURES:
            bounds = entry.get(measure) or [None, None]
            row[f"{measure}_low"], row[f"{measure}_high"] = bounds
        rows.append(row)
    return rows
