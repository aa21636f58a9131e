"""Comparing two span sets document by document: alignments reduced to additive counts.

This is the shared step of :func:`spanagree.agree` and :func:`spanagree.scoring`: relabel and
filter (``--map``, ``--only``), align each document with a :class:`~spanagree.match.MatchRule`,
and keep the counts per document and per label (and, when asked, the alignments themselves).
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Callable, Iterable, Mapping

from ..collector import collector_paused
from ..measures.counts import Counts
from ..errors import SpanagreeWarning, UsageError, find_stack_level
from ..match import Alignment, MatchRule, align, greedy_label_tally
from ..slotted import Slotted
from ..span import Document, SpanSet, moved_relations

EMPTY = Document("", None, [])


def parse_label_map(items: Iterable[str] | Mapping[str, str] | None) -> dict[str, str]:
    """``["PERSON=PER", "LOCATION=LOC"]`` or a mapping → ``{"PERSON": "PER", ...}``."""
    if not items:
        return {}
    if isinstance(items, Mapping):
        return dict(items)
    mapping = {}
    for item in items:
        for part in str(item).split(","):
            if not part:
                continue
            old, sep, new = part.partition("=")
            if not sep or not old or not new:
                raise UsageError(f"{{option}} takes OLD=NEW, got {part!r}", option="label_map", flag="--map")
            mapping[old] = new
    return mapping


def parse_label_list(items: Iterable[str] | str | None) -> frozenset[str] | None:
    """``"PER,ORG"`` or ``["PER", "ORG"]`` → ``{"PER", "ORG"}``; ``None`` keeps every label."""
    if not items:
        return None
    if isinstance(items, str):
        items = [items]
    labels = {label for item in items for label in str(item).split(",") if label}
    return frozenset(labels) or None


def select_labels(spanset: SpanSet, *, label_map: Mapping[str, str] | None = None,
                  only: frozenset[str] | None = None) -> SpanSet:
    """Relabel spans by ``label_map`` then keep only labels in ``only`` (after mapping)."""
    if not label_map and not only:
        return spanset
    documents = {}
    for doc_id, document in spanset.documents.items():
        spans = [s.relabel(label_map[s.label]) if label_map and s.label in label_map else s for s in document.spans]
        relations = document.relations
        if only:
            spans = [s if s.label in only else None for s in spans]
        if relations:  # those whose spans are all kept, on the relabelled spans
            relations = moved_relations(relations, document.spans, spans, keep_lost=False)
        if only:
            spans = [s for s in spans if s is not None]
        documents[doc_id] = Document(document.id, document.text, spans, document.source, document.tokens_from_text,
                                     relations=relations, written_otherwise=document.written_otherwise)
    return SpanSet(spanset.name, documents, list(spanset.notes), spanset.format)


@dataclass
class LabelTally:
    """Per label: spans on each side and the credit of aligned pairs (labels strict).

    Kept as exact sums — integer counts, and the credits other than 1 as a list summed with
    ``math.fsum`` at the end — so that tallies of disjoint shards of documents add up to exactly
    the tally of the whole, whatever the shards (``--jobs``).
    """

    first: Counter = field(default_factory=Counter)
    second: Counter = field(default_factory=Counter)
    ones: Counter = field(default_factory=Counter)
    fractions: dict[str, list[float]] = field(default_factory=dict)

    def add(self, other: "LabelTally") -> None:
        self.first.update(other.first)
        self.second.update(other.second)
        self.ones.update(other.ones)
        for label, credits in other.fractions.items():
            self.fractions.setdefault(label, []).extend(credits)

    def counts(self) -> dict[str, Counts]:
        """``{label: Counts}``, labels sorted."""
        by_label = {}
        for label in sorted(self.first.keys() | self.second.keys()):
            ones, fractions = self.ones.get(label, 0), self.fractions.get(label)
            credit = math.fsum([ones, *fractions]) if fractions else float(ones) if ones else 0
            by_label[label] = Counts(credit, max(self.first.get(label, 0) - credit, 0),
                                     max(self.second.get(label, 0) - credit, 0))
        return by_label


@dataclass
class PairCounts:
    """Two span sets compared over documents: counts per document and per label.

    ``each`` holds, when asked for, one result per document (in document order) of a function
    of the document's alignment (:func:`compare_pair`'s ``each``).
    """

    first: str
    second: str
    by_document: dict[str, Counts]
    by_label: dict[str, Counts]
    duplicates: tuple[int, int] = (0, 0)
    alignments: dict[str, Alignment] | None = None
    tally: LabelTally | None = field(default=None, repr=False)
    each: list | None = field(default=None, repr=False)

    @property
    def counts(self) -> Counts:
        """The documents' counts summed (in document order: the same floats as adding Counts)."""
        values = self.by_document.values()
        return Counts(sum(map(_A, values)), sum(map(_B, values)), sum(map(_C, values)))


_A, _B, _C = attrgetter("a"), attrgetter("b"), attrgetter("c")
_LABEL = attrgetter("label")
_PAIR_LABEL = attrgetter("first.label")


def compare_pair(first: SpanSet, second: SpanSet, documents: list[str], rule: MatchRule, *,
                 keep_alignments: bool = False, index: str = "sweep",
                 each: Callable[[str, Alignment], Any] | None = None) -> PairCounts:
    """Align ``first`` and ``second`` on every document in ``documents``.

    A document missing from a side counts as empty on that side. ``index`` names the candidate
    index of :func:`~spanagree.match.align`; ``each(doc_id, alignment)``, when given, is called
    on every document's alignment and its results are kept in :attr:`PairCounts.each`.
    """
    by_document: dict[str, Counts] = {}
    alignments: dict[str, Alignment] | None = {} if keep_alignments else None
    results: list | None = [] if each is not None else None
    greedy = rule.pairing != "optimal"
    strict = rule.strict_labels and not greedy
    by_scorer = rule.strict_labels and greedy  # a greedy pairing's per-label figures are its scorer's
    whole = rule.boundary != "partial"
    first_labels: list[str] = []
    second_labels: list[str] = []
    pair_labels: list[str] = []
    fractions: dict[str, list[float]] = {}
    dup1 = dup2 = 0
    documents1, documents2 = first.documents, second.documents
    hipe = rule.pairing == "hipe"
    with collector_paused():  # every object made here stays alive: nothing for the collector to find
        for doc_id in documents:
            document1, document2 = documents1.get(doc_id, EMPTY), documents2.get(doc_id, EMPTY)
            texts_agree = written_texts_agree(document1, document2) if hipe else None
            alignment = align(document1.spans, document2.spans, rule, index=index, texts_agree=texts_agree)
            by_document[doc_id] = alignment.counts
            if strict:  # pairs share their label: per-label counts add up over documents
                first_labels += map(_LABEL, alignment.first)
                second_labels += map(_LABEL, alignment.second)
                if whole:  # exact and overlap pairs all earn 1
                    pair_labels += map(_PAIR_LABEL, alignment.pairs)
                else:
                    for pair in alignment.pairs:
                        if pair.credit == 1.0:
                            pair_labels.append(pair.first.label)
                        else:
                            fractions.setdefault(pair.first.label, []).append(pair.credit)
            elif by_scorer:
                labels1, labels2, credits = greedy_label_tally(alignment, rule)
                first_labels += labels1
                second_labels += labels2
                for label, credit in credits:
                    if credit == 1.0:
                        pair_labels.append(label)
                    else:
                        fractions.setdefault(label, []).append(credit)
            dup1 += alignment.duplicates[0]
            dup2 += alignment.duplicates[1]
            if alignments is not None:
                alignments[doc_id] = alignment
            if results is not None:
                results.append(each(doc_id, alignment))
    tally = LabelTally(Counter(first_labels), Counter(second_labels), Counter(pair_labels), fractions)
    return PairCounts(first.name, second.name, by_document, tally.counts(), (dup1, dup2), alignments, tally, results)


def written_texts_agree(first: Document, second: Document) -> Callable | None:
    """Whether two spans have the same text as their files wrote them, their tokens concatenated
    (:meth:`~spanagree.span.Document.written_text`), for the ``hipe`` pairing, whose scorer's
    equality compares an entity's text; ``None`` when neither copy wrote a token otherwise (the
    texts of spans with the same fragments then agree)."""
    if not first.written_otherwise and not second.written_otherwise:
        return None
    return lambda x, y: _concatenated(first.written_text(x)) == _concatenated(second.written_text(y))


def _concatenated(text: str) -> str:
    """A CoNLL text's tokens concatenated (tokens never hold a space or a line break)."""
    return text.replace(" ", "").replace("\n", "")


class PairTally(Slotted):
    """One pair's comparison added up batch by batch (and shard by shard): per-document counts,
    the label tally and the duplicates. What optional analyses add is theirs
    (:mod:`spanagree.pipeline.analyses`)."""

    __slots__ = ("by_document", "labels", "duplicates")

    def __init__(self):
        self.by_document: dict[str, Counts] = {}
        self.labels = LabelTally()
        self.duplicates = [0, 0]

    def add(self, pair: PairCounts) -> None:
        """Add one batch's :class:`PairCounts` (its documents are new to this tally)."""
        self.by_document.update(pair.by_document)
        self.labels.add(pair.tally)
        self.duplicates[0] += pair.duplicates[0]
        self.duplicates[1] += pair.duplicates[1]

    def __iadd__(self, other: "PairTally") -> "PairTally":
        self.by_document.update(other.by_document)
        self.labels.add(other.labels)
        self.duplicates[0] += other.duplicates[0]
        self.duplicates[1] += other.duplicates[1]
        return self

    def pair(self, first: str, second: str, documents: list[str]) -> PairCounts:
        """The :class:`PairCounts` of the documents compared, in ``documents``' order."""
        by_document = {d: self.by_document[d] for d in documents}
        return PairCounts(first, second, by_document, self.labels.counts(), tuple(self.duplicates), None,
                          self.labels)


def warn_duplicates(name: str, count: int, rule: MatchRule) -> None:
    """The warning that ``name``'s ``count`` spans repeat another's matching key, warned from the
    commands' ``finished`` (``agree`` and ``score``: the warning names their caller's line)."""
    if count:
        key = "fragments and label" if rule.strict_labels else "fragments"
        warnings.warn(f"{name}: {count} span(s) identical on the matching key ({key}) counted once",
                      SpanagreeWarning, stacklevel=find_stack_level())


@dataclass
class MeanF1:
    """Mean and population SD of F1 values, skipping undefined ones (and saying how many)."""

    mean: float
    sd: float
    defined: int
    skipped: int

    @classmethod
    def of(cls, values: Iterable[float]) -> "MeanF1":
        import statistics

        values = list(values)
        defined = [v for v in values if not math.isnan(v)]
        if not defined:
            return cls(math.nan, math.nan, 0, len(values))
        return cls(statistics.fmean(defined), statistics.pstdev(defined), len(defined), len(values) - len(defined))


def sorted_labels(labels: Iterable[str]) -> list[str]:
    return sorted(set(labels))
