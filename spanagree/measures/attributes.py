"""Agreement on the spans' attributes (``--attributes``): counts that add up, and their figures.

Every attribute of every span counts, by its public name
(:func:`spanagree.span.compared_attributes`). On one document's alignment of two sides:

- an attribute ``(name, value)`` of an aligned pair's first span whose partner has the same
  ``(name, value)`` earns the pair's credit in **a** (1; under ``--match partial`` the partial
  credit, so attribute credit follows the span credit);
- the rest of it goes to **b** (the first side's: ``1 − credit``, or 1 when the partner lacks
  that value), and likewise to **c** for the second side's attributes;
- an attribute of an unaligned span is wholly in b (first side) or c (second side).

So ``a + b`` is the number of the first side's attributes and ``a + c`` the second's, as for
spans. Over the aligned pairs (those earning credit), each attribute's values form a k×k table
in which a span without the attribute has its own value (*missing*): there d is known, and
Cohen's kappa of the table (:func:`spanagree.measures.tables.cohen_kappa`) is the attribute's
``kappa``.

A document's :class:`AttributeCounts` add up with ``+``, so the figures are the same in one
process, under ``jobs`` and on a cluster. :func:`attribute_figures` makes the JSON's
``attributes`` entry.

Examples
--------
One aligned pair agreeing on ``Negation`` and not on ``Certainty``, and an unaligned span::

    first    [Finding: Negation=True, Certainty=Low]    [Finding: Negation=True]
    second   [Finding: Negation=True, Certainty=High]

>>> from spanagree.match import align
>>> from spanagree.span import Span
>>> first = [Span("d", 0, 5, "Finding", attributes=(("A:Negation", "True"), ("A:Certainty", "Low"))),
...          Span("d", 10, 15, "Finding", attributes=(("A:Negation", "True"),))]
>>> second = [Span("d", 0, 5, "Finding", attributes=(("A:Negation", "True"), ("A:Certainty", "High")))]
>>> counts = attribute_counts(align(first, second))
>>> figures = attribute_figures(counts)
>>> figures["a"], figures["b"], figures["c"], figures["f1"]
(1, 2, 1, 0.4)
>>> figures["by_name"]["Certainty"]["a"], figures["by_name"]["Negation"]["a"], figures["by_name"]["Negation"]["b"]
(0, 1, 1)
"""

from __future__ import annotations

import math
import warnings
from collections import Counter

from ..span import compared_attributes
from .counts import Counts
from .registry import counts_dict

#: The value of an attribute a span does not have, in the kappa tables.
MISSING = None
#: The keys of the counts each ``attributes`` entry (and each name's) gives, in order.
COUNT_KEYS = ("a", "b", "c", "precision", "recall", "f1")


class AttributeCounts:
    """One document's (or several documents') attribute counts of one pair of sides.

    Attributes
    ----------
    by_name : dict
        Name → ``[a, b, c]``.
    pairs : int
        Aligned pairs earning credit (the kappa tables' items).
    values : Counter
        ``(name, first value, second value)`` → aligned pairs, for the pairs where at least one
        span has the name (the others add to ``(missing, missing)``: ``pairs`` minus these).
    """

    __slots__ = ("by_name", "pairs", "values")

    def __init__(self, by_name: dict | None = None, pairs: int = 0, values: Counter | None = None):
        self.by_name = by_name if by_name is not None else {}
        self.pairs = pairs
        self.values = values if values is not None else Counter()

    def __reduce__(self):
        return AttributeCounts, (self.by_name, self.pairs, self.values)

    def __add__(self, other: "AttributeCounts") -> "AttributeCounts":
        total = AttributeCounts({name: list(abc) for name, abc in self.by_name.items()}, self.pairs,
                                Counter(self.values))
        total += other
        return total

    def __iadd__(self, other: "AttributeCounts") -> "AttributeCounts":
        for name, (a, b, c) in other.by_name.items():
            mine = self.by_name.setdefault(name, [0.0, 0.0, 0.0])
            mine[0] += a
            mine[1] += b
            mine[2] += c
        self.pairs += other.pairs
        self.values.update(other.values)
        return self

    def __eq__(self, other) -> bool:
        return (isinstance(other, AttributeCounts) and self.by_name == other.by_name and self.pairs == other.pairs
                and +self.values == +other.values)

    def __repr__(self) -> str:
        return f"AttributeCounts({self.by_name!r}, pairs={self.pairs})"

    def counts(self, name: str | None = None) -> Counts:
        """a, b, c of one name, or of every name (``None``)."""
        if name is not None:
            return Counts(*self.by_name.get(name, (0, 0, 0)))
        return sum((Counts(*abc) for abc in self.by_name.values()), Counts())

    def table(self, name: str) -> tuple[list, list[list[int]]]:
        """The values of ``name`` over the aligned pairs: the categories (missing last) and the
        k×k table (rows the first side, columns the second)."""
        found = {(x, y): n for (other, x, y), n in self.values.items() if other == name and n}
        both_missing = self.pairs - sum(found.values())
        if both_missing:
            found[MISSING, MISSING] = found.get((MISSING, MISSING), 0) + both_missing
        values = sorted({v for pair in found for v in pair if v is not MISSING})
        if any(MISSING in pair for pair in found):
            values.append(MISSING)
        index = {v: k for k, v in enumerate(values)}
        table = [[0] * len(values) for _ in values]
        for (x, y), n in found.items():
            table[index[x]][index[y]] += n
        return values, table


def selected(span, names: tuple | None) -> dict[str, str]:
    """The span's compared attributes, only ``names`` when given (``None`` or ``()``: all)."""
    found = compared_attributes(span) if span.attributes else {}
    if names:
        return {name: value for name, value in found.items() if name in names}
    return found


def attribute_counts(alignment, names: tuple | None = None) -> AttributeCounts:
    """One document's :class:`AttributeCounts` from its alignment (the first side's attributes
    in b, the second's in c, matched ones in a with the pair's credit); ``names``: only these.

    Every span the alignment counted is counted (duplicates on the matching key removed, as for
    the span counts); a second span claimed by several pairs (``--pairing hipe``) counts for each.
    """
    counts = AttributeCounts()
    by_name, values = counts.by_name, counts.values

    def add(name, place, amount):
        abc = by_name.get(name)
        if abc is None:
            abc = by_name[name] = [0.0, 0.0, 0.0]
        abc[place] += amount

    for pair in alignment.pairs:
        credit = pair.credit
        x, y = selected(pair.first, names), selected(pair.second, names)
        if credit > 0:
            counts.pairs += 1
            for name in dict.fromkeys([*x, *y]):
                values[name, x.get(name, MISSING), y.get(name, MISSING)] += 1
        for name, value in x.items():
            matched = credit if credit > 0 and y.get(name) == value else 0.0
            if matched:
                add(name, 0, matched)
            add(name, 1, 1.0 - matched)
        for name, value in y.items():
            matched = credit if credit > 0 and x.get(name) == value else 0.0
            add(name, 2, 1.0 - matched)
    for span in alignment.unmatched_first():
        for name in selected(span, names):
            add(name, 1, 1.0)
    for span in alignment.unmatched_second():
        for name in selected(span, names):
            add(name, 2, 1.0)
    return counts


def counts_entry(counts: Counts) -> dict:
    """a, b, c, precision, recall and F1 (whole counts as ints, NaN where undefined)."""
    found = counts_dict(counts)
    return {key: found[key] for key in COUNT_KEYS}


def attribute_figures(counts: AttributeCounts, names: tuple | None = None, *, what: str = "") -> dict:
    """The JSON's ``attributes`` entry: a, b, c, precision, recall and F1 over every attribute,
    and ``by_name`` (sorted; ``names`` asked for are there even when no span has them): each
    name's counts and the Cohen's kappa of its values over the aligned pairs. An undefined kappa
    (every aligned pair with the same value, or none aligned) is NaN, warned once naming the
    attributes (``what``: whose figures they are, for the warning)."""
    from ..errors import SpanagreeWarning, find_stack_level
    from .tables import cohen_kappa

    every = sorted({*counts.by_name, *(names or ())})
    by_name, undefined = {}, []
    for name in every:
        categories, table = counts.table(name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SpanagreeWarning)
            kappa = cohen_kappa(table) if categories else math.nan
        if math.isnan(kappa):
            undefined.append(name)
        by_name[name] = {**counts_entry(counts.counts(name)), "kappa": kappa}
    if undefined:
        warnings.warn(f"{what + ': ' if what else ''}attribute kappa undefined (the aligned spans all have the same "
                      f"value, or none is aligned) for {', '.join(undefined)}, reported as NaN", SpanagreeWarning,
                      stacklevel=find_stack_level())
    return {**counts_entry(counts.counts()), "by_name": by_name}


def summed(tally: dict, documents) -> AttributeCounts:
    """The counts of ``documents`` (each document's in ``tally``; the ones missing count nothing),
    added in their order."""
    total = AttributeCounts()
    for doc_id in documents:
        found = tally.get(doc_id)
        if found is not None:
            total += found
    return total


def attribute_intervals(tally: dict, documents: list, resamples: int, seed: int | None) -> dict:
    """``--bootstrap`` for the attributes: 95% percentile intervals of F1, precision and recall
    over every attribute, from resampling ``documents`` (each one's counts in ``tally``) as the
    spans' bootstrap does (:func:`spanagree.measures.bootstrap.bootstrap_intervals`; with the same
    ``seed``, the same resamples). Its warnings are the spans' bootstrap's, not repeated."""
    from .bootstrap import bootstrap_intervals

    empty = AttributeCounts()
    rows = [[tally.get(d, empty).counts().astuple()] for d in documents]
    with warnings.catch_warnings():
        from ..errors import SpanagreeWarning

        warnings.simplefilter("ignore", SpanagreeWarning)
        found = bootstrap_intervals(rows, n=resamples, seed=seed, mean=False)
    entry = {key: found[key] for key in ("level", "n", "seed", "documents")}
    pair = (found["pairs"] or [None])[0]
    for key in ("f1", "precision", "recall"):
        entry[key] = pair[key] if pair is not None else None
    entry["undefined"] = pair["undefined"] if pair is not None else None
    return entry


__all__ = ["AttributeCounts", "MISSING", "attribute_counts", "attribute_figures", "attribute_intervals", "summed"]
