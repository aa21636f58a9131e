"""The error analysis: every span of one document's alignment classified (the prediction is the
first side, the gold the second).

Error analysis (MUC / SemEval-2013 categories) describes every span without changing a, b, c:
each aligned pair, and each pair found by a second alignment (overlap, labels ignored) among the
spans left unaligned, is classified by how its two spans relate (under a greedy pairing,
``score --pairing hipe|nervaluate``, the scorer's own pairs, some earning nothing, and no second
alignment) —

=========================  ===================================================
``correct``                same fragments, same label
``partial``                overlapping, different fragments, same label
``wrong_label``            same fragments, different label
``wrong_label_and_boundary`` overlapping, different fragments and label
``missed``                 a gold span with no partner
``spurious``               a predicted span with no partner
``written_otherwise``      same fragments, same label, a token written otherwise
                           (``--pairing hipe`` only: :data:`PAIRING_KINDS`)
=========================  ===================================================

``written_otherwise`` is the HIPE scorer's: its entities carry their text (their tokens as its
file writes them), so a prediction with the gold's fragments and label over a token the run
writes otherwise (a run cut along the gold's documents, its tokens taken as the gold's:
:mod:`spanagree.formats.resegment`) is not equal to the gold's entity but an overlap (no credit
under ``--match exact``, 1 under ``--match overlap``). It is listed and counted only where it
occurs, after the six kinds every run has (:data:`KINDS`).

A pair that the rule aligned earns credit in ``a`` (e.g. a ``partial`` pair under
``--match partial`` earns 0.5); the residual pairs earn none (they are in b and c).

:func:`records_of` classifies one alignment's spans, :func:`error_keys` and :func:`keys_of`
count them, :func:`item` makes one :class:`ErrorItem` of the listing. ``score`` tallies the keys
and ``agree --errors`` and ``score --errors`` list the items
(:mod:`spanagree.pipeline.analyses`); the report draws the kinds.
"""

from __future__ import annotations

from dataclasses import dataclass

from .match import Alignment, MatchRule, Pair, optimal_pairs
from .span import CONTEXT, Span, context_of

#: Why a cluster of ``merge`` is listed for adjudication, in the order they are reported
#: (:data:`spanagree.voting.KINDS`).
ADJUDICATION_KINDS = {
    "dropped": "fewer than K annotators marked it",
    "boundary_tie": "several fragments have the most votes",
    "label_tie": "several labels have the most votes",
    "label_split": "annotators gave different labels to it",
    "several_spans": "one annotator has several spans in it (a chain of overlaps)",
}
KINDS = ("correct", "partial", "wrong_label", "wrong_label_and_boundary", "missed", "spurious")
#: The kinds only a pairing gives, with what each means: counted, listed and drawn only where
#: they occur, after :data:`KINDS` (a run that has none writes what it wrote before).
PAIRING_KINDS = {
    "written_otherwise": "same fragments, same label, a token written otherwise (the HIPE scorer compares "
                         "an entity's text: --pairing hipe)",
}
NONE = "(none)"
RESIDUAL_RULE = MatchRule("overlap", "ignore")


@dataclass(slots=True)
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
    #: The text just before and just after the item's hull (:func:`context_of`); None without a text.
    context_before: str | None = None
    context_after: str | None = None

    def __reduce__(self):
        # pickled as its values, rebuilt by __init__ (score --errors spools its items: a slotted
        # dataclass's own state functions set each slot one call at a time)
        return ErrorItem, (self.document, self.kind, self.aligned, self.credit, self.gold, self.pred, self.gold_text,
                           self.pred_text, self.context_before, self.context_after)

    def as_dict(self) -> dict:
        """The item as ``score --errors`` writes it (gold's span, then the prediction's, then the context)."""
        return {
            "document": self.document, "kind": self.kind, "aligned": self.aligned, "credit": self.credit,
            **span_fields("gold", self.gold, self.gold_text), **span_fields("pred", self.pred, self.pred_text),
            "context_before": self.context_before, "context_after": self.context_after,
        }

    def as_pair_dict(self) -> dict:
        """The item as ``agree --errors`` writes it: the first annotator of the pair in place of the
        prediction, the second (the reference) in place of the gold."""
        return {
            "document": self.document, "kind": self.kind, "aligned": self.aligned, "credit": self.credit,
            **span_fields("first", self.pred, self.pred_text), **span_fields("second", self.gold, self.gold_text),
            "context_before": self.context_before, "context_after": self.context_after,
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


#: The kind of a pair, by (same fragments, same label).
PAIR_KINDS = {(True, True): "correct", (True, False): "wrong_label",
              (False, True): "partial", (False, False): "wrong_label_and_boundary"}


def kind_of(pred: Span, gold: Span, rule: MatchRule | None = None) -> str:
    """The kind of a pair; under a rule with attributes in the spans' identity
    (``--match-attributes``), another value (another knowledge-base id) is another label."""
    same = pred.label == gold.label if rule is None or not rule.attributes else rule.same_identity(pred, gold)
    return PAIR_KINDS[pred.fragments == gold.fragments, same]


def classified(alignment: Alignment) -> tuple[list[Pair], list[Pair], list[Span], list[Span]]:
    """One document's spans sorted out (prediction = first side, gold = second side).

    Returns the aligned pairs, the residual pairs (a second alignment of what is left,
    overlapping and labels ignored), the missed gold spans and the spurious predicted spans:
    every span the rule counted (``alignment.first`` and ``.second``, duplicates on the key
    already removed) is in exactly one of them. Kinds follow from :func:`kind_of`.
    """
    pairs, first, second = alignment.pairs, alignment.first, alignment.second
    if alignment.pairing != "optimal":  # the scorer's procedure paired what it pairs: nothing residual
        return pairs, [], alignment.unmatched_second(), alignment.unmatched_first()
    left_pred = [] if len(pairs) == len(first) else alignment.unmatched_first()
    left_gold = [] if len(pairs) == len(second) else alignment.unmatched_second()
    if not left_pred or not left_gold:
        return pairs, [], left_gold, left_pred
    # The second alignment must not drop spans that share fragments but not labels (distinct
    # under labels strict), so it calls the one-to-one solver directly rather than align(),
    # which would count them once.
    residual = optimal_pairs(left_pred, left_gold, RESIDUAL_RULE)
    if residual:
        paired_pred = {id(p.first) for p in residual}
        paired_gold = {id(p.second) for p in residual}
        left_gold = [gold for gold in left_gold if id(gold) not in paired_gold]
        left_pred = [pred for pred in left_pred if id(pred) not in paired_pred]
    return pairs, residual, left_gold, left_pred


def records_of(alignment: Alignment) -> list[tuple[str, bool, float, Span | None, Span | None]]:
    """``(kind, aligned, credit, gold, pred)`` of one document's spans, in canonical order (by the
    gold span, else the predicted one; see :func:`classified`)."""
    pairs, residual, missed, spurious = classified(alignment)
    rule = alignment.rule
    records = [(kind_of(p.first, p.second, rule), True, p.credit, p.second, p.first) for p in pairs]
    for k in alignment.written_otherwise:
        records[k] = ("written_otherwise", *records[k][1:])
    records += [(kind_of(p.first, p.second, rule), False, 0.0, p.second, p.first) for p in residual]
    records += [("missed", False, 0.0, gold, None) for gold in missed]
    records += [("spurious", False, 0.0, None, pred) for pred in spurious]
    records.sort(key=_record_order)
    return records


def error_keys(doc_id: str, alignment: Alignment, rule: MatchRule | None = None) -> list[tuple]:
    """``(kind, gold label, predicted label)`` of each item of one document (None: no span).

    ``rule`` is the rule that made the alignment, when known. If under it every aligned pair is
    ``correct`` (exact boundaries, labels strict: same fragments, same label), the aligned pairs
    are left out here; :func:`correct_pairs` counts them from the per-label counts.
    """
    pairs, residual, missed, spurious = classified(alignment)
    judged = residual if pairs_are_correct(rule) else (pairs + residual if residual else pairs)
    kinds = PAIR_KINDS
    if alignment.rule is not None and alignment.rule.attributes:
        keys = [(kind_of(p[0], p[1], alignment.rule), p[1].label, p[0].label) for p in judged]
    else:
        keys = [(kinds[p[0].fragments == p[1].fragments, p[0].label == p[1].label], p[1].label, p[0].label)
                for p in judged]
    for k in alignment.written_otherwise:  # (a greedy pairing: `judged` is the pairs)
        keys[k] = ("written_otherwise", *keys[k][1:])
    if missed:
        keys += [("missed", gold.label, None) for gold in missed]
    if spurious:
        keys += [("spurious", None, pred.label) for pred in spurious]
    return keys


def pairs_are_correct(rule: MatchRule | None) -> bool:
    """Whether every pair aligned under ``rule`` is ``correct`` (exact boundaries, labels strict,
    the optimal pairing: a greedy one also pairs spans that earn nothing)."""
    return rule is not None and rule.boundary == "exact" and rule.strict_labels and rule.pairing == "optimal"


def correct_pairs(tally, rule: MatchRule) -> dict[tuple, int]:
    """The items :func:`error_keys` left out under ``rule``: ``("correct", label, label)`` → the
    number of aligned pairs of that label (all of credit 1), from the per-label counts (``tally``:
    a :class:`~spanagree.pipeline.compare.LabelTally`)."""
    if not pairs_are_correct(rule):
        return {}
    return {("correct", label, label): number for label, number in tally.ones.items() if number}


def _record_order(record) -> tuple:
    _, _, _, gold, pred = record
    return ((gold or pred).sort_key(), (pred or gold).sort_key())


def keys_and_items(doc_id: str, alignment: Alignment, text: str | None,
                   rule: MatchRule | None = None, context: int = CONTEXT) -> tuple[list[tuple], list[ErrorItem]]:
    """One document's :func:`error_keys` (``rule`` as there) and its items, in canonical order,
    from one classification of its spans (``context`` characters of text on each side)."""
    return keys_and_items_of(doc_id, records_of(alignment), text, rule, context)


def keys_and_items_of(doc_id: str, records: list, text: str | None, rule: MatchRule | None = None,
                      context: int = CONTEXT) -> tuple[list[tuple], list[ErrorItem]]:
    """:func:`keys_and_items` from the document's :func:`records_of`."""
    keys = keys_of(records, rule)
    items = [item(doc_id, kind, aligned, credit, gold, pred, text, context)
             for kind, aligned, credit, gold, pred in records]
    return keys, items


def keys_of(records: list, rule: MatchRule | None = None) -> list[tuple]:
    """:func:`error_keys` from the document's :func:`records_of` (``rule`` as there)."""
    counted = pairs_are_correct(rule)  # then every aligned pair is correct, counted by correct_pairs
    return [(kind, gold.label if gold is not None else None, pred.label if pred is not None else None)
            for kind, aligned, _, gold, pred in records if not (counted and aligned)]


def disagreements_of(doc_id: str, alignment: Alignment, text: str | None, context: int = CONTEXT) -> list[ErrorItem]:
    """One document's items that are not ``correct`` (``agree --errors``: the first side plays the
    prediction, the second the gold)."""
    return [item(doc_id, kind, aligned, credit, gold, pred, text, context)
            for kind, aligned, credit, gold, pred in records_of(alignment) if kind != "correct"]


def item(doc_id, kind, aligned, credit, gold, pred, text, context: int = CONTEXT) -> ErrorItem:
    return ErrorItem(doc_id, kind, aligned, credit, gold, pred,
                     gold.text(text) if gold and text is not None else None,
                     pred.text(text) if pred and text is not None else None,
                     *context_of(text, (gold, pred), context))
