"""Reconciling the texts of one document as several annotators stored it.

Offsets only mean the same thing over the same text. By default a document whose copies differ
is an error naming it. With ``align_whitespace=True``, copies that differ only in whitespace are
compared through their non-whitespace characters: every span's fragments are mapped to the
positions of the first annotator's copy (whitespace at a fragment's edges drops out), nothing is
rewritten on disk, and documents that still differ are left out with a warning naming them.

Documents that come with their tokens (``Document.tokens_from_text``: CoNLL's) are compared by
token position when every copy does: they must have the same sentences and the same number of
tokens in each; tokens spelt differently only warn (with a count), and spans are placed on the
first copy's tokens.

A CoNLL copy whose text the file says is written with fewer spaces (``Document.unwritten_spaces``:
CoNLL-U's ``SpaceAfter=No``) is compared with copies from other formats through the text as
written (:func:`spanagree.span.as_written`): when that text is theirs, the copies are aligned
through their non-whitespace characters, as with ``align_whitespace=True``, without it being
asked (and counted among the documents compared so).
"""

from __future__ import annotations

import warnings
from bisect import bisect_left
from dataclasses import dataclass, field

from .errors import FormatError, SpanagreeWarning, find_stack_level, parameter
from .span import Document, Span, SpanSet, as_written, moved_relations, normalize_fragments


@dataclass
class Reconciled:
    """The result of :func:`reconcile`: the span sets to compare and what happened to texts."""

    spansets: list[SpanSet]
    documents: list[str]
    whitespace_aligned: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    token_spelling_differences: int = 0
    #: where the texts of each left-out document first differ (:func:`first_difference`)
    differences: dict = field(default_factory=dict)
    #: ``align_text``: the documents aligned, their differing characters, and the spans that touch them
    text_aligned: list[str] = field(default_factory=list)
    differing: dict = field(default_factory=dict)
    affected: int = 0
    affected_spans: list = field(default_factory=list)


def reconcile(spansets: list[SpanSet], documents: list[str], *, align_whitespace: bool = False,
              announce: bool = True, align_text: bool = False) -> Reconciled:
    """Check that every annotator has the same text for each document; map where allowed.

    Parameters
    ----------
    spansets : list of SpanSet
        The annotators, first one first (its copy is the reference for mapped offsets).
    documents : list of str
        The document ids to compare (present in every span set).
    align_whitespace : bool
        Compare copies that differ only in whitespace through their non-whitespace characters.
    align_text : bool
        Compare copies whose texts differ through a character alignment to the first copy's text
        (:mod:`spanagree.textalign`); CoNLL copies too, through their texts.
    announce : bool
        Warn about the documents left out (:func:`warn_texts_differ`) and the tokens spelt
        differently (:func:`warn_token_spellings`); a caller reconciling a corpus shard by shard
        says it once for all shards instead.

    Raises
    ------
    FormatError
        A document whose copies differ (and cannot be aligned as asked), naming it.
    """
    result = Reconciled(list(spansets), [])
    mapped: dict[int, dict[str, Document]] = {k: {} for k in range(len(spansets))}
    for doc_id in documents:
        copies = [s.documents[doc_id] for s in spansets]
        texts = [d.text for d in copies]
        known = [t for t in texts if t is not None]
        if len(set(known)) <= 1:
            result.documents.append(doc_id)
            continue
        reference = next(t for t in texts if t is not None)
        if not align_text and all(document.tokens_from_text for document in copies):
            differences = conll_token_differences(spansets, doc_id, texts)
            for k, document in enumerate(copies):
                if document.text is not None and document.text != reference:
                    mapped[k][doc_id] = onto_tokens(document, reference)
            result.token_spelling_differences += differences
            result.documents.append(doc_id)
            continue
        if align_text:
            from .textalign import align_copies

            aligned = align_copies(spansets, doc_id, copies, reference)
            if aligned is None:
                result.left_out.append(doc_id)
                result.differences.setdefault(doc_id, first_difference_among(spansets, texts, reference))
                continue
            for k, (document, differing, affected) in aligned.items():
                mapped[k][doc_id] = document
                result.differing[doc_id] = result.differing.get(doc_id, 0) + differing
                result.affected += len(affected)
                result.affected_spans += [{"document": doc_id, "annotator": spansets[k].name,
                                           "fragments": [list(f) for f in was], "label": label,
                                           "mapped": [list(f) for f in now] if now is not None else None}
                                          for was, label, now in affected]
            result.text_aligned.append(doc_id)
            result.documents.append(doc_id)
            continue
        if not align_whitespace and not same_as_written(copies):
            names = ", ".join(s.name for s, t in zip(spansets, texts) if t is not None and t != reference)
            raise FormatError(
                source_of(copies), f"document {doc_id!r} has a different text in {names} than in "
                f"{spansets[texts.index(reference)].name} (use {{align_whitespace}} if only whitespace differs, "
                f"{{align_text}} otherwise): {first_difference_among(spansets, texts, reference)}",
                align_whitespace=parameter("align_whitespace", True), align_text=parameter("align_text", True),
            )
        if len({without_whitespace(t) for t in known}) > 1:
            result.left_out.append(doc_id)
            result.differences.setdefault(doc_id, first_difference_among(spansets, texts, reference))
            continue
        positions = non_whitespace_positions(reference)
        tokens_from_text = next(d for d in copies if d.text is not None).tokens_from_text
        for k, document in enumerate(copies):
            if document.text is not None:
                mapped[k][doc_id] = onto_reference(document, reference, positions, tokens_from_text)
        result.whitespace_aligned.append(doc_id)
        result.documents.append(doc_id)
    if announce:
        if result.left_out:
            warn_texts_differ(result.left_out, result.differences)
        if result.token_spelling_differences:
            warn_token_spellings(result.token_spelling_differences)
    for k, replaced in mapped.items():
        if replaced:
            original = spansets[k]
            documents_k = {i: replaced.get(i, d) for i, d in original.documents.items()}
            result.spansets[k] = SpanSet(original.name, documents_k, list(original.notes), original.format)
    return result


def warn_texts_differ(left_out: list[str], differences: dict | None = None) -> None:
    """The warning naming the documents left out because their texts differ beyond whitespace
    (or, with ``--align-text``, beyond what the alignment takes), and where the first one's differ."""
    where = (differences or {}).get(left_out[0]) if left_out else None
    warnings.warn(f"{len(left_out)} document(s) left out because their texts differ beyond whitespace: "
                  + ", ".join(left_out)
                  + (f" ({left_out[0]}: {where})" if where else ""), SpanagreeWarning, stacklevel=find_stack_level())


#: Characters of context on each side of a first difference.
DIFFERENCE_CONTEXT = 20


def first_difference(first: str, second: str, first_name: str = "first", second_name: str = "second") -> str:
    r"""Where two texts first differ: the character offset, its line and column (from 1), and both
    versions around it, escaped onto one line.

    Examples
    --------
    >>> print(first_difference("Ana met Bo\nin Rome", "Ana met Bo\r\nin Rome", "ann1", "ann2"))
    character 10 (line 1, column 11): ann1 'Ana met Bo\nin Rome' vs ann2 'Ana met Bo\r\nin Rome'
    >>> print(first_difference("abc", "abcd"))
    character 3 (line 1, column 4): first 'abc' (ends) vs second 'abcd'
    """
    n = min(len(first), len(second))
    offset = next((k for k in range(n) if first[k] != second[k]), n)
    line = first.count("\n", 0, offset) + 1
    column = offset - (first.rfind("\n", 0, offset) + 1) + 1

    def around(text: str) -> str:
        start = max(0, offset - DIFFERENCE_CONTEXT)
        piece = text[start:offset + DIFFERENCE_CONTEXT]
        shown = ("…" if start else "") + repr(piece)[1:-1] + ("…" if offset + DIFFERENCE_CONTEXT < len(text) else "")
        return f"'{shown}'" + (" (ends)" if offset >= len(text) else "")

    return f"character {offset} (line {line}, column {column}): {first_name} {around(first)} vs {second_name} {around(second)}"


def first_difference_among(spansets: list[SpanSet], texts: list[str | None], reference: str) -> str:
    """:func:`first_difference` of the first copy that differs from the reference copy."""
    k_reference = texts.index(reference)
    k = next(k for k, t in enumerate(texts) if t is not None and t != reference)
    return first_difference(reference, texts[k], spansets[k_reference].name, spansets[k].name)


def warn_token_spellings(count: int) -> None:
    """The warning counting the CoNLL tokens spelt differently (compared by position all the same)."""
    warnings.warn(f"{count} token(s) are spelt differently across the CoNLL files "
                  "(compared by token position; spans shown on the first file's tokens)", SpanagreeWarning,
                  stacklevel=find_stack_level())


def source_of(copies: list[Document]) -> str:
    for document in copies:
        if document.source:
            return document.source
    return copies[0].id


def same_as_written(copies: list[Document]) -> bool:
    """Whether the copies of a document have one text once the CoNLL copies that say how their
    text is written (``unwritten_spaces``) are taken as written: what lets them be aligned
    through their non-whitespace characters without ``align_whitespace``.

    Examples
    --------
    >>> same_as_written([Document("d", "Hello , world", tokens_from_text=True, unwritten_spaces=(5,)),
    ...                  Document("d", "Hello, world")])
    True
    >>> same_as_written([Document("d", "Hello , world", tokens_from_text=True), Document("d", "Hello, world")])
    False
    """
    if not any(document.unwritten_spaces for document in copies):
        return False
    return len({as_written(document).text for document in copies if document.text is not None}) == 1


def without_whitespace(text: str) -> str:
    return "".join(text.split())


def non_whitespace_positions(text: str) -> list[int]:
    """Offsets of the non-whitespace characters of ``text``, in order."""
    return [i for i, ch in enumerate(text) if not ch.isspace()]


def onto_reference(document: Document, reference: str, reference_positions: list[int],
                   tokens_from_text: bool = False) -> Document:
    """Map a document's spans through its non-whitespace characters onto the reference text
    (whose copy comes with its tokens when ``tokens_from_text``)."""
    own_positions = non_whitespace_positions(document.text)
    spans, placed = [], []
    for span in document.spans:
        fragments = []
        for start, end in span.fragments:
            first, last = bisect_left(own_positions, start), bisect_left(own_positions, end)
            if first < last:
                fragments.append((reference_positions[first], reference_positions[last - 1] + 1))
        if fragments:
            spans.append(Span.trusted(span.doc, normalize_fragments(fragments), span.label, span.source, span.attributes))
            placed.append(spans[-1])
        else:
            placed.append(None)
            warnings.warn(f"{span.source or document.id}: a span covers only whitespace and is left out",
                          SpanagreeWarning, stacklevel=find_stack_level())
    tags = document.tags if document.tags and document.text.split() == reference.split() else None  # same tokens
    return Document(document.id, reference, spans, document.source, tokens_from_text, tags,
                    moved_relations(document.relations, document.spans, placed, keep_lost=False))


def token_offsets(text: str) -> list[list[tuple[int, int]]]:
    """Token offsets per line of a CoNLL-shaped text (tokens separated by one space)."""
    lines = []
    position = 0
    for line in text.split("\n"):
        tokens = []
        for token in line.split(" "):
            tokens.append((position, position + len(token)))
            position += len(token) + 1
        lines.append(tokens)
    return lines


def conll_token_differences(spansets: list[SpanSet], doc_id: str, texts: list[str | None]) -> int:
    """Count tokens spelt differently; raise unless sentence and token counts are equal."""
    reference_index = next(k for k, t in enumerate(texts) if t is not None)
    reference_lines = texts[reference_index].split("\n")
    differences = 0
    for k, text in enumerate(texts):
        if text is None or k == reference_index:
            continue
        lines = text.split("\n")
        if len(lines) != len(reference_lines):
            raise FormatError(source_of([spansets[k].documents[doc_id]]),
                              f"document {doc_id}: {len(lines)} sentences in {spansets[k].name}, "
                              f"{len(reference_lines)} in {spansets[reference_index].name} ({{align_text}} compares "
                              f"them through their texts): "
                              + first_difference(texts[reference_index], text, spansets[reference_index].name,
                                                 spansets[k].name), align_text=parameter("align_text", True))
        for number, (line, reference_line) in enumerate(zip(lines, reference_lines), 1):
            tokens, reference_tokens = line.split(" "), reference_line.split(" ")
            if len(tokens) != len(reference_tokens):
                raise FormatError(source_of([spansets[k].documents[doc_id]]),
                                  f"document {doc_id}, sentence {number}: {len(tokens)} tokens in "
                                  f"{spansets[k].name}, {len(reference_tokens)} in {spansets[reference_index].name} "
                                  "({align_text} compares them through their texts): "
                                  + first_difference(texts[reference_index], text, spansets[reference_index].name,
                                                     spansets[k].name), align_text=parameter("align_text", True))
            differences += sum(a != b for a, b in zip(tokens, reference_tokens))
    return differences


def onto_tokens(document: Document, reference: str) -> Document:
    """Place the spans of a document that comes with its tokens on the reference copy's tokens
    (same token positions; the reference comes with its tokens too); the tokens it spells
    otherwise are its ``written_otherwise``."""
    own = [t for line in token_offsets(document.text) for t in line]
    target = [t for line in token_offsets(reference) for t in line]
    start_index = {s: i for i, (s, _) in enumerate(own)}
    end_index = {e: i for i, (_, e) in enumerate(own)}
    spans = []
    for span in document.spans:
        fragments = tuple((target[start_index[s]][0], target[end_index[e]][1]) for s, e in span.fragments)
        spans.append(Span.trusted(span.doc, fragments, span.label, span.source, span.attributes))
    text = document.text
    written = tuple((at, stop, text[start:end]) for (start, end), (at, stop) in zip(own, target)
                    if text[start:end] != reference[at:stop])
    return Document(document.id, reference, spans, document.source, True,
                    relations=moved_relations(document.relations, document.spans, spans), written_otherwise=written)
