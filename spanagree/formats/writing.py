"""Writing: a span set written in a format (:func:`write`, announcing what the format drops:
:func:`dropped`), a file a document at a time (:class:`FileWriter`, :func:`write_documents`), a
folder a document's files at a time (:class:`DocumentFiles`), and :func:`convert` (read, then
write).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable

from ..collector import collector_paused
from ..errors import FormatError, UsageError, find_stack_level
from ..span import Document, Relation, SpanSet, spanset_as_written
from .files import written_or_removed
from .reading import read
from .registry import FORMATS, declares, documented, get_format, writable_formats


@dataclass
class FileWriter:
    """How a format writes one file, document by document: ``head``, then each document's text
    (``document(doc_id, document) -> str``, a UsageError naming a document it cannot write), then
    ``tail``. The text of a document does not depend on the documents before it, so the file
    can be written in parts (a ``merge --jobs`` worker's documents) joined in document order."""

    head: str
    document: Callable[[str, Document], str]
    tail: str = ""


@dataclass(frozen=True)
class DocumentFiles:
    """How a format writes a folder a document at a time, each document in files of its own
    (BRAT's ``.txt`` and ``.ann``), so that ``merge --jobs`` workers write their documents' files
    and the parent moves them into the output (:mod:`spanagree.pipeline.parts`).

    Attributes
    ----------
    paths : callable
        ``paths(dest, doc_id) -> tuple of str``: the files written for ``doc_id`` in the folder ``dest``.
    check : callable
        ``check(doc_id, document) -> None``: a :class:`~spanagree.errors.UsageError` naming a
        document the format cannot write.
    write : callable
        ``write(dest, doc_id, document, *, checked=False) -> None``: the document's files written
        into the folder ``dest`` (which exists), the document checked first unless ``checked``.
    """

    paths: Callable[[str, str], tuple[str, ...]]
    check: Callable[[str, Document], None]
    write: Callable[..., None]


def write_documents(writer: FileWriter, spanset: SpanSet, dest: str | os.PathLike) -> None:
    """Write ``spanset`` with ``writer`` to the file ``dest``, one document at a time (nothing is
    left at ``dest`` when a document is refused)."""
    with written_or_removed(dest) as file:
        file.write(writer.head)
        for doc_id, document in spanset.documents.items():
            file.write(writer.document(doc_id, document))
        file.write(writer.tail)


def write(spanset: SpanSet, dest: str | os.PathLike, format: str, *, unkept: dict[str, int] | None = None,
          attribute_keys: dict[str, int] | None = None, holds_relations: bool = True, parts=None,
          **options) -> None:
    """Write a span set to ``dest`` (a folder for BRAT, a file otherwise) in ``format``: one of
    {WRITABLE FORMATS}.

    Only the options the chosen format's writer takes (:attr:`~spanagree.formats.Format.writer_keywords`) are passed
    on, so one set of command-line options can serve a reader and a writer (``--conll-column``
    means something to the CoNLL reader only; the writers take {WRITER OPTIONS}). The caller decides about overwriting. What the
    format cannot hold (:func:`dropped`, and ``unkept``: what the reader read and no span set
    holds, such as BRAT's relations) is announced in one
    :class:`~spanagree.errors.SpanagreeWarning` once written. ``attribute_keys``: the spans'
    attribute keys counted, when the caller knows them (``merge``'s gold: one note per span), so
    that the spans are not read once more to count them; ``holds_relations=False``: the caller
    made the documents and they hold no relations (``merge``'s gold), so they are not read to
    count them either (:func:`dropped`). ``parts``: the documents already written
    in this format by ``merge --jobs`` workers (:class:`~spanagree.pipeline.parts.GoldParts`),
    joined here in the span set's order (a document they lack is written here).

    A format whose documents do not come with their tokens (all but CoNLL) is given each
    document's text as written (:func:`~spanagree.span.as_written`: a CoNLL-U text without the
    spaces its ``SpaceAfter=No`` tokens do not have), its spans' offsets moved onto it.
    """
    fmt = get_format(format)
    if not fmt.writable:
        raise UsageError(f"spanagree reads {fmt.title} but does not write it; write one of: "
                         + ", ".join(writable_formats()))
    if not fmt.tokens:
        spanset = spanset_as_written(spanset)
    own = {k: v for k, v in options.items() if k in fmt.writer_keywords and v is not None}
    if parts is not None:
        parts.write(spanset, dest, fmt, own)
    else:
        fmt.writer()(spanset, dest, **own)
    lost = dropped(spanset, fmt.name, attribute_keys, holds_relations=holds_relations) + [_counted(number, kind) for kind, number in (unkept or {}).items() if number]
    if lost:
        import warnings

        from ..errors import SpanagreeWarning

        warnings.warn(f"{fmt.title} output: not written: {'; '.join(lost)}", SpanagreeWarning,
                      stacklevel=find_stack_level())


write.__doc__ = documented(write.__doc__)  # the formats written and their options, from the registry


# Span attributes by key prefix (spanagree.formats.brat keeps BRAT's lines on spans this way).
_ATTRIBUTE_KINDS = {"#": ("note", "notes", "BRAT #, e.g. AnnotatorNotes"), "A": ("attribute", "attributes", "BRAT A"),
                    "N": ("normalization", "normalizations", "BRAT N")}


def dropped(spanset: SpanSet, format: str, attribute_keys: dict[str, int] | None = None, *,
            holds_relations: bool = True) -> list[str]:
    """What writing ``spanset`` in ``format`` leaves out, counted (:attr:`~spanagree.formats.Format.drops`): the
    spans' attributes by kind (or only their notes; but those the format writes all the same,
    :attr:`~spanagree.formats.Format.kept_attributes`), the relations and events (or those other than
    ``Arg1`` → ``Arg2``), and the document ids a format that numbers its documents cannot keep (CoNLL
    writes names, and numbers ids of digits by their position).

    ``attribute_keys``: the spans' attribute keys counted by a caller that knows them (then the
    spans are not read to count them); ``holds_relations=False``: the caller made the documents
    and they hold no relations (``merge``'s gold: they are not read to count them).

    Examples
    --------
    >>> from spanagree.span import Span
    >>> span = Span.trusted("doc-a", ((0, 2),), "X", None, (("#:AnnotatorNotes", "C0011849"), ("A:Negation", "True")))
    >>> s = SpanSet.from_spans("a", [span], {"doc-a": "ab"})
    >>> dropped(s, "xml"), dropped(s, "jsonl"), dropped(s, "brat")
    (['1 note (BRAT #, e.g. AnnotatorNotes) on spans, 1 attribute (BRAT A) on spans'], ['1 note (BRAT #, e.g. AnnotatorNotes) on spans'], [])
    >>> dropped(s, "conll")[1:], dropped(SpanSet.from_spans("a", [], {"7": "ab"}), "conll")
    ([], ['the document ids of digits out of their order (7): CoNLL numbers such documents by their position'])
    """
    fmt = get_format(format)
    lost = []
    given = attribute_keys
    if "attributes" in fmt.drops or "notes" in fmt.drops:
        if attribute_keys is None:
            attribute_keys = {}
            for span in spanset:
                for key, _ in span.attributes:
                    attribute_keys[key] = attribute_keys.get(key, 0) + 1
        kinds: dict[str, int] = {}
        for key, number in attribute_keys.items():
            if key in fmt.kept_attributes or ("attributes" not in fmt.drops and not key.startswith("#:")):
                continue
            kind = key[:1] if key[:1] in _ATTRIBUTE_KINDS else "other"
            kinds[kind] = kinds.get(kind, 0) + number
        parts = [f"{kinds[k]} {_ATTRIBUTE_KINDS[k][0] if kinds[k] == 1 else _ATTRIBUTE_KINDS[k][1]} "
                 f"({_ATTRIBUTE_KINDS[k][2]}) on spans" for k in _ATTRIBUTE_KINDS if kinds.get(k)]
        if kinds.get("other"):
            parts.append(f"{kinds['other']} other span attribute{'s' if kinds['other'] != 1 else ''}")
        if parts:
            lost.append(", ".join(parts))
    if holds_relations and ("relations" in fmt.drops or "events" in fmt.drops):
        relations = [r for document in spanset.documents.values() for r in document.relations
                     if "relations" in fmt.drops or not is_binary(r)]
        if relations:
            events = sum(relation.is_event for relation in relations)
            found = [_counted(len(relations) - events, "relation") if len(relations) > events else "",
                     _counted(events, "event") if events else ""]
            lost.append(", ".join(filter(None, found)) + ("" if "relations" in fmt.drops else
                                                          f" ({fmt.title} holds relations Arg1 → Arg2 only)"))
    if holds_relations and "relations" not in fmt.drops and "layers" not in fmt.drops:
        # a relation whose spans its document does not hold cannot name them (INCEpTION's layers
        # say it with the rest: below)
        relations = [(relation, document) for document in spanset.documents.values()
                     for relation in document.relations if "events" not in fmt.drops or is_binary(relation)]
        held = {id(document): set(document.spans) for _, document in relations}
        lacking = sum(any(span not in held[id(document)] for span in relation.spans)
                      for relation, document in relations)
        if lacking:
            lost.append(f"{lacking} relation{'s' if lacking != 1 else ''} or event{'s' if lacking != 1 else ''} "
                        "naming spans their documents do not hold")
    if "layers" in fmt.drops:  # INCEpTION's layers: span features and binary relations
        from .layers import unwritten

        lost += unwritten(spanset, given, holds_relations=holds_relations)
    if "ids" in fmt.drops:  # names are written; ids of digits are numbers the reader gives by position
        ids = [doc_id for n, doc_id in enumerate(spanset.documents, 1) if doc_id.isdigit() and doc_id != str(n)]
        if ids:
            shown = ", ".join(ids[:3]) + (", ..." if len(ids) > 3 else "")
            lost.append(f"the document ids of digits out of their order ({shown}): {fmt.title} numbers such "
                        f"documents by their position")
    return lost


def is_binary(relation: Relation) -> bool:
    """Whether a relation is one that a format holding binary relations only (``"events"`` in
    :attr:`~spanagree.formats.Format.drops`) writes: no trigger, the arguments ``Arg1`` and ``Arg2``.

    >>> from spanagree.span import Span
    >>> a, b = Span("d", 0, 2, "X"), Span("d", 3, 5, "Y")
    >>> is_binary(Relation("R", (("Arg1", a), ("Arg2", b)))), is_binary(Relation("R", (("Theme", a),), b))
    (True, False)
    """
    return relation.trigger is None and len(relation.arguments) == 2 and \
        (relation.arguments[0][0], relation.arguments[1][0]) == ("Arg1", "Arg2")


def _counted(number: int, kind: str) -> str:
    return f"{number} {kind}{'s' if number != 1 else ''}"


def convert(path: str | os.PathLike, dest: str | os.PathLike, *, to: str, source_format: str | None = None,
            force: bool = False, annotator: str | None = None, name: str | None = None, tokenize: bool = False,
            lang: str | None = None, spacy_model: str | None = None, **options) -> SpanSet:
    """Read ``path`` (in ``source_format``, detected when not given) and write it to ``dest`` in ``to``.

    ``annotator`` chooses the span set of a container holding several (as in :func:`read`).
    ``name`` names the span set read (as in :func:`read`; ``convert NAME=PATH`` on the command
    line), which the formats that write an annotator's name write: Label Studio's
    ``completed_by`` (``{"email": name}``); the others write no name and ignore it.
    ``tokenize`` (with ``to`` a format whose documents come with their tokens,
    :attr:`~spanagree.formats.Format.tokens`: ``"conll"``) puts raw texts in CoNLL's shape first,
    with spaCy's tokenizer and sentence splitter: a blank ``lang`` pipeline (default ``en``) or the pipeline
    ``spacy_model`` (:func:`spanagree.formats.retokenize.conll_shaped`).
    ``dest`` is written atomically and an existing non-empty one only replaced with ``force``
    (:func:`spanagree.outputs.write_atomically`). Returns the span set written.
    """
    from ..outputs import write_atomically

    if tokenize and not declares(to, "tokens"):
        raise UsageError("{option} puts texts in CoNLL's shape: it goes with CoNLL output", option="tokenize",
                         flag="--tokenize")
    if not tokenize and (lang is not None or spacy_model is not None):
        raise UsageError("lang and spacy_model choose the tokenizer of tokenize=True; give tokenize")
    if lang is not None and spacy_model is not None:
        raise UsageError("lang and spacy_model exclude each other (the pipeline has its own language)")
    with collector_paused(freeze=True):  # what is read lives until the process ends
        spanset = read(path, source_format, annotator=annotator, name=name, **options)
    if declares(spanset.format, "strings"):
        raise FormatError(path, "string predictions have no offsets to write: score them against a gold "
                                "(spanagree score GOLD PRED)")
    if tokenize:
        from .retokenize import conll_shaped

        spanset = conll_shaped(spanset, lang=lang, spacy_model=spacy_model)
    # what the reader read and no span set holds (BRAT's relations), announced by the writer
    unkept = get_format(spanset.format).unkept(spanset.notes) if spanset.format in FORMATS else None
    write_atomically(dest, lambda temporary: write(spanset, temporary, to, unkept=unkept, **options), force=force,
                     folder=get_format(to).writes_to_folder)
    return spanset
