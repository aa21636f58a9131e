"""Presentation, the last step of the pipeline: results rendered as terminal tables
(:mod:`.terminal`), JSON documents (:mod:`.document`), rows for CSV and DataFrames
(:mod:`.tabular`) and the self-contained HTML report (:mod:`.html`, ``--report``). Reports only see results; results call this layer for their own views.
"""

from __future__ import annotations

from .._version import __version__
from .document import json_safe, to_json
from .tabular import agreement_csv, errors_csv, score_csv, vote_csv
from .terminal import agreement_table, score_table, vote_table

__all__ = ["adjudication_listing", "agreement_csv", "agreement_table", "disagreements_listing", "errors_csv",
           "errors_listing", "json_safe",
           "render_agreement", "render_scores", "render_vote", "score_csv", "score_table", "to_json", "vote_csv",
           "vote_table"]


def breakdowns(by) -> list[str]:
    """``by`` as a list of breakdowns (``None``, one name, or several)."""
    return [by] if isinstance(by, str) else list(by or ())


def render_agreement(result, output: str, *, by=None) -> str:
    """``agree``'s report: ``output`` is ``table``, ``json`` or ``csv``; ``by`` the breakdowns
    (``"label"``, ``"document"``, or a list of them; CSV takes one)."""
    from .document import agreement_document

    by = breakdowns(by)
    if output == "json":
        return to_json(agreement_document(result, by_document="document" in by))
    if output == "csv":
        return agreement_csv(result, by=by[0] if by else None)
    return agreement_table(result, by=by)


def render_scores(results: list, output: str, *, by=None) -> str:
    """``score``'s report for one prediction or several (``by`` as in :func:`render_agreement`)."""
    from .document import scores_document

    by = breakdowns(by)
    if output == "json":
        return to_json(scores_document(results, by_document="document" in by))
    if output == "csv":
        return score_csv(results, by=by[0] if by else None)
    return score_table(results, by=by)


def render_vote(result, output: str, *, out, to: str, adjudicate=None, adjudicate_all=None):
    """``merge``'s summary (a text; JSON: its pieces, :func:`~spanagree.report.document.json_pieces`);
    the table ends with what was written where."""
    from .document import json_pieces, vote_document

    if output == "json":  # written piece by piece: the per-document counts are never held whole
        return json_pieces(vote_document(result, lazy=True))
    if output == "csv":
        return vote_csv(result)
    counts = result.counts()
    wrote = f"wrote {counts['kept']} spans in {len(result.documents)} documents to {out} ({to})"
    if adjudicate:
        wrote += f"; {counts['to_adjudicate']} clusters to adjudicate in {adjudicate}"
    if adjudicate_all:
        wrote += f"; {counts['not_unanimous']} clusters not unanimous in {adjudicate_all}"
    return vote_table(result) + wrote + "\n"


def errors_listing(results: list, path: str) -> str:
    """The ``--errors`` file: JSON when ``path`` ends in .json, otherwise CSV."""
    from .document import errors_document

    if str(path).lower().endswith(".json"):
        return to_json(errors_document(results))
    return errors_csv(results)


def write_adjudication(result, path, *, every: bool = False, force: bool = False, parts=None) -> None:
    """Write ``merge``'s ``--adjudicate`` file (``every``: ``--adjudicate-all``) one cluster at a
    time, as :func:`write_listing` writes: byte for byte :meth:`~spanagree.voting.Vote.adjudication_text`.
    ``parts``: the rows already written by ``merge --jobs`` workers
    (:class:`~spanagree.pipeline.parts.ListingParts`), joined here in document order."""
    listing = adjudication_listing_writer(result, path)
    if parts is None:
        write_listing(path, adjudication_rows_of(result, listing.json, every=every), listing=listing, force=force,
                      what="adjudication file")
        return

    def rows_of(doc_id: str):
        return adjudication_rows_of(result.voted_document(doc_id), listing.json, every=every)

    write_listing(path, None, listing=listing, force=force, what="adjudication file",
                  parts=(parts, result.documents, rows_of))


def adjudication_listing_writer(result, path) -> "Listing":
    """The :class:`Listing` of ``merge``'s adjudication files at ``path`` (JSON when it ends in ``.json``)."""
    from .tabular import adjudication_columns

    if str(path).lower().endswith(".json"):
        head = {"spanagree": __version__, "options": result.options, "annotators": result.annotators,
                "min_votes": result.min_votes}
        return Listing(path, [], key="clusters", head=head)
    return Listing(path, adjudication_columns(result))


def adjudication_rows_of(result, json: bool, *, every: bool = False):
    """The rows of ``result``'s adjudication file (``json``: a JSON one; ``every``:
    ``--adjudicate-all``), one cluster at a time: :meth:`~spanagree.voting.Vote.adjudication_entries`
    for JSON, their cells for CSV. ``result`` may be one voted document
    (:class:`~spanagree.voting.VotedDocument`)."""
    from .tabular import adjudication_cells

    if json:
        return result.adjudication_entries(every=every)
    return adjudication_cells(result, every=every)


class Listing:
    """A listing's text, row by row: JSON ``{**head, key: [...]}`` when ``path`` ends in ``.json``
    (byte for byte what :func:`to_json` writes of the whole document), CSV with ``columns``
    otherwise.

    A row's text (:meth:`row`) depends only on the row: in JSON each row after the first begins
    with ``,``, so rows written apart (a ``merge --jobs`` worker's) as if none were first are
    joined by dropping the first row's ``,`` (:attr:`FIRST_SKIP` characters).
    """

    #: Characters the first row's text has more than :meth:`row` of a later row gives.
    FIRST_SKIP = 1

    def __init__(self, path, columns: list[str], *, key: str = "errors", head: dict | None = None):
        import csv
        import io

        self.json = str(path).lower().endswith(".json")
        self.columns = columns
        self._buffer = io.StringIO()
        self._csv = csv.writer(self._buffer, lineterminator="\n")
        #: What begins the listing: JSON ``{... "errors": [``, the CSV header.
        self.opening = (to_json({**(head or {}), key: []})[:-len("[]\n}\n")] + "[" if self.json
                        else self._csv_line(columns))

    def _csv_line(self, values) -> str:
        self._buffer.seek(0)
        self._buffer.truncate()
        self._csv.writerow(values)
        return self._buffer.getvalue()

    def row(self, row: dict, first: bool = False) -> str:
        """One row's text (``first``: the listing's first row)."""
        if self.json:
            import json

            text = json.dumps(json_safe(row), indent=2, ensure_ascii=False, allow_nan=False)
            return ("\n" if first else ",\n") + "\n".join("    " + line for line in text.split("\n"))
        return self._csv_line([row.get(c, "") for c in self.columns])

    def closing(self, empty: bool) -> str:
        """What ends the listing (``empty``: it has no row)."""
        if self.json:
            return "]\n}\n" if empty else "\n  ]\n}\n"
        return ""


def write_listing(path, rows, columns: list[str] | None = None, *, force: bool = False, what: str = "errors file",
                  key: str = "errors", head: dict | None = None, listing: Listing | None = None,
                  parts=None) -> None:
    """Write a listing's ``rows`` (an iterable of dicts) to ``path`` one row at a time, atomically:
    JSON ``{**head, key: [...]}`` when ``path`` ends in ``.json`` (byte for byte what
    :func:`to_json` writes of the whole document), CSV with ``columns`` otherwise (:class:`Listing`).
    The text of the whole listing is never held in memory (on the 10,000-document benchmark
    corpus, ``agree --errors`` writes 87,531 rows, 23 MB). ``parts``: in the place of ``rows``,
    ``(ListingParts, documents, rows_of)``: the rows of ``documents`` already written by ``merge
    --jobs`` workers (:class:`~spanagree.pipeline.parts.ListingParts`), ``rows_of(document)`` the
    rows of a document they did not write."""
    from ..outputs import write_atomically

    if listing is None:
        listing = Listing(path, columns or [], key=key, head=head)

    def produce(temporary) -> None:
        with open(temporary, "w", encoding="utf-8", newline="") as handle:
            handle.write(listing.opening)
            if parts is not None:
                listed, documents, rows_of = parts
                empty = not listed.write_rows(handle, documents, listing, rows_of)
            else:
                empty = True
                for row in rows:
                    handle.write(listing.row(row, first=empty))
                    empty = False
            handle.write(listing.closing(empty))

    write_atomically(path, produce, force=force, what=what, folder=False)


def disagreements_listing(result, path: str) -> str:
    """The ``agree --errors`` file: JSON when ``path`` ends in .json, otherwise CSV."""
    from .document import disagreements_document
    from .tabular import disagreements_csv

    if str(path).lower().endswith(".json"):
        return to_json(disagreements_document(result))
    return disagreements_csv(result)


def adjudication_listing(result, path, *, every: bool = False) -> str:
    """The ``--adjudicate`` file (``every``: ``--adjudicate-all``): JSON when ``path`` ends in
    ``.json``, CSV otherwise."""
    from .document import adjudication_document
    from .tabular import adjudication_csv

    if str(path).lower().endswith(".json"):
        return to_json(adjudication_document(result, every=every))
    return adjudication_csv(result, every=every)
