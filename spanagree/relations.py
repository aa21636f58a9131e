"""Relations and events compared: one document's relations of two sides matched on the spans' alignment.

A relation of the first side **matches** one of the second when

- their types are equal;
- role by role, their arguments are *aligned* spans: paired, with some credit, by the run's span
  alignment (:func:`spanagree.match.align` under the run's ``match`` and ``labels``) — the
  arguments compared as a multiset of ``(role, span)``, so that a role given twice (an event's
  ``Theme`` and ``Theme``) matches in either order;
- for a **symmetric** type (BRAT's ``annotation.conf``: ``<REL-TYPE>:symmetric``, or
  ``symmetric_relations``), the arguments compared without their roles: ``Arg1:x Arg2:y``
  matches ``Arg1:y' Arg2:x'``;
- for an **event**, the triggers are aligned too.

::

    first    Ana ─Lives→ Porto      Ana ─Visits→ Porto     Bo ─Knows→ Ana
    second   Ana ─Lives→ Porto      Ana ─Loves→  Porto     Bo ─Knows→ Ana_
                 a                  b (Visits), c (Loves)  a when Ana ≈ Ana_ (overlap), else b, c

Since the span alignment is one-to-one, each relation of the first side has at most one *image*
(its type, trigger and arguments carried to the second side through the alignment), and it can
match exactly the relations of the second side that equal its image: the relations that can pair
fall into groups of equal signatures, with no candidate pair across groups. The one-to-one matching
of maximum total credit (each matched relation earns 1) therefore pairs ``min(n₁, n₂)`` relations
in each group — the maximum-weight assignment needs no solver here. Every relation counts (two
identical ones are two relations).

Counts: ``a`` the matched relations, ``b`` the first side's others, ``c`` the second side's, per
type and overall; an unmatched relation counts in its own type (a retyped one in ``b`` under the
first side's type and in ``c`` under the second's).

The relations left unmatched are classified for the listings (the first side plays the prediction,
the second the gold, as in :mod:`spanagree.errorkinds`), pairing what is left greedily in canonical
order, first by the first kind below, then by the second:

==========================  =================================================================
``argument_boundary``       same type, every argument (and trigger) overlaps its counterpart's,
                            not every one aligned under the run's rule
``wrong_type``              arguments (and trigger) aligned, types different
``missed``                  a relation of the second side (the gold) left without a partner
``spurious``                a relation of the first side (the prediction) left without a partner
==========================  =================================================================

References
----------
brateval (Verspoor et al., ``au.com.nicta.csp.brateval.CompareRelations``) compares relations by
type and arguments under the same span options as its entities; docs/peers.md compares the two.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from .match import Alignment, MatchRule, shared_characters
from .slotted import Slotted
from .span import Relation, Span

#: The kinds of a relation's comparison, in the order they are reported.
RELATION_KINDS = {
    "correct": "matched: same type, arguments (and trigger) aligned",
    "argument_boundary": "same type, arguments overlap their counterparts' but are not all aligned under the rule",
    "wrong_type": "arguments (and trigger) aligned, types different",
    "missed": "a relation of the second side (the gold) with no partner",
    "spurious": "a relation of the first side (the prediction) with no partner",
}


@dataclass(frozen=True, slots=True)
class RelationRecord:
    """One relation of one document classified: its kind, the second side's relation (the gold's,
    ``None`` when spurious) and the first side's (the prediction's, ``None`` when missed)."""

    kind: str
    second: Relation | None
    first: Relation | None


def aligned_keys(alignment: Alignment, rule: MatchRule) -> dict:
    """The alignment's pairs that earned credit, as the first span's matching key → the second's
    (spans equal on the rule's key were counted once: each of them is aligned as the one kept)."""
    key = rule.key
    return {key(pair.first): key(pair.second) for pair in alignment.pairs if pair.credit > 0}


def signature(relation: Relation, key, symmetric: frozenset) -> tuple | None:
    """What a relation matches on: its type, its trigger's key and its arguments' ``(role, key)``
    as a sorted multiset (the keys without roles for a symmetric type); ``key`` gives each span's
    key (``None``: a span without one, the relation then matches nothing)."""
    trigger = None
    if relation.trigger is not None:
        trigger = key(relation.trigger)
        if trigger is None:
            return None
    arguments = []
    for role, span in relation.arguments:
        found = key(span)
        if found is None:
            return None
        arguments.append(found if relation.type in symmetric else (role, found))
    return relation.type, trigger, tuple(sorted(arguments, key=repr))


def compared_relations(first: list[Relation], second: list[Relation], alignment: Alignment, rule: MatchRule,
                       symmetric: frozenset = frozenset()) -> list[RelationRecord]:
    """Every relation of one document's two sides classified (:data:`RELATION_KINDS`): the
    matched ones ``correct``, the others as the module says. ``alignment`` is the document's span
    alignment under ``rule`` (first side first).

    Examples
    --------
    >>> from spanagree.match import align
    >>> from spanagree.span import Span
    >>> ana, porto, ana2 = Span("d", 0, 3, "PER"), Span("d", 12, 17, "LOC"), Span("d", 0, 4, "PER")
    >>> first = [Relation("Lives", (("Arg1", ana), ("Arg2", porto))), Relation("Near", (("Arg1", porto),
    ...          ("Arg2", ana)))]
    >>> second = [Relation("Lives", (("Arg1", ana2), ("Arg2", porto))), Relation("Near", (("Arg1", ana2),
    ...           ("Arg2", porto)))]
    >>> rule = MatchRule("overlap")
    >>> [r.kind for r in compared_relations(first, second, align([ana, porto], [ana2, porto], rule), rule)]
    ['correct', 'missed', 'spurious']
    >>> [r.kind for r in compared_relations(first, second, align([ana, porto], [ana2, porto], rule), rule,
    ...                                     frozenset({"Near"}))]
    ['correct', 'correct']
    >>> exact = MatchRule("exact")
    >>> [r.kind for r in compared_relations(first[:1], second[:1], align([ana, porto], [ana2, porto], exact), exact)]
    ['argument_boundary']
    """
    own = rule.key
    partners = aligned_keys(alignment, rule)

    def partners_of(span):
        return partners.get(own(span))

    groups: dict = defaultdict(lambda: ([], []))
    left_first: list[Relation] = []  # those that cannot match: a span not aligned
    for relation in first:
        found = signature(relation, partners_of, symmetric)
        if found is None:
            left_first.append(relation)
        else:
            groups[found][0].append(relation)
    for relation in second:
        groups[signature(relation, own, symmetric)][1].append(relation)
    records = []
    left_second: list[Relation] = []
    for mine, theirs in groups.values():
        matched = min(len(mine), len(theirs))
        records += [RelationRecord("correct", s, f) for f, s in zip(mine[:matched], theirs[:matched])]
        left_first += mine[matched:]
        left_second += theirs[matched:]
    left_first.sort(key=Relation.sort_key)
    left_second.sort(key=Relation.sort_key)
    if left_first and left_second:  # the residual kinds: candidates looked up by type, then by aligned arguments
        taken_first, taken_second = set(), set()
        by_type: dict = defaultdict(list)
        by_arguments: dict = defaultdict(list)
        for k, relation in enumerate(left_second):
            by_type[relation.type].append(k)
            by_arguments[_argument_keys(relation, own)].append(k)
        for kind, close, candidates in (
                ("argument_boundary", _overlapping, lambda f: by_type.get(f.type, ())),
                ("wrong_type", _retyped, lambda f: by_arguments.get(_argument_keys(f, partners_of), ()))):
            for i, f in enumerate(left_first):
                if i in taken_first:
                    continue
                for k in candidates(f):
                    if k not in taken_second and close(f, left_second[k], partners, own, symmetric):
                        records.append(RelationRecord(kind, left_second[k], f))
                        taken_first.add(i)
                        taken_second.add(k)
                        break
        left_first = [f for i, f in enumerate(left_first) if i not in taken_first]
        left_second = [s for k, s in enumerate(left_second) if k not in taken_second]
    records += [RelationRecord("missed", s, None) for s in left_second]
    records += [RelationRecord("spurious", None, f) for f in left_first]
    records.sort(key=_record_order)
    return records


def _argument_keys(relation: Relation, key) -> tuple:
    """A relation's trigger key and its arguments' keys, sorted, roles and type aside: what a
    retyped relation shares with its counterpart (``key`` of the first side: its partners' keys)."""
    trigger = None if relation.trigger is None else key(relation.trigger)
    return trigger, tuple(sorted((repr(key(span)) for _, span in relation.arguments)))


def _record_order(record: RelationRecord) -> tuple:
    return ((record.second or record.first).sort_key(), (record.first or record.second).sort_key())


def _overlapping(first: Relation, second: Relation, partners: dict, key, symmetric: frozenset) -> bool:
    """Same type, trigger and arguments overlapping their counterparts' (role by role, or in either
    order for a symmetric type), some not aligned."""
    if first.type != second.type or (first.trigger is None) != (second.trigger is None):
        return False
    if first.trigger is not None and not shared_characters(first.trigger.fragments, second.trigger.fragments):
        return False
    return any(all(shared_characters(f.fragments, s.fragments) for f, s in zip(mine, theirs))
               for mine, theirs in _argument_orders(first, second, first.type in symmetric))


def _retyped(first: Relation, second: Relation, partners: dict, key, symmetric: frozenset) -> bool:
    """Different types, trigger and arguments aligned (role by role, or in either order when either
    type is symmetric)."""
    if first.type == second.type or (first.trigger is None) != (second.trigger is None):
        return False
    if first.trigger is not None and partners.get(key(first.trigger)) != key(second.trigger):
        return False
    either = first.type in symmetric or second.type in symmetric
    return any(all(partners.get(key(f)) == key(s) for f, s in zip(mine, theirs))
               for mine, theirs in _argument_orders(first, second, either))


def _argument_orders(first: Relation, second: Relation, any_order: bool):
    """The two relations' argument spans side by side: role by role (the spans of each role in the
    order read), or, for a symmetric type, the second's in each order of its two arguments; nothing
    when their roles differ (or, symmetric, their numbers of arguments)."""
    if len(first.arguments) != len(second.arguments):
        return
    if any_order:
        mine = [span for _, span in first.arguments]
        theirs = [span for _, span in second.arguments]
        yield mine, theirs
        if len(theirs) == 2:
            yield mine, theirs[::-1]
        return
    if sorted(role for role, _ in first.arguments) != sorted(role for role, _ in second.arguments):
        return
    by_role = sorted(range(len(first.arguments)), key=lambda k: first.arguments[k][0])
    other = sorted(range(len(second.arguments)), key=lambda k: second.arguments[k][0])
    yield [first.arguments[k][1] for k in by_role], [second.arguments[k][1] for k in other]


@dataclass(frozen=True, slots=True)
class RelationItem:
    """One relation of the listings (``errors=True``): its document, its :class:`RelationRecord`,
    each side's relation described (:func:`described`) and the text around the hull of its spans."""

    document: str
    record: RelationRecord
    second_text: str | None
    first_text: str | None
    context_before: str | None = None
    context_after: str | None = None

    @property
    def kind(self) -> str:
        return self.record.kind

    def as_row(self, first: str, second: str) -> dict:
        """The listing's fields of the item: a span listing's row with no span (the span fields
        ``None``), then the relations under ``<second>_relation`` and ``<first>_relation``
        (``score``: ``gold``, ``pred``; ``agree``: ``second``, ``first``)."""
        return {"document": self.document, "kind": self.kind, "aligned": self.kind == "correct",
                "credit": 1.0 if self.kind == "correct" else 0.0,
                "context_before": self.context_before, "context_after": self.context_after,
                f"{second}_relation": self.second_text, f"{first}_relation": self.first_text}


def described(relation: Relation | None, text: str | None) -> str | None:
    """A relation in one line: its type, its trigger (an event's) and its arguments, each
    ``role=label start-end "text"`` (fragments joined by ``;``, the text when known).

    >>> ana, porto = Span("d", 0, 3, "PER"), Span("d", 13, 18, "LOC")
    >>> described(Relation("Lives", (("Arg1", ana), ("Arg2", porto))), "Ana lives in Porto")
    'Lives Arg1=PER 0-3 "Ana" Arg2=LOC 13-18 "Porto"'
    """
    if relation is None:
        return None

    def shown(role: str, span: Span) -> str:
        where = ";".join(f"{s}-{e}" for s, e in span.fragments)
        said = "" if text is None else ' "' + span.text(text).replace('"', "'") + '"'
        return f"{role}={span.label} {where}{said}"

    parts = [relation.type]
    if relation.trigger is not None:
        parts.append(shown("trigger", relation.trigger))
    parts += [shown(role, span) for role, span in relation.arguments]
    return " ".join(parts)


def relation_items(doc_id: str, records: list[RelationRecord], text: str | None, context: int) -> list[RelationItem]:
    """One document's :class:`RelationItem` of each record, ``context`` characters around each."""
    from .span import context_of

    return [RelationItem(doc_id, record, described(record.second, text), described(record.first, text),
                         *context_of(text, [span for relation in (record.second, record.first)
                                            if relation is not None for span in relation.spans], context))
            for record in records]


class RelationTally(Slotted):
    """One pair's relations counted: per document, per type, ``[a, b, c]`` (:attr:`by_document`),
    and the kinds of its records, ``(kind, second's type, first's type)`` → number (:attr:`kinds`);
    tallies of disjoint documents add up with ``+=``.

    Examples
    --------
    >>> one, two = RelationTally(), RelationTally()
    >>> one.add("d1", [RelationRecord("spurious", None, Relation("R", ()))])
    >>> two.add("d2", [RelationRecord("correct", Relation("R", ()), Relation("R", ()))])
    >>> one += two
    >>> one.counts(), one.by_type()
    (Counts(a=1, b=1, c=0), {'R': Counts(a=1, b=1, c=0)})
    """

    __slots__ = ("by_document", "kinds", "items")

    def __init__(self, listed: bool = False):
        self.by_document: dict[str, dict[str, list[int]]] = {}
        self.kinds: Counter = Counter()
        #: Per document, its :class:`RelationItem` list (kept for the listings: ``errors=True``), else ``None``.
        self.items: dict[str, list[RelationItem]] | None = {} if listed else None

    def add(self, doc_id: str, records: list[RelationRecord], text: str | None = None, context: int = 0) -> None:
        """Count one document's records (and keep them as items when the tally lists them)."""
        if self.items is not None:
            self.items[doc_id] = relation_items(doc_id, records, text, context)
        types: dict[str, list[int]] = {}
        for record in records:
            if record.kind == "correct":
                types.setdefault(record.second.type, [0, 0, 0])[0] += 1
            else:
                if record.first is not None:
                    types.setdefault(record.first.type, [0, 0, 0])[1] += 1
                if record.second is not None:
                    types.setdefault(record.second.type, [0, 0, 0])[2] += 1
            self.kinds[(record.kind, record.second.type if record.second is not None else None,
                        record.first.type if record.first is not None else None)] += 1
        self.by_document[doc_id] = types

    def __iadd__(self, other: "RelationTally") -> "RelationTally":
        self.by_document.update(other.by_document)
        self.kinds.update(other.kinds)
        if self.items is not None and other.items is not None:
            self.items.update(other.items)
        return self

    def listed(self, documents) -> list[RelationItem]:
        """The items of ``documents``, in their order (``[]`` when the tally kept none)."""
        if self.items is None:
            return []
        return [item for doc_id in documents for item in self.items.get(doc_id, ())]

    def by_type(self, documents=None) -> dict:
        """Each type's :class:`~spanagree.measures.counts.Counts` (over ``documents``, default all), by type."""
        from .measures.counts import Counts

        totals: dict[str, list[int]] = {}
        for doc_id in (self.by_document if documents is None else documents):
            for kind, (a, b, c) in self.by_document.get(doc_id, {}).items():
                total = totals.setdefault(kind, [0, 0, 0])
                total[0] += a
                total[1] += b
                total[2] += c
        return {kind: Counts(*totals[kind]) for kind in sorted(totals)}

    def counts(self, documents=None):
        """The :class:`~spanagree.measures.counts.Counts` over every type (over ``documents``, default all)."""
        from .measures.counts import Counts

        return sum(self.by_type(documents).values(), Counts())

    def document_counts(self, doc_id: str):
        """One document's :class:`~spanagree.measures.counts.Counts`."""
        return self.counts([doc_id])


def check_relation_options(options) -> None:
    """``symmetric_relations`` goes with ``relations=True`` (:class:`~spanagree.errors.UsageError` otherwise).

    >>> from spanagree.options import RunOptions
    >>> check_relation_options(RunOptions(symmetric_relations="Alias"))
    Traceback (most recent call last):
    ...
    spanagree.errors.UsageError: symmetric_relations goes with relations=True
    """
    from .errors import UsageError, parameter

    if options.symmetric_relations is not None and not options.relations:
        raise UsageError("{option} goes with {relations}", option="symmetric_relations",
                         relations=parameter("relations", True))


def relations_figures(tally: RelationTally, documents=None) -> dict:
    """The JSON's ``relations`` of a pair or a prediction: a, b, c and the rates
    (:func:`~spanagree.measures.registry.counts_dict`), then ``by_type``: each type's."""
    from .measures.registry import counts_dict

    from .measures.counts import Counts

    by_type = tally.by_type(documents)
    return {**counts_dict(sum(by_type.values(), Counts())),
            "by_type": {kind: counts_dict(counts) for kind, counts in by_type.items()}}


__all__ = ["RELATION_KINDS", "RelationItem", "RelationRecord", "RelationTally", "aligned_keys", "check_relation_options",
           "compared_relations", "described", "relation_items", "relations_figures", "signature"]
