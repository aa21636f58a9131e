"""Spans and span sets: the values every other module exchanges.

A :class:`Span` is ``(doc, fragments, label)``. ``fragments`` is a sorted tuple of half-open
character ranges ``[start, end)`` into the document's text, counted in Unicode code points of the
text exactly as stored (``\\r\\n`` is two characters). Normally there is one fragment; BRAT
discontinuous annotations (``T1<TAB>Label 0 5;10 15``) have several.

A :class:`SpanSet` is one annotator's (or one system's) spans over a corpus: an ordered mapping of
document id to :class:`Document` (its text, when known, and its spans), plus a name.
"""

from __future__ import annotations

import operator
from collections import abc
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Mapping, Sequence

Fragments = tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class Source:
    """Where a span was read: a file and, when the format has lines, a 1-based line number."""

    path: str
    line: int | None = None

    def __str__(self) -> str:
        return self.path if self.line is None else f"{self.path}:{self.line}"

    @classmethod
    def at(cls, path: str, line: int | None = None) -> "Source":
        """``Source(path, line)`` without the frozen dataclass's ``__init__``: a reader's hot-loop
        constructor (one per span in BRAT and CoNLL), built as :meth:`Span.trusted` builds a span.

        >>> Source.at("a.ann", 3) == Source("a.ann", 3)
        True
        """
        source = _UnsealedSource()
        source.path = path
        source.line = line
        source.__class__ = cls
        return source

    def __reduce__(self):
        return Source.at, (self.path, self.line)  # pickled as its values (see Span.__reduce__)


@dataclass(frozen=True, slots=True, init=False)
class Span:
    """One marked phrase: document id, half-open fragments ``[start, end)``, label.

    ``Span(doc, fragments, label)``, or ``Span(doc, start, end, label)`` for one fragment: an
    ``int`` second argument selects the second form. ``source`` and ``attributes`` are
    keyword-only.

    Two spans are equal when document, fragments and label are equal; ``source`` (where it was
    read) and ``attributes`` (format metadata such as BRAT attributes and notes) do not take part
    in equality or hashing.

    Parameters
    ----------
    doc : str
        Document id (``/``-separated; docs/formats.md gives each format's ids).
    fragments : tuple of (int, int)
        Sorted, non-overlapping, non-empty half-open ranges. A single ``(start, end)`` pair is
        accepted and wrapped.
    label : str
        The span's type, e.g. ``"PER"``.
    source : Source, optional
        Where it was read.
    attributes : tuple of (str, str)
        Format metadata (BRAT attributes and notes).

    Raises
    ------
    ValueError
        Fragments that are empty, negative, unsorted, overlapping or not integers.
    TypeError
        A fourth positional argument without the start/end form (``source`` is keyword-only),
        or the start/end form without a label.

    Examples
    --------
    >>> Span("d1", 0, 5, "PER") == Span("d1", (0, 5), "PER") == Span("d1", ((0, 5),), "PER")
    True
    >>> Span("d1", ((0, 5),), "PER").end
    5
    >>> Span("d1", ((0, 5), (10, 15)), "DRUG").length
    10
    """

    doc: str
    fragments: Fragments
    label: str
    source: Source | None = field(default=None, compare=False, hash=False, repr=False, kw_only=True)
    attributes: tuple[tuple[str, str], ...] = field(default=(), compare=False, hash=False, repr=False,
                                                    kw_only=True)

    def __new__(cls, doc: str, fragments, label, range_label: str | None = None, *,
                source: Source | None = None, attributes: tuple = ()) -> "Span":
        # Checked, then built as Span.trusted builds a span (plain stores into a mutable twin):
        # half the time the dataclass's __init__ and __post_init__ took, storing five frozen slots.
        if isinstance(fragments, int):  # Span(doc, start, end, label)
            if range_label is None:
                raise TypeError(f"Span(doc, start, end, label) needs a label after the end, got {label!r}")
            fragments, label = (fragments, label), range_label
        elif range_label is not None:
            raise TypeError("Span takes (doc, fragments, label) or (doc, start, end, label); "
                            "source and attributes are keyword-only")
        return cls.trusted(doc, checked_fragments(fragments), label, source, attributes)

    @classmethod
    def trusted(cls, doc: str, fragments: Fragments, label: str, source: Source | None = None,
                attributes: tuple = ()) -> "Span":
        """A span from values already checked: the one fast constructor, which the readers call.

        Nothing is validated or normalised: ``fragments`` must already be a tuple of sorted,
        non-empty, non-overlapping ``(start, end)`` tuples (the reader checked the offsets). The
        span is built as a mutable twin with the same slots (plain attribute stores) and then
        becomes a Span in place (``__class__`` assignment, allowed between classes of the same
        memory layout). Measured per span (gc off, as the readers run; a loaded machine): 0.84 µs,
        against 1.59 µs storing the five slots through their descriptors' ``__set__``, and about
        half of ``Span(...)`` with its checks; the benchmark corpus reads as fast as with the
        readers' former inlined builders (``benchmarks/RESULTS.md``).

        Examples
        --------
        >>> span = Span.trusted("d1", ((0, 5),), "PER", Source("a.ann", 3))
        >>> span == Span("d1", ((0, 5),), "PER"), str(span.source)
        (True, 'a.ann:3')
        """
        span = _UnsealedSpan()
        span.doc = doc
        span.fragments = fragments
        span.label = label
        span.source = source
        span.attributes = attributes
        span.__class__ = cls
        return span

    @property
    def start(self) -> int:
        """Start of the first fragment."""
        return self.fragments[0][0]

    @property
    def end(self) -> int:
        """End (exclusive) of the last fragment."""
        return self.fragments[-1][1]

    @property
    def length(self) -> int:
        """Number of characters covered (gaps of discontinuous spans excluded)."""
        return sum(e - s for s, e in self.fragments)

    @property
    def is_discontinuous(self) -> bool:
        return len(self.fragments) > 1

    def text(self, document_text: str, *, joiner: str = " ") -> str:
        """The covered text, fragments joined by ``joiner``."""
        return joiner.join(document_text[s:e] for s, e in self.fragments)

    def relabel(self, label: str) -> "Span":
        """The same span with another label."""
        return Span.trusted(self.doc, self.fragments, label, self.source, self.attributes)

    def __reduce__(self):
        # Pickled as its five values, rebuilt by the fast constructor: a frozen dataclass's own
        # state functions set each slot through object.__setattr__ (merge spools its clusters:
        # that took half of its run).
        return _trusted_span, (self.doc, self.fragments, self.label, self.source, self.attributes)

    def sort_key(self) -> tuple:
        """Canonical order: start, end, fragments, label."""
        return (self.fragments[0][0], self.fragments[-1][1], self.fragments, self.label)


def _plain_span(item, doc_id: str, text: str | None) -> Span:
    """One span of plain data (:meth:`SpanSet.from_lists`); ``ValueError`` saying what is wrong."""
    if isinstance(item, dict):
        missing = [key for key in ("start", "end", "label") if key not in item]
        if missing:
            raise ValueError("no " + " and no ".join(repr(key) for key in missing))
        start, end, label = item["start"], item["end"], item["label"]
    elif isinstance(item, (tuple, list)) and len(item) == 3:
        start, end, label = item
    else:
        raise ValueError('expected (start, end, label) or {"start": ..., "end": ..., "label": ...}')
    if isinstance(start, bool) or isinstance(end, bool):
        raise ValueError("start and end must be integers")
    try:
        start, end = operator.index(start), operator.index(end)  # numpy's integers too
    except TypeError:
        raise ValueError("start and end must be integers") from None
    if not isinstance(label, str):
        raise ValueError(f"the label must be a string, got {type(label).__name__}")
    if start < 0 or end <= start:
        raise ValueError(f"[{start}, {end}) is empty or negative")
    if text is not None and end > len(text):
        raise ValueError(f"it ends after the document's text ({len(text)} characters)")
    return Span.trusted(doc_id, ((start, end),), label)


def _plain_span_or_none(item) -> Span | None:
    """``item`` as a span of plain data, or ``None`` when it is not one."""
    try:
        return _plain_span(item, "", None)
    except ValueError:
        return None


def _trusted_span(doc, fragments, label, source, attributes) -> Span:
    """:meth:`Span.trusted`, for unpickling."""
    return Span.trusted(doc, fragments, label, source, attributes)


class _UnsealedSpan:
    """A :class:`Span`'s slots, mutable: what :meth:`Span.trusted` fills before it becomes a Span."""

    __slots__ = Span.__slots__


class _UnsealedSource:
    """A :class:`Source`'s slots, mutable: what :meth:`Source.at` fills before it becomes a Source."""

    __slots__ = Source.__slots__


def checked_fragments(fragments) -> Fragments:
    """``fragments`` as a tuple of ``(start, end)`` tuples (a single pair wrapped), once checked:
    sorted, non-empty, non-overlapping ranges of integers.

    Raises
    ------
    ValueError
        Fragments that are not so.

    Examples
    --------
    >>> checked_fragments((0, 5)), checked_fragments([[0, 2], [4, 6]])
    (((0, 5),), ((0, 2), (4, 6)))
    """
    if len(fragments) == 2 and not isinstance(fragments[0], (tuple, list)):  # one (start, end) pair
        fragments = (tuple(fragments),)
    elif type(fragments) is not tuple:
        fragments = tuple(fragments)
    if not fragments:
        raise ValueError("a span needs at least one fragment")
    previous_end = 0
    not_tuples = False
    for fragment in fragments:
        if type(fragment) is not tuple:
            not_tuples = True
        if len(fragment) != 2:
            raise ValueError(f"a fragment is (start, end), got {fragment!r}")
        start, end = fragment
        if not (isinstance(start, int) and isinstance(end, int)):
            raise ValueError(f"fragment offsets must be integers, got {fragment!r}")
        if start < 0 or end <= start:
            raise ValueError(f"fragment [{start}, {end}) is empty or negative")
        if start < previous_end:
            raise ValueError(f"fragments must be sorted and must not overlap: {fragments!r}")
        previous_end = end
    return tuple(map(tuple, fragments)) if not_tuples else fragments


def normalize_fragments(fragments: Iterable[tuple[int, int]]) -> Fragments:
    """Sort fragments and merge touching or overlapping ones (BRAT allows ``0 5;5 9``)."""
    merged: list[list[int]] = []
    for start, end in sorted(fragments):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return tuple((s, e) for s, e in merged)


#: Attribute keys never compared (``--attributes``): notes are free text, ``text`` is what a
#: string prediction gave (:mod:`spanagree.formats.strings`).
_NOT_COMPARED = ("#:",)
#: Key prefixes that name BRAT's line kinds (attributes, the older modifiers, normalisations).
_KIND_PREFIXES = ("A:", "M:", "N:")


def compared_attributes(span: "Span") -> dict[str, str]:
    """A span's attributes as compared (``attributes=``, ``match_attributes=``): public name → value.

    The public name is the key without BRAT's line-kind prefix (``A:``, ``M:``, ``N:``); notes
    (``#:``) and a string prediction's ``text`` are never compared. A name met twice keeps its
    first value.

    >>> span = Span("d", 0, 4, "Finding", attributes=(("A:Negation", "True"), ("N:Reference", "UMLS:C0011849"),
    ...                                                 ("#:AnnotatorNotes", "check"), ("kb_id", "Q42")))
    >>> compared_attributes(span)
    {'Negation': 'True', 'Reference': 'UMLS:C0011849', 'kb_id': 'Q42'}
    """
    compared: dict[str, str] = {}
    for key, value in span.attributes:
        if key.startswith(_NOT_COMPARED) or key == "text":
            continue
        name = key[2:] if key.startswith(_KIND_PREFIXES) else key
        compared.setdefault(name, value)
    return compared


@dataclass(frozen=True, slots=True)
class Relation:
    """A typed relation between spans of one document, or an event.

    A **relation** (BRAT ``R1<TAB>Causes Arg1:T1 Arg2:T2``, an INCEpTION relation layer, a
    Label Studio relation) has a type and its arguments, each a role and a span of the same
    document. An **event** (BRAT ``E1<TAB>Binding:T3 Theme:T1 Theme2:T2``) also has a
    ``trigger``, the span that names it; an argument that is itself an event is given by its
    trigger span. Arguments are kept in the order read; a role may be repeated.

    Equality is by value (type, trigger, arguments; spans by their own equality), ``source`` aside.

    Parameters
    ----------
    type : str
        The relation's or event's type.
    arguments : tuple of (str, Span)
        ``(role, span)`` pairs.
    trigger : Span, optional
        An event's trigger; ``None`` for a relation.
    source : Source, optional
        Where it was read.

    Examples
    --------
    >>> cause, effect = Span("d", 0, 4, "Drug"), Span("d", 10, 18, "Finding")
    >>> relation = Relation("Causes", (("Arg1", cause), ("Arg2", effect)))
    >>> relation.spans == (cause, effect), relation.is_event
    (True, False)
    >>> relation.moved({cause: Span("d", 1, 5, "Drug")}).arguments[0][1]
    Span(doc='d', fragments=((1, 5),), label='Drug')
    """

    type: str
    arguments: tuple[tuple[str, "Span"], ...]
    trigger: "Span | None" = None
    source: Source | None = field(default=None, compare=False, hash=False, repr=False)

    @property
    def is_event(self) -> bool:
        return self.trigger is not None

    @property
    def spans(self) -> tuple:
        """The trigger (an event's) and the argument spans, in that order."""
        spans = tuple(span for _, span in self.arguments)
        return spans if self.trigger is None else (self.trigger, *spans)

    def sort_key(self) -> tuple:
        """Canonical order: trigger, arguments (role and span), type."""
        trigger = () if self.trigger is None else self.trigger.sort_key()
        return (trigger, tuple((role, span.sort_key()) for role, span in self.arguments), self.type)

    def moved(self, moved: Mapping) -> "Relation":
        """The same relation with each span that is a key of ``moved`` replaced by its value
        (spans rebuilt with other offsets, another document id or another label)."""
        trigger = self.trigger if self.trigger is None else moved.get(self.trigger, self.trigger)
        arguments = tuple((role, moved.get(span, span)) for role, span in self.arguments)
        return Relation(self.type, arguments, trigger, self.source)


def moved_relations(relations: list, old_spans: Sequence, new_spans: Sequence, *,
                    keep_lost: bool = True) -> list:
    """``relations`` carried over to spans rebuilt one for one (``new_spans[i]`` is
    ``old_spans[i]`` with other offsets, document id or label; ``None`` where a span was left
    out). A relation one of whose spans was left out is kept as it was when ``keep_lost``
    (it then refers to a span the document no longer has, and never matches), else dropped.

    >>> a, b = Span("d", 0, 2, "X"), Span("d", 3, 5, "Y")
    >>> relations = [Relation("R", (("Arg1", a), ("Arg2", b)))]
    >>> moved_relations(relations, [a, b], [a, None], keep_lost=False)
    []
    >>> moved_relations(relations, [a, b], [Span("e", 0, 2, "X"), Span("e", 3, 5, "Y")])[0].spans[1].doc
    'e'
    """
    if not relations:
        return []
    moved = {old: new for old, new in zip(old_spans, new_spans) if new is not None and new is not old}
    lost = {old for old, new in zip(old_spans, new_spans) if new is None}
    carried = []
    for relation in relations:
        if lost and any(span in lost for span in relation.spans):
            if keep_lost:
                carried.append(relation)
            continue
        carried.append(relation.moved(moved) if moved else relation)
    return carried


@dataclass(slots=True)
class Document:
    """One document of one annotator: its id, its text (``None`` when unknown) and its spans.

    ``source`` is the file it was read from. ``tokens_from_text`` says that the document comes
    with its tokens (CoNLL's): they are the whitespace-separated pieces of the text
    (:func:`spanagree.measures.tokens.document_tokens`). A marker rather than a list of offsets:
    on a 10,000-document benchmark file (2.9 million tokens), a list of ``(start, end)`` per
    document made by the CoNLL reader took the span set read from 98 to 439 MiB (tracemalloc) and
    the reading from 1.2 to 2.3 times as long; the marker costs 0.1 MiB and no measurable time.

    ``tags`` (CoNLL's) holds the tags as written where they are not the IOB2 tags of the spans
    on the tokens: token index → tag (an ``I-X`` beginning a chunk, a ``S-X``; ``None`` when
    there is none). Token-level agreement over tags (``chance_categories="tag"``) counts them.

    ``relations`` are the document's relations and events (:class:`Relation`), whose spans are
    spans of :attr:`spans`. Whatever rebuilds a document's spans carries its relations over to the
    new spans (:func:`moved_relations`).

    ``unwritten_spaces`` (CoNLL's, where a ``MISC`` column says ``SpaceAfter=No``): the offsets,
    in increasing order, of the spaces of ``text`` that the text as written does not have
    (``"Hello , world"`` written ``"Hello, world"``: ``(5,)``). ``text`` keeps them, so that its
    whitespace-separated pieces stay the tokens and every offset stays one of ``text``;
    :func:`as_written` gives the document as written.

    ``written_otherwise`` (a CoNLL copy placed on another copy's tokens: a prediction cut along
    the gold's documents, :mod:`spanagree.formats.resegment`, or put on its tokens,
    :func:`spanagree.texts.onto_tokens`): the tokens of ``text`` that this copy's file wrote
    otherwise, as ``(start, end, token as written)`` in increasing order (``text`` holds the
    other copy's token there). :meth:`written_text` gives a span's text as the file wrote it.
    """

    id: str
    text: str | None
    spans: list[Span] = field(default_factory=list)
    source: str | None = None
    tokens_from_text: bool = False
    tags: dict | None = None
    relations: list = field(default_factory=list)
    unwritten_spaces: tuple[int, ...] = ()
    written_otherwise: tuple[tuple[int, int, str], ...] = ()

    def __len__(self) -> int:
        return len(self.spans)

    def written_text(self, span: Span) -> str:
        """The text of ``span`` with the tokens as this copy's file wrote them (``""`` without a
        text); its tokens concatenated, the spaces and line breaks between them left out, are the
        HIPE scorer's entity text.

        Examples
        --------
        >>> d = Document("d", "sieur Quartier _ instituteur", tokens_from_text=True, written_otherwise=((15, 16, "O"),))
        >>> span = Span("d", 6, 28, "pers")
        >>> d.written_text(span), Document("d", d.text).written_text(span)
        ('Quartier O instituteur', 'Quartier _ instituteur')
        """
        text = self.text
        if text is None:
            return ""
        pieces = []
        for start, end in span.fragments:
            position = start
            for at, stop, token in self.written_otherwise:
                if stop <= start or at >= end:
                    continue
                pieces.append(text[position:at])
                pieces.append(token)
                position = stop
            pieces.append(text[position:end])
        return "".join(pieces)

    def __repr__(self) -> str:
        size = "no text" if self.text is None else f"{len(self.text)} characters"
        return f"<Document {self.id!r}: {size}, {len(self.spans)} spans>"


@dataclass(slots=True)
class SpanSet:
    """One annotator's spans over a corpus.

    Parameters
    ----------
    name : str
        Annotator or system name (folder or file stem: ``ann1/`` gives ``ann1``).
    documents : dict of str to Document
        In reading order.
    notes : list of str
        What the reader read but does not compare (e.g. "12 BRAT relations ignored").
    format : str, optional
        The format it was read from.
    """

    name: str
    documents: dict[str, Document] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    format: str | None = None

    def __repr__(self) -> str:
        return f"<SpanSet {self.name!r}: {len(self.documents)} documents, {len(self)} spans>"

    @classmethod
    def from_documents(cls, name: str, documents: Iterable[Document], **kwargs) -> "SpanSet":
        spanset = cls(name, {}, **kwargs)
        for document in documents:
            spanset.add(document)
        return spanset

    @classmethod
    def from_spans(cls, name: str, spans: Iterable[Span], texts: Mapping[str, str] | None = None) -> "SpanSet":
        """Group spans by document; ``texts`` gives document texts (and documents with no span)."""
        spanset = cls(name)
        for doc_id, text in (texts or {}).items():
            spanset.documents[doc_id] = Document(doc_id, text)
        for span in spans:
            document = spanset.documents.get(span.doc)
            if document is None:
                document = spanset.documents[span.doc] = Document(span.doc, None)
            document.spans.append(span)
        return spanset

    @classmethod
    def from_lists(cls, name: str, documents: Sequence, texts: Sequence[str | None] | None = None) -> "SpanSet":
        """A span set from plain data, as seqeval's and nervaluate's users hold it: a list of
        documents, each a list of spans, a span being a ``(start, end, label)`` tuple (or list)
        or a ``{"start": ..., "end": ..., "label": ...}`` dict (other keys are ignored).

        Offsets are half-open, ``[start, end)``, of tokens or of characters alike (nervaluate's
        ends are inclusive: add 1; :func:`~spanagree.formats.schemes.tags_to_spans` turns seqeval's
        tag lists into such tuples). The documents are numbered in order, ``"1"``, ``"2"``, ... as
        the CoNLL reader numbers them; a document without spans is ``[]``.

        Parameters
        ----------
        name : str
            The span set's name.
        documents : list of list of (int, int, str) or dict
            The spans of each document.
        texts : list of str or None, optional
            One text per document (``None`` where unknown); character offsets then, checked
            against it. Without texts, nothing that needs them (``chance``, contexts) can be had.

        Raises
        ------
        UsageError
            A document that is not a list or tuple, or an item that is not a span: the message
            names the span set, the document's number and the item.

        Examples
        --------
        >>> gold = SpanSet.from_lists("gold", [[(0, 5, "PER")], [], [{"start": 3, "end": 4, "label": "LOC"}]])
        >>> gold
        <SpanSet 'gold': 3 documents, 2 spans>
        >>> gold.documents["3"].spans
        [Span(doc='3', fragments=((3, 4),), label='LOC')]
        >>> SpanSet.from_lists("pred", [[(5, 2, "PER")]])
        Traceback (most recent call last):
        ...
        spanagree.errors.UsageError: pred, document 1: (5, 2, 'PER') is not a span: [5, 2) is empty or negative
        """
        from .errors import UsageError

        if texts is not None and len(texts) != len(documents):
            raise UsageError(f"{name}: {len(texts)} texts for {len(documents)} documents")
        spanset = cls(name)
        for number, spans in enumerate(documents, 1):
            doc_id = str(number)
            text = None if texts is None else texts[number - 1]
            if not isinstance(spans, (list, tuple)):
                raise UsageError(f"{name}, document {number}: {spans!r} is not a list of spans")
            document = spanset.documents[doc_id] = Document(doc_id, text)
            for item in spans:
                try:
                    document.spans.append(_plain_span(item, doc_id, text))
                except ValueError as error:
                    if _plain_span_or_none(spans) is not None:  # one span where its document's list was due
                        raise UsageError(f"{name}, document {number} is one span, {spans!r}, not a list of spans "
                                         "(plain data is a list of documents, each a list of spans)") from None
                    if isinstance(item, (list, tuple)) and item and all(map(_plain_span_or_none, item)):
                        raise UsageError(f"{name}, document {number}: {item!r} is a list of spans, not a span: plain "
                                         "data is one span set; make each of several with SpanSet.from_lists") from None
                    raise UsageError(f"{name}, document {number}: {item!r} is not a span: {error}") from None
        return spanset

    def add(self, document: Document) -> None:
        if document.id in self.documents:
            raise ValueError(f"{self.name}: document {document.id!r} appears twice")
        self.documents[document.id] = document

    def __iter__(self) -> Iterator[Span]:
        for document in self.documents.values():
            yield from document.spans

    def __len__(self) -> int:
        return sum(len(d.spans) for d in self.documents.values())

    def __eq__(self, other: object) -> bool:
        """Same documents (ids, texts) with the same spans and the same relations, as multisets;
        the name is ignored."""
        if not isinstance(other, SpanSet):
            return NotImplemented
        if self.documents.keys() != other.documents.keys():
            return False
        for doc_id, document in self.documents.items():
            theirs = other.documents[doc_id]
            if document.text != theirs.text:
                return False
            if sorted(document.spans, key=Span.sort_key) != sorted(theirs.spans, key=Span.sort_key):
                return False
            if (document.relations or theirs.relations) and (sorted(document.relations, key=Relation.sort_key)
                                                              != sorted(theirs.relations, key=Relation.sort_key)):
                return False
        return True

    @property
    def labels(self) -> list[str]:
        """Sorted distinct labels."""
        return sorted({span.label for span in self})

    def texts(self) -> dict[str, str | None]:
        return {doc_id: d.text for doc_id, d in self.documents.items()}


def as_written(document: Document) -> Document:
    """``document`` with its text as written: its ``unwritten_spaces`` removed and every span's
    offsets moved onto that text (an offset loses one for each such space before it). A
    document without them is returned as it is. The text's whitespace-separated pieces are no
    longer its tokens: the document returned does not come with tokens (``tokens_from_text``,
    ``tags``).

    Examples
    --------
    >>> d = Document("d", "Hello , world !", [Span("d", (8, 13), "LOC")], unwritten_spaces=(5, 13))
    >>> w = as_written(d)
    >>> w.text, [(s.start, s.end, w.text[s.start:s.end]) for s in w.spans]
    ('Hello, world!', [(7, 12, 'world')])
    """
    spaces = document.unwritten_spaces
    if not spaces or document.text is None:
        return document
    from bisect import bisect_left

    def moved(offset: int) -> int:
        return offset - bisect_left(spaces, offset)

    pieces, position = [], 0
    for space in spaces:
        pieces.append(document.text[position:space])
        position = space + 1
    pieces.append(document.text[position:])
    spans = [Span.trusted(span.doc, normalize_fragments((moved(start), moved(end)) for start, end in span.fragments),
                          span.label, span.source, span.attributes) for span in document.spans]
    return Document(document.id, "".join(pieces), spans, document.source,
                    relations=moved_relations(document.relations, document.spans, spans))


def spanset_as_written(spanset: SpanSet) -> SpanSet:
    """``spanset`` with each of its documents :func:`as_written`, as a writer gets to it (no pass
    over the documents beforehand: ``merge`` makes its gold's documents as they are written).

    >>> plain = SpanSet.from_spans("a", [Span("d", 0, 5, "X")], {"d": "Hello , world"})
    >>> spanset_as_written(plain).documents["d"] is plain.documents["d"]
    True
    """
    return SpanSet(spanset.name, _AsWritten(spanset.documents), list(spanset.notes), spanset.format)


class _AsWritten(abc.Mapping):
    """A span set's documents, each :func:`as_written` when it is looked at."""

    def __init__(self, documents: Mapping):
        self.documents = documents

    def __getitem__(self, doc_id: str) -> Document:
        return as_written(self.documents[doc_id])

    def __iter__(self):
        return iter(self.documents)

    def __len__(self) -> int:
        return len(self.documents)


#: Characters of context on each side of a listed span (``--context N``).
CONTEXT = 40


def context_of(text: str | None, spans, size: int = CONTEXT) -> tuple[str | None, str | None]:
    """The ``size`` characters of ``text`` before and after the hull of ``spans`` (the first
    start to the last end of any of them; fewer at the text's ends); ``(None, None)`` without a
    text. Newlines are kept as they are.

    >>> context_of("Ana met Bo in Rome.", [Span("d", (8, 10), "PER"), Span("d", (8, 13), "PER")], 5)
    (' met ', ' Rome')
    """
    if text is None:
        return None, None
    spans = [span for span in spans if span is not None]
    start, end = min(span.start for span in spans), max(span.end for span in spans)
    return text[max(start - size, 0):start], text[end:end + size]


@dataclass(frozen=True, slots=True)
class Predicted:
    """One predicted string: its text and label, where it was read; no position."""

    text: str
    label: str
    source: Source | None = field(default=None, compare=False)


@dataclass(slots=True, repr=False)
class StringsDocument(Document):
    """A document of string predictions: the :class:`Predicted` strings (``strings``) besides
    the spans given with offsets (``spans``, a given text kept in their ``attributes`` as
    ``("text", ...)``)."""

    strings: list = field(default_factory=list)
