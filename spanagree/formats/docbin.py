"""spaCy DocBin (``.spacy``): spaCy's binary serialisation of a collection of ``Doc`` objects.

Reading
-------
A ``.spacy`` file (``spacy.tokens.DocBin().to_disk``, what ``spacy convert`` and Prodigy's
``data-to-spacy`` write) holds one annotator's documents, in order.

* **Spans** are ``doc.ents`` by default, or with ``docbin_spans_key=KEY``
  (``--docbin-spans-key KEY``) the span group ``doc.spans[KEY]`` (a span categoriser's
  spans, which may overlap); a file whose documents have no such group is an error naming the
  keys it holds. A span's offsets are its ``start_char``/``end_char``: spaCy keeps a token's
  offset in a Python ``str``, so they are code points, as spanagree counts. The label is the
  span's ``label_``; its knowledge-base id ``kb_id_`` (an entity linker's, or set by hand), when
  it has one, is its attribute ``kb_id``.
* **Zero-length spans** (a span group's span of no token) cannot be spans: left out and counted
  in the notes.
* **Text** is the doc's text (its tokens and their trailing whitespace).
* **Ids.** A document's id is ``doc.user_data["id"]`` when the file stores user data and holds
  one (what :func:`write_docbin` writes), else its 1-based position in the file (``1``, ``2``,
  ..., as CoNLL numbers its documents), so two DocBin files of the same documents line up.
* **Safety and errors.** A DocBin is msgpack compressed with zlib: the file and what it
  inflates to are both bounded by ``max_record_bytes`` (a small file that inflates beyond it is
  refused before spaCy reads it), and its documents' lengths must add up to its tokens (spaCy
  would cut them silently). Every message is one line. A file that is not a DocBin, a corrupt one, an id seen twice or
  a span without label is one :class:`~spanagree.errors.FormatError` naming the file (and the
  document's position).

spaCy is imported when a file is read or written, never by ``import spanagree``.

Writing
-------
``write_docbin`` writes one DocBin: a ``Doc`` per document, with the document's id in
``user_data["id"]`` (stored), and its spans in ``doc.ents`` (or with ``docbin_spans_key=KEY``
in the span group ``KEY``), each with its attribute ``kb_id`` as its ``kb_id_`` (``doc.ents``
store it only when some span has one, so that a file without ids is written as before); a
span's other attributes and the documents' relations are left out, announced
(:func:`~spanagree.formats.dropped`). The tokens are the text's whitespace-separated words, cut again at
every span boundary, so that each span is exactly a run of tokens and reads back with the same
offsets (a single space after a word is the token's trailing whitespace; other whitespace is a
token of its own, as spaCy's tokenizer makes it). What a DocBin cannot hold is refused, naming
the document, before anything is written: a discontinuous span (a spaCy span is one run of
tokens), overlapping spans in ``doc.ents`` (write them to a span group with
``--docbin-spans-key``), a document without text.
"""

from __future__ import annotations

import zlib

from ..errors import FormatError, UsageError
from ..span import Document, Source, Span, SpanSet
from .files import open_bytes
from . import MAX_RECORD_BYTES, DocumentStream, collect, read_bounded, too_large
from .registry import FORMATS

#: This module's registry entry, on which it registers its functions.
FORMAT = FORMATS["docbin"]

__all__ = ["read_docbin", "stream_docbin", "write_docbin"]

#: The errors spaCy, srsly's msgpack and numpy raise on a corrupt DocBin.
_CORRUPT = (ValueError, KeyError, TypeError, IndexError, AttributeError, AssertionError, OverflowError,
            MemoryError, zlib.error, UnicodeDecodeError)


def _inflated_size_checked(path: str, data: bytes, limit: int) -> None:
    """Refuse a DocBin that inflates beyond ``limit`` bytes (a zip bomb), without inflating more."""
    inflater = zlib.decompressobj()
    total = 0
    chunk = data
    try:
        while chunk:
            total += len(inflater.decompress(chunk, limit + 1 - total))
            if total > limit:
                raise too_large(path, "the DocBin, inflated,", limit)
            chunk = inflater.unconsumed_tail
    except zlib.error as error:
        raise FormatError(path, f"not a spaCy DocBin (zlib: {error})") from None


def _load(path: str, limit: int):
    """The DocBin of ``path``, and a fresh vocabulary to read its docs with."""
    try:
        with open_bytes(path) as file:  # (a pipe: through its one opening)
            data = read_bounded(file, path, limit, "the DocBin")
    except FileNotFoundError:
        raise FormatError(path, "no such file") from None
    except IsADirectoryError:
        raise FormatError(path, "is a folder; a spaCy DocBin is one .spacy file") from None
    except OSError as error:
        raise FormatError(path, f"cannot read: {error.strerror or error}") from None
    _inflated_size_checked(path, data, limit)
    _lengths_checked(path, data)
    from spacy.tokens import DocBin
    from spacy.vocab import Vocab

    try:
        doc_bin = DocBin().from_bytes(data)
    except _CORRUPT as error:
        raise FormatError(path, f"not a spaCy DocBin ({_message(error)})") from None
    return doc_bin, Vocab()


def _lengths_checked(path: str, data: bytes) -> None:
    """Refuse a DocBin whose documents' lengths (in tokens) are negative or do not add up to its
    tokens: spaCy would cut its tokens by them silently (the first document taking every text)."""
    import numpy
    import srsly

    try:
        message = srsly.msgpack_loads(zlib.decompress(data))
        lengths = numpy.frombuffer(message["lengths"], dtype="int32")
        held = len(message["tokens"]) // 8 // len(message["attrs"])
        spaces = len(message["spaces"])
    except Exception:  # not a DocBin's message: spaCy's reading says what is wrong
        return
    negative = numpy.flatnonzero(lengths < 0)
    if negative.size:
        raise FormatError(path, f"not a spaCy DocBin (document {negative[0] + 1}'s length is negative: "
                          f"{lengths[negative[0]]})")
    total = int(lengths.sum(dtype=numpy.int64))
    if total != held or spaces != held:
        raise FormatError(path, f"not a spaCy DocBin (its lengths add up to {total:,} tokens; it holds {held:,})")


def _message(error: BaseException) -> str:
    """An exception as ``Type: message`` on one line."""
    return f"{type(error).__name__}: {' '.join(str(error).split())}"


def _document_id(doc, position: int) -> str:
    value = doc.user_data.get("id") if isinstance(doc.user_data, dict) else None
    if isinstance(value, (int, str)) and not isinstance(value, bool) and str(value) != "":
        return str(value)
    return str(position)


def _documents(path: str, spans_key: str | None, limit: int, notes: list[str]):
    doc_bin, vocab = _load(path, limit)
    seen: set[str] = set()
    empty = 0
    docs = doc_bin.get_docs(vocab)
    position = 0
    while True:
        position += 1
        where = f"document {position}"
        try:
            doc = next(docs, None)
            if doc is None:
                break
            text = doc.text
            doc_id = _document_id(doc, position)
            held = None if spans_key is None or spans_key in doc.spans else \
                ", ".join(k if k.isprintable() else repr(k) for k in sorted(doc.spans)) or "none"
            found = doc.ents if spans_key is None else doc.spans[spans_key] if held is None else ()
            ranges = [(s.start_char, s.end_char, s.label_, s.kb_id_) for s in found]
        except _CORRUPT as error:
            raise FormatError(path, f"{where}: a corrupt DocBin ({_message(error)})") from None
        if held is not None:
            raise FormatError(path, f"{where}: no span group {spans_key!r} (its span groups: {held})")
        if doc_id in seen:
            raise FormatError(path, f"{where}: the id {doc_id!r} appears twice")
        seen.add(doc_id)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise FormatError(path, f"{where}: the text holds a lone surrogate (not a character)") from None
        spans = []
        for start, end, label, kb_id in ranges:
            if start >= end:
                empty += 1
                continue
            if not label.strip():
                raise FormatError(path, f"{where}: span [{start}, {end}) has no label")
            spans.append(Span(doc_id, ((start, end),), label, source=Source(path),
                              attributes=(("kb_id", kb_id),) if kb_id else ()))
        yield Document(doc_id, text, spans, path)
    if empty:
        notes.append(f"{empty} zero-length span(s) (no token) left out")


@FORMAT.provides("streamer")
def stream_docbin(path, *, name: str | None = None, docbin_spans_key: str | None = None,
                  max_record_bytes: int = MAX_RECORD_BYTES) -> DocumentStream:
    """The documents of a ``.spacy`` file, read as iterated (the file is checked and loaded then)."""
    path = str(path)
    notes: list[str] = []
    return DocumentStream(name if name is not None else path, "docbin",
                          _documents(path, docbin_spans_key, max_record_bytes, notes), notes)


def read_docbin(path, *, name: str | None = None, docbin_spans_key: str | None = None,
                max_record_bytes: int = MAX_RECORD_BYTES) -> SpanSet:
    """:func:`stream_docbin` collected."""
    return collect(stream_docbin(path, name=name, docbin_spans_key=docbin_spans_key,
                                 max_record_bytes=max_record_bytes))


def _tokens(text: str, spans: list[Span]) -> tuple[list[str], list[bool]]:
    """Words and trailing-space flags for ``text`` such that every span starts and ends at a
    token boundary: whitespace-separated words, cut again at the spans' boundaries."""
    starts = {s.start for s in spans}
    ends = {s.end for s in spans}
    cuts = starts | ends
    words: list[str] = []
    spaces: list[bool] = []
    i, n = 0, len(text)
    while i < n:
        blank = text[i].isspace()
        j = i + 1
        while j < n and text[j].isspace() == blank and j not in cuts:
            j += 1
        if not blank and j < n and text[j] == " " and j not in starts and j + 1 not in ends \
                and (j + 1 == n or not text[j + 1].isspace() or j + 1 in cuts):
            words.append(text[i:j])
            spaces.append(True)
            i = j + 1
        else:
            words.append(text[i:j])
            spaces.append(False)
            i = j
    return words, spaces


def _kb_id(span: Span) -> str:
    """A span's attribute ``kb_id`` (its first), ``""`` without one (spaCy's none)."""
    return next((value for key, value in span.attributes if key == "kb_id"), "")


@FORMAT.provides("writer")
def write_docbin(spanset: SpanSet, dest, *, docbin_spans_key: str | None = None) -> None:
    """Write a span set as a spaCy DocBin (``.spacy``): a ``Doc`` per document.

    Raises
    ------
    UsageError
        Naming the document: a discontinuous span, overlapping spans in ``doc.ents`` (use
        ``docbin_spans_key``), a span beyond its text, a document without text. Nothing is
        written then.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "ana.spacy"
    >>> write_docbin(SpanSet.from_spans("ana", [Span("d1", (4, 11), "PER")], {"d1": "Met Ana-Lou."}), f)
    >>> read_docbin(f).documents["d1"].spans
    [Span(doc='d1', fragments=((4, 11),), label='PER')]
    """
    from spacy.tokens import Doc, DocBin
    from spacy.vocab import Vocab

    vocab = Vocab()
    linked = any(key == "kb_id" for span in spanset for key, _ in span.attributes)
    doc_bin = DocBin(attrs=["ORTH", "ENT_IOB", "ENT_TYPE"] + (["ENT_KB_ID"] if linked else []), store_user_data=True)
    for doc_id, document in spanset.documents.items():
        text = document.text
        if text is None:
            raise UsageError(f"document {doc_id!r}: its text is unknown; a spaCy Doc needs one")
        spans = sorted(document.spans, key=Span.sort_key)
        for span in spans:
            if len(span.fragments) > 1:
                raise UsageError(f"document {doc_id!r}: span {span.fragments} {span.label} is discontinuous; a "
                                 "spaCy span is one run of tokens")
            if span.end > len(text):
                raise UsageError(f"document {doc_id!r}: span {span.fragments} {span.label} ends beyond its text "
                                 f"({len(text)} characters)")
        if docbin_spans_key is None:
            for before, after in zip(spans, spans[1:]):
                if after.start < before.end:
                    raise UsageError(f"document {doc_id!r}: spans {before.fragments} {before.label} and "
                                     f"{after.fragments} {after.label} overlap; doc.ents cannot hold them "
                                     "(write a span group with {option})", option="docbin_spans_key")
        words, spaces = _tokens(text, spans)
        doc = Doc(vocab, words=words, spaces=spaces)
        made = [doc.char_span(s.start, s.end, label=s.label, kb_id=_kb_id(s), alignment_mode="strict") for s in spans]
        if docbin_spans_key is None:
            doc.ents = made
        else:
            doc.spans[docbin_spans_key] = made
        doc.user_data["id"] = doc_id
        doc_bin.add(doc)
    data = doc_bin.to_bytes()
    with open(dest, "wb") as file:
        file.write(data)
