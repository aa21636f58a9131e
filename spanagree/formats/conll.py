"""CoNLL columns: one token per line, its tag in a column, sentences separated by blank lines.

Reading
-------
* Columns are separated by spaces and/or tabs (any number); ``\\r\\n`` line ends are accepted.
  The first column is the token; the tag column is the last one, or ``conll_column`` (counted
  from 1). Tags are decoded by :func:`spanagree.formats.schemes.tags_to_spans`: conlleval's lenient
  decoding by default, strict decoding with ``scheme=`` (dropped chunks are counted in a
  :class:`~spanagree.errors.SpanagreeWarning` and in the span set's notes).
* Files that name their columns (a header row, CoNLL-U), CoNLL-2012 files, and blocks holding
  comment lines are read a line at a time by :mod:`spanagree.formats.columns`, whose docstring
  gives those conventions; the rest of this one holds for them too.
* A line whose first column is ``-DOCSTART-`` begins a new document. Documents are numbered
  ``"1"``, ``"2"``, ... in file order, unless the line names its document (``-DOCSTART- X``:
  exactly one more field, not ``O``, ``-X-`` or a tag). Every ``-DOCSTART-`` line begins one, even when nothing but
  blank lines follows (an empty document, text ``""``), so that two files with the same
  ``-DOCSTART-`` lines have the same documents. Tokens before the first ``-DOCSTART-`` (or in a
  file without one) form a document of their own; blank lines before it do not. A file with
  neither a token nor a ``-DOCSTART-`` line is an error (empty file).
* The **text** of a document is its tokens joined by one space, its sentences joined by ``\\n``
  (no final newline). Spans are half-open character offsets into that text, from the start of
  their first token to the end of their last. The tokenisation is therefore recoverable from the
  text alone: ``[line.split(" ") for line in text.split("\\n")]`` (see :func:`token_offsets`);
  tokens never contain a space, tab or newline.
  Every document says so (``Document.tokens_from_text`` is true), so that comparisons by token
  (:func:`spanagree.texts.reconcile`, ``--chance``) know it comes with its tokens.
  Where a ``MISC`` column says a token has no space after it (CoNLL-U's ``SpaceAfter=No``), the
  text keeps the space and the document records it (``Document.unwritten_spaces``; see
  :mod:`spanagree.formats.columns`).
* Each span's source is the file and the line of its first token.
* Where the tag column says more than the spans do — an ``I-X`` that begins a chunk, another
  scheme's ``S-X`` or ``E-X``, a tag strict decoding dropped — the document keeps the tags as
  written (``Document.tags``: token index → tag; ``None`` for an IOB2 file with valid
  transitions), for token-level agreement over tags (``chance_categories="tag"``).
* :func:`stream_conll` is the reader: it reads the file in blocks of whole documents (cut before
  ``-DOCSTART-`` lines) as the documents are asked for, so that it never holds more than a block's
  documents; :func:`read_conll` collects it. Errors name the file's line; in a file with two, the
  first block holding one reports it.
* A document (its lines from one ``-DOCSTART-`` line to the next; the whole file when there is
  none) may take at most ``max_record_bytes`` bytes (64 MiB unless raised): endless input such
  as ``/dev/zero`` ends in that error, naming the line the document begins on.

Writing
-------
``write_conll`` writes, for each document in order, a line that begins and names it
(``-DOCSTART-<TAB>O`` for an id of digits, ``-DOCSTART-<TAB>ID``, or ``# newdoc id = ID`` for an id
that cannot be a ``-DOCSTART-`` field) and a blank line, then one ``token<TAB>tag`` line per token
and a blank line after each sentence. The text must be in the shape the reader produces (above),
and spans must cover whole tokens of one sentence, without nesting, crossing or gaps. Reading the
file back gives the same span set, but for ids of digits out of their order (the reader numbers
such documents by position).
"""

from __future__ import annotations

import os
import re
import warnings
from bisect import bisect_left
from collections import deque
from itertools import chain, repeat
from operator import add, itemgetter, sub
from pathlib import Path
from typing import BinaryIO, Iterator

from ..collector import collector_paused
from ..errors import FormatError, SpanagreeWarning, UsageError, find_stack_level, parameter
from .schemes import Scheme, TagError, get_scheme, spans_to_tags, tags_to_spans
from ..span import Document, Source, Span, SpanSet
from .files import is_pipe
from . import (MAX_RECORD_BYTES, DocumentStream, FilePart, FileWriter, collect, open_file, too_large,
               write_documents)
from .columns import Layout, comment_kind, docstart_name, plain_column, reading_layout, rich_documents
from .registry import FORMATS

#: This module's registry entry, on which it registers its functions.
FORMAT = FORMATS["conll"]

DOCSTART = "-DOCSTART-"


# Whitespace that str.split() would treat as a column separator but CoNLL does not (NBSP, ...):
# every character whose str.isspace() is true but " ", "\t", "\r" and "\n".
_OTHER_WHITESPACE = ("\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
                     "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
# Those of them an ASCII text can hold: the only ones to look for when ``str.isascii()`` says so.
_OTHER_ASCII_WHITESPACE = "".join(c for c in _OTHER_WHITESPACE if c.isascii())
_COLUMNS = re.compile(r"[ \t\r]+")

# Bytes read at a time (a block is cut at the last -DOCSTART- line in them, see _blocks). Small
# blocks keep a block's strings and spans in the processor's cache: on the 30 MB benchmark file,
# 32 KiB blocks read about 10% faster than 1 MiB ones and a third faster than 4 MiB ones.
_BLOCK_BYTES = 1 << 15
_DOCSTART_LINE = b"\n" + DOCSTART.encode()
_AFTER_DOCSTART = b" \t\r\n"
# Every byte but a separator and the newline: what bytes.translate deletes to leave a skeleton.
_ALL_BUT = {sep: bytes(b for b in range(256) if b not in (ord(sep), ord("\n"))) for sep in ("\t", " ")}
_ROWS_AT_ONCE = 1 << 16
_FIRST, _SECOND, _LABEL = itemgetter(0), itemgetter(1), itemgetter(2)
_SENTENCE_BREAKS = re.compile(" {2,}")
_HASH_LINES = re.compile(r"^#.*$", re.MULTILINE)
# A -DOCSTART- line with one more field (what may name a document: docstart_name says whether it does).
_NAMED_DOCSTART = re.compile(rb"^[ \t]*-DOCSTART-[ \t]+(?!(?:O|-X-)[ \t\r]*$)[^\s]+[ \t\r]*$", re.MULTILINE)


def token_offsets(text: str) -> list[list[tuple[int, int]]]:
    """The tokens of a CoNLL-shaped text as half-open character ranges, sentence by sentence.

    Examples
    --------
    >>> token_offsets("EU rejects German call\\n.")
    [[(0, 2), (3, 10), (11, 17), (18, 22)], [(23, 24)]]
    """
    sentences = []
    position = 0
    if text == "":
        return sentences
    for line in text.split("\n"):
        offsets = []
        for token in line.split(" "):
            offsets.append((position, position + len(token)))
            position += len(token) + 1
        sentences.append(offsets)
    return sentences


def read_conll(path, *, name: str | None = None, conll_column: int | None = None,
               scheme: str | None = None, conll_drop_hash_rows: bool = False,
               conll_tags_as_written: bool = True) -> SpanSet:
    """Read a CoNLL file (one annotator's tags) as a :class:`SpanSet` (:func:`stream_conll`, collected).

    Parameters
    ----------
    path : str or path
        A CoNLL file.
    name : str, optional
        The span set's name; default the file name without extension.
    conll_column : int, optional
        The tag column, counted from 1 (the token is column 1); default the last column.
    scheme : str, optional
        ``None``: conlleval's lenient decoding. ``"iob1"``, ``"iob2"``/``"bio"``, ``"ioe1"``,
        ``"ioe2"``/``"ioe"``, ``"bioes"``/``"iobes"``, ``"bilou"``, ``"io"``: strict decoding as
        seqeval ``mode="strict"``, invalid chunks dropped with a warning giving their number.
    conll_drop_hash_rows : bool
        Leave out every row whose token holds a ``#``, as the HIPE scorer reads its files (what
        ``score --pairing hipe`` reads with; a note counts them).
    conll_tags_as_written : bool
        Keep each document's tags where they differ from its spans' IOB2 (``Document.tags``, for
        token-level figures of the tags as written); ``False`` leaves them out.

    Raises
    ------
    FormatError
        Not UTF-8, an empty file, a line with too few columns, a bad tag (naming file and line).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "a.conll"
    >>> _ = f.write_text("EU B-ORG\\nrejects O\\nGerman B-MISC\\n\\nPeter B-PER\\nBlackburn I-PER\\n")
    >>> spans = read_conll(f)
    >>> spans.documents["1"].text
    'EU rejects German\\nPeter Blackburn'
    >>> [(s.start, s.end, s.label) for s in spans]
    [(0, 2, 'ORG'), (11, 17, 'MISC'), (18, 33, 'PER')]
    """
    return collect(stream_conll(path, name=name, conll_column=conll_column, scheme=scheme,
                                conll_drop_hash_rows=conll_drop_hash_rows,
                                conll_tags_as_written=conll_tags_as_written))


@FORMAT.provides("streamer")
def stream_conll(path, *, name: str | None = None, conll_column: int | None = None,
                 scheme: str | None = None, conll_drop_hash_rows: bool = False,
                 conll_tags_as_written: bool = True, max_record_bytes: int = MAX_RECORD_BYTES,
                 _block_bytes: int = _BLOCK_BYTES, part: FilePart | None = None) -> DocumentStream:
    """A CoNLL file's documents, read a block of whole documents at a time as the stream gets to them.

    The reader proper (:func:`read_conll` collects it; parameters as there). The options are
    checked and the file is opened when the stream is made: a bad ``conll_column`` or ``scheme``
    (:class:`~spanagree.errors.UsageError`), no such file, a folder or an unreadable file
    (:class:`~spanagree.errors.FormatError`) are errors at once. The file is then read in blocks
    of about ``_block_bytes`` bytes (32 KiB; tests make it tiny), each ending just before a
    ``-DOCSTART-`` line (:func:`_blocks`), so that every block holds whole documents and is read
    as a file of its own, its lines and documents numbered on from the blocks before it. An error
    (bytes that are not UTF-8, a line with too few columns, a bad tag) is raised when the stream
    gets to the block holding it, naming the file's line (so in a file with two errors, the first
    block holding one reports it; within a block, as in a file read whole, bytes that are not UTF-8
    come first, then a line with too few columns, then a bad tag). The stream holds one block's
    documents at a time; strict decoding's dropped chunks are counted over the whole file and
    given in one warning and one note when the documents are exhausted.

    ``conll_drop_hash_rows`` (set by ``score --pairing hipe``, no flag): every row whose token
    holds a ``#`` anywhere is left out before the tags are decoded, as the HIPE scorer reads its
    files (:func:`~spanagree.formats.columns.reading_layout`); a note counts them
    (:func:`part_notes_conll`). ``conll_tags_as_written=False`` (set by a run that makes no
    token-level figures of the tags as written, no flag): ``Document.tags`` is not kept (finding
    where the tags differ from the spans' IOB2 took about 0.1 s of 3 million tags).

    With ``part`` (a :class:`~spanagree.formats.FilePart`: bytes from one document's
    ``-DOCSTART-`` line to another's, see :func:`document_starts_conll`), only those bytes are
    read, as the whole file reads them (lines and documents numbered on from the part's
    ``lines_before`` and ``documents_before``); the end's empty-file error, warning and note are
    left to the caller, the dropped chunks added to ``part.counts["invalid"]``
    (:func:`part_notes_conll`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "a.conll"
    >>> _ = f.write_text("-DOCSTART- O\\n\\nEU B-ORG\\n\\n-DOCSTART- O\\n\\nPeter B-PER\\nBlackburn I-PER\\n")
    >>> stream = stream_conll(f)
    >>> [(d.id, d.text, [(s.start, s.end, s.label, s.source.line) for s in d.spans]) for d in stream.documents]
    [('1', 'EU', [(0, 2, 'ORG', 3)]), ('2', 'Peter Blackburn', [(0, 15, 'PER', 7)])]
    """
    scheme_ = get_scheme(scheme)
    column = plain_column(conll_column)
    path_str = str(path)
    open_file(path_str, "CoNLL").close()
    layout = reading_layout(path_str, conll_column, conll_drop_hash_rows)
    stream = DocumentStream(name if name is not None else Path(path).stem, "conll", iter(()))
    stream.documents = _read_documents(path_str, column, scheme_, stream.notes, _block_bytes,
                                       max_record_bytes, part, layout, conll_tags_as_written)
    return stream


def _read_documents(path: str, conll_column: int | None, scheme: Scheme, notes: list[str],
                    block_bytes: int, limit: int = MAX_RECORD_BYTES, part: FilePart | None = None,
                    layout: Layout | None = None, tags_as_written: bool = True) -> Iterator[Document]:
    """The file's documents in order, one block read at a time: the reader's loop.

    Each block is read whole with the collector paused (:func:`_block_documents`), then its
    documents are handed out one by one. At the end: the empty-file error when no block held a
    document, and strict decoding's count of dropped chunks over the file (one warning, one note);
    for a ``part`` of the file, its count of dropped chunks added to ``part.counts`` instead.
    """
    lines_before = documents_before = invalid = 0
    left_out: list[int] = []  # the lines of the rows left out (Layout.drop_hash_rows)
    if part is not None:
        lines_before, documents_before = part.lines_before, part.documents_before
    with open_file(path, "CoNLL") as file:
        blocks = _blocks(file if part is None else _Window(file, part.start, part.stop), block_bytes, limit)
        while True:
            try:
                block = next(blocks, None)
            except _TooLarge:
                raise too_large(path, "the document beginning here (up to the next -DOCSTART- line)", limit,
                                lines_before + 1) from None
            if block is None:
                break
            with collector_paused():
                documents, dropped = _block_documents(block, path, conll_column, scheme, lines_before,
                                                      documents_before, layout, left_out, tags_as_written)
            lines_before += block.count(b"\n")
            del block
            invalid += dropped
            documents_before += len(documents)
            while documents:
                yield documents.popleft()
    if part is not None:
        part.counts["invalid"] = part.counts.get("invalid", 0) + invalid
        if layout is not None and layout.drop_hash_rows:
            part.counts["hash_rows"] = part.counts.get("hash_rows", 0) + len(left_out)
        return
    if not documents_before:
        raise FormatError(path, "empty file: no token lines")
    if invalid:
        message = _dropped(path, invalid, scheme)
        notes.append(message)
        warnings.warn(message, SpanagreeWarning, stacklevel=find_stack_level())
    if left_out:
        notes.append(_hash_rows(path, len(left_out)))


def _hash_rows(path: str, count: int) -> str:
    """The note of ``count`` rows left out because their token holds a ``#`` (``conll_drop_hash_rows``)."""
    return (f"{path}: {count} row(s) whose token holds a '#' left out, as the HIPE scorer reads its files "
            "(--pairing hipe)")


def _dropped(path: str, invalid: int, scheme: Scheme) -> str:
    """The warning and note of ``invalid`` chunks dropped by strict decoding in the file ``path``."""
    return f"{path}: {invalid} invalid chunk{'s' if invalid != 1 else ''} dropped by strict {scheme.name} decoding"


@FORMAT.provides("part_notes")
def part_notes_conll(path, counts: dict, *, scheme: str | None = None, **options) -> tuple[list[str], list[str]]:
    """The notes and warnings reading the whole file gives at its end, from its parts' ``counts``
    added up (:class:`~spanagree.formats.FilePart`): strict decoding's dropped chunks, one note and
    one warning; the rows left out for a ``#`` in their token, one note.

    Examples
    --------
    >>> notes, warned = part_notes_conll("a.conll", {"invalid": 2}, scheme="bio")
    >>> notes == warned == ['a.conll: 2 invalid chunks dropped by strict iob2 decoding']
    True
    >>> part_notes_conll("a.conll", {"invalid": 0})
    ([], [])
    >>> part_notes_conll("a.tsv", {"invalid": 0, "hash_rows": 44}, conll_drop_hash_rows=True)[0]
    ["a.tsv: 44 row(s) whose token holds a '#' left out, as the HIPE scorer reads its files (--pairing hipe)"]
    """
    invalid, hash_rows = counts.get("invalid", 0), counts.get("hash_rows", 0)
    notes, warned = [], []
    if invalid:
        message = _dropped(str(path), invalid, get_scheme(scheme))
        notes.append(message)
        warned.append(message)
    if hash_rows:
        notes.append(_hash_rows(str(path), hash_rows))
    return notes, warned


#: The bytes read at a time by :func:`document_starts_conll` (the scan's memory: a chunk and the
#: bytes kept from the one before it, which larger chunks do not make faster).
_SCAN_BYTES = 1 << 20
_BLANK_BYTES = b" \t\r\n"


@FORMAT.provides("document_starts")
def document_starts_conll(path, *, chunk_bytes: int = _SCAN_BYTES) -> Iterator[tuple[int, int]]:
    """Where the documents of a CoNLL file begin, found in its bytes alone (nothing decoded or
    parsed): each document's byte offset and the lines before it, in order, as the scan finds
    them (a caller can act on the first documents before the file is scanned to its end). The
    file is read ``chunk_bytes`` at a time.

    A document begins at every line that begins with ``-DOCSTART-`` followed by a space, tab,
    ``\\r`` or ``\\n`` (where the reader cuts its blocks: :func:`_blocks`), and at byte 0 when
    the file has something other than blank lines before the first such line. The bytes from one
    offset to another (or to the file's end) are whole documents, a
    :class:`~spanagree.formats.FilePart` that :func:`stream_conll` can read on its own. The reader
    may count otherwise in odd files (a ``-DOCSTART-`` line indented, or last and without a line
    end; tokens of other white space before the first): a caller that numbers the documents of a
    part from these offsets checks what the reader read.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "a.conll"
    >>> _ = f.write_bytes(b"EU B-ORG\\n\\n-DOCSTART- O\\nPeter B-PER\\n-DOCSTART-x O\\n-DOCSTART-\\n")
    >>> list(document_starts_conll(f))
    [(0, 0), (10, 2), (49, 5)]
    """
    marker = _DOCSTART_LINE
    first = True  # before the first -DOCSTART- line: is there something (a document) before it?
    with open_file(str(path), "CoNLL") as file:
        data, base = b"\n", -1  # the file read so far from offset ``base``, after a virtual "\n"
        newlines, counted = -1, 0  # newlines in the file before data[counted] (the virtual one counts -1)
        while True:
            chunk = file.read(chunk_bytes)
            data += chunk
            end = len(data) - len(marker) if chunk else len(data)  # matches whose next byte is read
            at = data.find(marker)
            while 0 <= at < end:
                follows = at + len(marker)
                if follows < len(data) and data[follows] in _AFTER_DOCSTART:
                    newlines += data.count(b"\n", counted, at + 1)
                    counted = at + 1
                    if first:
                        first = False
                        if base + at + 1 and _tokens_before(path, base + at + 1, chunk_bytes):
                            yield 0, 0
                    yield base + at + 1, newlines
                at = data.find(marker, at + 1)
            if not chunk:
                break
            keep = max(0, end)
            if keep > counted:
                newlines += data.count(b"\n", counted, keep)
                counted = keep
            data, base, counted = data[keep:], base + keep, counted - keep
    if first and _tokens_before(path, float("inf"), chunk_bytes):  # no -DOCSTART- line: one document
        yield 0, 0


@FORMAT.provides("document_counter")
def conll_document_count(path) -> int | None:
    """The documents of a CoNLL file counted without parsing it: its ``-DOCSTART-`` lines, at
    least one (the progress bar's total); ``None`` for a path that is not a file."""
    if not os.path.isfile(path):
        return None
    with open(path, "rb") as handle:
        data = handle.read()
    return max(data.count(b"-DOCSTART-"), 1)


@FORMAT.provides("document_names")
def docstart_ids(path, known: set[str]) -> list[str] | None:
    """The gold ids a CoNLL file's ``-DOCSTART-`` lines carry, one per line in order (the first of
    a line's other fields that is a known id), or ``None`` when some line names none."""
    if is_pipe(path):
        return None  # (its bytes are the reader's: they cannot be read twice)
    found = []
    with open(path, "rb") as handle:
        for raw in handle:
            if not raw.startswith(b"-DOCSTART-"):
                continue
            fields = raw.decode("utf-8", "replace").split()[1:]
            named = next((field for field in fields if field in known), None)
            if named is None:
                return None
            found.append(named)
    return found or None


def _tokens_before(path, stop: float, chunk_bytes: int) -> bool:
    """Whether the file has something other than blank lines before byte ``stop``."""
    with open_file(str(path), "CoNLL") as file:
        left = stop
        while left > 0:
            chunk = file.read(int(min(left, chunk_bytes)))
            if not chunk:
                return False
            if chunk.translate(None, _BLANK_BYTES):
                return True
            left -= len(chunk)
    return False


class _Window:
    """The bytes ``[start, stop)`` of a file open for reading bytes, read as a file of their own."""

    def __init__(self, file: BinaryIO, start: int, stop: int):
        file.seek(start)
        self.file, self.left = file, max(0, stop - start)

    def read(self, size: int) -> bytes:
        data = self.file.read(min(size, self.left))
        self.left -= len(data)
        return data


class _TooLarge(Exception):
    """A document beyond the reader's ``max_record_bytes`` (:func:`_blocks` to its caller)."""


def _blocks(file: BinaryIO, size: int, limit: int = MAX_RECORD_BYTES) -> Iterator[bytes]:
    """The file's bytes in blocks of whole documents: each ends just before a ``-DOCSTART-`` line.

    ``size`` bytes are read at a time, and a block ends before the last line in what was read
    that begins with ``-DOCSTART-`` and a space, tab, ``\\r`` or ``\\n``: a line whose first column
    is ``-DOCSTART-`` on every path of the reader, so a document's first line. When what was read
    holds none, more is read and appended: a document larger than ``size`` is one block, a file
    without ``-DOCSTART-`` is one block. Each block but the last ends with ``\\n``, so the blocks'
    lines are the file's lines (a cut never splits a ``\\r\\n``, nor a UTF-8 character, whose
    bytes are never ``\\n``); each block but the first begins with a ``-DOCSTART-`` line.
    What is pending (the last document, not yet ended) growing beyond ``limit`` bytes raises
    :class:`_TooLarge`, so that memory stays bounded on endless input.
    """
    pending = bytearray()
    while True:
        data = file.read(size)
        searched = max(0, len(pending) - len(_DOCSTART_LINE))  # before: none, or one cut short
        pending += data
        cut = _last_document_start(pending, searched) if data else len(pending)
        if cut:
            yield bytes(pending[:cut])
            del pending[:cut]
        if not data:
            return
        if len(pending) > limit:
            raise _TooLarge


def _last_document_start(data: bytearray, start: int) -> int:
    """Where the last line in ``data[start:]`` that surely begins a document begins, or 0 if none.

    A line beginning with ``-DOCSTART-`` followed by a space, tab, ``\\r`` or ``\\n`` (one whose
    next byte is not read yet does not count); the first line of ``data`` is never taken.
    """
    end = len(data)
    while True:
        at = data.rfind(_DOCSTART_LINE, start, end)
        if at < 0:
            return 0
        follows = at + len(_DOCSTART_LINE)
        if follows < len(data) and data[follows] in _AFTER_DOCSTART:
            return at + 1
        end = follows - 1  # the next match must begin before this one


def _block_documents(block: bytes, path: str, conll_column: int | None, scheme: Scheme, lines_before: int,
                     documents_before: int, layout: Layout | None = None,
                     left_out: list[int] | None = None, tags_as_written: bool = True) -> tuple[deque[Document], int]:
    """One block's documents and the number of chunks strict decoding dropped in it.

    The block is read as a file of its own (decoded, split into columns, its tags decoded, cut
    into documents), its line numbers (in span sources and errors) counted on from
    ``lines_before`` and its documents numbered on from ``documents_before``. A file with a
    layout (:func:`~spanagree.formats.columns.layout_of`), and a block of a plain file holding
    comments or ``-DOCSTART-`` lines that name documents, are read a line at a time
    (:func:`~spanagree.formats.columns.rich_documents`).
    """
    try:
        text = block.decode("utf-8")
    except UnicodeDecodeError as error:
        line = lines_before + block.count(b"\n", 0, error.start) + 1
        raise FormatError(path, f"not UTF-8 (byte 0x{block[error.start]:02x})", line) from None
    if layout is None and _has_comments(text):
        layout = Layout(tags=None if conll_column is None else (conll_column - 1,))
    if layout is not None:
        documents, invalid = rich_documents(text, path, layout, scheme, lines_before, documents_before, left_out)
        return deque(documents), invalid
    tokens, tags, docstarts = _columns(text, block, path, conll_column, lines_before)
    del text
    try:
        chunks, invalid = tags_to_spans(tags, scheme)
    except TagError as error:
        raise FormatError(path, error.message,
                          None if error.index is None else lines_before + error.index + 1) from None
    written = _written_tags(tags, chunks) if tags_as_written else None
    del tags
    names = _docstart_names(block, docstarts) if _names_a_document(block) else None
    return _documents(tokens, docstarts, chunks, path, lines_before, documents_before, names, written), invalid


def _names_a_document(block: bytes) -> bool:
    """Whether a ``-DOCSTART-`` line of a block may name a document (:data:`_NAMED_DOCSTART`),
    tried at each ``-DOCSTART-`` found with ``find`` (the multiline pattern's ``search`` scanned
    every line: 1.7 s of the benchmark's 60 MB)."""
    at = block.find(b"-DOCSTART-")
    while at >= 0:
        if _NAMED_DOCSTART.match(block, block.rfind(b"\n", 0, at) + 1):
            return True
        at = block.find(b"-DOCSTART-", at + 10)
    return False


def _has_comments(text: str) -> bool:
    """Whether a block of a plain file has a comment line (``# key = value``, ``#begin document``):
    then it is read a line at a time (:mod:`spanagree.formats.columns`)."""
    return "#" in text and any(comment_kind(found.group().rstrip("\r"), False) is not None
                               for found in _HASH_LINES.finditer(text))


def _docstart_names(block: bytes, docstarts: list[int]) -> list[str | None]:
    """The name each ``-DOCSTART-`` line of a block gives its document
    (:func:`~spanagree.formats.columns.docstart_name`), ``None`` for one that names none."""
    lines = block.split(b"\n")
    return [docstart_name(_split_columns(lines[index].decode("utf-8"))) for index in docstarts]


def _written_tags(tags: list[str], chunks: list[tuple[int, int, str]]) -> dict[int, str]:
    """The lines whose tag as written is not the IOB2 tag of the decoded chunks (an ``I-X``
    that begins a chunk, another scheme's ``S-X`` or ``E-X``, a tag strict decoding dropped):
    line index → tag. Empty for an IOB2 file with valid transitions (one list comparison).

    Examples
    --------
    >>> _written_tags(["B-PER", "I-PER", "O", "I-LOC"], [(0, 2, "PER"), (3, 4, "LOC")])
    {3: 'I-LOC'}
    """
    derived = ["O"] * len(tags)
    begin: dict[str, str] = {}
    inside: dict[str, str] = {}
    for first, stop, label in chunks:
        tag = begin.get(label)
        if tag is None:  # (each label's two tags made once)
            tag = begin[label] = "B-" + label
            inside[label] = "I-" + label
        derived[first] = tag
        if stop - first > 1:
            derived[first + 1:stop] = [inside[label]] * (stop - first - 1)
    if derived == tags:
        return {}
    return {line: tag for line, (tag, own) in enumerate(zip(tags, derived)) if tag != own}


def _columns(text: str, raw: bytes, path: str, conll_column: int | None,
             lines_before: int = 0) -> tuple[list[str], list[str], list[int]]:
    """One token and one tag per line of a block (index = line - 1 - ``lines_before``).

    ``raw`` is the block's bytes, ``text`` their decoding. Blank lines and ``-DOCSTART-`` lines
    get the token ``""`` and the tag ``"O"``, which ends any chunk: the decoder can run over the
    whole block at once. Returns the tokens, the tags and the indices of the ``-DOCSTART-``
    lines. A regular block (the same number of columns on every line, one separator) is split by
    whole-text string operations (:func:`_columns_fast`); any other by list comprehensions over
    runs of lines (no per-line regex or branch, bounded memory for the split columns), which also
    report the errors.
    """
    other_space = any(character in text
                      for character in (_OTHER_ASCII_WHITESPACE if text.isascii() else _OTHER_WHITESPACE))
    fast = None if other_space else _columns_fast(text, raw, conll_column)
    if fast is not None:
        tokens, tags = fast
        return tokens, tags, _docstart_lines(text, "\t" if "\t" in text else " ", tokens, tags)
    split = _split_columns if other_space else str.split
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    need = 2 if conll_column is None else conll_column
    column = -1 if conll_column is None else conll_column - 1
    tokens: list[str] = []
    tags: list[str] = []
    rows: list[list[str]] = []
    for begin in range(0, len(lines), _ROWS_AT_ONCE):
        rows = [split(line) for line in lines[begin:begin + _ROWS_AT_ONCE]]
        tokens += [row[0] if row else "" for row in rows]
        try:
            tags += [row[column] if row else "O" for row in rows]
            if conll_column is None:  # IndexError if a line has one column
                deque(map(_SECOND, filter(None, rows)), maxlen=0)
        except IndexError:
            # A line with too few columns; fine only for a -DOCSTART- line.
            for index, row in enumerate(rows, lines_before + begin + 1):
                if row and len(row) < need and row[0] != DOCSTART:
                    if conll_column is None:
                        raise FormatError(path, f"expected a token and a tag, got one column {row[0]!r}", index)
                    raise FormatError(path, f"expected at least {need} columns ({{column}}), got {len(row)}", index,
                                      column=parameter("conll_column", conll_column))
            if len(tags) < len(tokens):
                tags += [row[column] if len(row) >= need else "O" for row in rows]
    del rows, lines
    return tokens, tags, _docstarts(tokens, tags)


def _docstarts(tokens: list[str], tags: list[str]) -> list[int]:
    """The indices of the ``-DOCSTART-`` lines, made blank (token ``""``, tag ``"O"``) in place."""
    docstarts = []
    if DOCSTART in tokens:
        index = tokens.index(DOCSTART)
        while True:
            docstarts.append(index)
            tokens[index], tags[index] = "", "O"
            try:
                index = tokens.index(DOCSTART, index + 1)
            except ValueError:
                break
    return docstarts


def _docstart_lines(text: str, sep: str, tokens: list[str], tags: list[str]) -> list[int]:
    """:func:`_docstarts` of a regular block (:func:`_columns_fast`'s, columns split by ``sep``),
    found in its text: a line's first column is ``-DOCSTART-`` when the line begins with
    ``-DOCSTART-`` and the separator (every column of such a block is non-empty and ends at a
    separator or at the line's end, where a line of one column cannot be), and the line's index
    is the number of newlines before it. A few searches over the text instead of a comparison
    per token."""
    head = DOCSTART + sep
    marker = "\n" + head
    docstarts = [0] if text.startswith(head) else []
    line = searched = 0
    at = text.find(marker)
    while at >= 0:
        line += text.count("\n", searched, at + 1)
        searched = at + 1
        docstarts.append(line)
        at = text.find(marker, searched)
    for index in docstarts:
        tokens[index], tags[index] = "", "O"
    return docstarts


def _columns_fast(text: str, raw: bytes, conll_column: int | None) -> tuple[list[str], list[str]] | None:
    """The tokens and tags of :func:`_columns` for a regular block, or ``None`` when it is not one.

    Regular: one separator ``sep`` throughout (a tab, or else a space, never both), every line
    either empty or the same number ``k`` of columns separated by exactly one separator
    (``\\r\\n`` line ends allowed), and the tag column among them. Such a block is split with a
    handful of C-level string operations instead of one ``split`` per line: each empty line is
    first filled with ``k`` columns (the *filler*: token ``""``, tag ``"O"``, ``k - 1`` empty
    columns), then all newlines become separators, so that one ``split`` gives the columns of
    every line in a row and slices pick the token and tag columns. Anything else goes down the
    general path, which also reports errors.

    The shape is checked by three exact counts, where no line can make up for another. Let the
    text (``\\r\\n`` made ``\\n``, one final ``\\n`` dropped) have ``n`` lines, line ``i`` holding
    ``m_i`` separators; its only whitespace is ``sep`` and ``\\n`` (the caller sends other
    whitespace down the general path, and so does this function a ``\\r`` outside ``\\r\\n`` or
    a tab and a space). ``k`` is one more than the first non-empty line's ``m_i``.

    1. *Every* ``m_i`` *is 0 or* ``k - 1``. The block's *skeleton* (its bytes less all but
       ``sep`` and ``\\n``; no byte of a UTF-8 character is either) has the same lines, each
       reduced to its ``m_i`` separators. The lines beginning with ``k - 1`` separators, ``c`` of
       them, are those with ``m_i >= k - 1``, so there are at least ``(k - 1) c`` separators,
       exactly that many iff those lines hold ``k - 1`` and no other line holds any.
    2. *Every line has* ``k`` *columns.* ``B`` empty lines are filled (``B``: the length the
       fillers added over the filler's). By 1., splitting the filled text (newlines made
       separators) gives ``k n - (k - 1) z`` columns, where ``z`` counts the lines left with no
       separator: non-empty lines of one column, and empty lines not filled. As ``k >= 2``, there
       are ``k n`` columns iff ``z = 0``.
    3. *No non-empty line has an empty column* (a leading, trailing or doubled separator). The
       fillers give ``(k - 1) B`` empty columns, so there are that many iff no other one is empty.

    So each non-empty line is ``k`` non-empty columns split by single separators, which are its
    ``str.split()`` (its whitespace is ``sep`` only), and each line gives ``k`` consecutive items
    of the split: ``columns[0::k]`` are the general path's tokens, ``columns[column::k]`` its tags.
    How the empty lines are filled is therefore only a matter of speed: one ``replace`` fills
    them all unless two follow each other (then it fills every other one, and it is repeated).
    """
    if "\r" in text:
        if text.count("\r") != text.count("\r\n"):
            return None
        text = text.replace("\r\n", "\n")
    if text.endswith("\n"):
        text = text[:-1]  # as the general path, which drops the empty string after the last newline
    if "\t" in text:
        if " " in text:
            return None
        sep = "\t"
    else:
        sep = " "
    body = text.lstrip("\n")
    if not body:
        return None
    k = body.partition("\n")[0].count(sep) + 1
    column = k - 1 if conll_column is None else conll_column - 1
    if k < 2 or column >= k:
        return None
    skeleton = raw.translate(None, _ALL_BUT[sep])
    separators = sep.encode() * (k - 1)
    full_lines = skeleton.count(b"\n" + separators) + skeleton.startswith(separators)
    if skeleton.count(separators[:1]) != (k - 1) * full_lines:
        return None
    lines = skeleton.count(b"\n") + 1 - raw.endswith(b"\n")  # the text's newlines are the block's
    filler = sep.join(["O" if i == column else "" for i in range(k)])
    filled = text.replace("\n\n", f"\n{filler}\n")
    if ((len(filled) - len(text)) // len(filler) + filled.startswith("\n") + filled.endswith("\n")
            < lines - full_lines):  # some empty lines follow each other
        while "\n\n" in filled:
            filled = filled.replace("\n\n", f"\n{filler}\n")
    if filled.startswith("\n"):
        filled = filler + filled
    if filled.endswith("\n"):
        filled = filled + filler
    filled_lines = (len(filled) - len(text)) // len(filler)
    del text
    columns = filled.replace("\n", sep).split(sep)
    del filled
    if len(columns) != k * lines or columns.count("") != (k - 1) * filled_lines:
        return None
    return columns[0::k], columns[column::k]


def _split_columns(line: str) -> list[str]:
    """Columns split on spaces and tabs only (slow path, for files with other whitespace)."""
    line = line.strip(" \t\r")
    return _COLUMNS.split(line) if line else []


def _documents(tokens: list[str], docstarts: list[int], chunks: list[tuple[int, int, str]], path: str,
               lines_before: int, documents_before: int, names: list[str | None] | None = None,
               written: dict[int, str] | None = None) -> deque[Document]:
    """A block's documents: cut at its ``-DOCSTART-`` lines, their texts built, the chunks placed in them.

    Tokens before the first ``-DOCSTART-`` (only the first block can have any) form a document
    only when there are some; every ``-DOCSTART-`` begins one, even an empty one. Documents are
    numbered on from ``documents_before``, or named by ``names`` (one per ``-DOCSTART-`` line, ``None``
    for one that names none); span sources count lines on from ``lines_before``.
    ``written`` (:func:`_written_tags`) gives each document its ``tags``: token index → the tag
    as written, where it is not the IOB2 tag of the document's spans.
    """
    n = len(tokens)
    # Document boundaries: [begin, end) line indices.
    bounds = []
    if docstarts:
        if any(tokens[:docstarts[0]]):
            bounds.append((0, docstarts[0]))
    elif any(tokens):
        bounds.append((0, n))
    bounds.extend(zip([start + 1 for start in docstarts], docstarts[1:] + [n]))
    ids = [str(number) for number in range(documents_before + 1, documents_before + len(bounds) + 1)]
    if names is not None:  # -DOCSTART- X lines: the documents they begin take their names
        own = len(bounds) - len(docstarts)  # a document before the first -DOCSTART- line
        ids[own:] = [name if name is not None else number for name, number in zip(names, ids[own:])]
    # Tokens never hold a space, so two or more spaces in a row come from blank lines (one blank
    # line: exactly two, replaced without a regular expression).
    texts = [" ".join(tokens[begin:end]).strip(" ") for begin, end in bounds]
    texts = [text.replace("  ", "\n") if "   " not in text else _SENTENCE_BREAKS.sub("\n", text) for text in texts]

    # Chunks never hold a blank or -DOCSTART- line (tag "O"): each lies in one document, and
    # those of document d are chunks[cuts[d - 1]:cuts[d]].
    firsts = list(map(_FIRST, chunks))
    cuts = [bisect_left(firsts, end) for _, end in bounds]
    starts, ends = _chunk_offsets(tokens, chunks, bounds, cuts)
    spans = _spans(path, chain.from_iterable(map(repeat, ids, map(sub, cuts, [0] + cuts[:-1]))), starts, ends,
                   map(_LABEL, chunks), map(add, firsts, repeat(lines_before + 1)))
    return deque(map(Document, ids, texts, map(spans.__getitem__, map(slice, [0] + cuts[:-1], cuts)), repeat(path),
                     repeat(True),  # tokens_from_text: the text is the tokens joined by spaces and newlines
                     _documents_tags(tokens, bounds, written) if written else repeat(None)))


def _documents_tags(tokens: list[str], bounds: list[tuple[int, int]], written: dict[int, str]) -> list:
    """Per document (its lines ``[begin, end)``), the tags as written that ``written`` holds
    (line → tag) as token index → tag, or ``None``; lines that hold no token are left out."""
    lines = sorted(written)
    found = []
    for begin, end in bounds:
        own = lines[bisect_left(lines, begin):bisect_left(lines, end)]
        if not own:
            found.append(None)
            continue
        index, at, tags = 0, begin, {}
        for line in own:
            index += (line - at) - tokens[at:line].count("")
            at = line
            if tokens[line]:
                tags[index] = written[line]
        found.append(tags or None)
    return found


def _chunk_offsets(tokens: list[str], chunks: list[tuple[int, int, str]], bounds: list[tuple[int, int]],
                   cuts: list[int]) -> tuple[list[int], list[int]]:
    """Each chunk's start and end as character offsets into its document's text (half-open).

    Offsets count from the start of the document: each non-empty token adds its length and one
    separator (a space, or the newline ending its sentence); blank lines, whose token is ``""``,
    add nothing. They are summed slice by slice between chunks, at C speed (the length of a
    slice's tokens joined, which is quicker than summing their lengths).
    """
    join, spaced = "".join, " ".join
    starts: list[int] = []
    ends: list[int] = []
    add_start, add_end = starts.append, ends.append
    low = 0
    for (at, _), high in zip(bounds, cuts):
        position = 0  # the offset of token `at`
        for first, stop, _ in chunks[low:high]:
            piece = tokens[at:first]
            position += len(join(piece)) + len(piece) - piece.count("")
            add_start(position)
            position += len(spaced(tokens[first:stop])) + 1
            add_end(position - 1)
            at = stop
        low = high
    return starts, ends


def _spans(path: str, doc_ids, starts, ends, labels, lines) -> list[Span]:
    """``Span.trusted(doc_id, ((start, end),), label, Source.at(path, line))`` for each item of the
    iterables (no checks: the reader's offsets are valid)."""
    return list(map(Span.trusted, doc_ids, zip(zip(starts, ends)), labels, map(Source.at, repeat(path), lines)))


@FORMAT.provides("writer")
def write_conll(spanset: SpanSet, dest, *, scheme: str = "iob2") -> None:
    """Write a span set as a two-column CoNLL file (``token<TAB>tag``).

    Parameters
    ----------
    spanset : SpanSet
        Every document needs a text in CoNLL shape (tokens joined by single spaces, sentences by
        ``\\n``) and spans that cover whole tokens of one sentence, one fragment each, without
        nesting or crossing.
    dest : str or path
        The file to write (overwritten; the caller decides whether that is allowed).
    scheme : str
        ``"iob2"`` (default), ``"iob1"``, ``"ioe1"``, ``"ioe2"``, ``"bioes"``, ``"bilou"``, ``"io"``.

    Raises
    ------
    UsageError
        Naming the document: no text, a text not in CoNLL shape, a span off token boundaries,
        across sentences, discontinuous, nested or crossing another, or not writable in ``scheme``.
    """
    write_documents(file_writer_conll(scheme), spanset, dest)


@FORMAT.provides("file_writer")
def file_writer_conll(scheme: str | None = "iob2") -> FileWriter:
    """:func:`write_conll`'s file: each document a ``-DOCSTART-<TAB>O`` line, a blank line and its sentences."""
    if scheme is None:
        scheme = "iob2"
    scheme_ = get_scheme(scheme)
    if not scheme_.strict:
        raise UsageError("the CoNLL writer needs a tag scheme (iob2, bioes, ...)")

    def document_text(doc_id: str, document: Document) -> str:
        return _document_start(doc_id) + "".join(_document_lines(doc_id, document, scheme_))

    return FileWriter("", document_text)


def _document_start(doc_id: str) -> str:
    """The lines that begin a document and name it, then a blank line: ``-DOCSTART-<TAB>O`` for
    an id of digits (the reader numbers documents), ``-DOCSTART-<TAB>ID`` for an id the reader
    takes as the line's name, else ``# newdoc id = ID``.

    Examples
    --------
    >>> _document_start("3"), _document_start("clinic-01"), _document_start("bn/cnr_0001; part 000")
    ('-DOCSTART-\\tO\\n\\n', '-DOCSTART-\\tclinic-01\\n\\n', '# newdoc id = bn/cnr_0001; part 000\\n\\n')
    """
    if doc_id.isdigit():
        return f"{DOCSTART}\tO\n\n"
    if doc_id.split() == [doc_id] and docstart_name([DOCSTART, doc_id]) == doc_id:
        return f"{DOCSTART}\t{doc_id}\n\n"
    if "\n" in doc_id or "\r" in doc_id or doc_id != doc_id.strip():
        raise UsageError(f"document {doc_id!r}: CoNLL cannot write an id with a line break or spaces around it")
    return f"# newdoc id = {doc_id}\n\n"


def _document_lines(doc_id: str, document: Document, scheme) -> list[str]:
    text = document.text
    if text is None:
        raise UsageError(f"document {doc_id!r} has no text; CoNLL is written from texts")
    if "\t" in text or "\r" in text:
        raise UsageError(f"document {doc_id!r}: its text has a tab or carriage return, so it is not in CoNLL shape")
    sentences = [line.split(" ") for line in text.split("\n")] if text else []
    for number, words in enumerate(sentences, 1):
        if "" in words:
            raise UsageError(f"document {doc_id!r}: sentence {number} has an empty token (an empty line, "
                             "or a double, leading or trailing space), so its text is not in CoNLL shape")
        if words[0] == DOCSTART:
            raise UsageError(f"document {doc_id!r}: sentence {number} starts with {DOCSTART}, "
                             "which CoNLL reads as a new document")
    # Token boundaries: start offset -> (sentence, token), end offset -> (sentence, token).
    starts, ends = {}, {}
    position = 0
    for s, words in enumerate(sentences):
        for t, word in enumerate(words):
            starts[position] = (s, t)
            ends[position + len(word)] = (s, t)
            position += len(word) + 1
    chunks: list[list[tuple[int, int, str]]] = [[] for _ in sentences]
    previous = None
    for span in sorted(document.spans, key=Span.sort_key):
        if span.is_discontinuous:
            raise UsageError(f"document {doc_id!r}: span {_show(span, text)} is discontinuous; CoNLL cannot write it")
        first, last = starts.get(span.start), ends.get(span.end)
        if first is None or last is None:
            raise UsageError(f"document {doc_id!r}: span {_show(span, text)} does not begin and end "
                             "on token boundaries")
        if first[0] != last[0]:
            raise UsageError(f"document {doc_id!r}: span {_show(span, text)} runs across sentences")
        if previous is not None and span.start < previous.end:
            kind = "nested in" if span.end <= previous.end else "crossing"
            raise UsageError(f"document {doc_id!r}: span {_show(span, text)} is {kind} "
                             f"{_show(previous, text)}; CoNLL tags cannot express that")
        if not span.label or span.label.split() != [span.label]:
            raise UsageError(f"document {doc_id!r}: span {_show(span, text)} has a label that is empty "
                             "or has whitespace")
        chunks[first[0]].append((first[1], last[1] + 1, span.label))
        previous = span
    lines = []
    for s, words in enumerate(sentences):
        try:
            tags = spans_to_tags(chunks[s], len(words), scheme)
        except ValueError as error:
            raise UsageError(f"document {doc_id!r}, sentence {s + 1}: {error}") from None
        lines.extend(f"{word}\t{tag}\n" for word, tag in zip(words, tags))
        lines.append("\n")
    return lines


def _show(span: Span, text: str) -> str:
    covered = span.text(text)
    if len(covered) > 40:
        covered = covered[:37] + "..."
    return f"{span.label} {';'.join(f'{s} {e}' for s, e in span.fragments)} {covered!r}"
