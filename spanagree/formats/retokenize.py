"""Raw texts put in CoNLL's shape for ``convert --to conll --tokenize``: spaCy's tokenizer and
sentence splitter, with the spans carried over.

CoNLL holds a text as tokens (one per line) in sentences; its reader rebuilds the text as the
tokens joined by one space and the sentences by ``\\n`` (:mod:`spanagree.formats.conll`). A text
from BRAT, JSONL or XML is not in that shape (line breaks inside sentences, several spaces,
punctuation glued to words), so its CoNLL file cannot be written as it is. :func:`conll_shaped`
tokenises every document and rewrites its text in that shape:

* **Tokens** are spaCy's (a blank pipeline of ``lang``, or the pipeline ``spacy_model``), without
  whitespace tokens, each further split at whitespace inside it (CoNLL's columns are separated by
  whitespace) and **where a span starts or ends inside it** (``Lisbon's`` with a span on
  ``Lisbon`` gives ``Lisbon`` and ``'s``), so every span covers whole tokens.
* **Sentences** are the pipeline's (a blank pipeline gets spaCy's rule-based ``sentencizer``; so
  does a pipeline that sets no sentence boundaries), **never split inside a span**: a boundary
  inside a span (from its first character to its last) is dropped, the two sentences joined.
* **Spans** keep their labels, attributes and fragments, their offsets moved to the new text.
  Whitespace at a span's edges is trimmed (a span ``" Porto"`` becomes ``"Porto"``); a span of
  whitespace only cannot be carried over: it is left out and counted in the span set's notes.
  So the new text differs from the old only in whitespace, and every span covers the same
  non-whitespace characters as before (``agree --align-whitespace`` between the two gives F1 1).
* A document without text cannot be tokenised: a :class:`~spanagree.errors.UsageError` names it.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from ..errors import UsageError
from ..span import Document, Span, SpanSet, moved_relations

_NON_SPACE = re.compile(r"\S+")


def sentence_pipeline(*, lang: str | None = None, spacy_model: str | None = None):
    """The spaCy pipeline that tokenises and splits sentences: ``spacy_model`` (a name or a path)
    loaded, or a blank ``lang`` pipeline (default ``en``); a ``sentencizer`` added when the
    pipeline sets no sentence boundaries (no parser, ``senter`` or ``sentencizer``).

    Raises
    ------
    UsageError
        The pipeline cannot be loaded, or spaCy has no such language.
    """
    import spacy

    from ..errors import first_line

    if spacy_model:
        try:
            nlp = spacy.load(spacy_model)
        except (OSError, ImportError, ValueError) as error:
            raise UsageError(f"{{option}} {spacy_model}: cannot load this spaCy pipeline (is it installed? a "
                             f"folder saved with nlp.to_disk?): {first_line(error)}", option="spacy_model") from None
    else:
        lang = lang or "en"
        try:
            nlp = spacy.blank(lang)
        except (ImportError, KeyError, ValueError) as error:
            raise UsageError(f"{{option}} {lang}: spaCy has no such language: {first_line(error)}",
                             option="lang") from None
    if not any(name in nlp.pipe_names for name in ("parser", "senter", "sentencizer")):
        nlp.add_pipe("sentencizer")
    return nlp


def conll_shaped(spanset: SpanSet, *, lang: str | None = None, spacy_model: str | None = None) -> SpanSet:
    """``spanset`` with every text tokenised and rewritten in CoNLL's shape, spans carried over
    (see the module documentation).

    Examples
    --------
    >>> s = SpanSet.from_spans("a", [Span("d", (8, 14), "LOC"), Span("d", (31, 40), "PER")],
    ...                        {"d": "Ana met Lisbon's\\n  mayor. Then Bo  Silva left."})
    >>> shaped = conll_shaped(s)
    >>> shaped.documents["d"].text
    "Ana met Lisbon 's mayor .\\nThen Bo Silva left ."
    >>> [(sp.label, sp.text(shaped.documents["d"].text)) for sp in shaped]
    [('LOC', 'Lisbon'), ('PER', 'Bo Silva')]
    """
    nlp = sentence_pipeline(lang=lang, spacy_model=spacy_model)
    documents = {}
    blank = 0
    for doc_id, document in spanset.documents.items():
        if document.text is None:
            raise UsageError(f"document {doc_id!r} has no text: {{option}} needs texts", option="tokenize")
        shaped, left_out = _shaped(nlp, document)
        documents[doc_id] = shaped
        blank += left_out
    notes = list(spanset.notes)
    if blank:
        notes.append(f"{blank} span{'s' if blank != 1 else ''} of whitespace only left out (--tokenize: a token "
                     "holds no whitespace)")
    return SpanSet(spanset.name, documents, notes, spanset.format)


def _shaped(nlp, document: Document) -> tuple[Document, int]:
    """One document in CoNLL's shape, and the number of whitespace-only spans left out."""
    text = document.text
    spans, trimmed, left_out = [], [], 0
    for span in document.spans:
        fragments = []
        for start, end in span.fragments:
            piece = text[start:end]
            inner = piece.strip()
            if inner:
                first = start + (len(piece) - len(piece.lstrip()))
                fragments.append((first, first + len(inner)))
        if fragments:
            spans.append(span)
            trimmed.append(tuple(fragments))
        else:
            left_out += 1
    cuts = sorted({offset for fragments in trimmed for fragment in fragments for offset in fragment})
    doc = nlp(text)
    # Tokens: spaCy's without whitespace, split at inner whitespace and at span edges inside them.
    tokens: list[tuple[int, int]] = []
    for token in doc:
        if token.is_space:
            continue
        for part in _NON_SPACE.finditer(token.text):
            start, end = token.idx + part.start(), token.idx + part.end()
            inside = cuts[bisect_right(cuts, start):bisect_left(cuts, end)]
            for cut in inside:
                tokens.append((start, cut))
                start = cut
            tokens.append((start, end))
    # Sentence starts, except inside a span's hull (never split a span across sentences).
    hulls = [(fragments[0][0], fragments[-1][1]) for fragments in trimmed]
    breaks = sorted(sent.start_char for sent in doc.sents
                    if not any(first < sent.start_char < last for first, last in hulls))
    # The new text: tokens joined by one space, sentences by a line break.
    parts: list[str] = []
    new_start: dict[int, int] = {}
    new_end: dict[int, int] = {}
    position = 0
    for number, (start, end) in enumerate(tokens):
        if number:
            index = bisect_left(breaks, tokens[number - 1][1])  # a sentence starts between the two tokens?
            sentence_break = index < len(breaks) and breaks[index] <= start
            parts.append("\n" if sentence_break else " ")
            position += 1
        new_start[start] = position
        parts.append(text[start:end])
        position += end - start
        new_end[end] = position
    new_text = "".join(parts)
    carried = [Span.trusted(document.id, tuple((new_start[s], new_end[e]) for s, e in fragments), span.label,
                            span.source, span.attributes) for span, fragments in zip(spans, trimmed)]
    kept = dict(zip(map(id, spans), carried))
    relations = moved_relations(document.relations, document.spans, [kept.get(id(span)) for span in document.spans],
                                keep_lost=False)
    return Document(document.id, new_text, carried, document.source, relations=relations), left_out

