"""The HTML report (``--report FILE.html``): one self-contained page, CSS, JavaScript and data
inline, no network request (docs/report.md).

The page is drawn from a command-neutral view model (:mod:`spanagree.report.view`) and embeds
three JSON blocks:

- ``<script type="application/json" id="spanagree-data">``: the command's ``--output json``
  document with ``--by document`` (:mod:`spanagree.report.document`), a contract;
- ``<script type="application/json" id="spanagree-documents">``: the documents the document view
  draws — every shown document's text, every annotator's spans, how the spans were paired and
  classified (``agree``, ``score``) or clustered and voted on (``merge``), which documents were
  left out, and the kappa-against-d curves (``--chance``); a contract, schema ``report``;
- ``<script type="application/json" id="spanagree-view">``: the view model
  (:meth:`~spanagree.report.view.ReportView.as_json`): the summary's tables, paragraphs and
  charts, the documents table, the kinds and the words of the document view. The page reads it;
  it is not a contract.

``agree`` and ``score`` spool each document's record while the run streams
(:class:`~spanagree.pipeline.spool.DocumentSpool`); the page is written from the spool document by
document, so neither the run nor the writing holds the corpus. ``merge`` spools each document's
clusters as it votes (:class:`~spanagree.voting.VoteClusters`); its records are made from them,
one document at a time, as they are written.
The summary — figures, tables, the heatmap and charts as inline SVG, captions — and the documents
table are HTML written here (:mod:`spanagree.report.summary`), so the page reads with scripts off.
The JavaScript (``assets/report.js``) adds sorting, filters and the document view (each
disagreement in a window of aligned rows, the whole document on request, ``#doc=…&item=…``
links); it never asks which command made the page.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from .._version import __version__
from ..errors import UsageError, find_stack_level
from .document import LazyMap, json_safe
from .summary import documents_html, section_html, text
from .view import ReportView, view_of


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
    page = Page(view_of(result, documents))
    note = page.view.selection()["note"]
    import warnings

    from ..errors import SpanagreeWarning

    if note:
        warnings.warn(f"{path}: {note}", SpanagreeWarning, stacklevel=find_stack_level())

    def produce(temporary: Path) -> None:
        with open(temporary, "w", encoding="utf-8", newline="\n") as handle:
            page.write(handle)

    write_atomically(path, produce, force=force, what="report", folder=False)


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


def summary_html(view: ReportView) -> str:
    """What the page shows before (and without) its script: the title, the summary's sections,
    the documents table, and the document view's section, which the script fills."""
    return (f"<h1>spanagree — {text(view.title)} report</h1>\n"
            f"<p class=\"sa-muted\">spanagree {text(__version__)}; annotators: {text(', '.join(view.annotators))}</p>\n"
            + "".join(section_html(s) for s in view.sections) + documents_html(view)
            + f"<section id=\"sa-view\">\n<h2>{text(view.document_heading)}</h2>\n<noscript><p class=\"sa-note\">"
            f"The document view ({text(view.unit)}s in context, previous / next, filters) needs JavaScript; "
            "every figure above is on the page without it.</p></noscript>\n</section>\n")


def asset(name: str) -> str:
    return resources.files(__package__).joinpath("assets", name).read_text(encoding="utf-8")


class Page:
    """One report: its view (:class:`~spanagree.report.view.ReportView`) written as a page."""

    def __init__(self, view: ReportView):
        self.view = view

    def write(self, handle) -> None:
        view = self.view
        handle.write("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                     "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
                     "<link rel=\"icon\" href=\"data:,\">\n"
                     f"<title>spanagree {view.title.lower()} report</title>\n<style>\n{asset('report.css')}</style>\n"
                     "</head>\n<body>\n<div id=\"sa-app\">\n")
        handle.write(summary_html(view))
        handle.write("</div>\n")
        handle.write('<script type="application/json" id="spanagree-data">')
        write_streamed(handle, json_safe(view.summary))  # by_document entry by entry
        handle.write('</script>\n<script type="application/json" id="spanagree-documents">')
        header = script_json(view.documents_header())
        handle.write(header[:-1] + ',"documents":[')
        for n, record in enumerate(view.records()):
            if n:
                handle.write(",\n")
            handle.write(record_json(record))
        handle.write(']}</script>\n<script type="application/json" id="spanagree-view">')
        handle.write(script_json(view.as_json()))
        handle.write("</script>\n<script>\n")
        handle.write(asset("report.js"))
        handle.write("</script>\n</body>\n</html>\n")
