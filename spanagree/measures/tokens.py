"""Token-level agreement, where ``d`` is known: every token gets one label or ``O``.

Spans have no fourth cell (how many phrases did both annotators rightly leave unmarked?), so
F1 = PSA needs no ``d`` and chance-corrected measures are undefined for them (Hripcsak &
Rothschild 2005). Tokens are countable items, so at token level ``d`` exists and Cohen's kappa,
Scott's pi, informedness, markedness, MCC, Fleiss' kappa and Krippendorff's alpha can be
reported beside the PSA.

Tokens
    Documents that come with their tokens (``Document.tokens_from_text``: CoNLL's, whose text is
    the tokens joined by single spaces and newlines) give their own: the whitespace-separated
    pieces of the text (:func:`document_tokens`); :func:`tokenizer_for` says whether every
    document of the inputs does. Otherwise spaCy's tokenizer on the document text: a blank pipeline for ``lang`` (default ``en``), or the tokenizer of the
    installed pipeline ``spacy_model``. Whitespace-only tokens (spaCy's tokens for runs of spaces
    and line breaks) are not items.
Labels
    A token gets the label of a span when any of its characters is covered by one of the span's
    fragments: the gap of a discontinuous span covers nothing, so its tokens are not labelled by
    it. A token covered by several spans of one annotator (nested, crossing or same-offset spans)
    gets **one** label — the innermost span's: fewest covered characters, then the later start,
    then the label in alphabetical order — and a warning gives the number of such tokens.
    Every other token is ``O``. With ``labels="ignore"`` every label becomes ``marked``.
Two tables per pair of annotators (first, second)
    - the **k×k table** over the categories (labels + ``O``; rows = first, columns = second):
      Cohen's kappa, Scott's pi, informedness, markedness and MCC (:mod:`spanagree.measures.tables`);
    - the **token counts** ``a, b, c`` that spanagree would give for one-token spans (``a`` = tokens
      both marked, with the same label when labels are strict; ``b`` = the first's marked tokens
      − a; ``c`` = the second's − a) and ``d`` = tokens both left ``O``. The token PSA is
      ``2a / (2a + b + c)``, and ``kappa_2x2`` = :meth:`Counts(a, b, c).kappa(d)
      <spanagree.measures.counts.Counts.kappa>` is the Cohen's kappa that tends to it as ``d`` grows. A
      token with two different labels counts once in ``b`` and once in ``c`` (as a span with the
      wrong label does), so with labels strict ``a + b + c + d`` exceeds the number of tokens by
      the number of such tokens; with labels ignored, or one label, ``[[a, b], [c, d]]`` is the
      k×k table and ``kappa_2x2`` equals ``cohen_kappa``.

    The output reports the token PSA and ``d`` beside the k×k figures. Informedness and markedness
    take the second of the pair as the reference (in ``score``: the gold, the prediction being
    first); they swap when the pair is swapped.
All annotators
    Fleiss' kappa and Krippendorff's alpha (nominal) over the same tokens (items = tokens,
    categories = labels + ``O``).

References
----------
Hripcsak G, Rothschild AS (2005). Agreement, the F-measure, and reliability in information
retrieval. JAMIA 12(3):296–298.
"""

from __future__ import annotations

import itertools
import re
import warnings
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from .counts import Counts
from ..errors import SpanagreeWarning, UsageError
from ..span import Document, Span, SpanSet

TOKENIZERS = ("conll", "spacy")
MARKED = "marked"
#: The code of a token an annotator did not see (its document is not among the annotator's:
#: ``agree --documents pairwise``).
MISSING = -1
WHITESPACE_TOKEN = re.compile(r"\S+")


def conll_tokens(text: str) -> list[tuple[int, int]]:
    """Offsets ``[start, end)`` of the whitespace-separated pieces of ``text`` (CoNLL tokens).

    Examples
    --------
    >>> conll_tokens("St. Anne 's\\nHospital")
    [(0, 3), (4, 8), (9, 11), (12, 20)]
    """
    return [m.span() for m in WHITESPACE_TOKEN.finditer(text)]


def document_tokens(document: Document) -> list[tuple[int, int]] | None:
    """The tokens a document comes with, as offsets ``[start, end)``, or ``None`` when it has none.

    A document read from CoNLL has ``tokens_from_text`` set: its tokens are the
    whitespace-separated pieces of its text (:func:`conll_tokens`).

    Examples
    --------
    >>> document_tokens(Document("1", "EU rejects\\nGerman", tokens_from_text=True))
    [(0, 2), (3, 10), (11, 17)]
    >>> document_tokens(Document("1", "EU rejects\\nGerman")) is None
    True
    """
    if not document.tokens_from_text or document.text is None:
        return None
    return conll_tokens(document.text)


def tokenizer_for(spansets: list[SpanSet]) -> str:
    """The tokenizer of :func:`token_agreement` (``tokens=``) for these inputs: ``"conll"`` when
    every document of every span set comes with its tokens (``Document.tokens_from_text``, as
    CoNLL's do), else ``"spacy"``.

    Examples
    --------
    >>> conll = SpanSet("a", {"1": Document("1", "EU rejects", tokens_from_text=True)})
    >>> jsonl = SpanSet("b", {"1": Document("1", "EU rejects")})
    >>> tokenizer_for([conll, conll]), tokenizer_for([conll, jsonl])
    ('conll', 'spacy')
    """
    documents = [d for s in spansets for d in s.documents.values()]
    return "conll" if documents and all(d.tokens_from_text for d in documents) else "spacy"


def spacy_tokenizer(*, lang: str | None = "en", spacy_model: str | None = None):
    """A function ``text → [(start, end), ...]`` using spaCy's tokenizer; whitespace tokens left out.

    ``spacy_model`` (an installed pipeline's name, or a path to a saved one) takes precedence over
    ``lang`` (a blank pipeline). Raises :class:`~spanagree.errors.UsageError` when either cannot be
    loaded.
    """
    import spacy

    if spacy_model:
        try:
            nlp = spacy.load(spacy_model)
        except (OSError, ImportError, ValueError) as error:
            raise UsageError(f"{{option}} {spacy_model}: cannot load this spaCy pipeline (is it installed? "
                             f"python -m spacy download {spacy_model}): {first_line(error)}",
                             option="spacy_model") from None
    else:
        lang = lang or "en"
        try:
            nlp = spacy.blank(lang)
        except (ImportError, KeyError, ValueError) as error:
            raise UsageError(f"{{option}} {lang}: spaCy has no such language: {first_line(error)}", option="lang") from None
    tokenizer = nlp.tokenizer

    def tokenize(text: str) -> list[tuple[int, int]]:
        return [(t.idx, t.idx + len(t.text)) for t in tokenizer(text) if not t.is_space]

    return tokenize


def first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def token_labels(spans: list[Span], tokens: list[tuple[int, int]], *, labels: str = "strict") -> tuple[list, int]:
    """Each token's label (``None`` for ``O``) and the number of tokens several spans cover.

    Parameters
    ----------
    spans : list of Span
        One annotator's spans over one document.
    tokens : list of (int, int)
        Sorted, non-overlapping token offsets ``[start, end)``.
    labels : {"strict", "ignore"}
        With ``"ignore"`` every covered token is :data:`MARKED`.

    Examples
    --------
    Text ``University of Lisbon said``: ``[University of [Lisbon]LOC]ORG``

    >>> tokens = [(0, 10), (11, 13), (14, 20), (21, 25)]
    >>> token_labels([Span("d", (0, 20), "ORG"), Span("d", (14, 20), "LOC")], tokens)
    (['ORG', 'ORG', 'LOC', None], 1)

    A discontinuous span ``[breast]…[cancer]`` leaves its gap ``and ovarian`` unlabelled:

    >>> tokens = [(0, 6), (7, 10), (11, 18), (19, 25)]
    >>> token_labels([Span("d", ((0, 6), (19, 25)), "DISEASE")], tokens)
    (['DISEASE', None, None, 'DISEASE'], 0)
    """
    starts = [s for s, _ in tokens]
    ends = [e for _, e in tokens]
    best: list[tuple | None] = [None] * len(tokens)
    covering = [0] * len(tokens)
    for span in set(spans):  # identical spans (fragments and label) cover a token once
        label = span.label if labels == "strict" else MARKED
        key = (span.length, -span.start, label)
        covered = set()
        for start, end in span.fragments:
            covered.update(range(bisect_right(ends, start), bisect_left(starts, end)))
        for k in covered:
            covering[k] += 1
            if best[k] is None or key < best[k]:
                best[k] = key
    multiply = sum(1 for n in covering if n > 1)
    return [None if key is None else key[2] for key in best], multiply


@dataclass
class TokenPair:
    """One pair of annotators at token level: the k×k table and the token counts with ``d``."""

    first: str
    second: str
    table: list[list[int]]
    counts: Counts
    d: int

    @property
    def tokens(self) -> int:
        return int(sum(map(sum, self.table)))

    def figures(self) -> dict:
        from . import tables as stats

        counts = self.counts
        return {
            "psa": counts.f1,
            "kappa_2x2": counts.kappa(self.d),
            "cohen_kappa": stats.cohen_kappa(self.table),
            "scott_pi": stats.scott_pi(self.table),
            "informedness": stats.informedness(self.table),
            "markedness": stats.markedness(self.table),
            "mcc": stats.mcc(self.table),
        }

    def to_dict(self) -> dict:
        c = self.counts
        return {"annotators": [self.first, self.second], "tokens": self.tokens,
                "a": c.a, "b": c.b, "c": c.c, "d": self.d, **self.figures(), "table": self.table}


@dataclass
class TokenAgreement:
    """The result of :func:`token_agreement`. ``to_dict()`` is the ``"chance"`` part of the JSON."""

    annotators: list[str]
    documents: list[str]
    categories: list[str]
    tokenizer: str
    labels: str
    codes: object  # numpy array, annotators × tokens: index into categories (MISSING: not annotated)
    token_index: list[tuple[str, int, int]]  # (document, start, end) of each token
    pairs: list[TokenPair]
    multiply_covered: dict[str, int] = field(default_factory=dict)

    @property
    def tokens(self) -> int:
        return len(self.token_index)

    def category_counts(self):
        """Tokens × categories: how many annotators gave each token each category."""
        import numpy as np

        counts = np.zeros((self.tokens, len(self.categories)))
        rows = np.arange(self.tokens)
        for codes in self.codes:
            seen = codes != MISSING
            np.add.at(counts, (rows[seen], codes[seen]), 1)
        return counts

    @property
    def complete(self) -> bool:
        """Whether every annotator labelled every token (not so when some annotator lacks a
        document: ``agree --documents pairwise``)."""
        return not (self.codes == MISSING).any()

    def fleiss_kappa(self) -> float | None:
        """Fleiss' kappa; ``None`` when some annotator lacks some document (Fleiss' kappa needs
        every rater on every item; Krippendorff's alpha takes the missing ratings)."""
        from .tables import fleiss_kappa

        return fleiss_kappa(self.category_counts()) if self.complete else None

    def krippendorff_alpha(self) -> float:
        from .tables import krippendorff_alpha

        return krippendorff_alpha(self.category_counts())

    def to_dict(self) -> dict:
        return {
            "level": "token",
            "tokenizer": self.tokenizer,
            "labels": self.labels,
            "tokens": self.tokens,
            "documents": len(self.documents),
            "categories": self.categories,
            "pairs": [pair.to_dict() for pair in self.pairs],
            "fleiss_kappa": self.fleiss_kappa(),
            "krippendorff_alpha": self.krippendorff_alpha(),
            "multiply_covered_tokens": self.multiply_covered,
        }

    def token_frame(self):
        """One row per token: document, start, end and each annotator's label (pandas)."""
        import pandas as pd

        frame = pd.DataFrame(self.token_index, columns=["document", "start", "end"])
        for name, codes in zip(self.annotators, self.codes):
            frame[name] = [self.categories[k] if k != MISSING else None for k in codes]
        return frame


def token_agreement(spansets: list[SpanSet], documents: list[str] | None = None, *, tokens: str = "spacy",
                    lang: str | None = "en", spacy_model: str | None = None, labels: str = "strict",
                    names: list[str] | None = None, present: list | None = None) -> TokenAgreement:
    """Token-level agreement of two or more annotators, with ``d`` known.

    Parameters
    ----------
    spansets : list of SpanSet
        The annotators, over the same texts (reconcile them first:
        :func:`spanagree.texts.reconcile`). A span set without a document has no spans there.
    documents : list of str, optional
        The documents to compare (default: the first span set's).
    tokens : {"spacy", "conll"}
        ``"conll"``: the whitespace-separated pieces of the text (the tokens of documents that
        come with theirs, :func:`document_tokens`; :func:`tokenizer_for` chooses); ``"spacy"``:
        spaCy's tokenizer.
    lang : str
        Language of spaCy's blank tokenizer (default ``en``).
    spacy_model : str, optional
        An installed spaCy pipeline (or a path to a saved one) whose tokenizer to use instead.
    labels : {"strict", "ignore"}
        ``"ignore"`` compares marked against unmarked only.
    names : list of str, optional
        Annotator names (default: the span sets' names).
    present : list of sets of str, optional
        Per annotator, the documents it annotated (``agree --documents pairwise``): on the others
        its labels are missing, not ``O`` — each pair is compared on the tokens of the documents
        both have, Krippendorff's alpha takes the missing ratings, Fleiss' kappa (which needs
        every rater on every item) is ``None``. Default: every annotator annotated every document.

    Returns
    -------
    TokenAgreement

    Examples
    --------
    ``Ana Ruiz met Bo Li in Porto .`` — ann1 marks Ana Ruiz, Bo Li (PER), Porto (LOC); ann2 Ana
    Ruiz, Bo (PER), Porto (ORG):

    >>> text = "Ana Ruiz met Bo Li in Porto ."
    >>> ann1 = SpanSet.from_spans("ann1", [Span("d", (0, 8), "PER"), Span("d", (13, 18), "PER"),
    ...                                    Span("d", (22, 27), "LOC")], {"d": text})
    >>> ann2 = SpanSet.from_spans("ann2", [Span("d", (0, 8), "PER"), Span("d", (13, 15), "PER"),
    ...                                    Span("d", (22, 27), "ORG")], {"d": text})
    >>> result = token_agreement([ann1, ann2], tokens="conll")
    >>> pair = result.pairs[0]
    >>> pair.counts, pair.d
    (Counts(a=3, b=2, c=1), 3)
    >>> round(pair.figures()["cohen_kappa"], 4)
    0.6
    """
    import numpy as np

    if len(spansets) < 2:
        raise UsageError("token-level agreement needs at least two annotators")
    if tokens not in TOKENIZERS:
        raise UsageError(f"tokens must be one of {TOKENIZERS}, got {tokens!r}")
    if labels not in ("strict", "ignore"):
        raise UsageError(f"labels must be strict or ignore, got {labels!r}")
    names = list(names) if names is not None else [s.name for s in spansets]
    if documents is None:
        documents = list(spansets[0].documents)
    if tokens == "conll":
        tokenize, tokenizer = conll_tokens, "conll"
    elif spacy_model:
        tokenize, tokenizer = spacy_tokenizer(spacy_model=spacy_model), f"spacy model {spacy_model}"
    else:
        tokenize, tokenizer = spacy_tokenizer(lang=lang), f"spacy blank {lang or 'en'}"

    token_index: list[tuple[str, int, int]] = []
    per_annotator: list[list[str | None]] = [[] for _ in spansets]
    multiply = [0] * len(spansets)
    for doc_id in documents:
        text = next((s.documents[doc_id].text for s in spansets
                     if doc_id in s.documents and s.documents[doc_id].text is not None), None)
        if text is None:
            raise UsageError(f"document {doc_id!r} has no text: token-level agreement ({{option}}) needs the texts",
                             option="chance")
        offsets = tokenize(text)
        token_index.extend((doc_id, s, e) for s, e in offsets)
        for k, spanset in enumerate(spansets):
            if present is not None and doc_id not in present[k]:
                per_annotator[k].extend([MISSING] * len(offsets))
                continue
            document = spanset.documents.get(doc_id)
            found, several = token_labels(document.spans if document else [], offsets, labels=labels)
            per_annotator[k].extend(found)
            multiply[k] += several
    for name, count in zip(names, multiply):
        if count:
            warnings.warn(f"{name}: {count} token(s) covered by more than one span (nested or overlapping spans) "
                          "get the innermost span's label at token level", SpanagreeWarning, stacklevel=2)

    used = sorted({label for found in per_annotator for label in found if label is not None and label != MISSING})
    outside = "O" if "O" not in used else "(unmarked)"
    categories = used + [outside]
    index = {label: k for k, label in enumerate(used)}
    unmarked = len(used)
    codes = np.array([[unmarked if label is None else MISSING if label == MISSING else index[label]
                       for label in found] for found in per_annotator],
                     dtype=np.int64).reshape(len(spansets), len(token_index))

    k = len(categories)
    pairs = []
    for i, j in itertools.combinations(range(len(spansets)), 2):
        both = (codes[i] != MISSING) & (codes[j] != MISSING)  # the tokens of documents both annotated
        first, second = codes[i][both], codes[j][both]
        table = np.bincount(first * k + second, minlength=k * k).reshape(k, k)
        marked_i, marked_j = first != unmarked, second != unmarked
        a = int(np.sum(marked_i & (first == second)))
        counts = Counts(a, int(marked_i.sum()) - a, int(marked_j.sum()) - a)
        d = int(np.sum(~marked_i & ~marked_j))
        pairs.append(TokenPair(names[i], names[j], table.tolist(), counts, d))
    return TokenAgreement(names, list(documents), categories, tokenizer, labels, codes, token_index, pairs,
                          {name: count for name, count in zip(names, multiply) if count})


def pair_columns(chance: dict) -> list[dict]:
    """Per pair, the token-level figures as flat CSV columns (``token_`` prefix)."""
    keys = ("tokens", "a", "b", "c", "d", "psa", "kappa_2x2", "cohen_kappa", "scott_pi", "informedness",
            "markedness", "mcc")
    return [{f"token_{key}": pair[key] for key in keys} for pair in chance["pairs"]]

