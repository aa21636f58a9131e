"""Units smaller than a document for resampling and tests (``--unit sentence``).

A document's sentences are, for CoNLL input (whose text is its tokens joined by spaces and its
sentences by ``\\n``: :mod:`spanagree.formats.conll`), its lines; for any other input, the
sentences of spaCy's rule-based ``sentencizer`` on a blank pipeline (``--lang``, default ``en``)
run on the reference's text (the first annotator's, or the gold's). Each span belongs to the
sentence where it **starts** (a span crossing a sentence break belongs to the one it starts in);
an aligned pair belongs to the sentence of its second span's start (the gold's, in ``score``), so
that the per-sentence counts add up to the document's exactly: ``a`` is the credit of the pairs
of the sentence, ``b`` and ``c`` its first and second spans less ``a``.
"""

from __future__ import annotations

from bisect import bisect_right
from functools import lru_cache
from math import fsum

from ..span import Document


def sentence_starts(document: Document | None, lang: str | None = None) -> list[int]:
    """The character offsets where the document's sentences start (``[0]`` without a text)."""
    text = document.text if document is not None else None
    if not text:
        return [0]
    if document.tokens_from_text:
        return [0] + [k + 1 for k, character in enumerate(text) if character == "\n"]
    sentences = sentencizer(lang or "en")(text).sents
    return [0] + [sentence.start_char for sentence in sentences][1:]


@lru_cache(maxsize=4)
def sentencizer(lang: str):
    """A blank spaCy pipeline of ``lang`` with the rule-based sentencizer (made once per process)."""
    import spacy

    from ..errors import UsageError

    try:
        nlp = spacy.blank(lang)
    except Exception as error:  # spaCy raises ImportError or its own errors for an unknown language
        raise UsageError(f"spaCy has no language {lang!r} for the sentencizer: {str(error).splitlines()[0]}",
                         option="lang") from None
    nlp.add_pipe("sentencizer")
    return nlp


def sentence_counts(alignment, starts: list[int]) -> list[tuple[float, float, float]]:
    """``(a, b, c)`` of each sentence of one document's alignment (see the module's rule)."""
    n = len(starts)
    credit = [[] for _ in range(n)]
    firsts = [0] * n
    seconds = [0] * n

    def sentence(span) -> int:
        return max(bisect_right(starts, span.fragments[0][0]) - 1, 0)

    for pair in alignment.pairs:
        k = sentence(pair.second)
        credit[k].append(pair.credit)
        firsts[k] += 1
        seconds[k] += 1
    for span in alignment.unmatched_first():
        firsts[sentence(span)] += 1
    for span in alignment.unmatched_second():
        seconds[sentence(span)] += 1
    counts = []
    for k in range(n):
        a = fsum(credit[k])
        counts.append((a, max(firsts[k] - a, 0), max(seconds[k] - a, 0)))
    return counts


def sentence_units(first, second, reference, documents: list[str], rule, lang: str | None) -> dict:
    """Each document's per-sentence counts of ``first`` against ``second`` (a second alignment
    pass, made only under ``unit="sentence"``); the sentences are ``reference``'s (the gold, or
    the group's first annotator)."""
    from .compare import compare_pair

    starts = {d: sentence_starts(reference.documents.get(d), lang) for d in documents}
    found = compare_pair(first, second, documents, rule, each=lambda doc_id, alignment: sentence_counts(
        alignment, starts[doc_id]))
    return dict(zip(documents, found.each))


def unit_rows(tallies, documents: list[str], unit: str, units: list[dict] | None = None) -> list[list[tuple]]:
    """Per unit (each document, or each sentence of each document, in order), each tally's
    ``(a, b, c)``: the rows that the bootstrap resamples and the paired tests swap. The tallies
    (:class:`~spanagree.pipeline.compare.PairTally`) are of the same documents' comparisons;
    ``units`` gives, per tally, each document's per-sentence counts (:func:`sentence_units`),
    read when ``unit`` is ``"sentence"``."""
    nothing = (0, 0, 0)  # a tally that did not compare the document (agree --documents pairwise)
    if unit == "document":
        return [[tally.by_document[d].astuple() if d in tally.by_document else nothing for tally in tallies]
                for d in documents]
    rows = []
    for d in documents:
        size = max(len(sentences.get(d, ())) for sentences in units)
        own = [sentences.get(d) or [nothing] * size for sentences in units]
        rows += [[sentences[s] for sentences in own] for s in range(size)]
    return rows
