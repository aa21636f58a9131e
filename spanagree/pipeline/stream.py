"""Comparing annotators while their files are read: documents are aligned and dropped in turn.

:func:`agree_streams` and :func:`score_streams` give exactly what :func:`~spanagree.agree` and
:func:`~spanagree.scoring` give on the same inputs read whole (counts, floats to the last bit,
document order, warnings in the same order, the same error), without ever holding the corpus:
each annotator's :class:`~spanagree.formats.DocumentStream` is read a document at a time, in
turn, and a document is compared as soon as every copy it needs has been read, then dropped.
Only counts are kept (per document and per label) and, for ``score``'s error listing, the
error items.

When the files list their documents in the same order (the usual case) a few documents are held
at a time. A document that some annotator lacks waits until that annotator's file ends (it may
come later); files in different orders hold the documents read ahead — memory follows how far
the orders differ, never more than reading the files whole.

How the results stay identical: counts per document are computed whole, one document at a time,
and put back in the reference order at the end (the first annotator's, or the gold's); per-label
counts are exact sums (:class:`~spanagree.pipeline.compare.LabelTally`); warnings are recorded with
where they arose (which annotator's file, which document) and given again at the end in the
order reading everything first would give them; of several errors the one reading everything
first would meet is raised (a reading error before any comparison error).
"""

from __future__ import annotations

import itertools
import types
import warnings
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from operator import itemgetter
from typing import Callable

from ..agreement import Agreement, common_documents, renamed, unique_names
from ..agreement import finished as finished_agreement
from ..collector import collector_paused
from .compare import LabelTally, PairCounts, compare_pair, parse_label_list, parse_label_map, select_labels
from ..errors import SpanagreeError, UsageError
from ..formats import DocumentStream
from ..match import MatchRule
from ..scoring import Score, correct_pairs, error_keys, keys_and_errors
from ..scoring import finished as finished_score
from ..scoring import warn_unmatched
from ..span import Document, SpanSet
from ..texts import Reconciled, reconcile, warn_texts_differ, warn_token_spellings

#: Documents compared together: enough to spread the cost of a call over many, few enough to
#: keep little in memory.
BATCH_DOCUMENTS = 64

_AFTER_ALL = float("inf")


@dataclass
class _Reading:
    """The streams read in turn: each one's ids in reading order, the documents read and not yet
    compared, the warnings (with where they arose) and the first reading error."""

    streams: list[DocumentStream]
    caught: list
    warnings: list = field(default_factory=list)   # ((stream, position), message, category)
    error: tuple | None = None                     # ((stream, position), error)

    def __post_init__(self):
        self.iterators = [iter(stream.documents) for stream in self.streams]
        self.order: list[list[str]] = [[] for _ in self.streams]
        self.pending: list[dict[str, Document]] = [{} for _ in self.streams]
        self.ended = [False] * len(self.streams)

    def next(self, k: int) -> Document | None:
        """Stream ``k``'s next document (also kept in :attr:`pending`), or ``None`` at its end or error.

        Warnings are keyed by ``(k, position)``, those given at the stream's end by ``(k, inf)``.
        """
        key = (k, len(self.order[k]))
        document = None
        try:
            document = next(self.iterators[k])
        except StopIteration:
            self.ended[k] = True
            key = (k, _AFTER_ALL)
        except SpanagreeError as error:
            self.ended[k] = True
            if self.error is None or key < self.error[0]:
                self.error = (key, error)
        if self.caught:
            self.warnings += [(key, str(w.message), w.category) for w in self.caught]
            del self.caught[:]
        if document is not None:
            self.order[k].append(document.id)
            self.pending[k][document.id] = document
        return document

    def read_before_error(self) -> None:
        """Read the streams before the failing one to their end: reading each stream whole, one
        after the other, would meet their errors (and warnings) first."""
        j = 0
        while j < self.error[0][0]:
            while not self.ended[j]:
                document = self.next(j)
                if document is not None:
                    del self.pending[j][document.id]
            j += 1

    def raise_error(self) -> None:
        """Give the warnings given before the error (by reading every stream whole, one after the
        other), then raise it. Call :meth:`read_before_error` first, while warnings are recorded."""
        key, error = self.error
        replay(w for w in self.warnings if w[0] <= key)
        raise error


def replay(recorded) -> None:
    """Warn again, in key order (stable), what was recorded as ``(key, message, category)``."""
    for _, message, category in sorted(recorded, key=itemgetter(0)):
        warnings.warn(message, category, stacklevel=3)


@dataclass
class _Texts:
    """What reconciling the texts did, batch by batch: documents mapped and left out, tokens spelt
    differently, warnings and the first error (both by the document's position)."""

    whitespace_aligned: int = 0
    left_out: set = field(default_factory=set)
    spellings: int = 0
    warnings: list = field(default_factory=list)   # (position, message, category)
    error: tuple | None = None                     # (position, error)

    def reconciled(self, spansets: list[SpanSet], batch: list[str], position: dict[str, int],
                   align_whitespace: bool, caught: list) -> Reconciled:
        """:func:`~spanagree.texts.reconcile` of a batch (sorted by position), its warnings and errors
        recorded by document: the batch is reconciled whole when nothing can go wrong per document,
        otherwise (``align_whitespace``, or an error) one document at a time."""
        if not align_whitespace:
            try:
                result = reconcile(spansets, batch, announce=False)
            except SpanagreeError:
                del caught[:]
            else:
                self.add(result, position[batch[0]] if batch else 0, caught)
                return result
        parts = []
        for doc_id in batch:
            try:
                part = reconcile(spansets, [doc_id], align_whitespace=align_whitespace, announce=False)
            except SpanagreeError as error:
                if self.error is None or position[doc_id] < self.error[0]:
                    self.error = (position[doc_id], error)
                self.add(None, position[doc_id], caught)
                continue
            self.add(part, position[doc_id], caught)
            parts.append(part)
        return joined(spansets, parts)

    def add(self, result: Reconciled | None, position: int, caught: list) -> None:
        if result is not None:
            self.whitespace_aligned += len(result.whitespace_aligned)
            self.left_out.update(result.left_out)
            self.spellings += result.token_spelling_differences
        self.warnings += [(position, str(w.message), w.category) for w in caught]
        del caught[:]

    def announce(self, documents: list[str]) -> list[str]:
        """Give the texts' warnings (raise the error) as reconciling ``documents`` at once would;
        returns the documents left out, in order."""
        replay((p, m, c) for p, m, c in self.warnings if self.error is None or p < self.error[0])
        if self.error is not None:
            raise self.error[1]
        left_out = [d for d in documents if d in self.left_out]
        if left_out:
            warn_texts_differ(left_out)
        if self.spellings:
            warn_token_spellings(self.spellings)
        return left_out


def joined(spansets: list[SpanSet], parts: list[Reconciled]) -> Reconciled:
    """Several one-document reconciliations of ``spansets`` as one."""
    result = Reconciled([SpanSet(s.name, {}, list(s.notes), s.format) for s in spansets], [])
    for part in parts:
        for k, spanset in enumerate(part.spansets):
            for doc_id in part.documents + part.left_out:
                result.spansets[k].documents[doc_id] = spanset.documents[doc_id]
        result.documents += part.documents
        result.whitespace_aligned += part.whitespace_aligned
        result.left_out += part.left_out
        result.token_spelling_differences += part.token_spelling_differences
    return result


@dataclass
class _Compared:
    """One pair's comparison built up batch by batch: per-document counts, the label tally, the
    duplicates and, for ``score``, the error analysis."""

    by_document: dict = field(default_factory=dict)
    tally: LabelTally = field(default_factory=LabelTally)
    duplicates: list = field(default_factory=lambda: [0, 0])
    errors: Counter = field(default_factory=Counter)
    items: dict = field(default_factory=dict)

    def add(self, pair: PairCounts) -> None:
        self.by_document.update(pair.by_document)
        self.tally.add(pair.tally)
        self.duplicates[0] += pair.duplicates[0]
        self.duplicates[1] += pair.duplicates[1]

    def pair(self, first: str, second: str, documents: list[str]) -> PairCounts:
        """The :class:`PairCounts` of the documents compared, in ``documents``' order."""
        by_document = {d: self.by_document[d] for d in documents}
        return PairCounts(first, second, by_document, self.tally.counts(), tuple(self.duplicates), None, self.tally)


def agree_streams(streams: list[DocumentStream], *, match: str = "exact", labels: str = "strict",
                  partial_credit=0.5, only=None, label_map=None, align_whitespace: bool = False,
                  options: dict | None = None) -> Agreement:
    """:func:`~spanagree.agree` of the annotators' streams, read and compared document by document.

    Returns the :class:`~spanagree.agreement.Agreement` (and gives the warnings, and raises the
    error) that ``agree([collect(s) for s in streams], ...)`` would. A document is compared once
    every annotator has given it; those some annotator lacks are left out at the end.
    """
    if len(streams) < 2:
        raise UsageError("agree needs at least two annotators")
    rule = MatchRule(match, labels, partial_credit)
    label_map, only = parse_label_map(label_map), parse_label_list(only)
    names = unique_names(streams)
    k = len(streams)
    pairs = list(itertools.combinations(range(k), 2))
    compared = [_Compared() for _ in pairs]
    texts = _Texts()
    position: dict[str, int] = {}  # the first annotator's order

    def compare(batch: list[str], reading: _Reading) -> None:
        batch.sort(key=position.__getitem__)
        spansets = [renamed(select_labels(SpanSet(s.name, {d: reading.pending[m].pop(d) for d in batch}, [], s.format),
                                          label_map=label_map, only=only), name)
                    for m, (s, name) in enumerate(zip(streams, names))]
        reconciled = texts.reconciled(spansets, batch, position, align_whitespace, reading.caught)
        if texts.error is None:  # after an error only the texts are checked: nothing will be reported
            for (i, j), c in zip(pairs, compared):
                c.add(compare_pair(reconciled.spansets[i], reconciled.spansets[j], reconciled.documents, rule))

    with collector_paused(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reading = _Reading(streams, caught)
        ready: list[str] = []
        while reading.error is None and not all(reading.ended):
            for m in range(k):
                document = None if reading.ended[m] else reading.next(m)
                if document is None:
                    continue
                if m == 0:
                    position[document.id] = len(position)
                if all(document.id in pending for pending in reading.pending):
                    ready.append(document.id)
                    if len(ready) >= BATCH_DOCUMENTS:
                        compare(ready, reading)
                        ready = []
        if reading.error is None and ready:
            compare(ready, reading)
        if reading.error is not None:
            reading.read_before_error()
    if reading.error is not None:
        reading.raise_error()
    replay(reading.warnings)

    common, left_out = common_documents([types.SimpleNamespace(name=name, documents=dict.fromkeys(order))
                                         for name, order in zip(names, reading.order)])
    texts_differ = texts.announce(common)
    if texts_differ:
        left_out["texts_differ"] = texts_differ
    documents = [d for d in common if d not in texts.left_out]
    if not documents:
        raise SpanagreeError(f"no document left to compare: the texts of all {len(common)} differ "
                             "beyond whitespace")
    results = [c.pair(names[i], names[j], documents) for (i, j), c in zip(pairs, compared)]
    return finished_agreement(names, documents, rule, results, [s.notes for s in streams], texts.whitespace_aligned,
                              left_out, options=options, match=match, labels=labels, only=only, label_map=label_map,
                              align_whitespace=align_whitespace)


def score_streams(gold: DocumentStream, preds: list[DocumentStream], *, match: str = "exact",
                  labels: str = "strict", partial_credit=0.5, beta: float = 1.0, only=None, label_map=None,
                  align_whitespace: bool = False, options: dict | None = None,
                  listing: bool = False) -> list[Score]:
    """:func:`~spanagree.scoring` of predictions' streams against the gold's, document by document.

    Returns one :class:`~spanagree.scoring.Score` per prediction, and gives the warnings and raises
    the error, as ``score(collect(gold), [collect(p) for p in preds], ...)`` would. A gold document
    is compared with a prediction once that prediction has given it, or has ended without it (it
    then counts as empty); predicted documents not in the gold are dropped once the gold has
    ended. With ``listing``, each Score keeps its error listing — the items that are not
    ``correct``, what ``--errors`` writes — as its :attr:`~spanagree.scoring.Score.items`; without,
    it has none.
    """
    if not beta >= 0:
        raise UsageError(f"--beta must be >= 0, got {beta!r}")
    rule = MatchRule(match, labels, partial_credit)
    label_map, only = parse_label_map(label_map), parse_label_list(only)
    n = len(preds)
    compared = [_Compared() for _ in preds]
    texts = [_Texts() for _ in preds]
    position: dict[str, int] = {}  # the gold's order
    given = [set() for _ in preds]  # per prediction: the gold documents handed to it
    done: Counter = Counter()       # gold document -> predictions that have compared it

    def each_of(text_of: dict[str, str | None]) -> Callable:
        if not listing:
            return partial(error_keys, rule=rule)
        return lambda doc_id, alignment: keys_and_errors(doc_id, alignment, text_of[doc_id], rule)

    def compare(p: int, batch: list[str], reading: _Reading) -> None:
        batch.sort(key=position.__getitem__)
        gold_documents, own = reading.pending[0], reading.pending[p + 1]
        pred_documents = {d: own.pop(d) for d in batch if d in own}
        gold_s = select_labels(SpanSet(gold.name, {d: gold_documents[d] for d in batch}, [], gold.format),
                               label_map=label_map, only=only)
        pred_s = select_labels(SpanSet(preds[p].name, pred_documents, [], preds[p].format),
                               label_map=label_map, only=only)
        for d in batch:
            done[d] += 1
            if done[d] == n:
                del gold_documents[d], done[d]
        both = [d for d in batch if d in pred_documents]
        reconciled = texts[p].reconciled([gold_s, pred_s], both, position, align_whitespace, reading.caught)
        if texts[p].error is not None:  # only the texts are checked now: nothing will be reported
            return
        gold_r, pred_r = reconciled.spansets
        scored = [d for d in batch if d not in texts[p].left_out]
        gold_r = SpanSet(gold_r.name, {d: gold_r.documents[d] if d in gold_r.documents else gold_s.documents[d]
                                        for d in scored})
        pair = compare_pair(pred_r, gold_r, scored, rule,
                            each=each_of({d: gold_r.documents[d].text for d in scored}))
        c = compared[p]
        c.add(pair)
        if listing:
            for doc_id, (keys, items) in zip(scored, pair.each):
                c.errors.update(keys)
                c.items[doc_id] = items
        else:
            c.errors.update(itertools.chain.from_iterable(pair.each))

    with collector_paused(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reading = _Reading([gold] + list(preds), caught)
        ready: list[list[str]] = [[] for _ in preds]

        def hand(p: int, doc_id: str) -> None:
            given[p].add(doc_id)
            ready[p].append(doc_id)
            if len(ready[p]) >= BATCH_DOCUMENTS:
                compare(p, ready[p], reading)
                ready[p] = []

        while reading.error is None and not all(reading.ended):
            for m in range(n + 1):
                if reading.ended[m]:
                    continue
                document = reading.next(m)
                if reading.error is not None:
                    break
                if document is None:
                    if m == 0:  # the gold has ended: what the predictions hold that it lacks is ignored
                        for p in range(n):
                            for doc_id in [d for d in reading.pending[p + 1] if d not in position]:
                                del reading.pending[p + 1][doc_id]
                    else:  # the prediction has ended: the gold documents waiting for it have no prediction
                        for doc_id in [d for d in reading.pending[0] if d not in given[m - 1]]:
                            hand(m - 1, doc_id)
                    continue
                doc_id = document.id
                if m == 0:
                    position[doc_id] = len(position)
                    for p in range(n):
                        if doc_id in reading.pending[p + 1] or reading.ended[p + 1]:
                            hand(p, doc_id)
                elif doc_id in position:
                    if doc_id in reading.pending[0] and doc_id not in given[m - 1]:
                        hand(m - 1, doc_id)
                elif reading.ended[0]:
                    del reading.pending[m][doc_id]  # not in the gold: ignored
        if reading.error is None:
            for p in range(n):
                if ready[p]:
                    compare(p, ready[p], reading)
        else:
            reading.read_before_error()
    if reading.error is not None:
        reading.raise_error()
    replay(reading.warnings)

    gold_order = reading.order[0]
    results = []
    for p, (pred, c) in enumerate(zip(preds, compared)):
        pred_ids = set(reading.order[p + 1])
        missing = [d for d in gold_order if d not in pred_ids]
        warn_unmatched(pred.name, missing, [d for d in reading.order[p + 1] if d not in position])
        left_out = texts[p].announce([d for d in gold_order if d in pred_ids])
        scored = [d for d in gold_order if d not in texts[p].left_out]
        items = [item for d in scored for item in c.items.get(d, ())]
        c.errors.update(correct_pairs(c.tally, rule))
        results.append(finished_score(gold.name, pred.name, [gold.notes, pred.notes], rule, beta,
                                      c.pair(pred.name, gold.name, scored), c.errors, missing,
                                      texts[p].whitespace_aligned, left_out,
                                      (lambda items=items: items) if listing else None,
                                      options=options, match=match, labels=labels, only=only, label_map=label_map,
                                      align_whitespace=align_whitespace))
    return results
