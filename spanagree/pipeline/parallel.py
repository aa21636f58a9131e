"""Splitting work by document across processes (``--jobs N``).

Documents are independent and counts add, so each process aligns a contiguous shard of the
documents and the shards' tallies are added afterwards in document order: per-document counts
are computed whole in one process, per-label counts are exact sums (see
:class:`~spanagree.pipeline.compare.LabelTally`), and per-document results (``each``) are concatenated —
the result is identical to a single process, whatever the number of jobs. Processes are forked,
so the span sets already in memory are shared rather than copied through pickles; only counts
travel back. Where ``fork`` is unavailable the work runs in one process.

Where each document is a file of its own (BRAT), the processes also read their shard
(:func:`map_forked`, used by :func:`~spanagree.agreement.agree_folders`): reading is most of a
run, and spans read before forking would be shared and copied page by page as they are touched.
"""

from __future__ import annotations

import gc
import itertools
from typing import Any, Callable

from .compare import LabelTally, PairCounts, compare_pair
from ..errors import SpanagreeError
from ..match import Alignment, MatchRule
from ..span import SpanSet

#: The work of the forked processes, set just before forking (children inherit it).
_SHARED: tuple | None = None

#: Shards per process: enough to even out documents of unequal size, few enough that the
#: counts sent back stay cheap.
SHARDS_PER_JOB = 4

#: Fewer spans than this per process and a process costs more than it saves (starting one, and
#: the copy-on-write of the pages it touches, take a tenth of a second): fewer processes are used.
MIN_SPANS_PER_JOB = 50_000

#: The same for processes that read their own documents (:func:`~spanagree.agreement.agree_folders`),
#: where spans are not known before reading: fewer documents than this per process, fewer processes.
MIN_DOCUMENTS_PER_JOB = 1_000


def shards(items: list, parts: int) -> list[list]:
    """``items`` cut into at most ``parts`` contiguous, nearly equal pieces.

    Examples
    --------
    >>> shards(list(range(7)), 3)
    [[0, 1, 2], [3, 4], [5, 6]]
    """
    size, extra = divmod(len(items), parts)
    result, start = [], 0
    for k in range(parts):
        end = start + size + (k < extra)
        if end > start:
            result.append(items[start:end])
        start = end
    return result


def compare_all_pairs(spansets: list[SpanSet], documents: list[str], rule: MatchRule, *, jobs: int = 1,
                      pairs: list[tuple[int, int]] | None = None, keep_alignments: bool = False,
                      index: str = "sweep", each: Callable[[str, Alignment], Any] | None = None) -> list[PairCounts]:
    """:func:`~spanagree.pipeline.compare.compare_pair` for every pair of span sets, over ``jobs`` processes.

    Parameters
    ----------
    spansets : list of SpanSet
    documents : list of str
        The documents to align, in order.
    rule : MatchRule
    jobs : int
        Processes to use at most (one per :data:`MIN_SPANS_PER_JOB` spans); 1 (or a platform
        without ``fork``, or ``keep_alignments``) runs in this process. The results are the same
        either way.
    pairs : list of (int, int), optional
        Which span sets to compare (indices); default every pair in order.
    keep_alignments, index, each
        As in :func:`~spanagree.pipeline.compare.compare_pair`.

    Examples
    --------
    >>> from spanagree.span import Span, SpanSet
    >>> a = SpanSet.from_spans("a", [Span(str(d), (0, 5), "PER") for d in range(6)])
    >>> b = SpanSet.from_spans("b", [Span(str(d), (0, 5 + d % 2), "PER") for d in range(6)])
    >>> [p.counts for p in compare_all_pairs([a, b], list(a.documents), MatchRule(), jobs=2)]
    [Counts(a=3.0, b=3.0, c=3.0)]
    """
    if pairs is None:
        pairs = list(itertools.combinations(range(len(spansets)), 2))
    if jobs > 1:
        spans = sum(len(document.spans) for spanset in spansets for document in spanset.documents.values())
        jobs = min(jobs, max(1, len(documents) // 2), max(1, spans // MIN_SPANS_PER_JOB))
    if jobs <= 1 or keep_alignments or not can_fork():
        return [compare_pair(spansets[i], spansets[j], documents, rule, keep_alignments=keep_alignments,
                             index=index, each=each) for i, j in pairs]
    global _SHARED
    _SHARED = (spansets, rule, pairs, index, each)
    # Objects alive now are never garbage: frozen, the children's collector neither scans them nor
    # writes to their pages (which would copy the shared memory page by page).
    frozen = not gc.get_freeze_count()
    if frozen:
        gc.freeze()
    try:
        parts = forked_map(_compare_shard, shards(documents, jobs * SHARDS_PER_JOB), jobs)
    finally:
        _SHARED = None
        if frozen:
            gc.unfreeze()
    return [merge_pair_counts([part[k] for part in parts]) for k in range(len(pairs))]


def map_forked(function: Callable[[Any], Any], items: list, jobs: int) -> list | None:
    """``[function(item) for item in items]`` over ``jobs`` forked processes, in order.

    ``function`` (a closure may do) and what it sees are inherited by the children, not pickled;
    its results are pickled back. ``None`` where ``fork`` is unavailable (the caller then works
    in this process).
    """
    if not can_fork():
        return None
    global _SHARED
    _SHARED = (function,)
    try:
        return forked_map(_call_shared_item, items, jobs)
    finally:
        _SHARED = None


def can_fork() -> bool:
    """Whether processes can be forked here (not on Windows; macOS can, though it defaults to spawn)."""
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def forked_map(function: Callable[[Any], Any], items: list, jobs: int) -> list:
    """``[function(item) for item in items]`` over ``jobs`` forked processes, in order.

    A process that dies (killed, or out of memory) ends the whole map with a
    :class:`~spanagree.errors.SpanagreeError` rather than leaving it waiting for an answer that
    will never come (``concurrent.futures`` notices the death; a ``multiprocessing.Pool`` would not).
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    try:
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            return list(pool.map(function, items))
    except BrokenProcessPool:
        raise SpanagreeError(f"a worker process of --jobs {jobs} ended abruptly (killed, or out of memory?); "
                             "nothing was written; try fewer --jobs") from None


def _call_shared_item(item):
    return _SHARED[0](item)


def _compare_shard(documents: list[str]) -> list[PairCounts]:
    spansets, rule, pairs, index, each = _SHARED
    return [compare_pair(spansets[i], spansets[j], documents, rule, index=index, each=each) for i, j in pairs]


def merge_pair_counts(parts: list[PairCounts]) -> PairCounts:
    """One pair's counts over disjoint shards of documents, from the shards' (in document order)."""
    by_document: dict = {}
    tally = LabelTally()
    each: list | None = None if parts[0].each is None else []
    dup1 = dup2 = 0
    for part in parts:
        by_document.update(part.by_document)
        tally.add(part.tally)
        if each is not None:
            each += part.each
        dup1 += part.duplicates[0]
        dup2 += part.duplicates[1]
    return PairCounts(parts[0].first, parts[0].second, by_document, tally.counts(), (dup1, dup2), None, tally, each)

