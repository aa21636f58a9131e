"""Inter-annotator agreement: every pair of annotators, mean and pooled F1 (= PSA).

For k annotators every pair (in the order given) is aligned on the documents all of them
annotated. Reported, after Hripcsak & Rothschild (2005):

- each pair's a, b, c, precision ``a/(a+b)``, recall ``a/(a+c)`` and F1 ``2a/(2a+b+c)`` (= PSA);
- the **mean pairwise F1** (their average PSA) and its population SD, over pairs with a defined F1;
- the **pooled F1** from the summed a, b, c of all pairs;
- the same per label (labels strict) and per document, and the k×k matrix of pairwise F1.
"""

from __future__ import annotations

import itertools
import math
import os
import types
import warnings
from dataclasses import dataclass, field

from ._version import __version__
from .collector import collector_paused
from .pipeline.compare import (MeanF1, PairCounts, parse_label_list, parse_label_map,
                      select_labels, sorted_labels, warn_duplicates)
from .measures.counts import Counts
from .measures.registry import counts_dict, undefined_rates
from .errors import FormatError, SpanagreeError, SpanagreeWarning, UsageError
from .match import MatchRule
from .pipeline.parallel import compare_all_pairs
from .span import SpanSet
from .texts import reconcile, warn_texts_differ


@dataclass
class Agreement:
    """The result of :func:`agree`. ``to_dict()`` is the JSON contract; ``*_frame()`` give pandas."""

    annotators: list[str]
    documents: list[str]
    rule: MatchRule
    pairs: list[PairCounts]
    options: dict = field(default_factory=dict)
    left_out: dict[str, list[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    extras: dict = field(default_factory=dict)

    @property
    def pooled(self) -> Counts:
        """Summed a, b, c over all pairs."""
        return sum((p.counts for p in self.pairs), Counts())

    @property
    def mean(self) -> MeanF1:
        """Mean pairwise F1 and its population SD (undefined pairs skipped)."""
        return MeanF1.of(p.counts.as_dict()["f1"] for p in self.pairs)

    @property
    def labels(self) -> list[str]:
        return sorted_labels(label for p in self.pairs for label in p.by_label)

    def label_pairs(self, label: str) -> list[Counts]:
        return [p.by_label.get(label, Counts()) for p in self.pairs]

    def document_pairs(self, doc_id: str) -> list[Counts]:
        return [p.by_document[doc_id] for p in self.pairs]

    def matrix(self) -> list[list[float]]:
        """k×k pairwise F1 (1 on the diagonal; symmetric)."""
        index = {name: i for i, name in enumerate(self.annotators)}
        k = len(self.annotators)
        matrix = [[1.0 if i == j else math.nan for j in range(k)] for i in range(k)]
        for pair in self.pairs:
            f1 = pair.counts.as_dict()["f1"]
            i, j = index[pair.first], index[pair.second]
            matrix[i][j] = matrix[j][i] = f1
        return matrix

    def to_dict(self, *, by_document: bool = False) -> dict:
        """The ``--output json`` document (DESIGN.md, "Command line"), NaN as ``None``."""
        mean = self.mean
        pooled = self.pooled
        result = {
            "spanagree": __version__,
            "options": self.options,
            "annotators": self.annotators,
            "documents": len(self.documents),
            "match": self.rule.boundary,
            "labels": self.rule.labels,
            "partial_credit": self.rule.partial_credit,
            "pairs": [pair_dict(p.first, p.second, p.counts) for p in self.pairs],
            "mean_f1": mean.mean,
            "sd_f1": mean.sd,
            "pairs_with_undefined_f1": mean.skipped,
            "pooled_f1": pooled.as_dict()["f1"],
            "pooled": counts_dict(pooled),
            "matrix": {"annotators": self.annotators, "f1": self.matrix()},
            "by_label": {},
            "left_out": self.left_out,
            "notes": self.notes,
        }
        for label in self.labels:
            counts = self.label_pairs(label)
            label_mean = MeanF1.of(c.as_dict()["f1"] for c in counts)
            result["by_label"][label] = {
                "pairs": [pair_dict(p.first, p.second, c) for p, c in zip(self.pairs, counts)],
                "mean_f1": label_mean.mean,
                "sd_f1": label_mean.sd,
                "pairs_with_undefined_f1": label_mean.skipped,
                "pooled_f1": sum(counts, Counts()).as_dict()["f1"],
            }
        if by_document:
            result["by_document"] = {doc_id: self.document_dict(doc_id) for doc_id in self.documents}
        result.update(self.extras)
        return result

    def document_dict(self, doc_id: str) -> dict:
        counts = self.document_pairs(doc_id)
        doc_mean = MeanF1.of(c.as_dict()["f1"] for c in counts)
        return {
            "pairs": [pair_dict(p.first, p.second, c) for p, c in zip(self.pairs, counts)],
            "mean_f1": doc_mean.mean,
            "sd_f1": doc_mean.sd,
            "pairs_with_undefined_f1": doc_mean.skipped,
            "pooled_f1": sum(counts, Counts()).as_dict()["f1"],
        }

    # -- pandas views (imported lazily) ------------------------------------------------------

    def pairs_frame(self):
        """One row per pair: first, second, a, b, c, precision, recall, f1, jaccard."""
        import pandas as pd

        return pd.DataFrame([{"first": p.first, "second": p.second, **counts_dict(p.counts)} for p in self.pairs])

    def by_label_frame(self):
        """One row per (label, pair), plus the label's mean and pooled F1."""
        import pandas as pd

        rows = []
        for label in self.labels:
            for pair, counts in zip(self.pairs, self.label_pairs(label)):
                rows.append({"label": label, "first": pair.first, "second": pair.second, **counts_dict(counts)})
        return pd.DataFrame(rows)

    def by_document_frame(self):
        """One row per (document, pair)."""
        import pandas as pd

        rows = []
        for doc_id in self.documents:
            for pair, counts in zip(self.pairs, self.document_pairs(doc_id)):
                rows.append({"document": doc_id, "first": pair.first, "second": pair.second, **counts_dict(counts)})
        return pd.DataFrame(rows)

    def matrix_frame(self):
        """The k×k pairwise F1 matrix as a DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.matrix(), index=self.annotators, columns=self.annotators)


def pair_dict(first: str, second: str, counts: Counts) -> dict:
    return {"annotators": [first, second], **counts_dict(counts)}


def common_documents(spansets: list[SpanSet], *, left_out_of: str = "") -> tuple[list[str], dict[str, list[str]]]:
    """The documents every span set has (in the first's order), and what was left out.

    Documents some annotator lacks are left out with a warning that lists them (``left_out``'s
    ``"not_annotated_by_everyone"``); when no document is shared at all, that is bad input.

    Raises
    ------
    SpanagreeError
        No document is annotated by every annotator (the message gives each one's count).
    """
    shared = set(spansets[0].documents)
    every = set(spansets[0].documents)
    for spanset in spansets[1:]:
        shared &= spanset.documents.keys()
        every |= spanset.documents.keys()
    if not shared:
        raise SpanagreeError("no document is annotated by every annotator: "
                             + "; ".join(f"{s.name} has {len(s.documents)}" for s in spansets))
    documents = [d for d in spansets[0].documents if d in shared]
    partial = sorted(every - shared)
    left_out: dict[str, list[str]] = {}
    if partial:
        warnings.warn(f"{len(partial)} document(s) not annotated by every annotator are left out{left_out_of}: "
                      + ", ".join(partial), SpanagreeWarning, stacklevel=3)
        left_out["not_annotated_by_everyone"] = partial
    return documents, left_out


def unique_names(spansets: list[SpanSet]) -> list[str]:
    """Annotator names, made unique with ``#2``, ``#3`` suffixes where two share a name."""
    names, seen = [], {}
    for spanset in spansets:
        seen[spanset.name] = seen.get(spanset.name, 0) + 1
        names.append(spanset.name if seen[spanset.name] == 1 else f"{spanset.name}#{seen[spanset.name]}")
    return names


def agree(spansets: list[SpanSet], *, match: str = "exact", labels: str = "strict", partial_credit=0.5,
          only=None, label_map=None, align_whitespace: bool = False, options: dict | None = None,
          jobs: int = 1) -> Agreement:
    """Pairwise agreement of two or more annotators.

    Parameters
    ----------
    spansets : list of SpanSet
        At least two annotators' span sets.
    match : {"exact", "overlap", "partial"}
    labels : {"strict", "ignore"}
    partial_credit : float or "dice"
    only : str or list of str, optional
        Compare only these labels (after ``label_map``).
    label_map : mapping or list of "OLD=NEW", optional
        Relabel before matching.
    align_whitespace : bool
        Compare copies of a document that differ only in whitespace (see :mod:`spanagree.texts`).
    jobs : int
        Align documents in this many processes (results are identical).

    Returns
    -------
    Agreement

    Examples
    --------
    >>> from spanagree.span import Span, SpanSet
    >>> ann1 = SpanSet.from_spans("ann1", [Span("d", (0, 5), "PER"), Span("d", (10, 14), "LOC")])
    >>> ann2 = SpanSet.from_spans("ann2", [Span("d", (0, 5), "PER"), Span("d", (10, 15), "LOC")])
    >>> result = agree([ann1, ann2])
    >>> result.pooled, result.mean.mean
    (Counts(a=1.0, b=1.0, c=1.0), 0.5)
    """
    if len(spansets) < 2:
        raise UsageError("agree needs at least two annotators")
    rule = MatchRule(match, labels, partial_credit)
    label_map, only = parse_label_map(label_map), parse_label_list(only)
    names = unique_names(spansets)
    spansets = [renamed(select_labels(s, label_map=label_map, only=only), name) for s, name in zip(spansets, names)]
    documents, left_out = common_documents(spansets)
    reconciled = reconcile(spansets, documents, align_whitespace=align_whitespace)
    if reconciled.left_out:
        left_out["texts_differ"] = reconciled.left_out
    if not reconciled.documents:
        raise SpanagreeError(f"no document left to compare: the texts of all {len(documents)} differ "
                             "beyond whitespace")
    pairs = compare_all_pairs(reconciled.spansets, reconciled.documents, rule, jobs=jobs)
    return finished(names, reconciled.documents, rule, pairs, [s.notes for s in spansets],
                    len(reconciled.whitespace_aligned), left_out,
                    options=options, match=match, labels=labels, only=only, label_map=label_map,
                    align_whitespace=align_whitespace)


def finished(names: list[str], documents: list[str], rule: MatchRule, pairs: list[PairCounts],
             notes: list[list[str]], whitespace_aligned: int, left_out: dict[str, list[str]], *,
             options, match, labels, only, label_map, align_whitespace) -> Agreement:
    """The :class:`Agreement` of compared pairs, with the warnings about them (duplicates, 0/0)."""
    duplicates = duplicates_per_annotator(pairs, len(names))
    for name, count in zip(names, duplicates):
        warn_duplicates(name, count, rule)
    all_notes = [f"{name}: {note}" for name, own in zip(names, notes) for note in own]
    if whitespace_aligned:
        all_notes.append(f"{whitespace_aligned} document(s) compared through their "
                         "non-whitespace characters (texts differ only in whitespace)")
    warn_undefined(pairs)
    # The caller's record of the run (the CLI's arguments) first; the values as understood win.
    opts = {**(options or {}), "match": match, "labels": labels, "partial_credit": rule.partial_credit,
            "only": sorted(only) if only else None, "map": label_map or None,
            "align_whitespace": align_whitespace}
    return Agreement(names, documents, rule, pairs, opts, left_out, all_notes)


def warn_undefined(pairs: list[PairCounts]) -> None:
    """One warning per pair whose precision, recall or F1 is 0/0, and what the mean skips."""
    skipped = 0
    for pair in pairs:
        undefined = undefined_rates(pair.counts)
        if undefined:
            warnings.warn(f"{pair.first} × {pair.second}: {', '.join(undefined)} undefined (0/0), reported as NaN",
                          SpanagreeWarning, stacklevel=3)
        skipped += "F1" in undefined
    if skipped:
        warnings.warn(f"the mean pairwise F1 skips {skipped} of {len(pairs)} pair(s) whose F1 is undefined",
                      SpanagreeWarning, stacklevel=3)


def duplicates_per_annotator(pairs: list[PairCounts], k: int) -> list[int]:
    """Duplicates each annotator had (the same in every pair it is part of)."""
    found = [0] * k
    seen = [False] * k
    for (i, j), pair in zip(itertools.combinations(range(k), 2), pairs):
        if not seen[i]:
            found[i], seen[i] = pair.duplicates[0], True
        if not seen[j]:
            found[j], seen[j] = pair.duplicates[1], True
    return found


def renamed(spanset: SpanSet, name: str) -> SpanSet:
    """A shallow copy of ``spanset`` called ``name`` (the caller's object is left alone)."""
    return SpanSet(name, spanset.documents, list(spanset.notes), spanset.format)


def collect_notes(spansets: list[SpanSet]) -> list[str]:
    return [f"{s.name}: {note}" for s in spansets for note in s.notes]


@dataclass
class _Shard:
    """What a process that read and compared one shard of documents sends back (counts, not spans)."""

    read_warnings: list = field(default_factory=list)   # ((annotator, document index), message, category)
    error: tuple | None = None                           # ((annotator, document index), class, args)
    counts: list = field(default_factory=list)           # per annotator: lines read and not compared
    reconcile_error: tuple | None = None                 # (class, args)
    reconcile_warnings: list = field(default_factory=list)
    documents: list = field(default_factory=list)
    texts_differ: list = field(default_factory=list)
    whitespace_aligned: int = 0
    pairs: list = field(default_factory=list)


def agree_folders(paths: list, *, format: str | None = None, match: str = "exact", labels: str = "strict",
                  partial_credit=0.5, only=None, label_map=None, align_whitespace: bool = False,
                  options: dict | None = None, jobs: int = 2) -> Agreement | None:
    """:func:`agree` on BRAT folders, each of ``jobs`` processes reading its own documents.

    Reading is most of a run; read before forking, it stays in one process, and the forked
    processes then touch (and copy) the shared spans. Here this process only lists each folder's
    files; every process reads one contiguous shard of the documents of every annotator, checks
    their texts, aligns them and sends back counts, warnings and notes. The result, the warnings
    (in the order one process gives them) and the errors are those of ``agree(read(...), ...)``.

    Returns
    -------
    Agreement or None
        ``None`` when this does not apply — not every path a BRAT folder, too few documents for
        two processes (:data:`~spanagree.pipeline.parallel.MIN_DOCUMENTS_PER_JOB`), no ``fork``, or bad
        input found while listing: the caller then reads in this process (and reports the error
        as it would).
    """
    from .pipeline.compare import compare_pair
    from .formats import detect_format
    from .formats.brat import BratFolder, scan_brat
    from .pipeline.parallel import MIN_DOCUMENTS_PER_JOB, SHARDS_PER_JOB, map_forked, merge_pair_counts, shards

    if len(paths) < 2 or jobs < 2:
        return None
    try:
        rule = MatchRule(match, labels, partial_credit)
        label_map, only = parse_label_map(label_map), parse_label_list(only)
        if any((format or detect_format(path)) != "brat" or not os.path.isdir(path) for path in paths):
            return None
        folders = [scan_brat(path) for path in paths]
    except SpanagreeError:
        return None
    names = unique_names(folders)
    with warnings.catch_warnings(record=True) as left_out_warnings:
        warnings.simplefilter("always")
        try:
            common, left_out = common_documents([types.SimpleNamespace(name=name, documents=folder.entries)
                                                 for name, folder in zip(names, folders)])
        except SpanagreeError:
            return None
    every = sorted(set().union(*(folder.entries for folder in folders)))
    jobs = min(jobs, len(every) // MIN_DOCUMENTS_PER_JOB)
    if jobs < 2:
        return None
    common = set(common)
    pairs = list(itertools.combinations(range(len(folders)), 2))
    tasks, start = [], 0
    for shard in shards(every, jobs * SHARDS_PER_JOB):
        tasks.append((start, shard))
        start += len(shard)

    def read_and_compare(task) -> _Shard:
        start, ids = task
        out = _Shard(counts=[BratFolder.new_counts() for _ in folders])
        read: list[dict] = [{} for _ in folders]
        with collector_paused(), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for k, folder in enumerate(folders):
                entries, documents, counts = folder.entries, read[k], out.counts[k]
                for i, doc_id in enumerate(ids, start):
                    if doc_id not in entries:
                        continue
                    try:
                        document = folder.read_document(doc_id, counts)
                    except SpanagreeError as error:
                        out.error = ((k, i), *_portable(error))
                    out.read_warnings += [((k, i), str(w.message), w.category) for w in caught]
                    del caught[:]
                    if out.error:
                        return out
                    if doc_id in common:
                        documents[doc_id] = document
            spansets = [select_labels(SpanSet(name, documents, [], "brat"), label_map=label_map, only=only)
                        for name, documents in zip(names, read)]
            try:
                reconciled = reconcile(spansets, [d for d in ids if d in common], align_whitespace=align_whitespace,
                                       announce=False)  # said once for all shards below
            except SpanagreeError as error:
                out.reconcile_error = _portable(error)
                return out
            out.reconcile_warnings = [(str(w.message), w.category) for w in caught]
            out.documents, out.texts_differ = reconciled.documents, reconciled.left_out
            out.whitespace_aligned = len(reconciled.whitespace_aligned)
            out.pairs = [compare_pair(reconciled.spansets[i], reconciled.spansets[j], reconciled.documents, rule)
                         for i, j in pairs]
        return out

    results = map_forked(read_and_compare, tasks, jobs)
    if results is None:
        return None
    read_warnings = sorted((w for r in results for w in r.read_warnings), key=lambda w: w[0])
    errors = [r.error for r in results if r.error]
    if errors:
        key, cls, args = min(errors, key=lambda e: e[0])
        _warn_again((message, category) for k, message, category in read_warnings if k <= key)
        raise cls(*args)
    _warn_again((message, category) for _, message, category in read_warnings)
    _warn_again((str(w.message), w.category) for w in left_out_warnings)
    for r in results:
        if r.reconcile_error:
            cls, args = r.reconcile_error
            raise cls(*args)
    _warn_again(w for r in results for w in r.reconcile_warnings)
    texts_differ = [d for r in results for d in r.texts_differ]
    if texts_differ:
        warn_texts_differ(texts_differ)
        left_out["texts_differ"] = texts_differ
    documents = [d for r in results for d in r.documents]
    if not documents:
        raise SpanagreeError(f"no document left to compare: the texts of all {len(common)} differ "
                             "beyond whitespace")
    merged = [merge_pair_counts([r.pairs[p] for r in results]) for p in range(len(pairs))]
    notes = []
    for k, folder in enumerate(folders):
        counts = BratFolder.new_counts()
        for r in results:
            for kind, n in r.counts[k].items():
                counts[kind] += n
        notes.append(folder.notes(counts))
    return finished(names, documents, rule, merged, notes, sum(r.whitespace_aligned for r in results), left_out,
                    options=options, match=match, labels=labels, only=only, label_map=label_map,
                    align_whitespace=align_whitespace)


def _portable(error: SpanagreeError) -> tuple:
    """An error as (class, arguments), to be raised again in another process."""
    if isinstance(error, FormatError):
        return type(error), (error.path, error.message, error.line)
    return type(error), (str(error),)


def _warn_again(recorded) -> None:
    for message, category in recorded:
        warnings.warn(message, category, stacklevel=3)
