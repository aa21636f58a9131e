"""Scoring a prediction (an extractor, or one annotator) against a gold standard.

The prediction is the *first* side and the gold the *second*, so ``b`` counts the prediction's
spurious spans and ``c`` the gold's missed spans: precision ``a/(a+b)``, recall ``a/(a+c)``,
F-beta ``(1+β²)a / ((1+β²)a + β²c + b)``.

Error analysis (MUC / SemEval-2013 categories) describes every span without changing a, b, c:
each aligned pair, and each pair found by a second alignment (overlap, labels ignored) among the
spans left unaligned, is classified by how its two spans relate —

=========================  ===================================================
``correct``                same fragments, same label
``partial``                overlapping, different fragments, same label
``wrong_label``            same fragments, different label
``wrong_label_and_boundary`` overlapping, different fragments and label
``missed``                 a gold span with no partner
``spurious``               a predicted span with no partner
=========================  ===================================================

A pair that the rule aligned earns credit in ``a`` (e.g. a ``partial`` pair under
``--match partial`` earns 0.5); the residual pairs earn none (they are in b and c).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

from ._version import __version__
from .compare import (PairCounts, compare_pair, counts_dict, parse_label_list, parse_label_map, select_labels,
                      sorted_labels, warn_duplicates)
from .counts import Counts
from .errors import SpanagreeWarning
from .match import Alignment, MatchRule, align
from .span import Document, Span, SpanSet
from .texts import reconcile

KINDS = ("correct", "partial", "wrong_label", "wrong_label_and_boundary", "missed", "spurious")
NONE = "(none)"
RESIDUAL_RULE = MatchRule("overlap", "ignore")


@dataclass
class ErrorItem:
    """One classified span or pair of spans of the error listing."""

    document: str
    kind: str
    aligned: bool
    credit: float
    gold: Span | None
    pred: Span | None
    gold_text: str | None
    pred_text: str | None

    def as_dict(self) -> dict:
        return {
            "document": self.document, "kind": self.kind, "aligned": self.aligned, "credit": self.credit,
            **span_fields("gold", self.gold, self.gold_text), **span_fields("pred", self.pred, self.pred_text),
        }


def span_fields(prefix: str, span: Span | None, text: str | None) -> dict:
    if span is None:
        return {f"{prefix}_{k}": None for k in ("start", "end", "fragments", "label", "text", "source")}
    return {
        f"{prefix}_start": span.start,
        f"{prefix}_end": span.end,
        f"{prefix}_fragments": ";".join(f"{s}-{e}" for s, e in span.fragments),
        f"{prefix}_label": span.label,
        f"{prefix}_text": text,
        f"{prefix}_source": str(span.source) if span.source else None,
    }


def kind_of(pred: Span, gold: Span) -> str:
    same_fragments = pred.fragments == gold.fragments
    same_label = pred.label == gold.label
    if same_fragments:
        return "correct" if same_label else "wrong_label"
    return "partial" if same_label else "wrong_label_and_boundary"


@dataclass
class Score:
    """The result of :func:`score` for one prediction. ``to_dict()`` is the JSON contract."""

    gold: str
    prediction: str
    rule: MatchRule
    beta: float
    pair: PairCounts
    items: list[ErrorItem]
    options: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    missing_predictions: list[str] = field(default_factory=list)
    extras: dict = field(default_factory=dict)

    @property
    def counts(self) -> Counts:
        return self.pair.counts

    @property
    def documents(self) -> list[str]:
        return list(self.pair.by_document)

    def error_counts(self) -> dict[str, int]:
        totals = dict.fromkeys(KINDS, 0)
        for item in self.items:
            totals[item.kind] += 1
        return totals

    def errors(self) -> list[ErrorItem]:
        """Every item that is not ``correct`` (the listing written by ``--errors``)."""
        return [item for item in self.items if item.kind != "correct"]

    def confusion(self) -> dict:
        """Gold label × predicted label over all pairs; ``(none)`` for missed / spurious."""
        labels = sorted_labels([i.gold.label for i in self.items if i.gold] + [i.pred.label for i in self.items if i.pred])
        axis = labels + [NONE]
        index = {label: k for k, label in enumerate(axis)}
        matrix = [[0] * len(axis) for _ in axis]
        for item in self.items:
            row = index[item.gold.label] if item.gold else index[NONE]
            col = index[item.pred.label] if item.pred else index[NONE]
            matrix[row][col] += 1
        return {"rows": "gold", "columns": "prediction", "labels": axis, "matrix": matrix}

    def to_dict(self, *, by_document: bool = False, with_header: bool = True) -> dict:
        counts = self.counts
        result = {}
        if with_header:
            result.update({"spanagree": __version__, "options": self.options})
        result.update({
            "gold": self.gold,
            "prediction": self.prediction,
            "documents": len(self.pair.by_document),
            "match": self.rule.boundary,
            "labels": self.rule.labels,
            "partial_credit": self.rule.partial_credit,
            "beta": self.beta,
            **counts_dict(counts, beta=self.beta),
            "by_label": {label: counts_dict(c, beta=self.beta) for label, c in sorted(self.pair.by_label.items())},
            "errors": self.error_counts(),
            "confusion": self.confusion(),
            "missing_predictions": self.missing_predictions,
            "notes": self.notes,
        })
        if by_document:
            result["by_document"] = {d: counts_dict(c, beta=self.beta) for d, c in self.pair.by_document.items()}
        result.update(self.extras)
        return result

    def errors_frame(self):
        """The error listing as a DataFrame (one row per non-correct item)."""
        import pandas as pd

        return pd.DataFrame([item.as_dict() for item in self.errors()],
                            columns=list(ErrorItem("", "", False, 0, None, None, None, None).as_dict()))

    def by_label_frame(self):
        import pandas as pd

        return pd.DataFrame([{"label": label, **counts_dict(c, beta=self.beta)}
                             for label, c in sorted(self.pair.by_label.items())])

    def by_document_frame(self):
        import pandas as pd

        return pd.DataFrame([{"document": d, **counts_dict(c, beta=self.beta)} for d, c in self.pair.by_document.items()])


def classify(doc_id: str, alignment: Alignment, text: str | None) -> list[ErrorItem]:
    """Classify one document's spans (prediction = first side, gold = second side)."""
    items = []
    for pair in alignment.pairs:
        items.append(item(doc_id, kind_of(pair.first, pair.second), True, pair.credit, pair.second, pair.first, text))
    residual = align(alignment.unmatched_first(), alignment.unmatched_second(), RESIDUAL_RULE)
    for pair in residual.pairs:
        items.append(item(doc_id, kind_of(pair.first, pair.second), False, 0.0, pair.second, pair.first, text))
    for gold in residual.unmatched_second():
        items.append(item(doc_id, "missed", False, 0.0, gold, None, text))
    for pred in residual.unmatched_first():
        items.append(item(doc_id, "spurious", False, 0.0, None, pred, text))
    items.sort(key=lambda i: ((i.gold or i.pred).sort_key(), (i.pred or i.gold).sort_key()))
    return items


def item(doc_id, kind, aligned, credit, gold, pred, text) -> ErrorItem:
    return ErrorItem(doc_id, kind, aligned, credit, gold, pred,
                     gold.text(text) if gold and text is not None else None,
                     pred.text(text) if pred and text is not None else None)


def score(gold: SpanSet, pred: SpanSet | list[SpanSet], *, match: str = "exact", labels: str = "strict",
          partial_credit=0.5, beta: float = 1.0, only=None, label_map=None, align_whitespace: bool = False,
          options: dict | None = None) -> Score | list[Score]:
    """Score a prediction against a gold standard (or several predictions, one :class:`Score` each).

    Parameters
    ----------
    gold : SpanSet
        The reference; its documents are the ones scored.
    pred : SpanSet or list of SpanSet
        A prediction missing a gold document counts as empty there (warning); its documents
        that the gold lacks are ignored (warning).
    match, labels, partial_credit, only, label_map, align_whitespace
        As in :func:`spanagree.agree`.
    beta : float
        F-beta's β (β > 1 favours recall).

    Examples
    --------
    >>> from spanagree.span import Span, SpanSet
    >>> gold = SpanSet.from_spans("gold", [Span("d", (0, 5), "PER"), Span("d", (10, 14), "LOC")])
    >>> pred = SpanSet.from_spans("sys", [Span("d", (0, 5), "PER"), Span("d", (10, 14), "ORG"),
    ...                                   Span("d", (20, 22), "LOC")])
    >>> result = score(gold, pred)
    >>> result.counts, round(result.counts.precision, 4), result.counts.recall
    (Counts(a=1.0, b=2.0, c=1.0), 0.3333, 0.5)
    >>> result.error_counts()["wrong_label"], result.error_counts()["spurious"]
    (1, 1)
    """
    if isinstance(pred, list):
        return [score(gold, p, match=match, labels=labels, partial_credit=partial_credit, beta=beta, only=only,
                      label_map=label_map, align_whitespace=align_whitespace, options=options) for p in pred]
    rule = MatchRule(match, labels, partial_credit)
    label_map, only = parse_label_map(label_map), parse_label_list(only)
    gold = select_labels(gold, label_map=label_map, only=only)
    pred = select_labels(pred, label_map=label_map, only=only)
    documents = list(gold.documents)
    missing = [d for d in documents if d not in pred.documents]
    extra = [d for d in pred.documents if d not in gold.documents]
    if missing:
        warnings.warn(f"{pred.name}: {len(missing)} gold document(s) have no prediction and count as empty: "
                      + ", ".join(missing[:20]) + (" ..." if len(missing) > 20 else ""), SpanagreeWarning, stacklevel=2)
    if extra:
        warnings.warn(f"{pred.name}: {len(extra)} predicted document(s) are not in the gold and are ignored: "
                      + ", ".join(extra[:20]) + (" ..." if len(extra) > 20 else ""), SpanagreeWarning, stacklevel=2)
    both = [d for d in documents if d in pred.documents]
    reconciled = reconcile([gold, pred], both, align_whitespace=align_whitespace)
    gold_r, pred_r = reconciled.spansets
    scored = [d for d in documents if d not in set(reconciled.left_out)]
    pair = compare_pair(pred_r, gold_r, scored, rule, keep_alignments=True)
    warn_duplicates(pred.name, pair.duplicates[0], rule)
    warn_duplicates(gold.name, pair.duplicates[1], rule)
    items = []
    for doc_id in scored:
        document = gold_r.documents[doc_id]
        items.extend(classify(doc_id, pair.alignments[doc_id], document.text))
    pair.alignments = None  # the items keep what the listing needs
    notes = [f"{s.name}: {n}" for s in (gold, pred) for n in s.notes]
    if reconciled.whitespace_aligned:
        notes.append(f"{len(reconciled.whitespace_aligned)} document(s) compared through their "
                     "non-whitespace characters (texts differ only in whitespace)")
    if reconciled.left_out:
        notes.append(f"{len(reconciled.left_out)} document(s) left out: texts differ beyond whitespace: "
                     + ", ".join(reconciled.left_out))
    opts = {"match": match, "labels": labels, "partial_credit": rule.partial_credit, "beta": beta,
            "only": sorted(only) if only else None, "map": label_map or None,
            "align_whitespace": align_whitespace, **(options or {})}
    return Score(gold.name, pred.name, rule, beta, pair, items, opts, notes, missing)
