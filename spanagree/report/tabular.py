"""Results as rows: the CSV outputs (``--output csv``, ``--errors FILE``, ``--adjudicate FILE``)
and the pandas DataFrames of the results' ``*_frame()`` accessors show the same rows.

New columns go after the existing ones (the CSV files are a contract too: docs/cli.md).
"""

from __future__ import annotations

import csv
import io
import math

from ..measures.registry import counts_dict


def csv_text(rows: list[dict], columns: list[str] | None = None) -> str:
    """``rows`` as CSV (the csv module), columns in order of first appearance unless given.

    A value a row lacks is empty; so are ``None`` and NaN. A column of whole numbers is written
    as such; one that mixes whole numbers with fractions or gaps writes every number as a float
    (``61.0``), as a table of one type per column does.
    """
    if columns is None:
        columns = list(dict.fromkeys(key for row in rows for key in row))
    formats = [column_format([row.get(c) for row in rows]) for c in columns]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([format(row.get(c)) for c, format in zip(columns, formats)])
    return buffer.getvalue()


def column_format(values: list):
    """How one column's cells are written (see :func:`csv_text`)."""
    numbers = [v for v in values if v is not None]
    numeric = bool(numbers) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in numbers)
    if numeric and (len(numbers) < len(values) or any(isinstance(v, float) for v in numbers)):
        return _float_cell
    return _cell


def _cell(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def _float_cell(value) -> str:
    if value is None or math.isnan(value):
        return ""
    return str(float(value))


def frame(rows: list[dict], columns: list[str] | None = None):
    """``rows`` as a pandas DataFrame (pandas imported here, when first asked for)."""
    import pandas as pd

    return pd.DataFrame(rows, columns=columns)


# -- agree ---------------------------------------------------------------------------------------

def pair_rows(result) -> list[dict]:
    """One row per pair: first, second, a, b, c, precision, recall, f1, jaccard."""
    return [{"first": p.first, "second": p.second, **counts_dict(p.counts)} for p in result.pairs]


def label_rows(result) -> list[dict]:
    """One row per (label, pair); each side's spans of the label last (``support_first``, ``support_second``)."""
    from .document import agree_support

    rows = []
    for label in result.labels:
        for pair, counts in zip(result.pairs, result.label_pairs(label)):
            first, second = agree_support(pair, label)
            rows.append({"label": label, "first": pair.first, "second": pair.second, **counts_dict(counts),
                         "support_first": first, "support_second": second})
    return rows


def document_rows(result) -> list[dict]:
    """One row per (document, pair)."""
    return [{"document": d, "first": pair.first, "second": pair.second, **counts_dict(counts)}
            for d in result.documents for pair, counts in result.pairs_on(d)]


def extras_columns(extras: dict, n: int) -> list[dict]:
    """The ``--chance`` and ``--bootstrap`` figures of each of ``n`` rows (pairs) as columns."""
    from ..measures.bootstrap import interval_columns
    from ..measures.tokens import pair_columns

    parts = []
    if "chance" in extras:
        parts.append(pair_columns(extras["chance"]))
    if "bootstrap" in extras:
        parts.append(interval_columns(extras["bootstrap"], n))
    return [{k: v for columns in row for k, v in columns.items()} for row in zip(*parts)] if parts else [{}] * n


def agreement_csv(result, *, by: str | None = None) -> str:
    if by == "label":
        return csv_text(label_rows(result))
    if by == "document":
        return csv_text(document_rows(result))
    rows = pair_rows(result)
    rows = [{**row, **extra} for row, extra in zip(rows, extras_columns(result.extras, len(rows)))]
    if result.options.get("documents") == "pairwise":  # each pair on its own documents: how many (last column)
        rows = [{**row, "documents": len(p.by_document)} for row, p in zip(rows, result.pairs)]
    if result.relation_pairs is not None:  # --relations: the relations' figures, after every other column
        rows = [{**row, **relation_columns(figures)} for row, figures in zip(rows, result.relation_pairs)]
    return csv_text(rows)


def relation_columns(figures: dict) -> dict:
    """``--relations``: a pair's or a prediction's relation figures as CSV columns (``relations_a``
    ... ``relations_f1``)."""
    return {f"relations_{key}": figures[key] for key in ("a", "b", "c", "precision", "recall", "f1")}


COUNT_COLUMNS = ["a", "b", "c", "precision", "recall", "f1", "jaccard"]
LABEL_COLUMNS = ["label", "first", "second", *COUNT_COLUMNS]
DOCUMENT_COLUMNS = ["document", "first", "second", *COUNT_COLUMNS]


# -- score ---------------------------------------------------------------------------------------

def score_label_rows(result) -> list[dict]:
    """One row per label; the gold's spans of it last (``support``)."""
    from .document import score_support

    support = score_support(result)
    return [{"label": label, **counts_dict(c, beta=result.beta), "support": support[label]}
            for label, c in sorted(result.pair.by_label.items())]


def score_document_rows(result) -> list[dict]:
    return [{"document": d, **counts_dict(c, beta=result.beta)} for d, c in result.pair.by_document.items()]


def score_row(result) -> dict:
    """A prediction's figures: the JSON document's scalar fields, then the extras' columns."""
    from .document import score_document

    row = {k: v for k, v in score_document(result, with_header=False).items()
           if k != "prediction" and not isinstance(v, (dict, list))}
    return {**row, **extras_columns(result.extras, 1)[0]}


def score_csv(results: list, *, by: str | None = None) -> str:
    rows = []
    for result in results:
        if by == "label":
            own = score_label_rows(result)
        elif by == "document":
            own = score_document_rows(result)
        else:
            own = [score_row(result)]
        rows += [{"prediction": result.prediction, **row} for row in own]
    if by is None and len(results) > 1:  # the rank by F1, last
        from .document import ranks

        for row, rank in zip(rows, ranks([r.counts.as_dict()["f1"] for r in results])):
            row["rank"] = rank
    if by is None and "relations" in results[0].extras:  # --relations: after every other column
        rows = [{**row, **relation_columns(result.extras["relations"])} for row, result in zip(rows, results)]
    return csv_text(rows)


def error_rows(results: list) -> list[dict]:
    """``--errors``: every item that is not ``correct``, prediction by prediction."""
    return list(iter_error_rows(results))


def iter_error_rows(results: list):
    """:func:`error_rows` one at a time (``--errors`` writes them so)."""
    return ({"prediction": r.prediction, **item.as_dict()} for r in results for item in r.iter_items()
            if item.kind != "correct")


def with_text_changed(rows, aligned: list[dict | None], sides: tuple[tuple[str, str], ...]):
    """``--align-text``: each listing row with ``text_changed`` last — whether one of its spans
    touches characters changed between the copies' texts (``aligned_texts.affected``).

    ``aligned`` gives each row's source's ``aligned_texts`` by the row's first field value
    (``rows`` are matched by ``document``, each side's annotator name, fragments and label);
    ``sides`` names each side's prefix and the row field holding its annotator's name."""
    touched = set()
    for found in aligned:
        for entry in (found or {}).get("affected", ()):
            if entry["mapped"] is not None:
                touched.add((entry["document"], entry["annotator"],
                             ";".join(f"{s}-{e}" for s, e in entry["mapped"]), entry["label"]))
    for row in rows:
        row["text_changed"] = any((row["document"], row[name] if name in row else name, row[f"{side}_fragments"],
                                   row[f"{side}_label"]) in touched for side, name in sides
                                  if row.get(f"{side}_fragments") is not None)
        yield row


#: What the listings give of each span (``<side>_<field>``).
SPAN_FIELDS = ("start", "end", "fragments", "label", "text", "source")
#: The text around an item or cluster (``--context N`` characters each side), after every other column.
CONTEXT_COLUMNS = ["context_before", "context_after"]

#: The error listing's columns (``--errors``): the item, then the gold's span, then the prediction's.
ERROR_COLUMNS = ["prediction", "document", "kind", "aligned", "credit",
                 *(f"{side}_{field}" for side in ("gold", "pred") for field in SPAN_FIELDS), *CONTEXT_COLUMNS]

#: ``agree --errors``: the pair, the item, the first annotator's span, the second's (the reference).
DISAGREEMENT_COLUMNS = ["first", "second", "document", "kind", "aligned", "credit",
                        *(f"{side}_{field}" for side in ("first", "second") for field in SPAN_FIELDS),
                        *CONTEXT_COLUMNS]


#: ``--relations --errors``: the relation columns after the span listing's (``score``, then ``agree``).
RELATION_ERROR_COLUMNS = ["gold_relation", "pred_relation"]
RELATION_DISAGREEMENT_COLUMNS = ["first_relation", "second_relation"]


def relation_error_rows(results: list):
    """``score --relations --errors``: every relation that is not ``correct``, prediction by
    prediction, as a row of the listing: no span, then the gold's and the prediction's relation."""
    blank = dict.fromkeys(ERROR_COLUMNS[1:])
    for result in results:
        for item in result.relation_items():
            if item.kind != "correct":
                yield {"prediction": result.prediction, **blank, **item.as_row("pred", "gold")}


def relation_disagreement_rows(result):
    """``agree --relations --errors``: every relation disagreement of every pair, as a row of the
    listing: no span, then the first annotator's and the second's relation."""
    blank = dict.fromkeys(DISAGREEMENT_COLUMNS[2:])
    for first, second, item in result.relation_errors():
        row = item.as_row("first", "second")
        relations = {"first_relation": row.pop("first_relation"), "second_relation": row.pop("second_relation")}
        yield {"first": first, "second": second, **blank, **row, **relations}


def disagreement_rows(result) -> list[dict]:
    """``agree --errors``: every disagreement of every pair (``result.iter_errors()``), pair by pair."""
    return list(iter_disagreement_rows(result))


def iter_disagreement_rows(result):
    """:func:`disagreement_rows` one at a time (``--errors`` writes them so)."""
    from .document import disagreement_records

    return disagreement_records(result)


def disagreements_csv(result) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=DISAGREEMENT_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(disagreement_rows(result))
    return buffer.getvalue()


def errors_csv(results: list) -> str:
    columns = ERROR_COLUMNS
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(error_rows(results))
    return buffer.getvalue()


# -- merge ---------------------------------------------------------------------------------------

VOTE_KEYS_AFTER_KINDS = ["to_adjudicate", "not_unanimous"]


def vote_rows(result) -> list[dict]:
    """One row per document (and a total row) with the counts of clusters kept, dropped, tied, split."""
    keys = ["clusters", "kept", *result.kinds, *VOTE_KEYS_AFTER_KINDS]
    return [{"document": d, **{k: counts[k] for k in keys}}
            for d, counts in [*result.counts_by_document().items(), ("total", result.counts())]]


def vote_csv(result) -> str:
    """One row per document (and a total row) with the counts of clusters kept, dropped, tied, split."""
    return csv_text(vote_rows(result), ["document", "clusters", "kept", *result.kinds, *VOTE_KEYS_AFTER_KINDS])


#: The adjudication listing's columns before the annotators' (``--adjudicate``, ``--adjudicate-all``).
ADJUDICATION_COLUMNS = ["document", "start", "end", "fragments", "text", "label", "kind", "kept", "votes",
                        "boundary_votes", "label_votes", "min_votes"]


def adjudication_rows(result, *, every: bool = False) -> list[dict]:
    """The listing's rows (:func:`adjudication_csv`'s cells), one per cluster listed."""
    return list(adjudication_row_stream(result, every=every))


def adjudication_columns(result) -> list[str]:
    """The listing's columns: :data:`ADJUDICATION_COLUMNS`, one per annotator, the context."""
    names = [name if name not in ADJUDICATION_COLUMNS else f"annotator {name}" for name in result.annotators]
    return [*ADJUDICATION_COLUMNS, *names, *CONTEXT_COLUMNS]


def adjudication_cells(result, *, every: bool = False):
    """The CSV listing's rows as ``column -> cell text``, one cluster at a time."""
    columns = adjudication_columns(result)
    for row in adjudication_row_stream(result, every=every):
        yield {c: _cell(row[c]) for c in columns}


def adjudication_row_stream(result, *, every: bool = False):
    """:func:`adjudication_rows` one row at a time."""
    for row in result.adjudication_entries(every=every):
        versions = {(name if name not in ADJUDICATION_COLUMNS else f"annotator {name}"):
                    " | ".join(f'{v["label"]} {fragments_text(v["fragments"])} "{v["text"]}"'
                               for v in row["versions"][name]) if name in row["versions"]
                    else "(does not have the document)"  # merge --documents present
                    for name in result.annotators}
        yield {**{c: row[c] for c in ADJUDICATION_COLUMNS}, "fragments": fragments_text(row["fragments"]),
               "kind": "; ".join(row["kind"]), **versions,
               "context_before": row["context_before"], "context_after": row["context_after"]}


def adjudication_csv(result, *, every: bool = False) -> str:
    """``--adjudicate FILE`` (``every``: ``--adjudicate-all FILE``): document, start, end, fragments
    (``s-e;s-e``), text, label, kind (``; `` between kinds), kept, votes, boundary_votes,
    label_votes, min_votes, then one column per annotator with its version(s): ``LABEL s-e
    "text"``, several joined by `` | ``, then context_before and context_after."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=adjudication_columns(result), lineterminator="\n")
    writer.writeheader()
    writer.writerows(adjudication_cells(result, every=every))
    return buffer.getvalue()


def fragments_text(fragments) -> str:
    return ";".join(f"{s}-{e}" for s, e in fragments)
