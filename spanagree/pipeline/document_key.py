"""How the copies of a document are paired across inputs: by their ids (the default), or by their
texts (``document_key="text"``, ``--document-key text``).

Tools give a document a new id when its task is imported into another project (Label Studio,
doccano), so the same text comes back under another id from each annotator. With
``document_key="text"`` each input's documents are paired with the reference input's (the first:
``agree``'s and ``merge``'s first annotator, ``score``'s gold) of the same text and take its id,
so listings, reports and ``by_document`` name the reference's documents. A document whose text the
reference lacks keeps its own id (``NAME:id`` when that id is one of the reference's, so that it
cannot be paired by accident) and is left out as any unpaired document is. Two documents of one
input with the same text cannot be told apart: that is bad input, naming both.

Texts are compared exactly; with ``align_whitespace`` (``--align-whitespace``), through their
non-whitespace characters. The reference is read first, whole (its texts decide the pairing),
then the others are read as before, one document at a time; every input is read in the main
process (the pairing is known only once a text is read), so ``jobs`` and a scheduler do not
share the reading out.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Iterator, Sequence

from ..errors import FormatError, parameter
from ..formats import DocumentStream, collect
from ..span import Document, Span, SpanSet, moved_relations

#: The ways copies of a document are paired (``document_key``).
DOCUMENT_KEYS = ("id", "text")


def text_key(document: Document, source: str, align_whitespace: bool) -> bytes:
    """The digest a document is paired by: its text's (whitespace left out with
    ``align_whitespace``). A document without a text cannot be paired by it (FormatError)."""
    if document.text is None:
        raise FormatError(source, f"document {document.id!r} has no text, and documents are paired by their text "
                                  "({key} needs every document's text)", key=parameter("document_key", "text"))
    text = "".join(document.text.split()) if align_whitespace else document.text
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _source(stream: DocumentStream | SpanSet, name: str) -> str:
    return getattr(stream, "path", None) or name


def keyed_by_text(streams: Sequence[DocumentStream], names: Sequence[str], *,
                  align_whitespace: bool = False) -> list[SpanSet | DocumentStream]:
    """``streams`` with each document renamed to the id of the reference's (the first stream's)
    document of the same text; the reference read whole, the others renamed as they are read.

    Raises
    ------
    FormatError
        A document without a text, or two documents of one input with the same text (naming
        both), when the documents are read.

    Examples
    --------
    >>> from spanagree.span import Span, SpanSet
    >>> from spanagree.pipeline.sequential import spanset_stream
    >>> a = SpanSet.from_spans("a", [Span("1", 0, 3, "X")], {"1": "Tom ran."})
    >>> b = SpanSet.from_spans("b", [Span("task-7", 0, 3, "X")], {"task-7": "Tom ran.", "1": "Other."})
    >>> reference, renamed = keyed_by_text([spanset_stream(a), spanset_stream(b)], ["a", "b"])
    >>> [(d.id, [s.doc for s in d.spans]) for d in renamed.documents]
    [('1', ['1']), ('b:1', [])]
    """
    reference = collect(streams[0])
    ids_of: dict[bytes, str] = {}
    source = _source(streams[0], names[0])
    for document in reference.documents.values():
        key = text_key(document, source, align_whitespace)
        if key in ids_of:
            raise _same_text(source, ids_of[key], document.id)
        ids_of[key] = document.id
    keyed: list[SpanSet | DocumentStream] = [reference]
    for stream, name in zip(streams[1:], names[1:]):
        documents = _renamed(stream, name, ids_of, reference.documents, align_whitespace)
        keyed.append(DocumentStream(stream.name, stream.format, documents, stream.notes, stream.role, stream.path))
    return keyed


def _renamed(stream: DocumentStream, name: str, ids_of: dict[bytes, str], reference_ids,
             align_whitespace: bool) -> Iterator[Document]:
    source = _source(stream, name)
    seen: dict[bytes, str] = {}
    for document in stream.documents:
        key = text_key(document, source, align_whitespace)
        if key in seen:
            raise _same_text(source, seen[key], document.id)
        seen[key] = document.id
        new = ids_of.get(key)
        if new is None:  # a text the reference lacks: unpaired, under an id that cannot pair by accident
            new = f"{name}:{document.id}" if document.id in reference_ids else document.id
        if new == document.id:
            yield document
            continue
        spans = [Span.trusted(new, span.fragments, span.label, span.source, span.attributes) for span in document.spans]
        yield dataclasses.replace(document, id=new, spans=spans,
                                  relations=moved_relations(document.relations, document.spans, spans))  # a subclass's own fields kept (strings)


def _same_text(source: str, first: str, second: str) -> FormatError:
    return FormatError(source, f"documents {first!r} and {second!r} have the same text, and documents are paired by "
                               "their text ({key}): give each text once, or pair by id", key=parameter("document_key", "text"))


__all__ = ["DOCUMENT_KEYS", "keyed_by_text", "text_key"]
