"""Splitting work by document across processes (``--jobs N``).

Documents are independent and counts add, so each process aligns a contiguous shard of the
documents and the per-document and per-label counts are summed afterwards: the result is
identical to a single process. Processes are forked, so the span sets already in memory are
shared rather than copied through pickles; where ``fork`` is unavailable the work runs in one
process.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os

from .compare import PairCounts, compare_pair
from .match import MatchRule
from .span import SpanSet

_SHARED: tuple | None = None


def shards(items: list, parts: int) -> list[list]:
    """``items`` cut into at most ``parts`` contiguous, nearly equal pieces."""
    size, extra = divmod(len(items), parts)
    result, start = [], 0
    for k in range(parts):
        end = start + size + (k < extra)
        if end > start:
            result.append(items[start:end])
        start = end
    return result


def compare_all_pairs(spansets: list[SpanSet], documents: list[str], rule: MatchRule, *, jobs: int = 1,
                      pairs: list[tuple[int, int]] | None = None, keep_alignments: bool = False) -> list[PairCounts]:
    """:func:`~spanagree.compare.compare_pair` for every pair of span sets, over ``jobs`` processes."""
    if pairs is None:
        pairs = list(itertools.combinations(range(len(spansets)), 2))
    jobs = min(jobs, max(1, len(documents) // 2))
    if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods() or keep_alignments:
        return [compare_pair(spansets[i], spansets[j], documents, rule, keep_alignments=keep_alignments)
                for i, j in pairs]
    global _SHARED
    _SHARED = (spansets, rule, pairs)
    try:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            parts = pool.map(_compare_shard, shards(documents, jobs * 4))
    finally:
        _SHARED = None
    return [merge_pair_counts([part[k] for part in parts]) for k in range(len(pairs))]


def _compare_shard(documents: list[str]) -> list[PairCounts]:
    spansets, rule, pairs = _SHARED
    return [compare_pair(spansets[i], spansets[j], documents, rule) for i, j in pairs]


def merge_pair_counts(parts: list[PairCounts]) -> PairCounts:
    """Sum the counts of one pair computed on disjoint shards of documents (shard order kept)."""
    by_document, by_label = {}, {}
    dup1 = dup2 = 0
    for part in parts:
        by_document.update(part.by_document)
        for label, counts in part.by_label.items():
            by_label[label] = by_label[label] + counts if label in by_label else counts
        dup1 += part.duplicates[0]
        dup2 += part.duplicates[1]
    return PairCounts(parts[0].first, parts[0].second, by_document, by_label, (dup1, dup2))


def available_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
