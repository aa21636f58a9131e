"""CoNLL's published layouts: named columns, comments that name documents, CoNLL-U, CoNLL-2012.

The plain CoNLL reader (:mod:`spanagree.formats.conll`) reads ``token tag`` lines split on any
white space. Shared tasks publish richer files, which this module recognises from the file's first
lines (:func:`layout_of`) and reads a line at a time (:func:`rich_documents`):

* **A header row** naming the columns (HIPE's ``TOKEN NE-COARSE-LIT ... MISC``): the first line
  holds a tab, each of its tab-separated cells (spaces around them and trailing tabs aside) is
  non-empty, without a space or a lower-case letter, not a tag the lenient decoder takes (``O``,
  ``B-PER``), not ``_`` and not ``-DOCSTART-``, and the first does not begin with ``#``. **CoNLL-U Plus** names them in a first line ``# global.columns = ID FORM
  ...``; a ``.conllu`` file without it has CoNLL-U's ten (``ID FORM LEMMA UPOS XPOS FEATS HEAD
  DEPREL DEPS MISC``). Such a file's lines are split on tabs only (empty cells kept; a line of
  only tabs and spaces is blank), its token is the ``FORM`` column if one is named so, else the
  first, and its tag column(s) are named (``conll_column="NE-COARSE-LIT"``, or a list of names
  read as one span set) or counted from 1; without one, the only *tag-like* column (see
  :func:`tag_like`) among the file's first rows, else an error that lists the names.
* **CoNLL-U without names** (Universal NER's ``.iob2`` files): a file that begins with ``#
  sent_id``, ``# text`` or ``# newdoc`` comments and whose first token line begins with ``1`` and
  a tab is split on tabs, its token is column 2 and its tag column the last, or a number.
* **CoNLL-2012 / OntoNotes** (``*_conll`` files, first line ``#begin document (X); part N``):
  columns split on white space, the token is column 4 and the tags are column 11 (the named
  entities) unless ``conll_column`` says otherwise.
* **Comments.** With named columns every line whose first cell begins with ``#`` is a comment (as
  HIPE's scorer reads its files: its gold has tagged rows ``#<TAB>I-PER`` that the official figures
  leave out). Otherwise only ``# key = value`` lines (``# newdoc id = X``, ``# sent_id = 1``, ``#
  text = ...``, ``# hipe2022:document_id = X``, ``# newdoc``, ``# newpar``) and ``#begin document`` /
  ``#end document`` lines are: a token line ``#<TAB>O`` (WNUT-17 has 247) stays a token.
* **Documents** begin at ``# newdoc id = X`` (CoNLL-U), ``# hipe2022:document_id = X`` and ``#
  document_id = X`` (HIPE; one without a value is a comment only), ``#begin document (X); part N``
  (named ``X; part N``) and ``-DOCSTART-`` lines. ``-DOCSTART- X`` names document ``X`` when the
  line has exactly one more field and that field is not ``O``, ``-X-`` or a tag; otherwise (and for
  a document that no line names) the document's id is its ordinal in the file, as the plain reader
  numbers them.
* **Tags.** ``_`` and empty cells are no tag (``O``). A column of bracketed cells (``(PERSON*``,
  ``*``, ``*)``, ``(DATE)``) reads as spans: a cell opens one span per ``(LABEL`` and closes the
  latest open one per ``)``. CoNLL-U's multiword (``1-2``) and empty-node (``1.1``) lines are not
  tokens.

* **Link columns** (HIPE's ``NEL-LIT`` and ``NEL-METO``: an entity's Wikidata id, ``NIL``, or
  candidates ``Q1|Q2``): ``conll_column="NE-COARSE-LIT+NEL-LIT"`` pairs a tag column with the
  column holding its entities' ids (a name or a number, in any file: a plain one is then read
  a line at a time too). An entity's id is the cell on its first token, kept as written (``NIL``
  and candidate lists too) in its attribute ``kb_id``; ``_``, ``-`` and an empty cell give none.

Texts and spans are built as the plain reader builds them (tokens joined by one space, sentences
by ``\\n``); several tag columns give one span set, nested spans kept.

* **Spacing.** Where a ``MISC`` column says a token is written without a space after it
  (CoNLL-U's ``SpaceAfter=No``, HIPE's ``NoSpaceAfter``), the text keeps its space there (its
  whitespace-separated pieces stay the tokens), and the document records the space's offset in
  ``Document.unwritten_spaces``: :func:`spanagree.span.as_written` gives the text as written
  (``"Hello, world"``), which formats without tokens write and texts from other formats are
  compared with. The space after a sentence's last token is its line break, kept.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import FormatError, UsageError, parameter
from ..span import Document, Source, Span
from .files import open_file
from .schemes import Scheme, TagError, parse_tags, tags_to_spans

DOCSTART = "-DOCSTART-"

#: CoNLL-U's ten columns (a ``.conllu`` file without ``# global.columns``).
CONLLU_COLUMNS = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")

#: How much of a file's beginning :func:`layout_of` reads.
_HEAD_BYTES = 1 << 16
#: Rows of a file with named columns looked at to tell its tag-like columns.
_SAMPLE_ROWS = 2000

# A comment of a file without named columns: "# key = value" (spaces, never a tab, around the key
# and the "="), "# newdoc", "# newpar", "#begin document", "#end document". A token line never
# matches: its token (no space in it) is followed by a tab or a space and a tag.
_KEY_VALUE = re.compile(r"# ?(?:newdoc|newpar)(?: |$)|# ?[\w.:-]+(?: [\w.:-]+)? =(?: |$)|#(?:begin|end) document(?: |$)")
_NAMING = re.compile(r"# ?(newdoc id|hipe2022:document_id|document_id) =(.*)$")
_BEGIN_DOCUMENT = re.compile(r"#begin document \((.*)\)(?:; part 0*(\d+))?")
_COLUMNS = re.compile(r"[ \t\r]+")
_BRACKETS = re.compile(r"(?:\([^()*\s]+)*\*?\)*|\([^()*\s]+\)")
_OPEN = re.compile(r"\(([^()*\s]+)")
#: A link column's cells that give no id (HIPE writes ``_``; some runs ``-``).
NO_LINK = frozenset({"", "_", "-"})


@dataclass(frozen=True)
class Layout:
    """How a CoNLL file's lines are read (:func:`layout_of`).

    ``names``: the column names (a header row, ``# global.columns``, CoNLL-U's), or ``None``;
    ``header``: the first line is the header row; ``token``: the token column (from 0);
    ``tags``: the tag columns (from 0), ``None`` for each line's last column; ``tabs``: split on
    tabs only; ``conllu``: multiword and empty-node lines skipped; ``hash_comments``: every line
    beginning with ``#`` is a comment; ``links``: for each tag column, the column (from 0) holding
    its entities' knowledge-base ids (``None`` for one without), or ``None`` when none has one;
    ``drop_hash_rows``: every row whose token holds a ``#`` anywhere is left out, before the tags
    are decoded (the HIPE scorer's reading, :func:`reading_layout`).
    """

    names: tuple[str, ...] | None = None
    header: bool = False
    token: int = 0
    tags: tuple[int, ...] | None = None
    tabs: bool = False
    conllu: bool = False
    hash_comments: bool = False
    links: tuple[int | None, ...] | None = None
    drop_hash_rows: bool = False

    @property
    def misc(self) -> int | None:
        """The ``MISC`` column (from 0), where a token's spacing is said, or ``None``."""
        return self.names.index("MISC") if self.names and "MISC" in self.names else None

    @property
    def echoed(self):
        """The tag column(s) as ``options.conll_column`` echoes them: a name, a number or a list."""
        if self.tags is None:
            return None
        shown = [self.names[t] if self.names else t + 1 for t in self.tags]
        return shown[0] if len(shown) == 1 else shown


def is_tag(cell: str) -> bool:
    """Whether the lenient decoder takes ``cell`` as a tag (``O``, ``B-PER``, ``I-loc``, ...)."""
    try:
        parse_tags([cell])
    except TagError:
        return False
    return True


def columns_wanted(conll_column) -> tuple | None:
    """``conll_column``'s tag columns as a tuple of names and numbers (from 1), or ``None``: a
    number, a name, a list of them, or a string of them separated by commas
    (``"NE-COARSE-LIT,NE-NESTED"``; a part of digits is a number); each may be followed by ``+``
    and its link column (:func:`link_columns_wanted`).

    Examples
    --------
    >>> columns_wanted("NE-COARSE-LIT,NE-NESTED"), columns_wanted(3), columns_wanted("2")
    (('NE-COARSE-LIT', 'NE-NESTED'), (3,), (2,))
    >>> columns_wanted("NE-COARSE-LIT+NEL-LIT"), columns_wanted("2+8")
    (('NE-COARSE-LIT',), (2,))
    """
    items = _column_items(conll_column)
    return None if items is None else tuple(tag for tag, _ in items)


def link_columns_wanted(conll_column) -> tuple | None:
    """The link column (a name or a number from 1) that ``conll_column`` pairs with each of its tag
    columns (``TAG+LINK``: the entities' knowledge-base ids, HIPE's ``NEL-LIT``), ``None`` for a
    tag column without one; ``None`` when none has one.

    Examples
    --------
    >>> link_columns_wanted("NE-COARSE-LIT+NEL-LIT,NE-COARSE-METO+NEL-METO"), link_columns_wanted("2+8,3")
    (('NEL-LIT', 'NEL-METO'), (8, None))
    >>> link_columns_wanted("NE-COARSE-LIT") is None
    True
    """
    items = _column_items(conll_column)
    if items is None or all(link is None for _, link in items):
        return None
    return tuple(link for _, link in items)


def _column_items(conll_column) -> list[tuple] | None:
    """``conll_column`` as ``(tag column, link column or None)`` pairs, each a name or a number (from 1)."""
    if conll_column is None:
        return None
    items = conll_column.split(",") if isinstance(conll_column, str) else (
        list(conll_column) if isinstance(conll_column, (list, tuple)) else [conll_column])
    wanted = []
    for item in items:
        parts = item.split("+") if isinstance(item, str) else [item]
        if len(parts) > 2:
            raise UsageError("{option} pairs a tag column with one link column (TAG+LINK), not "
                             f"{item.strip()!r}", option="conll_column")
        pair = []
        for part in parts:
            if isinstance(part, str):
                part = part.strip()
                part = int(part) if part.isdigit() else part
            if isinstance(part, bool) or not isinstance(part, (int, str)) or part == "" or (
                    isinstance(part, int) and part < 2):
                raise UsageError("{option} names a column or counts from 1, column 1 being the token: "
                                 f"give a name or 2 or more, not {conll_column!r}", option="conll_column")
            pair.append(part)
        wanted.append((pair[0], pair[1] if len(pair) == 2 else None))
    if not wanted:
        raise UsageError(f"{{option}} names no column: {conll_column!r}", option="conll_column")
    return wanted


def plain_column(conll_column) -> int | None:
    """The one tag column (from 1) of a plain file, or ``None`` for the last; a name or a list is
    for files that name their columns."""
    wanted = columns_wanted(conll_column)
    if wanted is None:
        return None
    if len(wanted) == 1 and isinstance(wanted[0], int):
        return wanted[0]
    return -1  # names or several columns: only files with a layout take them (see layout_of)


def _header_cells(line: str) -> list[str] | None:
    """The cells of ``line`` when it is a header row naming the columns, else ``None``."""
    if "\t" not in line:
        return None
    cells = [cell.strip(" \r") for cell in line.split("\t")]
    while cells and cells[-1] == "":
        cells.pop()  # trailing tabs
    if len(cells) < 2 or cells[0].startswith("#") or cells[0] == DOCSTART:
        return None
    if any(not cell or " " in cell or cell != cell.upper() or cell == "_" or is_tag(cell) for cell in cells):
        return None
    return cells


def layout_of(path, conll_column=None, *, unresolved: bool = False) -> Layout | None:
    """The layout of a CoNLL file, told from its first lines, with its tag columns resolved (not
    with ``unresolved``: the layout's kind alone); ``None`` for a plain file (no header row, no
    ``# global.columns``, not ``.conllu``, not CoNLL-2012), which the plain reader reads.

    Raises
    ------
    FormatError
        Named columns and no ``conll_column``, with not exactly one tag-like column: the message
        lists the names. A name the file does not have, or a number beyond its columns.
    """
    with open_file(str(path), "CoNLL") as file:
        # a pipe or a device is never read ahead (its bytes would be lost): read as a plain file
        head = file.read(_HEAD_BYTES) if stat.S_ISREG(os.fstat(file.fileno()).st_mode) else b""
    text = head.decode("utf-8", "replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if len(head) == _HEAD_BYTES and len(lines) > 1:
        lines.pop()  # cut short
    first = next((line for line in lines if line.strip()), "")
    wanted = columns_wanted(conll_column)
    links = link_columns_wanted(conll_column) or (None,) * len(wanted or ())
    if not any(links):
        links = None
    names = None
    layout: dict = {}
    cells = _header_cells(lines[0] if lines else "")
    stripped = first.strip()
    if re.match(r"# ?global\.columns =", stripped):
        names = tuple(stripped.split("=", 1)[1].split())
        layout = dict(tabs=True, hash_comments=True, conllu="ID" in names)
    elif cells is not None:
        names = tuple(cells)
        layout = dict(header=True, tabs=True, hash_comments=True)
    elif Path(str(path)).suffix.lower() == ".conllu":
        names = CONLLU_COLUMNS
        layout = dict(tabs=True, hash_comments=True, conllu=True)
    elif _BEGIN_DOCUMENT.match(stripped):
        if unresolved:
            return Layout(token=3)
        tags = tuple(w - 1 for w in wanted) if wanted else (10,)
        if any(not isinstance(w, int) for w in (wanted or ()) + (links or ()) if w is not None):
            raise FormatError(path, "CoNLL-2012 columns have no names: give {column} as a number",
                              column=parameter("conll_column", conll_column))
        return Layout(token=3, tags=tags, links=_numbered(links))
    elif _conllu_like(lines):
        if unresolved:
            return Layout(token=1, tabs=True, conllu=True)
        if wanted is not None and (len(wanted) > 1 or isinstance(wanted[0], str)
                                   or any(isinstance(link, str) for link in links or ())):
            raise FormatError(path, "its columns have no names (no header row, no '# global.columns'): "
                              "give {column} as one number", column=parameter("conll_column", conll_column))
        return Layout(token=1, tabs=True, conllu=True, tags=None if wanted is None else (wanted[0] - 1,),
                      links=_numbered(links))
    else:
        if unresolved:
            return None
        if wanted is not None and (len(wanted) > 1 or isinstance(wanted[0], str)
                                   or any(isinstance(link, str) for link in links or ())):
            raise FormatError(path, "its columns have no names (no header row, no '# global.columns'): "
                              "give {column} as one number", column=parameter("conll_column", conll_column))
        # a link column is read a line at a time, as a file with a layout
        return None if links is None else Layout(tags=(wanted[0] - 1,), links=_numbered(links))
    token = names.index("FORM") if "FORM" in names else 0
    if unresolved:
        return Layout(names=names, token=token, **layout)
    listed = ", ".join(names)
    if wanted is None:
        candidates = [k for k in tag_like(lines, names, layout.get("header", False)) if k != token]
        if len(candidates) != 1:
            raise FormatError(path, f"its columns are named ({listed}) and "
                              + ("none looks like tags" if not candidates else
                                 f"{len(candidates)} look like tags ({', '.join(names[k] for k in candidates)})")
                              + ": name the tag column(s) with {column}", column="conll_column")
        tags = tuple(candidates)
    else:
        tags = tuple(_named_column(item, names, path) for item in wanted)
    if links is not None:
        links = tuple(None if item is None else _named_column(item, names, path) for item in links)
    return Layout(names=names, token=token, tags=tags, links=links, **layout)


def _named_column(item, names: tuple[str, ...], path) -> int:
    """A column of a file that names its columns, by name or number (from 1), counted from 0."""
    listed = ", ".join(names)
    if isinstance(item, int):
        if item > len(names):
            raise FormatError(path, f"it has {len(names)} named columns ({listed}): no column {item}")
        return item - 1
    if item in names:
        return names.index(item)
    raise FormatError(path, f"no column named {item!r}; its columns are {listed}")


def _numbered(links: tuple | None) -> tuple | None:
    """Link columns given as numbers from 1, counted from 0."""
    return None if links is None else tuple(None if item is None else item - 1 for item in links)


def _conllu_like(lines: list[str]) -> bool:
    """Whether a file without column names is laid out as CoNLL-U (Universal NER's ``.iob2``
    files): it begins with ``# sent_id``, ``# text`` or ``# newdoc`` comments and its first token
    line's first column is ``1``."""
    first = next((line for line in lines if line.strip()), "")
    if not re.match(r"# ?(?:sent_id|text|newdoc)(?: |$)", first):
        return False
    token = next((line for line in lines if line.strip() and not line.startswith("#")), "")
    return token.startswith("1\t")


def tag_like(lines: list[str], names: tuple[str, ...], header: bool) -> list[int]:
    """The columns whose cells, in the token rows among ``lines``, are all tags or ``_``/empty,
    at least one of them not ``_``/empty: the candidates for the tag column."""
    possible = set(range(len(names)))
    seen: set[int] = set()
    rows = 0
    for line in lines[1 if header else 0:]:
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.rstrip("\r").split("\t")
        if cells[0] == DOCSTART:
            continue
        rows += 1
        for k in list(possible):
            cell = cells[k].strip() if k < len(cells) else ""
            if cell in ("", "_"):
                continue
            if is_tag(cell):
                seen.add(k)
            else:
                possible.discard(k)
        if rows >= _SAMPLE_ROWS:
            break
    return sorted(possible & seen)


def docstart_name(cells: list[str]) -> str | None:
    """The document a ``-DOCSTART-`` line names: its one more field, unless that is ``O``, ``-X-``
    or a tag.

    Examples
    --------
    >>> docstart_name(["-DOCSTART-", "clinic-01"]), docstart_name(["-DOCSTART-", "O"])
    ('clinic-01', None)
    >>> docstart_name(["-DOCSTART-", "-X-", "-X-", "O"]) is None
    True
    """
    if len(cells) != 2 or cells[1] in ("O", "-X-", "_", "") or is_tag(cells[1]):
        return None
    return cells[1]


def comment_kind(line: str, hash_comments: bool):
    """``None`` for a line that is not a comment; else ``("doc", name)`` for one that begins a
    document (name ``None`` when it has none), ``("comment", None)`` for any other.

    Examples
    --------
    >>> comment_kind("# newdoc id = n01", False), comment_kind("#\\tO", False)
    (('doc', 'n01'), None)
    >>> comment_kind("#begin document (bc/cnn/00/cnn_0001); part 000", False)
    ('doc', 'bc/cnn/00/cnn_0001; part 000')
    >>> comment_kind("# hipe2022:document_id = ", False), comment_kind("#\\tI-PER", True)
    (('comment', None), ('comment', None))
    """
    if not line.startswith("#"):
        return None
    if not hash_comments and not _KEY_VALUE.match(line):
        return None
    named = _NAMING.match(line)
    if named:
        name = named.group(2).strip(" \t")
        return ("doc", name) if name else ("comment", None)
    begin = _BEGIN_DOCUMENT.match(line)
    if begin:
        name = begin.group(1).strip()
        return "doc", name + (f"; part {int(begin.group(2)):03d}" if begin.group(2) is not None else "")
    if re.match(r"# ?newdoc(?: |$)", line):
        return "doc", None
    return "comment", None


def _bracket_chunks(tags: list[str], lines: list[int], path: str) -> list[tuple[int, int, str]]:
    """The spans of a bracket column (``(PERSON*``, ``*``, ``*)``): ``(first, stop, label)`` rows."""
    chunks = []
    open_: list[tuple[int, str]] = []
    for row, cell in enumerate(tags):
        if cell in ("O", "*", "-"):
            if cell == "O" and open_:  # a sentence or document ends with brackets open
                raise FormatError(path, f"bracket {open_[-1][1]!r} opened here is never closed", lines[open_[-1][0]])
            continue
        if not _BRACKETS.fullmatch(cell):
            raise FormatError(path, f"bad bracket cell {cell!r}: expected (LABEL*, *, *) or (LABEL)", lines[row])
        for label in _OPEN.findall(cell):
            open_.append((row, label))
        for _ in range(cell.count(")")):
            if not open_:
                raise FormatError(path, f"bracket closed in {cell!r} was never opened", lines[row])
            first, label = open_.pop()
            chunks.append((first, row + 1, label))
    if open_:
        raise FormatError(path, f"bracket {open_[-1][1]!r} opened here is never closed", lines[open_[-1][0]])
    return chunks


def _is_bracket_column(tags: list[str]) -> bool:
    cells = [t for t in tags if t != "O"]
    return bool(cells) and any("*" in t or t.startswith("(") for t in cells) and all(
        t in ("*", "-") or _BRACKETS.fullmatch(t) for t in cells)


def has_layout(path) -> bool:
    """Whether a CoNLL file names its columns or is CoNLL-U or CoNLL-2012 (:func:`layout_of` gives
    it a layout), whatever its tag columns."""
    return layout_of(path, unresolved=True) is not None


def reading_layout(path, conll_column=None, drop_hash_rows: bool = False) -> Layout | None:
    """The layout the reader reads ``path`` with: :func:`layout_of`'s, and with
    ``drop_hash_rows`` a layout that leaves out every row whose token holds a ``#`` anywhere, as
    the HIPE scorer's reader does (``if "#" not in row["TOKEN"]``: in gold and run alike, before
    its entities are built; ``score --pairing hipe``). A plain file is then read a line at a time
    too (its tag column the last one, or ``conll_column``)."""
    layout = layout_of(path, conll_column)
    if not drop_hash_rows:
        return layout
    if layout is None:
        column = plain_column(conll_column)
        layout = Layout(tags=None if column is None else (column - 1,))
    return replace(layout, drop_hash_rows=True)


def token_rows(path, layout: Layout | None) -> list[int]:
    """The line of each token of a CoNLL file, in order (for messages)."""
    with open_file(str(path), "CoNLL") as file:
        text = file.read().decode("utf-8", "replace")
    tokens, rows_line, _, _, _, _ = _rows(text, str(path), layout or Layout(), 0)
    return [line for token, line in zip(tokens, rows_line) if token]


def rich_documents(text: str, path: str, layout: Layout, scheme: Scheme, lines_before: int,
                   documents_before: int, left_out: list[int] | None = None) -> tuple[list[Document], int]:
    """The documents of a block of a file with a :class:`Layout` (its text; lines and documents
    numbered on from ``lines_before`` and ``documents_before``), and the chunks strict decoding
    dropped; the lines of the rows left out (:attr:`Layout.drop_hash_rows`) are added to ``left_out``."""
    tokens, rows_line, columns, starts, unspaced, links = _rows(text, path, layout, lines_before, left_out)
    chunks: list[tuple] = []
    invalid = 0
    linked = iter(links)
    for number, column in enumerate(columns):
        if _is_bracket_column(column):
            found = _bracket_chunks(column, rows_line, path)
        else:
            try:
                found, dropped = tags_to_spans(column, scheme)
            except TagError as error:
                raise FormatError(path, error.message,
                                  None if error.index is None else rows_line[error.index]) from None
            invalid += dropped
        ids = next(linked) if layout.links is not None and layout.links[number] is not None else None
        if ids is None:
            chunks += found
        else:  # an entity's id is the one on its first token
            chunks += [(first, stop, label, (("kb_id", ids[first]),) if ids[first] else ())
                       for first, stop, label in found]
    return _build(tokens, rows_line, starts, chunks, path, documents_before, unspaced), invalid


def _rows(text: str, path: str, layout: Layout, lines_before: int, left_out: list[int] | None = None):
    """A block's rows: tokens (``""`` for a break: a blank line, a comment, a document's start),
    each row's line, the tag columns' cells (``O`` for no tag), the documents' starts
    ``(row, name)``, the rows whose token the ``MISC`` column says has no space after it
    (:func:`no_space_after`), and each link column's cells (``""`` for none). A row left out
    (:attr:`Layout.drop_hash_rows`) is no row, nor a break: its line goes to ``left_out``."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    n_tags = len(layout.tags) if layout.tags is not None else 1
    need = max([layout.token, *(layout.tags or (1,)), *(k for k in layout.links or () if k is not None)]) + 1
    link_of = [k for k in layout.links if k is not None] if layout.links is not None else []
    links: list[list[str]] = [[] for _ in link_of]  # each link column's cells, "" for none
    tokens: list[str] = []  # a row per token; "" for a break (blank line, comment, document start)
    rows_line: list[int] = []
    columns: list[list[str]] = [[] for _ in range(n_tags)]
    starts: list[tuple[int, str | None]] = []  # (row, name) of each document start
    unspaced: set[int] = set()  # rows whose token is written without a space after it
    misc = layout.misc
    multiword = None  # a CoNLL-U multiword token being read: (its last word's ID, form, no space after, first row)
    start = 1 if layout.header and lines_before == 0 else 0

    def brk(line_number: int) -> None:
        if tokens and tokens[-1] != "":
            tokens.append("")
            rows_line.append(line_number)
            for column in columns:
                column.append("O")
            for cells in links:
                cells.append("")

    for index in range(start, len(lines)):
        number = lines_before + index + 1
        line = lines[index]
        if line.endswith("\r"):
            line = line[:-1]
        if not line.strip(" \t"):
            brk(number)
            continue
        kind = comment_kind(line, layout.hash_comments)
        if kind is not None:  # a comment line: no token, no break (a tagged '#' row of HIPE's is left out)
            if kind[0] == "doc":
                brk(number)
                starts.append((len(tokens), kind[1]))
            continue
        cells = line.split("\t") if layout.tabs else _COLUMNS.split(line.strip(" \t"))
        if cells[0].strip() == DOCSTART:
            brk(number)
            fields = [c for c in (cells if layout.tabs else cells) if c.strip()]
            starts.append((len(tokens), docstart_name([c.strip() for c in fields])))
            continue
        if layout.conllu and ("-" in cells[0] or "." in cells[0]):
            if "-" in cells[0] and misc is not None and len(cells) > max(misc, layout.token):
                multiword = (cells[0].partition("-")[2].strip(), cells[layout.token].strip(),
                             no_space_after(cells[misc]), len(tokens))
            continue
        if layout.drop_hash_rows and layout.token < len(cells) and "#" in cells[layout.token]:
            if left_out is not None:  # the HIPE scorer's reading: no row at all
                left_out.append(number)
            continue
        if len(cells) < need:
            if layout.tags is None:
                raise FormatError(path, f"expected a token and a tag, got one column {cells[0]!r}", number)
            raise FormatError(path, f"expected at least {need} columns ({{column}}), got {len(cells)}", number,
                              column=parameter("conll_column", layout.echoed))
        token = cells[layout.token].strip()
        if not token or " " in token:
            raise FormatError(path, f"bad token {cells[layout.token]!r} (empty or with a space)", number)
        if misc is not None and misc < len(cells) and no_space_after(cells[misc]):
            unspaced.add(len(tokens))
        tokens.append(token)
        rows_line.append(number)
        if multiword is not None and cells[0].strip() == multiword[0]:
            _multiword_spacing(tokens, multiword, unspaced)
            multiword = None
        for column, k in zip(columns, layout.tags if layout.tags is not None else (-1,)):
            cell = cells[k].strip()
            column.append("O" if cell in ("", "_") else cell)
        for found, k in zip(links, link_of):
            cell = cells[k].strip()
            found.append("" if cell in NO_LINK else cell)
    return tokens, rows_line, columns, starts, unspaced, links


def _multiword_spacing(tokens: list[str], multiword: tuple, unspaced: set[int]) -> None:
    """The spacing of a CoNLL-U multiword token's words, read up to its last (``tokens``' end):
    written together where they make its form (``do`` ``n't`` for ``don't``; Spanish ``de``
    ``el`` for ``del`` stay apart), and followed by a space unless its range line says
    ``SpaceAfter=No`` (the words' own MISC say nothing of it)."""
    _, form, no_space, first = multiword
    last = len(tokens) - 1
    if "".join(tokens[first:]) == form:
        unspaced.update(range(first, last))
    if no_space:
        unspaced.add(last)


def no_space_after(misc: str) -> bool:
    """Whether a ``MISC`` cell says its token is written without a space after it: CoNLL-U's
    ``SpaceAfter=No`` or HIPE's ``NoSpaceAfter``, among ``|``-separated items.

    Examples
    --------
    >>> no_space_after("SpaceAfter=No"), no_space_after("NoSpaceAfter|EndOfLine"), no_space_after("_")
    (True, True, False)
    """
    return any(item.strip() in ("SpaceAfter=No", "NoSpaceAfter") for item in misc.split("|"))


def _build(tokens: list[str], rows_line: list[int], starts: list[tuple[int, str | None]],
           chunks: list[tuple], path: str, documents_before: int,
           unspaced: set[int] = frozenset()) -> list[Document]:
    """Documents cut at ``starts`` (tokens before the first start form one when there are some),
    their texts built, the chunks placed (offsets as the plain reader's); the spaces of a text
    that follow a token of ``unspaced`` (within its sentence) are its ``unwritten_spaces``."""
    bounds: list[tuple[int, int, str | None]] = []
    cut_rows = [row for row, _ in starts]
    if any(tokens[:cut_rows[0] if starts else len(tokens)]):
        bounds.append((0, cut_rows[0] if starts else len(tokens), None))
    for k, (row, name) in enumerate(starts):
        bounds.append((row, cut_rows[k + 1] if k + 1 < len(starts) else len(tokens), name))
    offsets: list[tuple[int, int]] = [(0, 0)] * len(tokens)
    documents = []
    owner = [0] * len(tokens)
    texts = []
    unwritten: list[tuple[int, ...]] = []
    for d, (begin, end, _) in enumerate(bounds):
        sentences, current, position = [], [], 0
        spaces: list[int] = []
        for row in range(begin, end):
            owner[row] = d
            token = tokens[row]
            if token == "":
                if current:
                    sentences.append(" ".join(current))
                    current = []
                continue
            if current:
                if row - 1 in unspaced:
                    spaces.append(position)
                position += 1
            elif sentences:
                position += 1  # the newline
            offsets[row] = (position, position + len(token))
            position += len(token)
            current.append(token)
        if current:
            sentences.append(" ".join(current))
        texts.append("\n".join(sentences))
        unwritten.append(tuple(spaces))
    ids = [name if name is not None else str(documents_before + d + 1) for d, (_, _, name) in enumerate(bounds)]
    spans: list[list[Span]] = [[] for _ in bounds]
    for first, stop, label, *attributes in chunks:  # (an entity's link: its attributes)
        d = owner[first]
        spans[d].append(Span.trusted(ids[d], ((offsets[first][0], offsets[stop - 1][1]),), label,
                                     Source.at(path, rows_line[first]), attributes[0] if attributes else ()))
    for d, doc_id in enumerate(ids):
        documents.append(Document(doc_id, texts[d], sorted(spans[d], key=Span.sort_key), path, True,
                                  unwritten_spaces=unwritten[d]))
    return documents
