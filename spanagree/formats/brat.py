"""BRAT standoff: a folder (searched recursively) of ``<doc>.txt`` texts and ``<doc>.ann`` annotations.

Reading
-------
* **Documents.** Every ``.ann`` file is a document; its id is its path relative to the folder,
  without the extension, with ``/`` separators on every OS (``sub/doc``). Documents are in natural
  order of their ids (:func:`~spanagree.formats.natural_key`: ``doc2`` before ``doc10``). A ``.ann`` needs its ``.txt`` next to it (an error otherwise). A ``.txt`` without a ``.ann``
  is a document with no spans when its folder holds ``.ann`` files; in a folder without any
  ``.ann`` (a ``README.txt`` at the top of a corpus) it is not a document, and the span set's
  notes say how many such files were passed over. A folder without any ``.ann`` is an error.
* **Texts** are decoded as UTF-8 exactly as stored: ``\\r\\n`` is two characters and a byte-order
  mark is kept (it is a character of the text, as in brat). Offsets count code points.
* **Spans** come from ``T`` lines only: ``T1<TAB>Label 0 5<TAB>text``, or discontinuous
  ``T1<TAB>Label 0 5;10 15<TAB>text``. Fragments are kept as given when they are sorted and do not
  overlap; otherwise they are sorted and overlapping ones merged
  (:func:`~spanagree.span.normalize_fragments`). Every span is kept, duplicates included. Each span
  records its source (the ``.ann`` path, as given under the folder, and the line).
* The **text column** is only a check: brat writes the fragments' texts joined by one space. When it
  differs from the text (whitespace compared loosely: a newline written as a space still agrees), a
  :class:`~spanagree.errors.SpanagreeWarning` names ``file:line`` of the first such line and the
  number of them in that file (one warning per file). A ``T`` line without a text column is read.
* **Relations and events** are kept in the document's :attr:`~spanagree.span.Document.relations`
  (compared under ``relations=True``, :mod:`spanagree.relations`): ``R1<TAB>Type Arg1:T1 Arg2:T2``
  (a trailing tab accepted; both arguments may be the same span) as a relation,
  ``E1<TAB>Type:T3 Role:T1 Role2:E2`` as an event with its trigger, an argument that is an event
  given by its trigger span. An id that no ``T`` (or ``E``) line of the file defines is an error
  naming the file and line. The span set's notes count them (``"3 relations, 1 event read
  (compared with --relations)"``).
* **Attributes and normalisations** -- ``A`` (and the older ``M``) and ``N`` lines -- are kept on
  the span they point at, in its ``attributes`` (compared under ``attributes=``, and part of a
  span's identity under ``match_attributes=``): ``("A:Negation", "True")``, ``("A:Certainty",
  "High")``, ``("N:Reference", "Wikipedia:534366")``; the notes count them (``"2 attributes, 1
  normalization read (those on a span compared with --attributes)"``).
* **Other lines** -- equivalences ``*`` and notes ``#`` -- are read without error and not
  compared; the notes count them (``"1 equivalence, 2 notes read and not compared"``). A note
  that points at a ``T`` id is kept on the span too (``("#:AnnotatorNotes", "C0011849")``), never
  compared.
* **annotation.conf**: :func:`symmetric_relation_types` reads the relation types its
  ``[relations]`` section declares symmetric (``<REL-TYPE>:symmetric`` or
  ``symmetric-transitive``), which match in either argument order.
* **Errors** (:class:`~spanagree.errors.FormatError`, ``path:line: message``): a malformed ``T``
  line (too few tab-separated fields, offsets that are not ASCII digits, an empty or reversed range,
  an offset beyond the text), a line of an unknown kind, bytes that are not UTF-8 (with the line of
  the first bad byte), a ``.ann`` without its ``.txt``, a folder with no ``.ann``, a ``.txt`` or
  ``.ann`` that is not a regular file (a FIFO, a device: never waited on), a file larger than
  ``max_record_bytes`` (64 MiB unless raised).

Writing
-------
``write_brat`` writes ``<id>.txt`` (exactly the text, no newline translation) and ``<id>.ann`` for
every document, creating sub-folders for ids with ``/``. Spans are numbered ``T1``, ``T2``, ... in
canonical order (:meth:`~spanagree.span.Span.sort_key`); the text column is the fragments' texts
joined by one space, with tabs and line breaks written as spaces. Span attributes in the shapes
above are written back as ``A``, ``N`` and ``#`` lines, relations and events as ``R`` and ``E``
lines (numbered in canonical order, naming the ``T`` ids written). BRAT needs texts: a document without one
is an error naming it, as is a label with whitespace (BRAT cannot hold it).
"""

from __future__ import annotations

import os
import re
import warnings
from operator import itemgetter, methodcaller

from ..errors import FormatError, SpanagreeWarning, UsageError, find_stack_level, parameter
from ..span import Document, Relation, Source, Span, SpanSet, moved_relations, normalize_fragments
from . import (MAX_RECORD_BYTES, DocumentFiles, DocumentStream, FolderListing, collect, listed_documents, natural_key,
               read_regular)
from .files import check_file_path
from .registry import FORMATS

#: This module's registry entry, on which it registers its functions.
FORMAT = FORMATS["brat"]

__all__ = ["read_brat", "stream_brat", "write_brat", "BratFolder", "list_brat", "symmetric_relation_types"]

T_LINE = "T<id>\\t<label> <start> <end>"
R_LINE = "R<id>\\t<type> Arg1:<id> Arg2:<id>"
E_LINE = "E<id>\\t<type>:<trigger id> <role>:<id> ..."

# Other line kinds: first character -> the noun the notes count them with.
_OTHER_KINDS = {"R": "relation", "E": "event", "A": "attribute", "M": "attribute", "N": "normalization",
                "*": "equivalence", "#": "note"}
_NOTE_ORDER = ("relation", "event", "attribute", "normalization", "equivalence", "note")


# Text-column characters the writer turns into spaces (they would break the line format).
_FLATTEN = str.maketrans({"\t": " ", "\n": " ", "\r": " "})
_FLATTEN_NOTE = str.maketrans({"\n": " ", "\r": " "})


def read_brat(path, *, name: str | None = None, brat_line_ends: str | None = None) -> SpanSet:
    """Read a BRAT folder (recursively) as one annotator's :class:`SpanSet` (:func:`stream_brat`, collected).

    Parameters
    ----------
    path : str or path
        The folder (a single ``.ann`` file is read too, as a one-document set).
    name : str, optional
        The span set's name; default the folder name.

    Returns
    -------
    SpanSet
        Documents in natural order of their ids, texts exactly as stored, every ``T`` line as a span.

    Raises
    ------
    FormatError
        Naming the file (and line): see the module documentation.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp()) / "ann1"
    >>> (folder / "sub").mkdir(parents=True)
    >>> _ = (folder / "sub" / "d1.txt").write_text("Ana met Bo in Porto.")
    >>> _ = (folder / "sub" / "d1.ann").write_text("T1\\tPER 0 3\\tAna\\nT2\\tPER 8 10;14 19\\tBo Porto\\n")
    >>> spans = read_brat(folder)
    >>> spans.name, list(spans.documents)
    ('ann1', ['sub/d1'])
    >>> [(s.fragments, s.label) for s in spans]
    [(((0, 3),), 'PER'), (((8, 10), (14, 19)), 'PER')]
    """
    return collect(stream_brat(path, name=name, brat_line_ends=brat_line_ends))


@FORMAT.provides("streamer")
def stream_brat(path, *, name: str | None = None, max_record_bytes: int = MAX_RECORD_BYTES,
                brat_line_ends: str | None = None) -> DocumentStream:
    """A BRAT folder's documents, each read (its .txt and .ann) when the stream gets to it.

    The folder is listed when the stream is made (errors of the listing then: a .ann without its
    .txt, no .ann at all); documents come in natural order of their ids; the notes are complete at the end.
    """
    top = os.fspath(path)
    if name is None:
        name = _default_name(top)
    if os.path.isfile(top):
        if not top.endswith(".ann"):
            raise FormatError(top, "BRAT is read from a folder of .txt and .ann files (or one .ann file)")
        stem = top[:-4]
        if not os.path.isfile(stem + ".txt"):
            raise FormatError(top, f"no text: {os.path.basename(stem)}.txt is missing next to it")
        entries = [(os.path.basename(stem), stem + ".txt", top)]
        skipped: list[str] = []
    elif os.path.isdir(top):
        entries, skipped = _scan(top)
    elif os.path.exists(top):
        raise FormatError(top, "not a regular file or folder (a FIFO, device or socket): BRAT is read from "
                          "a folder of .txt and .ann files (or one .ann file)")
    else:
        raise FormatError(top, "no such file or folder")
    stream = DocumentStream(name, "brat", iter(()))
    stream.documents = listed_documents(BratFolder(name, entries, skipped, max_record_bytes, brat_line_ends),
                                        stream.notes)
    return stream


def _notes(counts: dict[str, int], skipped: list[str]) -> list[str]:
    """The span set's notes: the other lines read (``counts``) and the .txt files passed over."""
    notes = []
    kept = [_plural(counts[kind], kind, kind + "s") for kind in _KEPT if counts[kind]]
    if kept:
        notes.append(f"{', '.join(kept)} read (compared with --relations)")
    on_spans = [_plural(counts[kind], kind, kind + "s") for kind in _ON_SPANS if counts[kind]]
    if on_spans:
        notes.append(f"{', '.join(on_spans)} read (those on a span compared with --attributes)")
    read = [_plural(counts[kind], kind, kind + "s") for kind in _NOTE_ORDER
            if counts[kind] and kind not in _KEPT and kind not in _ON_SPANS]
    if read:
        notes.append(f"{', '.join(read)} read and not compared")
    if counts.get("lf_offsets"):
        notes.append(f"{_plural(counts['lf_offsets'], 'document', 'documents')} with CRLF line ends: offsets "
                     "counted on LF line ends mapped onto the text as stored (--brat-line-ends lf)")
    if skipped:
        notes.append(f"{_plural(len(skipped), '.txt file', '.txt files')} without .ann in a folder with no "
                     f"annotations passed over (not documents): {', '.join(skipped[:5])}"
                     + (", ..." if len(skipped) > 5 else ""))
    return notes


@FORMAT.provides("unkept")
def unkept_lines(notes: list[str]) -> dict[str, int]:
    """Of the other lines a span set's notes count (:func:`_notes`), those no span set keeps —
    equivalences (``*``) — by kind (``{"equivalence": 3}``), for a writer to announce (relations and
    events are kept in :attr:`~spanagree.span.Document.relations`; attributes, normalisations and
    notes on their spans).

    Examples
    --------
    >>> unkept_lines(["3 relations, 1 event read (compared with --relations)",
    ...               "2 equivalences, 139 notes read and not compared"])
    {'equivalence': 2}
    """
    counts: dict[str, int] = {}
    for note in notes:
        if note.endswith(" read and not compared"):
            for part in note[:-len(" read and not compared")].split(", "):
                number, _, noun = part.partition(" ")
                kind = noun[:-1] if noun.endswith("s") else noun
                if kind in _UNKEPT and number.isdigit():
                    counts[kind] = counts.get(kind, 0) + int(number)
    return counts


# The other lines no span set keeps (attributes, normalisations and notes of a T are kept on its
# span; relations and events in its document's relations).
_UNKEPT = ("equivalence",)
# The other lines a document keeps as its relations.
_KEPT = ("relation", "event")
#: The other lines kept on the span they point at, and compared (attributes=, match_attributes=).
_ON_SPANS = ("attribute", "normalization")


class BratFolder(FolderListing):
    """A BRAT folder listed but not read (:class:`~spanagree.formats.FolderListing`): a unit is a
    document, its ``.txt`` and its ``.ann``.

    Attributes
    ----------
    units : dict of str to (str, str, str or None)
        Document id → (id, .txt path, .ann path or None), in natural order of the ids.
    skipped : list of str
        The .txt files passed over (not documents).
    """

    format = "brat"

    def __init__(self, name: str, entries: list[tuple[str, str, str | None]], skipped: list[str],
                 max_record_bytes: int = MAX_RECORD_BYTES, line_ends: str | None = None):
        super().__init__(name, {entry[0]: entry for entry in entries})
        self.line_ends = line_ends
        self.skipped = skipped
        self.max_record_bytes = max_record_bytes

    def new_counts(self) -> dict[str, int]:
        """Counts of the lines read and not compared."""
        return dict.fromkeys((*_NOTE_ORDER, "lf_offsets"), 0)

    def documents(self, keys, counts: dict[str, int]):
        units, limit, line_ends = self.units, self.max_record_bytes, self.line_ends
        entries = units.values() if keys is units else (units[key] for key in keys if key in units)
        for doc_id, txt_path, ann_path in entries:
            yield _read_document(doc_id, txt_path, ann_path, counts, limit, line_ends)

    def finish(self, counts: dict[str, int]) -> tuple[list[str], list[str]]:
        return _notes(counts, self.skipped), []


@FORMAT.provides("lister")
def list_brat(path, *, name: str | None = None, max_record_bytes: int = MAX_RECORD_BYTES,
              brat_line_ends: str | None = None) -> BratFolder:
    """A BRAT folder's documents (files only, nothing read), as :func:`stream_brat` reads them.

    Raises
    ------
    FormatError
        As :func:`stream_brat` for a folder: a .ann without its .txt, no .ann at all, not a folder.
    """
    top = os.fspath(path)
    if not os.path.isdir(top):
        raise FormatError(top, "not a folder")
    entries, skipped = _scan(top)
    return BratFolder(_default_name(top) if name is None else name, entries, skipped, max_record_bytes,
                      brat_line_ends)


def _default_name(top: str) -> str:
    from . import default_name

    return default_name(top) or os.path.basename(os.path.abspath(top))


def _plural(n: int, singular: str, plural: str) -> str:
    return f"{n} {singular if n == 1 else plural}"


def _scan(top: str) -> tuple[list[tuple[str, str, str | None]], list[str]]:
    """The folder's documents in natural order, ``(id, txt path, ann path or None)``, and the passed-over .txt."""
    entries = []
    skipped = []
    any_ann = False
    for dirpath, dirnames, filenames in os.walk(top, onerror=_walk_error):
        dirnames.sort()
        anns = {f[:-4] for f in filenames if f.endswith(".ann")}
        txts = {f[:-4] for f in filenames if f.endswith(".txt")}
        if not anns and not txts:
            continue
        rel = os.path.relpath(dirpath, top)
        prefix = "" if rel == os.curdir else rel.replace(os.sep, "/") + "/"
        for stem in sorted(anns - txts):
            raise FormatError(os.path.join(dirpath, stem + ".ann"), f"no text: {stem}.txt is missing next to it")
        if anns:
            any_ann = True
            base = os.path.join(dirpath, "")  # + a file's name: os.path.join(dirpath, name), without a call per file
            entries += [(prefix + stem, f"{base}{stem}.txt", f"{base}{stem}.ann" if stem in anns else None)
                        for stem in txts]
        else:
            skipped.extend(sorted(prefix + stem + ".txt" for stem in txts))
    if not any_ann:
        raise FormatError(top, "empty folder: no .ann file in it (BRAT is a folder of .txt and .ann files)")
    if len(set(map(_digits_as_zero, map(itemgetter(0), entries)))) == 1:
        entries.sort(key=itemgetter(0))  # ids of one shape: natural order is the ids' own order
    else:
        entries.sort(key=lambda entry: natural_key(entry[0]))
    return entries, skipped


# An id with each ASCII digit made 0: ids of the same shape have the same length and the same
# runs of digits at the same places, so that natural order (runs of digits compared as numbers,
# equal lengths here) is the order of the ids as strings (``doc00007`` < ``doc00012``).
_digits_as_zero = methodcaller("translate", str.maketrans("123456789", "000000000"))


def _walk_error(error: OSError) -> None:
    raise FormatError(error.filename or "?", f"cannot read: {error.strerror or error}")


def _read_utf8(path: str, limit: int = MAX_RECORD_BYTES) -> str:
    """A regular file's text (never waiting on a FIFO), at most ``limit`` bytes of it."""
    data = read_regular(path, "BRAT's .txt and .ann", limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise FormatError(path, f"not UTF-8 (byte 0x{data[error.start]:02x} at byte offset {error.start})",
                          line) from None


def _read_document(doc_id: str, txt_path: str, ann_path: str | None, counts: dict[str, int],
                   limit: int = MAX_RECORD_BYTES, line_ends: str | None = None) -> Document:
    """One document: its text and the spans of its ``.ann`` (the hot loop of the reader).

    ``line_ends="lf"`` (``--brat-line-ends lf``): the offsets were counted on the text with LF line
    ends while the ``.txt`` holds CRLF (tools that normalise line ends on load write such files);
    they are mapped onto the text as stored. Without it, such a file is recognised from its text
    columns and the warning says so."""
    text = _read_utf8(txt_path, limit)
    crlf = "\r\n" in text
    if line_ends == "lf" and crlf:
        stored, text = text, text.replace("\r\n", "\n")
    if ann_path is None:
        return Document(doc_id, text, [], txt_path)
    data = _read_utf8(ann_path, limit)
    if data[:1] == "\ufeff":
        data = data[1:]
    spans = _plain_spans(data, text, doc_id, ann_path)
    if spans is not None:
        if line_ends == "lf" and crlf:
            spans = _onto_crlf(spans, text)
            counts["lf_offsets"] += 1
            return Document(doc_id, stored, spans, ann_path)
        return Document(doc_id, text, spans, ann_path)
    lines = data.split("\n")
    if "\r" in data:
        lines = [line[:-1] if line[-1:] == "\r" else line for line in lines]
    del data

    trusted, at = Span.trusted, Source.at
    n = len(text)
    spans: list[Span] = []
    ids: list[str] = []
    extras: list[tuple[str, str, str]] | None = None
    linked: list[tuple[int, str]] | None = None  # the R and E lines, read once every T line is
    mismatch_first = None
    mismatches = 0
    lineno = 0
    for line in lines:
        lineno += 1
        if line[:1] == "T":
            parts = line.split("\t", 2)
            if len(parts) < 2:
                raise _malformed(ann_path, line, lineno)
            label, _, offsets = parts[1].partition(" ")
            if ";" not in offsets:
                start, _, end = offsets.partition(" ")
                # Offsets are ASCII digits only: int() would also take "1_0", "+0", " 5" and "٣".
                if not (offsets.isascii() and start.isdigit() and end.isdigit()):
                    raise _not_offsets(ann_path, line, lineno, parts[0], start, end, n, txt_path)
                try:
                    start = int(start)
                    end = int(end)
                except ValueError:  # more digits than Python converts (4,300)
                    raise _malformed(ann_path, line, lineno) from None
                if not 0 <= start < end <= n:
                    raise _bad_range(ann_path, parts[0], start, end, n, txt_path, lineno)
                fragments = ((start, end),)
                if len(parts) == 3:
                    column = parts[2]
                    if column != text[start:end] and column.split() != text[start:end].split():
                        mismatches += 1
                        if mismatch_first is None:
                            mismatch_first = (lineno, parts[0], column, text[start:end])
            else:
                given, fragments = _fragments(offsets, ann_path, line, lineno, parts[0], n, txt_path)
                if len(parts) == 3:
                    # brat joins the fragments' texts in the order the line gives them.
                    column = parts[2]
                    covered = " ".join([text[s:e] for s, e in given])
                    if column != covered and column.split() != covered.split():
                        mismatches += 1
                        if mismatch_first is None:
                            mismatch_first = (lineno, parts[0], column, covered)
            if not label:
                raise _malformed(ann_path, line, lineno)
            spans.append(trusted(doc_id, fragments, label, at(ann_path, lineno)))  # offsets checked above
            ids.append(parts[0])
        elif not line or line.isspace():
            continue
        else:
            kind = _OTHER_KINDS.get(line[0])
            if kind is None:
                raise FormatError(ann_path, "unknown annotation line: an id starts with T, R, E, A, M, N, * "
                                  f"or #, got {_shown(line)}", lineno)
            counts[kind] += 1
            if line[0] in "RE":
                if linked is None:
                    linked = []
                linked.append((lineno, line))
                continue
            if line[0] in "AMN#":
                extra = _extra(line)
                if extra is not None:
                    if extras is None:
                        extras = []
                    extras.append(extra)

    if extras:
        _attach(spans, ids, extras)
    relations = _relations(linked, spans, ids, ann_path) if linked else []
    if line_ends == "lf" and crlf:  # LF-counted offsets onto the text as stored
        moved = _onto_crlf(spans, text)
        relations = moved_relations(relations, spans, moved)
        spans = moved
        text = stored
        counts["lf_offsets"] += 1
    if mismatches:
        line_no, tid, column, covered = mismatch_first
        more = f" ({mismatches - 1} more line{'s' if mismatches > 2 else ''} like it in this file)" \
            if mismatches > 1 else ""
        hint = ""
        if crlf and line_ends != "lf" and _counted_on_lf(lines, text):
            hint = ("; the offsets match the text with LF line ends while the .txt has CRLF (written by a tool "
                    "that normalises line ends): {lf} maps them onto the text as stored")
        warnings.warn(SpanagreeWarning(f"{ann_path}:{line_no}: {tid}'s text column {_shown(column)} differs from the "
                                       f"text {_shown(covered)}{more}{hint}", lf=parameter("brat_line_ends", "lf")),
                      stacklevel=find_stack_level())
    return Document(doc_id, text, spans, ann_path, relations=relations)


def _relations(lines: list[tuple[int, str]], spans: list[Span], ids: list[str], ann_path: str) -> list[Relation]:
    """The relations (``R`` lines) and events (``E`` lines) of a ``.ann``, in the order of their
    lines: each argument the span its ``T`` id names, or the trigger of the event its ``E`` id
    names (events first get their triggers, so an event may name one defined after it)."""
    by_id = dict(zip(ids, spans))
    parsed = []
    triggers: dict[str, Span] = {}
    for lineno, line in lines:
        parts = line.split("\t")
        fields = parts[1].split() if len(parts) > 1 else []
        if any(part.strip() for part in parts[2:]) or not fields or (line[0] == "R" and len(fields) < 2):
            raise FormatError(ann_path, f"expected '{R_LINE if line[0] == 'R' else E_LINE}', got {_shown(line)}",
                              lineno)
        pairs = []
        for field in (fields if line[0] == "E" else fields[1:]):
            role, colon, target = field.rpartition(":")
            if not colon or not role or not target:
                raise FormatError(ann_path, f"expected '{R_LINE if line[0] == 'R' else E_LINE}', got {_shown(line)}",
                                  lineno)
            pairs.append((role, target))
        if line[0] == "E":
            (kind, trigger), pairs = pairs[0], pairs[1:]
            span = by_id.get(trigger)
            if span is None:
                raise FormatError(ann_path, f"{parts[0]}: its trigger {trigger} is no T line of this file", lineno)
            triggers[parts[0]] = span
        else:
            kind, trigger = fields[0], None
        parsed.append((lineno, parts[0], kind, trigger, pairs))
    relations = []
    for lineno, rid, kind, trigger, pairs in parsed:
        arguments = []
        for role, target in pairs:
            span = by_id.get(target) or triggers.get(target)
            if span is None:
                raise FormatError(ann_path, f"{rid}: {role} names {target}, which no T or E line of this file "
                                  "defines", lineno)
            arguments.append((role, span))
        relations.append(Relation(kind, tuple(arguments), triggers.get(rid) if trigger is not None else None,
                                  Source.at(ann_path, lineno)))
    return relations


# A plain T line: one fragment, a text column; offsets of at most 18 digits (int() takes them all).
_PLAIN_T_LINE = re.compile(r"^T[^\t\n]*\t([^\t\n ]+) ([0-9]{1,18}) ([0-9]{1,18})\t([^\n]*)$", re.MULTILINE)


def _plain_spans(data: str, text: str, doc_id: str, ann_path: str) -> list[Span] | None:
    """The spans of a ``.ann`` whose every line is a plain ``T`` line (one fragment, a text column)
    within the text and whose text columns all agree with the text, found by one regular
    expression over the file; ``None`` for any other file (no error, no warning: the line-by-line
    reader then reads it and gives them). A file without line ends of ``\\r``, as its caller
    checks, reads the same either way."""
    if "\r" in data:
        return None
    found = _PLAIN_T_LINE.findall(data)
    if len(found) != data.count("\n") + (data[-1:] not in ("\n", "")):
        return None  # some line is not a plain T line
    trusted, at = Span.trusted, Source.at
    n = len(text)
    spans = []
    lineno = 0
    for label, start, end, column in found:
        lineno += 1
        start = int(start)
        end = int(end)
        if not start < end <= n:
            return None
        covered = text[start:end]
        if column != covered and column.split() != covered.split():
            return None
        spans.append(trusted(doc_id, ((start, end),), label, at(ann_path, lineno)))
    return spans


def _counted_on_lf(lines: list[str], text: str) -> bool:
    """Whether the single-fragment ``T`` lines' text columns all match the text with its CRLF line
    ends made LF (the offsets were counted on that text)."""
    lf = text.replace("\r\n", "\n")
    checked = 0
    for line in lines:
        if line[:1] != "T":
            continue
        parts = line.split("\t", 2)
        if len(parts) < 3:
            continue
        _, _, offsets = parts[1].partition(" ")
        start, _, end = offsets.partition(" ")
        if ";" in offsets or not (start.isdigit() and end.isdigit()):
            continue
        if lf[int(start):int(end)].split() != parts[2].split():
            return False
        checked += 1
    return checked > 0


def _onto_crlf(spans: list[Span], lf_text: str) -> list[Span]:
    """Spans whose offsets count the text with LF line ends, onto the same text with CRLF: each
    offset moves by the line ends before it."""
    from bisect import bisect_left

    newlines = [k for k, character in enumerate(lf_text) if character == "\n"]

    def moved(offset: int) -> int:
        return offset + bisect_left(newlines, offset)

    return [Span.trusted(span.doc, tuple((moved(s), moved(e)) for s, e in span.fragments), span.label, span.source,
                         span.attributes) for span in spans]


def _fragments(offsets: str, path: str, line: str, lineno: int, tid: str, n: int, txt_path: str):
    """A discontinuous ``T`` line's fragments as given, and as kept: as given when sorted and disjoint,
    else sorted and merged."""
    fragments = []
    for piece in offsets.split(";"):
        start, _, end = piece.partition(" ")
        if not (piece.isascii() and start.isdigit() and end.isdigit()):
            raise _not_offsets(path, line, lineno, tid, start, end, n, txt_path)
        try:
            start = int(start)
            end = int(end)
        except ValueError:
            raise _malformed(path, line, lineno) from None
        if not 0 <= start < end <= n:
            raise _bad_range(path, tid, start, end, n, txt_path, lineno)
        fragments.append((start, end))
    for (_, previous_end), (start, _) in zip(fragments, fragments[1:]):
        if start < previous_end:
            return fragments, normalize_fragments(fragments)
    return fragments, tuple(fragments)


_SIGNED_OFFSET = re.compile(r"-?[0-9]{1,18}")


def _not_offsets(path: str, line: str, lineno: int, tid: str, start: str, end: str, n: int,
                 txt_path: str) -> FormatError:
    """The error for offsets that are not ASCII digits: a negative one's, or the malformed line's."""
    if _SIGNED_OFFSET.fullmatch(start) and _SIGNED_OFFSET.fullmatch(end):
        return _bad_range(path, tid, int(start), int(end), n, txt_path, lineno)
    return _malformed(path, line, lineno)


def _malformed(path: str, line: str, lineno: int) -> FormatError:
    return FormatError(path, f"expected '{T_LINE}', got {_shown(line)}", lineno)


def _bad_range(path: str, tid: str, start: int, end: int, n: int, txt_path: str, lineno: int) -> FormatError:
    if start < 0:
        problem = f"offset {start} is negative"
    elif end <= start:
        problem = f"[{start}, {end}) is empty or reversed: the end must be after the start"
    else:
        problem = (f"[{start}, {end}) ends beyond the text: {os.path.basename(txt_path)} has "
                   f"{n} character{'s' if n != 1 else ''}")
    return FormatError(path, f"{tid}: {problem}", lineno)


def _shown(text: str, limit: int = 80) -> str:
    if len(text) > limit:
        text = text[:limit] + "..."
    return repr(text)


def _extra(line: str) -> tuple[str, str, str] | None:
    """``(target id, key, value)`` of an attribute, normalisation or note line, or None."""
    parts = line.split("\t")
    if len(parts) < 2:
        return None
    fields = parts[1].split(" ")
    if len(fields) < 2:
        return None
    kind = line[0]
    if kind == "#":
        return fields[1], "#:" + fields[0], "\t".join(parts[2:])
    if kind == "N":
        return fields[1], "N:" + fields[0], " ".join(fields[2:])
    return fields[1], "A:" + fields[0], " ".join(fields[2:]) or "True"


def _attach(spans: list[Span], ids: list[str], extras: list[tuple[str, str, str]]) -> None:
    index = {tid: i for i, tid in enumerate(ids)}
    attached: dict[int, list[tuple[str, str]]] = {}
    for target, key, value in extras:
        i = index.get(target)
        if i is not None:
            attached.setdefault(i, []).append((key, value))
    for i, pairs in attached.items():
        span = spans[i]
        spans[i] = Span.trusted(span.doc, span.fragments, span.label, span.source, tuple(pairs))


@FORMAT.provides("writer")
def write_brat(spanset: SpanSet, dest) -> None:
    """Write a span set as a BRAT folder: ``<id>.txt`` and ``<id>.ann`` per document.

    Parameters
    ----------
    spanset : SpanSet
        Every document needs its text; labels must not contain whitespace.
    dest : str or path
        The folder to write (created; the caller decides whether an existing one may be used).

    Raises
    ------
    UsageError
        Naming the document: no text, an id that is not a relative path, a label with whitespace,
        a span beyond the text. Nothing is written when any document is refused.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "out"
    >>> s = SpanSet.from_spans("a", [Span("d1", ((8, 10), (14, 19)), "PER"), Span("d1", (0, 3), "PER")],
    ...                        {"d1": "Ana met Bo in\\nPorto."})
    >>> write_brat(s, out)
    >>> (out / "d1.ann").read_text().splitlines()
    ['T1\\tPER 0 3\\tAna', 'T2\\tPER 8 10;14 19\\tBo Porto']
    """
    for doc_id, document in spanset.documents.items():
        check_brat_document(doc_id, document)
    dest = os.fspath(dest)
    os.makedirs(dest, exist_ok=True)
    for doc_id, document in spanset.documents.items():
        write_brat_document(dest, doc_id, document, checked=True)


def brat_files(dest: str, doc_id: str) -> tuple[str, str]:
    """The ``.txt`` and ``.ann`` files :func:`write_brat` writes for ``doc_id`` in the folder ``dest``."""
    base = os.path.join(dest, *doc_id.split("/"))
    return base + ".txt", base + ".ann"


def write_brat_document(dest: str, doc_id: str, document: Document, *, checked: bool = False) -> None:
    """Write one document's ``.txt`` and ``.ann`` into the folder ``dest`` (which exists), as
    :func:`write_brat` does; the document is checked first unless ``checked``."""
    if not checked:
        check_brat_document(doc_id, document)
    txt, ann = brat_files(dest, doc_id)
    folder = os.path.dirname(txt)
    if folder != dest:
        os.makedirs(folder, exist_ok=True)
    with open(txt, "w", encoding="utf-8", newline="") as file:
        file.write(document.text)
    with open(ann, "w", encoding="utf-8", newline="\n") as file:
        file.write("".join(_ann_lines(document)))


def check_brat_document(doc_id: str, document: Document) -> None:
    """Refuse (UsageError naming the document) a document :func:`write_brat` cannot write."""
    if document.text is None:
        raise UsageError(f"document {doc_id!r} has no text; BRAT is written from texts (.txt files)")
    check_file_path(doc_id, ".txt", "BRAT")
    n = len(document.text)
    for span in document.spans:
        if not span.label or span.label.split() != [span.label]:
            raise UsageError(f"document {doc_id!r}: label {span.label!r} has whitespace or is empty; "
                             "BRAT cannot write it")
        if span.end > n:
            raise UsageError(f"document {doc_id!r}: span {span.fragments} {span.label} ends beyond its text "
                             f"({n} characters)")
    for relation in document.relations:
        names = [relation.type, *(role for role, _ in relation.arguments)]
        if any(not name or name.split() != [name] for name in names) or any(":" in role for role, _ in
                                                                            relation.arguments):
            raise UsageError(f"document {doc_id!r}: relation {relation.type!r} with roles "
                             f"{[role for role, _ in relation.arguments]}: a type or role with whitespace, an "
                             "empty one or a role with ':'; BRAT cannot write it")


#: How ``merge --jobs`` workers write their documents' share of a BRAT gold (:mod:`spanagree.pipeline.parts`).
FORMAT.provides("document_files", DocumentFiles(paths=brat_files, check=check_brat_document, write=write_brat_document))


@FORMAT.provides("document_counter")
def brat_document_count(path) -> int | None:
    """The documents of a BRAT folder counted without reading them: its ``.ann`` files (the
    progress bar's total); ``None`` for a path that is not a folder."""
    if not os.path.isdir(path):
        return None
    return sum(name.endswith(".ann") for _, _, names in os.walk(path) for name in names)


def _ann_lines(document: Document) -> list[str]:
    text = document.text
    lines = []
    extra = {"A": 0, "N": 0, "#": 0}
    ordered = sorted(document.spans, key=Span.sort_key)
    for number, span in enumerate(ordered, 1):
        offsets = ";".join(f"{s} {e}" for s, e in span.fragments)
        column = " ".join(text[s:e] for s, e in span.fragments).translate(_FLATTEN)
        lines.append(f"T{number}\t{span.label} {offsets}\t{column}\n")
        for key, value in span.attributes:
            kind, _, name = str(key).partition(":")
            if not name and key != "text":  # another format's attribute (kb_id, a feature): an A line
                kind, name = "A", str(key)
            if kind not in extra or not name or name.split() != [name]:
                continue
            # A note is the line's last field: a tab in it is read back whole.
            value = str(value).translate(_FLATTEN_NOTE if kind == "#" else _FLATTEN)
            extra[kind] += 1
            if kind == "A":
                tail = "" if value == "True" else f" {value}"
                lines.append(f"A{extra[kind]}\t{name} T{number}{tail}\n")
            elif kind == "N":
                lines.append(f"N{extra[kind]}\t{name} T{number} {value}\n")
            else:
                lines.append(f"#{extra[kind]}\t{name} T{number}\t{value}\n")
    if document.relations:
        lines += _relation_lines(document.relations, ordered)
    return lines


def _relation_lines(relations: list, ordered: list[Span]) -> list[str]:
    """The ``R`` and ``E`` lines of a document's relations and events, each numbered in canonical
    order (:meth:`~spanagree.span.Relation.sort_key`), naming their spans by the ``T`` ids written
    (``ordered``: the spans in the order of their numbers; of equal spans, the first's id). An
    event that is another's argument is named by its trigger's ``T`` id. A relation one of whose
    spans the document does not hold is not written (:func:`~spanagree.formats.dropped` announces it)."""
    number: dict[Span, int] = {}
    for n, span in enumerate(ordered, 1):
        number.setdefault(span, n)
    written = {"R": 0, "E": 0}
    lines = []
    for relation in sorted(relations, key=Relation.sort_key):
        if any(span not in number for span in relation.spans):
            continue
        arguments = " ".join(f"{role}:T{number[span]}" for role, span in relation.arguments)
        if relation.trigger is None:
            written["R"] += 1
            lines.append(f"R{written['R']}\t{relation.type} {arguments}\n")
        else:
            written["E"] += 1
            head = f"{relation.type}:T{number[relation.trigger]}"
            lines.append(f"E{written['E']}\t{head}{' ' if arguments else ''}{arguments}\n")
    return lines


@FORMAT.provides("symmetric_relations")
def symmetric_relation_types(path) -> frozenset[str]:
    """The relation types a BRAT folder's ``annotation.conf`` declares symmetric: in its
    ``[relations]`` section, a line whose arguments include ``<REL-TYPE>:symmetric`` (or
    ``symmetric-transitive``), as brat's configuration has it. Every ``annotation.conf`` in the
    folder and its sub-folders is read (brat takes each document's nearest one; a type declared
    symmetric in any of them is symmetric here); none, or a path that is not a folder: no type.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "annotation.conf").write_text("[entities]\\nProtein\\n[relations]\\n"
    ...     "Equiv Arg1:Protein, Arg2:Protein, <REL-TYPE>:symmetric-transitive\\n"
    ...     "Binds Arg1:Protein, Arg2:Protein\\n[events]\\nBinding Theme+:Protein\\n")
    >>> sorted(symmetric_relation_types(folder))
    ['Equiv']
    """
    top = os.fspath(path)
    if not os.path.isdir(top):
        return frozenset()
    found = set()
    for dirpath, dirnames, filenames in os.walk(top):
        if "annotation.conf" not in filenames:
            continue
        try:
            with open(os.path.join(dirpath, "annotation.conf"), encoding="utf-8", errors="replace") as file:
                lines = file.read().splitlines()
        except OSError as error:
            raise FormatError(os.path.join(dirpath, "annotation.conf"), f"cannot read: {error.strerror or error}") \
                from None
        section = None
        for line in lines:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("[") and line.endswith("]"):
                section = line[1:-1].strip()
                continue
            if section != "relations":
                continue
            kind, _, rest = line.replace("\t", " ").partition(" ")
            for argument in rest.split(","):
                role, _, value = argument.strip().partition(":")
                if role == "<REL-TYPE>" and "symmetric" in value.split("-"):
                    found.add(kind.strip())
    return frozenset(found)
