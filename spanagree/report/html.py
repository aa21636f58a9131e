"""The HTML report (``--report FILE.html``): one self-contained page, CSS, JavaScript and data
inline, no network request (docs/report.md).

The page embeds two JSON blocks, a contract for scripts and tests:

- ``<script type="application/json" id="spanagree-data">``: the command's ``--output json``
  document with ``--by document`` (:mod:`spanagree.report.document`);
- ``<script type="application/json" id="spanagree-documents">``: what the document view needs —
  every shown document's text, every annotator's spans, how the spans were paired and classified
  (``agree``, ``score``) or clustered and voted on (``merge``), which documents were left out, and
  the kappa-against-d curves (``--chance``). Its schema is ``report-documents``.

``agree`` and ``score`` spool each document's record while the run streams
(:class:`~spanagree.pipeline.spool.DocumentSpool`); the page is written from the spool document by
document, so neither the run nor the writing holds the corpus. ``merge`` spools each document's
clusters as it votes (:class:`~spanagree.voting.VoteClusters`); its records are made from them,
one document at a time, as they are written.
The JavaScript (``assets/report.js``) draws the summary's charts as inline SVG and each document
when it is shown.
"""

from __future__ import annotations

import json
import math
from importlib import resources
from pathlib import Path

from .._version import __version__
from ..errors import UsageError, find_stack_level
from ..measures.registry import value
from ..pipeline.compare import MeanF1
from .document import LazyMap, agreement_document, json_safe, scores_document, vote_document

#: Points of each kappa-against-d curve (d on a logarithmic scale).
CURVE_POINTS = 60


def write_report(result, path, *, documents: int | None = None, force: bool = False, inputs=()) -> None:
    """Write the HTML report of ``result`` to ``path`` (atomically; an existing non-empty file is
    replaced only with ``force``; never one of ``inputs``).

    Parameters
    ----------
    result : Agreement, list of Score, or Vote
        An ``agree(..., report=True)`` or ``score(..., report=True)`` result (the spooled
        documents), or a ``vote()`` result.
    path : str or path
    documents : int, optional
        Keep only this many documents in the document view: those with the most disagreements
        (ties: the earlier first); the page and a note say what was left out.
    """
    from ..outputs import check_not_inputs, write_atomically

    if documents is not None and (isinstance(documents, bool) or not isinstance(documents, int) or documents < 0):
        raise UsageError(f"{{option}} must be a whole number >= 0, got {documents!r}", option="report_documents")
    check_not_inputs([path], [i for i in inputs if isinstance(i, (str, Path))], what="report")
    page = Page(result, documents)
    note = page.selection()["note"]
    if note:
        import warnings

        from ..errors import SpanagreeWarning

        warnings.warn(f"{path}: {note}", SpanagreeWarning, stacklevel=find_stack_level())

    def produce(temporary: Path) -> None:
        with open(temporary, "w", encoding="utf-8", newline="\n") as handle:
            page.write(handle)

    write_atomically(path, produce, force=force, what="report")


def script_json(document) -> str:
    """JSON safe inside a ``<script>`` element: every ``<`` escaped (so no ``</script>`` or
    ``<!--`` can end or change the block), NaN as ``null``."""
    return json.dumps(json_safe(document), ensure_ascii=False, allow_nan=False,
                      separators=(",", ":")).replace("<", "\\u003c")


def record_json(record: dict) -> str:
    """A document record as :func:`script_json` writes it; records hold no NaN (offsets, labels,
    texts, credits in [0, 1]), so nothing needs replacing first."""
    return json.dumps(record, ensure_ascii=False, allow_nan=False, separators=(",", ":")).replace("<", "\\u003c")


def write_streamed(handle, value) -> None:
    """Write ``value`` as :func:`record_json` would, a :class:`LazyMap` entry by entry (NaN already
    replaced: :func:`json_safe`)."""
    if isinstance(value, LazyMap):
        handle.write("{")
        for n, (key, entry) in enumerate(value.items()):
            handle.write(("," if n else "") + record_json(key) + ":" + record_json(entry))
        handle.write("}")
    elif isinstance(value, dict) and _holds_lazy(value):
        handle.write("{")
        for n, (key, entry) in enumerate(value.items()):
            handle.write(("," if n else "") + record_json(key) + ":")
            write_streamed(handle, entry)
        handle.write("}")
    elif isinstance(value, list) and _holds_lazy(value):
        handle.write("[")
        for n, entry in enumerate(value):
            handle.write("," if n else "")
            write_streamed(handle, entry)
        handle.write("]")
    else:
        handle.write(record_json(value))


def _holds_lazy(value) -> bool:
    if isinstance(value, LazyMap):
        return True
    if isinstance(value, dict):
        return any(_holds_lazy(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_lazy(v) for v in value)
    return False


def asset(name: str) -> str:
    return resources.files(__package__).joinpath("assets", name).read_text(encoding="utf-8")


class Page:
    """One report: the summary document, and the document records in order (read when written)."""

    def __init__(self, result, limit: int | None):
        if isinstance(result, (list, tuple)):
            self.command, self.results = "score", list(result)
            self.summary = scores_document(result, by_document=True, lazy=True)  # (its comparisons too)
            first = self.results[0]
            self.annotators = [first.gold, *(r.prediction for r in self.results)]
            self.comparisons = [{"first": p + 1, "second": 0} for p in range(len(self.results))]
            self.order = first.documents
            self.spools = [r.spool for r in self.results]
            self.extras = [r.extras for r in self.results]
            self.pair_counts = [r.counts for r in self.results]
        elif hasattr(result, "clusters"):
            self.command, self.results = "merge", [result]
            self.summary = vote_document(result, lazy=True)
            self.annotators = list(result.annotators)
            self.comparisons = []
            self.order = list(result.documents)
            self.spools = []
            self.extras = []
            self.pair_counts = []
        else:
            self.command, self.results = "agree", [result]
            self.summary = agreement_document(result, by_document=True, lazy=True)
            self.annotators = list(result.annotators)
            index = {name: k for k, name in enumerate(self.annotators)}
            self.comparisons = [{"first": index[p.first], "second": index[p.second]} for p in result.pairs]
            self.order = list(result.documents)
            self.spools = [result.spool]
            self.extras = [result.extras]
            self.pair_counts = [p.counts for p in result.pairs]
        self.seen: list[tuple[str, list]] = []  # per F1 column: the documents' F1 as they are written
        if self.command == "agree":
            self.summary["by_document"] = self.recording(self.summary["by_document"], "mean pairwise F1", "mean_f1")
        elif self.command == "score":
            for entry in self.summary.get("predictions") or [self.summary]:
                entry["by_document"] = self.recording(entry["by_document"], f"{entry['prediction']} F1", "f1")
        if any(spool is None for spool in self.spools):
            raise UsageError(f"the {self.command} result keeps no documents for a report: "
                             f"call {'agree' if self.command == 'agree' else 'score'}(..., report=True)")
        self.weights = {d: self.disagreements(d) for d in self.order}
        self.shown = self.select(limit)

    def disagreements(self, doc_id: str) -> int:
        if self.command == "merge":
            return self.results[0].clusters.counted(doc_id, "to_adjudicate")
        return sum(spool.disagreements(doc_id) for spool in self.spools)

    def select(self, limit: int | None) -> list[str]:
        """The documents of the document view, in document order."""
        if limit is None or limit >= len(self.order):
            return list(self.order)
        ranked = sorted(range(len(self.order)), key=lambda k: (-self.weights[self.order[k]], k))[:limit]
        return [self.order[k] for k in sorted(ranked)]

    def selection(self) -> dict:
        shown = set(self.shown)
        left_out = [d for d in self.order if d not in shown]
        note = None
        if left_out:
            note = (f"{len(self.shown)} of {len(self.order)} documents shown (the {len(self.shown)} with the most "
                    f"disagreements); {len(left_out)} left out, with {sum(self.weights[d] for d in left_out)} "
                    f"disagreement(s) between them")
        return {"documents": len(self.order), "shown": len(self.shown), "left_out": left_out,
                "left_out_disagreements": sum(self.weights[d] for d in left_out), "note": note}

    def header(self) -> dict:
        """The documents block without its documents (after the data block is written: see :meth:`document_f1`)."""
        header = {"spanagree": __version__, "command": self.command, "annotators": self.annotators,
                  "comparisons": self.comparisons, "selection": self.selection(),
                  "kappa_curves": self.kappa_curves()}
        if self.command == "merge":
            header["min_votes"] = self.results[0].min_votes
        else:
            header["document_f1"] = self.document_f1()
        return header

    def recording(self, by_document: LazyMap, name: str, key: str) -> LazyMap:
        """``by_document`` keeping each entry's F1 (``key``) as it is written, for :meth:`document_f1`."""
        values: list = []
        self.seen.append((name, values))

        def entry(doc_id):
            found = by_document.value(doc_id)
            values.append(found[key])
            return found

        return LazyMap(by_document.ids, entry)

    def document_f1(self) -> list[dict]:
        """Mean and SD of the per-document F1 (``agree``: each document's mean pairwise F1;
        ``score``: each prediction's), undefined ones skipped (:class:`MeanF1`). Made from the
        breakdown as the data block wrote it (it is written first)."""
        found = []
        for name, values in self.seen:
            mean = MeanF1.of(math.nan if v is None else v for v in values)
            found.append({"name": name, "mean": mean.mean, "sd": mean.sd, "defined": mean.defined,
                          "skipped": mean.skipped})
        return found

    def kappa_curves(self) -> list[dict]:
        """With ``--chance``: per comparison, kappa as a function of d for the span counts a, b, c
        and for the token counts (whose actual d is marked), tending to the PSA as d grows
        (Hripcsak & Rothschild 2005). The formulas are the measures registry's."""
        curves = []
        chance = [e.get("chance") for e in self.extras]
        if not any(chance):
            return curves
        token_pairs = [pair for found in chance if found for pair in found["pairs"]]
        for n, (counts, tokens) in enumerate(zip(self.pair_counts, token_pairs)):
            for level, (a, b, c, d) in (("spans", (counts.a, counts.b, counts.c, None)),
                                        ("tokens", (tokens["a"], tokens["b"], tokens["c"], tokens["d"]))):
                curves.append({"comparison": n, "level": level, "a": a, "b": b, "c": c, "d": d,
                               "psa": value("f1", a, b, c),
                               "kappa": value("kappa", a, b, c, d) if d is not None else None,
                               "points": curve(a, b, c, d)})
        return curves

    def records(self):
        """The shown documents' records, in document order."""
        if self.command == "merge":
            for doc_id in self.shown:
                yield self.merge_record(doc_id)
            return
        k = len(self.annotators)
        for doc_id in self.shown:
            # null: the annotator does not have the document (agree --documents pairwise)
            record = {"id": doc_id, "text": None, "spans": [None] * k, "items": [],
                      "disagreements": self.weights[doc_id]}
            for spool in self.spools:
                part = spool.record(doc_id)
                if part is None:
                    continue
                if part["text"] is not None:
                    record["text"] = part["text"]
                for member, spans in part["spans"].items():
                    record["spans"][int(member)] = spans
                record["items"] += part["items"]
            yield record

    def merge_record(self, doc_id: str) -> dict:
        from ..pipeline.spool import span_entry

        vote = self.results[0]
        spans = [[] if vote.has(k, doc_id) else None for k in range(len(self.annotators))]  # None: absent
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
        return {"id": doc_id, "text": vote.texts.get(doc_id), "spans": spans, "items": [], "clusters": clusters,
                "disagreements": self.weights[doc_id]}

    def write(self, handle) -> None:
        title = {"agree": "agreement", "score": "scores", "merge": "merge"}[self.command]
        handle.write("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                     "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
                     "<link rel=\"icon\" href=\"data:,\">\n"
                     f"<title>spanagree {title} report</title>\n<style>\n{asset('report.css')}</style>\n</head>\n"
                     "<body>\n<div id=\"sa-app\"><noscript>This report needs JavaScript.</noscript></div>\n")
        handle.write('<script type="application/json" id="spanagree-data">')
        write_streamed(handle, json_safe(self.summary))  # by_document entry by entry
        handle.write('</script>\n<script type="application/json" id="spanagree-documents">')
        header = script_json(self.header())
        handle.write(header[:-1] + ',"documents":[')
        for n, record in enumerate(self.records()):
            if n:
                handle.write(",\n")
            handle.write(record_json(record))
        handle.write("]}</script>\n<script>\n")
        handle.write(asset("report.js"))
        handle.write("</script>\n</body>\n</html>\n")


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
