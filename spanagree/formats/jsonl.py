"""JSON lines: one document per line, in the spaCy/Prodigy shape (doccano's shapes on input too).

Reading
-------
* Each non-blank line is one JSON object: ``{"id": ..., "text": ..., "spans": [{"start": s,
  "end": e, "label": l}, ...]}``. Offsets are half-open ``[start, end)`` code-point offsets into
  ``text``. Extra keys (Prodigy's ``token_start``, ``meta``, ...) are ignored.
* A **discontinuous** span adds ``"fragments": [[s, e], ...]``; ``start`` and ``end`` (which may
  then be left out) must be its hull. Fragments are kept as given when sorted and disjoint,
  otherwise sorted and merged (:func:`~spanagree.span.normalize_fragments`).
* **doccano** exports are read too: ``"label": [[s, e, l], ...]`` and
  ``"entities": [{"start_offset": s, "end_offset": e, "label": l}, ...]`` (used when there is no
  ``"spans"``). A record with none of the three keys has no spans.
* **Document id** = the record's ``"id"`` (a string, or an integer written as a string), else its
  1-based line number. An id seen twice is an error.
* ``"text": null`` is a document whose text is unknown (offsets then cannot be checked); a record
  without ``"text"`` is an error. Texts are kept exactly: ``\\r\\n`` stays two characters.
* Lines are separated by ``\\n`` only (``\\r\\n`` accepted); blank lines are skipped; a byte-order
  mark at the start of the file is skipped. Each span's source is the file and its record's line.
* **Errors** (:class:`~spanagree.errors.FormatError`, ``path:line: message``): invalid JSON, a
  line that is not an object, no ``text``, an id seen twice, a span without a label or with offsets
  that are not integers, empty, reversed or outside the text, bytes that are not UTF-8, an empty
  file.

Writing
-------
``write_jsonl`` writes one line per document, in order: ``{"id", "text", "spans": [{"start",
"end", "label"}, ...]}``, spans in canonical order (:meth:`~spanagree.span.Span.sort_key`),
``"fragments"`` only for discontinuous spans, UTF-8 without ``\\u`` escapes (``ensure_ascii=False``),
an unknown text as ``null``.
"""

from __future__ import annotations

import json
import os

from ..collector import collector_paused
from ..errors import FormatError, UsageError
from ..span import Document, Source, Span, SpanSet, normalize_fragments
from ..span import (_new, _set_attributes, _set_doc, _set_fragments, _set_label, _set_line,  # hot-loop setters
                    _set_path, _set_source)
from . import read_utf8_file

__all__ = ["read_jsonl", "write_jsonl"]

_trusted = Span.trusted

_MISSING = object()



def read_jsonl(path, *, name: str | None = None) -> SpanSet:
    """Read a JSON-lines file as one annotator's :class:`SpanSet`.

    Parameters
    ----------
    path : str or path
        A ``.jsonl`` file.
    name : str, optional
        The span set's name; default the file name without extension.

    Returns
    -------
    SpanSet
        One document per record, in file order.

    Raises
    ------
    FormatError
        Naming the file and line: see the module documentation.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "ann1.jsonl"
    >>> _ = f.write_text('{"id": "d1", "text": "Ana met Bo in Porto.", "spans": '
    ...                  '[{"start": 0, "end": 3, "label": "PER"}, '
    ...                  '{"start": 8, "end": 19, "label": "PER", "fragments": [[8, 10], [14, 19]]}]}\\n'
    ...                  '{"text": "Bo.", "label": [[0, 2, "PER"]]}\\n')
    >>> spans = read_jsonl(f)
    >>> spans.name, list(spans.documents)
    ('ann1', ['d1', '2'])
    >>> [(s.doc, s.fragments, s.label) for s in spans]
    [('d1', ((0, 3),), 'PER'), ('d1', ((8, 10), (14, 19)), 'PER'), ('2', ((0, 2),), 'PER')]
    """
    path_str = os.fspath(path)
    if name is None:
        from . import default_name

        name = default_name(path_str)
    content = read_utf8_file(path_str, "JSONL")
    if content[:1] == "\ufeff":
        content = content[1:]

    documents: dict[str, Document] = {}
    first_line: dict[str, int] = {}
    loads = json.loads
    with collector_paused():
        lineno = 0
        for line in content.split("\n"):
            lineno += 1
            if not line or line.isspace():
                continue
            try:
                record = loads(line)
            except json.JSONDecodeError as error:
                raise FormatError(path_str, f"invalid JSON: {error.msg} (column {error.colno})", lineno) from None
            if type(record) is not dict:
                raise FormatError(path_str, f"expected a JSON object {{\"id\", \"text\", \"spans\"}}, "
                                  f"got {type(record).__name__}", lineno)
            document = _document(record, path_str, lineno)
            if document.id in first_line:
                raise FormatError(path_str, f"document id {document.id!r} appears twice (first at line "
                                  f"{first_line[document.id]})", lineno)
            first_line[document.id] = lineno
            documents[document.id] = document
    if not documents:
        raise FormatError(path_str, "empty file: no JSON record in it")
    return SpanSet(name, documents, [], "jsonl")


def _document(record: dict, path: str, lineno: int) -> Document:
    text = record.get("text", _MISSING)
    if text is _MISSING:
        raise FormatError(path, 'the record has no "text" (give null when the text is unknown)', lineno)
    if text is not None and type(text) is not str:
        raise FormatError(path, f'"text" must be a string or null, got {type(text).__name__}', lineno)
    doc_id = record.get("id")
    if doc_id is None:
        doc_id = str(lineno)
    elif type(doc_id) is int:
        doc_id = str(doc_id)
    elif type(doc_id) is not str:
        raise FormatError(path, f'"id" must be a string or an integer, got {json.dumps(doc_id)[:40]}', lineno)

    source = _new(Source)
    _set_path(source, path)
    _set_line(source, lineno)
    n = None if text is None else len(text)
    spans: list[Span] = []
    append = spans.append
    new, set_doc, set_fragments, set_label, set_source, set_attributes = (
        _new, _set_doc, _set_fragments, _set_label, _set_source, _set_attributes)

    entries = record.get("spans")
    if entries is not None:
        if type(entries) is not list:
            raise FormatError(path, f'"spans" must be a list, got {type(entries).__name__}', lineno)
        number = 0
        for entry in entries:
            number += 1
            # The common case, checked and built inline (Span.trusted's stores): one fragment.
            if type(entry) is dict and "fragments" not in entry:
                start = entry.get("start")
                end = entry.get("end")
                label = entry.get("label")
                if (type(start) is int and type(end) is int and 0 <= start < end and (n is None or end <= n)
                        and type(label) is str and label):
                    span = new(Span)
                    set_doc(span, doc_id)
                    set_fragments(span, ((start, end),))
                    set_label(span, label)
                    set_source(span, source)
                    set_attributes(span, ())
                    append(span)
                    continue
            # Anything else: discontinuous, or an error to report.
            if type(entry) is not dict:
                raise FormatError(path, f'span {number}: expected {{"start", "end", "label"}}, '
                                  f"got {_shown(entry)}", lineno)
            fragments = entry.get("fragments")
            start, end = entry.get("start"), entry.get("end")
            if fragments is None:
                fragments = _fragment(start, end, n, path, lineno, number)
            else:
                fragments = _fragments(fragments, start, end, n, path, lineno, number)
            append(_trusted(doc_id, fragments, _label(entry.get("label"), path, lineno, number), source))
    elif "entities" in record:
        entries = record["entities"]
        if type(entries) is not list:
            raise FormatError(path, f'"entities" must be a list, got {type(entries).__name__}', lineno)
        for number, entry in enumerate(entries, 1):
            if type(entry) is not dict:
                raise FormatError(path, f'entity {number}: expected {{"start_offset", "end_offset", "label"}}, '
                                  f"got {_shown(entry)}", lineno)
            fragments = _fragment(entry.get("start_offset"), entry.get("end_offset"), n, path, lineno, number,
                                  keys=("start_offset", "end_offset"))
            append(_trusted(doc_id, fragments, _label(entry.get("label"), path, lineno, number), source))
    elif "label" in record:
        entries = record["label"]
        if type(entries) is not list:
            raise FormatError(path, f'"label" must be a list of [start, end, label], got {_shown(entries)}', lineno)
        for number, entry in enumerate(entries, 1):
            if type(entry) is not list or len(entry) != 3:
                raise FormatError(path, f"label {number}: expected [start, end, label], got {_shown(entry)}", lineno)
            fragments = _fragment(entry[0], entry[1], n, path, lineno, number)
            append(_trusted(doc_id, fragments, _label(entry[2], path, lineno, number), source))
    return Document(doc_id, text, spans, path)


def _fragment(start, end, n, path, lineno, number, keys=("start", "end")) -> tuple[tuple[int, int]]:
    if type(start) is not int or type(end) is not int:
        raise FormatError(path, f'span {number}: "{keys[0]}" and "{keys[1]}" must be integers, '
                          f"got {_shown(start)} and {_shown(end)}", lineno)
    _check_range(start, end, n, path, lineno, number)
    return ((start, end),)


def _fragments(given, start, end, n, path, lineno, number) -> tuple[tuple[int, int], ...]:
    if type(given) is not list or not given:
        raise FormatError(path, f'span {number}: "fragments" must be a non-empty list of [start, end], '
                          f"got {_shown(given)}", lineno)
    fragments = []
    for fragment in given:
        if (type(fragment) is not list or len(fragment) != 2
                or type(fragment[0]) is not int or type(fragment[1]) is not int):
            raise FormatError(path, f"span {number}: a fragment is [start, end] with integers, got {_shown(fragment)}",
                              lineno)
        _check_range(fragment[0], fragment[1], n, path, lineno, number)
        fragments.append((fragment[0], fragment[1]))
    if any(b[0] < a[1] for a, b in zip(fragments, fragments[1:])):
        fragments = normalize_fragments(fragments)
    else:
        fragments = tuple(fragments)
    hull = (fragments[0][0], fragments[-1][1])
    if (start is not None and start != hull[0]) or (end is not None and end != hull[1]):
        raise FormatError(path, f'span {number}: "start" and "end" ({start}, {end}) must be the hull of its '
                          f"fragments {[list(f) for f in fragments]}", lineno)
    return fragments


def _check_range(start: int, end: int, n: int | None, path: str, lineno: int, number: int) -> None:
    if start < 0:
        raise FormatError(path, f"span {number}: offset {start} is negative", lineno)
    if end <= start:
        raise FormatError(path, f"span {number}: [{start}, {end}) is empty or reversed: the end must be after "
                          "the start", lineno)
    if n is not None and end > n:
        raise FormatError(path, f"span {number}: [{start}, {end}) ends beyond the text ({n} character"
                          f"{'s' if n != 1 else ''})", lineno)


def _label(label, path: str, lineno: int, number: int) -> str:
    if type(label) is not str or not label:
        raise FormatError(path, f"span {number}: no label (a non-empty string), got {_shown(label)}", lineno)
    return label


def _shown(value, limit: int = 60) -> str:
    shown = json.dumps(value, ensure_ascii=False) if value is not None else "nothing"
    return shown if len(shown) <= limit else shown[:limit] + "..."


def write_jsonl(spanset: SpanSet, dest) -> None:
    """Write a span set as JSON lines, one document per line, in order.

    Parameters
    ----------
    spanset : SpanSet
    dest : str or path
        The file to write (overwritten; the caller decides whether that is allowed).

    Raises
    ------
    UsageError
        Naming the document: a text that cannot be written as UTF-8 (a lone surrogate), a span
        beyond its text. Nothing is written then.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "out.jsonl"
    >>> s = SpanSet.from_spans("a", [Span("d1", ((8, 10), (14, 19)), "PER"), Span("d1", (0, 3), "PER")],
    ...                        {"d1": "Ana met Bo in Porto."})
    >>> write_jsonl(s, f)
    >>> print(f.read_text(encoding="utf-8"), end="")
    {"id": "d1", "text": "Ana met Bo in Porto.", "spans": [{"start": 0, "end": 3, "label": "PER"}, {"start": 8, "end": 19, "label": "PER", "fragments": [[8, 10], [14, 19]]}]}
    """
    lines = []
    for doc_id, document in spanset.documents.items():
        spans = []
        n = None if document.text is None else len(document.text)
        for span in sorted(document.spans, key=Span.sort_key):
            if n is not None and span.end > n:
                raise UsageError(f"document {doc_id!r}: span {span.fragments} {span.label} ends beyond its text "
                                 f"({n} characters)")
            entry = {"start": span.fragments[0][0], "end": span.fragments[-1][1], "label": span.label}
            if len(span.fragments) > 1:
                entry["fragments"] = [[s, e] for s, e in span.fragments]
            spans.append(entry)
        line = json.dumps({"id": doc_id, "text": document.text, "spans": spans}, ensure_ascii=False)
        try:
            line.encode("utf-8")
        except UnicodeEncodeError:
            raise UsageError(f"document {doc_id!r}: its text cannot be written as UTF-8 "
                             "(it holds a lone surrogate)") from None
        lines.append(line + "\n")
    with open(os.fspath(dest), "w", encoding="utf-8", newline="\n") as file:
        file.write("".join(lines))
