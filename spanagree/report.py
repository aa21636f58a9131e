"""Rendering results: terminal tables, JSON and CSV. Reports only see counts and results.

JSON is a contract (DESIGN.md): undefined rates are ``null``; fields are only ever added.
"""

from __future__ import annotations

import csv
import io
import json
import math

from .agreement import Agreement
from .score import Score


def json_safe(value):
    """Replace NaN and infinities by ``None`` (JSON ``null``), recursively."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):  # numpy scalars
        return json_safe(value.item())
    return value


def to_json(document: dict) -> str:
    return json.dumps(json_safe(document), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def number(value, digits: int = 4) -> str:
    """A rate with ``digits`` decimals, ``n/a`` when undefined."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value:.{digits}f}"


def count(value) -> str:
    """A count: an integer as such, a fractional credit with its decimals."""
    return f"{value:g}" if isinstance(value, float) and not value.is_integer() else f"{int(value)}"


def table(header: list[str], rows: list[list[str]], *, align_left: int = 1) -> str:
    """A plain text table: the first ``align_left`` columns left-aligned, the rest right-aligned."""
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows)] if rows else [len(h) for h in header]
    lines = []
    for k, row in enumerate([header] + rows):
        cells = [str(c).ljust(w) if i < align_left else str(c).rjust(w) for i, (c, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def counts_row(name: str, d: dict) -> list[str]:
    return [name, count(d["a"]), count(d["b"]), count(d["c"]), number(d["precision"]), number(d["recall"]), number(d["f1"])]


COUNT_HEADER = ["a", "b", "c", "precision", "recall", "F1"]


def agreement_table(result: Agreement, *, by: str | None = None) -> str:
    data = result.to_dict(by_document=(by == "document"))
    head = (f"spanagree agree: {len(result.annotators)} annotators, {data['documents']} documents, "
            f"match {result.rule.boundary}, labels {result.rule.labels}"
            + (f", partial credit {result.rule.partial_credit}" if result.rule.boundary == "partial" else ""))
    parts = [head, ""]
    rows = [counts_row(" × ".join(p["annotators"]), p) for p in data["pairs"]]
    parts.append(table(["pair"] + COUNT_HEADER, rows))
    parts.append("")
    parts.append(f"mean pairwise F1 {number(data['mean_f1'])} (SD {number(data['sd_f1'])}, "
                 f"{len(data['pairs']) - data['pairs_with_undefined_f1']} pairs)   pooled F1 {number(data['pooled_f1'])}")
    if by == "label":
        parts += ["", label_section(data)]
    if by == "document":
        parts += ["", document_section(data)]
    if "chance" in data:
        parts += ["", chance_section(data["chance"])]
    if "bootstrap" in data:
        parts += ["", bootstrap_section(data["bootstrap"], [" × ".join(p["annotators"]) for p in data["pairs"]])]
    for note in data["notes"]:
        parts.append(f"note: {note}")
    return "\n".join(parts).rstrip() + "\n"


def label_section(data: dict) -> str:
    if not data["by_label"]:
        return "per label: only with --labels strict"
    pair_names = [" × ".join(p["annotators"]) for p in data["pairs"]]
    header = ["label"] + pair_names + ["mean F1", "pooled F1"]
    rows = []
    for label, entry in data["by_label"].items():
        rows.append([label] + [number(p["f1"]) for p in entry["pairs"]] + [number(entry["mean_f1"]), number(entry["pooled_f1"])])
    return "F1 per label\n" + table(header, rows)


def document_section(data: dict) -> str:
    pair_names = [" × ".join(p["annotators"]) for p in data["pairs"]]
    header = ["document"] + pair_names + ["mean F1", "pooled F1"]
    rows = []
    for doc_id, entry in data["by_document"].items():
        rows.append([doc_id] + [number(p["f1"]) for p in entry["pairs"]] + [number(entry["mean_f1"]), number(entry["pooled_f1"])])
    return "F1 per document\n" + table(header, rows)


def chance_section(chance: dict) -> str:
    rows = []
    for p in chance.get("pairs", []):
        rows.append([" × ".join(p["annotators"]), str(p.get("tokens", "")), str(p.get("d", "")),
                     number(p.get("psa")), number(p.get("cohen_kappa")), number(p.get("scott_pi")),
                     number(p.get("informedness")), number(p.get("markedness")), number(p.get("mcc"))])
    text = "token level (d known)\n" + table(
        ["pair", "tokens", "d", "PSA", "kappa", "pi", "inform.", "marked.", "MCC"], rows)
    overall = []
    if chance.get("fleiss_kappa") is not None:
        overall.append(f"Fleiss' kappa {number(chance['fleiss_kappa'])}")
    if chance.get("krippendorff_alpha") is not None:
        overall.append(f"Krippendorff's alpha {number(chance['krippendorff_alpha'])}")
    if overall:
        text += "\nall annotators: " + "   ".join(overall)
    return text


def bootstrap_section(boot: dict, pair_names: list[str]) -> str:
    if not boot or boot.get("pairs") is None:
        return "bootstrap: no interval (fewer than two documents)"
    level = boot.get("level", 0.95)
    rows = []
    for name, p in zip(pair_names, boot["pairs"]):
        rows.append([name] + [interval(p.get(k)) for k in ("f1", "precision", "recall")])
    text = f"{level:.0%} bootstrap intervals ({boot.get('n')} resamples of documents, seed {boot.get('seed')})\n"
    text += table(["pair", "F1", "precision", "recall"], rows)
    if boot.get("mean_f1") is not None:
        text += f"\nmean pairwise F1 {interval(boot['mean_f1'])}"
    return text


def interval(bounds) -> str:
    if not bounds:
        return "n/a"
    return f"[{number(bounds[0])}, {number(bounds[1])}]"


def score_table(results: list[Score], *, by: str | None = None) -> str:
    first = results[0]
    rule = first.rule
    head = (f"spanagree score: gold {first.gold}, {len(first.documents)} documents, match {rule.boundary}, "
            f"labels {rule.labels}" + (f", partial credit {rule.partial_credit}" if rule.boundary == "partial" else ""))
    beta = first.beta
    header = ["prediction"] + COUNT_HEADER + ([f"F{beta:g}"] if beta != 1 else [])
    rows = []
    for result in results:
        d = result.to_dict(with_header=False)
        rows.append(counts_row(result.prediction, d) + ([number(d[f"f{beta:g}"])] if beta != 1 else []))
    parts = [head, "", table(header, rows), ""]
    kinds = ["correct", "partial", "wrong_label", "wrong_label_and_boundary", "missed", "spurious"]
    error_rows = [[r.prediction] + [str(r.error_counts()[k]) for k in kinds] for r in results]
    parts.append("spans by kind\n" + table(["prediction", "correct", "partial", "wrong label", "label+boundary",
                                              "missed", "spurious"], error_rows))
    for result in results:
        if by == "label":
            label_rows = [counts_row(label, d) for label, d in result.to_dict(with_header=False)["by_label"].items()]
            title = f"\nper label: {result.prediction}"
            parts.append(title + "\n" + (table(["label"] + COUNT_HEADER, label_rows) if label_rows
                                         else "only with --labels strict"))
        if by == "document":
            doc_rows = [counts_row(doc, d) for doc, d in result.to_dict(by_document=True, with_header=False)["by_document"].items()]
            parts.append(f"\nper document: {result.prediction}\n" + table(["document"] + COUNT_HEADER, doc_rows))
        extras = result.extras
        if "chance" in extras:
            parts += ["", f"{result.prediction}: " + chance_section(extras["chance"])]
        if "bootstrap" in extras:
            parts += ["", f"{result.prediction}: " + bootstrap_section(extras["bootstrap"], [result.prediction])]
    for note in sorted({n for r in results for n in r.notes}):
        parts.append(f"note: {note}")
    return "\n".join(parts).rstrip() + "\n"


def frame_csv(frame) -> str:
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False, lineterminator="\n")
    return buffer.getvalue()


def agreement_csv(result: Agreement, *, by: str | None = None) -> str:
    if by == "label":
        return frame_csv(result.by_label_frame())
    if by == "document":
        return frame_csv(result.by_document_frame())
    return frame_csv(result.pairs_frame())


def score_csv(results: list[Score], *, by: str | None = None) -> str:
    import pandas as pd

    frames = []
    for result in results:
        if by == "label":
            frame = result.by_label_frame()
        elif by == "document":
            frame = result.by_document_frame()
        else:
            frame = pd.DataFrame([{k: v for k, v in result.to_dict(with_header=False).items()
                                   if not isinstance(v, (dict, list))}])
        frame.insert(0, "prediction", result.prediction)
        frames.append(frame)
    return frame_csv(pd.concat(frames, ignore_index=True))


def errors_listing(results: list[Score], path: str) -> str:
    """The ``--errors`` file: JSON when ``path`` ends in .json, otherwise CSV."""
    rows = [{"prediction": r.prediction, **item.as_dict()} for r in results for item in r.errors()]
    if path.lower().endswith(".json"):
        return to_json({"errors": rows})
    buffer = io.StringIO()
    fields = ["prediction"] + list(results[0].errors_frame().columns)
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()
