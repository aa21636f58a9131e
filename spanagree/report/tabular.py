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
    """One row per (label, pair)."""
    return [{"label": label, "first": pair.first, "second": pair.second, **counts_dict(counts)}
            for label in result.labels for pair, counts in zip(result.pairs, result.label_pairs(label))]


def document_rows(result) -> list[dict]:
    """One row per (document, pair)."""
    return [{"document": d, "first": pair.first, "second": pair.second, **counts_dict(counts)}
            for d in result.documents for pair, counts in zip(result.pairs, result.document_pairs(d))]


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
    return csv_text([{**row, **extra} for row, extra in zip(rows, extras_columns(result.extras, len(rows)))])


COUNT_COLUMNS = ["a", "b", "c", "precision", "recall", "f1", "jaccard"]
LABEL_COLUMNS = ["label", "first", "second", *COUNT_COLUMNS]
DOCUMENT_COLUMNS = ["document", "first", "second", *COUNT_COLUMNS]


# -- score ---------------------------------------------------------------------------------------

def score_label_rows(result) -> list[dict]:
    return [{"label": label, **counts_dict(c, beta=result.beta)} for label, c in sorted(result.pair.by_label.items())]


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
    return csv_text(rows)


def error_rows(results: list) -> list[dict]:
    """``--errors``: every item that is not ``correct``, prediction by prediction."""
    return [{"prediction": r.prediction, **item.as_dict()} for r in results for item in r.errors()]


#: The error listing's columns (``--errors``): the item, then the gold's span, then the prediction's.
ERROR_COLUMNS = ["prediction", "document", "kind", "aligned", "credit",
                 *(f"{side}_{field}" for side in ("gold", "pred")
                   for field in ("start", "end", "fragments", "label", "text", "source"))]


def errors_csv(results: list) -> str:
    columns = ERROR_COLUMNS
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(error_rows(results))
    return buffer.getvalue()


# -- merge ---------------------------------------------------------------------------------------

def vote_csv(result) -> str:
    """One row per document (and a total row) with the counts of clusters kept, dropped, tied, split."""
    keys = ["clusters", "kept", *result.kinds, "to_adjudicate"]
    rows = [{"document": d, **{k: counts[k] for k in keys}}
            for d, counts in [*result.counts_by_document().items(), ("total", result.counts())]]
    return csv_text(rows, ["document", *keys])


def adjudication_csv(result) -> str:
    """``--adjudicate FILE``: document, start, end, fragments (``s-e;s-e``), text, label, kind (``; ``
    between kinds), kept, votes, boundary_votes, label_votes, min_votes, then one column per
    annotator with its version(s): ``LABEL s-e "text"``, several joined by `` | ``."""
    from .document import cluster_entry

    fixed = ["document", "start", "end", "fragments", "text", "label", "kind", "kept", "votes",
             "boundary_votes", "label_votes", "min_votes"]
    columns = [name if name not in fixed else f"annotator {name}" for name in result.annotators]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(fixed + columns)
    for cluster in result.adjudication():
        row = cluster_entry(result, cluster)
        versions = [" | ".join(f'{v["label"]} {fragments_text(v["fragments"])} "{v["text"]}"' for v in row["versions"][n])
                    for n in result.annotators]
        writer.writerow([row["document"], row["start"], row["end"], fragments_text(row["fragments"]), row["text"],
                         row["label"], "; ".join(row["kind"]), row["kept"], row["votes"], row["boundary_votes"],
                         row["label_votes"], row["min_votes"], *versions])
    return buffer.getvalue()


def fragments_text(fragments) -> str:
    return ";".join(f"{s}-{e}" for s, e in fragments)
