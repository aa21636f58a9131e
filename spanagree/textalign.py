"""Copies whose texts differ (``--align-text``): spans mapped through a character alignment.

Re-annotation projects change the text they annotate and tools normalise it: a sentence merged, a
token split, a quote straightened, CRLF line ends. With ``--align-text`` each copy's text is
aligned to the first copy's at the character level — the longest common subsequence of their
characters, by rapidfuzz's ``Indel.opcodes`` (C++, bit-parallel) — and every span's offsets are
mapped through it. Measured on a 40,598-character text with 200 one-character edits: rapidfuzz
0.22 s for the optimal alignment (382 characters inserted or deleted); Python's ``difflib``
93.7 s without its junk heuristic, and with it (its default) 18 ms for a useless alignment
(40,449 characters "differing"). spacy-alignments aligns tokens, not characters, so it would need
a tokenisation first. The mapping:

- a span boundary inside an unchanged stretch moves with it;
- a boundary inside a changed stretch goes to that stretch's start (a span's start) or end (its
  end) in the first copy's text, so a span touching changed characters is mapped as far as the
  alignment allows;
- a span whose characters were all removed is left out (counted).

Per document, the **differing characters** are the characters inserted or deleted by the
alignment (the Indel distance); the spans that touch a changed stretch that is not only whitespace
are **affected** (counted, and reported). Whitespace-only changes move spans like any other and
affect nothing. A document whose texts differ in more than :data:`MAX_DIFFERING_SHARE` of its
characters, or longer than :data:`MAX_CHARACTERS`, is left out with a warning (they are different
texts, or too long to align).

When the texts are equal, nothing is aligned: ``--align-text`` costs nothing on the usual corpus.
"""

from __future__ import annotations

from bisect import bisect_right

from .span import Document, Span, moved_relations, normalize_fragments

#: Longer documents are not aligned (left out with a warning).
MAX_CHARACTERS = 2_000_000
#: Copies differing in more than this share of the longer text's characters are different texts.
MAX_DIFFERING_SHARE = 0.5


def align_copies(spansets, doc_id: str, copies: list[Document], reference: str) -> dict | None:
    """Every copy (by its place) whose text differs from ``reference`` mapped onto it:
    ``{k: (document, differing characters, affected spans)}`` — each affected span as
    ``(fragments in the copy, label, fragments in the reference or None)``; ``None`` when some copy
    cannot be aligned (too long, or too different)."""
    found = {}
    for k, document in enumerate(copies):
        if document.text is None or document.text == reference:
            continue
        if max(len(document.text), len(reference)) > MAX_CHARACTERS:
            return None
        mapped = onto_text(document, reference)
        if mapped is None:
            return None
        found[k] = mapped
    return found


def onto_text(document: Document, reference: str) -> tuple[Document, int, list] | None:
    """``document``'s spans on ``reference`` through the character alignment of the two texts:
    the mapped document, the differing characters and the affected spans (``None``: too different)."""
    from rapidfuzz.distance import Indel

    text = document.text
    blocks = stretches(Indel.opcodes(text, reference))
    differing = sum((s_end - s_start) + (d_end - d_start) for equal, s_start, s_end, d_start, d_end in blocks
                    if not equal)
    if differing > MAX_DIFFERING_SHARE * 2 * max(len(text), len(reference), 1):
        return None
    starts = [block[1] for block in blocks]
    changed = [(s_start, s_end) for equal, s_start, s_end, d_start, d_end in blocks if not equal
               and not (text[s_start:s_end] + reference[d_start:d_end]).isspace()]

    def map_start(pos: int) -> int:
        equal, s_start, s_end, d_start, d_end = blocks[max(bisect_right(starts, pos) - 1, 0)]
        return d_start + (pos - s_start) if equal else d_start

    def map_end(pos: int) -> int:
        equal, s_start, s_end, d_start, d_end = blocks[max(bisect_right(starts, pos - 1) - 1, 0)]
        return d_start + (pos - s_start) if equal else d_end

    spans, affected, placed = [], [], []
    for span in document.spans:
        fragments = []
        touched = False
        for start, end in span.fragments:
            new_start, new_end = map_start(start), map_end(end)
            if any(a < end and start < b or (a == b and start < a < end) for a, b in changed):
                touched = True
            if new_start < new_end:
                fragments.append((new_start, new_end))
        if fragments:
            spans.append(Span.trusted(span.doc, normalize_fragments(fragments), span.label, span.source,
                                      span.attributes))
        placed.append(spans[-1] if fragments else None)
        if touched:  # as the copy had it, and where it went (None: all its characters were removed)
            affected.append((span.fragments, span.label, spans[-1].fragments if fragments else None))
    tags = document.tags if document.tags and document.text.split() == reference.split() else None  # same tokens
    relations = moved_relations(document.relations, document.spans, placed, keep_lost=False)
    return Document(document.id, reference, spans, document.source, False, tags, relations), differing, affected


def stretches(opcodes) -> list[tuple[bool, int, int, int, int]]:
    """The alignment as alternating stretches: ``(equal, src_start, src_end, dest_start, dest_end)``,
    consecutive insertions, deletions and replacements joined into one changed stretch (a boundary
    in it goes to the whole change's start or end)."""
    found: list[list] = []
    for op in opcodes:
        equal = op.tag == "equal"
        if found and not equal and not found[-1][0]:
            found[-1][2], found[-1][4] = op.src_end, op.dest_end
        else:
            found.append([equal, op.src_start, op.src_end, op.dest_start, op.dest_end])
    return [tuple(block) for block in found] or [(True, 0, 0, 0, 0)]

