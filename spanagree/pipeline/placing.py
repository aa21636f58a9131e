"""Placing string predictions: strings without offsets (a prompted model's answers) turned into
ordinary spans of the gold's documents before ``score`` compares them, so that everything after
(the alignment, the counts, the error kinds, the listings, the report) is what it is for any
prediction.

Three ways (``strings``, ``--strings``; docs/strings.md):

``place`` (the default)
    Each predicted string may stand at every occurrence of its text in the gold document's text
    (any substring; word boundaries are not required). Texts are compared character by
    character in Unicode's NFKC compatibility form (the ligature ``ﬁ`` is ``fi``, a full-width
    ``Ａ`` is ``A``), every run of white space as one space, the string's own white space at its
    ends dropped; with ``strings_case="ignore"`` case-folded too. With ``strings_fuzzy=T`` a
    string may also stand at a run of whole words (``\\w+`` or one other character each) whose
    normalised edit distance to it (Levenshtein distance over the longer length) is at most T.
    Of these positions the placing picks for each string at most one, and each position holds at
    most one string, so that the total credit of the one-to-one alignment of the placed strings
    with the gold's spans, under the run's ``match`` and ``labels`` (after ``label_map`` and
    ``only``), is the highest any placing gives: the figures are an upper bound of what the same
    strings given with offsets could earn. The choice is a mixed-integer program solved to
    optimality (:func:`scipy.optimize.milp`, HiGHS): binary ``x[s, p]`` (string s at position
    p) and ``y[s, p, g]`` (s at p paired with gold span g, for every pair of positive credit),
    each string at most one position, each position at most one string, each gold span at most
    one partner, ``y[s, p, ·]`` at most ``x[s, p]``; the credit is maximised first, then (a
    second program holding the credit at its optimum) the strings placed, preferring positions
    where a gold span is (same boundaries, then overlapping), so that a string earning nothing
    is still shown where it most nearly fits. The program is solved for each independent part of
    a document (strings that share a position or may pair with one gold span); a string alone
    in its part simply takes its best position (the most credit, then those preferences, then
    the first), which is that part's optimum, and a part in which every pair earns 1 and
    positions and gold spans pair one to one (``match="exact"`` always, unless the gold repeats
    a span) is an assignment of strings to positions
    (:func:`scipy.optimize.linear_sum_assignment`), optimal too.

    A string found nowhere is **unaligned** (counted: the model's hallucination); one whose every
    occurrence is taken by other copies (predictions are never de-duplicated: a string listed
    twice claims two occurrences) is spurious but not unaligned. Both still count against
    precision: each is placed after the document's text, on a line of its own that every copy
    of the document is given (the listings and the report show them there), where no gold span
    is. Entities that came with offsets are kept where they are (they take their positions).
``recover``
    As ``place``, and first every span given with offsets *and* a text whose offsets do not
    cover that text is moved to the occurrence of its text nearest its start (counted
    ``recovered``); one whose text occurs nowhere stays where it was.
``bag``
    A different measure, for golds without texts or when positions do not matter: each
    document's predicted (text, label) items are compared with the gold's as multisets (the
    gold's spans give the text they cover): under ``labels="strict"`` ``a = Σ min(#gold(t, l),
    #pred(t, l))``, under ``"ignore"`` ``Σ min(#gold(t), #pred(t))``; ``match`` does not
    matter. Each document's copies are given one made-up text holding each distinct string as
    many times as the side that has it most, one per line, and the items are spans on it;
    ``unaligned`` counts the predicted items whose text the gold's document lacks.
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Iterator

from ..errors import FormatError, UsageError, parameter
from ..span import Document, Predicted, Source, Span, SpanSet, StringsDocument

#: The ways string predictions are scored (``strings``, ``--strings``).
STRINGS_MODES = ("place", "bag", "recover")
#: How their case is compared (``strings_case``, ``--strings-case``).
STRINGS_CASES = ("exact", "ignore")


def check_strings_options(mode, case, fuzzy) -> None:
    """The placing's options checked (:class:`~spanagree.errors.UsageError` naming the first wrong one)."""
    if mode not in STRINGS_MODES:
        raise UsageError(f"unknown strings mode {mode!r}; choose one of: {', '.join(STRINGS_MODES)}",
                         option="strings", flag="--strings")
    if case not in STRINGS_CASES:
        raise UsageError(f"unknown strings case {case!r}; choose one of: {', '.join(STRINGS_CASES)}",
                         option="strings_case", flag="--strings-case")
    if fuzzy is not None and (isinstance(fuzzy, bool) or not isinstance(fuzzy, (int, float)) or not 0 <= fuzzy < 1):
        raise UsageError(f"{{option}} is a normalised edit distance in [0, 1), got {fuzzy!r}",
                         option="strings_fuzzy", flag="--strings-fuzzy")


# -- texts compared ---------------------------------------------------------------------------------


@dataclass
class Normalised:
    """A text in the form strings are compared in, with where each of its characters came from:
    ``text[i]`` stands for the original's ``[starts[i], ends[i])``."""

    text: str
    starts: list[int]
    ends: list[int]

    def span(self, i: int, j: int) -> tuple[int, int]:
        """The original's range of the normalised ``[i, j)``."""
        return self.starts[i], self.ends[j - 1]


def normalised(text: str, case: str = "exact") -> Normalised:
    """``text`` character by character in NFKC form (case-folded with ``case="ignore"``), each
    run of white space one space.

    >>> n = normalised("New\\n  YORK ﬁne", "ignore")
    >>> n.text, n.span(4, 8)
    ('new york fine', (6, 10))
    """
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    fold = case == "ignore"
    for i, character in enumerate(text):
        if character.isspace():
            if out and out[-1] == " " and ends[-1] == i and text[i - 1].isspace():
                ends[-1] = i + 1
                continue
            pieces = " "
        else:
            pieces = unicodedata.normalize("NFKC", character)
            if fold:
                pieces = pieces.casefold()
        for piece in pieces:
            out.append(piece)
            starts.append(i)
            ends.append(i + 1)
    return Normalised("".join(out), starts, ends)


def string_key(text: str, case: str = "exact") -> str:
    """A predicted string as it is looked for: :func:`normalised`, its white space at its ends dropped.

    >>> string_key("  Aspirin\\t", "ignore")
    'aspirin'
    """
    return normalised(text, case).text.strip(" ")


#: The words of a fuzzy match's ends: runs of word characters, or one other character.
_WORD = re.compile(r"\w+|[^\w\s]")


def occurrences(key: str, text: Normalised, fuzzy: float | None = None) -> list[tuple[int, int]]:
    """Every position of ``key`` in ``text`` (overlapping ones too), as ranges of the original
    text, in order; with ``fuzzy``, also the runs of whole words within that normalised edit
    distance.

    >>> occurrences("aa", normalised("aaa b aa"))
    [(0, 2), (1, 3), (6, 8)]
    >>> occurrences("colour", normalised("the color red"), fuzzy=0.2)
    [(4, 9)]
    """
    if not key:
        return []
    found: list[tuple[int, int]] = []
    at = text.text.find(key)
    while at >= 0:
        found.append(text.span(at, at + len(key)))
        at = text.text.find(key, at + 1)
    if fuzzy:
        from rapidfuzz.distance import Levenshtein

        tokens = [(m.start(), m.end()) for m in _WORD.finditer(text.text)]
        low, high = len(key) * (1 - fuzzy) - 1, len(key) * (1 + fuzzy) + 1
        exact = set(found)
        for k, (start, _) in enumerate(tokens):
            for end in (e for _, e in tokens[k:]):
                if end - start > high:
                    break
                if end - start >= low and Levenshtein.normalized_distance(key, text.text[start:end]) <= fuzzy:
                    position = text.span(start, end)
                    if position not in exact:
                        exact.add(position)
                        found.append(position)
        found.sort()
    return found


# -- placing one document ---------------------------------------------------------------------------


@dataclass
class Placed:
    """One prediction's document placed: its spans on the gold's text, the strings left over
    (placed after the text), and the counts."""

    spans: list[Span]
    leftover: list[Predicted]
    unaligned: int = 0
    ambiguous: int = 0
    recovered: int = 0


def place_document(doc_id: str, strings: list[Predicted], fixed: list[Span], gold: Document, rule, *,
                   label_map=None, only=None, case: str = "exact", fuzzy: float | None = None,
                   recover: bool = False) -> Placed:
    """The spans of one document's ``strings`` (and spans given with offsets, ``fixed``) placed
    on ``gold``'s text so as to maximise the alignment's credit under ``rule`` (the module's
    documentation).

    Examples
    --------
    >>> from spanagree.match import MatchRule
    >>> gold = Document("d", "Ana met Ana Bo.", [Span("d", 8, 14, "PER")])
    >>> placed = place_document("d", [Predicted("Ana", "PER"), Predicted("Ana", "PER"), Predicted("Ana", "PER"),
    ...                               Predicted("Zed", "PER")], [], gold, MatchRule("overlap"))
    >>> sorted(s.fragments for s in placed.spans), [p.text for p in placed.leftover]
    ([((0, 3),), ((8, 11),)], ['Ana', 'Zed'])
    >>> placed.unaligned, placed.ambiguous
    (1, 3)
    """
    label_map = label_map or {}
    text = gold.text
    view = normalised(text, case)
    kept = [s for s in strings if only is None or label_map.get(s.label, s.label) in only]  # the others go
    result = Placed([], [])
    fixed = list(fixed)
    if recover:
        fixed = [_recovered(span, text, view, case, result) for span in fixed]
    for span in fixed:
        if span.end > len(text):
            raise FormatError(span.source.path if span.source else doc_id,
                              f"document {doc_id!r}: [{span.start}, {span.end}) ends after the gold's text "
                              f"({len(text)} characters)", span.source.line if span.source else None)
    taken = {span.fragments[0] for span in fixed if len(span.fragments) == 1}
    cache: dict[str, list[tuple[int, int]]] = {}
    candidates: list[list[tuple[int, int]]] = []
    for predicted in kept:
        key = string_key(predicted.text, case)
        if key not in cache:
            cache[key] = occurrences(key, view, fuzzy)
        found = cache[key]
        if not found:
            result.unaligned += 1
        elif len(found) > 1:
            result.ambiguous += 1
        candidates.append([p for p in found if p not in taken])
    golds = [g.relabel(label_map[g.label]) if g.label in label_map else g for g in gold.spans]
    if only is not None:
        golds = [g for g in golds if g.label in only]
    counted = [f for f in fixed if only is None or label_map.get(f.label, f.label) in only]  # the others go
    chosen = _chosen(doc_id, kept, candidates, counted, golds, rule, label_map)
    result.spans = list(fixed)
    for predicted, position in zip(kept, chosen):
        if position is None:
            result.leftover.append(predicted)
        else:
            result.spans.append(Span.trusted(doc_id, (position,), predicted.label, predicted.source))
    return result


def _recovered(span: Span, text: str, view: Normalised, case: str, result: Placed) -> Span:
    """``span`` moved to the occurrence of its own text nearest its start when its offsets do not
    cover that text (``recover``)."""
    given = dict(span.attributes).get("text")
    if given is None:
        return span
    key = string_key(given, case)
    covered = span.text(text) if span.end <= len(text) else None
    if covered is not None and string_key(covered, case) == key:
        return span
    found = occurrences(key, view)
    if not found:
        return span
    start, end = min(found, key=lambda p: (abs(p[0] - span.start), p[0]))
    result.recovered += 1
    return Span.trusted(span.doc, ((start, end),), span.label, span.source, span.attributes)


def _chosen(doc_id, strings, candidates, fixed, golds, rule, label_map) -> list[tuple[int, int] | None]:
    """Each string's position (or ``None``), maximising the alignment's credit (the module's
    documentation). The strings fall into independent parts — strings joined when they share a
    position or may pair with one gold span, with the spans given with offsets that may pair
    with it too —, each solved on its own: a lone string takes its best position (the most
    credit, then the preferences), the others a MILP."""
    users: dict[tuple[int, int], int] = {}
    for positions in candidates:
        for position in positions:
            users[position] = users.get(position, 0) + 1
    if not golds and all(n == 1 for n in users.values()):  # nothing to earn, nothing shared
        return [_preferred(doc_id, positions, golds) for positions in candidates]
    labels = [label_map.get(s.label, s.label) for s in strings]
    fixed = [f.relabel(label_map[f.label]) if f.label in label_map else f for f in fixed]
    parent: dict = {}

    def find(node):
        while parent.setdefault(node, node) != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    def join(a, b):
        parent[find(a)] = find(b)

    credits: dict[tuple[int, tuple[int, int]], list[tuple[int, float]]] = {}
    for k, positions in enumerate(candidates):
        find(("s", k))
        for position in positions:
            join(("s", k), ("p", position))
            span = Span.trusted(doc_id, (position,), labels[k])
            for g, gold in enumerate(golds):
                if gold.start < position[1] and position[0] < gold.end:
                    credit = rule.credit(span, gold)
                    if credit > 0:
                        credits.setdefault((k, position), []).append((g, credit))
                        join(("s", k), ("g", g))
    for f, span in enumerate(fixed):
        for g, gold in enumerate(golds):
            if gold.start < span.end and span.start < gold.end and rule.credit(span, gold) > 0:
                join(("f", f), ("g", g))
    parts: dict = {}
    for node in list(parent):
        parts.setdefault(find(node), []).append(node)
    chosen: list[tuple[int, int] | None] = [None] * len(candidates)
    for nodes in parts.values():
        members = sorted(n[1] for n in nodes if n[0] == "s")
        if not members:
            continue
        tied = sorted(n[1] for n in nodes if n[0] == "f")
        if len(members) == 1 and not tied:
            k = members[0]
            chosen[k] = _preferred(doc_id, candidates[k], golds, credits, k)
            continue
        part_golds = sorted(n[1] for n in nodes if n[0] == "g")
        if not tied:
            assigned = _assigned(members, candidates, credits, golds)
            if assigned is not None:
                for k, position in assigned.items():
                    chosen[k] = position
                continue
        solved = _solved(doc_id, [labels[k] for k in members], [candidates[k] for k in members],
                         [fixed[f] for f in tied], [golds[g] for g in part_golds], rule)
        for k, position in zip(members, solved):
            chosen[k] = position
    return chosen


def _assigned(members: list[int], candidates, credits, golds) -> dict | None:
    """The part's strings placed by an assignment of strings to positions, when that is the
    whole problem: every pair earns 1, each position may pair with one gold span at most, and
    each gold span with one position at most (then a position's string takes its gold span, and
    the credit is the positions' own: :func:`scipy.optimize.linear_sum_assignment` on credit
    weighted above :func:`_preference` is optimal). ``None`` when the part is not so."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    positions = sorted({p for k in members for p in candidates[k]})
    gold_of: dict[tuple[int, int], int] = {}
    for k in members:
        for position in candidates[k]:
            for g, credit in credits.get((k, position), ()):
                if credit != 1.0 or gold_of.setdefault(position, g) != g:
                    return None
    if len(set(gold_of.values())) != len(gold_of):
        return None
    column = {p: j for j, p in enumerate(positions)}
    weight = 2.0 * (1.5 * len(members) + 1)  # one credit is worth more than every preference
    matrix = np.zeros((len(members), len(positions)))
    for i, k in enumerate(members):
        for position in candidates[k]:
            earned = 1.0 if credits.get((k, position)) else 0.0
            matrix[i, column[position]] = weight * earned + _preference(position, golds) - 1e-9 * position[0]
    rows, columns = linear_sum_assignment(matrix, maximize=True)
    return {members[i]: positions[j] for i, j in zip(rows, columns) if matrix[i, j] > 0}


def _preference(position: tuple[int, int], golds: list[Span]) -> float:
    """What placing a string at ``position`` is worth besides its credit: 1, and 0.5 more where a
    gold span has its boundaries, 0.25 more where one overlaps it."""
    if any(g.fragments == (position,) for g in golds):
        return 1.5
    if any(g.start < position[1] and position[0] < g.end for g in golds):
        return 1.25
    return 1.0


def _preferred(doc_id, positions, golds, credits=None, k=None) -> tuple[int, int] | None:
    """A lone string's position: the most credit with one gold span, then :func:`_preference`,
    then the first."""
    if not positions:
        return None
    return max(positions, key=lambda p: (max((c for _, c in (credits or {}).get((k, p), ())), default=0.0),
                                         _preference(p, golds), -p[0], -p[1]))


def _solved(doc_id, labels, candidates, fixed, golds, rule) -> list[tuple[int, int] | None]:
    import numpy as np
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import lil_matrix

    columns: list[tuple] = []  # ("x", s, p) | ("y", s, p, g, credit) | ("z", f, g, credit)
    x_index: dict[tuple[int, tuple[int, int]], int] = {}
    for s, positions in enumerate(candidates):
        for position in positions:
            x_index[s, position] = len(columns)
            columns.append(("x", s, position))
    y_of: dict[tuple[int, tuple[int, int]], list[int]] = {}
    for s, positions in enumerate(candidates):
        for position in positions:
            span = Span.trusted(doc_id, (position,), labels[s])
            for g, gold in enumerate(golds):
                credit = rule.credit(span, gold)
                if credit > 0:
                    y_of.setdefault((s, position), []).append(len(columns))
                    columns.append(("y", s, position, g, credit))
    for f, span in enumerate(fixed):
        for g, gold in enumerate(golds):
            credit = rule.credit(span, gold)
            if credit > 0:
                columns.append(("z", f, g, credit))
    rows: list[list[int]] = []  # each row: a sum of columns <= 1 (or <= 0 with a -x term)
    minus: list[tuple[int, int]] = []  # (row, column) with coefficient -1
    for s, positions in enumerate(candidates):
        if positions:
            rows.append([x_index[s, p] for p in positions])
    by_position: dict[tuple[int, int], list[int]] = {}
    for (s, position), column in x_index.items():
        by_position.setdefault(position, []).append(column)
    rows += [columns_of for columns_of in by_position.values() if len(columns_of) > 1]
    by_gold: dict[int, list[int]] = {}
    by_fixed: dict[int, list[int]] = {}
    for k, column in enumerate(columns):
        if column[0] == "y":
            by_gold.setdefault(column[3], []).append(k)
        elif column[0] == "z":
            by_gold.setdefault(column[2], []).append(k)
            by_fixed.setdefault(column[1], []).append(k)
    rows += list(by_gold.values()) + list(by_fixed.values())
    upper = [1.0] * len(rows)
    for key, ys in y_of.items():  # the pairs of s at p, at most x[s, p]
        minus.append((len(rows), x_index[key]))
        rows.append(ys)
        upper.append(0.0)
    matrix = lil_matrix((len(rows), len(columns)))
    for r, row in enumerate(rows):
        for column in row:
            matrix[r, column] = 1
    for r, column in minus:
        matrix[r, column] = -1
    credit = np.array([c[-1] if c[0] != "x" else 0.0 for c in columns])
    constraints = [LinearConstraint(matrix.tocsr(), -np.inf, np.array(upper))]
    integrality, bounds = np.ones(len(columns)), Bounds(0, 1)
    first = milp(-credit, constraints=constraints, integrality=integrality, bounds=bounds)
    best = -first.fun if first.success else 0.0
    # second: the credit held at its optimum, the strings placed, where gold spans are
    preference = np.zeros(len(columns))
    for k, column in enumerate(columns):
        if column[0] == "x":
            preference[k] = _preference(column[2], golds)
    constraints.append(LinearConstraint(credit.reshape(1, -1), best - 1e-7 * max(1.0, best), np.inf))
    second = milp(-preference, constraints=constraints, integrality=integrality, bounds=bounds)
    solution = second.x if second.success else first.x
    chosen: list[tuple[int, int] | None] = [None] * len(candidates)
    for (s, position), column in sorted(x_index.items(), key=lambda item: item[1]):
        if solution is not None and solution[column] > 0.5:
            chosen[s] = position
    return chosen


# -- the inputs of a run ----------------------------------------------------------------------------


@dataclass
class Placing:
    """A run's inputs with their strings placed (:func:`placed_inputs`): the inputs to compare,
    and per prediction the JSON's ``strings`` figures (``None``: nothing was placed)."""

    inputs: list
    figures: list[dict] | None = None


def holds_strings(item, format: str | None) -> bool:
    """Whether an input is read as string predictions (its format declares ``strings``)."""
    from ..formats import declares
    from . import input_format

    if isinstance(item, SpanSet):
        return any(isinstance(d, StringsDocument) for d in item.documents.values())
    return declares(input_format(item, format), "strings")


def placed_inputs(inputs: list, names: list[str], options, command: str) -> Placing:
    """``score``'s inputs (gold first) with every string prediction placed on the gold's
    documents (or, with ``strings="bag"``, every input made a bag); the inputs as they are when
    none holds strings and the mode is ``place``. ``agree`` and ``merge`` refuse strings.
    """
    mode = options.strings
    check_strings_options(mode, options.strings_case, options.strings_fuzzy)
    holding = [holds_strings(item, options.format) for item in inputs]
    if command != "score":
        if any(holding):
            k = holding.index(True)
            item = inputs[k]
            where = os.fspath(item) if isinstance(item, (str, os.PathLike)) else getattr(item, "path", None) or names[k]
            raise UsageError(f"{where} holds string predictions without offsets: they are scored against a gold "
                             "(spanagree score GOLD PRED), not compared by " + command)
        return Placing(inputs)
    if mode == "place" and not any(holding[1:]) and not holding[0]:
        return Placing(inputs)
    from ..formats import collect
    from . import open_inputs

    streams = open_inputs(inputs, options.format, options.format_options)
    gold = streams[0] if isinstance(streams[0], SpanSet) else collect(streams[0])
    if mode == "bag":
        return _bags(gold, streams[1:], names, options)
    if any(isinstance(d, StringsDocument) and d.strings for d in gold.documents.values()):
        raise FormatError(getattr(streams[0], "path", None) or names[0],
                          "the gold's entities have no offsets: strings are placed in a gold's text; "
                          "compare them as bags ({mode})", mode=parameter("strings", "bag"))
    rule, (label_map, only) = options.rule, options.selection
    results: list = []
    figures: list[dict] = []
    appendix: dict[str, list[str]] = {}
    for stream, holds in zip(streams[1:], holding[1:]):
        if not holds:
            results.append(stream)
            figures.append(_figures(mode, 0, 0, 0, 0))
            continue
        prediction = stream if isinstance(stream, SpanSet) else collect(stream)
        documents: dict[str, tuple[list[Span], list[Predicted]]] = {}
        counts = [0, 0, 0, 0]
        for doc_id, document in prediction.documents.items():
            reference = gold.documents.get(doc_id)
            strings = list(getattr(document, "strings", ()))
            counts[0] += len(strings)
            if reference is None:  # not scored (the warning is score's)
                documents[doc_id] = (list(document.spans), [], 0)
                continue
            if reference.text is None and not strings:  # nothing to place: its spans as they are
                documents[doc_id] = (list(document.spans), [], 0)
                continue
            if reference.text is None:
                raise FormatError(getattr(stream, "path", None) or prediction.name,
                                  f"document {doc_id!r}: the gold has no text to place strings in; compare them "
                                  "as bags ({mode})", mode=parameter("strings", "bag"))
            placed = place_document(doc_id, strings, document.spans, reference, rule, label_map=label_map,
                                    only=only, case=options.strings_case, fuzzy=options.strings_fuzzy,
                                    recover=mode == "recover")
            counts[1] += placed.unaligned
            counts[2] += placed.ambiguous
            counts[3] += placed.recovered
            start = len(reference.text) + sum(1 + len(t) for t in appendix.get(doc_id, ()))
            documents[doc_id] = (placed.spans, placed.leftover, start)
            appendix.setdefault(doc_id, []).extend(p.text for p in placed.leftover)
        results.append((prediction, documents))
        figures.append(_figures(mode, *counts))
    suffixes = {d: "".join("\n" + t for t in texts) for d, texts in appendix.items() if texts}
    placed_streams: list = [_extended(gold, suffixes)]
    for item in results:
        if isinstance(item, tuple):
            placed_streams.append(_placed_set(item[0], item[1], gold, suffixes))
        else:
            placed_streams.append(_extended_stream(item, suffixes))
    return Placing(placed_streams, figures)


def _figures(mode: str, strings: int, unaligned: int, ambiguous: int, recovered: int) -> dict:
    return {"mode": mode, "strings": strings, "unaligned": unaligned, "ambiguous": ambiguous,
            "recovered": recovered}


def _extended(spanset: SpanSet, suffixes: dict[str, str]) -> SpanSet:
    """``spanset`` with each document of ``suffixes`` given its text followed by the suffix."""
    if not suffixes:
        return spanset
    documents = {}
    for doc_id, document in spanset.documents.items():
        suffix = suffixes.get(doc_id)
        if suffix and document.text is not None:
            document = Document(doc_id, document.text + suffix, list(document.spans), document.source,
                                document.tokens_from_text, relations=document.relations)
        documents[doc_id] = document
    return SpanSet(spanset.name, documents, list(spanset.notes), spanset.format)


def _extended_stream(stream, suffixes: dict[str, str]):
    """An ordinary prediction beside string predictions: its documents' texts followed by the
    same suffixes as the gold's (read as the run gets to them)."""
    from ..formats import DocumentStream

    if not suffixes:
        return stream
    if isinstance(stream, SpanSet):
        return _extended(stream, suffixes)

    def documents() -> Iterator[Document]:
        for document in stream.documents:
            suffix = suffixes.get(document.id)
            if suffix and document.text is not None:
                document = Document(document.id, document.text + suffix, document.spans, document.source,
                                    document.tokens_from_text, relations=document.relations)
            yield document

    return DocumentStream(stream.name, stream.format, documents(), stream.notes, stream.role, stream.path)


def _placed_set(prediction: SpanSet, documents: dict, gold: SpanSet, suffixes: dict[str, str]) -> SpanSet:
    """A prediction's placed span set: each document on the gold's text (and its suffix), the
    strings left over in the suffix, each on its own line, after those of the predictions before."""
    placed = SpanSet(prediction.name, {}, list(prediction.notes), prediction.format)
    for doc_id, (spans, leftover, at) in documents.items():
        reference = gold.documents.get(doc_id)
        source = prediction.documents[doc_id].source
        if reference is None or reference.text is None:
            placed.documents[doc_id] = Document(doc_id, prediction.documents[doc_id].text, spans, source)
            continue
        spans = list(spans)
        for predicted in leftover:
            at += 1  # the line's "\n"
            spans.append(Span.trusted(doc_id, ((at, at + len(predicted.text)),), predicted.label, predicted.source))
            at += len(predicted.text)
        placed.documents[doc_id] = Document(doc_id, reference.text + suffixes.get(doc_id, ""), spans, source)
    return placed


# -- bags ---------------------------------------------------------------------------------------------


def _items(document: Document, source: str, case: str) -> list[tuple[str, str, Span | None, Source | None]]:
    """A document's (key, written text, label, source) items: its strings and its spans' texts."""
    items = []
    for span in document.spans:
        given = dict(span.attributes).get("text")
        if given is None:
            if document.text is None:
                raise FormatError(source, f"document {document.id!r} has no text, and bags compare the texts of "
                                          "its spans ({mode})", mode=parameter("strings", "bag"))
            given = span.text(document.text)
        items.append((string_key(given, case), given, span.label, span.source))
    for predicted in getattr(document, "strings", ()):
        items.append((string_key(predicted.text, case), predicted.text, predicted.label, predicted.source))
    return items


def _bags(gold: SpanSet, streams: list, names: list[str], options) -> Placing:
    """Every input's documents made bags of (text, label) on one made-up text per document
    (``strings="bag"``: the module's documentation)."""
    from ..formats import collect

    case = options.strings_case
    label_map, only = options.selection
    mapped = (lambda label: label_map.get(label, label))
    keep = (lambda label: only is None or mapped(label) in only)
    predictions = [s if isinstance(s, SpanSet) else collect(s) for s in streams]
    gold_source = names[0]
    figures = []
    for prediction in predictions:
        strings = sum(len(getattr(d, "strings", ())) for d in prediction.documents.values())
        figures.append({"mode": "bag", "strings": strings, "unaligned": 0, "ambiguous": 0, "recovered": 0})
    out_gold = SpanSet(gold.name, {}, list(gold.notes), gold.format)
    outs = [SpanSet(p.name, {}, list(p.notes), p.format) for p in predictions]
    for doc_id, document in gold.documents.items():
        gold_items = [item for item in _items(document, gold_source, case) if keep(item[2])]
        sides = [gold_items]
        for k, prediction in enumerate(predictions):
            theirs = prediction.documents.get(doc_id)
            items = [] if theirs is None else [i for i in _items(theirs, names[k + 1], case) if keep(i[2])]
            keys = {item[0] for item in gold_items}
            figures[k]["unaligned"] += sum(1 for item in items if item[0] not in keys)
            sides.append(items)
        text, laid = _laid_out(doc_id, sides, mapped)
        out_gold.documents[doc_id] = Document(doc_id, text, laid[0], document.source)
        for k, prediction in enumerate(predictions):
            if doc_id in prediction.documents:
                outs[k].documents[doc_id] = Document(doc_id, text, laid[k + 1], prediction.documents[doc_id].source)
    for k, prediction in enumerate(predictions):  # documents the gold lacks: kept, to be warned about
        for doc_id, document in prediction.documents.items():
            if doc_id not in out_gold.documents:
                outs[k].documents[doc_id] = Document(doc_id, None, [])
    return Placing([out_gold, *outs], figures)


def _laid_out(doc_id: str, sides: list[list], mapped) -> tuple[str, list[list[Span]]]:
    """One made-up text for a document's bags and each side's items as spans on it: a line per
    slot, as many slots of a string as the side with most copies of it; the gold's copies in the
    first slots, each other side's copies on a gold copy of the same label first, then on the
    gold's other copies, then on slots of their own."""
    order: list[str] = []
    written: dict[str, str] = {}
    for items in sides:
        for key, given, _, _ in items:
            if key not in written:
                written[key] = given
                order.append(key)
    lines: list[str] = []
    slots: dict[str, list[tuple[int, int]]] = {}
    at = 0
    for key in order:
        count = max(sum(1 for item in items if item[0] == key) for items in sides)
        for _ in range(count):
            text = written[key]
            slots.setdefault(key, []).append((at, at + len(text)))
            lines.append(text)
            at += len(text) + 1
    text = "\n".join(lines)
    laid: list[list[Span]] = []
    gold_labels: dict[str, list[str]] = {}
    for k, items in enumerate(sides):
        spans = []
        by_key: dict[str, list[tuple[str, Source | None]]] = {}
        for key, _, label, source in items:
            by_key.setdefault(key, []).append((label, source))
        for key, copies in by_key.items():
            positions = slots[key]
            if k == 0:
                gold_labels[key] = [mapped(label) for label, _ in copies]
                assignment = list(range(len(copies)))
            else:
                assignment = _slotted([mapped(label) for label, _ in copies], gold_labels.get(key, []),
                                      len(positions))
            for (label, source), slot in zip(copies, assignment):
                spans.append(Span.trusted(doc_id, (positions[slot],), label, source))
        laid.append(spans)
    return text, laid


def _slotted(labels: list[str], gold: list[str], slots: int) -> list[int]:
    """The slot of each copy: a gold copy of its label, else a free gold copy, else a slot after
    the gold's copies.

    >>> _slotted(["B", "A", "C"], ["A", "A", "B"], 3)
    [2, 0, 1]
    """
    free = set(range(len(gold)))
    chosen: list[int | None] = [None] * len(labels)
    for k, label in enumerate(labels):
        slot = next((g for g in sorted(free) if gold[g] == label), None)
        if slot is not None:
            chosen[k] = slot
            free.discard(slot)
    rest = sorted(free) + list(range(len(gold), slots))
    for k in range(len(labels)):
        if chosen[k] is None:
            chosen[k] = rest.pop(0)
    return chosen  # type: ignore[return-value]


__all__ = ["Predicted", "STRINGS_CASES", "STRINGS_MODES", "StringsDocument", "check_strings_options", "normalised",
           "occurrences", "place_document", "placed_inputs", "string_key"]
