"""Tag schemes (IOB1, IOB2/BIO, IOE1, IOE2, BIOES/BILOU, IO) as data, and the one codec between
token tags and chunks.

This module owns the meaning of CoNLL tags. A tag is ``O`` or ``PREFIX-TYPE`` (``B-PER``,
``I-creative-work``: the prefix is split off at the *first* ``-``, so types may contain ``-``),
or a bare prefix (``B``, ``I``; its type is ``_``, as in seqeval). The prefixes are ``B`` (begin),
``I`` (inside), ``E`` (end), ``S`` (single), with ``L`` and ``U`` read as ``E`` and ``S``
(BILOU). Anything else (``X-PER``, ``B_PER``, suffix style ``PER-B``, ``B-``) is an error.

Every scheme is a :class:`Scheme`: the prefixes it allows and three sets of *transitions*
``(previous prefix, prefix, type relation)`` that say when a token starts a chunk, continues the
chunk of the previous token, and ends the previous token's chunk (the same patterns as seqeval's
``scheme.py``; for IOE1 two more, so that a one-token chunk written ``E-X`` before a chunk of its
type may start after ``O`` or another type, as the IOE1 writer writes it — seqeval drops it).
One decoder, :func:`tags_to_spans`, reads them all:

* ``scheme=None`` (the default) is conlleval's lenient decoding: every tagged token belongs to a
  chunk; an ``I-X`` after ``O`` or after another type starts one; ``B`` and ``S`` always start
  one, ``E`` and ``S`` always end one. On IOB1, IOB2, IOE1, IOE2 and IO tags this is exactly
  conlleval.pl (v2004-01-26) and seqeval's default ``get_entities``; on BIOES tags it is seqeval's
  default (conlleval.pl predates BIOES: it knows no ``S`` and lets a chunk run on from ``E-X``
  into ``B-X``), so exact-strict scores equal conlleval's and seqeval's default.
* a named scheme decodes strictly, as seqeval ``mode="strict"``: a token that may not start a
  chunk is left out, and a chunk whose last token may not end it is dropped. The decoder returns
  how many chunks were dropped, so that readers can warn with a count.

:func:`spans_to_tags` is the inverse, for writers.

Examples
--------
>>> tags_to_spans(["B-PER", "I-PER", "O", "I-LOC", "B-LOC"])
([(0, 2, 'PER'), (3, 4, 'LOC'), (4, 5, 'LOC')], 0)
>>> tags_to_spans(["B-PER", "I-PER", "O", "I-LOC", "B-LOC"], scheme="iob2")
([(0, 2, 'PER'), (4, 5, 'LOC')], 1)
>>> spans_to_tags([(0, 2, "PER"), (4, 5, "LOC")], 5, scheme="bioes")
['B-PER', 'E-PER', 'O', 'O', 'S-LOC']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from ..errors import SpanagreeError, UsageError, lookalikes

#: The canonical prefixes, in table order; ``O`` is outside any chunk.
PREFIXES = "OBIES"
#: Other spellings of a prefix (BILOU's ``L``ast and ``U``nit).
ALIASES = {"L": "E", "U": "S"}
#: The type of a tag written without one (``B``, ``I``), as in seqeval.
NO_TYPE = "_"

_CODE = {p: i for i, p in enumerate(PREFIXES)}
_START, _INSIDE, _END = 1, 2, 4

# A transition is (previous prefix, prefix, relation): "*" stands for any prefix; the relation
# of the two tokens' types is "same", "diff" or "*" (either). The previous token of a sentence's
# first token, and the token after its last, are "O".
Transition = tuple[str, str, str]


class TagError(SpanagreeError, ValueError):
    """A tag the scheme does not allow. ``index`` is its position in the decoded sequence."""

    def __init__(self, message: str, *, index: int | None = None, tag: str | None = None):
        self.index = index
        self.tag = tag
        self.message = message
        super().__init__(message)


@dataclass(frozen=True)
class Scheme:
    """One tag scheme as data.

    Parameters
    ----------
    name : str
        Registry name (``"iob2"``).
    description : str
        One line for help texts.
    prefixes : str
        The prefixes the scheme allows (``O`` always), canonical spelling (``"OBI"``).
    start, inside, end : frozenset of (str, str, str)
        Transitions ``(previous prefix, prefix, relation)`` under which a token starts a chunk,
        continues the previous token's chunk, or ends the previous token's chunk.
    strict : bool
        Strict schemes drop what their transitions do not allow; the lenient one never drops.
    writes : (str, str, str, str) or None
        Prefixes the writer gives a chunk's tokens: (single token, first, middle, last);
        ``None``: cannot be written.
    adjacent : str or None
        What the writer does to a chunk that directly follows one of the same type, which
        ``writes`` alone would glue to it: ``"first=B"`` (IOB1: its first token gets ``B``),
        ``"last=E"`` (IOE1: the *preceding* chunk's last token gets ``E``), ``""`` (nothing to do:
        ``writes`` already separates chunks) or ``None`` (cannot be written: IO).
    spelling : mapping
        How canonical prefixes are written (BILOU writes ``E`` as ``L`` and ``S`` as ``U``).
    aliases : tuple of str
        Other names of the scheme.
    """

    name: str
    description: str
    prefixes: str
    start: frozenset
    inside: frozenset
    end: frozenset
    strict: bool = True
    writes: tuple[str, str, str, str] | None = None
    adjacent: str | None = ""
    spelling: Mapping[str, str] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        table = [0] * (len(PREFIXES) * len(PREFIXES) * 2)
        for flag, transitions in ((_START, self.start), (_INSIDE, self.inside), (_END, self.end)):
            for previous, prefix, relation in transitions:
                for p in (PREFIXES if previous == "*" else previous):
                    for c in (PREFIXES if prefix == "*" else prefix):
                        for same in ((False, True) if relation == "*" else (relation == "same",)):
                            table[(_CODE[p] * len(PREFIXES) + _CODE[c]) * 2 + same] |= flag
        object.__setattr__(self, "_table", tuple(table))
        object.__setattr__(self, "_runs", _decodes_runs(table))

    def flags(self, previous: str, tag: str) -> tuple[bool, bool, bool]:
        """``(starts, inside, ends)`` for ``tag`` after ``previous``, e.g. ``("B-PER", "I-PER")``.

        ``ends`` says whether the previous token's chunk ends before ``tag``.
        """
        (p, pt), (c, ct) = _parse(previous, self), _parse(tag, self)
        f = self._table[(p * 5 + c) * 2 + (pt == ct)]
        return bool(f & _START), bool(f & _INSIDE), bool(f & _END)


def _decodes_runs(table: list[int]) -> bool:
    """Whether a scheme's decoding is the *run decoding*: every tagged token belongs to a chunk.

    True when, whatever the previous token, a token that is not ``O`` either continues the
    previous token's chunk (inside) or starts one, and a chunk always ends where the next token
    does not continue it (that token is ``O``, or starts a chunk). Then nothing is ever dropped,
    and the chunks are the runs of tagged tokens cut before each token that does not continue its
    predecessor: :func:`tags_to_spans` decodes them with one test per tagged token
    (:func:`_run_chunks`). conlleval's lenient decoding is such a scheme; the strict ones are not.
    """
    codes = range(len(PREFIXES))
    for p in codes:
        for c in codes:
            for same in (False, True):
                f = table[(p * len(PREFIXES) + c) * 2 + same]
                if c and not f & (_START | _INSIDE):
                    return False  # a tagged token that may be left out
                if p and not f & _INSIDE and not f & _END:
                    return False  # a chunk that may be dropped
    return True


def _t(*patterns: str) -> frozenset:
    """Transitions from ``"PREV,PREFIX,RELATION"`` strings."""
    return frozenset(tuple(p.split(",")) for p in patterns)


#: conlleval's decoding (lenient). Every tagged token belongs to a chunk.
LENIENT = Scheme(
    "conlleval", "lenient decoding of conlleval.pl / seqeval's default mode", "OBIES",
    start=_t("*,B,*", "*,S,*", "O,I,*", "O,E,*", "E,I,*", "E,E,*", "S,I,*", "S,E,*",
             "B,I,diff", "B,E,diff", "I,I,diff", "I,E,diff"),
    inside=_t("B,I,same", "B,E,same", "I,I,same", "I,E,same"),
    end=_t("E,*,*", "S,*,*", "B,O,*", "B,B,*", "B,S,*", "I,O,*", "I,B,*", "I,S,*",
           "B,I,diff", "B,E,diff", "I,I,diff", "I,E,diff"),
    strict=False,
)

_BIOES = dict(
    prefixes="OBIES",
    start=_t("*,B,*", "*,S,*"),
    inside=_t("B,I,same", "B,E,same", "I,I,same", "I,E,same"),
    end=_t("E,*,*", "S,*,*"),
    writes=("S", "B", "I", "E"),
)

#: The registry of strict schemes: name -> Scheme. Aliases are resolved by :func:`get_scheme`.
SCHEMES: dict[str, Scheme] = {
    s.name: s
    for s in (
        Scheme(
            "iob1", "IOB1: I inside; B only starts a chunk that directly follows one of its type",
            "OBI",
            start=_t("O,I,*", "I,I,diff", "I,B,same", "B,I,*", "B,B,same"),
            inside=_t("I,I,same", "B,I,same"),
            end=_t("I,O,*", "I,I,diff", "I,B,*", "B,O,*", "B,I,diff", "B,B,same"),
            writes=("I", "I", "I", "I"), adjacent="first=B",
        ),
        Scheme(
            "iob2", "IOB2 (BIO): B starts every chunk, I continues it", "OBI",
            start=_t("*,B,*"),
            inside=_t("B,I,same", "I,I,same"),
            end=_t("I,O,*", "I,I,diff", "I,B,*", "B,O,*", "B,I,diff", "B,B,*"),
            writes=("B", "B", "I", "I"), aliases=("bio",),
        ),
        Scheme(
            "ioe1", "IOE1: I inside; E only ends a chunk that is directly followed by one of its type",
            "OIE",
            # seqeval's IOE1 less two gaps: an E-X that is a whole chunk (followed by another X
            # chunk) may start after O or after another type ("O E-X I-X" is two X chunks).
            start=_t("O,I,*", "I,I,diff", "E,I,*", "E,E,same", "O,E,*", "I,E,diff"),
            inside=_t("I,I,same", "I,E,same"),
            end=_t("I,O,*", "I,I,diff", "I,E,diff", "E,I,same", "E,E,same"),
            writes=("I", "I", "I", "I"), adjacent="last=E",
        ),
        Scheme(
            "ioe2", "IOE2 (IOE): E ends every chunk, I precedes it", "OIE",
            start=_t("O,I,*", "O,E,*", "E,I,*", "E,E,*", "I,I,diff", "I,E,diff"),
            inside=_t("I,I,same", "I,E,same"),
            end=_t("E,*,*"),
            writes=("E", "I", "I", "E"), aliases=("ioe",),
        ),
        Scheme("bioes", "BIOES (IOBES): B begin, I inside, E end, S single; L and U read as E and S",
               aliases=("iobes",), **_BIOES),
        Scheme("bilou", "BILOU: BIOES spelled B, I, L (last), U (unit); E and S read as L and U",
               spelling={"E": "L", "S": "U"}, **_BIOES),
        Scheme(
            "io", "IO: I inside, O outside; chunks of one type cannot touch", "OI",
            start=_t("O,I,*", "I,I,diff"),
            inside=_t("I,I,same"),
            end=_t("I,O,*", "I,I,diff"),
            writes=("I", "I", "I", "I"), adjacent=None,
        ),
    )
}

_BY_NAME = {alias: s for s in SCHEMES.values() for alias in (s.name, *s.aliases)}

#: Every name :func:`get_scheme` accepts, in registry order, each scheme's aliases after its name
#: (lower case; ``get_scheme`` takes any case): the choices of ``--scheme``.
SCHEME_NAMES: tuple[str, ...] = tuple(_BY_NAME)


def get_scheme(name: str | Scheme | None) -> Scheme:
    """The scheme called ``name`` (``None``: the lenient :data:`LENIENT`), or a :class:`UsageError`."""
    if name is None:
        return LENIENT
    if isinstance(name, Scheme):
        return name
    scheme = _BY_NAME.get(str(name).lower())
    if scheme is None:
        choices = ", ".join(sorted(_BY_NAME))
        raise UsageError(f"unknown tag scheme {name!r}; choose one of: {choices} (or none for conlleval's decoding)")
    return scheme


def _parse(tag: str, scheme: Scheme) -> tuple[int, str | None]:
    """``(prefix code, type)`` of a tag, or :class:`TagError`."""
    if tag == "O":
        return 0, None
    head, dash, kind = tag.partition("-")
    prefix = ALIASES.get(head, head)
    if prefix not in _CODE or prefix == "O" or (dash and not kind):
        if head == "O":
            problem = "'O' takes no type"
        elif dash and not kind and prefix in _CODE:
            problem = "empty type after the prefix"
        else:
            problem = "unknown prefix"
        raise TagError(f"bad tag {tag!r}{lookalikes(tag)}: {problem}; expected O or B-, I-, E-, S-, L-, U- and a type",
                       tag=tag)
    if prefix not in scheme.prefixes:
        allowed = ", ".join(scheme.prefixes)
        raise TagError(f"tag {tag!r} is not allowed by scheme {scheme.name} (prefixes {allowed})", tag=tag)
    return _CODE[prefix], (kind if dash else NO_TYPE)


def parse_tags(tags: Sequence[str], scheme: str | Scheme | None = None) -> dict[str, tuple[int, str | None]]:
    """Every distinct tag of ``tags`` parsed once: ``tag -> (prefix code, type)``.

    Raises :class:`TagError` for the first bad tag, with its ``index`` in ``tags``.
    """
    scheme = get_scheme(scheme)
    kinds = {}
    bad = None
    for tag in set(tags):
        try:
            kinds[tag] = _parse(tag, scheme)
        except TagError as error:
            index = tags.index(tag)
            if bad is None or index < bad.index:
                bad = error
                bad.index = index
    if bad is not None:
        raise bad
    return kinds


def tags_to_spans(tags: Sequence[str], scheme: str | Scheme | None = None) -> tuple[list[tuple[int, int, str]], int]:
    """Decode one sequence of tags into chunks.

    Sentences are decoded independently: decode them one by one, or concatenate them with an
    ``"O"`` between two sentences (which is exactly equivalent).

    Parameters
    ----------
    tags : sequence of str
        One tag per token, e.g. ``["B-PER", "I-PER", "O"]``.
    scheme : str, optional
        ``None`` (default): conlleval's lenient decoding. ``"iob1"``, ``"iob2"`` (``"bio"``),
        ``"ioe1"``, ``"ioe2"`` (``"ioe"``), ``"bioes"`` (``"iobes"``), ``"bilou"``, ``"io"``:
        strict decoding as seqeval ``mode="strict"``.

    Returns
    -------
    spans : list of (int, int, str)
        ``(first token, last token + 1, type)``, half-open, in order.
    invalid : int
        Chunks strict decoding dropped: the tokens it left out, cut into chunks as the lenient
        decoding would cut them (for IOB2: the number of ``I-X`` after ``O`` or after another
        type). Always 0 for the lenient decoding.

    Raises
    ------
    TagError
        A tag that is malformed or not allowed by the scheme (``.index`` says where).

    Examples
    --------
    >>> tags_to_spans(["I-PER", "I-PER", "O", "I-LOC", "B-LOC", "I-ORG"])
    ([(0, 2, 'PER'), (3, 4, 'LOC'), (4, 5, 'LOC'), (5, 6, 'ORG')], 0)
    >>> tags_to_spans(["B-PER", "E-PER", "B-LOC", "O"], scheme="bioes")
    ([(0, 2, 'PER')], 1)
    """
    scheme = get_scheme(scheme)
    if not isinstance(tags, list):
        tags = list(tags)
    kinds = parse_tags(tags, scheme)
    if scheme._runs:
        return _run_chunks(tags, kinds, scheme._table), 0
    table = scheme._table
    n = len(tags)
    spans: list[tuple[int, int, str]] = []
    dropped: list[tuple[int, int]] = []
    resume = 0
    for i in [i for i, t in enumerate(tags) if t != "O"]:
        if i < resume:
            continue
        c, kind = kinds[tags[i]]
        p, previous_kind = kinds[tags[i - 1]] if i else (0, None)
        if table[(p * 5 + c) * 2 + (previous_kind == kind)] & _START:
            j = i + 1
            p, previous_kind = c, kind
            while j < n:
                c, next_kind = kinds[tags[j]]
                if not table[(p * 5 + c) * 2 + (previous_kind == next_kind)] & _INSIDE:
                    break
                p, previous_kind = c, next_kind
                j += 1
            else:
                c, next_kind = 0, None
            if table[(p * 5 + c) * 2 + (previous_kind == next_kind)] & _END:
                spans.append((i, j, kind))
            else:
                dropped.append((i, j))
            resume = j
        else:
            dropped.append((i, i + 1))
    return spans, (_count_dropped(tags, kinds, dropped) if dropped else 0)


def _run_chunks(tags: list[str], kinds: Mapping[str, tuple[int, str | None]],
                table: Sequence[int]) -> list[tuple[int, int, str]]:
    """The chunks of a scheme whose decoding is the run decoding (:func:`_decodes_runs`).

    The same chunks as the general loop of :func:`tags_to_spans`, found with less work: which
    tag continues which is worked out once per pair of distinct tags (``continues[tag]``: the
    tags it continues), and then each tagged token costs one set membership test: it continues
    the chunk of the token before it, or starts a chunk of its own. Tokens tagged ``O`` are
    passed over by one list comprehension.
    """
    continues = {tag: frozenset(before for before, (p, previous_kind) in kinds.items()
                                if table[(p * 5 + c) * 2 + (previous_kind == kind)] & _INSIDE)
                 for tag, (c, kind) in kinds.items()}
    spans: list[tuple[int, int, str]] = []
    append = spans.append
    first = kind = None
    last = -2
    for i in [i for i, t in enumerate(tags) if t != "O"]:
        tag = tags[i]
        if i - 1 == last and tags[last] in continues[tag]:
            last = i
            continue
        if first is not None:
            append((first, last + 1, kind))
        first = last = i
        kind = kinds[tag][1]
    if first is not None:
        append((first, last + 1, kind))
    return spans


def _count_dropped(tags: Sequence[str], kinds: Mapping, dropped: list[tuple[int, int]]) -> int:
    """Dropped tokens cut into chunks the way the lenient decoding cuts them."""
    table = LENIENT._table
    count = 0
    last = -2
    for begin, stop in dropped:
        for k in range(begin, stop):
            if k - 1 != last:
                count += 1
            else:
                p, pt = kinds[tags[k - 1]]
                c, ct = kinds[tags[k]]
                if table[(p * 5 + c) * 2 + (pt == ct)] & _START:
                    count += 1
            last = k
    return count


def spans_to_tags(spans: Iterable[tuple[int, int, str]], length: int, scheme: str | Scheme = "iob2") -> list[str]:
    """Encode chunks over ``length`` tokens as tags of a scheme (the inverse of :func:`tags_to_spans`).

    Parameters
    ----------
    spans : iterable of (int, int, str)
        ``(first token, last token + 1, type)``; they must not overlap. A type may contain ``-``
        but no whitespace, and must not be empty.
    length : int
        Number of tokens.
    scheme : str
        Any strict scheme except that ``"io"`` cannot write two touching chunks of one type.

    Raises
    ------
    ValueError
        Overlapping or out-of-range chunks, an empty type, or chunks the scheme cannot separate.

    Examples
    --------
    >>> spans_to_tags([(0, 1, "PER"), (1, 3, "PER")], 4, scheme="iob1")
    ['I-PER', 'B-PER', 'I-PER', 'O']
    """
    if scheme is None:
        raise UsageError("writing tags needs a scheme (iob2, bioes, ...)")
    scheme = get_scheme(scheme)
    single, first, middle, last = scheme.writes
    spell = scheme.spelling
    single, first, middle, last = (spell.get(x, x) for x in (single, first, middle, last))
    tags = ["O"] * length
    previous_end, previous_kind = 0, None
    for start, end, kind in sorted(spans):
        if not (0 <= start < end <= length):
            raise ValueError(f"chunk ({start}, {end}, {kind!r}) is empty or outside 0..{length}")
        if start < previous_end:
            raise ValueError(f"chunk ({start}, {end}, {kind!r}) overlaps the one before it")
        if not kind or kind.split() != [kind]:
            raise ValueError(f"chunk type {kind!r} is empty or has whitespace")
        touching = start == previous_end and kind == previous_kind
        if touching and scheme.adjacent is None:
            raise ValueError(f"scheme {scheme.name} cannot separate two touching {kind!r} chunks at token {start}")
        if end - start == 1:
            tags[start] = f"{single}-{kind}"
        else:
            tags[start] = f"{first}-{kind}"
            for k in range(start + 1, end - 1):
                tags[k] = f"{middle}-{kind}"
            tags[end - 1] = f"{last}-{kind}"
        if touching and scheme.adjacent == "first=B":
            tags[start] = f"B-{kind}"
        elif touching and scheme.adjacent == "last=E":
            tags[start - 1] = f"E-{kind}"
        previous_end, previous_kind = end, kind
    return tags
