"""Matching rules and the one-to-one alignment of two annotators' spans in one document.

A rule has two axes (docs/matching.md):

- **boundary** — ``exact`` (same fragments), ``overlap`` (the character sets intersect; full
  credit) or ``partial`` (exact = 1, overlapping otherwise = partial credit: 0.5 by default, as in
  Hripcsak & Rothschild 2005 and SemEval-2013 Task 9, or ``dice`` = 2|x∩y| / (|x| + |y|) in
  characters);
- **labels** — ``strict`` (labels must be equal for any credit) or ``ignore``.

::

    first    [=====PER=====]        [==ORG==]      [=LOC=]
    second   [=====PER=====]      [====ORG====]            [=LOC=]
              exact: 1            overlap: 1       no overlap: 0
                                  partial: 0.5

The alignment is **one-to-one with maximum total credit**: a maximum-weight bipartite matching,
solved exactly on each connected component of the candidate graph. Candidate pairs (spans whose
hulls intersect; the credit function then decides) come from an index named in
:data:`CANDIDATE_INDEXES`, never from all pairs: a sorted sweep over start offsets (the
default) or an ``intervaltree`` per document. Both give the same pairs in the same order, so the
alignment never depends on the index; the sweep is several times faster (``benchmarks/RESULTS.md``)
and, like the tree, costs O(n log n + pairs). Among equally good
alignments it prefers more exact pairs, then more same-label pairs, then a canonical order that
does not depend on which side is first — so swapping the sides swaps b and c and changes nothing
else.

Spans identical on the matching key (fragments, plus the label when labels are strict) are
counted once; :class:`Alignment` records how many were dropped.

**Pairings.** The optimal alignment is the default; two other procedures, named in
:data:`PAIRINGS`, reproduce official scorers that pair greedily (``score --pairing``): they take
the first side's spans (the prediction) in document order and let each claim one of the second
side's (the gold) by the scorer's own rule (:func:`hipe_pairs`, :func:`nervaluate_pairs`). They
are alignment rules beside the optimal one: the rule's credit function still says what each pair
earns, and a, b, c come from the pairs as always.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from math import fsum
from operator import itemgetter
from typing import Callable, NamedTuple, Sequence

from .assignment import SMALL, max_assignment
from .measures.counts import Counts
from .errors import UsageError
from .span import Fragments, Span, compared_attributes

#: Boundary rules, their meaning — the single source of truth for the CLI and the docs.
BOUNDARIES = {
    "exact": "same fragments (start and end of every fragment)",
    "overlap": "at least one shared character; full credit",
    "partial": "exact = 1, other overlaps earn partial credit (--partial-credit, default 0.5)",
}
#: Label rules.
LABEL_RULES = {
    "strict": "labels must be equal to match at all (also for partial credit)",
    "ignore": "labels are not compared",
}
#: How the spans are paired — the single source of truth for ``--pairing`` and the docs.
PAIRINGS = {
    "optimal": "one-to-one with maximum total credit; independent of order and of which side is first (default)",
    "hipe": "the HIPE scorer's: predictions in document order, each paired with the first gold it equals, else the "
            "first with its boundaries, else the first unclaimed gold it overlaps",
    "nervaluate": "nervaluate 1.2.1's: predictions in document order, each paired with the closest unclaimed gold "
                  "earning full credit, else the first unclaimed gold it overlaps",
    "greedy": "the official linking scorers' counting: HIPE's procedure (hipe) under its general name",
}
#: Resolution at which ``dice`` credits are compared when choosing the best alignment.
DICE_RESOLUTION = 10**6


@dataclass(frozen=True)
class MatchRule:
    """A matching rule: ``boundary`` × ``labels`` (and the partial credit).

    Parameters
    ----------
    boundary : {"exact", "overlap", "partial"}
    labels : {"strict", "ignore"}
    partial_credit : float or "dice"
        Credit of a non-exact overlapping pair under ``partial``: a number in (0, 1] (default
        0.5) or ``"dice"`` for ``2|x∩y| / (|x| + |y|)`` over characters.
    pairing : {"optimal", "hipe", "nervaluate", "greedy"}
        How spans are paired (:data:`PAIRINGS`): the optimal one-to-one alignment, or an official
        scorer's greedy procedure (the first side is the prediction).
    attributes : tuple of str
        Attributes that are part of a span's identity (``--match-attributes``, e.g. ``kb_id``:
        linking): two spans match only when, for each of them, their values agree
        (:meth:`links_agree`). Names are public names (:func:`spanagree.span.compared_attributes`).
    link_top : int
        How many of a value's ``|``-separated candidates count (``--link-top K``, default 1).

    Examples
    --------
    >>> rule = MatchRule("partial", "ignore")
    >>> rule.credit(Span("d", ((0, 10),), "A"), Span("d", ((5, 12),), "B"))
    0.5

    Linking: the same mention with another knowledge-base id earns nothing:

    >>> linking = MatchRule("exact", attributes=("kb_id",))
    >>> linking.credit(Span("d", 0, 5, "PER", attributes=(("kb_id", "Q1"),)),
    ...                Span("d", 0, 5, "PER", attributes=(("kb_id", "Q2"),)))
    0.0
    """

    boundary: str = "exact"
    labels: str = "strict"
    partial_credit: float | str = 0.5
    pairing: str = "optimal"
    attributes: tuple = ()
    link_top: int = 1

    def __post_init__(self) -> None:
        if self.boundary not in BOUNDARIES:
            raise UsageError(f"unknown match rule {self.boundary!r}; choose one of: {', '.join(BOUNDARIES)}")
        if self.labels not in LABEL_RULES:
            raise UsageError(f"unknown label rule {self.labels!r}; choose one of: {', '.join(LABEL_RULES)}")
        credit = self.partial_credit
        if credit != "dice":
            try:
                credit = float(credit)
            except (TypeError, ValueError):
                raise UsageError(f"{{option}} must be a number in (0, 1] or 'dice', got {credit!r}",
                                 option="partial_credit") from None
            if not 0 < credit <= 1:
                raise UsageError(f"{{option}} must be in (0, 1], got {credit}", option="partial_credit")
            object.__setattr__(self, "partial_credit", credit)
        if self.pairing not in PAIRINGS:
            raise UsageError(f"unknown pairing {self.pairing!r}; choose one of: {', '.join(PAIRINGS)}")
        names = self.attributes
        if isinstance(names, str):
            names = [name.strip() for name in names.split(",")]
        names = tuple(dict.fromkeys(names or ()))
        if any(not isinstance(name, str) or not name for name in names):
            raise UsageError(f"{{option}} takes attribute names, got {self.attributes!r}", option="match_attributes")
        object.__setattr__(self, "attributes", names)
        top = self.link_top
        if isinstance(top, bool) or not isinstance(top, int) or top < 1:
            raise UsageError(f"{{option}} must be a whole number, 1 or more, got {top!r}", option="link_top")

    @property
    def strict_labels(self) -> bool:
        return self.labels == "strict"

    def key(self, span: Span):
        """The matching key: spans equal on it count once (the values of :attr:`attributes` too)."""
        key = (span.fragments, span.label) if self.labels == "strict" else span.fragments
        if self.attributes:
            return (key, self.link_values(span))
        return key

    def link_values(self, span: Span) -> tuple:
        """The span's values of :attr:`attributes` (``None`` where it has none)."""
        found = compared_attributes(span)
        return tuple(found.get(name) for name in self.attributes)

    def links_agree(self, first: Span, second: Span) -> bool:
        """Whether two spans agree on every attribute of :attr:`attributes` — the one place where
        attribute identity is decided (:meth:`credit`, the greedy pairings and the error kinds
        ask it).

        Two values agree when they are equal (both missing included), or when the first
        candidate of either is among the first :attr:`link_top` candidates of the other
        (candidates: the value split at ``|``, in order). With one gold id this is the HIPE
        scorer's ``--n_best`` rule (the gold's id among the prediction's first K); checked both
        ways, it is the same whichever side is first. ``NIL`` is a value like any other.

        Examples
        --------
        >>> rule = MatchRule(attributes=("kb_id",), link_top=2)
        >>> span = lambda value: Span("d", 0, 5, "PER", attributes=(("kb_id", value),))
        >>> rule.links_agree(span("Q2|Q1|Q3"), span("Q1")), rule.links_agree(span("Q2|Q3|Q1"), span("Q1"))
        (True, False)
        >>> rule.links_agree(span("NIL"), span("NIL")), rule.links_agree(span("NIL"), Span("d", 0, 5, "PER"))
        (True, False)
        """
        if not self.attributes:
            return True
        if first.attributes == second.attributes:
            return True
        top = self.link_top
        for x, y in zip(self.link_values(first), self.link_values(second)):
            if x == y:
                continue
            if x is None or y is None:
                return False
            xs, ys = x.split("|"), y.split("|")
            if xs[0] not in ys[:top] and ys[0] not in xs[:top]:
                return False
        return True

    def same_identity(self, first: Span, second: Span) -> bool:
        """Same label and :meth:`links_agree` (what the error kinds call the same label)."""
        return first.label == second.label and self.links_agree(first, second)

    def credit(self, first: Span, second: Span, *, same_text: bool = True) -> float:
        """Credit of a pair under this rule: 1, a partial credit, or 0 (no match).

        ``same_text=False``: the two spans' texts differ (a token written otherwise; the HIPE
        scorer's equality compares them, :func:`hipe_pairs`), so that the pair earns what an
        overlap with other boundaries earns, even with the same fragments.

        >>> rule = MatchRule("exact", pairing="hipe")
        >>> span = Span("d", 0, 5, "PER")
        >>> rule.credit(span, span), rule.credit(span, span, same_text=False)
        (1.0, 0.0)
        """
        if self.labels == "strict" and first.label != second.label:
            return 0.0
        if self.attributes and not self.links_agree(first, second):
            return 0.0
        if first.fragments == second.fragments and same_text:
            return 1.0
        if self.boundary == "exact":
            return 0.0
        shared = shared_characters(first.fragments, second.fragments)
        if not shared:
            return 0.0
        if self.boundary == "overlap":
            return 1.0
        if self.partial_credit == "dice":
            return 2 * shared / (first.length + second.length)
        return self.partial_credit

    def as_dict(self) -> dict:
        return {"match": self.boundary, "labels": self.labels, "partial_credit": self.partial_credit}


def shared_characters(x: Fragments, y: Fragments) -> int:
    """Number of characters two fragment tuples have in common (both sorted, disjoint)."""
    if len(x) == 1 and len(y) == 1:
        (xs, xe), (ys, ye) = x[0], y[0]
        return max(0, min(xe, ye) - max(xs, ys))
    shared = i = j = 0
    while i < len(x) and j < len(y):
        (xs, xe), (ys, ye) = x[i], y[j]
        shared += max(0, min(xe, ye) - max(xs, ys))
        if xe <= ye:
            i += 1
        else:
            j += 1
    return shared


class Pair(NamedTuple):
    """Two aligned spans and the credit the pair earned."""

    first: Span
    second: Span
    credit: float

    @property
    def exact(self) -> bool:
        return self.first.fragments == self.second.fragments

    @property
    def same_label(self) -> bool:
        return self.first.label == self.second.label


_FIRST, _SECOND, _CREDIT = itemgetter(0), itemgetter(1), itemgetter(2)
_tuple_new = tuple.__new__  # _tuple_new(Pair, (first, second, credit)): a Pair at C speed


@dataclass(slots=True)
class Alignment:
    """The one-to-one alignment of two span lists (one document).

    ``first`` and ``second`` are the spans after removing duplicates on the matching key;
    ``duplicates`` gives how many were removed on each side.
    """

    first: list[Span]
    second: list[Span]
    pairs: list[Pair]
    duplicates: tuple[int, int] = (0, 0)
    #: The spans of ``first`` and of ``second`` left without a partner, in their order, when
    #: :func:`align` found them on the way (the exact join does); otherwise worked out on demand.
    unmatched: tuple[list[Span], list[Span]] | None = None
    #: The procedure that paired the spans (:data:`PAIRINGS`): pairs of a greedy one may earn no
    #: credit (a prediction that claimed a gold span it does not match), and are its error kinds.
    pairing: str = "optimal"
    #: Pairs whose second span another pair had claimed already (``hipe`` only: its scorer lets an
    #: equal or same-boundary prediction claim a gold span again, and counts the gold span again).
    reclaimed: int = 0
    #: The rule that aligned the spans, when :func:`align` made it (the error kinds ask it whether
    #: two spans have the same identity: :meth:`MatchRule.same_identity`).
    rule: "MatchRule | None" = None
    #: The places in :attr:`pairs` of the pairs whose spans have the same fragments and identity
    #: but not the same text (``hipe`` only: a token written otherwise; its scorer's strict
    #: equality compares an entity's text, so they are paired as overlapping spans).
    written_otherwise: tuple[int, ...] = ()

    @property
    def counts(self) -> Counts:
        """a = total credit, b = ``|first| − a``, c = ``|second| − a`` (each second span once per pair
        that claimed it: :attr:`reclaimed` more).

        The credits are summed exactly rounded (``math.fsum``), so a does not depend on the order
        of the pairs (which side is first, the order of the input spans, the candidate index).
        """
        a = fsum(map(_CREDIT, self.pairs))
        n1, n2 = len(self.first), len(self.second) + self.reclaimed
        return Counts(a, max(n1 - a, 0), max(n2 - a, 0))

    def unmatched_first(self) -> list[Span]:
        if self.unmatched is not None:
            return self.unmatched[0]
        taken = set(map(id, map(_FIRST, self.pairs)))
        return [s for s in self.first if id(s) not in taken]

    def unmatched_second(self) -> list[Span]:
        if self.unmatched is not None:
            return self.unmatched[1]
        taken = set(map(id, map(_SECOND, self.pairs)))
        return [s for s in self.second if id(s) not in taken]

    def swapped(self) -> "Alignment":
        return Alignment(self.second, self.first, [Pair(p.second, p.first, p.credit) for p in self.pairs],
                         (self.duplicates[1], self.duplicates[0]),
                         None if self.unmatched is None else (self.unmatched[1], self.unmatched[0]),
                         self.pairing, self.reclaimed, self.rule, self.written_otherwise)


def unique_spans(spans: Sequence[Span], rule: "MatchRule") -> tuple[list[Span], int]:
    """Spans with duplicates on the rule's key removed (the first of equal spans kept).

    Under labels strict, duplicates are equal spans. Under labels ignore, spans with the same
    fragments but different labels collapse to the one whose label sorts first.
    """
    unique = list(_unique_by_key(spans, rule).values())
    if rule.labels == "strict" and len(unique) > 1:
        unique.reverse()
    return unique, len(spans) - len(unique)


def _unique_by_key(spans: Sequence[Span], rule: "MatchRule") -> dict:
    """The kept span of each matching key (under labels strict, in reverse order of first occurrence)."""
    if rule.attributes:
        key = rule.key
        if rule.labels == "strict":
            return {key(s): s for s in reversed(spans)}
        seen: dict = {}
        for span in spans:
            k = key(span)
            kept = seen.get(k)
            if kept is None or span.label < kept.label:
                seen[k] = span
        return seen
    if rule.labels == "strict":
        return {(s.fragments, s.label): s for s in reversed(spans)}
    seen = {}
    for span in spans:
        kept = seen.get(span.fragments)
        if kept is None or span.label < kept.label:
            seen[span.fragments] = span
    return seen


def align(first: Sequence[Span], second: Sequence[Span], rule: MatchRule = MatchRule(), *,
          index: str = "sweep", texts_agree: Callable[[Span, Span], bool] | None = None) -> Alignment:
    """Align two annotators' spans of one document one-to-one with maximum total credit.

    Parameters
    ----------
    first, second : sequence of Span
        The two sides' spans of the same document (any order; duplicates allowed).
    rule : MatchRule
    index : {"sweep", "intervaltree"}
        How candidate pairs are found under ``overlap`` and ``partial`` (see
        :data:`CANDIDATE_INDEXES`); the result is the same with either. ``exact`` needs no index:
        its candidates share their fragments and are found by a hash join.
    texts_agree : callable, optional
        ``texts_agree(first_span, second_span)``: whether two spans with the same fragments have
        the same text as their files wrote it (:meth:`spanagree.span.Document.written_text`).
        Only the ``hipe`` pairing asks (its scorer's equality compares an entity's text); the
        others compare offsets. ``None``: the texts agree.

    Returns
    -------
    Alignment
        Its :attr:`Alignment.counts` gives a, b, c.

    Examples
    --------
    Greedy matching in reading order is wrong here; the optimum pairs both::

        first    [====A====]  [=B=]
        second       [=====X=====]
                 [=Y=]

    >>> f = [Span("d", ((0, 10),), "L"), Span("d", ((12, 15),), "L")]
    >>> s = [Span("d", ((4, 16),), "L"), Span("d", ((0, 3),), "L")]
    >>> align(f, s, MatchRule("overlap", "ignore")).counts
    Counts(a=2.0, b=0.0, c=0.0)
    """
    finder = candidate_index(index)
    by_key1 = _unique_by_key(first, rule)
    by_key2 = _unique_by_key(second, rule)
    unique1 = list(by_key1.values())
    unique2 = list(by_key2.values())
    if rule.labels == "strict":
        unique1.reverse()
        unique2.reverse()
    duplicates = (len(first) - len(unique1), len(second) - len(unique2))
    if rule.pairing != "optimal":
        ordered1, ordered2 = in_document_order(unique1), in_document_order(unique2)
        if rule.pairing == "hipe" and texts_agree is not None:
            pairs, reclaimed = hipe_pairs(ordered1, ordered2, rule, finder, texts_agree=texts_agree)
            written = tuple(k for k, pair in enumerate(pairs) if pair.first.fragments == pair.second.fragments
                            and rule.same_identity(pair.first, pair.second) and not texts_agree(pair.first, pair.second))
            return Alignment(unique1, unique2, pairs, duplicates, None, rule.pairing, reclaimed, rule, written)
        pairs, reclaimed = PAIRING_PROCEDURES[rule.pairing](ordered1, ordered2, rule, finder)
        return Alignment(unique1, unique2, pairs, duplicates, None, rule.pairing, reclaimed, rule)
    if rule.boundary != "exact" or rule.attributes:  # (linked values agree without being equal: no join)
        return Alignment(unique1, unique2, optimal_pairs(unique1, unique2, rule, finder), duplicates, rule=rule)
    # Keys are unique on each side and every candidate shares its key: the join is the matching,
    # and the spans it leaves out are the unmatched ones (a partner found leaves `by_key2`, so
    # what stays there is the second side's unmatched, each key hashed once more at most).
    pairs = []
    left1 = []
    take = by_key2.pop
    for key, span in by_key1.items():
        partner = take(key, None)
        if partner is None:
            left1.append(span)
        else:
            pairs.append(_tuple_new(Pair, (span, partner, 1.0)))
    left2 = list(by_key2.values())
    if rule.labels == "strict":  # the dicts hold the reverse of `unique1` and `unique2`
        pairs.reverse()
        left1.reverse()
        left2.reverse()
    return Alignment(unique1, unique2, pairs, duplicates, (left1, left2), rule=rule)


# -- candidate pairs ---------------------------------------------------------------------------


#: Up to this many possible pairs (|first| × |second|), :func:`sweep_candidates` checks each one:
#: faster than sorting there (measured on the benchmark corpus's unaligned spans, about 6 a side).
FEW_PAIRS = 256


def sweep_candidates(first: Sequence[Span], second: Sequence[Span], few: int = FEW_PAIRS) -> list[tuple[int, int]]:
    """Every ``(i, j)`` whose hulls ``[start, end)`` intersect, by a sweep over start offsets.

    Both sides are visited together in order of start (the first side first at equal starts);
    each side keeps its spans still open (end > the current start). A new span meets exactly the
    other side's open spans, and a span leaves its list once, so the cost is O(n log n + pairs),
    never |first| × |second|. For a few spans (|first| × |second| ≤ ``few``) checking each pair
    is cheaper than sorting, and gives the same pairs. Returns the pairs sorted.
    """
    n1, n2 = len(first), len(second)
    if not n1 or not n2:
        return []
    if n1 * n2 <= few:
        hulls = [(s.fragments[0][0], s.fragments[-1][1]) for s in second]
        pairs: list[tuple[int, int]] = []
        i = 0
        for span in first:
            fragments = span.fragments
            start, end = fragments[0][0], fragments[-1][1]
            j = 0
            for other_start, other_end in hulls:
                if other_start < end and start < other_end:
                    pairs.append((i, j))
                j += 1
            i += 1
        return pairs
    # Positions 0 .. n1-1 are the first side's spans, n1 .. n1+n2-1 the second side's.
    starts = [s.fragments[0][0] for s in first]
    starts += [s.fragments[0][0] for s in second]
    ends = [s.fragments[-1][1] for s in first]
    ends += [s.fragments[-1][1] for s in second]
    open1: list[int] = []
    open2: list[int] = []
    pairs = []
    for k in sorted(range(n1 + n2), key=starts.__getitem__):  # stable: first side first on ties
        start = starts[k]
        if k < n1:
            if open2:
                open2 = [j for j in open2 if ends[j] > start]
                for j in open2:
                    pairs.append((k, j - n1))
            open1.append(k)
        else:
            if open1:
                open1 = [i for i in open1 if ends[i] > start]
                j = k - n1
                for i in open1:
                    pairs.append((i, j))
            open2.append(k)
    pairs.sort()
    return pairs


def intervaltree_candidates(first: Sequence[Span], second: Sequence[Span]) -> list[tuple[int, int]]:
    """The same pairs as :func:`sweep_candidates`, from an ``intervaltree.IntervalTree``.

    One tree over the second side's hulls (each interval stores its span's index as ``data``:
    identical intervals would otherwise collapse into one), queried with each first-side hull;
    ``overlap()`` returns an unordered set, so each answer is sorted. Empty intervals are
    rejected before insertion (a tree refuses them). Discontinuous spans are queried by their
    hull; the credit function then keeps only pairs sharing characters.
    """
    if not first or not second:
        return []
    try:
        from intervaltree import Interval, IntervalTree
    except ImportError:
        raise UsageError("the intervaltree index needs the intervaltree package (pip install intervaltree); "
                         "the default index, sweep, needs nothing") from None

    tree = IntervalTree([Interval(s.fragments[0][0], s.fragments[-1][1], j) for j, s in enumerate(second)
                         if s.fragments[-1][1] > s.fragments[0][0]])
    pairs: list[tuple[int, int]] = []
    for i, span in enumerate(first):
        start, end = span.fragments[0][0], span.fragments[-1][1]
        if end > start:
            pairs += [(i, j) for j in sorted(interval.data for interval in tree.overlap(start, end))]
    return pairs


#: Candidate finders, by name: ``f(first, second) -> sorted [(i, j)]`` of hull-overlapping pairs.
#: The single source of truth for the ``index=`` choices of :func:`align`.
CANDIDATE_INDEXES = {
    "sweep": sweep_candidates,
    "intervaltree": intervaltree_candidates,
}


def candidate_index(name: str):
    """The candidate finder called ``name``, or a :class:`UsageError` listing the choices."""
    try:
        return CANDIDATE_INDEXES[name]
    except (KeyError, TypeError):
        raise UsageError(f"unknown candidate index {name!r}; choose one of: {', '.join(CANDIDATE_INDEXES)}") from None


def candidate_edges(first: list[Span], second: list[Span], rule: MatchRule, *,
                    index: str | Callable = "sweep") -> list[tuple[int, int, float]]:
    """Every pair with positive credit: ``(i, j, credit)``, indices into ``first`` and ``second``.

    The index (a name in :data:`CANDIDATE_INDEXES`, or one of its finders) finds the pairs whose
    hulls intersect; the rule's credit keeps those that earn something (same label under labels
    strict; shared characters for discontinuous spans).
    """
    finder = index if callable(index) else candidate_index(index)
    credit = rule.credit
    edges = []
    if rule.boundary == "overlap" and not rule.attributes:
        # Two one-fragment spans whose hulls intersect share characters: under overlap they earn
        # 1 when their labels may pair, without working out the credit.
        strict = rule.labels == "strict"
        for i, j in finder(first, second):
            x, y = first[i], second[j]
            if strict and x.label != y.label:
                continue
            if len(x.fragments) == 1 == len(y.fragments):
                edges.append((i, j, 1.0))
            else:
                value = credit(x, y)
                if value > 0:
                    edges.append((i, j, value))
        return edges
    for i, j in finder(first, second):
        value = credit(first[i], second[j])
        if value > 0:
            edges.append((i, j, value))
    return edges


def optimal_pairs(first: list[Span], second: list[Span], rule: MatchRule,
                  index: str | Callable = "sweep") -> list[Pair]:
    """Maximum-weight one-to-one pairs, solved per connected component of the candidate graph."""
    edges = candidate_edges(first, second, rule, index=index)
    if not edges:
        return []
    # Most edges are components of their own (neither span has another candidate): they are
    # pairs as they stand. The others are grouped into components and solved.
    firsts = [i for i, _, _ in edges]
    seconds = [j for _, j, _ in edges]
    if len(set(firsts)) == len(edges) == len(set(seconds)):  # every component is one edge
        return [_tuple_new(Pair, (first[i], second[j], value)) for i, j, value in edges]
    degree1 = Counter(firsts)
    degree2 = Counter(seconds)
    pairs = []
    shared = []
    for edge in edges:
        i, j, value = edge
        if degree1[i] == 1 and degree2[j] == 1:
            pairs.append(_tuple_new(Pair, (first[i], second[j], value)))
        else:
            shared.append(edge)
    if shared:
        for component in connected_components(shared):
            for i, j, value in solve_component(component, first, second, rule):
                pairs.append(_tuple_new(Pair, (first[i], second[j], value)))
    return pairs


def connected_components(edges: list[tuple[int, int, float]]) -> list[list[tuple[int, int, float]]]:
    """Group edges ``(i, j, w)`` into the connected components of the bipartite graph.

    A union-find, not ``scipy.sparse.csgraph.connected_components``: on the 126 documents of the
    benchmark's ``score`` JSONL run that have shared edges, this took 0.6 ms and csgraph 59 ms (its
    sparse matrix costs about 0.5 ms a call), plus 1.2 s to import scipy.sparse (benchmarks/RESULTS.md).
    """
    parent: dict = {}

    def find(x):
        root = x
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(x, x) != root:
            parent[x], x = root, parent[x]
        return root

    for i, j, _ in edges:
        ri, rj = find((0, i)), find((1, j))
        if ri != rj:
            parent[ri] = rj
    groups: dict = {}
    for edge in edges:
        groups.setdefault(find((0, edge[0])), []).append(edge)
    return list(groups.values())


def credit_units(rule: MatchRule) -> int:
    """Integer units per credit point, so that credits compare exactly (0.5 → 2 units)."""
    if rule.boundary != "partial":
        return 1
    if rule.partial_credit == "dice":
        return DICE_RESOLUTION
    return Fraction(str(rule.partial_credit)).limit_denominator(10**6).denominator


def solve_component(component, first: list[Span], second: list[Span], rule: MatchRule):
    """The best matching of one component: most credit, then most exact pairs, then most
    same-label pairs, then the canonical choice (independent of which side is first).

    The lexicographic objective is one integer weight per edge,
    ``(credit_units · S + exact) · S + same_label`` with ``S`` = the most pairs possible + 1, so
    no lower level can outweigh a higher one; it is solved exactly with
    ``scipy.optimize.linear_sum_assignment`` (dense) or, for large components, scipy's sparse
    ``min_weight_full_bipartite_matching``.
    """
    rows = sorted({i for i, _, _ in component}, key=lambda i: first[i].sort_key())
    cols = sorted({j for _, j, _ in component}, key=lambda j: second[j].sort_key())
    # Orient canonically: the side whose sorted spans come first lexicographically gives the rows.
    row_keys = [first[i].sort_key() for i in rows]
    col_keys = [second[j].sort_key() for j in cols]
    transposed = col_keys < row_keys
    units = credit_units(rule)
    scale = min(len(rows), len(cols)) + 1
    # Every total must stay exact in float64 (2**52): shrink the credit resolution if it would not.
    while units > 1 and units * scale**3 >= 2**52:
        units //= 10
    tie_levels = units * scale**3 < 2**52
    weighted = []
    for i, j, value in component:
        a, b = first[i], second[j]
        w = max(round(value * units), 1)
        if tie_levels:
            w = (w * scale + (a.fragments == b.fragments)) * scale + (a.label == b.label)
        weighted.append((i, j, value, w))
    row_index = {i: r for r, i in enumerate(rows)}
    col_index = {j: c for c, j in enumerate(cols)}
    chosen = max_weight_matching(
        [((col_index[j], row_index[i]) if transposed else (row_index[i], col_index[j]), w) for i, j, _, w in weighted],
        (len(cols), len(rows)) if transposed else (len(rows), len(cols)),
    )
    if transposed:
        chosen = {(r, c) for c, r in chosen}
    return [(i, j, value) for i, j, value, _ in weighted if (row_index[i], col_index[j]) in chosen]


def max_weight_matching(edges: list[tuple[tuple[int, int], int]], shape: tuple[int, int]) -> set[tuple[int, int]]:
    """Maximum-weight matching of a bipartite graph given as ``((row, col), weight)`` edges.

    Weights are positive integers; the result is the set of chosen ``(row, col)``.
    """
    n_rows, n_cols = shape
    if n_rows * n_cols <= SMALL:  # the same answer as scipy's, without importing it
        matrix = [[0] * n_cols for _ in range(n_rows)]
        for (r, c), w in edges:
            matrix[r][c] = w
        return {(r, c) for r, c in max_assignment(matrix) if matrix[r][c] > 0}
    import numpy as np

    if n_rows * n_cols <= 250_000:
        from scipy.optimize import linear_sum_assignment

        matrix = np.zeros(shape, dtype=np.float64)
        for (r, c), w in edges:
            matrix[r, c] = w
        row_ind, col_ind = linear_sum_assignment(matrix, maximize=True)
        return {(int(r), int(c)) for r, c in zip(row_ind, col_ind) if matrix[r, c] > 0}
    # Large sparse component: a full matching on the rows always exists once every row also has
    # a private dummy column of weight 0; minimising (top − w) then maximises the total weight.
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    top = max(w for _, w in edges) + 1
    data = [float(top - w) for _, w in edges] + [float(top)] * n_rows
    row_ids = [r for (r, _), _ in edges] + list(range(n_rows))
    col_ids = [c for (_, c), _ in edges] + [n_cols + r for r in range(n_rows)]
    graph = csr_matrix((data, (row_ids, col_ids)), shape=(n_rows, n_cols + n_rows))
    row_ind, col_ind = min_weight_full_bipartite_matching(graph)
    return {(int(r), int(c)) for r, c in zip(row_ind, col_ind) if c < n_cols}


# -- the official scorers' greedy pairings ------------------------------------------------------


def in_document_order(spans: Sequence[Span]) -> list[Span]:
    """Spans by start, then end (then fragments and label): the order a scorer reading the
    document meets them, whatever order the reader gave them in."""
    return sorted(spans, key=Span.sort_key)


def overlapping_seconds(first: list[Span], second: list[Span], finder: Callable) -> list[list[int]]:
    """For each span of ``first``, the indices of the spans of ``second`` sharing a character
    with it, in ``second``'s order (``finder``: one of :data:`CANDIDATE_INDEXES`)."""
    found: list[list[int]] = [[] for _ in first]
    for i, j in finder(first, second):
        x, y = first[i].fragments, second[j].fragments
        if len(x) == 1 == len(y) or shared_characters(x, y):
            found[i].append(j)
    return found


def hipe_pairs(first: list[Span], second: list[Span], rule: MatchRule,
               finder: Callable = sweep_candidates, *,
               texts_agree: Callable[[Span, Span], bool] | None = None) -> tuple[list[Pair], int]:
    """The HIPE scorer's pairing (``Evaluator.compute_metrics`` of the CLEF HIPE scorer).

    Each prediction (``first``, in document order) claims one gold span (``second``, in document
    order): the first it equals (same fragments and label), claimed or not; else the first that
    either has its fragments (and so another label), claimed or not, or overlaps it and is not
    claimed yet — whichever comes first among the gold spans, as the scorer's one loop over them
    takes it. A prediction that claims nothing is spurious, a gold span nobody claimed missed.
    The pair earns the rule's credit: under exact / strict only an equal pair counts (the
    scorer's *strict* regime), under overlap / strict every same-label pair (its *fuzzy* one).

    The scorer's entities carry their text (its tokens, concatenated as its file writes them), and
    "equal" compares it too: with ``texts_agree`` (:func:`align`'s), a prediction with a gold
    span's fragments and label whose text differs (a token the run writes otherwise) is not
    equal to it. It then claims the gold span only as an overlap does (when no pair has claimed
    it), and earns what an overlap earns (:meth:`MatchRule.credit` with ``same_text=False``:
    nothing under exact, 1 under overlap).

    Returns the pairs and how many of them claimed a gold span claimed before: the scorer counts
    such a gold span once more in its "possible" (c), which :attr:`Alignment.reclaimed` carries.

    Examples
    --------
    The first prediction claims the gold span; the second, equal to it, claims it again::

        gold     [=====PER=====]
        pred     [=PER=]
        pred     [=====PER=====]

    >>> gold = [Span("d", ((0, 10),), "PER")]
    >>> pred = [Span("d", ((0, 4),), "PER"), Span("d", ((0, 10),), "PER")]
    >>> pairs, reclaimed = hipe_pairs(pred, gold, MatchRule("exact", "strict", pairing="hipe"))
    >>> [(p.first.end, p.credit) for p in pairs], reclaimed
    ([(4, 0.0), (10, 1.0)], 1)

    The same prediction, its text written otherwise, is not equal to the gold span, which the
    first one claimed: it claims nothing::

    >>> pairs, reclaimed = hipe_pairs(pred, gold, MatchRule("exact", "strict", pairing="hipe"),
    ...                               texts_agree=lambda first, second: first.end != 10)
    >>> [(p.first.end, p.credit) for p in pairs], reclaimed
    ([(4, 0.0)], 0)
    """
    credit = rule.credit
    claimed: set[int] = set()
    pairs: list[Pair] = []
    reclaimed = 0
    for pred, candidates in zip(first, overlapping_seconds(first, second, finder)):
        fragments, label = pred.fragments, pred.label
        unequal = None  # the gold span with the prediction's fragments and label, if its text differs
        chosen = next((j for j in candidates if second[j].fragments == fragments and second[j].label == label
                       and rule.links_agree(pred, second[j])), None)
        if chosen is not None and texts_agree is not None and not texts_agree(pred, second[chosen]):
            chosen, unequal = None, chosen
        if chosen is None:
            # the scorer's next branch: the first gold span with the prediction's boundaries and
            # another type (claimed or not), or that it overlaps and nobody claimed
            chosen = next((j for j in candidates if (second[j].fragments == fragments
                                                     and not rule.same_identity(pred, second[j]))
                           or j not in claimed), None)
            if chosen is None:
                continue
        if chosen in claimed:
            reclaimed += 1
        else:
            claimed.add(chosen)
        gold = second[chosen]
        pairs.append(_tuple_new(Pair, (pred, gold, credit(pred, gold, same_text=chosen != unequal))))
    return pairs, reclaimed


def nervaluate_pairs(first: list[Span], second: list[Span], rule: MatchRule,
                     finder: Callable = sweep_candidates) -> tuple[list[Pair], int]:
    """nervaluate 1.2.1's pairing (its four evaluation strategies as one loop).

    Each prediction (``first``, in document order) claims one gold span (``second``, in document
    order) not claimed yet that it overlaps: among those earning full credit under the rule, the
    closest (least ``|Δstart| + |Δend|``; the first of equally close ones), else the first one.
    Its ``strict`` is exact / strict, ``exact`` exact / ignore, ``partial`` partial / ignore (credit
    0.5) and ``ent_type`` overlap / strict: where full credit means the same fragments, every full
    candidate is at distance 0 and the first one is taken, as its loop does. A claimed pair that
    earns nothing is its INC, a partial one its PAR. nervaluate's ``min_overlap_percentage``
    (default 1 % of the gold span's length, in whatever units it was given) is not applied.

    Returns the pairs and 0 (a gold span is claimed once).

    Examples
    --------
    ``ent_type``: the first prediction overlaps both gold spans and takes the closer one, which
    leaves the second prediction nothing::

        gold     [==PER==] [==PER==]
        pred             [====PER====]
        pred                 [PER]

    >>> gold = [Span("d", ((0, 5),), "PER"), Span("d", ((5, 10),), "PER")]
    >>> pred = [Span("d", ((4, 10),), "PER"), Span("d", ((6, 8),), "PER")]
    >>> pairs, _ = nervaluate_pairs(pred, gold, MatchRule("overlap", "strict", pairing="nervaluate"))
    >>> [(p.first.start, p.second.start) for p in pairs]
    [(4, 5)]
    """
    credit = rule.credit
    taken: set[int] = set()
    pairs: list[Pair] = []
    for pred, candidates in zip(first, overlapping_seconds(first, second, finder)):
        best = fallback = None
        for j in candidates:
            if j in taken:
                continue
            value = credit(pred, second[j])
            if value == 1.0:
                gold = second[j]
                distance = abs(pred.start - gold.start) + abs(pred.end - gold.end)
                if best is None or distance < best[0]:
                    best = (distance, j, value)
            elif fallback is None:
                fallback = (0, j, value)
        chosen = best or fallback
        if chosen is not None:
            _, j, value = chosen
            taken.add(j)
            pairs.append(_tuple_new(Pair, (pred, second[j], value)))
    return pairs, 0


#: The greedy procedures of :data:`PAIRINGS`, by name: ``f(first, second, rule, finder)`` →
#: ``(pairs, reclaimed)``, both sides in document order.
PAIRING_PROCEDURES: dict[str, Callable] = {"hipe": hipe_pairs, "nervaluate": nervaluate_pairs, "greedy": hipe_pairs}


def greedy_label_tally(alignment: Alignment, rule: MatchRule) -> tuple[list[str], list[str], list[tuple[str, float]]]:
    """The per-label tally of a greedy alignment, as its scorer reports per label (labels strict).

    Returns the label each first span counts under, the label of each claim of a second span
    (a second span claimed twice counts twice), and ``(label, credit)`` of every pair earning
    credit; per label, a = the credits, b = first spans − a, c = claims − a.

    - ``hipe``: everything about a pair counts under the **gold span's** label (a prediction of
      another label that claimed it adds 1 to b and 1 to c of the gold's label and nothing to its
      own), an unpaired span under its own.
    - ``nervaluate``: each label's figures are those of the procedure run again on that label's
      spans alone (nervaluate filters both sides by type before each per-type evaluation).
    """
    if alignment.pairing == "nervaluate":
        first_labels = [span.label for span in alignment.first]
        second_labels = [span.label for span in alignment.second]
        credits = []
        for label in sorted(set(first_labels) & set(second_labels)):
            pairs, _ = nervaluate_pairs(in_document_order([s for s in alignment.first if s.label == label]),
                                        in_document_order([s for s in alignment.second if s.label == label]), rule)
            credits += [(label, pair.credit) for pair in pairs if pair.credit > 0]
        return first_labels, second_labels, credits
    claimed = {id(pair.first): pair.second.label for pair in alignment.pairs}
    first_labels = [claimed.get(id(span), span.label) for span in alignment.first]
    second_labels = [pair.second.label for pair in alignment.pairs]
    second_labels += [span.label for span in alignment.unmatched_second()]
    credits = [(pair.second.label, pair.credit) for pair in alignment.pairs if pair.credit > 0]
    return first_labels, second_labels, credits
