"""Comparing while reading, in one process: the strategy every other one runs on its shard.

Each annotator's :class:`~spanagree.formats.DocumentStream` is read a document at a time, in turn.
A document is handed to a group of copies compared together (a :class:`Group`) as soon as every
copy the group needs has been read; handed documents are compared in batches
(:data:`BATCH_DOCUMENTS`): relabelled and filtered (``--map``, ``--only``), their texts
reconciled (:func:`~spanagree.texts.reconcile`), then compared by the command's
:class:`Comparison`, whose tally is added to the run's
:class:`~spanagree.pipeline.accumulator.Accumulator`. A document is dropped once every group
that needs it has compared it, so when the files list their documents in the same order (the
usual case) a few documents are held at a time; files in different orders hold the documents
read ahead — never more than reading the files whole.

Reading everything first is this same strategy over span sets already in memory
(:func:`spanset_stream`): the results, warnings and errors cannot differ.
"""

from __future__ import annotations

import warnings
from collections import Counter
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Protocol, Sequence

from ..collector import collect_young, collector_paused
from ..errors import SpanagreeError
from ..formats import DocumentStream
from ..span import Document, SpanSet
from ..texts import Reconciled, reconcile
from .accumulator import AFTER_ALL, Accumulator, GroupTally, TextsTally, first_error
from .compare import select_labels

#: Documents compared together: enough to spread the cost of a call over many, few enough to
#: keep little in memory.
BATCH_DOCUMENTS = 64

_LABEL = attrgetter("label")


@dataclass(frozen=True)
class Group:
    """Streams whose copies of a document are compared together.

    Attributes
    ----------
    members : tuple of int
        Indices of the streams; the first is the group's reference: its copy's text is kept,
        and the documents are in its order.
    every_copy : bool
        ``True``: a document is compared when every member has it (``agree``, ``merge``: the
        others are left out at the end). ``False``: when the reference has it; a member that
        lacks it (once its stream has ended) has an empty copy (``score``: a missing
        prediction).
    present : bool
        ``True`` (``every_copy`` is then ignored): a document is compared once every member
        has it or has ended, among the members that have it (the others' span sets lack it:
        absent, not empty); the first member that has it is its reference, and documents are
        ordered by the first member's order, then the second's for those the first lacks, and
        so on (``merge --documents present``: round-robin designs).
    """

    members: tuple[int, ...]
    every_copy: bool = True
    present: bool = False


class Comparison(Protocol):
    """What a command does with a batch of documents whose copies are reconciled."""

    def tally(self) -> Any:
        """An empty tally (it adds up with ``+=``)."""

    def compare(self, tally: Any, group: int, spansets: list[SpanSet], documents: list[str]) -> None:
        """Compare the group's copies (``spansets``, in member order, texts reconciled) on
        ``documents`` (in reference order; a copy may lack a document: it is empty) into ``tally``."""


def spanset_stream(spanset: SpanSet) -> DocumentStream:
    """A span set already in memory as a stream (reading everything first is this)."""
    return DocumentStream(spanset.name, spanset.format or "", iter(list(spanset.documents.values())),
                          list(spanset.notes))


def failing_stream(name: str, format: str, error: SpanagreeError) -> DocumentStream:
    """A stream whose reading fails at once with ``error`` (a path that could not be opened: its
    error comes when its turn to be read comes, as it would reading the files one after the other)."""

    def documents():
        raise error
        yield  # a generator: the error comes when it is first read

    return DocumentStream(name, format, documents())


class _Reading:
    """The streams read in turn: each one's ids in reading order, the documents read and not yet
    compared, the warnings (with where they arose) and the first reading error."""

    def __init__(self, streams: Sequence[DocumentStream], caught: list, shard: int, count_labels: bool = False):
        self.streams = streams
        self.caught = caught
        self.shard = shard
        self.events: list = []
        self.error: tuple | None = None
        self.iterators = [iter(stream.documents) for stream in streams]
        self.order: list[list[str]] = [[] for _ in streams]
        self.pending: list[dict[str, Document]] = [{} for _ in streams]
        self.ended = [False] * len(streams)
        self.labels: list[Counter] = [Counter() for _ in streams] if count_labels else []

    def next(self, k: int) -> Document | None:
        """Stream ``k``'s next document (also kept in :attr:`pending`), or ``None`` at its end or error."""
        order = self.order[k]
        document = None
        at_end = False
        try:
            document = next(self.iterators[k])
        except StopIteration:
            self.ended[k] = at_end = True
        except SpanagreeError as error:
            self.ended[k] = True
            self.error = first_error(self.error, ((k, self.shard, len(order)), error))
        if self.caught:  # the key says where: at this document (or error), or after the stream's end
            key = (k, AFTER_ALL, 0) if at_end else (k, self.shard, len(order))
            self.events += [(key, w.message, w.category) for w in self.caught]
            del self.caught[:]
        if document is not None:
            if self.labels:
                self.labels[k].update(map(_LABEL, document.spans))
            order.append(document.id)
            self.pending[k][document.id] = document
        return document

    def read_before_error(self) -> None:
        """Read the streams before the failing one to their end: reading each stream whole, one
        after the other, would meet their errors (and warnings) first."""
        for j in range(self.error[0][0]):
            while not self.ended[j]:
                document = self.next(j)
                if document is not None:
                    del self.pending[j][document.id]


def reconciled_batch(texts: TextsTally, spansets: list[SpanSet], batch: list[str], position: dict[str, int],
                     shard: int, align_whitespace: bool, caught: list, align_text: bool = False) -> Reconciled:
    """:func:`~spanagree.texts.reconcile` of a batch (sorted by position), its warnings and errors
    recorded in ``texts`` by document: the batch is reconciled whole when nothing can go wrong per
    document, otherwise (``align_whitespace``, or an error) one document at a time."""
    if not align_whitespace and not align_text:
        try:
            result = reconcile(spansets, batch, announce=False)
        except SpanagreeError:
            del caught[:]
        else:
            _add_texts(texts, result, (shard, position[batch[0]] if batch else 0), caught)
            return result
    parts = []
    for doc_id in batch:
        key = (shard, position[doc_id])
        try:
            part = reconcile(spansets, [doc_id], align_whitespace=align_whitespace, announce=False,
                             align_text=align_text)
        except SpanagreeError as error:
            texts.error = first_error(texts.error, (key, error))
            _add_texts(texts, None, key, caught)
            continue
        _add_texts(texts, part, key, caught)
        parts.append(part)
    return _joined(spansets, parts)


def _add_texts(texts: TextsTally, result: Reconciled | None, key: tuple, caught: list) -> None:
    if result is not None:
        texts.whitespace_aligned += len(result.whitespace_aligned)
        texts.left_out.update(result.left_out)
        texts.spellings += result.token_spelling_differences
        texts.differences.update(result.differences)
        texts.text_aligned += len(result.text_aligned)
        texts.differing.update(result.differing)
        texts.affected += result.affected
        texts.affected_spans += result.affected_spans
    texts.events += [(key, w.message, w.category) for w in caught]
    del caught[:]


def _joined(spansets: list[SpanSet], parts: list[Reconciled]) -> Reconciled:
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
        result.differences.update(part.differences)
        result.text_aligned += part.text_aligned
        result.differing.update(part.differing)
        result.affected += part.affected
        result.affected_spans += part.affected_spans
    return result


def _compare_present(comparison: Comparison, g: int, tally: GroupTally, copies: list[SpanSet], batch: list[str],
                     key: dict, shard: int, align_whitespace: bool, caught: list, align_text: bool = False) -> None:
    """A ``present`` group's batch (sorted): each run of documents held by the same members is
    reconciled among those members (the first is the reference) and compared with the absent
    members' span sets lacking it."""
    start = 0
    while start < len(batch):
        held = tuple(k for k, c in enumerate(copies) if batch[start] in c.documents)
        end = start + 1
        while end < len(batch) and tuple(k for k, c in enumerate(copies) if batch[end] in c.documents) == held:
            end += 1
        run = batch[start:end]
        start = end
        reconciled = reconciled_batch(tally.texts, [copies[k] for k in held], run, key, shard, align_whitespace,
                                      caught, align_text)
        if tally.texts.error is not None:
            return
        compared = [d for d in run if d not in tally.texts.left_out]
        spansets = [SpanSet(c.name, {}, [], c.format) for c in copies]
        for k, spanset in zip(held, reconciled.spansets):
            spansets[k] = SpanSet(spanset.name, {d: spanset.documents[d] for d in compared}, [], spanset.format)
        comparison.compare(tally.compared, g, spansets, compared)


def accumulate(streams: Sequence[DocumentStream], names: Sequence[str], groups: Sequence[Group],
               comparison: Comparison, *, label_map=None, only=None, align_whitespace: bool = False,
               align_text: bool = False,
               shard: int = 0, count_labels: bool = False, progress=None) -> Accumulator:
    """Read ``streams`` in turn, compare every document of every group once its copies are read,
    and return what was found.

    Parameters
    ----------
    streams : sequence of DocumentStream
        Stream 0 is the reference of every group: its order is the documents' order.
    names : sequence of str
        The names the comparison knows the streams by (unique).
    groups : sequence of Group
    comparison : Comparison
    label_map, only
        Relabelling and label filter, applied to every copy before its texts are reconciled.
    align_whitespace : bool
        Passed to :func:`~spanagree.texts.reconcile`.
    shard : int
        This run's shard of the documents (part of every warning's key; see
        :mod:`spanagree.pipeline.accumulator`).
    count_labels : bool
        Count each stream's labels as read (:attr:`Accumulator.labels`).
    progress : Progress, optional
        Told of each of the reference stream's documents as it is read (:mod:`spanagree.progress`).

    Returns
    -------
    Accumulator
        Nothing is raised or warned here: reading errors and warnings are in the accumulator.
    """
    uses = [sum(m in g.members for g in groups) for m in range(len(streams))]
    tallies = [GroupTally(TextsTally(), comparison.tally()) for _ in groups]
    # each stream's order (of the streams whose order some group follows): a group's documents are
    # sorted by its reference's order (``present`` groups: by the first member that has them)
    ordered = {m for g in groups for m in (g.members if g.present else g.members[:1])}
    positions: dict[int, dict[str, int]] = {m: {} for m in ordered}
    keys: list[dict] = [positions[g.members[0]] if not g.present else {} for g in groups]
    given = [set() for _ in groups]   # per group: the documents handed to it (or given up on)
    ready: list[list[str]] = [[] for _ in groups]
    done: list[dict[str, int]] = [{} for _ in streams]  # per stream: document -> groups done with it
    member_of = [[g for g, group in enumerate(groups) if m in group.members] for m in range(len(streams))]

    with collector_paused(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reading = _Reading(streams, caught, shard, count_labels)
        pending = reading.pending
        ended = reading.ended

        def release(m: int, doc_id: str) -> None:
            """One more group is done with stream ``m``'s copy of ``doc_id``."""
            own = done[m]
            own[doc_id] = own.get(doc_id, 0) + 1
            if own[doc_id] == uses[m]:
                del pending[m][doc_id], own[doc_id]

        def compare(g: int, batch: list[str]) -> None:
            group, tally = groups[g], tallies[g]
            key = keys[g]
            batch.sort(key=key.__getitem__)
            copies = []
            for m in group.members:
                own = pending[m]
                documents = {d: own[d] for d in batch if d in own}
                for d in documents:
                    release(m, d)
                copies.append(select_labels(SpanSet(names[m], documents, [], streams[m].format),
                                            label_map=label_map, only=only))
            if group.present:
                _compare_present(comparison, g, tally, copies, batch, key, shard, align_whitespace, caught,
                                 align_text)
                return
            if group.every_copy:
                both = batch
            else:  # the documents every copy has
                common = set(batch).intersection(*(c.documents.keys() for c in copies))
                both = batch if len(common) == len(batch) else [d for d in batch if d in common]
            reconciled = reconciled_batch(tally.texts, copies, both, key, shard, align_whitespace, caught,
                                          align_text)
            if tally.texts.error is not None:  # only the texts are checked now: nothing will be reported
                return
            compared = [d for d in batch if d not in tally.texts.left_out]
            spansets = reconciled.spansets
            if len(both) < len(batch):  # the reference's documents that some copy lacks: as they are
                reference = spansets[0]
                spansets[0] = SpanSet(reference.name, {d: reference.documents[d] if d in reference.documents
                                                       else copies[0].documents[d] for d in compared},
                                      reference.notes, reference.format)
            comparison.compare(tally.compared, g, spansets, compared)

        def hand(g: int, doc_id: str) -> None:
            given[g].add(doc_id)
            if groups[g].present:
                first = next(m for m in groups[g].members if doc_id in pending[m])
                keys[g][doc_id] = (first, positions[first][doc_id])
            ready[g].append(doc_id)
            if len(ready[g]) >= BATCH_DOCUMENTS:
                compare(g, ready[g])
                ready[g] = []
                collect_young()  # the batch's garbage, reader's cycles included (see spanagree.collector)

        def give_up(g: int, doc_id: str) -> None:
            """Group ``g`` will never compare ``doc_id`` (a member it needs ended without it)."""
            given[g].add(doc_id)
            for m in groups[g].members:
                if doc_id in pending[m]:
                    release(m, doc_id)

        # per group: its members' documents read and not yet compared (the dictionaries settle looks in)
        held = [[pending[m] for m in group.members] for group in groups]

        def settle(g: int, doc_id: str) -> None:
            """Hand ``doc_id`` to group ``g`` when its copies are read, or give it up when they never will be."""
            group = groups[g]
            copies = held[g]
            if group.present:
                for m, own in zip(group.members, copies):
                    if doc_id not in own and not ended[m]:
                        return
                hand(g, doc_id)
            elif group.every_copy:
                for own in copies:
                    if doc_id not in own:
                        if any(ended[m] and doc_id not in pending[m] for m in group.members):
                            give_up(g, doc_id)
                        return
                hand(g, doc_id)
            elif doc_id in copies[0]:
                for k in range(1, len(copies)):
                    if doc_id not in copies[k] and not ended[group.members[k]]:
                        return
                hand(g, doc_id)
            elif ended[group.members[0]]:
                give_up(g, doc_id)

        while reading.error is None and False in ended:
            for m in range(len(streams)):
                if ended[m]:
                    continue
                document = reading.next(m)
                if reading.error is not None:
                    break
                if document is None:  # documents that waited for this stream are now ready or never will be
                    for g in member_of[m]:
                        waiting = given[g]
                        for k in groups[g].members:
                            for doc_id in [d for d in pending[k] if d not in waiting]:
                                if doc_id not in given[g]:
                                    settle(g, doc_id)
                    continue
                doc_id = document.id
                if m in positions:
                    positions[m][doc_id] = len(positions[m])
                if m == 0 and progress is not None:
                    progress.advance(1)
                for g in member_of[m]:
                    if doc_id not in given[g]:
                        settle(g, doc_id)
        if reading.error is None:
            for g in range(len(groups)):
                if ready[g]:
                    compare(g, ready[g])
        else:
            reading.read_before_error()
    return Accumulator(reading.order, [s.notes for s in streams], reading.events, reading.error, tallies,
                       labels=reading.labels)
