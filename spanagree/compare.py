"""Comparing two span sets document by document: alignments reduced to additive counts.

This is the shared step of :func:`spanagree.agree` and :func:`spanagree.score`: relabel and
filter (``--map``, ``--only``), align each document with a :class:`~spanagree.match.MatchRule`,
and keep the counts per document and per label (and, when asked, the alignments themselves).
"""

from __future__ import annotations

import math
import statistics
import warnings
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from .counts import Counts, quiet_ratio
from .errors import SpanagreeWarning, UsageError
from .match import Alignment, MatchRule, align
from .span import Document, SpanSet

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
                raise UsageError(f"--map takes OLD=NEW, got {part!r}")
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
        if only:
            spans = [s for s in spans if s.label in only]
        documents[doc_id] = Document(document.id, document.text, spans, document.source)
    return SpanSet(spanset.name, documents, list(spanset.notes), spanset.format)


@dataclass
class PairCounts:
    """Two span sets compared over documents: counts per document and per label."""

    first: str
    second: str
    by_document: dict[str, Counts]
    by_label: dict[str, Counts]
    duplicates: tuple[int, int] = (0, 0)
    alignments: dict[str, Alignment] | None = None

    @property
    def counts(self) -> Counts:
        return sum(self.by_document.values(), Counts())


def compare_pair(first: SpanSet, second: SpanSet, documents: list[str], rule: MatchRule, *,
                 keep_alignments: bool = False) -> PairCounts:
    """Align ``first`` and ``second`` on every document in ``documents``.

    A document missing from a side counts as empty on that side.
    """
    by_document: dict[str, Counts] = {}
    alignments: dict[str, Alignment] | None = {} if keep_alignments else None
    credit_by_label: dict[str, float] = {}
    first_by_label: dict[str, int] = {}
    second_by_label: dict[str, int] = {}
    dup1 = dup2 = 0
    for doc_id in documents:
        alignment = align(first.documents.get(doc_id, EMPTY).spans, second.documents.get(doc_id, EMPTY).spans, rule)
        by_document[doc_id] = alignment.counts
        if rule.strict_labels:  # pairs share their label: per-label counts add up over documents
            for pair in alignment.pairs:
                label = pair.first.label
                credit_by_label[label] = credit_by_label.get(label, 0) + pair.credit
            for span in alignment.first:
                first_by_label[span.label] = first_by_label.get(span.label, 0) + 1
            for span in alignment.second:
                second_by_label[span.label] = second_by_label.get(span.label, 0) + 1
        dup1 += alignment.duplicates[0]
        dup2 += alignment.duplicates[1]
        if alignments is not None:
            alignments[doc_id] = alignment
    by_label = {}
    for label in sorted(first_by_label.keys() | second_by_label.keys()):
        credit = credit_by_label.get(label, 0)
        by_label[label] = Counts(credit, max(first_by_label.get(label, 0) - credit, 0),
                                 max(second_by_label.get(label, 0) - credit, 0))
    return PairCounts(first.name, second.name, by_document, by_label, (dup1, dup2), alignments)


def warn_duplicates(name: str, count: int, rule: MatchRule) -> None:
    if count:
        key = "fragments and label" if rule.strict_labels else "fragments"
        warnings.warn(f"{name}: {count} span(s) identical on the matching key ({key}) counted once",
                      SpanagreeWarning, stacklevel=3)


@dataclass
class MeanF1:
    """Mean and population SD of F1 values, skipping undefined ones (and saying how many)."""

    mean: float
    sd: float
    defined: int
    skipped: int

    @classmethod
    def of(cls, values: Iterable[float]) -> "MeanF1":
        values = list(values)
        defined = [v for v in values if not math.isnan(v)]
        if not defined:
            return cls(math.nan, math.nan, 0, len(values))
        return cls(statistics.fmean(defined), statistics.pstdev(defined), len(defined), len(values) - len(defined))


def counts_dict(counts: Counts, *, beta: float | None = None) -> dict:
    """a, b, c and the rates, NaN where undefined (rendered ``null`` in JSON)."""
    result = counts.as_dict()
    if beta is not None and beta != 1:
        b2 = beta * beta
        result[f"f{beta:g}"] = quiet_ratio((1 + b2) * counts.a, (1 + b2) * counts.a + b2 * counts.c + counts.b)
    result["jaccard"] = quiet_ratio(counts.a, counts.a + counts.b + counts.c)
    return result


def sorted_labels(labels: Iterable[str]) -> list[str]:
    return sorted(set(labels))
