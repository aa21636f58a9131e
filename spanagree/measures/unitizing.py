"""Krippendorff's unitizing alpha (α_U) over spans on the character continuum (``agree --unitizing``).

Where F1 asks "did both annotators mark the same spans?", α_U asks how far the annotators'
segmentations of the text into units of a category and gaps disagree, in squared characters,
against what chance would give — a chance-corrected measure for spans that overlap, with no
matching rule (Krippendorff 1995; 2004, §12.4). It is computed exactly as DKPro Agreement's
``KrippendorffAlphaUnitizingAgreement`` computes it (Meyer et al. 2014), and reproduces its tests:

- per category ``c``, the observed disagreement ``D_O(c) = 2 / (R (R − 1) L²) · Σ`` over every
  two annotators of the distances between their overlapping segments (unit against unit:
  ``(Δbegin)² + (Δend)²``; a unit inside the other's gap: its length squared);
- the expected disagreement ``D_E(c)`` from every unit's length ``l`` and every gap's length
  ``g`` of all annotators: ``2/L · Σ_units [(N_c − 1)(2l³ − 3l² + l)/3 + l² Σ_{g ≥ l}(g − l + 1)]
  / (R L (R L − 1) − Σ_units l (l − 1))``;
- ``α_U(c) = 1 − D_O(c)/D_E(c)`` (0 when they are equal), and over all categories
  ``α_U = 1 − Σ_c D_O(c) / Σ_c D_E(c)`` (when both are 0: 1 if some unit has a length, else 0).

``R`` is the number of annotators, ``L`` the length of the continuum, ``N_c`` the number of units
of ``c``. A span is a unit of its label; a discontinuous span is one unit per fragment; a span
marked twice by one annotator (same fragments and label) is one unit.

**Several documents** form one continuum: the documents one after another, their lengths added
(``L`` is the corpus's characters), each document's segmentation cut at its ends — a gap never
runs from one document into the next, so the figure does not depend on the documents' order. A
category that does not occur in a document leaves that whole document one gap for every
annotator. What this needs of each document adds up (:class:`UnitizingTally`: the observed sums,
the multisets of unit and gap lengths), so the figure is the same shard by shard (``--jobs``).
A document without a text is as long as its last span's end.

**Overlapping spans of one annotator and one label** are handled as DKPro handles them: its sweep
along the continuum steps back to the start of the overlapping unit, so each such unit is
compared on its own with the other annotator's segment at that point, counts as a unit of its
full length in ``D_E``, and leaves no gap between the two.

References
----------
Krippendorff K (1995). On the reliability of unitizing continuous data. Sociological Methodology
25:47–76.
Krippendorff K (2004). Content Analysis: An Introduction to Its Methodology, 2nd ed. Sage, §12.4.
Meyer CM, Mieskes M, Stab C, Gurevych I (2014). DKPro Agreement: An open-source Java library for
measuring inter-rater agreement. COLING (System Demonstrations), 105–109.
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from typing import Iterable, Sequence

Unit = tuple[int, int]  # (begin, length)


def measure_distance(offset1: int, length1: int, unit1: bool, offset2: int, length2: int, unit2: bool) -> int:
    """The distance of two overlapping segments (``unit``: a unit of the category, else a gap).

    Examples
    --------
    Krippendorff (2004, p. 254): two units ``c`` at 225 + 70 and 220 + 80; a gap at 400 + 50
    holding a unit at 400 + 20:

    >>> measure_distance(225, 70, True, 220, 80, True), measure_distance(400, 50, False, 400, 20, True)
    (50, 400)
    """
    begin_diff = offset1 - offset2
    length_diff = length1 - length2
    if unit1 and unit2 and -length1 < begin_diff < length2:
        return begin_diff * begin_diff + (begin_diff + length_diff) * (begin_diff + length_diff)
    if unit1 and not unit2 and -length_diff >= begin_diff >= 0:
        return length1 * length1
    if not unit1 and unit2 and -length_diff <= begin_diff <= 0:
        return length2 * length2
    return 0


def observed_sum(first: Sequence[Unit], second: Sequence[Unit], begin: int, length: int) -> int:
    """Σ of the distances between two annotators' segments of one category along the continuum
    ``[begin, begin + length)`` (their units sorted by begin, then length)."""
    end = begin + length
    units1, units2 = iter(first), iter(second)
    next1, next2 = next(units1, None), next(units2, None)
    offset1 = offset2 = begin
    length1 = length2 = 0
    unit1 = unit2 = False
    pos = begin
    total = 0
    while pos < end and (next1 is not None or next2 is not None):
        if pos == offset1 + length1:
            if next1 is not None and pos == next1[0]:
                length1, unit1 = next1[1], True
                next1 = next(units1, None)
            else:
                length1, unit1 = (next1[0] if next1 is not None else end) - pos, False
            offset1 = pos
        if pos == offset2 + length2:
            if next2 is not None and pos == next2[0]:
                length2, unit2 = next2[1], True
                next2 = next(units2, None)
            else:
                length2, unit2 = (next2[0] if next2 is not None else end) - pos, False
            offset2 = pos
        total += measure_distance(offset1, length1, unit1, offset2, length2, unit2)
        pos = min(offset1 + length1, offset2 + length2)
    return total


def gap_lengths(units: Sequence[Unit], begin: int, length: int) -> list[int]:
    """The gaps between one annotator's units of one category (sorted by begin, then length)."""
    end = begin + length
    remaining = iter(units)
    upcoming = next(remaining, None)
    offset, size, pos = begin, 0, begin
    gaps = []
    while pos < end:
        if pos == offset + size:
            if upcoming is not None and pos == upcoming[0]:
                size = upcoming[1]
                upcoming = next(remaining, None)
            else:
                size = (upcoming[0] if upcoming is not None else end) - pos
                gaps.append(size)
            offset = pos
        pos = offset + size
    return gaps


class UnitizingTally:
    """What α_U needs of a corpus, document by document; tallies of disjoint documents add up
    with ``+=`` (in any order).

    Attributes
    ----------
    raters : int
    length : int
        The continuum's length: the documents' characters.
    documents : Counter
        Document length → documents.
    observed : dict
        Per category, Σ over every two annotators of their segments' distances.
    units, gaps : dict of Counter
        Per category, unit length → units, and gap length → gaps, of all annotators, over the
        documents where the category occurs (:meth:`gaps_of` adds the others).
    present : dict of Counter
        Per category, the lengths of the documents where it occurs.
    """

    def __init__(self, raters: int):
        self.raters = raters
        self.length = 0
        self.documents: Counter = Counter()
        self.observed: dict[str, int] = {}
        self.units: dict[str, Counter] = {}
        self.gaps: dict[str, Counter] = {}
        self.present: dict[str, Counter] = {}

    def add_document(self, spans: Sequence[Iterable], length: int) -> None:
        """One document: ``spans[r]`` the spans of annotator ``r`` (anything with ``fragments``
        and ``label``), ``length`` its characters."""
        by_category: dict[str, list[set]] = {}
        for r, own in enumerate(spans):
            for span in own:
                units = by_category.setdefault(span.label, [set() for _ in range(self.raters)])[r]
                for start, end in span.fragments:
                    units.add((start, end - start))
        self.length += length
        self.documents[length] += 1
        for category, per_rater in by_category.items():
            ordered = [sorted(units) for units in per_rater]
            total = 0
            for i in range(self.raters):
                for j in range(i + 1, self.raters):
                    total += observed_sum(ordered[i], ordered[j], 0, length)
            self.observed[category] = self.observed.get(category, 0) + total
            lengths = self.units.setdefault(category, Counter())
            gaps = self.gaps.setdefault(category, Counter())
            for units in ordered:
                lengths.update(size for _, size in units)
                gaps.update(gap_lengths(units, 0, length))
            self.present.setdefault(category, Counter())[length] += 1

    def __iadd__(self, other: "UnitizingTally") -> "UnitizingTally":
        self.length += other.length
        self.documents.update(other.documents)
        for category, total in other.observed.items():
            self.observed[category] = self.observed.get(category, 0) + total
        for mine, theirs in ((self.units, other.units), (self.gaps, other.gaps), (self.present, other.present)):
            for category, counter in theirs.items():
                mine.setdefault(category, Counter()).update(counter)
        return self

    def categories(self) -> list[str]:
        return sorted(self.units)

    def gaps_of(self, category: str) -> Counter:
        """Every gap of ``category``: those of the documents where it occurs, and each other
        document whole, once per annotator."""
        gaps = Counter(self.gaps.get(category, ()))
        absent = self.documents - self.present.get(category, Counter())
        for size, count in absent.items():
            if size > 0:
                gaps[size] += count * self.raters
        return gaps

    def observed_disagreement(self, category: str) -> Fraction:
        """``D_O(c)``."""
        r, length = self.raters, self.length
        if r < 2 or length == 0:
            return Fraction(0)
        return Fraction(2 * self.observed.get(category, 0), r * (r - 1) * length * length)

    def expected_disagreement(self, category: str) -> Fraction:
        """``D_E(c)`` (exact: the sums are integers; DKPro's BigDecimal arithmetic to 34 digits)."""
        r, length = self.raters, self.length
        units = self.units.get(category, Counter())
        count = sum(units.values())
        squared = sum(n * size * (size - 1) for size, n in units.items())
        denominator = r * length * (r * length - 1) - squared
        if length == 0 or denominator == 0:
            return Fraction(0)
        gaps = sorted(self.gaps_of(category).items(), reverse=True)
        # Σ_{g ≥ l} (g − l + 1) for each unit length l: running sums over the gaps, longest first
        numerator = 0
        lengths = sorted(units.items(), reverse=True)
        k, gaps_seen, gap_total = 0, 0, 0
        for size, n in lengths:
            while k < len(gaps) and gaps[k][0] >= size:
                gap_size, gap_count = gaps[k]
                gaps_seen += gap_count
                gap_total += gap_count * (gap_size + 1)
                k += 1
            beyond = gap_total - size * gaps_seen
            numerator += n * ((count - 1) * (2 * size ** 3 - 3 * size ** 2 + size) + 3 * size * size * beyond)
        return Fraction(2 * numerator, 3 * length * denominator)

    def carries_information(self) -> bool:
        """Some unit has a length (DKPro's condition for full agreement when both disagreements are 0)."""
        return any(size > 0 for units in self.units.values() for size in units)


def category_alpha(observed: Fraction, expected: Fraction) -> float:
    """``1 − D_O/D_E``; 0 when they are equal (DKPro's ``calculateCategoryAgreement``)."""
    return 0.0 if observed == expected else float(1 - observed / expected)


def alpha_u(tally: UnitizingTally) -> dict:
    """α_U overall and per category, with each category's ``D_O`` and ``D_E``.

    Returns
    -------
    dict
        ``{"overall": α, "labels": {label: {"alpha": α, "observed": D_O, "expected": D_E}},
        "annotators": R, "characters": L, "documents": n}``; ``overall`` is NaN when no
        annotator marked anything (DKPro: an empty study).

    Examples
    --------
    Krippendorff (2004, p. 254), as in DKPro's ``Krippendorff2004Test``: two observers, the
    continuum 150 + 300 (here shifted to start at 0), categories c and k (DKPro's test expects
    the overall 0.8591 ± 0.0005, the book's rounding):

    >>> from spanagree.span import Span
    >>> i = [Span("d", (75, 145), "c"), Span("d", (220, 250), "c"), Span("d", (30, 90), "k"), Span("d", (150, 200), "k")]
    >>> j = [Span("d", (70, 150), "c"), Span("d", (205, 225), "c"), Span("d", (250, 270), "c"),
    ...      Span("d", (30, 90), "k"), Span("d", (150, 200), "k")]
    >>> tally = UnitizingTally(2)
    >>> tally.add_document([i, j], 300)
    >>> found = alpha_u(tally)
    >>> round(found["labels"]["c"]["alpha"], 4), round(found["labels"]["k"]["alpha"], 4), round(found["overall"], 4)
    (0.7286, 1.0, 0.8587)
    """
    labels = {}
    observed_total, expected_total = Fraction(0), Fraction(0)
    for category in tally.categories():
        observed, expected = tally.observed_disagreement(category), tally.expected_disagreement(category)
        observed_total += observed
        expected_total += expected
        labels[category] = {"alpha": category_alpha(observed, expected), "observed": float(observed),
                            "expected": float(expected)}
    if not labels:
        overall = math.nan
    elif observed_total == expected_total:
        overall = 1.0 if observed_total == 0 and tally.carries_information() else 0.0
    else:
        overall = float(1 - observed_total / expected_total)
    return {"overall": overall, "labels": labels, "annotators": tally.raters, "characters": tally.length,
            "documents": sum(tally.documents.values())}
