"""The HTML report's view model: what the page draws, built once in Python from a result of
``agree``, ``score`` or ``merge``, so that the page (``assets/report.js``) draws it without knowing
which command made it (docs/report.md).

A :class:`ReportView` holds

- the span sets (``annotators``, and the name of each one's lane in the document view), the
  ``comparisons`` between them (``agree``: every pair; ``score``: every prediction against the
  gold; ``merge``: none) and the words that name them;
- the kinds a span or a cluster can be listed for (:data:`ITEM_KINDS`, :data:`CLUSTER_KINDS`:
  defined here once, from the scoring and voting modules' own lists) and the kind filter's choices;
- the summary as :class:`Section` values: tables (with their captions and the colour scales
  fitted to their figures, :mod:`spanagree.report.scale`), paragraphs and charts (heatmap, kappa
  curves, intervals), made from the command's ``--output json`` document so that they show the
  same figures; Python writes them into the page (:mod:`spanagree.report.summary`);
- the documents table (a row per document, its columns and sort order) and the selection of the
  documents drawn (``--report-documents``);
- each shown document's record, read one at a time from the run's spools (:meth:`ReportView.records`).

:func:`view_of` gives a result its view (each result names its own builder).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Iterator

from .._version import __version__
from ..errors import UsageError
from ..measures.counts import Counts
from ..measures.registry import counts_dict, value
from ..pipeline.compare import MeanF1
from .document import agreement_document, pairs_summary, scores_document, vote_document
from .scale import Scale, fitted

#: Points of each kappa-against-d curve (d on a logarithmic scale).
CURVE_POINTS = 60


@dataclass(frozen=True, slots=True)
class Kind:
    """A kind a span (or a cluster) is listed for: its name, what it means, the colour that marks it."""

    name: str
    description: str
    colour: str | None = None


def item_kinds() -> tuple[Kind, ...]:
    """The kinds of a classified span (``score --errors``), in :data:`spanagree.errorkinds.KINDS`' order."""
    from ..errorkinds import KINDS

    return tuple(Kind(name, *ITEM_KIND_LOOK[name]) for name in KINDS)


#: What each kind of :data:`spanagree.errorkinds.KINDS` means and its outline's colour in the page.
ITEM_KIND_LOOK = {
    "correct": ("same fragments, same label", None),
    "partial": ("overlapping, different fragments, same label", "#e08a00"),
    "wrong_label": ("same fragments, different label", "#7a3fc0"),
    "wrong_label_and_boundary": ("overlapping, different fragments and label", "#b0308a"),
    "missed": ("a span only the second (the gold) marked", "#1f6fd1"),
    "spurious": ("a span only the first (the prediction) marked", "#d12f2f"),
    "written_otherwise": ("same fragments, same label, a token written otherwise (the HIPE scorer compares an "
                          "entity's text: --pairing hipe)", "#2a8f7a"),
}


def cluster_kinds() -> tuple[Kind, ...]:
    """Why a cluster of ``merge`` needs adjudication (:data:`spanagree.errorkinds.ADJUDICATION_KINDS`)."""
    from ..errorkinds import ADJUDICATION_KINDS

    return tuple(Kind(name, description) for name, description in ADJUDICATION_KINDS.items())


#: Every kind of the page: the classified spans' (``agree``, ``score``) and the clusters' (``merge``).
ITEM_KINDS = item_kinds()
CLUSTER_KINDS = cluster_kinds()
#: The item kinds that are disagreements (every one but ``correct``).
DISAGREEMENT_KINDS = tuple(k for k in ITEM_KINDS if k.name != "correct")


def disagreement_kinds(error_counts: list[dict]) -> tuple[Kind, ...]:
    """:data:`DISAGREEMENT_KINDS`, then the kinds of a pairing
    (:data:`spanagree.errorkinds.PAIRING_KINDS`) that some of ``error_counts`` (the JSON's
    ``errors`` of each prediction) counts: a page without them draws what it drew before."""
    from ..errorkinds import PAIRING_KINDS

    return DISAGREEMENT_KINDS + tuple(Kind(name, *ITEM_KIND_LOOK[name]) for name in PAIRING_KINDS
                                      if any(counts.get(name) for counts in error_counts))


def item_filter(kinds: tuple[Kind, ...]) -> list[Choice]:
    """The kind filter's choices over ``kinds``: every kind first, then each one."""
    return [Choice("", "every kind", [k.name for k in kinds]), *(Choice(k.name, k.name, [k.name]) for k in kinds)]


@dataclass(slots=True)
class Comparison:
    """Two span sets compared: ``first`` and ``second`` index ``annotators`` (``score``: the
    prediction, then the gold); ``name`` is how the page names it."""

    first: int
    second: int
    name: str


@dataclass(slots=True)
class Choice:
    """One choice of the kind filter: the entries it keeps are those with one of ``keeps`` among
    their tags (an item's tag is its kind; a cluster's are its kinds, ``kept`` or ``not_kept``,
    and ``to_adjudicate`` when it has a kind)."""

    value: str
    label: str
    keeps: list[str]


@dataclass(slots=True)
class Section:
    """One section of the summary: an ``id`` (or ``None``), a title and its blocks, each a dict
    with a ``type`` (``table``, ``paragraph``, ``heading``, ``box``, ``group``, ``heatmap``,
    ``kappa``, ``intervals``); see :meth:`ReportView.as_json`."""

    id: str | None
    title: str
    blocks: list[dict]


@dataclass(slots=True)
class Column:
    """A column of the documents table: its heading, whether its cells are coloured by value
    (F1), and the order a first click sorts it in."""

    name: str
    heat: bool = False
    ascending: bool = True


@dataclass(slots=True)
class DocumentsTable:
    """The documents section: one row per compared document ``[id, value, ...]`` in document
    order (the values under ``columns[1:]``), the column sorted first and its direction, the
    paragraphs above the table."""

    columns: list[Column]
    rows: list[list]
    sort: int
    ascending: bool
    notes: list[dict] = field(default_factory=list)

    @property
    def scale(self) -> Scale | None:
        """The colour scale of the heat columns, fitted to every document's figures in them."""
        heats = [k for k, c in enumerate(self.columns) if c.heat]
        return fitted(row[k] for row in self.rows for k in heats)


@dataclass
class ReportView:
    """Everything the HTML report draws, whichever command made it (module docstring).

    Attributes
    ----------
    command : str
        The command, for the ``spanagree-documents`` block's ``command`` only (a contract): the
        page does not read it.
    title : str
        ``Agreement``, ``Scores``, ``Merge``.
    summary : dict
        The command's ``--output json`` document with ``--by document`` (its ``by_document``
        made as it is written).
    annotators, lanes : list of str
        The span sets, and the name of each one's lane in the document view.
    comparisons : list of Comparison
        Every pair (``agree``), every prediction against the gold (``score``), none (``merge``).
    comparison_filter : str or None
        What the comparison filter chooses (``pair``, ``prediction``); ``None``: no such filter.
    kind_filter : list of Choice
        The kind filter's choices, the first the default.
    legend : bool
        Whether the document view shows the kinds of disagreement (:data:`DISAGREEMENT_KINDS`).
    unit, document_heading, per_document : str
        What previous / next step through (``disagreement``, ``cluster``), the document view's
        heading, what a document's count counts.
    item_columns : list of str or None
        The headings of a document's table of disagreements (``None``: no such table).
    proposed_lane : str or None
        The name of the lane of ``merge``'s proposed spans, and of its table of clusters.
    min_votes : int or None
        ``merge``'s K (``None``: a majority of those who have each document).
    sections : list of Section
        The summary, section by section.
    documents : DocumentsTable
        A row per compared document.
    document_f1 : list of dict or None
        The mean and SD of the per-document F1 (``agree``, ``score``).
    kappa_curves : list of dict
        ``--chance``: kappa against d per comparison and level.
    changed_spans : list of list
        ``--align-text``: the spans that touch changed characters.
    order : list of str
        Every compared document, in document order.
    record_of, disagreements : callable
        A document's record (the documents block's entry, without its ``disagreements``) and the
        number the selection ranks it by.
    limit : int or None
        ``--report-documents``.
    kinds : tuple of Kind
        The kinds of disagreement the page draws and filters (:func:`disagreement_kinds`).
    weights : dict
        Every document's ``disagreements``.
    shown : list of str
        The documents drawn (:meth:`select`).
    """

    command: str
    title: str
    summary: dict
    annotators: list[str]
    lanes: list[str]
    comparisons: list[Comparison]
    comparison_filter: str | None
    kind_filter: list[Choice]
    legend: bool
    unit: str
    document_heading: str
    per_document: str
    item_columns: list[str] | None
    proposed_lane: str | None
    min_votes: int | None
    sections: list[Section]
    documents: DocumentsTable
    document_f1: list[dict] | None
    kappa_curves: list[dict]
    changed_spans: list[list]
    order: list[str]
    record_of: Callable[[str], dict]
    disagreements: Callable[[str], int]
    limit: int | None = None
    kinds: tuple = DISAGREEMENT_KINDS
    weights: dict = field(init=False)
    shown: list[str] = field(init=False)
    _selection: dict | None = field(init=False, default=None, repr=False)

    def __post_init__(self):
        self.weights = {d: self.disagreements(d) for d in self.order}
        self.shown = self.select(self.limit)

    # -- the documents drawn ---------------------------------------------------------------------
    def select(self, limit: int | None) -> list[str]:
        """The documents of the document view, in document order: with ``limit``, those with the
        most disagreements (ties: the earlier first)."""
        if limit is None or limit >= len(self.order):
            return list(self.order)
        ranked = sorted(range(len(self.order)), key=lambda k: (-self.weights[self.order[k]], k))[:limit]
        return [self.order[k] for k in sorted(ranked)]

    def selection(self) -> dict:
        """Which documents are shown, and what was left out, in numbers and in words."""
        if self._selection is None:
            self._selection = self.selected()
        return self._selection

    def selected(self) -> dict:
        shown = set(self.shown)
        left_out = [d for d in self.order if d not in shown]
        note = None
        if left_out:
            note = (f"{len(self.shown)} of {len(self.order)} documents shown (the {len(self.shown)} with the most "
                    f"disagreements); {len(left_out)} left out, with {sum(self.weights[d] for d in left_out)} "
                    f"disagreement(s) between them")
        return {"documents": len(self.order), "shown": len(self.shown), "left_out": left_out,
                "left_out_disagreements": sum(self.weights[d] for d in left_out), "note": note}

    def records(self) -> Iterator[dict]:
        """The shown documents' records, in document order, made one at a time."""
        for doc_id in self.shown:
            yield {**self.record_of(doc_id), "disagreements": self.weights[doc_id]}

    # -- the page's blocks -----------------------------------------------------------------------
    def documents_header(self) -> dict:
        """The ``spanagree-documents`` block without its documents (schema ``report``)."""
        header = {"spanagree": __version__, "command": self.command, "annotators": self.annotators,
                  "comparisons": [{"first": c.first, "second": c.second} for c in self.comparisons],
                  "selection": self.selection(), "kappa_curves": self.kappa_curves}
        if self.document_f1 is None:
            header["min_votes"] = self.min_votes
        else:
            header["document_f1"] = self.document_f1
        return header

    def as_json(self) -> dict:
        """The ``spanagree-view`` block the page draws from (docs/report.md)."""
        return {
            "spanagree": __version__,
            "title": self.title,
            "annotators": self.annotators,
            "lanes": self.lanes,
            "comparisons": [{"first": c.first, "second": c.second, "name": c.name} for c in self.comparisons],
            "comparison_filter": self.comparison_filter,
            "kinds": [{"name": k.name, "description": k.description, "colour": k.colour} for k in self.kinds],
            "kind_filter": [{"value": c.value, "label": c.label, "keeps": c.keeps} for c in self.kind_filter],
            "legend": self.legend,
            "unit": self.unit,
            "document_heading": self.document_heading,
            "per_document": self.per_document,
            "item_columns": self.item_columns,
            "proposed_lane": self.proposed_lane,
            "min_votes": self.min_votes,
            "summary": [{"id": s.id, "title": s.title, "blocks": s.blocks} for s in self.sections],
            "documents": {"columns": [{"name": c.name, "heat": c.heat, "ascending": c.ascending}
                                      for c in self.documents.columns],
                          "scale": scale.as_json() if (scale := self.documents.scale) else None,
                          "rows": self.documents.rows, "sort": self.documents.sort,
                          "ascending": self.documents.ascending,
                          "notes": [*self.documents.notes, *self.selection_notes()]},
            "selection_note": self.selection()["note"],
            "changed_spans": self.changed_spans,
        }

    def selection_notes(self) -> list[dict]:
        note = self.selection()["note"]
        return [paragraph(note, css="sa-note", id="sa-left-out")] if note else []


# -- blocks --------------------------------------------------------------------------------------

def paragraph(*parts, css: str | None = None, id: str | None = None) -> dict:
    """A paragraph: texts, and ``{"value": number}`` (written as the page writes numbers) or
    ``{"text": ..., "tag": "b" | "sub", "id": ...}`` parts."""
    return {"type": "paragraph", "class": css, "id": id, "parts": list(parts)}


def bold(x, id: str | None = None) -> dict:
    return {"value": x, "tag": "b", "id": id} if not isinstance(x, str) else {"text": x, "tag": "b", "id": id}


def number(x) -> dict:
    return {"value": x}


def table(head: list[str], rows: list[list], *, text_columns: int = 1, id: str | None = None,
          caption: str | None = None, measure: str = "F1") -> dict:
    """A table; a cell is a number, a text, ``None`` (—), ``{"heat": F1}`` (coloured by the
    table's ``scale``, fitted to its heat cells: :func:`~spanagree.report.scale.fitted`),
    ``{"interval": [low, high]}``, ``{"bar": fraction}`` or ``{"value": v, "style": css}``;
    ``caption``: what the table counts, written under it; ``measure``: what the colours show."""
    scale = fitted(c["heat"] for row in rows for c in row if isinstance(c, dict) and "heat" in c)
    return {"type": "table", "id": id, "head": head, "rows": rows, "text_columns": text_columns,
            "caption": caption, "measure": measure, "scale": scale.as_json() if scale else None}


def heat(v) -> dict:
    return {"heat": v}


def heatmap(names: list[str], matrix: list[list]) -> dict:
    """The pairwise heatmap, its colour scale fitted to the pairs' figures (the diagonal, each
    annotator against itself, left out)."""
    scale = fitted(matrix[i][j] for i in range(len(names)) for j in range(len(names)) if i != j)
    return {"type": "heatmap", "names": names, "matrix": matrix, "measure": "F1",
            "scale": scale.as_json() if scale else None}


def interval(v) -> dict:
    return {"interval": interval_of(v)}


def interval_of(v) -> list | None:
    """``[low, high]`` of a bootstrap interval written as a pair, ``{"interval": ...}`` or
    ``{"low", "high"}``; ``None`` when it has no defined ends."""
    if not v:
        return None
    if isinstance(v, (list, tuple)):
        return None if v[0] is None or v[1] is None or _nan(v[0]) or _nan(v[1]) else list(v)
    if isinstance(v, dict) and v.get("interval") is not None:
        return interval_of(v["interval"])
    if isinstance(v, dict) and "low" in v:
        return interval_of([v["low"], v["high"]])
    return None


def _nan(x) -> bool:
    return isinstance(x, float) and math.isnan(x)


def nothing(x) -> bool:
    return x is None or _nan(x)


# -- the parts every command shares --------------------------------------------------------------

def kappa_curves(pair_counts: list[Counts], extras: list[dict]) -> list[dict]:
    """With ``--chance``: per comparison, kappa as a function of d for the span counts a, b, c
    and for the token counts (whose actual d is marked), tending to the PSA as d grows
    (Hripcsak & Rothschild 2005). The formulas are the measures registry's."""
    curves = []
    chance = [e.get("chance") for e in extras]
    if not any(chance):
        return curves
    token_pairs = [pair for found in chance if found for pair in found["pairs"]]
    for n, (counts, tokens) in enumerate(zip(pair_counts, token_pairs)):
        for level, (a, b, c, d) in (("spans", (counts.a, counts.b, counts.c, None)),
                                    ("tokens", (tokens["a"], tokens["b"], tokens["c"], tokens["d"]))):
            curves.append({"comparison": n, "level": level, "a": a, "b": b, "c": c, "d": d,
                           "psa": value("f1", a, b, c),
                           "kappa": value("kappa", a, b, c, d) if d is not None else None,
                           "points": curve(a, b, c, d)})
    return curves


def curve(a: float, b: float, c: float, d: float | None) -> list[list[float]]:
    """``[[d, kappa(a, b, c, d)], ...]`` for d from 0 to well past where kappa is near the PSA
    (and past the actual ``d``, when known), logarithmically spaced."""
    total = a + b + c
    top = max(total * 1000.0, (d or 0) * 10.0, 10.0)
    points = [[0.0, value("kappa", a, b, c, 0.0)]]
    for n in range(CURVE_POINTS):
        x = 10 ** (n * math.log10(top) / (CURVE_POINTS - 1))
        points.append([x, value("kappa", a, b, c, x)])
    return points


#: The token-level measures of each pair (``--chance``): their JSON keys and their headings.
TOKEN_MEASURES = (("cohen_kappa", "Cohen's κ"), ("scott_pi", "Scott's π"), ("informedness", "informedness"),
                  ("markedness", "markedness"), ("mcc", "MCC"))


def token_measures_section(found: list[dict]) -> list[Section]:
    """``--chance``: the token-level measures, as papers report them — each pair's Cohen's kappa,
    Scott's pi, informedness, markedness and MCC over the tokens' categories, and Fleiss' kappa
    and Krippendorff's alpha over every annotator (docs/measures.md)."""
    if not found:
        return []
    rows, overall = [], []
    for chance in found:
        for p in chance["pairs"]:
            rows.append([*p["annotators"], p["tokens"], *(p.get(key) for key, _ in TOKEN_MEASURES)])
        names = sorted({a for p in chance["pairs"] for a in p["annotators"]})
        overall.append(paragraph(
            "Fleiss' κ ", bold(chance.get("fleiss_kappa")), ", Krippendorff's α ", bold(chance.get("krippendorff_alpha")),
            f" over {chance['tokens']} tokens of {chance['documents']} documents"
            + (f" ({', '.join(names)})" if len(found) > 1 else "")))
    first = found[0]
    categories = first["categories"]
    words = (f"Each token is one item, given a category by each annotator (categories: {', '.join(categories)}); "
             f"tokens from the {first['tokenizer']} tokenizer, labels {first['labels']}. A pair's measures are "
             "computed over its table of categories (the token counts, O included); Fleiss' κ and Krippendorff's α "
             "(nominal) over every annotator at once.")
    return [Section("sa-tokens", "Token-level agreement (--chance)", [
        table(["first", "second", "tokens", *(name for _, name in TOKEN_MEASURES)], rows, text_columns=2,
              id="sa-token-measures"),
        *overall,
        paragraph(words, css="sa-caption")])]


def kappa_section(curves: list[dict], comparisons: list[Comparison]) -> list[Section]:
    if not curves:
        return []
    charts: dict[int, list] = {}
    for c in curves:
        charts.setdefault(c["comparison"], []).append(c)
    return [Section("sa-kappa", "Kappa as a function of d (Hripcsak & Rothschild 2005)", [
        paragraph("Cohen's kappa of a 2×2 table with the span (or token) counts a, b, c and a growing number d of "
                  "negatives tends to the PSA = 2a/(2a+b+c) (dotted line). The token level's actual d is marked.",
                  css="sa-muted"),
        {"type": "kappa", "charts": [{"comparison": n, "name": comparisons[n].name, "curves": found}
                                     for n, found in sorted(charts.items())]}])]


def bootstrap_section(runs: list[dict]) -> list[Section]:
    """``--bootstrap``: the intervals of every pair (or prediction), as a table and as bars."""
    if not runs:
        return []
    rows, bars = [], []
    for b in runs:
        for p in b["pairs"]:
            name = " × ".join(p["annotators"])
            rows.append([name, interval(p["f1"]), interval(p["precision"]), interval(p["recall"])])
            bars.append([name, interval_of(p["f1"])])
        for key, name in (("mean_f1", "mean pairwise F1"), ("pooled_f1", "pooled F1")):
            if b.get(key):
                rows.append([name, interval(b[key]), "", ""])
                bars.append([name, interval_of(b[key])])
    first = runs[0]
    return [Section("sa-bootstrap", "Bootstrap intervals", [
        paragraph(f"{_js_number(first['level'] * 100)}% {first['method']} intervals from {first['n']} resamples of "
                  f"{first['resampled']} (seed {first['seed']})", css="sa-muted"),
        table(["", "F1", "precision", "recall"], rows, id="sa-intervals"),
        {"type": "box", "id": None, "inline": False, "blocks": [{"type": "intervals", "rows": bars}]}])]


def gamma_section(found: dict | None) -> list[Section]:
    """``--gamma``: γ, γ-cat and each label's γ-k (Mathet et al. 2015; docs/measures.md) in one
    table, the disorders they come from beside it and the settings (samples, sampler, seed,
    dissimilarity) in its caption."""
    if not found:
        return []
    title = "Gamma agreement (γ, Mathet et al. 2015)"
    if found["documents"] == 0:
        return [Section("sa-gamma", title, [paragraph("γ: no unit in any document", css="sa-muted")])]
    rows = [["γ", "every label", heat(found["gamma"])],
            ["γ-cat", "every label, categories only", heat(found["gamma_cat"])],
            *(["γ-k", label, heat(v)] for label, v in found["gamma_k"].items())]
    caption = (f"γ = 1 − observed / expected disorder; the expected disorder is the mean of {found['samples']} "
               f"continua drawn by the {found['sampler']} sampler (seed {found['seed']}) over "
               f"{found['documents']} document(s); dissimilarity α = {_js_number(found['alpha'])}, "
               f"β = {_js_number(found['beta'])}, δ∅ = {_js_number(found['delta_empty'])}; γ-cat: the same over "
               "the categorical disorder of the aligned units; γ-k: over the pairs of aligned units one of which "
               "has the label")
    return [Section("sa-gamma", title, [
        paragraph("γ ", bold(found["gamma"], id="sa-gamma-value"), ", γ-cat ", bold(found["gamma_cat"]),
                  "; disorder ", number(found["disorder"]), f" observed ({found['alignments']} unitary alignments of "
                  f"{found['units']} units), ", number(found["expected_disorder"]), " expected (SE ",
                  number(found["expected_disorder_se"]), ")"),
        table(["measure", "label", "value"], rows, text_columns=2, id="sa-gamma-table", caption=caption,
              measure="γ")])]


def _js_number(x: float) -> str:
    """A number as JavaScript's ``String`` writes it, for the few a sentence holds (95, 0.9)."""
    if float(x).is_integer():
        return str(int(x))
    return repr(float(x))


def paired_tests_section(entries: list[dict] | None) -> list[Section]:
    """``score --compare``: the paired tests (docs/statistics.md)."""
    if not entries:
        return []
    e0 = entries[0]
    test = "approximate randomization" if e0["test"] == "randomization" else "paired bootstrap"

    def p(x):
        return None if nothing(x) else ("< 0.001" if x < 0.001 else x)

    if e0["test"] == "randomization":
        which = ("The interval and the p-values come from two different tests: the interval is the paired "
                 "bootstrap's percentile interval of Δ, the p-values the approximate randomization test's, so an "
                 "interval that excludes 0 can sit beside a p-value above 0.05.")
    else:
        which = "The interval (its percentile interval of Δ) and the p-values both come from the paired bootstrap."
    return [Section("sa-comparisons", "Paired comparisons", [
        paragraph(f"{test}, {e0['resamples']} rounds over {e0['units']} {e0['unit']}s, seed {e0['seed']}; "
                  "Δ = first − second; p (Holm) adjusted across the pairs of the same measure", css="sa-muted"),
        paragraph(which, css="sa-caption", id="sa-tests"),
        table(["first", "second", "measure", "Δ", "95% interval (paired bootstrap)", f"p ({test})",
               f"p Holm ({test})"],
              [[e["first"], e["second"], e["measure"], e["difference"], interval([e["low"], e["high"]]),
                p(e["p_value"]), p(e["p_value_holm"])] for e in entries], text_columns=3,
              id="sa-comparisons-table")])]


def averages_group(entries: list[tuple[str, dict | None]], first: str, support: str) -> dict:
    """Micro, macro and weighted averages over the labels, per pair or prediction (docs/measures.md)."""
    head = [first]
    for a in ("micro", "macro", "weighted"):
        head += [f"{a} {k}" for k in ("P", "R", "F1")]
    rows = []
    for name, averages in entries:
        rows.append([name, *(averages[a][k] if averages else None for a in ("micro", "macro", "weighted")
                             for k in ("precision", "recall", "f1"))])
    return {"type": "group", "blocks": [
        {"type": "heading", "text": "averages over labels"},
        paragraph("micro: the summed counts; macro: the mean of the labels' rates; weighted: by support "
                  f"{support}; an undefined per-label rate counts 0", css="sa-muted"),
        table(head, rows, id="sa-averages")]}


def notes_of(document: dict) -> list[dict]:
    return [paragraph(n, css="sa-muted") for n in document.get("notes") or []]


def left_out_note(relations: bool, attributes: bool) -> list[dict]:
    """``--relations``, ``--attributes``: one note that the report leaves them out (their figures
    are in the JSON and the terminal's table)."""
    left = [what for what, compared in (("relations", relations), ("attributes", attributes)) if compared]
    if not left:
        return []
    return [paragraph(f"the report leaves the {' and the '.join(left)} out: their figures "
                      f"({', '.join('--' + what for what in left)}) are in the JSON document and the terminal's table",
                      css="sa-muted")]


def document_f1_notes(document_f1: list[dict]) -> list[dict]:
    found = []
    for m in document_f1:
        found.append(paragraph(f"{m['name']}: per-document F1 mean ", bold(m["mean"]), ", SD ", number(m["sd"]),
                               " over ", number(m["defined"]), " documents",
                               f" ({m['skipped']} with F1 undefined skipped)" if m["skipped"] else ""))
    return found


def mean_of(name: str, values: list) -> dict:
    """Mean and SD of per-document F1 values, undefined ones skipped (:class:`MeanF1`)."""
    mean = MeanF1.of(values)
    return {"name": name, "mean": mean.mean, "sd": mean.sd, "defined": mean.defined, "skipped": mean.skipped}


def add_aligned_texts(documents: DocumentsTable, found: list[dict]) -> list[list]:
    """``--align-text``: add to ``documents`` a column of each document's differing characters and
    a note above the table; return the spans that touch changed characters, as ``[document,
    annotator, fragments, label]``."""
    if not found:
        return []
    differing: dict[str, int] = {}
    for a in found:
        for d, n in a["differing_characters"].items():
            differing[d] = max(differing.get(d, 0), n)
    affected = sum(a["affected_spans"] for a in found)
    documents.notes.append(paragraph(
        f"{len(differing)} document(s) whose copies' texts differ were compared through a character alignment "
        f"(--align-text); {affected} span(s) touch changed characters that are not whitespace. The column below "
        "counts the differing characters.", css="sa-note", id="sa-aligned-texts"))
    documents.columns.append(Column("texts differ (characters)", ascending=documents.columns[1].ascending))
    for row in documents.rows:
        row.append(differing.get(row[0], 0))
    return [[e["document"], e["annotator"], ";".join(f"{s}-{t}" for s, t in e["mapped"]), e["label"]]
            for a in found for e in a.get("affected") or [] if e.get("mapped")]


def spooled(spools: list, k: int) -> tuple[Callable, Callable]:
    """A shown document's record and its disagreements, from the runs' spools (one per
    comparison group; a member's spans are filled by the spool that has them)."""

    def record_of(doc_id: str) -> dict:
        # null: the annotator does not have the document (agree --documents pairwise)
        record = {"id": doc_id, "text": None, "spans": [None] * k, "items": []}
        for spool in spools:
            part = spool.record(doc_id)
            if part is None:
                continue
            if part["text"] is not None:
                record["text"] = part["text"]
            for member, spans in part["spans"].items():
                record["spans"][int(member)] = spans
            record["items"] += part["items"]
        return record

    def disagreements(doc_id: str) -> int:
        return sum(spool.disagreements(doc_id) for spool in spools)

    return record_of, disagreements


ITEM_FILTER = item_filter(DISAGREEMENT_KINDS)
CLUSTER_FILTER = [Choice("to_adjudicate", "needing adjudication", ["to_adjudicate"]),
                  Choice("all", "every cluster", ["kept", "not_kept"]), Choice("kept", "kept", ["kept"]),
                  Choice("not_kept", "dropped (not kept)", ["not_kept"]),
                  *(Choice(k.name, k.name, [k.name]) for k in CLUSTER_KINDS)]


# -- one builder per result ----------------------------------------------------------------------

def view_of(result, limit: int | None = None) -> ReportView:
    """The view of a result: a list of scores drawn here (:func:`scores_view`); an agreement or a
    vote names its own builder (its ``report_view``, :func:`agreement_view`, :func:`vote_view`), so
    the report imports none of the commands.

    Parameters
    ----------
    result : Agreement, list of Score, or Vote
        An ``agree(..., report=True)`` result, a list of ``score(..., report=True)`` results (one
        or several predictions against the same gold), or a ``vote()`` result.
    limit : int, optional
        ``--report-documents``: draw only this many documents, those with the most disagreements.

    Examples
    --------
    >>> from spanagree import agree
    >>> view = view_of(agree(["corpora/demo/brat/ann1", "corpora/demo/brat/ann2"], report=True))
    >>> view.title, [c.name for c in view.comparisons], view.comparison_filter
    ('Agreement', ['ann1 × ann2'], 'pair')
    >>> [s.title for s in view.sections]
    ['Figures', 'Pairwise F1', 'Per label F1']
    >>> view.documents.rows[0][0], len(view.documents.rows), sum(view.weights.values())
    ('clinic-01', 10, 17)
    """
    if isinstance(result, (list, tuple)):
        return scores_view(result, limit)  # (Scores: its paired comparisons too)
    if hasattr(result, "report_view"):  # an agreement or a vote names its own view
        return result.report_view(limit)
    raise UsageError(f"no report of a {type(result).__name__}: give an agree(), score() or vote() result")


def missing_spool(spools: list, call: str) -> None:
    if any(spool is None for spool in spools):
        raise UsageError(f"the {call} result keeps no documents for a report: call {call}(..., report=True)")


def agreement_view(result, limit: int | None = None) -> ReportView:
    """``agree``: every pair of annotators; the second of a pair plays the reference."""
    missing_spool([result.spool], "agree")
    summary = agreement_document(result, by_document=True, lazy=True)
    names = list(result.annotators)
    index = {name: k for k, name in enumerate(names)}
    comparisons = [Comparison(index[p.first], index[p.second], f"{p.first} × {p.second}") for p in result.pairs]
    figures = [
        table(["first", "second", "a", "b", "c", "precision", "recall", "F1"],
              [[*p["annotators"], p["a"], p["b"], p["c"], p["precision"], p["recall"], heat(p["f1"])]
               for p in summary["pairs"]], text_columns=2, id="sa-pairs",
              caption="a: the spans the match rule pairs between the two; b: the first's other spans; c: the "
                      "second's; F1 = 2a / (2a + b + c), the pair's positive specific agreement"),
        paragraph("mean pairwise F1 ", bold(summary["mean_f1"]), " (SD ", number(summary["sd_f1"]), "); pooled F1 ",
                  bold(summary["pooled_f1"]), f" over {summary['documents']} documents, match {summary['match']}, "
                  f"labels {summary['labels']}")]
    alpha = summary.get("alpha_u")
    if alpha:  # --unitizing: Krippendorff's unitizing alpha (docs/measures.md)
        figures += [
            paragraph("Krippendorff's unitizing alpha α", {"text": "U", "tag": "sub"}, " ",
                      bold(alpha["overall"], id="sa-alpha-u"), f" over {alpha['characters']} characters of "
                      f"{alpha['documents']} documents, {alpha['annotators']} annotators"),
            table(["label", "α_U", "D_O", "D_E"], [[label, heat(e["alpha"]), e["observed"], e["expected"]]
                                                  for label, e in alpha["labels"].items()], id="sa-alpha-u-labels",
                  measure="α_U")]
    pair_names = [" × ".join(p["annotators"]) for p in summary["pairs"]]
    labels = Section("sa-labels", "Per label F1", [
        table(["label", *pair_names, "mean", "pooled"],
              [[label, *(heat(p["f1"]) for p in b["pairs"]), heat(b["mean_f1"]), heat(b["pooled_f1"])]
               for label, b in summary["by_label"].items()], id="sa-by-label",
              caption="each pair's F1 over the spans of the label; mean: of the pairs' F1; pooled: the F1 of the "
                      "pairs' a, b and c summed"),
        averages_group([(n, p.get("averages")) for n, p in zip(pair_names, summary["pairs"])], "pair",
                       "(the mean of both annotators' spans of the label)")])
    rows = []
    for d in result.documents:
        on = result.pairs_on(d)
        entry = pairs_summary([p for p, _ in on], [c for _, c in on])
        rows.append([d, entry["mean_f1"], entry["pooled_f1"]])
    documents = DocumentsTable([Column("document"), Column("mean pairwise F1", heat=True),
                                Column("pooled F1", heat=True)], rows, sort=1, ascending=True)
    document_f1 = [mean_of("mean pairwise F1", [row[1] for row in rows])]
    documents.notes += document_f1_notes(document_f1)
    changed = add_aligned_texts(documents, [summary["aligned_texts"]] if summary.get("aligned_texts") else [])
    curves = kappa_curves([p.counts for p in result.pairs], [result.extras])
    sections = [Section("sa-figures", "Figures", figures + notes_of(summary)
                        + left_out_note("relations" in summary, any("attributes" in p for p in summary["pairs"]))),
                Section(None, "Pairwise F1", [{"type": "box", "id": "sa-heatmap", "inline": True, "blocks": [
                    heatmap(summary["matrix"]["annotators"], summary["matrix"]["f1"]),
                    paragraph("each cell is the pair's F1, as in the table of figures; the diagonal (grey) is each "
                              "annotator against itself", css="sa-caption")]}]),
                labels,
                *gamma_section(summary.get("gamma")),
                *token_measures_section([summary["chance"]] if summary.get("chance") else []),
                *kappa_section(curves, comparisons),
                *bootstrap_section([summary["bootstrap"]] if summary.get("bootstrap") else []),
                *paired_tests_section(summary.get("comparisons"))]
    record_of, disagreements = spooled([result.spool], len(names))
    return ReportView(
        command="agree", title="Agreement", summary=summary, annotators=names, lanes=names, comparisons=comparisons,
        comparison_filter="pair", kind_filter=ITEM_FILTER, legend=True, unit="disagreement",
        document_heading="Disagreements in context", per_document="disagreement(s)",
        item_columns=["first × second", "kind", "first label", "first text", "second label", "second text"],
        proposed_lane=None, min_votes=None, sections=sections, documents=documents, document_f1=document_f1,
        kappa_curves=curves, changed_spans=changed, order=list(result.documents), record_of=record_of,
        disagreements=disagreements, limit=limit)


def scores_view(results: list, limit: int | None = None) -> ReportView:
    """``score``: each prediction against the gold (annotator 0)."""
    missing_spool([r.spool for r in results], "score")
    summary = scores_document(results, by_document=True, lazy=True)
    predictions = summary.get("predictions") or [summary]
    first = results[0]
    names = [first.gold, *(r.prediction for r in results)]
    comparisons = [Comparison(p + 1, 0, f"{names[p + 1]} × {names[0]}") for p in range(len(results))]
    # in rank order (by F1) when there are several predictions; the JSON keeps the order given
    rank = [p.get("rank", 1) for p in predictions]  # one prediction: no rank in the JSON, first
    ranked = sorted(range(len(predictions)), key=lambda k: (math.inf if rank[k] is None else rank[k], k))
    figures = [
        table(["rank", "prediction", "gold", "a", "b", "c", "precision", "recall", "F1"],
              [["n/a" if rank[k] is None else rank[k], p["prediction"], p["gold"], p["a"], p["b"], p["c"],
                p["precision"], p["recall"], heat(p.get("f1"))] for k in ranked for p in [predictions[k]]],
              text_columns=3, id="sa-pairs",
              caption="a: the predicted spans the match rule pairs with a gold span; b: the other predicted spans "
                      "(false positives); c: the other gold spans (false negatives)"),
        paragraph(f"{predictions[0]['documents']} documents scored, match {predictions[0]['match']}, labels "
                  f"{predictions[0]['labels']}")]
    every = sorted({label for p in predictions for label in p["by_label"]})
    labels = Section("sa-labels", "Per label F1", [
        table(["label", *(p["prediction"] for p in predictions), "support (gold spans)"],
              [[label, *(heat(p["by_label"][label]["f1"] if label in p["by_label"] else None) for p in predictions),
                predictions[0]["by_label"][label]["support"] if label in predictions[0]["by_label"] else 0]
               for label in every], id="sa-by-label",
              caption="each prediction's F1 over the spans of the label (— : neither side has the label); support: "
                      "the gold's spans of the label"),
        averages_group([(p["prediction"], p.get("averages")) for p in predictions], "prediction",
                       "(the gold's spans of the label)")])
    confusion = Section("sa-confusion", "Confusion and error kinds", [confusion_box(p) for p in predictions])
    by_document = [{d: counts_dict(c, beta=r.beta)["f1"] for d, c in r.pair.by_document.items()} for r in results]
    rows = [[d, *(found.get(d) for found in by_document)] for d in by_document[0]]
    documents = DocumentsTable([Column("document"), *(Column(f"F1 {p['prediction']}", heat=True)
                                                      for p in predictions)], rows, sort=1, ascending=True)
    document_f1 = [mean_of(f"{p['prediction']} F1", list(found.values()))
                   for p, found in zip(predictions, by_document)]
    documents.notes += document_f1_notes(document_f1)
    changed = add_aligned_texts(documents, [p["aligned_texts"] for p in predictions if p.get("aligned_texts")])
    curves = kappa_curves([r.counts for r in results], [r.extras for r in results])
    sections = [Section("sa-figures", "Figures", figures + notes_of(summary)
                        + left_out_note(any("relations" in p for p in predictions),
                                        any("attributes" in p for p in predictions))), labels, confusion,
                *token_measures_section([p["chance"] for p in predictions if p.get("chance")]),
                *kappa_section(curves, comparisons),
                *bootstrap_section([p["bootstrap"] for p in predictions if p.get("bootstrap")]),
                *paired_tests_section(summary.get("comparisons"))]
    record_of, disagreements = spooled([r.spool for r in results], len(names))
    kinds = disagreement_kinds([p.get("errors") or {} for p in predictions])
    return ReportView(
        command="score", title="Scores", summary=summary, annotators=names,
        lanes=[f"{names[0]} (gold)", *names[1:]], comparisons=comparisons, comparison_filter="prediction",
        kind_filter=item_filter(kinds), kinds=kinds, legend=True, unit="disagreement", document_heading="Disagreements in context",
        per_document="disagreement(s)",
        item_columns=["prediction × gold", "kind", "predicted label", "predicted text", "gold label", "gold text"],
        proposed_lane=None, min_votes=None, sections=sections, documents=documents, document_f1=document_f1,
        kappa_curves=curves, changed_spans=changed, order=list(first.documents), record_of=record_of,
        disagreements=disagreements, limit=limit)


def confusion_box(p: dict) -> dict:
    """A prediction's confusion (gold rows × predicted columns, the diagonal green, the rest red,
    darker with the count), with a caption on what its diagonal counts, and its error kinds as a
    table with bars."""
    conf = p["confusion"]
    top = max([1, *(v for row in conf["matrix"] for v in row)])

    def cell(v, diagonal):
        if not v:
            return {"value": v, "style": None}
        lightness = math.floor(95 - 35 * v / top + 0.5)  # JavaScript's toFixed(0) on a positive number
        return {"value": v, "style": f"background:hsl({120 if diagonal else 0},60%,{lightness}%)"}

    from ..errorkinds import NONE

    labels = conf["labels"]
    diagonal = sum(conf["matrix"][i][i] for i, label in enumerate(labels) if label != NONE)
    errors = p["errors"]
    caption = (f"Each item of the error analysis (two aligned spans, or a span alone) is counted once, by its gold "
               f"and its predicted label ({NONE}: missed, spurious). The diagonal ({diagonal}) counts the pairs with the same label whether their "
               f"boundaries are the same ({errors.get('correct', 0)} correct) or only overlap "
               f"({errors.get('partial', 0)} partial), so it can differ from the pairs the match rule "
               f"({p['match']}) counts in a ({p['a']}) and from the per-label a.")
    top_kind = max([1, *errors.values()])
    return {"type": "box", "id": None, "inline": False, "blocks": [
        {"type": "heading", "text": f"{p['prediction']}: gold (rows) × prediction (columns)"},
        table(["gold \\ prediction", *labels],
              [[label, *(cell(v, i == j) for j, v in enumerate(conf["matrix"][i]))]
               for i, label in enumerate(labels)], caption=caption),
        {"type": "heading", "text": "error kinds"},
        table(["kind", "spans", ""], [[k, n, {"bar": n / top_kind}] for k, n in errors.items()],
              id=None, caption="the items of score --errors, correct ones included")]}


def vote_view(result, limit: int | None = None) -> ReportView:
    """``merge``: every annotator's spans, the clusters and their votes; no comparison."""
    summary = vote_document(result, lazy=True)
    names = list(result.annotators)
    keys = ["clusters", "kept", "dropped", "boundary_tie", "label_tie", "label_split", "several_spans",
            "to_adjudicate", "spans"]
    k_words = ("a majority of the annotators who have each document" if result.min_votes is None
               else f"{result.min_votes} of {len(names)} annotators")
    figures = [table(keys, [[summary[key] for key in keys]], text_columns=0, id="sa-pairs"),
               paragraph(f"{summary['documents']} documents merged, K = {k_words}; votes per cluster: "
                         + ", ".join(f"{v}: {n}" for v, n in summary["votes"].items()))]
    rows = [[d, *(result.counts_of(d)[key] for key in ("clusters", "kept", "to_adjudicate"))]
            for d in result.documents]
    documents = DocumentsTable([Column("document"), Column("clusters", ascending=False),
                                Column("kept", ascending=False), Column("to adjudicate", ascending=False)],
                               rows, sort=3, ascending=False)

    def disagreements(doc_id: str) -> int:
        return result.clusters.counted(doc_id, "to_adjudicate")

    return ReportView(
        command="merge", title="Merge", summary=summary, annotators=names, lanes=names, comparisons=[],
        comparison_filter=None, kind_filter=CLUSTER_FILTER, legend=False, unit="cluster",
        document_heading="Clusters in context",
        per_document="cluster(s) to adjudicate", item_columns=None, proposed_lane="merged (proposed spans)",
        min_votes=result.min_votes, sections=[Section("sa-figures", "Figures", figures + notes_of(summary))],
        documents=documents, document_f1=None, kappa_curves=[], changed_spans=[], order=list(result.documents),
        record_of=lambda doc_id: clusters_record(result, doc_id), disagreements=disagreements, limit=limit)


def clusters_record(vote, doc_id: str) -> dict:
    """A merged document's record: each annotator's spans (``None``: it does not have the
    document) and every cluster, its members by index into them."""
    from ..pipeline.spool import span_entry

    spans = [[] if vote.has(k, doc_id) else None for k in range(len(vote.annotators))]
    index: dict[tuple[int, int], int] = {}
    clusters = []
    for cluster in vote.clusters.of(doc_id):
        members = []
        for k, span in cluster.members:
            key = (k, id(span))
            if key not in index:
                index[key] = len(spans[k])
                spans[k].append(span_entry(span))
            members.append([k, index[key]])
        clusters.append({"span": span_entry(cluster.span), "members": members, "votes": cluster.votes,
                         "boundary_votes": cluster.boundary_votes, "label_votes": cluster.label_votes,
                         "kept": cluster.kept, "kinds": list(cluster.kinds)})
    return {"id": doc_id, "text": vote.texts.get(doc_id), "spans": spans, "items": [], "clusters": clusters}
