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
Categories
    By default (``categories="label"``) a token's category is its label, as above. Papers often
    report kappa over the tokens' IOB tags instead: ``categories="tag"`` makes it the token's
    IOB2 tag — ``B-`` + the label on the first token the labelling span covers, ``I-`` + the
    label on the next ones, ``O`` elsewhere — and, for a CoNLL document, the tag column as
    written where it says otherwise (``Document.tags``: an ``I-X`` that begins a chunk, another
    scheme's ``S-X``; not after ``label_map``/``only`` relabel the spans, nor through a text
    alignment that changes the tokens); ``categories="bio"`` the letter before the tag's hyphen
    (``B``, ``I``, ``O``). The tables, counts and measures below are the same, over these
    categories (``a`` counts the tokens both gave the same tag).
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
from collections import Counter
from itertools import accumulate
from operator import add, sub
from dataclasses import dataclass, field

from .counts import Counts
from ..errors import SpanagreeWarning, UsageError, find_stack_level, first_line
from ..slotted import Slotted
from ..span import Document, Span, SpanSet

TOKENIZERS = ("conll", "spacy")
#: What a token's category is (``chance_categories``): its ``label`` (the label of the span that
#: covers it, or ``O``), its IOB2 ``tag`` (``B-PER``, ``I-PER``, ``O``; CoNLL's tag as written), or
#: the ``bio`` letter of that tag (``B``, ``I``, ``O``).
CATEGORIES = ("label", "tag", "bio")
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
    words = text.split()  # (str.split and the pattern's \s agree on every code point)
    lengths = list(map(len, words))
    if sum(lengths) + len(words) - 1 == len(text):  # one character between tokens (CoNLL's texts)
        ends = list(map(add, accumulate(lengths), range(len(words))))
        return list(zip(map(sub, ends, lengths), ends))
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


def tokenizer_for(inputs, format_of=None) -> str:
    """The tokenizer of :func:`token_agreement` (``tokens=``) for these inputs: ``"conll"`` when
    every document of every input comes with its tokens (``Document.tokens_from_text``, as
    CoNLL's do), else ``"spacy"``.

    Span sets in memory are looked at document by document; inputs not read yet (paths, a
    :class:`~spanagree.formats.DocumentStream`) by their format, which ``format_of(input)`` gives
    (:func:`spanagree.pipeline.input_format`; without it, such inputs count as not CoNLL): the
    documents of a format that declares :attr:`~spanagree.formats.Format.tokens` (CoNLL), and only
    theirs, come with their tokens. So the choice is made once, before a run reads anything
    (``agree --chance`` under ``--jobs`` and on a cluster).

    Examples
    --------
    >>> conll = SpanSet("a", {"1": Document("1", "EU rejects", tokens_from_text=True)})
    >>> jsonl = SpanSet("b", {"1": Document("1", "EU rejects")})
    >>> tokenizer_for([conll, conll]), tokenizer_for([conll, jsonl])
    ('conll', 'spacy')
    """
    from ..formats import declares

    documents = 0
    for item in inputs:
        if isinstance(item, SpanSet):
            if not all(d.tokens_from_text for d in item.documents.values()):
                return "spacy"
            documents += len(item.documents)
        elif format_of is None or not declares(format_of(item), "tokens"):
            return "spacy"
        else:
            documents += 1  # a CoNLL file or stream: its documents all come with their tokens
    return "conll" if documents else "spacy"


def check_categories(categories: str) -> None:
    """Raise :class:`~spanagree.errors.UsageError` unless ``categories`` is one of :data:`CATEGORIES`."""
    if categories not in CATEGORIES:
        raise UsageError(f"{{option}} must be one of {', '.join(CATEGORIES)}, got {categories!r}",
                         option="chance_categories")


def tokenizer_name(tokens: str, *, lang: str | None = "en", spacy_model: str | None = None) -> str:
    """The tokenizer as the JSON's ``chance.tokenizer`` names it.

    Examples
    --------
    >>> tokenizer_name("conll"), tokenizer_name("spacy", lang=None), tokenizer_name("spacy", spacy_model="m")
    ('conll', 'spacy blank en', 'spacy model m')
    """
    if tokens == "conll":
        return "conll"
    return f"spacy model {spacy_model}" if spacy_model else f"spacy blank {lang or 'en'}"


#: The spaCy tokenizers this process has made, by ``(lang, spacy_model)``: each is loaded once per
#: process (forked workers inherit the parent's; a cluster's workers make their own), never pickled.
_SPACY_TOKENIZERS: dict = {}


def tokenizer_function(tokens: str, *, lang: str | None = "en", spacy_model: str | None = None):
    """``text → [(start, end), ...]`` for ``tokens`` (``"conll"``: :func:`conll_tokens`; ``"spacy"``:
    :func:`spacy_tokenizer`, made once per process and kept)."""
    if tokens == "conll":
        return conll_tokens
    key = (None if spacy_model else lang or "en", spacy_model or None)
    if key not in _SPACY_TOKENIZERS:
        _SPACY_TOKENIZERS[key] = (spacy_tokenizer(spacy_model=spacy_model) if spacy_model
                                  else spacy_tokenizer(lang=lang))
    return _SPACY_TOKENIZERS[key]


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


@dataclass(frozen=True)
class TokenLevel:
    """How a run tallies tokens (``agree --chance``): the tokenizer (``tokens``, ``lang``,
    ``spacy_model`` as in :func:`token_agreement`), the ``labels`` rule and the ``categories``. Plain values: it
    travels to forked workers and a cluster's workers with the comparison, and each process makes
    its own tokenizer (:func:`tokenizer_function`)."""

    tokens: str
    lang: str | None = None
    spacy_model: str | None = None
    labels: str = "strict"
    categories: str = "label"

    @property
    def name(self) -> str:
        """The tokenizer as the JSON names it (:func:`tokenizer_name`)."""
        return tokenizer_name(self.tokens, lang=self.lang, spacy_model=self.spacy_model)

    def tokenize(self):
        """``text → [(start, end), ...]``; raises :class:`~spanagree.errors.UsageError` when the
        spaCy language or pipeline cannot be loaded."""
        return tokenizer_function(self.tokens, lang=self.lang, spacy_model=self.spacy_model)

    def add(self, tally: "TokenTally", spansets: list[SpanSet], documents: list[str], *,
            present: bool = False) -> None:
        """Tally ``documents`` of ``spansets`` (texts reconciled). ``present``: a span set that
        lacks a document did not see it (its labels are missing), and a document only one span
        set has is not tallied (``agree --documents pairwise`` leaves it out)."""
        tokenize = self.tokenize()
        for doc_id in documents:
            copies = [s.documents.get(doc_id) for s in spansets]
            absent = None
            if present:
                absent = [copy is None for copy in copies]
                if len(copies) - sum(absent) < 2:
                    continue
            tally.add(doc_id, copies, tokenize, labels=self.labels, absent=absent, categories=self.categories)


def token_labels(spans: list[Span], tokens: list[tuple[int, int]], *, labels: str = "strict",
                 categories: str = "label", written: dict | None = None) -> tuple[list, int]:
    """Each token's category (``None`` for ``O``) and the number of tokens several spans cover.

    Parameters
    ----------
    spans : list of Span
        One annotator's spans over one document.
    tokens : list of (int, int)
        Sorted, non-overlapping token offsets ``[start, end)``.
    labels : {"strict", "ignore"}
        With ``"ignore"`` every covered token is :data:`MARKED`.
    categories : {"label", "tag", "bio"}
        The token's label, its IOB2 tag, or the tag's letter (:data:`CATEGORIES`).
    written : dict of int to str, optional
        With ``"tag"`` and ``"bio"``: tags as written that replace the IOB2 ones (token index →
        tag, ``Document.tags``; ``"O"`` for outside).

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

    As tags, and as their letters (each fragment begins with ``B``):

    >>> token_labels([Span("d", ((0, 6), (19, 25)), "DISEASE")], tokens, categories="tag")
    (['B-DISEASE', None, None, 'B-DISEASE'], 0)
    >>> token_labels([Span("d", (0, 18), "DISEASE")], tokens, categories="bio", written={1: "E-DISEASE"})
    (['B', 'E', 'I', None], 0)
    """
    found: list[str | None] = [None] * len(tokens)
    if not tokens or not spans:
        return found, 0
    starts, ends = zip(*tokens)
    best: list[tuple | None] = [None] * len(tokens)
    covering = [0] * len(tokens)
    for span in set(spans):  # identical spans (fragments and label) cover a token once
        label = span.label if labels == "strict" else MARKED
        fragments = span.fragments
        if len(fragments) == 1:
            ((start, end),) = fragments
            key = (end - start, -start, label)  # (span.length, -span.start, label)
            covered = range(bisect_right(ends, start), bisect_left(starts, end))
        else:  # (two fragments may touch one token)
            key = (span.length, -span.start, label)
            covered = set()
            for start, end in fragments:
                covered.update(range(bisect_right(ends, start), bisect_left(starts, end)))
        for k in covered:
            covering[k] += 1
            if best[k] is None or key < best[k]:
                best[k] = key
                found[k] = label
    several = len(covering) - covering.count(0) - covering.count(1)
    if categories != "label":
        found = as_tags(found, best, written, labels)
        if categories == "bio":
            found = [None if tag is None else tag.split("-", 1)[0] for tag in found]
    return found, several


def as_tags(found: list, best: list, written: dict | None, labels: str) -> list:
    """Each token's IOB2 tag from its label and the span that gave it (``best``: the span's key,
    the same on the span's next token), the tags as written (``written``) in their place."""
    tags = [None if label is None else ("I-" if k and best[k - 1] == best[k] else "B-") + label
            for k, label in enumerate(found)]
    if written:
        for k, tag in written.items():
            if k < len(tags):
                if tag != "O" and labels != "strict":
                    tag = tag.split("-", 1)[0] + "-" + MARKED if "-" in tag else MARKED
                tags[k] = None if tag == "O" else tag
    return tags


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


class TokenTally(Slotted):
    """Token level over the documents compared so far, as sums that add up exactly (``+=``).

    Every token of a document is one **row**: the label each annotator gave it (``None`` for
    ``O``; :data:`MISSING` where the annotator did not see the document). Every figure of
    :class:`TokenAgreement` is a function of the multiset of rows: a pair's k×k table and its
    ``a, b, c, d`` count the rows by the pair's two labels, and Fleiss' kappa and Krippendorff's
    alpha take the tokens × categories counts (:func:`~spanagree.measures.tables.fleiss_kappa`),
    whose rows are the rows' label counts. So the tally keeps a :class:`~collections.Counter` of
    rows; the tallies of disjoint shards of documents add up to the tally of the whole, whatever
    the shards (``--jobs``, a cluster), and the figures do not depend on them.

    Attributes
    ----------
    rows : Counter
        ``(label of annotator 1, label of annotator 2, ...) → tokens``.
    multiply : list of int
        Per annotator, the tokens several of its spans cover (:func:`token_labels`).
    documents : list of str
        The documents tallied, in order.
    no_text : list of str
        The documents that could not be tokenised: no copy has a text.
    kept : tuple or None
        With ``keep_tokens``: ``(token_index, labels)`` — each token's ``(document, start, end)``
        and each annotator's labels, token by token (:meth:`TokenAgreement.token_frame`).
    by_document : dict of str to Counter
        Each document's rows (the figures per document: :meth:`document_agreement`).
    """

    __slots__ = ("rows", "multiply", "documents", "no_text", "kept", "by_document")

    def __init__(self, *, keep_tokens: bool = False):
        self.by_document: dict[str, Counter] = {}
        self.rows: Counter = Counter()
        self.multiply: list[int] = []
        self.documents: list[str] = []
        self.no_text: list[str] = []
        self.kept = ([], []) if keep_tokens else None

    def add(self, doc_id: str, copies: list, tokenize, *, labels: str = "strict",
            absent: list[bool] | None = None, categories: str = "label") -> None:
        """Tally one document.

        Parameters
        ----------
        doc_id : str
        copies : list of Document or None
            Each annotator's copy, texts reconciled (``None``: no spans there).
        tokenize : callable
            ``text → [(start, end), ...]`` (:func:`tokenizer_function`); the text is the first
            copy's that has one.
        labels : {"strict", "ignore"}
        absent : list of bool, optional
            The annotators who did not see the document: their labels are :data:`MISSING`.
        categories : {"label", "tag", "bio"}
            What a token's category is (:data:`CATEGORIES`).
        """
        text = next((c.text for c in copies if c is not None and c.text is not None), None)
        if text is None:
            self.no_text.append(doc_id)
            return
        if len(self.multiply) < len(copies):
            self.multiply += [0] * (len(copies) - len(self.multiply))
        offsets = tokenize(text)
        columns = []
        for k, copy in enumerate(copies):
            if absent is not None and absent[k]:
                columns.append([MISSING] * len(offsets))
                continue
            found, several = token_labels(copy.spans if copy is not None else [], offsets, labels=labels,
                                          categories=categories, written=copy.tags if copy is not None else None)
            columns.append(found)
            self.multiply[k] += several
        own = Counter(zip(*columns))
        self.rows.update(own)
        self.by_document[doc_id] = own
        self.documents.append(doc_id)
        if self.kept is not None:
            token_index, kept = self.kept
            token_index.extend((doc_id, s, e) for s, e in offsets)
            kept += [[] for _ in range(len(columns) - len(kept))]
            for own, found in zip(kept, columns):
                own.extend(found)

    def __iadd__(self, other: "TokenTally") -> "TokenTally":
        self.rows.update(other.rows)
        self.by_document.update(other.by_document)
        if len(self.multiply) < len(other.multiply):
            self.multiply += [0] * (len(other.multiply) - len(self.multiply))
        for k, count in enumerate(other.multiply):
            self.multiply[k] += count
        self.documents += other.documents
        self.no_text += other.no_text
        if self.kept is not None and other.kept is not None:
            self.kept[0].extend(other.kept[0])
            for own, theirs in itertools.zip_longest(self.kept[1], other.kept[1]):
                if own is None:
                    self.kept[1].append(list(theirs))
                else:
                    own.extend(theirs or ())
        return self

    def agreement(self, names: list[str], documents: list[str], *, tokenizer: str, labels: str = "strict") -> "TokenAgreement":
        """The :class:`TokenAgreement` of ``documents`` (every one of them tallied, in any shards).

        Raises :class:`~spanagree.errors.UsageError` for the first of ``documents`` that could
        not be tokenised (no text), and warns, per annotator, about the tokens several of its
        spans cover.
        """
        tallied = set(self.documents)
        unread = set(self.no_text)
        for doc_id in documents:
            if doc_id in unread or doc_id not in tallied:
                raise no_text_error(doc_id)
        multiply = self.multiply + [0] * (len(names) - len(self.multiply))
        for name, count in zip(names, multiply):
            if count:
                warnings.warn(f"{name}: {count} token(s) covered by more than one span (nested or overlapping "
                              "spans) get the innermost span's label at token level", SpanagreeWarning,
                              stacklevel=find_stack_level())
        return rows_agreement(self.rows, names, documents, tokenizer=tokenizer, labels=labels,
                              multiply_covered={name: count for name, count in zip(names, multiply) if count},
                              kept=self.kept)

    def document_agreement(self, doc_id: str, names: list[str], *, tokenizer: str,
                           labels: str = "strict") -> "TokenAgreement | None":
        """The :class:`TokenAgreement` of one document's tokens (``None``: it was not tallied)."""
        own = self.by_document.get(doc_id)
        if own is None:
            return None
        return rows_agreement(own, names, [doc_id], tokenizer=tokenizer, labels=labels)


def rows_agreement(found: Counter, names: list[str], documents: list[str], *, tokenizer: str, labels: str,
                   multiply_covered: dict | None = None, kept=None) -> "TokenAgreement":
    """The :class:`TokenAgreement` of a tally's rows (``found``: labels of each annotator → tokens)."""
    import numpy as np

    # the rows in a canonical order: the figures do not depend on the order documents came in
    patterns = sorted(found.items(), key=lambda item: tuple(map(_label_key, item[0])))
    used = sorted({label for row in found for label in row if label is not None and label != MISSING})
    outside = "O" if "O" not in used else "(unmarked)"
    categories = used + [outside]
    index = {label: k for k, label in enumerate(used)}
    unmarked = len(used)

    def code(label) -> int:
        return unmarked if label is None else MISSING if label == MISSING else index[label]

    k = len(names)
    rows = np.array([[code(label) for label in row] for row, _ in patterns], dtype=np.int64).reshape(-1, k)
    weights = np.array([count for _, count in patterns], dtype=np.int64)
    codes = token_index = None
    if kept is not None:
        token_index, own = kept
        own = own + [[] for _ in range(k - len(own))]
        codes = np.array([[code(label) for label in column] for column in own],
                         dtype=np.int64).reshape(k, len(token_index))
    return TokenAgreement(names, list(documents), categories, tokenizer, labels, rows, weights,
                          token_pairs(names, rows, weights, len(categories), unmarked),
                          dict(multiply_covered or {}), codes, token_index)


def _label_key(label) -> tuple:
    return (0, "") if label == MISSING else (1, "") if label is None else (2, label)


def no_text_error(doc_id: str) -> UsageError:
    """The error for a document that cannot be tokenised: no copy of it has a text."""
    return UsageError(f"document {doc_id!r} has no text: token-level agreement ({{option}}) needs the texts",
                      option="chance")


def token_pairs(names: list[str], rows, weights, k: int, unmarked: int) -> list[TokenPair]:
    """Every pair's k×k table and token counts from the rows (category codes, annotators as
    columns) and how many tokens each row stands for; a pair counts the rows both its
    annotators labelled."""
    import numpy as np

    pairs = []
    for i, j in itertools.combinations(range(len(names)), 2):
        both = (rows[:, i] != MISSING) & (rows[:, j] != MISSING)  # the tokens of documents both annotated
        first, second, count = rows[both, i], rows[both, j], weights[both]
        table = np.zeros(k * k, dtype=np.int64)
        np.add.at(table, first * k + second, count)
        marked_i, marked_j = first != unmarked, second != unmarked
        a = int(count[marked_i & (first == second)].sum())
        counts = Counts(a, int(count[marked_i].sum()) - a, int(count[marked_j].sum()) - a)
        d = int(count[~marked_i & ~marked_j].sum())
        pairs.append(TokenPair(names[i], names[j], table.reshape(k, k).tolist(), counts, d))
    return pairs


@dataclass
class TokenAgreement:
    """The result of :func:`token_agreement` (and of ``agree --chance``: :meth:`TokenTally.agreement`).
    ``to_dict()`` is the ``"chance"`` part of the JSON.

    The tokens are summed up as distinct **rows** (``rows``: per distinct combination of the
    annotators' labels, each annotator's category code — :data:`MISSING` where not annotated)
    and the number of tokens each stands for (``weights``). ``codes`` and ``token_index``, every
    token one by one, are kept by :func:`token_agreement` only (for :meth:`token_frame`).
    """

    annotators: list[str]
    documents: list[str]
    categories: list[str]
    tokenizer: str
    labels: str
    rows: object  # numpy array, distinct rows × annotators: index into categories (MISSING: not annotated)
    weights: object  # numpy array: the tokens each row stands for
    pairs: list[TokenPair]
    multiply_covered: dict[str, int] = field(default_factory=dict)
    codes: object = None  # numpy array, annotators × tokens, when kept
    token_index: list[tuple[str, int, int]] | None = None  # (document, start, end) of each token, when kept

    @property
    def tokens(self) -> int:
        return int(self.weights.sum())

    def row_counts(self):
        """Distinct rows × categories: how many annotators gave the tokens of each row each
        category (the rows of :meth:`category_counts`, each once; ``weights`` says how often)."""
        import numpy as np

        counts = np.zeros((len(self.rows), len(self.categories)))
        items = np.arange(len(self.rows))
        for codes in self.rows.T:
            seen = codes != MISSING
            np.add.at(counts, (items[seen], codes[seen]), 1)
        return counts

    def category_counts(self):
        """Tokens × categories: how many annotators gave each token each category (the rows of
        :meth:`row_counts` repeated ``weights`` times, in a canonical order)."""
        import numpy as np

        return np.repeat(self.row_counts(), self.weights, axis=0)

    @property
    def complete(self) -> bool:
        """Whether every annotator labelled every token (not so when some annotator lacks a
        document: ``agree --documents pairwise``)."""
        return not (self.rows == MISSING).any()

    def fleiss_kappa(self) -> float | None:
        """Fleiss' kappa; ``None`` when some annotator lacks some document (Fleiss' kappa needs
        every rater on every item; Krippendorff's alpha takes the missing ratings)."""
        from .tables import fleiss_kappa

        return fleiss_kappa(self.row_counts(), weights=self.weights) if self.complete else None

    def krippendorff_alpha(self) -> float:
        from .tables import krippendorff_alpha

        return krippendorff_alpha(self.row_counts(), weights=self.weights)

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
        """One row per token: document, start, end and each annotator's label (pandas); only
        for a result of :func:`token_agreement`, which keeps the tokens."""
        import pandas as pd

        if self.token_index is None:
            raise ValueError("the tokens were not kept (agree(chance=True) sums them up as it compares); "
                             "token_agreement() keeps them")
        frame = pd.DataFrame(self.token_index, columns=["document", "start", "end"])
        for name, codes in zip(self.annotators, self.codes):
            frame[name] = [self.categories[k] if k != MISSING else None for k in codes]
        return frame


def token_agreement(spansets: list[SpanSet], documents: list[str] | None = None, *, tokens: str = "spacy",
                    lang: str | None = "en", spacy_model: str | None = None, labels: str = "strict",
                    names: list[str] | None = None, present: list | None = None,
                    categories: str = "label") -> TokenAgreement:
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
    categories : {"label", "tag", "bio"}
        A token's category: its label (default), its IOB2 tag (``B-PER``, ``I-PER``, ``O``; a
        CoNLL document's tags as written) or the tag's letter (``B``, ``I``, ``O``), as papers
        that report kappa over IOB tags count them (the module's "Categories").

    Returns
    -------
    TokenAgreement
        With every token kept (:meth:`TokenAgreement.token_frame`). The figures are those of
        :class:`TokenTally`, which ``agree --chance`` fills document by document as it compares.

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

    Over the tokens' tags (ann2's ``Li`` is ``O``, ann1's ``I-PER``):

    >>> tags = token_agreement([ann1, ann2], tokens="conll", categories="tag")
    >>> tags.categories
    ['B-LOC', 'B-ORG', 'B-PER', 'I-PER', 'O']
    >>> round(tags.pairs[0].figures()["cohen_kappa"], 4)
    0.6522
    >>> bio = token_agreement([ann1, ann2], tokens="conll", categories="bio")
    >>> bio.categories, round(bio.pairs[0].figures()["cohen_kappa"], 4)
    (['B', 'I', 'O'], 0.8049)
    """
    if len(spansets) < 2:
        raise UsageError("token-level agreement needs at least two annotators")
    if tokens not in TOKENIZERS:
        raise UsageError(f"tokens must be one of {TOKENIZERS}, got {tokens!r}")
    if labels not in ("strict", "ignore"):
        raise UsageError(f"labels must be strict or ignore, got {labels!r}")
    check_categories(categories)
    names = list(names) if names is not None else [s.name for s in spansets]
    if documents is None:
        documents = list(spansets[0].documents)
    tokenize = tokenizer_function(tokens, lang=lang, spacy_model=spacy_model)
    tally = TokenTally(keep_tokens=True)
    for doc_id in documents:
        copies = [s.documents.get(doc_id) for s in spansets]
        absent = None if present is None else [doc_id not in own for own in present]
        tally.add(doc_id, copies, tokenize, labels=labels, absent=absent, categories=categories)
        if tally.no_text:
            raise no_text_error(doc_id)
    return tally.agreement(names, documents, tokenizer=tokenizer_name(tokens, lang=lang, spacy_model=spacy_model),
                           labels=labels)


def pair_columns(chance: dict) -> list[dict]:
    """Per pair, the token-level figures as flat CSV columns (``token_`` prefix)."""
    keys = ("tokens", "a", "b", "c", "d", "psa", "kappa_2x2", "cohen_kappa", "scott_pi", "informedness",
            "markedness", "mcc")
    return [{f"token_{key}": pair[key] for key in keys} for pair in chance["pairs"]]

