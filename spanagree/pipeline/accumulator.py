"""What a run has found so far: the accumulator every execution strategy feeds.

A run reads each annotator's documents, compares the copies of each document (see
:mod:`spanagree.pipeline.sequential`) and adds what every comparison gives to an
:class:`Accumulator`. Accumulators of disjoint shards of documents combine with ``+`` (in
document order), so reading everything first, comparing while reading, process shards
(``--jobs``) and any other executor give the same figures to the last bit: counts per document are
computed whole in one place, per-label counts are exact sums
(:class:`~spanagree.pipeline.compare.LabelTally`), and lists are concatenated in order.

Warnings and errors travel as data: each is recorded with a key saying where it arose, and the
run gives them once, at the end, in key order — the order that reading every file whole, one after
the other, then comparing, would give (:meth:`Accumulator.replay`). Keys:

- reading: ``(stream, shard, position in the shard)``, or ``(stream, inf, 0)`` at a stream's end;
- texts (per group of copies compared together): ``(shard, position of the document in the
  reference stream's shard)``.

Errors (a :class:`~spanagree.errors.SpanagreeError`) are kept with their key; of several, the
first in key order is the one raised, a reading error before any error of the texts.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from ..errors import find_stack_level

#: The reading key of what a stream gives at its end (its last warnings), after all its documents.
AFTER_ALL = float("inf")


def replay(recorded) -> None:
    """Warn again, in key order (a stable sort), what was recorded as ``(key, message, category)``,
    as from the line that called spanagree."""
    for _, message, category in sorted(recorded, key=itemgetter(0)):
        warnings.warn(message, category, stacklevel=find_stack_level())


def first_error(current: tuple | None, candidate: tuple | None) -> tuple | None:
    """Of two ``(key, error)`` (or ``None``), the one whose key comes first."""
    if candidate is None:
        return current
    if current is None or candidate[0] < current[0]:
        return candidate
    return current


@dataclass
class TextsTally:
    """What reconciling the copies' texts did in one group: documents mapped through their
    non-whitespace characters, documents left out, CoNLL tokens spelt differently, the warnings
    (keyed by document position) and the first error."""

    whitespace_aligned: int = 0
    left_out: set = field(default_factory=set)
    spellings: int = 0
    events: list = field(default_factory=list)   # ((shard, position), message, category)
    error: tuple | None = None                   # ((shard, position), error)
    differences: dict = field(default_factory=dict)  # left-out document -> where its texts first differ
    text_aligned: int = 0                        # --align-text: documents mapped through the alignment
    differing: dict = field(default_factory=dict)    # ... their differing characters
    affected: int = 0                            # ... spans touching changed characters
    affected_spans: list = field(default_factory=list)  # ... and which

    def __iadd__(self, other: "TextsTally") -> "TextsTally":
        self.whitespace_aligned += other.whitespace_aligned
        self.left_out |= other.left_out
        self.spellings += other.spellings
        self.differences.update(other.differences)
        self.text_aligned += other.text_aligned
        self.differing.update(other.differing)
        self.affected += other.affected
        self.affected_spans += other.affected_spans
        self.events += other.events
        self.error = first_error(self.error, other.error)
        return self


@dataclass
class GroupTally:
    """One group of copies compared together (all annotators in ``agree`` and ``merge``; the gold
    and one prediction in ``score``): the texts' tally and the comparison's own tally (whatever
    the comparison adds up: pairs' counts, error analysis, votes)."""

    texts: TextsTally
    compared: Any

    def __iadd__(self, other: "GroupTally") -> "GroupTally":
        self.texts += other.texts
        self.compared += other.compared
        return self


@dataclass
class Accumulator:
    """Everything a run has read and compared, as data that adds up.

    Attributes
    ----------
    orders : list of list of str
        Per stream, the ids of the documents read, in reading order.
    notes : list of list of str
        Per stream, what was read and not compared (complete once the stream has ended).
    note_counts : list of dict or None
        Per stream, the counts the notes are made of, where the stream keeps them apart (folder
        shards, file parts: the notes of the whole are made from the summed counts; numbers and
        counters add, lists are concatenated in shard order).
    events : list
        Reading warnings, ``(key, message, category)``.
    error : tuple or None
        The first reading error, ``(key, error)``.
    groups : list of GroupTally
        Per group of copies compared together.
    labels : list of Counter
        Per stream, its spans' labels as read (before ``--map`` and ``--only``), counted over every
        document read, when the run was asked to (``count_labels``; else empty): what the label
        checks (:mod:`spanagree.pipeline.labels`) look at.
    """

    orders: list
    notes: list
    events: list = field(default_factory=list)
    error: tuple | None = None
    groups: list = field(default_factory=list)
    note_counts: list | None = None
    labels: list = field(default_factory=list)

    def __iadd__(self, other: "Accumulator") -> "Accumulator":
        """Add the accumulator of the next shard of documents (shards are added in order)."""
        for mine, theirs in zip(self.orders, other.orders):
            mine += theirs
        self.events += other.events
        self.error = first_error(self.error, other.error)
        for mine, theirs in zip(self.groups, other.groups):
            mine += theirs
        for mine, theirs in zip(self.labels, other.labels):
            mine.update(theirs)
        if self.note_counts is not None and other.note_counts is not None:
            for mine, theirs in zip(self.note_counts, other.note_counts):
                for kind, number in theirs.items():
                    mine[kind] = mine.get(kind, 0) + number
        return self

    def __add__(self, other: "Accumulator") -> "Accumulator":
        import copy

        result = copy.deepcopy(self)
        result += other
        return result

    def raise_reading_error(self) -> None:
        """If reading failed: give the warnings reading whole files would have given before the
        error, then raise it."""
        if self.error is not None:
            key, error = self.error
            replay(w for w in self.events if w[0] <= key)
            raise error

    def replay_reading(self) -> None:
        """Give the reading warnings (when reading did not fail)."""
        replay(self.events)
