"""String predictions: records whose entities give a text and a label but no offsets, as
prompted language models answer (``[{"text": "aspirin", "label": "DRUG"}]``).

Reading
-------
A file of **JSON lines** (one record per line) or a **JSON list** of records (a ``.json`` file)::

    {"id": "d1", "entities": [{"text": "aspirin", "label": "DRUG"}, {"text": "fever", "label": "SYMPTOM"}]}
    {"id": "d2", "text": "Bo took aspirin.", "entities": {"DRUG": ["aspirin"], "PER": ["Bo"]}}

* **Documents** are the records; a record's id is its ``"id"`` (a string, or an integer written
  as one), else its 1-based position. Its document is the gold's of that id; when the records
  carry their ``"text"`` they may be paired by text instead (``--document-key text``). A text
  is optional (``null`` or absent: unknown).
* **Entities** are the list (or mapping) under ``"entities"``, ``"spans"``, ``"mentions"`` or
  ``"predictions"`` (the first present). An entity is an object with a text under ``"text"``,
  ``"entity"``, ``"span"`` or ``"mention"`` and a label under ``"label"``, ``"type"``,
  ``"category"`` or ``"entity_type"`` (the first of each present); or the list is a mapping of
  label to strings, ``{"DRUG": ["aspirin", "ibuprofen"]}``. Entities are never de-duplicated: a
  string listed twice is two predictions.
* An entity **with offsets** (``start`` and ``end``, or doccano's ``start_offset`` and
  ``end_offset``) is an ordinary span (half-open code-point offsets, as JSONL's), its text, when
  given, kept beside it for ``--strings recover``; the others are :class:`~spanagree.span.Predicted`
  strings, whose positions :mod:`spanagree.pipeline.placing` chooses in the gold's text.
* **Recognised** by content (before any extension rule): a ``.json``, ``.jsonl`` or ``.ndjson``
  file whose first record with entities has entities without offsets (a text key and a label
  key, or a mapping of label to strings). A Label Studio export is a list of tasks with ``data``
  and ``annotations`` (its regions have ``value.start``): never taken for one. Files whose
  entities all have offsets are read as JSONL (doccano's, spaCy's); ``--format strings`` reads
  them here (``--strings recover``).
* **Errors** (:class:`~spanagree.errors.FormatError`, ``path:line: message``; for a JSON list,
  the record's position): invalid JSON, a record that is not an object, an id seen twice, an
  entity without a text or a label, a text or label that is not a non-empty string, offsets
  that are not integers, are empty or reversed, or lie outside the record's text.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Iterator

from ..errors import FormatError
from ..span import Predicted, Source, Span, StringsDocument
from . import MAX_RECORD_BYTES, DocumentStream, default_name, open_file, read_bounded, too_large
from .registry import FORMATS

#: This module's registry entry, on which it registers its functions.
FORMAT = FORMATS["strings"]

__all__ = ["read_strings", "recognise_strings", "stream_strings"]

#: Where a record keeps its entities, in the order looked for.
ENTITY_LISTS = ("entities", "spans", "mentions", "predictions")
#: Where an entity keeps its text, in the order looked for.
TEXT_KEYS = ("text", "entity", "span", "mention")
#: Where an entity keeps its label, in the order looked for.
LABEL_KEYS = ("label", "type", "category", "entity_type")
#: The offsets an entity may have: (start, end) key pairs.
OFFSET_KEYS = (("start", "end"), ("start_offset", "end_offset"))

_SUFFIXES = (".json", ".jsonl", ".ndjson")
_BOM = "\ufeff"


def _first(mapping: dict, keys: tuple[str, ...]):
    return next((key for key in keys if key in mapping), None)


def is_strings_record(record) -> bool | None:
    """Whether a decoded record is one of string predictions: ``True``, ``False``, or ``None``
    when it cannot tell (no entity to look at).

    Examples
    --------
    >>> is_strings_record({"id": 1, "entities": [{"text": "aspirin", "type": "DRUG"}]})
    True
    >>> is_strings_record({"id": 1, "entities": {"DRUG": ["aspirin"]}})
    True
    >>> is_strings_record({"text": "Bo.", "spans": [{"start": 0, "end": 2, "label": "PER"}]})
    False
    >>> is_strings_record({"data": {"text": "Bo."}, "annotations": []})
    False
    """
    if not isinstance(record, dict) or "data" in record or "annotations" in record:
        return False
    key = _first(record, ENTITY_LISTS)
    if key is None:
        return False if "label" in record else None  # doccano's [[s, e, l]] lists
    entities = record[key]
    if isinstance(entities, dict):
        return any(isinstance(v, list) and v and all(isinstance(s, str) for s in v) for v in entities.values()) \
            or None
    if not isinstance(entities, list) or not entities:
        return None
    entity = entities[0]
    if not isinstance(entity, dict):
        return False
    if any(start in entity or end in entity for start, end in OFFSET_KEYS):
        return False
    return _first(entity, TEXT_KEYS) is not None and _first(entity, LABEL_KEYS) is not None


@FORMAT.provides("recogniser")
def recognise_strings(path: Path, head: bytes | None) -> bool:
    """A ``.json``/``.jsonl``/``.ndjson`` file whose first record with entities has them without
    offsets (:func:`is_strings_record`), looked for in the file's first bytes."""
    if head is None or path.suffix.lower() not in _SUFFIXES:
        return False
    try:
        text = head.decode("utf-8", "ignore").lstrip(_BOM).lstrip()
    except Exception:  # pragma: no cover - decoding with "ignore" does not fail
        return False
    decoder = json.JSONDecoder()
    at = 1 if text[:1] == "[" else 0
    while True:
        match = re.compile(r"[\s,]*").match(text, at)
        at = match.end()
        if at >= len(text) or text[at] != "{":
            return False
        try:
            record, at = decoder.raw_decode(text, at)
        except (ValueError, RecursionError):
            return False  # the head ends inside the record, it is not JSON, or it nests too deeply
        found = is_strings_record(record)
        if found is not None:
            return found


def read_strings(path, *, name: str | None = None):
    """A file of string predictions as a :class:`~spanagree.span.SpanSet` of
    :class:`~spanagree.span.StringsDocument` (:func:`stream_strings`, collected).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "llm.jsonl"
    >>> _ = f.write_text('{"id": "d1", "entities": [{"text": "aspirin", "label": "DRUG"}, '
    ...                  '{"entity": "aspirin", "type": "DRUG"}]}\\n{"id": "d2", "entities": {"PER": ["Bo"]}}\\n')
    >>> spans = read_strings(f)
    >>> [(d.id, [(s.text, s.label) for s in d.strings]) for d in spans.documents.values()]
    [('d1', [('aspirin', 'DRUG'), ('aspirin', 'DRUG')]), ('d2', [('Bo', 'PER')])]
    """
    from . import collect

    return collect(stream_strings(path, name=name))


@FORMAT.provides("streamer")
def stream_strings(path, *, name: str | None = None, max_record_bytes: int = MAX_RECORD_BYTES) -> DocumentStream:
    """A file of string predictions, its records read as the stream gets to them (the module's
    documentation gives the shapes and the errors)."""
    path = os.fspath(path)
    open_file(path, "a file of string predictions").close()  # a missing file fails now
    return DocumentStream(name or default_name(path), FORMAT.name, _documents(path, max_record_bytes), path=path)


def _documents(path: str, limit: int) -> Iterator[StringsDocument]:
    seen: dict[str, int] = {}
    count = 0
    for number, lineno, record in _records(path, limit):
        document = _document(record, path, number, lineno)
        if document.id in seen:
            raise FormatError(path, f"document id {document.id!r} appears twice (first in record {seen[document.id]})",
                              lineno)
        seen[document.id] = number
        count += 1
        yield document
    if not count:
        raise FormatError(path, "empty file: no record in it")


def _records(path: str, limit: int) -> Iterator[tuple[int, int | None, object]]:
    """``(number, line or None, record)`` of a JSON list or of JSON lines."""
    with open_file(path, "a file of string predictions") as file:
        start = file.peek(64)[:64].lstrip(b"\xef\xbb\xbf").lstrip()  # peeked: a pipe or a device cannot seek
        if start[:1] == b"[":
            data = read_bounded(file, path, limit, "the JSON list")
            records = _loads(data, path, None)
            if not isinstance(records, list):  # pragma: no cover - it starts with "["
                raise FormatError(path, "a JSON list of records is expected")
            for number, record in enumerate(records, 1):
                yield number, None, record
            return
        number = 0
        for lineno, raw in enumerate(iter(lambda: file.readline(limit + 1), b""), 1):
            if len(raw) > limit and not raw.endswith(b"\n"):
                raise too_large(path, "the line", limit, lineno)
            if not raw.strip() or raw.strip() == b"\xef\xbb\xbf":
                continue
            number += 1
            yield number, lineno, _loads(raw, path, lineno)


def _loads(data: bytes, path: str, lineno: int | None):
    try:
        return json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as error:
        raise FormatError(path, f"not UTF-8 (byte 0x{data[error.start]:02x})", lineno) from None
    except RecursionError:
        raise FormatError(path, "invalid JSON: nested too deeply", lineno) from None
    except ValueError as error:
        raise FormatError(path, f"invalid JSON: {getattr(error, 'msg', None) or error}", lineno) from None


def _document(record, path: str, number: int, lineno: int | None) -> StringsDocument:
    where = "" if lineno is not None else f"record {number}: "

    def error(message: str) -> FormatError:
        return FormatError(path, where + message, lineno)

    if not isinstance(record, dict):
        raise error(f"expected a JSON object {{\"id\", \"entities\"}}, got {type(record).__name__}")
    doc_id = record.get("id", number)
    if isinstance(doc_id, bool) or not isinstance(doc_id, (str, int)):
        raise error(f"the id must be a string or an integer, got {json.dumps(doc_id)[:60]}")
    doc_id = str(doc_id)
    text = record.get("text")
    if text is not None and not isinstance(text, str):
        raise error("the text must be a string or null")
    if _surrogate(doc_id) or (text is not None and _surrogate(text)):
        raise error("a lone surrogate (not a character) in the id or the text")
    source = Source(path, lineno)
    document = StringsDocument(doc_id, text, [], path)
    key = _first(record, ENTITY_LISTS)
    entities = record.get(key) if key is not None else []
    if isinstance(entities, dict):
        entities = [{"text": item, "label": label} for label, items in entities.items()
                    for item in (items if isinstance(items, list) else [items])]
    elif not isinstance(entities, list):
        raise error(f"{key!r} must be a list of entities or a mapping of label to strings")
    for n, entity in enumerate(entities, 1):
        _entity(entity, n, document, source, error)
    return document


def _entity(entity, n: int, document: StringsDocument, source: Source, error) -> None:
    if not isinstance(entity, dict):
        raise error(f"entity {n}: expected an object with a text and a label, got {json.dumps(entity)[:60]}")
    label_key = _first(entity, LABEL_KEYS)
    label = entity.get(label_key) if label_key else None
    if isinstance(label, list) and len(label) == 1:
        label = label[0]
    if not isinstance(label, str) or not label or _surrogate(label):
        raise error(f"entity {n}: no label (a non-empty string under one of {', '.join(LABEL_KEYS)})")
    text_key = _first(entity, TEXT_KEYS)
    text = entity.get(text_key) if text_key else None
    if text is not None and (not isinstance(text, str) or not text or _surrogate(text)):
        raise error(f"entity {n}: the text must be a non-empty string")
    offsets = next(((entity[s], entity[e]) for s, e in OFFSET_KEYS if s in entity and e in entity), None)
    if offsets is None:
        if text is None:
            raise error(f"entity {n}: no text (a string under one of {', '.join(TEXT_KEYS)}) and no offsets")
        document.strings.append(Predicted(text, label, source))
        return
    start, end = offsets
    if any(isinstance(x, bool) or not isinstance(x, int) for x in offsets):
        raise error(f"entity {n}: offsets must be integers, got {json.dumps(list(offsets))[:60]}")
    if start < 0 or end <= start:
        raise error(f"entity {n}: [{start}, {end}) is empty or negative")
    if document.text is not None and end > len(document.text):
        raise error(f"entity {n}: [{start}, {end}) ends after the text ({len(document.text)} characters)")
    attributes = (("text", text),) if text is not None else ()
    document.spans.append(Span.trusted(document.id, ((start, end),), label, source, attributes))


_SURROGATE = re.compile("[\ud800-\udfff]")


def _surrogate(value: str) -> bool:
    return _SURROGATE.search(value) is not None
