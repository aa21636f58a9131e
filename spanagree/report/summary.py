"""The HTML report's summary written as HTML by Python: the view's sections (tables, paragraphs,
headings, the heatmap and the charts as inline SVG, the colour scales' legends) and the documents
table, so that the page shows its figures with scripts off, in a mail preview or in a plain
headless screenshot (docs/report.md). Every figure a chart draws is also HTML text: in a table
of the same section or of the summary, or in the chart's legend.

Numbers are written as the page's script writes them (:func:`figure`): whole numbers as they are,
others to three decimals, rounded as JavaScript's ``toFixed(3)`` rounds (half away from zero), so
that a table the script draws again (sorting) shows the same text.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from html import escape

from .scale import UNDEFINED, Scale, undefined

#: Rows of the documents table written into the page (the script shows the rest on request).
DOCUMENT_ROWS = 300


def figure(x) -> str:
    """A cell's text as the page's script writes it: ``—`` for nothing, whole numbers as they are,
    other numbers to three decimals (JavaScript's ``toFixed(3)``: ties away from zero), texts as
    they are.

    >>> figure(0.0625), figure(-0.0625), figure(1.0), figure(12), figure(None), figure(float("nan"))
    ('0.063', '-0.063', '1', '12', '—', '—')
    """
    if undefined(x):
        return "—"
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, (int, float)):
        if float(x).is_integer():
            return str(int(x))
        return str(Decimal(x).quantize(Decimal("0.001"), rounding=ROUND_HALF_UP))
    return str(x)


def attributes(**found) -> str:
    """`` key="value"`` for each given attribute (``css`` is ``class``; ``None`` and ``False`` left out)."""
    text = ""
    for key, v in found.items():
        if v is None or v is False:
            continue
        name = "class" if key == "css" else key.replace("_", "-")
        text += f' {name}="{escape(str(v))}"'
    return text


def text(x) -> str:
    return escape(str(x), quote=False)


# -- blocks ----------------------------------------------------------------------------------------

def section_html(section) -> str:
    return (f"<section{attributes(id=section.id)}>\n<h2>{text(section.title)}</h2>\n"
            + "".join(block_html(b) for b in section.blocks) + "</section>\n")


def block_html(b: dict) -> str:
    kind = b["type"]
    if kind == "table":
        return table_html(b)
    if kind == "paragraph":
        return f"<p{attributes(css=b.get('class'), id=b.get('id'))}>{''.join(part_html(p) for p in b['parts'])}</p>\n"
    if kind == "heading":
        return f"<h3>{text(b['text'])}</h3>\n"
    if kind == "box":
        return (f"<div{attributes(css='sa-chart', id=b.get('id'), style='display:inline-block' if b.get('inline') else None)}>"
                + "".join(block_html(x) for x in b["blocks"]) + "</div>\n")
    if kind == "group":
        return "<div>" + "".join(block_html(x) for x in b["blocks"]) + "</div>\n"
    if kind == "heatmap":
        return heatmap_svg(b["names"], b["matrix"], scale_of(b)) + legend_html(scale_of(b), b.get("measure", "F1"))
    if kind == "kappa":
        return kappa_charts(b["charts"])
    if kind == "intervals":
        return intervals_svg(b["rows"])
    raise ValueError(f"unknown block {kind}")


def scale_of(b: dict) -> Scale | None:
    found = b.get("scale")
    return None if found is None else Scale(tuple(found["edges"]), tuple(found["colours"]), tuple(found["inks"]))


def part_html(p) -> str:
    if isinstance(p, str):
        return text(p)
    shown = figure(p["value"]) if "value" in p else p["text"]
    if p.get("tag"):
        return f"<{p['tag']}{attributes(id=p.get('id'))}>{text(shown)}</{p['tag']}>"
    return text(shown)


def table_html(b: dict) -> str:
    scale = scale_of(b)
    columns = b.get("text_columns", 1)
    head = "".join(f"<th{attributes(css='sa-text' if k < columns else None)}>{text(h)}</th>"
                   for k, h in enumerate(b["head"]))
    rows = "".join("<tr>" + "".join(cell_html(c, k < columns, scale) for k, c in enumerate(row)) + "</tr>\n"
                   for row in b["rows"])
    caption = f"<p class=\"sa-caption\">{text(b['caption'])}</p>\n" if b.get("caption") else ""
    table = (f"<table{attributes(css='sa-table', id=b.get('id'), data_sortable='true' if b.get('sortable', True) else None)}>"
             f"<thead><tr>{head}</tr></thead><tbody>\n{rows}</tbody></table>\n")
    return table + caption + (legend_html(scale, b.get("measure", "F1")) if scale else "")


def cell_html(cell, text_column: bool, scale: Scale | None) -> str:
    """A table cell: a number, a text, ``None`` (—), ``{"heat": v}`` (coloured by the table's
    scale), ``{"interval": [low, high]}``, ``{"bar": fraction, "value": n}`` or ``{"value": v,
    "style": css}``."""
    if isinstance(cell, dict):
        if "heat" in cell:
            v = cell["heat"]
            return f"<td{attributes(style=heat_style(scale, v))}>{text(figure(v))}</td>"
        if "interval" in cell:
            return f"<td>{text(interval_text(cell['interval']))}</td>"
        if "bar" in cell:
            width = max(cell["bar"] * 100, 0.5)
            return (f"<td class=\"sa-bar-cell\"><span class=\"sa-bar\" style=\"width:{width:.1f}%\"></span></td>")
        return f"<td{attributes(style=cell.get('style'))}>{text(figure(cell['value']))}</td>"
    return f"<td{attributes(css='sa-text' if text_column else None)}>{text(figure(cell))}</td>"


def heat_style(scale: Scale | None, v) -> str:
    """A heat cell's CSS: by its table's scale (grey when the table has no defined figure)."""
    return scale.style(v) if scale else f"background:{UNDEFINED[0]};color:{UNDEFINED[1]}"


def interval_text(iv) -> str:
    return f"[{figure(iv[0])}, {figure(iv[1])}]" if iv else "—"


def legend_html(scale: Scale | None, measure: str) -> str:
    """A scale's legend: each bin's range written on its colour, and what the colours mean."""
    if scale is None:
        return ""
    edges = scale.edges
    swatches = "".join(
        f"<span class=\"sa-swatch\" style=\"background:{c};color:{ink}\">{text(figure(edges[k]))}–"
        f"{text(figure(edges[k + 1]))}</span>" for k, (c, ink) in enumerate(zip(scale.colours, scale.inks)))
    return (f"<div class=\"sa-scale\" data-low=\"{edges[0]}\" data-high=\"{edges[-1]}\">"
            f"<span class=\"sa-muted\">colour scale of {text(measure)}, fitted to the figures shown "
            f"(dark: lower, light: higher; grey: undefined): </span>{swatches}</div>\n")


# -- charts (inline SVG) ---------------------------------------------------------------------------

def svg_number(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def heatmap_svg(names: list[str], matrix: list[list], scale: Scale | None) -> str:
    """The pairwise heatmap: each cell's figure written in it, coloured by ``scale`` (the diagonal,
    each annotator against itself, grey)."""
    cell, left, top, n = 54, 90, 20, len(names)
    width, height = left + n * cell + 10, top + n * cell + 70
    out = [f"<svg width=\"{width}\" height=\"{height}\" role=\"img\" aria-label=\"pairwise F1\" class=\"sa-heatmap\">"]
    for i, name in enumerate(names):
        y = top + i * cell + cell / 2 + 4
        x = left + i * cell + cell / 2
        out.append(f"<text x=\"{left - 6}\" y=\"{svg_number(y)}\" text-anchor=\"end\">{text(name)}</text>")
        out.append(f"<text x=\"{svg_number(x)}\" y=\"{top + n * cell + 14}\" text-anchor=\"end\" "
                   f"transform=\"rotate(-35 {svg_number(x)} {top + n * cell + 14})\">{text(name)}</text>")
        for j in range(n):
            v = matrix[i][j]
            if i == j or scale is None:
                fill, ink = "#eeeeee", "#667"
            else:
                fill, ink = scale.colour(v), scale.ink(v)
            out.append(f"<rect x=\"{left + j * cell}\" y=\"{top + i * cell}\" width=\"{cell - 2}\" height=\"{cell - 2}\" "
                       f"fill=\"{fill}\"><title>{text(names[i])} × {text(names[j])}: {text(figure(v))}</title></rect>")
            out.append(f"<text x=\"{left + j * cell + cell / 2 - 1:g}\" y=\"{svg_number(top + i * cell + cell / 2 + 4)}\" "
                       f"text-anchor=\"middle\" style=\"fill:{ink}\">{text(figure(v))}</text>")
    out.append("</svg>\n")
    return "".join(out)


TOKENS_COLOUR, SPANS_COLOUR = "#1f6fd1", "#d1741f"


def kappa_charts(charts: list[dict]) -> str:
    """``--chance``: kappa against d, one chart per comparison, its figures in the legend below it."""
    out = ["<div class=\"sa-charts\">"]
    for chart in charts:
        curves, c = chart["curves"], chart["comparison"]
        W, H, L, B, T, R = 420, 240, 44, 30, 10, 10
        max_d = max([1.0, *(p[0] for cv in curves for p in cv["points"])])

        def lx(d):
            return L + (math.log10(d + 1) / math.log10(max_d + 1)) * (W - L - R)

        def ly(k):
            return T + (1 - (max(-1, min(1, k)) + 1) / 2) * (H - T - B)

        g = [f"<svg width=\"{W}\" height=\"{H + 20}\" role=\"img\" aria-label=\"kappa against d\" "
             f"class=\"sa-kappa-chart\" data-comparison=\"{c}\">",
             f"<line x1=\"{L}\" y1=\"{ly(0):g}\" x2=\"{W - R}\" y2=\"{ly(0):g}\" stroke=\"#ccc\"></line>",
             f"<line x1=\"{L}\" y1=\"{T}\" x2=\"{L}\" y2=\"{H - B}\" stroke=\"#888\"></line>",
             f"<line x1=\"{L}\" y1=\"{H - B}\" x2=\"{W - R}\" y2=\"{H - B}\" stroke=\"#888\"></line>"]
        for k, label in ((-1, "-1"), (-0.5, "-0.5"), (0, "0"), (0.5, "0.5"), (1, "1")):
            g.append(f"<text x=\"{L - 4}\" y=\"{ly(k) + 4:g}\" text-anchor=\"end\">{label}</text>")
        for d in (0, 10, 100, 1000, 10000, 100000, 1000000):
            if d <= max_d:
                g.append(f"<text x=\"{svg_number(lx(d))}\" y=\"{H - B + 14}\" text-anchor=\"middle\">"
                         f"{f'{d // 1000}k' if d >= 1000 else d}</text>")
        g.append(f"<text x=\"{(W + L) / 2:g}\" y=\"{H + 12}\" text-anchor=\"middle\">d (log scale)</text>")
        for cv in curves:
            colour = TOKENS_COLOUR if cv["level"] == "tokens" else SPANS_COLOUR
            path = "".join(f"{'L' if k else 'M'}{lx(p[0]):.1f},{ly(p[1]):.1f}"
                           for k, p in enumerate(p for p in cv["points"] if not undefined(p[1])))
            g.append(f"<path d=\"{path}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" class=\"sa-curve\" "
                     f"data-level=\"{cv['level']}\"></path>")
            if not undefined(cv["psa"]):
                g.append(f"<line x1=\"{L}\" x2=\"{W - R}\" y1=\"{ly(cv['psa']):.1f}\" y2=\"{ly(cv['psa']):.1f}\" "
                         f"stroke=\"{colour}\" stroke-dasharray=\"3 3\"></line>")
            if cv["d"] is not None and not undefined(cv["kappa"]):
                g.append(f"<circle cx=\"{lx(cv['d']):.1f}\" cy=\"{ly(cv['kappa']):.1f}\" r=\"5\" fill=\"{colour}\" "
                         f"class=\"sa-actual-d\"><title>tokens: d = {cv['d']}, kappa = {figure(cv['kappa'])}</title>"
                         "</circle>")
        g.append("</svg>")
        legend = "".join(
            f"<span style=\"color:{TOKENS_COLOUR if cv['level'] == 'tokens' else SPANS_COLOUR}\">"
            + text(f"{cv['level']}: a={figure(cv['a'])} b={figure(cv['b'])} c={figure(cv['c'])}"
                   + (f" d={cv['d']} κ={figure(cv['kappa'])}" if cv["d"] is not None else "")
                   + f" PSA={figure(cv['psa'])}") + "</span>" for cv in curves)
        out.append(f"<div class=\"sa-chart\"><h3>{text(chart['name'])}</h3>{''.join(g)}"
                   f"<div class=\"sa-legend\">{legend}</div></div>")
    out.append("</div>\n")
    return "".join(out)


def intervals_svg(rows: list) -> str:
    """``--bootstrap``: each interval as a bar on [0, 1] (the figures are the table above it)."""
    W, L, bar = 420, 170, 18
    height = len(rows) * (bar + 6)

    def x(v):
        return L + v * (W - 20)

    g = [f"<svg width=\"{W + L}\" height=\"{height + 24}\" role=\"img\" aria-label=\"F1 intervals\">"]
    for v, label in ((0, "0"), (0.25, "0.25"), (0.5, "0.5"), (0.75, "0.75"), (1, "1")):
        g.append(f"<line x1=\"{x(v):g}\" x2=\"{x(v):g}\" y1=\"0\" y2=\"{height}\" stroke=\"#eee\"></line>")
        g.append(f"<text x=\"{x(v):g}\" y=\"{height + 14}\" text-anchor=\"middle\">{label}</text>")
    for k, (name, iv) in enumerate(rows):
        y = k * (bar + 6) + bar / 2 + 2
        g.append(f"<text x=\"{L - 6}\" y=\"{y + 4:g}\" text-anchor=\"end\">{text(name)}</text>")
        if iv:
            g.append(f"<line x1=\"{x(iv[0]):.1f}\" x2=\"{x(iv[1]):.1f}\" y1=\"{y:g}\" y2=\"{y:g}\" stroke=\"#1f6fd1\" "
                     f"stroke-width=\"6\" class=\"sa-interval\"><title>{text(name)}: {text(interval_text(iv))}"
                     "</title></line>")
    g.append("</svg>\n")
    return "".join(g)


# -- the documents table ---------------------------------------------------------------------------

def sorted_rows(rows: list[list], key: int, ascending: bool) -> list[list]:
    """The documents table's rows as the page's script sorts them: by column ``key``, undefined
    values last, ties in document order."""
    import functools

    order = {id(r): k for k, r in enumerate(rows)}

    def compare(a, b):
        x, y = a[key], b[key]
        if x == y or (undefined(x) and undefined(y)):
            return order[id(a)] - order[id(b)]
        if undefined(x):
            return 1
        if undefined(y):
            return -1
        r = -1 if x < y else 1
        return r if ascending else -r

    return sorted(rows, key=functools.cmp_to_key(compare))


def documents_html(view) -> str:
    """The documents section: its notes and the table, sorted as the view says, its first
    :data:`DOCUMENT_ROWS` rows (the script draws them again, sortable, and all on request)."""
    spec = view.documents
    out = ["<section id=\"sa-documents\">\n<h2>Documents</h2>\n"]
    out += [block_html(n) for n in [*spec.notes, *view.selection_notes()]]
    shown = set(view.shown)
    scale = spec.scale
    head = "".join(f"<th class=\"sa-sortable{' sa-text' if k == 0 else ''}\" data-key=\"{k}\">{text(c.name)}"
                   f"{(' ▲' if spec.ascending else ' ▼') if spec.sort == k else ''}</th>"
                   for k, c in enumerate(spec.columns))
    rows = sorted_rows(spec.rows, spec.sort, spec.ascending)
    body = []
    for row in rows[:DOCUMENT_ROWS]:
        doc_id = row[0]
        cells = [f"<td class=\"sa-text\"><a href=\"#doc={escape(quote_id(doc_id))}\">{text(doc_id)}</a>"
                 + ("" if doc_id in shown else "<span class=\"sa-muted\"> (left out)</span>") + "</td>"]
        for k, c in enumerate(spec.columns[1:], 1):
            v = row[k]
            style = heat_style(scale, v) if c.heat else None
            cells.append(f"<td{attributes(style=style)}>{text(figure(v))}</td>")
        body.append(f"<tr class=\"sa-row\" data-doc=\"{escape(doc_id)}\">{''.join(cells)}</tr>\n")
    out.append(f"<div id=\"sa-documents-holder\"><table class=\"sa-table\" id=\"sa-document-table\"><thead><tr>{head}"
               f"</tr></thead><tbody>\n{''.join(body)}</tbody></table>")
    if len(rows) > DOCUMENT_ROWS:
        out.append(f"<p class=\"sa-muted\" id=\"sa-documents-more\">the first {DOCUMENT_ROWS} of {len(rows)} "
                   f"documents; the page's script shows them all and sorts by any column</p>")
    out.append("</div>\n")
    if scale:
        out.append(legend_html(scale, ", ".join(c.name for c in spec.columns if c.heat)))
    out.append("</section>\n")
    return "".join(out)


def quote_id(doc_id: str) -> str:
    """A document id in a ``#doc=`` link, as JavaScript's ``encodeURIComponent`` writes it."""
    from urllib.parse import quote

    return quote(doc_id, safe="-_.!~*'()")
