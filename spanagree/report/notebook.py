"""Results as HTML tables for Jupyter (``_repr_html_``): the same figures as ``--output json``.

Each function takes a result (or a span set, or a document) and returns a small HTML fragment:
a caption saying what it is and tables whose cells are the JSON document's figures (rates with
four decimals, an undefined rate as an empty cell). Long listings show their first
:data:`ROWS` rows and say how many more there are. The tables carry ``class="spanagree"`` and
each cell of a figure ``data-key`` (its JSON key), so scripts and tests can read them.
"""

from __future__ import annotations

import html
import math

from .document import agreement_document, score_document, vote_document

#: Rows shown of a long listing (documents of a span set, spans of a document).
ROWS = 20


def cell(value) -> str:
    """A figure as shown: whole numbers as they are, other numbers with four decimals, ``None``
    and NaN empty."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.4f}"
    return str(value)


def html_table(columns: list[str], rows: list[list], *, caption: str | None = None, keys: list[str] | None = None,
               more: int = 0) -> str:
    """A table: a header of ``columns``, one row per list of values; ``keys`` names each column's
    JSON key (``data-key`` of its cells); ``more`` rows left out are said in a last row."""
    keys = keys or [None] * len(columns)
    parts = ['<table class="spanagree">']
    if caption:
        parts.append(f"<caption>{html.escape(caption)}</caption>")
    parts.append("<thead><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in columns) + "</tr></thead><tbody>")
    for row in rows:
        cells = []
        for key, value in zip(keys, row):
            attribute = f' data-key="{html.escape(key)}"' if key else ""
            cells.append(f"<td{attribute}>{html.escape(cell(value))}</td>")
        parts.append("<tr>" + "".join(cells) + "</tr>")
    if more:
        parts.append(f'<tr><td colspan="{len(columns)}">… {more} more</td></tr>')
    parts.append("</tbody></table>")
    return "".join(parts)


COUNT_KEYS = ["a", "b", "c", "precision", "recall", "f1"]


def agreement_html(result) -> str:
    """An :class:`~spanagree.agreement.Agreement`: one row per pair, then the mean and pooled F1,
    then F1 per label and pair."""
    document = agreement_document(result)
    caption = (f"agree: {len(document['annotators'])} annotators, {document['documents']} documents, "
               f"match {document['match']}, labels {document['labels']}")
    pairs = html_table(["first", "second", *COUNT_KEYS],
                       [[*p["annotators"], *(p[k] for k in COUNT_KEYS)] for p in document["pairs"]],
                       caption=caption, keys=[None, None, *COUNT_KEYS])
    summary = html_table(["mean_f1", "sd_f1", "pooled_f1"],
                         [[document["mean_f1"], document["sd_f1"], document["pooled_f1"]]],
                         keys=["mean_f1", "sd_f1", "pooled_f1"])
    pair_names = [" × ".join(p["annotators"]) for p in document["pairs"]]
    labels = html_table(["label", *pair_names],
                        [[label, *(p["f1"] for p in entry["pairs"])] for label, entry in document["by_label"].items()],
                        caption="F1 per label and pair", keys=[None, *(["f1"] * len(pair_names))])
    return pairs + summary + (labels if document["by_label"] else "")


def score_html(result) -> str:
    """A :class:`~spanagree.scoring.Score`: its figures, F1 per label, the error kinds and the
    confusion matrix."""
    document = score_document(result)
    caption = (f"score: {document['prediction']} against {document['gold']}, {document['documents']} documents, "
               f"match {document['match']}, labels {document['labels']}")
    totals = html_table(COUNT_KEYS, [[document[k] for k in COUNT_KEYS]], caption=caption, keys=COUNT_KEYS)
    labels = html_table(["label", *COUNT_KEYS],
                        [[label, *(entry[k] for k in COUNT_KEYS)] for label, entry in document["by_label"].items()],
                        caption="per label", keys=[None, *COUNT_KEYS])
    errors = html_table(list(document["errors"]), [list(document["errors"].values())], caption="spans by kind",
                        keys=list(document["errors"]))
    confusion = document["confusion"]
    matrix = html_table(["gold \\ prediction", *confusion["labels"]],
                        [[label, *row] for label, row in zip(confusion["labels"], confusion["matrix"])],
                        caption="confusion (gold × prediction)")
    return totals + labels + errors + matrix


def vote_html(result) -> str:
    """A :class:`~spanagree.voting.Vote`: clusters, kept, each kind, to adjudicate, not unanimous,
    per document and in total."""
    document = vote_document(result)
    keys = ["clusters", "kept", *result.kinds, "to_adjudicate", "not_unanimous"]
    caption = (f"merge: {len(document['annotators'])} annotators, {document['documents']} documents, "
               f"match {document['match']}, labels {document['labels']}, min votes {document['min_votes']}")
    rows = [[d, *(counts[k] for k in keys)] for d, counts in document["by_document"].items()]
    shown, more = rows[:ROWS], max(len(rows) - ROWS, 0)
    return html_table(["document", *keys], [*shown, ["total", *(document[k] for k in keys)]], caption=caption,
                      keys=[None, *keys], more=more)


def spanset_html(spanset) -> str:
    """A :class:`~spanagree.span.SpanSet`: its documents (id, characters, spans), the first
    :data:`ROWS` of them."""
    documents = list(spanset.documents.values())
    rows = [[d.id, None if d.text is None else len(d.text), len(d.spans)] for d in documents[:ROWS]]
    caption = f"SpanSet {spanset.name}: {len(documents)} documents, {len(spanset)} spans"
    return html_table(["document", "characters", "spans"], rows, caption=caption,
                      keys=[None, "characters", "spans"], more=max(len(documents) - ROWS, 0))


def document_html(document) -> str:
    """A :class:`~spanagree.span.Document`: its spans (fragments, label, text), the first
    :data:`ROWS` of them."""
    rows = [[";".join(f"{s}-{e}" for s, e in span.fragments), span.label,
             "" if document.text is None else span.text(document.text)] for span in document.spans[:ROWS]]
    size = "no text" if document.text is None else f"{len(document.text)} characters"
    caption = f"Document {document.id}: {size}, {len(document.spans)} spans"
    return html_table(["fragments", "label", "text"], rows, caption=caption, more=max(len(document.spans) - ROWS, 0))
