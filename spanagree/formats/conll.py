"""CoNLL columns: one token per line, its tag in a column, sentences separated by blank lines.

Reading
-------
* Columns are separated by spaces and/or tabs (any number); ``\\r\\n`` line ends are accepted.
  The first column is the token; the tag column is the last one, or ``conll_column`` (counted
  from 1). Tags are decoded by :func:`spanagree.schemes.tags_to_spans`: conlleval's lenient
  decoding by default, strict decoding with ``scheme=`` (dropped chunks are counted in a
  :class:`~spanagree.errors.SpanagreeWarning` and in the span set's notes).
* A line whose first column is ``-DOCSTART-`` begins a new document. Documents are numbered
  ``"1"``, ``"2"``, ... in file order. Every ``-DOCSTART-`` line begins one, even when nothing but
  blank lines follows (an empty document, text ``""``), so that two files with the same
  ``-DOCSTART-`` lines have the same documents. Tokens before the first ``-DOCSTART-`` (or in a
  file without one) form a document of their own; blank lines before it do not. A file with
  neither a token nor a ``-DOCSTART-`` line is an error (empty file).
* The **text** of a document is its tokens joined by one space, its sentences joined by ``\\n``
  (no final newline). Spans are half-open character offsets into that text, from the start of
  their first token to the end of their last. The tokenisation is therefore recoverable from the
  text alone: ``[line.split(" ") for line in text.split("\\n")]`` (see :func:`token_offsets`);
  tokens never contain a space, tab or newline.
* Each span's source is the file and the line of its first token.

Writing
-------
``write_conll`` writes, for each document in order, a ``-DOCSTART-<TAB>O`` line and a blank line,
then one ``token<TAB>tag`` line per token and a blank line after each sentence. The text must be
in the shape the reader produces (above), and spans must cover whole tokens of one sentence,
without nesting, crossing or gaps. Reading the file back gives the same span set when the document
ids are ``"1"`` .. ``"n"`` in order (the reader numbers documents; it cannot keep other ids).
"""

from __future__ import annotations

import re
import warnings
from collections import deque
from functools import lru_cache
from operator import itemgetter
from pathlib import Path

from ..collector import collector_paused
from ..errors import FormatError, SpanagreeWarning, UsageError
from ..schemes import TagError, get_scheme, spans_to_tags, tags_to_spans
from ..span import Document, Source, Span, SpanSet
from ..span import (_new, _set_attributes, _set_doc, _set_fragments, _set_label, _set_line,  # hot-loop setters
                    _set_path, _set_source)
from . import read_utf8_file

DOCSTART = "-DOCSTART-"


# Whitespace that str.split() would treat as a column separator but CoNLL does not (NBSP, ...).
_OTHER_SPACE = re.compile(r"[^\S \t\r\n]")
_COLUMNS = re.compile(r"[ \t\r]+")


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
               scheme: str | None = None) -> SpanSet:
    """Read a CoNLL file (one annotator's tags) as a :class:`SpanSet`.

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
    scheme_ = get_scheme(scheme)
    if conll_column is not None and (isinstance(conll_column, bool) or not isinstance(conll_column, int)
                                     or conll_column < 2):
        raise UsageError("--conll-column counts from 1 and column 1 is the token: "
                         f"give 2 or more, not {conll_column!r}")
    path_str = str(path)
    text = read_utf8_file(path_str, "CoNLL")

    spanset = SpanSet(name if name is not None else Path(path).stem, format="conll")
    with collector_paused():
        tokens, tags, docstarts = _columns(text, path_str, conll_column)
        del text
        try:
            chunks, invalid = tags_to_spans(tags, scheme_)
        except TagError as error:
            raise FormatError(path_str, error.message, None if error.index is None else error.index + 1) from None
        del tags
        _documents(spanset, tokens, docstarts, chunks, path_str)
        del tokens, chunks  # before the collector resumes: it would scan them once more
    if invalid:
        message = (f"{path_str}: {invalid} invalid chunk{'s' if invalid != 1 else ''} "
                   f"dropped by strict {scheme_.name} decoding")
        spanset.notes.append(message)
        warnings.warn(message, SpanagreeWarning, stacklevel=2)
    return spanset


_BLOCK = 1 << 16
_SECOND = itemgetter(1)
_SENTENCE_BREAKS = re.compile(" {2,}")


def _columns(text: str, path: str, conll_column: int | None) -> tuple[list[str], list[str], list[int]]:
    """One token and one tag per line of the file (index = line - 1).

    Blank lines and ``-DOCSTART-`` lines get the token ``""`` and the tag ``"O"``, which ends any
    chunk: the decoder can run over the whole file at once. Returns the tokens, the tags and the
    indices of the ``-DOCSTART-`` lines. A regular file (the same number of columns on every
    line, one separator) is split by whole-file string operations (:func:`_columns_fast`); any
    other by list comprehensions over blocks of lines (no per-line regex or branch, bounded
    memory for the split columns), which also report the errors.
    """
    if text.isascii():
        other_space = any(c in text for c in "\x0b\x0c\x1c\x1d\x1e\x1f")
    else:
        other_space = _OTHER_SPACE.search(text) is not None
    fast = None if other_space else _columns_fast(text, conll_column)
    if fast is not None:
        tokens, tags = fast
        return tokens, tags, _docstarts(tokens, tags, path)
    split = _split_columns if other_space else str.split
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    need = 2 if conll_column is None else conll_column
    column = -1 if conll_column is None else conll_column - 1
    tokens: list[str] = []
    tags: list[str] = []
    rows: list[list[str]] = []
    for begin in range(0, len(lines), _BLOCK):
        rows = [split(line) for line in lines[begin:begin + _BLOCK]]
        tokens += [row[0] if row else "" for row in rows]
        try:
            tags += [row[column] if row else "O" for row in rows]
            if conll_column is None:  # IndexError if a line has one column
                deque(map(_SECOND, filter(None, rows)), maxlen=0)
        except IndexError:
            # A line with too few columns; fine only for a -DOCSTART- line.
            for index, row in enumerate(rows, begin):
                if row and len(row) < need and row[0] != DOCSTART:
                    if conll_column is None:
                        raise FormatError(path, f"expected a token and a tag, got one column {row[0]!r}", index + 1)
                    raise FormatError(path, f"expected at least {need} columns (--conll-column {conll_column}), "
                                            f"got {len(row)}", index + 1)
            if len(tags) < len(tokens):
                tags += [row[column] if len(row) >= need else "O" for row in rows]
    del rows, lines
    return tokens, tags, _docstarts(tokens, tags, path)


def _docstarts(tokens: list[str], tags: list[str], path: str) -> list[int]:
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
    if not docstarts and not any(tokens):
        raise FormatError(path, "empty file: no token lines")
    return docstarts


def _columns_fast(text: str, conll_column: int | None) -> tuple[list[str], list[str]] | None:
    """The tokens and tags of :func:`_columns` for a regular file, or ``None`` when it is not one.

    Regular: one separator throughout (a tab, or else a space, never both), every line either
    empty or the same number ``k`` of columns separated by exactly one separator (``\\r\\n`` line
    ends allowed), and the tag column among them. Such a file is split with a handful of C-level
    string operations instead of one ``split`` per line: each empty line is first filled with
    ``k`` columns (token ``""``, tag ``"O"``), then all newlines become separators, so that one
    ``split`` gives the columns of every line in a row and slices pick the token and tag columns.
    One regular-expression search checks the shape first (a line with more or fewer columns,
    or a stray separator, sends the file down the general path, which also reports errors).
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
    k = body[:body.find("\n") if "\n" in body else len(body)].count(sep) + 1
    column = k - 1 if conll_column is None else conll_column - 1
    if k < 2 or column >= k:
        return None
    if _irregular(sep, k).search("\n" + text) is not None:
        return None
    filler = sep.join(["O" if i == column else "" for i in range(k)])
    while "\n\n" in text:
        text = text.replace("\n\n", f"\n{filler}\n")
    if text.startswith("\n"):
        text = filler + text
    if text.endswith("\n"):
        text = text + filler
    columns = text.replace("\n", sep).split(sep)
    del text
    return columns[0::k], columns[column::k]


@lru_cache(maxsize=16)
def _irregular(sep: str, k: int) -> re.Pattern:
    """A newline not followed by an empty line nor by a line of ``k`` columns split by one ``sep``."""
    line = r"[^\s]+" + (re.escape(sep) + r"[^\s]+") * (k - 1)
    return re.compile(rf"\n(?!{line}(?:\n|\Z)|\n|\Z)")


def _split_columns(line: str) -> list[str]:
    """Columns split on spaces and tabs only (slow path, for files with other whitespace)."""
    line = line.strip(" \t\r")
    return _COLUMNS.split(line) if line else []


def _documents(spanset: SpanSet, tokens: list[str], docstarts: list[int], chunks, path: str) -> None:
    """Cut the file into documents, build their texts and place the chunks in them."""
    n = len(tokens)
    # Document boundaries: [begin, end) line indices. Tokens before the first -DOCSTART- form a
    # document only when there are any; every -DOCSTART- begins one, even an empty one.
    bounds = []
    if not docstarts or any(tokens[:docstarts[0]]):
        bounds.append((0, docstarts[0] if docstarts else n))
    bounds.extend((start + 1, end) for start, end in zip(docstarts, docstarts[1:] + [n]))

    # Character offsets count from the start of the file's tokens: each non-empty token adds its
    # length and one separator (a space, or the newline ending its sentence); blank lines, whose
    # token is "", add nothing. They are summed slice by slice between chunks, at C speed.
    per_doc: list[list[Span]] = [[] for _ in bounds]
    new, set_doc, set_fragments, set_label, set_source, set_attributes = (
        _new, _set_doc, _set_fragments, _set_label, _set_source, _set_attributes)
    number, (begin, end) = -1, (0, 0)
    at = position = base = 0  # `position` is the offset of token `at`; `base` of the document's start
    doc_id, spans = "", per_doc[0]
    for first, stop, label in chunks:
        if first >= end:
            while first >= end:
                number += 1
                begin, end = bounds[number]
            piece = tokens[at:begin]
            position += sum(map(len, piece)) + len(piece) - piece.count("")
            at = base = begin
            base = position
            doc_id, spans = str(number + 1), per_doc[number]
        piece = tokens[at:first]
        position += sum(map(len, piece)) + len(piece) - piece.count("")
        piece = tokens[first:stop]
        at = stop
        start = position - base
        position += sum(map(len, piece)) + len(piece)
        # Span.trusted(doc_id, fragments, label, Source(path, line)), inlined: offsets are valid.
        source = new(Source)
        _set_path(source, path)
        _set_line(source, first + 1)
        span = new(Span)
        set_doc(span, doc_id)
        set_fragments(span, ((start, position - 1 - base),))
        set_label(span, label)
        set_source(span, source)
        set_attributes(span, ())
        spans.append(span)
    for number, (begin, end) in enumerate(bounds):
        # Tokens never hold a space, so two or more spaces in a row come from blank lines (one
        # blank line: exactly two, replaced without a regular expression).
        text = " ".join(tokens[begin:end]).strip(" ")
        text = text.replace("  ", "\n") if "   " not in text else _SENTENCE_BREAKS.sub("\n", text)
        doc_id = str(number + 1)
        spanset.documents[doc_id] = Document(doc_id, text, per_doc[number], path)


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
    if scheme is None:
        scheme = "iob2"
    scheme_ = get_scheme(scheme)
    if not scheme_.strict:
        raise UsageError("the CoNLL writer needs a tag scheme (iob2, bioes, ...)")
    out = []
    for doc_id, document in spanset.documents.items():
        out.append(f"{DOCSTART}\tO\n\n")
        out.extend(_document_lines(doc_id, document, scheme_))
    Path(dest).write_text("".join(out), encoding="utf-8", newline="\n")


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
