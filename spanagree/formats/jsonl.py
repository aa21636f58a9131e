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
* A **doccano multi-user export** (a collaborative project: ``"annotations": [{"label": 21,
  "start_offset": 0, "end_offset": 3, "user": 3}, ...]``) is a container: one annotator per
  user, named by the user id (:func:`doccano_users`); every record is a document of every user
  (one who marked nothing in it has no spans there). Labels are doccano's label ids unless its
  label list is given (``doccano_labels``, ``--doccano-labels FILE``: ids read as names).
* **Attributes**: a span's ``"kb_id"`` (a knowledge-base id: ``"Q42"``, ``"NIL"``, candidates
  ``"Q1|Q2"``; ``null`` and ``""``, spaCy's none, give none) and ``"attributes"`` (an object, name → value: ``{"Negation": "True"}``) are its
  attributes, ``kb_id`` first. A value is a string; ``true``/``false`` are read as ``"True"``/
  ``"False"`` (BRAT's flag), a number as Python writes it (``2``, ``0.5``, ``1e3`` → ``1000.0``),
  a list of those joined by ``|`` (``["Q1", "Q2"]`` → ``"Q1|Q2"``); anything else is an error.
* **Relations and events**: a record's ``"relations": [{"type": "Causes", "args": [{"role":
  "Arg1", "span": 0}, {"role": "Arg2", "span": 2}]}, ...]`` are the document's relations, each
  argument a span of the record by its index in its span list (from 0) or by the ``"id"`` a
  span entry carries (``"span": "T1"``); an event adds ``"trigger"`` (a span, the same way). doccano's
  relations (``{"from_id", "to_id", "type"}``, entities by their ``"id"``) are read as
  ``Arg1`` → ``Arg2``. Prodigy's relations between tokens (``"head"``, ``"child"``) are not read:
  the notes count them. A relation naming a span the record does not have is an error.
* A record whose spans are under a key the reader does not know — a list of entries with
  ``start``, ``end``, ``label`` or the like — is never read as nothing in silence: the span
  set's notes count such records by key.
* **Document id** = the record's ``"id"`` (a string, or an integer written as a string), else
  Prodigy's ``"_input_hash"``, else its 1-based line number. An id seen twice is an error.
* **Prodigy**: a record answered ``"reject"`` or ``"ignore"`` is not an annotation: it is left out
  and counted in the span set's notes (an ``"answer"`` that is not a string is an error).
  ``"_annotator_id"`` splits a file into annotators (:func:`annotators_jsonl`: the format is a
  container), read as the JSON parser reads the record (:func:`annotator_ids`: a number as its
  text, a list or an object an error); ``stream_jsonl(path, annotator=NAME)`` reads one, named by
  its session (:func:`annotator_names`) or by its whole id.
* ``"text": null`` is a document whose text is unknown (offsets then cannot be checked); a record
  without ``"text"`` is an error. Texts are kept exactly: ``\\r\\n`` stays two characters.
* Lines are separated by ``\\n`` only (``\\r\\n`` accepted); blank lines are skipped; a byte-order
  mark at the start of the file is skipped. Each span's source is the file and its record's line.
* **Errors** (:class:`~spanagree.errors.FormatError`, ``path:line: message``): invalid JSON, a
  line that is not an object, no ``text``, an id seen twice, a span without a label or with offsets
  that are not integers, empty, reversed or outside the text, bytes that are not UTF-8, an empty
  file; a text, id or label holding a lone surrogate (``"\\ud800"`` escaped alone: not a character,
  it cannot be written as UTF-8); a number of more than 4,300 digits (Python's limit on integers
  read from text); nesting deeper than Python's recursion limit (about 1,000 levels); a line longer
  than ``max_record_bytes`` (64 MiB unless raised: endless input such as ``/dev/zero`` ends there).
* :func:`stream_jsonl` reads the file one line at a time and raises each error when its line is
  read (so, of two errors, the first in the file); :func:`read_jsonl` collects the stream.

Writing
-------
``write_jsonl`` writes one line per document, in order: ``{"id", "text", "spans": [{"start",
"end", "label"}, ...]}``, spans in canonical order (:meth:`~spanagree.span.Span.sort_key`),
``"fragments"`` only for discontinuous spans, UTF-8 without ``\\u`` escapes (``ensure_ascii=False``),
an unknown text as ``null``. A span's attribute ``kb_id`` follows its label (and fragments) as
``"kb_id"``, its other attributes as ``"attributes"`` (in their order; the values of a name met
twice joined by ``|``), but notes (BRAT's ``#``: free text, never compared), which are left out
and announced, as before; the document's relations and events follow its spans as ``"relations"``
(canonical order, :meth:`~spanagree.span.Relation.sort_key`; spans by their index in the line's
``"spans"``). A document without attributes or relations is written as before.
"""

from __future__ import annotations

import json
import os
import stat
import re
import sys
from functools import partial
from typing import Callable, Iterable, Iterator

import orjson

from ..errors import FormatError, UsageError
from ..span import Document, Relation, Source, Span, SpanSet, normalize_fragments
from . import (MAX_RECORD_BYTES, DocumentStream, FilePart, FileWriter, collect, default_name, open_file, too_large,
               write_documents)
from .registry import FORMATS

#: This module's registry entry, on which it registers its functions.
FORMAT = FORMATS["jsonl"]

__all__ = ["annotators_jsonl", "document_starts_jsonl", "part_notes_jsonl", "read_jsonl",
           "stream_jsonl", "write_jsonl"]

_trusted = Span.trusted

_MISSING = object()

_BOM_BYTES = "\ufeff".encode()

# A JSON escape that may make a lone surrogate (\ud800-\udfff); only lines holding one are checked
# (a surrogate cannot come as UTF-8 bytes: they do not decode).
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def read_jsonl(path, *, name: str | None = None, doccano_labels: str | None = None) -> SpanSet:
    """Read a JSON-lines file as one annotator's :class:`SpanSet` (:func:`stream_jsonl`, collected).

    Parameters
    ----------
    path : str or path
        A ``.jsonl`` file.
    name : str, optional
        The span set's name; default the file name without extension.
    doccano_labels : path, optional
        doccano's label list, as in :func:`stream_jsonl`.

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
    return collect(stream_jsonl(path, name=name, doccano_labels=doccano_labels))


@FORMAT.provides("streamer")
def stream_jsonl(path, *, name: str | None = None, max_record_bytes: int = MAX_RECORD_BYTES,
                 annotator: str | None = None, part: FilePart | None = None,
                 doccano_labels: str | None = None) -> DocumentStream:
    """A JSON-lines file's documents, each record read and checked when the stream gets to it.

    The reader proper (:func:`read_jsonl` collects it). The file is tried (opened and closed)
    when the stream is made, so a missing file, a folder or an unreadable file is an error at
    once, and no file is left open by a stream never read; everything else (invalid JSON or
    UTF-8, a bad record, an id seen twice, an empty file) is raised as the documents are read,
    naming the line. The file is read one line at a time: the stream holds one record, plus the
    ids seen (to find one seen twice). No notes.

    Parameters
    ----------
    path : str or path
        A ``.jsonl`` file.
    name : str, optional
        The span set's name; default the file name without extension.
    max_record_bytes : int, optional
        The longest line read, in bytes (default 64 MiB); a longer one is an error.
    annotator : str, optional
        Read only this annotator's records (Prodigy's ``_annotator_id``, named as
        :func:`annotators_jsonl` names it; the file stem names the records without one), or, in
        a doccano multi-user export, this user's annotations (the user id as text).
    doccano_labels : path, optional
        doccano's exported label list (``[{"id": 21, "text": "PER", ...}, ...]``): a doccano
        label id is read as its text; without it the id is the label.
    part : FilePart, optional
        Read only these bytes of the file (lines from one record's to another's, see
        :func:`document_starts_jsonl`), as the whole file reads them (lines numbered on from
        ``part.lines_before``); the end's empty-file error and note are left to the caller, the
        records left out added to ``part.counts["left_out"]`` (:func:`part_notes_jsonl`). An id
        is checked against the part's ids only.

    Raises
    ------
    FormatError
        When made: no such file, a folder, unreadable. When read: see the module documentation.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "ann1.jsonl"
    >>> _ = f.write_text('{"id": "d1", "text": "Ana", "spans": [{"start": 0, "end": 3, "label": "PER"}]}\\n'
    ...                  '{"id": "d1", "text": "Bo"}\\n')
    >>> stream = stream_jsonl(f)
    >>> first = next(stream.documents)
    >>> first.id, [(s.fragments, s.label, str(s.source)) for s in first.spans] == [(((0, 3),), "PER", f"{f}:1")]
    ('d1', True)
    >>> next(stream.documents)
    Traceback (most recent call last):
    ...
    spanagree.errors.FormatError: ...ann1.jsonl:2: document id 'd1' appears twice (first at line 1)
    """
    path_str = os.fspath(path)
    open_file(path_str, "JSONL").close()
    labels = doccano_label_names(doccano_labels)
    users = doccano_users(path_str, max_record_bytes) if part is None else None
    if users:
        if annotator is None and len(users) > 1:
            raise UsageError(f"{path_str} holds the annotations of {len(users)} doccano users ({', '.join(users)}); "
                             "choose one with {option}", option="annotator", flag="--annotators")
        user = annotator if annotator is not None else users[0]
        if user not in users:
            raise UsageError(f"{path_str} holds no annotator {user!r}; it holds: {', '.join(users)}",
                             option="annotators", flag="--annotators")
        stream = DocumentStream(name or user, "jsonl", iter(()))
        stream.documents = _documents(path_str, max_record_bytes, stream.notes, user=user, labels=labels)
        return stream
    wanted = None
    if annotator is not None:
        ids = annotator_ids(path_str)
        by_name = dict(zip(annotator_names(path_str, ids), ids))
        by_name.update((i, i) for i in ids if i is not None and i not in by_name)  # the whole id too
        if annotator not in by_name:
            raise UsageError(f"{path_str} holds no annotator {annotator!r}; it holds: {', '.join(by_name) or 'none'}",
                             option="annotators", flag="--annotators")
        wanted = by_name[annotator]
        if name is None:
            name = dict(zip(ids, annotator_names(path_str, ids)))[wanted]
    if name is None:
        name = default_name(path_str)
    stream = DocumentStream(name, "jsonl", iter(()))
    stream.documents = _documents(path_str, max_record_bytes, stream.notes, wanted, part=part, labels=labels)
    return stream


# doccano's collaborative projects export each record's annotations with their user:
# {"id", "text", "annotations": [{"label": 21, "start_offset": 0, "end_offset": 3, "user": 3}, ...]}.
_DOCCANO_KEY = b'"annotations"'


def doccano_users(path: str, limit: int = MAX_RECORD_BYTES) -> list[str]:
    """The users of a doccano multi-user export, as text, in order of first appearance (``[]``
    for a file that is not one: its first record holds no ``"annotations"``, or no record has an
    ``"annotations"`` list of entries with a ``"user"``). Only the lines whose bytes hold
    ``"annotations"`` are parsed; a file that is not regular (a pipe, a device) is never read
    ahead (it is one span set), and a line longer than ``limit`` ends the scan (the reader
    reports it).

    Raises
    ------
    FormatError
        A ``"user"`` that is not an integer or a string, naming the file and line.
    """
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return []
    except OSError:
        return []  # the reader reports it
    found: dict[str, None] = {}
    with open_file(path, "JSONL") as file:
        seen_record = False
        for lineno, line in enumerate(iter(partial(file.readline, limit + 1), b""), 1):
            if len(line) > limit:
                break
            if not seen_record and line.strip():
                seen_record = True
                if _DOCCANO_KEY not in line:  # doccano writes "annotations" in every record
                    return []
            if _DOCCANO_KEY not in line:
                continue
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue  # the reader reports it, with json's words
            entries = record.get("annotations") if type(record) is dict else None
            if type(entries) is not list:
                continue
            for entry in entries:
                if type(entry) is dict and "user" in entry:
                    found.setdefault(_doccano_user(entry["user"], path, lineno), None)
    return list(found)


def _doccano_user(user, path: str, lineno: int) -> str:
    if type(user) is int or (type(user) is str and user):
        return str(user)
    raise FormatError(path, f'a doccano annotation\'s "user" must be an integer or a string, got {_shown(user)}',
                      lineno)


def doccano_label_names(path) -> dict[str, str] | None:
    """doccano's exported label list (``[{"id": 21, "text": "PER"}, ...]``, a JSON file) as
    ``{"21": "PER"}``; ``None`` without a path.

    Raises
    ------
    FormatError
        Not such a list (naming the file).
    """
    if path is None:
        return None
    path = os.fspath(path)
    with open_file(path, "doccano label list") as file:
        try:
            entries = json.loads(file.read())
        except (ValueError, UnicodeDecodeError) as error:
            raise FormatError(path, f"not a doccano label list: not JSON ({error})") from None
    if type(entries) is not list or not all(type(e) is dict and type(e.get("id")) in (int, str)
                                            and type(e.get("text")) is str and e["text"] for e in entries):
        raise FormatError(path, 'not a doccano label list: expected [{"id": 21, "text": "PER", ...}, ...]')
    return {str(entry["id"]): entry["text"] for entry in entries}


#: Prodigy's answers that are not annotations: their records are left out (and counted in a note).
NOT_ANNOTATIONS = frozenset({"reject", "ignore"})

# Prodigy's multi-annotator sessions write "_annotator_id": "<dataset>-<session>" in each record.
_ANNOTATOR_KEY = b'"_annotator_id"'
# A JSON escape of a character of "_annotator_id" (\u005f ... \u0074): a line holding one may hold the
# key escaped, so it is parsed too (JSON writers escape no ASCII letter: such lines are rare).
_ESCAPED_KEY_CHARACTER = re.compile(rb"\\u00[5-7][0-9a-fA-F]")
_SCAN_BYTES = 1 << 20
#: The stream of a file's records without ``_annotator_id`` (in a file where others have one).
WITHOUT_ID = None


def annotator_ids(path: str) -> list[str | None]:
    """The ``_annotator_id`` values of a JSONL file in order of first appearance (``None`` for
    records without one, when some record has one); ``[None]`` for a file without any.

    Each value is read as the JSON parser reads the record (the key at its top level, the last of
    duplicate keys, an escaped key the key): a string as it is, a number as its JSON text (``7``,
    ``2.5``), ``null`` as none. The byte scan only skips work: a file whose bytes never hold
    ``"_annotator_id"`` as written is one span set (one pass over its bytes, which the reading
    then finds in the page cache); else every line that holds it, or an escape of one of its
    characters (``\\u005f``), is parsed, and the others have no id.

    Raises
    ------
    FormatError
        An ``_annotator_id`` that is a list, an object or a boolean, naming the file and line.
    """
    if not _mentions_annotators(path):
        return [None]
    found: dict = {}
    any_without = False
    carry = b""
    lineno = 0
    with open_file(path, "JSONL") as file:
        while True:
            chunk = file.read(_SCAN_BYTES)
            data = carry + chunk
            cut = len(data) if not chunk else data.rfind(b"\n") + 1
            block, carry = data[:cut], data[cut:]
            if _ANNOTATOR_KEY in block or _ESCAPED_KEY_CHARACTER.search(block):
                for line in block.split(b"\n"):
                    lineno += 1
                    if not line.strip():
                        continue
                    value = _annotator_in(line, path, lineno)
                    if value is None:
                        any_without = True
                    else:
                        found.setdefault(value, None)
                lineno -= 1  # the block's last piece is the start of the next line
            else:
                lineno += block.count(b"\n")
                any_without = any_without or bool(block.strip())
            if not chunk:
                break
    if not found:
        return [None]
    return ([None] if any_without else []) + list(found)


def _annotator_in(line: bytes, path: str, lineno: int) -> str | None:
    """The ``_annotator_id`` of one line's record (:func:`annotator_of`); ``None`` for a line that
    does not hold the key or cannot be read (reading it will say what is wrong)."""
    if _ANNOTATOR_KEY not in line and not _ESCAPED_KEY_CHARACTER.search(line):
        return None
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        try:
            record = json.loads(line.decode("utf-8-sig"))
        except (ValueError, RecursionError):
            return None
    return annotator_of(record, path, lineno) if type(record) is dict else None


def annotator_of(record: dict, path: str, lineno: int) -> str | None:
    """A record's ``_annotator_id``: a string as it is, a number as its JSON text, ``null`` or no key
    ``None``.

    Raises
    ------
    FormatError
        A list, an object or a boolean, naming the file and line.

    Examples
    --------
    >>> [annotator_of(r, "p.jsonl", 1) for r in ({"_annotator_id": "ds-ann"}, {"_annotator_id": 7}, {})]
    ['ds-ann', '7', None]
    """
    value = record.get("_annotator_id")
    if value is None or type(value) is str:
        return value
    if type(value) in (int, float):
        return json.dumps(value)
    raise FormatError(path, f'"_annotator_id" must be a string or a number, got {_shown(value)}', lineno)


def _mentions_annotators(path: str) -> bool:
    """Whether the file's bytes hold ``"_annotator_id"``, read in chunks of :data:`SCAN_CHUNK`
    bytes into one buffer (memory stays flat; a mapped file would count its pages in the resident
    size), each chunk after the last bytes of the one before, so that a key across two chunks is
    found. Reading into the buffer rather than making each chunk a new ``bytes`` (and the two
    joined another) halves the scan: 0.07 s against 0.15 s on a 135 MB file. A pipe or another
    file that is not regular is never read ahead (it could not be read again): ``False``."""
    with open_file(path, "JSONL") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size == 0:
            return False
        overlap = len(_ANNOTATOR_KEY) - 1
        buffer = bytearray(overlap + SCAN_CHUNK)
        window = memoryview(buffer)
        kept = 0  # the bytes at the buffer's start carried from the chunk before
        try:
            while True:
                read = file.readinto(window[kept:kept + SCAN_CHUNK])
                if not read:
                    return False
                end = kept + read
                if buffer.find(_ANNOTATOR_KEY, 0, end) != -1:
                    return True
                kept = min(overlap, end)
                buffer[:kept] = buffer[end - kept:end]
        except OSError:
            return False  # reading it will say what is wrong


#: The bytes read at a time when a file is scanned for Prodigy's annotator ids.
SCAN_CHUNK = 1 << 20


def annotator_names(path: str, ids: list[str | None]) -> list[str]:
    """The span sets' names for ``annotator_ids``: the ids ``<dataset>-<session>`` named by their
    session when they share one dataset prefix (``ner_news-alice``, ``ner_news-bob`` → ``alice``,
    ``bob``: Prodigy's session ids), the other ids (``7``) as they are; the records without an id
    are named by the file stem. Names that would clash keep the ids.

    Examples
    --------
    >>> annotator_names("x/data.jsonl", [None, "ner_news-alice", "ner_news-bob", "7"])
    ['data', 'alice', 'bob', '7']
    >>> annotator_names("data.jsonl", ["a-x", "b-y"]), annotator_names("data.jsonl", ["solo"])
    (['a-x', 'b-y'], ['solo'])
    """
    prefixes = {i.rpartition("-")[0] for i in ids if i is not None and i.rpartition("-")[0]}
    strip = len(prefixes) == 1
    names = [default_name(path) if i is None else i.rpartition("-")[2] if strip and i.rpartition("-")[0] in prefixes
             else i for i in ids]
    if len(set(names)) != len(names):  # a suffix equal to the stem or to another id: keep the ids
        names = [default_name(path) if i is None else i for i in ids]
    return names


@FORMAT.provides("annotators")
def annotators_jsonl(path, *, max_record_bytes: int = MAX_RECORD_BYTES,
                     doccano_labels: str | None = None) -> list[DocumentStream]:
    """One stream per annotator of a JSONL file: a doccano multi-user export's users (each
    named by its user id; every record is a document of every user, with that user's
    annotations: :func:`doccano_users`), or Prodigy's ``_annotator_id`` splitting a file into
    annotators (named by :func:`annotator_names`, in order of first appearance; the records
    without an id first, named by the file stem); a file without either is one stream named by
    its stem. Nothing is read but the scan."""
    path_str = os.fspath(path)
    labels = doccano_label_names(doccano_labels)
    users = doccano_users(path_str, max_record_bytes)
    if users:
        streams = []
        for user in users:
            stream = DocumentStream(user, "jsonl", iter(()))
            stream.documents = _documents(path_str, max_record_bytes, stream.notes, user=user, labels=labels)
            streams.append(stream)
        return streams
    ids = annotator_ids(path_str)
    if ids == [None]:
        return [stream_jsonl(path_str, max_record_bytes=max_record_bytes, doccano_labels=doccano_labels)]
    streams = []
    for identifier, name in zip(ids, annotator_names(path_str, ids)):
        stream = DocumentStream(name, "jsonl", iter(()),
                                aliases=(identifier,) if identifier is not None and identifier != name else ())
        stream.documents = _documents(path_str, max_record_bytes, stream.notes, identifier, True, labels=labels)
        streams.append(stream)
    return streams


def _documents(path: str, limit: int = MAX_RECORD_BYTES, notes: list | None = None, wanted: str | None = None,
               split: bool = False, part: FilePart | None = None, fast: bool = True, user: str | None = None,
               labels: dict[str, str] | None = None) -> Iterator[Document]:
    """Each record's document in file order, read one line at a time: the reader's loop.

    Lines are split on ``\\n`` only and read as :func:`line_documents` reads them (``fast``: as
    it says). A line is read at most ``limit`` bytes (and its ``\\n``) at a time, so memory stays
    bounded. With ``split`` (or a ``wanted`` annotator), only the records whose
    ``_annotator_id`` is ``wanted`` (``None``: those without one) are read. Records answered
    ``reject`` or ``ignore`` are left out and counted in ``notes`` at the end. Of a ``part``,
    only its lines are read, and what is left out is added to ``part.counts`` instead.
    """
    if wanted is not None:
        split = True
    reading = Reading(user, labels)
    left_out = 0
    first_line: dict[str, int] = {}  # every id read -> its line: an id seen twice is an error
    with open_file(path, "JSONL") as file:
        lineno = 0
        lines = iter(partial(file.readline, limit + 1), b"")
        if part is not None:
            file.seek(part.start)
            lineno = part.lines_before
            lines = _within(lines, part.stop - part.start)
        documents = line_documents(_bounded_lines(lines, path, limit, lineno), path,
                                   lambda record, n: _record_document(record, path, n, split, wanted, reading),
                                   lineno=lineno, fast=fast)
        for lineno, line, document in documents:
            if document is None:
                continue
            if document is _LEFT_OUT:
                left_out += 1
                continue
            if _ESCAPED_SURROGATE.search(line):  # a regex with a literal prefix: faster than "\\u" in line
                _check_characters(document, path, lineno)
            doc_id = document.id
            if doc_id in first_line:
                raise FormatError(path, f"document id {doc_id!r} appears twice (first at line "
                                  f"{first_line[doc_id]})", lineno)
            first_line[doc_id] = lineno
            yield document
    if part is not None:
        part.counts["left_out"] = part.counts.get("left_out", 0) + left_out
        if reading.prodigy_relations:
            part.counts["prodigy_relations"] = part.counts.get("prodigy_relations", 0) + reading.prodigy_relations
        return
    if not first_line and not left_out and not split:
        raise FormatError(path, "empty file: no JSON record in it")
    if left_out and notes is not None:
        notes.append(_left_out(left_out))
    if notes is not None:
        notes.extend(reading.notes())


def _bounded_lines(lines: Iterator[bytes], path: str, limit: int, lineno: int) -> Iterator[bytes]:
    """A file's ``lines`` (each read at most ``limit`` bytes and its ``\\n``, numbered on from
    ``lineno``) as :func:`line_documents` reads them: a longer line is an error naming it, and a
    byte-order mark at the file's start is left out."""
    for raw in lines:
        lineno += 1
        if len(raw) > limit and raw[-1] != 10:  # 10: b"\\n"
            raise too_large(path, "the line", limit, lineno)
        if lineno == 1 and raw[:3] == _BOM_BYTES:
            raw = raw[3:]
        yield raw


def line_documents(lines: Iterable[bytes], path: str, document_of: Callable[[object, int], object], *,
                   lineno: int = 0, fast: bool = True) -> Iterator[tuple[int, str, object]]:
    """The records of JSON lines, each made what ``document_of(record, lineno)`` makes of it: the
    loop every reader of JSON lines shares (a JSONL file's, a doccano export's member files).

    Gives ``(lineno, line, made)`` for each line that is not blank, in order: its number (counted
    on from ``lineno``), its text and what ``document_of`` made of its record (any JSON value:
    ``document_of`` checks it is an object). Lines are decoded one by one (a bad byte names its
    line); a line may keep its ``\\r`` and its ``\\n``, which JSON reads as white space, so only an
    error's message is worked out again on the line without its ``\\n`` (the column of an error at
    its end, and ``"\\n"`` inside an unterminated string, would otherwise differ from the line's
    own). Errors (:class:`~spanagree.errors.FormatError`, naming ``path`` and the line): bytes
    that are not UTF-8, invalid JSON, a number of more digits than Python reads, nesting deeper
    than its recursion limit, and whatever ``document_of`` raises.

    A line is decoded by ``orjson`` (about 2.5 times as fast as ``json`` on the benchmark corpus),
    and by ``json`` whenever that could give another outcome, so that every outcome is
    ``json``'s: when orjson refuses the line (``NaN`` and ``Infinity``, a lone surrogate, a
    number beyond a double, a byte-order mark: json reads some of these and words its own
    errors), when what ``document_of`` makes of its record fails in any way (an integer beyond 64
    bits, which orjson reads as a float, can only fail: every value the readers keep is a string,
    an integer or null), and when the line opens more arrays and objects than half the recursion
    limit (json may refuse a nesting orjson reads; records with that many spans are read as
    before). Without ``fast``, every line is decoded by ``json`` (the tests compare the two).

    Examples
    --------
    >>> lines = [b'{"text": "Ana"}\\n', b'\\n', b'[1]\\n']
    >>> [(n, made) for n, _, made in line_documents(lines, "a.jsonl", lambda record, n: type(record).__name__)]
    [(1, 'dict'), (3, 'list')]
    >>> next(line_documents([b'{"text": }'], "a.jsonl", lambda record, n: record))
    Traceback (most recent call last):
    ...
    spanagree.errors.FormatError: a.jsonl:1: invalid JSON: Expecting value (column 10)
    """
    loads, decode_error, fast_loads = json.loads, json.JSONDecodeError, orjson.loads
    shallow = sys.getrecursionlimit() // 2 if fast else -1
    for raw in lines:
        lineno += 1
        try:
            line = raw.decode()
        except UnicodeDecodeError as error:
            raise FormatError(path, f"not UTF-8 (byte 0x{raw[error.start]:02x})", lineno) from None
        if line.isspace() or not line:
            continue
        made = _MISSING
        if raw.count(b"[") + raw.count(b"{") <= shallow:
            try:
                made = document_of(fast_loads(raw if raw[0] != 0xEF else line), lineno)  # 0xEF: a byte-order mark's first
            except Exception:  # json's record gives the outcome: the same error, or what orjson reads otherwise
                made = _MISSING
        if made is _MISSING:
            try:
                record = loads(line)
            except decode_error as error:
                raise _invalid_json(path, line, lineno, error) from None
            except ValueError:  # only the limit on integer digits, in Python 3.11+
                raise FormatError(path, f"a number of more than {_max_digits():,} digits (Python's limit on "
                                  "integers read from text)", lineno) from None
            except RecursionError:
                raise FormatError(path, f"nested deeper than Python's recursion limit "
                                  f"({sys.getrecursionlimit():,} levels, less what is already in use)",
                                  lineno) from None
            made = document_of(record, lineno)
        yield lineno, line, made


#: What :func:`_record_document` returns for a record answered reject or ignore.
_LEFT_OUT = object()


class Reading:
    """What one stream's records share beyond their lines: the doccano user it reads (``None``:
    every annotation), the label names (doccano's label list), and what it met and did not read:
    the records holding annotation-like lists under keys the reader does not know (key → count),
    and whether doccano label ids were read without their names."""

    __slots__ = ("user", "labels", "unread", "label_ids", "prodigy_relations")

    def __init__(self, user: str | None = None, labels: dict[str, str] | None = None):
        self.user, self.labels = user, labels
        self.unread: dict[str, int] = {}
        self.label_ids = False
        self.prodigy_relations = 0

    def notes(self) -> list[str]:
        found = [f'{count} record{"s" if count != 1 else ""} hold{"" if count != 1 else "s"} a list under "{key}" that '
                 "looks like annotations but is not read as spans (their spans are not counted: convert them to "
                 '"spans": [{"start", "end", "label"}])' for key, count in self.unread.items()]
        if self.prodigy_relations:
            found.append(_prodigy_relations(self.prodigy_relations))
        if self.label_ids:
            found.append("doccano labels read as their ids (give doccano's label list, --doccano-labels FILE, to read their "
                         "names)")
        return found


#: Keys of entries that make a list look like annotations (the safety net of :class:`Reading`).
_ANNOTATION_KEYS = frozenset({"start", "end", "start_offset", "end_offset", "begin", "offset", "startOffset",
                              "endOffset", "label", "labels"})


def _unread_lists(record: dict, reading: Reading) -> None:
    """Counts the record's lists of annotation-like entries that no known key holds."""
    for key, value in record.items():
        if (type(value) is list and value and type(value[0]) is dict and not _ANNOTATION_KEYS.isdisjoint(value[0])
                and key not in _SPAN_KEYS):
            reading.unread[key] = reading.unread.get(key, 0) + 1


def _record_document(record, path: str, lineno: int, split: bool, wanted: str | None, reading: Reading):
    """A decoded line's document; ``None`` for a record of another annotator (with ``split``),
    :data:`_LEFT_OUT` for one answered reject or ignore."""
    if type(record) is not dict:
        raise FormatError(path, f"expected a JSON object {{\"id\", \"text\", \"spans\"}}, "
                          f"got {type(record).__name__}", lineno)
    if split and annotator_of(record, path, lineno) != wanted:
        return None
    answer = record.get("answer")
    if answer is not None and type(answer) is not str:
        raise FormatError(path, f'"answer" must be a string ("accept", "reject" or "ignore"), got {_shown(answer)}',
                          lineno)
    if answer in NOT_ANNOTATIONS:
        return _LEFT_OUT
    return record_document(record, path, lineno, reading)


def _prodigy_relations(number: int) -> str:
    return f"{number} Prodigy relation{'s' if number != 1 else ''} (between tokens: \"head\", \"child\") not read"


def _left_out(left_out: int) -> str:
    return f"{left_out} record{'s' if left_out != 1 else ''} answered reject or ignore left out (Prodigy: not annotations)"


def _within(lines: Iterator[bytes], size: int) -> Iterator[bytes]:
    """The first of ``lines`` that make up ``size`` bytes."""
    while size > 0:
        raw = next(lines, b"")
        if not raw:
            return
        size -= len(raw)
        yield raw


@FORMAT.provides("part_notes")
def part_notes_jsonl(path, counts: dict, **options) -> tuple[list[str], list[str]]:
    """The notes and warnings reading the whole file gives at its end, from its parts' ``counts``
    added up (:class:`~spanagree.formats.FilePart`): the records answered reject or ignore, and
    Prodigy's token relations not read, a note each (no warning).

    Examples
    --------
    >>> part_notes_jsonl("a.jsonl", {"left_out": 3})
    (['3 records answered reject or ignore left out (Prodigy: not annotations)'], [])
    """
    left_out, relations = counts.get("left_out", 0), counts.get("prodigy_relations", 0)
    return ([_left_out(left_out)] if left_out else []) + ([_prodigy_relations(relations)] if relations else []), []


#: White space that may begin a blank line, as bytes.
_SPACE_BYTES = b" \t\r\n\x0b\x0c"


@FORMAT.provides("document_starts")
def document_starts_jsonl(path, *, chunk_bytes: int = _SCAN_BYTES) -> Iterator[tuple[int, int]]:
    """Where the records of a JSON-lines file begin, found in its bytes alone (nothing decoded or
    parsed): the byte offset of every line that is not blank and the lines before it, in order,
    as the scan finds them (a caller can act on the first records before the file is scanned to
    its end).

    The bytes from one offset to another (or to the file's end) are whole lines, a
    :class:`~spanagree.formats.FilePart` that :func:`stream_jsonl` can read on its own. Blank
    means ASCII white space here (the reader also skips lines of other white space, and leaves
    out records answered reject or ignore): the offsets are where documents may begin.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "a.jsonl"
    >>> _ = f.write_bytes(b'{"text": "a"}\\n\\n  \\n{"text": "b"}\\n')
    >>> list(document_starts_jsonl(f))
    [(0, 0), (18, 3)]

    The file is read ``chunk_bytes`` at a time (1 MiB: with chunks of 16 MiB, a chunk, the line
    begun before it and the two joined, the scan alone took the peak memory of ``score --jobs 2``
    on the 40,000-document benchmark files from 44 to 106 MB).
    """
    with open_file(os.fspath(path), "JSONL") as file:
        carry, base, number = b"", 0, 0  # the line begun before the chunk, its offset and number
        while True:
            chunk = file.read(chunk_bytes)
            data = carry + chunk
            cut = data.rfind(b"\n") + 1 if chunk else len(data)  # complete lines only (but at the end)
            at = 0
            while at < cut:
                end = data.find(b"\n", at, cut)
                end = cut if end < 0 else end
                if data[at] not in _SPACE_BYTES or data[at:end].strip(_SPACE_BYTES):
                    yield base + at, number
                number += 1
                at = end + 1
            carry, base = data[cut:], base + cut
            if not chunk:
                return


@FORMAT.provides("document_counter")
def jsonl_document_count(path) -> int | None:
    """The documents of a JSON-lines file counted without parsing it: its lines that are not
    blank (the progress bar's total); ``None`` for a path that is not a file."""
    if not os.path.isfile(path):
        return None
    with open(path, "rb") as handle:
        data = handle.read()
    return sum(1 for line in data.split(b"\n") if line.strip())


def _max_digits() -> int:
    get = getattr(sys, "get_int_max_str_digits", None)
    return get() if get is not None else 4300


def _check_characters(document: Document, path: str, lineno: int) -> None:
    """A lone surrogate (from a ``\\udxxx`` escape) in the text, the id or a label is an error:
    it is not a character, and no output (UTF-8) can hold it."""
    where = None
    if document.text is not None and _SURROGATE.search(document.text):
        where = '"text"', _SURROGATE.search(document.text)
    elif _SURROGATE.search(document.id):
        where = '"id"', _SURROGATE.search(document.id)
    else:
        for number, span in enumerate(document.spans, 1):
            found = _SURROGATE.search(span.label)
            if found:
                where = f"span {number}'s label", found
                break
            found = next(filter(None, (_SURROGATE.search(text) for pair in span.attributes for text in pair)), None)
            if found:
                where = f"span {number}'s attributes", found
                break
        else:
            for number, relation in enumerate(document.relations, 1):
                found = next(filter(None, (_SURROGATE.search(text) for text in
                                           (relation.type, *(role for role, _ in relation.arguments)))), None)
                if found:
                    where = f"relation {number}", found
                    break
    if where is not None:
        field, found = where
        raise FormatError(path, f"{field} holds a lone surrogate (\\u{ord(found.group()):04x} at character "
                          f"{found.start()}), which is not a character and cannot be written as UTF-8", lineno)


def _invalid_json(path: str, line: str, lineno: int, error: json.JSONDecodeError) -> FormatError:
    """The error for a line that is not JSON, as the line without its ``\\n`` gives it."""
    try:
        json.loads(line.removesuffix("\n"))
    except json.JSONDecodeError as own:
        error = own
    return FormatError(path, f"invalid JSON: {error.msg} (column {error.colno})", lineno)


def record_document(record: dict, path: str, lineno: int, reading: Reading | None = None) -> Document:
    """One record's document, every span checked; its spans share one :class:`Source`."""
    text = record.get("text", _MISSING)
    if text is _MISSING:
        raise FormatError(path, 'the record has no "text" (give null when the text is unknown)', lineno)
    if text is not None and type(text) is not str:
        raise FormatError(path, f'"text" must be a string or null, got {type(text).__name__}', lineno)
    doc_id = record.get("id")
    if doc_id is None:
        doc_id = record.get("_input_hash")  # Prodigy: the same input annotated by several
    if doc_id is None:
        doc_id = str(lineno)
    elif type(doc_id) is int:
        doc_id = str(doc_id)
    elif type(doc_id) is not str:
        raise FormatError(path, f'"id" must be a string or an integer, got {json.dumps(doc_id)[:40]}', lineno)

    source = Source.at(path, lineno)
    n = None if text is None else len(text)
    entries = record.get("spans")
    if entries is not None:
        spans = _spans(entries, doc_id, n, source, path, lineno)
    elif "entities" in record:
        entries = record["entities"]
        spans = _doccano_entities(entries, doc_id, n, source, path, lineno)
    elif "label" in record:
        spans = _doccano_labels(record["label"], doc_id, n, source, path, lineno)
    elif "annotations" in record and type(record["annotations"]) is list and reading is not None and (
            not record["annotations"] or type(record["annotations"][0]) is not dict
            or "start_offset" in record["annotations"][0]):
        spans = _doccano_annotations(record["annotations"], doc_id, n, source, path, lineno, reading)
    else:
        spans = []
        if reading is not None:
            _unread_lists(record, reading)
    given = record.get("relations")
    if given is None or not entries and not given:
        return Document(doc_id, text, spans, path)
    relations = _relations(given, entries, spans, source, path, lineno, reading)
    return Document(doc_id, text, spans, path, relations=relations)


def _relations(given, entries, spans: list[Span], source: Source, path: str, lineno: int,
               reading: Reading | None) -> list[Relation]:
    """A record's ``"relations"``: spanagree's ``{"type", "args": [{"role", "span"}, ...], "trigger"}``
    (a span by its index in the record's span list, or by its ``"id"``), or doccano's ``{"from_id",
    "to_id", "type"}`` (spans by their ``"id"``: ``Arg1`` → ``Arg2``). Prodigy's token relations
    (``"head"``, ``"child"``) are not read: counted in the notes."""
    if type(given) is not list:
        raise FormatError(path, f'"relations" must be a list, got {_shown(given)}', lineno)
    ids = None
    relations = []
    for number, entry in enumerate(given, 1):
        if type(entry) is not dict:
            raise FormatError(path, f'relation {number}: expected {{"type", "args"}}, got {_shown(entry)}', lineno)
        if "head" in entry and "child" in entry and "args" not in entry:  # Prodigy: tokens, not spans
            if reading is not None:
                reading.prodigy_relations += 1
            continue
        kind = entry.get("type")
        if type(kind) is not str or not kind:
            raise FormatError(path, f'relation {number}: "type" must be a non-empty string, got {_shown(kind)}',
                              lineno)
        if ids is None:
            ids = {}
            for index, span_entry in enumerate(entries if type(entries) is list else ()):
                if type(span_entry) is dict and type(span_entry.get("id")) in (str, int):
                    ids.setdefault(span_entry["id"], index)

        def span_of(reference, what: str) -> Span:
            index = reference if type(reference) is int and "from_id" not in entry else ids.get(reference)
            if type(reference) not in (int, str) or index is None or not 0 <= index < len(spans):
                raise FormatError(path, f"relation {number}: {what} names span {_shown(reference)}, which the "
                                  f"record does not have ({len(spans)} span{'s' if len(spans) != 1 else ''}"
                                  + (", by index from 0, or by id)" if "from_id" not in entry else ", by id)"),
                                  lineno)
            return spans[index]

        if "from_id" in entry and "args" not in entry:  # doccano
            arguments = (("Arg1", span_of(entry["from_id"], "from_id")), ("Arg2", span_of(entry.get("to_id"), "to_id")))
            relations.append(Relation(kind, arguments, None, source))
            continue
        args = entry.get("args")
        if type(args) is not list or not args:
            raise FormatError(path, f'relation {number}: "args" must be a non-empty list of {{"role", "span"}}, '
                              f"got {_shown(args)}", lineno)
        arguments = []
        for position, argument in enumerate(args, 1):
            role = argument.get("role") if type(argument) is dict else None
            if type(role) is not str or not role:
                raise FormatError(path, f'relation {number}: argument {position} must be {{"role": a non-empty '
                                  f'string, "span"}}, got {_shown(argument)}', lineno)
            arguments.append((role, span_of(argument.get("span"), f"argument {position}")))
        trigger = entry.get("trigger")
        trigger = None if trigger is None else span_of(trigger, "its trigger")
        relations.append(Relation(kind, tuple(arguments), trigger, source))
    return relations


#: The keys a record's spans are read from.
_SPAN_KEYS = frozenset({"spans", "entities", "label", "annotations"})


def _doccano_annotations(entries: list, doc_id: str, n: int | None, source: Source, path: str, lineno: int,
                         reading: Reading) -> list[Span]:
    """The spans of a doccano multi-user export's ``"annotations": [{"label", "start_offset",
    "end_offset", "user"}, ...]``: those of ``reading.user`` (every one when ``None``), each
    label an id read as its name when the label list is given."""
    spans = []
    for number, entry in enumerate(entries, 1):
        if type(entry) is not dict:
            raise FormatError(path, f'annotation {number}: expected {{"label", "start_offset", "end_offset", '
                              f'"user"}}, got {_shown(entry)}', lineno)
        if reading.user is not None and "user" in entry and _doccano_user(entry["user"], path, lineno) != reading.user:
            continue
        fragments = _fragment(entry.get("start_offset"), entry.get("end_offset"), n, path, lineno, number,
                              keys=("start_offset", "end_offset"))
        label = entry.get("label")
        if type(label) is int:
            if reading.labels is None:
                reading.label_ids = True
                label = str(label)
            elif str(label) not in reading.labels:
                raise FormatError(path, f"annotation {number}: label id {label} is not in doccano's label list",
                                  lineno)
            else:
                label = reading.labels[str(label)]
        spans.append(_trusted(doc_id, fragments, _label(label, path, lineno, number), source))
    return spans


def _spans(entries, doc_id: str, n: int | None, source: Source, path: str, lineno: int) -> list[Span]:
    """The spans of a record's ``"spans"``: ``[{"start", "end", "label"(, "fragments")}, ...]``.

    The loop every span of a large corpus goes through, so the common span (one fragment,
    inside the text) is checked inline and built by :meth:`Span.trusted`; anything else
    (discontinuous, or an error to report) goes through the full checks.
    """
    if type(entries) is not list:
        raise FormatError(path, f'"spans" must be a list, got {type(entries).__name__}', lineno)
    limit = sys.maxsize if n is None else n
    spans: list = []
    append = spans.append
    trusted = _trusted
    for entry in entries:
        try:  # a list, a string or a number as entry: TypeError; a key missing: KeyError
            start = entry["start"]
            end = entry["end"]
            label = entry["label"]
        except (KeyError, TypeError):
            pass
        else:
            if (type(start) is int and type(end) is int and 0 <= start < end <= limit
                    and type(label) is str and label and "fragments" not in entry and "attributes" not in entry
                    and "kb_id" not in entry):
                append(trusted(doc_id, ((start, end),), label, source))
                continue
        append(_span(entry, len(spans) + 1, doc_id, n, source, path, lineno))
    return spans


def _span(entry, number: int, doc_id: str, n: int | None, source: Source, path: str, lineno: int) -> Span:
    """One entry of ``"spans"`` with every check: a discontinuous span, or the error to report."""
    if type(entry) is not dict:
        raise FormatError(path, f'span {number}: expected {{"start", "end", "label"}}, '
                          f"got {_shown(entry)}", lineno)
    fragments = entry.get("fragments")
    start, end = entry.get("start"), entry.get("end")
    if fragments is None:
        fragments = _fragment(start, end, n, path, lineno, number)
    else:
        fragments = _fragments(fragments, start, end, n, path, lineno, number)
    attributes = _attributes(entry, path, lineno, number) if "attributes" in entry or "kb_id" in entry else ()
    return _trusted(doc_id, fragments, _label(entry.get("label"), path, lineno, number), source, attributes)


#: The largest magnitude of a number read exactly as an attribute's value by both decoders (orjson
#: reads a larger integer as a float).
_EXACT = 2 ** 63


def _attribute_value(value, path: str, lineno: int, where: str) -> str:
    """An attribute's value as text: a string as it is, ``true``/``false`` as ``"True"``/``"False"``
    (BRAT's flag), a number as Python writes it (``2``, ``0.5``), a list of those joined by ``|``."""
    kind = type(value)
    if kind is str:
        return value
    if kind is bool:
        return "True" if value else "False"
    if kind is int:
        return str(value)
    if kind is float:
        if value.is_integer() and abs(value) >= _EXACT:  # (orjson's reading of a long integer: json's decides)
            raise FormatError(path, f"{where}: the number {_shown(value)} is too large for an attribute's value "
                              "(write it as a string)", lineno)
        return repr(value)
    if kind is list and value and all(type(v) is not list for v in value):
        return "|".join(_attribute_value(v, path, lineno, where) for v in value)
    raise FormatError(path, f"{where}: an attribute's value is a string, a number, true, false or a list of them, "
                      f"got {_shown(value)}", lineno)


def _attributes(entry: dict, path: str, lineno: int, number: int) -> tuple[tuple[str, str], ...]:
    """A span entry's ``"kb_id"`` and ``"attributes"`` (an object: name → value) as the span's attributes."""
    where = f"span {number}"
    found = []
    if "kb_id" in entry and entry["kb_id"] not in (None, ""):  # (spaCy's none is "")
        found.append(("kb_id", _attribute_value(entry["kb_id"], path, lineno, f'{where}\'s "kb_id"')))
    given = entry.get("attributes")
    if given is not None:
        if type(given) is not dict:
            raise FormatError(path, f'{where}: "attributes" must be an object (name → value), got {_shown(given)}',
                              lineno)
        for key, value in given.items():
            if not key:
                raise FormatError(path, f"{where}: an attribute without a name", lineno)
            if key == "kb_id" and found:
                raise FormatError(path, f'{where}: "kb_id" given twice (beside "attributes" and in it)', lineno)
            found.append((key, _attribute_value(value, path, lineno, f"{where}'s attribute {key!r}")))
    return tuple(found)


def _doccano_entities(entries, doc_id: str, n: int | None, source: Source, path: str, lineno: int) -> list[Span]:
    """The spans of doccano's ``"entities": [{"start_offset", "end_offset", "label"}, ...]``."""
    if type(entries) is not list:
        raise FormatError(path, f'"entities" must be a list, got {type(entries).__name__}', lineno)
    spans = []
    for number, entry in enumerate(entries, 1):
        if type(entry) is not dict:
            raise FormatError(path, f'entity {number}: expected {{"start_offset", "end_offset", "label"}}, '
                              f"got {_shown(entry)}", lineno)
        fragments = _fragment(entry.get("start_offset"), entry.get("end_offset"), n, path, lineno, number,
                              keys=("start_offset", "end_offset"))
        spans.append(_trusted(doc_id, fragments, _label(entry.get("label"), path, lineno, number), source))
    return spans


def _doccano_labels(entries, doc_id: str, n: int | None, source: Source, path: str, lineno: int) -> list[Span]:
    """The spans of doccano's ``"label": [[start, end, label], ...]``."""
    if type(entries) is not list:
        raise FormatError(path, f'"label" must be a list of [start, end, label], got {_shown(entries)}', lineno)
    spans = []
    for number, entry in enumerate(entries, 1):
        if type(entry) is not list or len(entry) != 3:
            raise FormatError(path, f"label {number}: expected [start, end, label], got {_shown(entry)}", lineno)
        fragments = _fragment(entry[0], entry[1], n, path, lineno, number)
        spans.append(_trusted(doc_id, fragments, _label(entry[2], path, lineno, number), source))
    return spans


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


@FORMAT.provides("writer")
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
    write_documents(file_writer_jsonl(), spanset, dest)


@FORMAT.provides("file_writer")
def file_writer_jsonl() -> FileWriter:
    """:func:`write_jsonl`'s file: a line per document, nothing around them."""
    return FileWriter("", _jsonl_line)


def _jsonl_line(doc_id: str, document: Document) -> str:
    """One document's line of :func:`write_jsonl` (a UsageError naming it if it cannot be written)."""
    spans = []
    n = None if document.text is None else len(document.text)
    ordered = sorted(document.spans, key=Span.sort_key)
    for span in ordered:
        if n is not None and span.end > n:
            raise UsageError(f"document {doc_id!r}: span {span.fragments} {span.label} ends beyond its text "
                             f"({n} characters)")
        entry = {"start": span.fragments[0][0], "end": span.fragments[-1][1], "label": span.label}
        if len(span.fragments) > 1:
            entry["fragments"] = [[s, e] for s, e in span.fragments]
        if span.attributes:
            _write_attributes(entry, span.attributes)
        spans.append(entry)
    record = {"id": doc_id, "text": document.text, "spans": spans}
    if document.relations:
        relations = _written_relations(document.relations, ordered)
        if relations:
            record["relations"] = relations
    line = json.dumps(record, ensure_ascii=False)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError(f"document {doc_id!r}: {_unwritable(doc_id, document)} cannot be written as UTF-8 "
                         "(it holds a lone surrogate)") from None
    return line + "\n"


def _write_attributes(entry: dict, attributes: tuple[tuple[str, str], ...]) -> None:
    """A span's attributes into its entry: ``"kb_id"`` beside its label, the others in
    ``"attributes"`` in their order (the values of a name met twice joined by ``|``)."""
    others: dict[str, str] = {}
    for key, value in attributes:
        if key.startswith("#:"):
            continue  # notes: free text, never compared, left out (announced: Format.drops)
        others[key] = f"{others[key]}|{value}" if key in others else value
    kb_id = others.pop("kb_id", None)
    if kb_id is not None:
        entry["kb_id"] = kb_id
    if others:
        entry["attributes"] = others


def _written_relations(relations: list[Relation], ordered: list[Span]) -> list[dict]:
    """A document's relations as written, in canonical order (:meth:`~spanagree.span.Relation.sort_key`),
    each span by its index among the spans written; one naming a span the document does not hold
    is left out (:func:`~spanagree.formats.dropped` counts it)."""
    index: dict[Span, int] = {}
    for number, span in enumerate(ordered):
        index.setdefault(span, number)
    written = []
    for relation in sorted(relations, key=Relation.sort_key):
        if any(span not in index for span in relation.spans):
            continue
        entry = {"type": relation.type, "args": [{"role": role, "span": index[span]} for role, span in relation.arguments]}
        if relation.trigger is not None:
            entry["trigger"] = index[relation.trigger]
        written.append(entry)
    return written


def _unwritable(doc_id: str, document: Document) -> str:
    """Which part of a document holds a lone surrogate: its text, its id or a label."""
    if document.text is not None and _SURROGATE.search(document.text):
        return "its text"
    if _SURROGATE.search(doc_id):
        return "its id"
    return "a label"
