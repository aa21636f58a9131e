"""WebAnno / INCEpTION TSV 3.x: one document per file, columns of annotation layers per token.

Reading
-------
A TSV 3 file (what INCEpTION's and WebAnno's "WebAnno TSV 3.x" export writes) holds one
document::

    #FORMAT=WebAnno TSV 3.3
    #T_SP=de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity|identifier|value


    #Text=Ana met Bo Ek .
    1-1	0-3	Ana	*	PER	
    1-2	4-7	met	_	_	
    1-3	8-10	Bo	*[1]	PER[1]	
    1-4	11-13	Ek	*[1]	PER[1]	
    1-5	14-15	.	_	_	

* **Layers.** The ``#T_SP=`` (span), ``#T_CH=`` (chain) and ``#T_RL=`` (relation) header lines
  name the layers and their features; each feature is a column after the token's id, offsets and
  text. One span layer is read: ``de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity`` by
  default, another with ``webanno_layer`` (its full name, or its short name: ``POS``,
  ``LetterEntity`` for ``webanno.custom.LetterEntity``). The label is the value of the feature
  ``webanno_feature`` (default ``value``; a layer without a ``value`` feature gives its first
  feature's); an annotation whose feature is empty (``*``) is labelled with the layer's short name
  (``NamedEntity``), counted in the notes. A file without the layer (INCEpTION writes only the
  layers that hold annotations) is a document without spans.
* **Spans.** Annotations without an id (``PER``) cover their row; those with one (``PER[1]``) cover
  every row holding that id, from the first row's start to the last row's end (multi-token spans,
  across sentences too). Several annotations in a cell (``ORG[1]|ORG[2]``: stacked) are several
  spans, duplicates kept. Sub-token rows (``1-2.1``, offsets inside token ``1-2``) give spans that
  start or end inside a token.
* **Offsets** in the file count Java's UTF-16 units; they are converted to code points (an
  emoji is two units, one character). An offset inside a surrogate pair is an error.
* **Text.** The document text is rebuilt from the ``#Text=`` lines (several in a row are one
  sentence holding line breaks), each sentence placed at its first token's offset; the characters
  between sentences, which the file does not hold, become line breaks (``\\n``). Text escapes
  (``\\\\``, ``\\t``, ``\\n``, ``\\r``) and value escapes (``\\|``, ``\\_``, ``\\[``, ``\\]``,
  ``\\;``, ``\\*``, ``\\-``, ``\\>``, ``\\t``, ``\\n``, ``\\\\``) are undone; every token's text is
  checked against the text at its offsets.
* **Features** of the layer besides the label are the spans' attributes under the features'
  names (a slot feature's roles joined by ``|``, under its short name); ``*`` is no value.
* **Relations**: the relation layers whose ``BT_`` column names the layer read give the
  document's relations (:mod:`spanagree.formats.layers`): each on its dependent's first row, its
  ``BT_`` column naming its governor's first row (``1-1``), with both ends' ids where either has
  one (``1-1[1_2]``; ``0``: none); typed by the layer's ``value`` feature, else its first. A
  reference to a row or id without an annotation of the layer is an error naming the line.
* **Not read, counted in the notes:** zero-length annotations (no span can be empty) and the
  relations to them, the annotations of the other span layers, chains (coreference: ``#T_CH``),
  the relation layers over other span layers, a relation's features besides its label. Choosing
  a chain or relation layer is an error.
* **Ids.** A single file holds one document, id ``1`` (as a one-document CoNLL file), so that two
  annotators' copies of the same document line up; in a folder every ``.tsv`` file is a
  document named by its path relative to the folder without ``.tsv`` (``sub/doc3``).
* **Errors**: a first line that is not ``#FORMAT=WebAnno TSV 3…``, an unknown header, a row with
  the wrong number of columns, a bad token id or offsets, a token whose text is not the text at
  its offsets, a sentence that starts before the previous one ends, a file that is not UTF-8 or
  is beyond ``max_record_bytes``: one :class:`~spanagree.errors.FormatError` naming the file and
  line.

:func:`webanno_document` parses one file's content (the INCEpTION project reader uses it).

Writing
-------
:func:`write_webanno` writes a folder of TSV 3.3 files, ``<id>.tsv`` per document, with one span
layer (``webanno_layer``, default NamedEntity; a name without a dot is ``webanno.custom.<name>``,
except ``NamedEntity``) and its label feature (``webanno_feature``, default ``value``). Each line
of the text is a sentence (from its first to its last non-space character), its tokens the
whitespace-separated pieces; a span that starts or ends inside a token is written on a sub-token
row (``1-2.1``) with its own offsets, a span over several rows or sharing a row with another
carries an id (``PER[1]``). The spans' attributes are the layer's features after the label, their
binary relations the layer ``webanno.custom.Relation`` (:mod:`spanagree.formats.layers`).
Offsets are written in UTF-16 units. A discontinuous span, a span
that starts or ends on whitespace (no token holds that end), a document without text, or an id
that cannot be a file path is a :class:`~spanagree.errors.UsageError` naming the document.
"""

from __future__ import annotations

import os
import re
import stat
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import FormatError, UsageError
from ..span import Document, Relation, Source, Span, SpanSet
from . import (MAX_RECORD_BYTES, DocumentStream, FolderListing, collect, default_name, document_files,
               listed_documents, natural_key, read_document_file)
from .layers import (RELATION_FEATURE, RELATION_LAYER, ROLE_FEATURES, feature_names, needs_roles, roles,
                     written_attributes, written_relations)
from .registry import FORMATS

#: This module's registry entry, on which it registers its functions.
FORMAT = FORMATS["webanno"]

__all__ = ["list_webanno", "read_webanno", "recognise_webanno", "stream_webanno", "webanno_document", "webanno_notes",
           "write_webanno", "NAMED_ENTITY"]

#: DKPro's named-entity layer, read and written by default.
NAMED_ENTITY = "de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity"
#: The label feature read and written by default.
DEFAULT_FEATURE = "value"
#: The version the writer writes.
WRITTEN_VERSION = "WebAnno TSV 3.3"

_MAGIC = re.compile(rb"^(?:\xef\xbb\xbf)?#FORMAT=WebAnno TSV 3")
_HEADER_KINDS = {"#T_SP=": "span", "#T_CH=": "chain", "#T_RL=": "relation"}
_ROW_ID = re.compile(r"([0-9]+)-([0-9]+)(?:\.([0-9]+))?\Z")
_OFFSETS = re.compile(r"([0-9]{1,15})-([0-9]{1,15})\Z")
_VALUE_UNESCAPES = {"\\": "\\", "|": "|", "_": "_", "[": "[", "]": "]", ";": ";", "*": "*", "-": "-", ">": ">",
                    "t": "\t", "n": "\n", "r": "\r"}
_TEXT_UNESCAPES = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}


@FORMAT.provides("recogniser")
def recognise_webanno(path: Path, head: bytes | None) -> bool:
    """A file whose first line is ``#FORMAT=WebAnno TSV 3…``, or a folder whose first ``.tsv`` file is one."""
    if head is not None:
        return _MAGIC.match(head) is not None
    try:
        for dirpath, dirnames, filenames in os.walk(path):
            dirnames.sort()
            first = next((f for f in sorted(filenames) if f.lower().endswith(".tsv")), None)
            if first is not None:
                candidate = os.path.join(dirpath, first)
                if not stat.S_ISREG(os.stat(candidate).st_mode):  # a FIFO is never read ahead
                    return False
                with open(candidate, "rb") as file:
                    return _MAGIC.match(file.read(64)) is not None
    except OSError:
        return False
    return False


# ---------------------------------------------------------------------------------------------
# Escapes


def _unescape(raw: str, table: dict[str, str]) -> str:
    """``raw`` with each backslash escape of ``table`` undone; other backslashes kept."""
    if "\\" not in raw:
        return raw
    out, i, n = [], 0, len(raw)
    while i < n:
        char = raw[i]
        if char == "\\" and i + 1 < n and raw[i + 1] in table:
            out.append(table[raw[i + 1]])
            i += 2
        else:
            out.append(char)
            i += 1
    return "".join(out)


def _split_cell(cell: str) -> list[str]:
    """A cell's annotations: ``cell`` split at the ``|`` that no backslash escapes."""
    if "\\" not in cell:
        return cell.split("|")
    items, start, i, n = [], 0, 0, len(cell)
    while i < n:
        if cell[i] == "\\":
            i += 2
            continue
        if cell[i] == "|":
            items.append(cell[start:i])
            start = i + 1
        i += 1
    items.append(cell[start:])
    return items


_ID_SUFFIX = re.compile(r"\[([0-9]+)\]\Z")


def _split_id(item: str) -> tuple[str, str | None]:
    """``PER[3]`` as ``("PER", "3")``, ``PER`` as ``("PER", None)``; an escaped ``\\[`` is no id."""
    match = _ID_SUFFIX.search(item)
    if match is None:
        return item, None
    before = item[:match.start()]
    backslashes = len(before) - len(before.rstrip("\\"))
    if backslashes % 2:
        return item, None
    return before, match.group(1)


def _escape_value(value: str) -> str:
    out = value.replace("\\", "\\\\")
    for char, escaped in (("[", "\\["), ("]", "\\]"), ("|", "\\|"), ("_", "\\_"), ("->", "\\->"), (";", "\\;"),
                          ("\t", "\\t"), ("\n", "\\n"), ("\r", "\\r"), ("*", "\\*")):
        out = out.replace(char, escaped)
    return out


def _escape_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\r", "\\r").replace("\n", "\\n")


# ---------------------------------------------------------------------------------------------
# Reading


@dataclass
class _Layer:
    kind: str            # "span", "chain" or "relation"
    name: str
    features: list[str]
    column: int          # index of its first column in a row's fields

    @property
    def short(self) -> str:
        return self.name.rpartition(".")[2]

    @property
    def base(self) -> str | None:
        """A relation layer's span layer (its last feature, ``BT_<layer>``), else ``None``."""
        last = self.features[-1]
        return last[3:] if self.kind == "relation" and last.startswith("BT_") else None


@dataclass
class _Sentence:
    text: str
    line: int
    rows: list[tuple[int, str, int, int, str, list[str]]] = field(default_factory=list)


def _choose_layer(layers: list[_Layer], wanted: str | None) -> _Layer | None:
    wanted = wanted or NAMED_ENTITY
    exact = [layer for layer in layers if layer.name == wanted]
    if exact:
        return exact[0]
    short = [layer for layer in layers if layer.short == wanted]
    return short[0] if short else None


def webanno_document(text: str, source: str, doc_id: str, *, webanno_layer: str | None = None,
                     webanno_feature: str | None = None, counts: Counter | None = None) -> Document:
    """One WebAnno TSV 3 file's content as a :class:`~spanagree.span.Document`.

    Parameters
    ----------
    text : str
        The file's content, decoded.
    source : str
        The file's path, for messages and the spans' sources.
    doc_id : str
        The document's id.
    webanno_layer, webanno_feature : str, optional
        The span layer read and its label feature (see the module's documentation).
    counts : collections.Counter, optional
        Adds what was not read (zero-length annotations, other layers' annotations, chains,
        relations over other layers, relation features, unlabelled spans); :func:`webanno_notes`
        words it.

    Raises
    ------
    FormatError
        Naming ``source`` and the line.

    Examples
    --------
    >>> tsv = ("#FORMAT=WebAnno TSV 3.3\\n#T_SP=webanno.custom.Span|value\\n\\n\\n#Text=I 😊 it\\n"
    ...        "1-1\\t0-1\\tI\\t_\\t\\n1-2\\t2-4\\t😊\\tJOY[1]\\t\\n1-3\\t5-7\\tit\\tJOY[1]\\t\\n")
    >>> document = webanno_document(tsv, "a.tsv", "1", webanno_layer="Span")
    >>> document.spans, document.text[2:6]
    ([Span(doc='1', fragments=((2, 6),), label='JOY')], '😊 it')
    """
    counts = Counter() if counts is None else counts
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    first = lines[0].rstrip("\r") if lines else ""
    if not first.startswith("#FORMAT=WebAnno TSV 3"):
        raise FormatError(source, f"not WebAnno TSV 3: the first line is {_shown(first)!r}, not "
                          "'#FORMAT=WebAnno TSV 3.x'", 1)
    layers: list[_Layer] = []
    column = 3
    sentences: list[_Sentence] = []
    current: _Sentence | None = None
    in_header = True
    for number, line in enumerate(lines[1:], 2):
        line = line.rstrip("\r")  # CR LF line ends (a stray CR before them too, as on the first line)
        if "\r" in line:  # TSV 3 escapes a CR in a text or value (\r): a raw one would end up in a label
            raise FormatError(source, "a carriage return inside the line (WebAnno TSV writes it escaped, \\r)",
                              number)
        if in_header:
            kind = _HEADER_KINDS.get(line[:6])
            if kind is not None:
                name, _, rest = line[6:].partition("|")
                features = rest.split("|") if rest or "|" in line[6:] else [""]
                if not name:
                    raise FormatError(source, "a layer header without a layer name", number)
                layers.append(_Layer(kind, name, features, column))
                column += len(features)
                continue
            if line.startswith("#T_"):
                raise FormatError(source, f"unknown header {_shown(line)!r} (TSV 3 knows #T_SP, #T_CH, #T_RL)",
                                  number)
            in_header = False
        if not line:
            current = None
            continue
        if line.startswith("#Text="):
            sentence_text = _unescape(line[6:], _TEXT_UNESCAPES)
            if current is not None and not current.rows:
                current.text += "\n" + sentence_text
            else:
                current = _Sentence(sentence_text, number)
                sentences.append(current)
            continue
        if line.startswith("#"):
            continue  # #Sentence.id= and other sentence metadata
        if current is None:
            raise FormatError(source, "a token row outside a sentence (no #Text= line before it)", number)
        fields = line.split("\t")
        if len(fields) == column + 1 and fields[-1] == "":
            fields.pop()
        if len(fields) != column:
            raise FormatError(source, f"a row of {len(fields)} columns; the headers give {column} "
                              "(id, offsets, token and one per feature)", number)
        row_id = _ROW_ID.match(fields[0])
        offsets = _OFFSETS.match(fields[1])
        if row_id is None:
            raise FormatError(source, f"bad token id {_shown(fields[0])!r} (SENTENCE-TOKEN or SENTENCE-TOKEN.SUB)",
                              number)
        if offsets is None:
            raise FormatError(source, f"bad offsets {_shown(fields[1])!r} (BEGIN-END)", number)
        begin, end = int(offsets.group(1)), int(offsets.group(2))
        if begin > end:
            raise FormatError(source, f"offsets {begin}-{end} end before they begin", number)
        current.rows.append((number, fields[0], begin, end, fields[2], fields))
    layer = _choose_layer(layers, webanno_layer)
    if layer is not None and layer.kind != "span":
        raise FormatError(source, f"layer {layer.name} is a {layer.kind} layer; spanagree reads span layers "
                          "(#T_SP)")
    label_index = None
    if layer is not None:
        feature = webanno_feature or _label_feature(layer.features)
        if feature not in layer.features:
            raise FormatError(source, f"layer {layer.name} has no feature {feature!r}; it has: "
                              + ", ".join(repr(f) for f in layer.features))
        label_index = layer.features.index(feature)
    elif any(other.kind == "span" for other in layers):
        counts["layer absent: " + ", ".join(o.short for o in layers if o.kind == "span")] += 1
    document_text, places = _rebuild_text(source, sentences)
    spans, relations = [], []
    if layer is not None:
        annotations, units = _annotations(sentences, layer, label_index)
        made = _spans(source, doc_id, annotations, places, layer, counts)
        spans = sorted(made.values(), key=Span.sort_key)
    for other in layers:
        if other is layer:
            continue
        if layer is not None and other.kind == "relation" and other.base == layer.name:
            relations += _relations(source, sentences, other, annotations, units, made, counts)
        else:
            counts[f"{other.kind} {other.short}"] += _count_annotations(sentences, other)
    return Document(doc_id, document_text, spans, source, relations=relations)


def _label_feature(features: list[str]) -> str:
    """The feature that gives the label by default: ``value``, else the first."""
    return DEFAULT_FEATURE if DEFAULT_FEATURE in features else features[0]


def _rebuild_text(source: str, sentences: list[_Sentence]) -> tuple[str, dict[int, int]]:
    """The document's text, and each UTF-16 offset the rows name as a code-point offset."""
    pieces: list[str] = []
    length16 = length = 0           # the text so far, in UTF-16 units and in code points
    places: dict[int, int] = {}     # UTF-16 offset -> code-point offset, for every offset a row names
    for sentence in sentences:
        if not sentence.rows:
            raise FormatError(source, "a sentence without token rows", sentence.line)
        stripped = sentence.text.lstrip()
        lead = sentence.text[:len(sentence.text) - len(stripped)]
        start16 = sentence.rows[0][2] - _units(lead)
        if start16 < length16:
            raise FormatError(source, f"sentence at offset {max(start16, 0)} starts before the previous one ends "
                              f"({length16})", sentence.rows[0][0])
        gap = start16 - length16
        pieces.append("\n" * gap)
        length16 += gap
        length += gap
        text = sentence.text
        if text.isascii() or max(text) <= "\uffff":
            def place(offset16, start16=start16, start=length):
                return start + offset16 - start16
            own16 = len(text)
        else:
            table, position = {}, 0
            for index, char in enumerate(text):
                table[position] = index
                position += 2 if char > "\uffff" else 1
            table[position] = len(text)
            own16 = position

            def place(offset16, start16=start16, start=length, table=table):
                local = table.get(offset16 - start16)
                return None if local is None else start + local
        for number, row, begin, end, token, _ in sentence.rows:
            if begin < start16 or end > start16 + own16:
                raise FormatError(source, f"token {row} at {begin}-{end} lies outside its sentence "
                                  f"({start16}-{start16 + own16})", number)
            b, e = place(begin), place(end)
            if b is None or e is None:
                raise FormatError(source, f"token {row} at {begin}-{end}: an offset falls inside a character "
                                  "(between the two UTF-16 units of a surrogate pair)", number)
            covered = text[b - length:e - length]
            if covered != _unescape(token, _VALUE_UNESCAPES) and covered != token:
                raise FormatError(source, f"token {row} at {begin}-{end} is {_shown(token)!r} but the sentence text "
                                  f"there is {_shown(covered)!r}", number)
            places[begin] = b
            places[end] = e
        pieces.append(text)
        length16 += own16
        length += len(text)
    return "".join(pieces), places


def _units(text: str) -> int:
    """``text``'s length in UTF-16 units."""
    return len(text) + sum(1 for char in text if char > "\uffff")


@dataclass
class _Annotation:
    """One annotation of the span layer read: its label, extent (UTF-16), first line, features."""

    label: str | None
    begin: int
    end: int
    line: int
    values: dict = field(default_factory=dict)   # feature name -> value, the first met


def _annotations(sentences: list[_Sentence], layer: _Layer, label_index: int) -> tuple[dict, dict]:
    """The layer's annotations by key (``("id", "3")`` for one carrying an id, else its row and
    stacking position), and each row's first annotation (what an unambiguous reference names)."""
    found: dict[tuple, _Annotation] = {}
    units: dict[str, tuple] = {}
    label_column = layer.column + label_index
    others = [(index, name) for index, name in enumerate(layer.features)
              if index != label_index and not _is_slot_target(layer.features, index)]
    for sentence in sentences:
        for number, row, begin, end, _, fields in sentence.rows:
            cell = fields[label_column]
            if cell == "_" or cell == "":
                continue
            cells = {index: _split_cell(fields[layer.column + index]) for index, _ in others}
            for position, item in enumerate(_split_cell(cell)):
                raw, ident = _split_id(item)
                label = None if raw in ("*", "") else _unescape(raw, _VALUE_UNESCAPES)
                key = ("id", ident) if ident is not None else ("row", number, position)
                if position == 0:
                    units[row] = key
                entry = found.get(key)
                if entry is None:
                    entry = found[key] = _Annotation(label, begin, end, number)
                else:
                    entry.begin = min(entry.begin, begin)
                    entry.end = max(entry.end, end)
                    if entry.label is None:
                        entry.label = label
                for index, name in others:
                    items = cells[index]
                    if position < len(items) and name not in entry.values:
                        value = _feature_value(name, items[position])
                        if value is not None:
                            entry.values[name] = value
    return found, units


def _is_slot_target(features: list[str], index: int) -> bool:
    """Whether a span layer's feature column is the target column of a slot (link) feature."""
    return index > 0 and features[index - 1].startswith("ROLE_")


def _attribute_name(feature: str) -> str:
    """An attribute's name for a span layer's feature: the feature's name; a slot feature's
    (``ROLE_webanno.custom.Frame:Roles_webanno.custom.FrameRolesLink``) its short name, ``Roles``."""
    if not feature.startswith("ROLE_"):
        return feature
    declared = feature.split("_")[1] if feature.count("_") >= 2 else feature[5:]
    return declared.rpartition(":")[2] or declared


def _feature_value(feature: str, item: str) -> str | None:
    """A feature's value in a cell item (its id dropped), unescaped; ``None`` when unset (``*``)
    or empty. A slot feature's roles (``seller;goods``) are joined by ``|``."""
    raw, _ = _split_id(item)
    if raw in ("*", "_", ""):
        return None
    if feature.startswith("ROLE_"):
        parts = [_unescape(role, _VALUE_UNESCAPES) for role in re.split(r"(?<!\\);", raw)]
        return "|".join("" if role == "*" else role for role in parts)
    return _unescape(raw, _VALUE_UNESCAPES)


def _spans(source: str, doc_id: str, annotations: dict, places: dict[int, int], layer: _Layer,
           counts: Counter) -> dict:
    """The annotations as spans, by key; zero-length ones left out (counted)."""
    spans = {}
    for key, entry in annotations.items():
        if entry.begin == entry.end:
            counts["zero-length"] += 1
            continue
        label = entry.label
        if label is None:
            counts[f"unlabelled {layer.short}"] += 1
            label = layer.short
        attributes = tuple((_attribute_name(name), value) for name, value in entry.values.items())
        spans[key] = Span.trusted(doc_id, ((places[entry.begin], places[entry.end]),), label,
                                  Source(source, entry.line), attributes)
    return spans


_REFERENCE = re.compile(r"([0-9]+-[0-9]+(?:\.[0-9]+)?)(?:\[([0-9]+)_([0-9]+)\])?\Z")


def _relations(source: str, sentences: list[_Sentence], layer: _Layer, annotations: dict, units: dict,
               spans: dict, counts: Counter) -> list[Relation]:
    """A relation layer's annotations between spans of the layer read (its ``BT_`` column names
    it): each on the row of its dependent, the ``BT_`` column naming its governor's row (and the
    two ends' ids, ``1-1[2_3]``, where either carries one)."""
    features = layer.features[:-1]
    label_index = features.index(_label_feature(features)) if features else None
    roles_at = {name: features.index(name) for name in ROLE_FEATURES if name in features}
    reference_column = layer.column + len(features)
    relations = []
    for sentence in sentences:
        for number, row, _, _, _, fields in sentence.rows:
            cell = fields[reference_column]
            if cell == "_" or cell == "":
                continue
            labels = _split_cell(fields[layer.column + label_index]) if label_index is not None else []
            role_cells = {name: _split_cell(fields[layer.column + index]) for name, index in roles_at.items()}
            for position, item in enumerate(_split_cell(cell)):
                match = _REFERENCE.match(item)
                if match is None:
                    raise FormatError(source, f"bad {layer.short} reference {_shown(item)!r} (the governor's "
                                      "SENTENCE-TOKEN, with [GOVERNOR_DEPENDENT] ids where either has one)", number)
                ends = []
                for end, unit, ident in (("governor", match.group(1), match.group(2)),
                                         ("dependent", row, match.group(3))):
                    key = ("id", str(int(ident))) if ident is not None and int(ident) > 0 else units.get(unit)
                    if key not in annotations:
                        where = f"annotation [{int(ident)}]" if ident is not None and int(ident) > 0 else f"row {unit}"
                        raise FormatError(source, f"a {layer.short} relation's {end} is {where}, which holds no "
                                          f"{layer.base.rpartition('.')[2]} annotation", number)
                    ends.append(spans.get(key))
                if None in ends:  # an end left out (zero-length)
                    counts["zero-length relation end"] += 1
                    continue
                value = _feature_value("", labels[position]) if position < len(labels) else None
                found_roles = [_feature_value("", role_cells[name][position])
                               if name in role_cells and position < len(role_cells[name]) else None
                               for name in ROLE_FEATURES]
                governor_role, dependent_role = roles(*found_roles)
                arguments = ((governor_role, ends[0]), (dependent_role, ends[1]))
                relations.append(Relation(layer.short if value is None else value, arguments,
                                          source=Source(source, number)))
                for index, name in enumerate(features):
                    if index != label_index and name not in ROLE_FEATURES:
                        items = _split_cell(fields[layer.column + index])
                        if position < len(items) and _feature_value(name, items[position]) is not None:
                            counts[f"unread relation feature {layer.short}"] += 1
    return relations


def _count_annotations(sentences: list[_Sentence], layer: _Layer) -> int:
    """How many annotations a layer holds (its first column's entries, an id counted once)."""
    seen, total = set(), 0
    for sentence in sentences:
        for _, _, _, _, _, fields in sentence.rows:
            cell = fields[layer.column]
            if cell in ("_", ""):
                continue
            for item in _split_cell(cell):
                _, ident = _split_id(item)
                if ident is None:
                    total += 1
                elif ident not in seen:
                    seen.add(ident)
                    total += 1
    return total


def webanno_notes(counts: Counter, layer: str | None = None, feature: str | None = None) -> list[str]:
    """The notes for what :func:`webanno_document` counted and did not read."""
    notes = []
    if counts.get("zero-length"):
        notes.append(f"{counts['zero-length']} zero-length WebAnno annotation(s) left out (a span covers at least "
                     "one character)")
    for key, n in sorted(counts.items()):
        if key.startswith("unlabelled ") and n:
            notes.append(f"{n} WebAnno span(s) without a value of feature {feature or DEFAULT_FEATURE!r} labelled "
                         f"with the layer's name {key[len('unlabelled '):]!r}")
    if counts.get("zero-length relation end"):
        notes.append(f"{counts['zero-length relation end']} WebAnno relation(s) to a zero-length annotation left out")
    unread = [(key.rpartition(" ")[2], n) for key, n in sorted(counts.items()) if key.startswith("unread relation ")
              and n]
    if unread:
        notes.append(f"{sum(n for _, n in unread)} WebAnno relation feature value(s) besides the label not read ("
                     + ", ".join(f"{name}: {n}" for name, n in unread) + ")")
    absent = [(key[len("layer absent: "):], n) for key, n in counts.items() if key.startswith("layer absent: ") and n]
    for present, n in absent:
        notes.append(f"{n} WebAnno file(s) without the layer {layer or 'NamedEntity'} (they hold span layer(s) "
                     f"{present}; choose one with --webanno-layer)")
    for kind, what in (("span", "annotation(s) of other span layers"),
                       ("chain", "annotation(s) of chain layers (coreference)"),
                       ("relation", "annotation(s) of relation layers")):
        parts = [(key.partition(" ")[2], n) for key, n in sorted(counts.items()) if key.startswith(kind + " ") and n]
        if parts:
            total = sum(n for _, n in parts)
            listed = ", ".join(f"{name}: {n}" for name, n in parts)
            hint = "; choose a layer with --webanno-layer" if kind == "span" else ""
            notes.append(f"{total} WebAnno {what} not read ({listed}{hint})")
    return notes


def _scan(top: str) -> list[tuple[str, str]]:
    """A folder's ``.tsv`` files in natural order ``(path relative to the folder without .tsv, path)``."""
    files = []

    def walk_error(error: OSError) -> None:
        raise FormatError(error.filename or top, f"cannot read: {error.strerror or error}")

    for dirpath, dirnames, filenames in os.walk(top, onerror=walk_error):
        dirnames.sort()
        rel = os.path.relpath(dirpath, top)
        prefix = "" if rel == os.curdir else rel.replace(os.sep, "/") + "/"
        files.extend((prefix + f[:-4], os.path.join(dirpath, f)) for f in filenames if f.lower().endswith(".tsv"))
    if not files:
        raise FormatError(top, "empty folder: no .tsv file in it")
    files.sort(key=lambda entry: natural_key(entry[0]))  # doc2 before doc10, as every folder reader
    return files


def _files(path: str) -> list[tuple[str, str, bool]]:
    return document_files(path, _scan)


def _read_text(file: str, in_folder: bool, limit: int) -> str:
    data = read_document_file(file, in_folder, limit, "a folder's .tsv files")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise FormatError(file, f"not UTF-8 (byte {error.start})", line) from None


class WebannoFolder(FolderListing):
    """WebAnno TSV files listed but not read (:class:`~spanagree.formats.FolderListing`): a unit is
    a file, its key the document's id (the path relative to the folder without ``.tsv``).

    Attributes
    ----------
    units : dict of str to (str, bool)
        Document id → (the file, whether it was found in a folder), in natural order of the ids.
    """

    format = "webanno"

    def __init__(self, name: str, files: list[tuple[str, str, bool]], layer: str | None, feature: str | None,
                 limit: int = MAX_RECORD_BYTES):
        super().__init__(name, {doc_id: (file, in_folder) for doc_id, file, in_folder in files})
        self.layer, self.feature, self.limit = layer, feature, limit

    def new_counts(self) -> Counter:
        return Counter()

    def documents(self, keys, counts: Counter):
        units, layer, feature, limit = self.units, self.layer, self.feature, self.limit
        for doc_id in keys:
            if doc_id in units:
                file, in_folder = units[doc_id]
                yield webanno_document(_read_text(file, in_folder, limit), file, doc_id, webanno_layer=layer,
                                       webanno_feature=feature, counts=counts)

    def finish(self, counts: Counter) -> tuple[list[str], list[str]]:
        return webanno_notes(Counter(counts), self.layer, self.feature), []


@FORMAT.provides("lister")
def list_webanno(path, *, name: str | None = None, webanno_layer: str | None = None,
                 webanno_feature: str | None = None, max_record_bytes: int = MAX_RECORD_BYTES) -> WebannoFolder:
    """A folder's WebAnno TSV files (listed, nothing read), as :func:`stream_webanno` reads them.

    Raises
    ------
    FormatError
        Not a folder, or no .tsv file in it.
    """
    path = str(path)
    if not os.path.isdir(path):
        raise FormatError(path, "not a folder")
    return WebannoFolder(name or default_name(path), _files(path), webanno_layer, webanno_feature, max_record_bytes)


@FORMAT.provides("streamer")
def stream_webanno(path, *, name: str | None = None, webanno_layer: str | None = None,
                   webanno_feature: str | None = None, max_record_bytes: int = MAX_RECORD_BYTES) -> DocumentStream:
    """The documents of a WebAnno TSV 3 file (id ``1``) or of a folder of them (ids: relative paths
    without ``.tsv``), read one file at a time."""
    path = str(path)
    if not os.path.exists(path):
        raise FormatError(path, "no such file or folder")
    listing = WebannoFolder(name or default_name(path), _files(path), webanno_layer, webanno_feature,
                            max_record_bytes)
    stream = DocumentStream(listing.name, "webanno", iter(()))
    stream.documents = listed_documents(listing, stream.notes)
    return stream


def read_webanno(path, *, name: str | None = None, webanno_layer: str | None = None,
                 webanno_feature: str | None = None, max_record_bytes: int = MAX_RECORD_BYTES) -> SpanSet:
    """:func:`stream_webanno` collected."""
    return collect(stream_webanno(path, name=name, webanno_layer=webanno_layer, webanno_feature=webanno_feature,
                                  max_record_bytes=max_record_bytes))


def _shown(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


# ---------------------------------------------------------------------------------------------
# Writing


def _full_layer_name(layer: str | None) -> str:
    if not layer or layer == "NamedEntity":
        return NAMED_ENTITY
    return layer if "." in layer else "webanno.custom." + layer


@FORMAT.provides("writer")
def write_webanno(spanset: SpanSet, dest, *, webanno_layer: str | None = None,
                  webanno_feature: str | None = None) -> None:
    """Write a span set as a folder of WebAnno TSV 3.3 files, ``<id>.tsv`` per document (see the
    module's documentation for the layer, tokens and sub-token rows).

    Raises
    ------
    UsageError
        Naming the document, before anything is written (see the module's documentation).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "out"
    >>> spans = [Span("d1", (0, 3), "PER"), Span("d1", (8, 15), "LOC")]
    >>> s = SpanSet.from_spans("ana", spans, {"d1": "Ana met Bo|Porto"})
    >>> write_webanno(s, out)
    >>> for line in (out / "d1.tsv").read_text().splitlines():
    ...     print(repr(line))
    '#FORMAT=WebAnno TSV 3.3'
    '#T_SP=de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity|value'
    ''
    ''
    '#Text=Ana met Bo|Porto'
    '1-1\\t0-3\\tAna\\tPER\\t'
    '1-2\\t4-7\\tmet\\t_\\t'
    '1-3\\t8-16\\tBo\\\\|Porto\\t_\\t'
    '1-3.1\\t8-15\\tBo\\\\|Port\\tLOC\\t'
    >>> read_webanno(out).documents["d1"].spans == s.documents["d1"].spans
    True
    """
    from .files import check_file_path

    layer = _full_layer_name(webanno_layer)
    feature = webanno_feature or DEFAULT_FEATURE
    if "|" in layer or "\n" in layer or "|" in feature or "\n" in feature or "\t" in feature:
        raise UsageError("{option} and {feature} cannot hold '|', tabs or line breaks",
                         option="webanno_layer", feature="webanno_feature")
    documents = list(spanset.documents.items())  # each made once (a merge's gold is made as it is looked at)
    features = feature_names(document for _, document in documents)
    if feature in features:
        raise UsageError(f"a span attribute is named {feature!r}, as the label feature; choose another label "
                         "feature with {option}", option="webanno_feature")
    relations = {doc_id: written_relations(document) for doc_id, document in documents}
    relation_features = [RELATION_FEATURE]
    if any(needs_roles(found) for found in relations.values()):
        relation_features += ROLE_FEATURES
    if not any(relations.values()):
        relation_features = []
    contents = []
    for doc_id, document in documents:
        check_file_path(doc_id, ".tsv", "TSV")
        contents.append((doc_id, _tsv(doc_id, document, layer, feature, features, relations[doc_id],
                                      relation_features)))
    dest = os.fspath(dest)
    os.makedirs(dest, exist_ok=True)
    for doc_id, content in contents:
        base = os.path.join(dest, *doc_id.split("/"))
        os.makedirs(os.path.dirname(base), exist_ok=True)
        try:
            data = content.encode("utf-8")
        except UnicodeEncodeError:
            raise UsageError(f"document {doc_id!r}: its text or a label holds a lone surrogate, which UTF-8 "
                             "cannot write") from None
        with open(base + ".tsv", "wb") as file:
            file.write(data)


def _tsv(doc_id: str, document: Document, layer: str, feature: str, features: list[str] = (),
         relations: list = (), relation_features: list[str] = ()) -> str:
    text = document.text
    if text is None:
        raise UsageError(f"document {doc_id!r} has no text; WebAnno TSV is written from texts")
    # sentences (line contents without surrounding whitespace) and their tokens
    sentences: list[tuple[int, int, list[tuple[int, int]]]] = []
    token_at: dict[int, int] = {}        # code point -> index into tokens
    tokens: list[tuple[int, int, int, int]] = []   # (begin, end, sentence number, token number)
    for line in re.finditer(r"[^\n]+", text):
        pieces = [(m.start(), m.end()) for m in re.finditer(r"\S+", line.group())]
        if not pieces:
            continue
        base = line.start()
        number = len(sentences) + 1
        sentence_tokens = []
        for t, (b, e) in enumerate(pieces, 1):
            b, e = b + base, e + base
            for i in range(b, e):
                token_at[i] = len(tokens)
            tokens.append((b, e, number, t))
            sentence_tokens.append((b, e))
        sentences.append((sentence_tokens[0][0], sentence_tokens[-1][1], sentence_tokens))
    # every span's rows: (token index, sub-range or None for the whole token), in document.spans' order
    order = sorted(range(len(document.spans)), key=lambda n: document.spans[n].sort_key())
    placed, position = [], {}
    for original in order:
        span = document.spans[original]
        if len(span.fragments) > 1:
            raise UsageError(f"document {doc_id!r}: span {span.fragments} {span.label} is discontinuous; a WebAnno "
                             "span is one range")
        start, end = span.start, span.end
        if end > len(text):
            raise UsageError(f"document {doc_id!r}: span {span.fragments} {span.label} ends beyond its text "
                             f"({len(text)} characters)")
        if start not in token_at or end - 1 not in token_at:
            raise UsageError(f"document {doc_id!r}: span {span.fragments} {span.label} starts or ends on whitespace; "
                             "WebAnno TSV rows are tokens (whitespace-separated)")
        rows = []
        for index in range(token_at[start], token_at[end - 1] + 1):
            b, e = tokens[index][0], tokens[index][1]
            sub = None if (start <= b and e <= end) else (max(b, start), min(e, end))
            rows.append((index, sub))
        position[original] = len(placed)
        placed.append((span, rows))
    # annotations per row; ids where a span has several rows or shares one
    cells: dict[tuple[int, tuple | None], list[int]] = {}
    for number, (_, rows) in enumerate(placed):
        for row in rows:
            cells.setdefault(row, []).append(number)
    ids: dict[int, int] = {}
    for number, (_, rows) in enumerate(placed):
        if len(rows) > 1 or any(len(cells[row]) > 1 for row in rows):
            ids[number] = len(ids) + 1
    subs: dict[int, list[tuple[int, int]]] = {}   # token index -> its sub-ranges, in order
    for index, sub in cells:
        if sub is not None:
            subs.setdefault(index, []).append(sub)
    # relations on their dependent's first row, naming their governor's first row
    arcs: dict[tuple[int, tuple | None], list[tuple]] = {}
    for relation, governor, dependent in relations:
        governor, dependent = position[governor], position[dependent]
        arcs.setdefault(placed[dependent][1][0], []).append((relation, governor, dependent))
    names = {}   # (token index, sub-range) -> row id
    for index, (b, e, s_no, t_no) in enumerate(tokens):
        names[(index, None)] = f"{s_no}-{t_no}"
    for index, ranges in subs.items():
        ranges.sort()
        for k, sub in enumerate(ranges, 1):
            names[(index, sub)] = f"{tokens[index][2]}-{tokens[index][3]}.{k}"
    units = _utf16_offsets(text)
    out = [f"#FORMAT={WRITTEN_VERSION}", "#T_SP=" + "|".join([layer, feature, *features])]
    if relation_features:
        out.append("#T_RL=" + "|".join([RELATION_LAYER, *relation_features, "BT_" + layer]))
    out.append("")
    row_cells = _RowCells(placed, ids, features, relation_features, names)
    token_index = 0
    for s_begin, s_end, sentence_tokens in sentences:
        out.append("")
        out.append("#Text=" + _escape_text(text[s_begin:s_end]))
        for _ in sentence_tokens:
            b, e, s_no, t_no = tokens[token_index]
            row = (token_index, None)
            out.append(f"{names[row]}\t{units[b]}-{units[e]}\t{_escape_value(text[b:e])}\t"
                       + row_cells(cells.get(row, ()), arcs.get(row, ())))
            for sb, se in subs.get(token_index, ()):
                row = (token_index, (sb, se))
                out.append(f"{names[row]}\t{units[sb]}-{units[se]}\t{_escape_value(text[sb:se])}\t"
                           + row_cells(cells[row], arcs.get(row, ())))
            token_index += 1
    return "\n".join(out) + "\n"


@dataclass
class _RowCells:
    """A row's annotation columns: the span layer's label and features, then the relation layer's."""

    placed: list
    ids: dict
    features: list
    relation_features: list
    names: dict

    def __call__(self, numbers, arcs) -> str:
        placed, ids = self.placed, self.ids
        columns = []
        if numbers:
            suffixes = [f"[{ids[n]}]" if n in ids else "" for n in numbers]
            label = "|".join(_escape_value(placed[n][0].label) + suffix for n, suffix in zip(numbers, suffixes))
            columns.append(label if label else "*")
            attributes = [dict(written_attributes(placed[n][0])) for n in numbers] if self.features else ()
            for name in self.features:
                values = [found.get(name) for found in attributes]
                columns.append("|".join(("*" if value is None else _escape_value(value)) + suffix
                                        for value, suffix in zip(values, suffixes)))
        else:
            columns += ["_"] * (1 + len(self.features))
        if self.relation_features:
            if arcs:
                labels = [_escape_value(relation.type) or "*" for relation, _, _ in arcs]
                columns.append("|".join(labels))
                if len(self.relation_features) > 1:
                    for end in (0, 1):
                        columns.append("|".join(_escape_value(relation.arguments[end][0]) or "*"
                                                for relation, _, _ in arcs))
                references = []
                for _, governor, dependent in arcs:
                    reference = self.names[placed[governor][1][0]]
                    if governor in ids or dependent in ids:
                        reference += f"[{ids.get(governor, 0)}_{ids.get(dependent, 0)}]"
                    references.append(reference)
                columns.append("|".join(references))
            else:
                columns += ["_"] * (len(self.relation_features) + 1)
        return "\t".join(columns) + "\t"


def _utf16_offsets(text: str) -> list[int] | range:
    """Each code-point offset of ``text`` (0 to ``len(text)``) in UTF-16 units."""
    if text.isascii() or not text or max(text) <= "\uffff":
        return range(len(text) + 1)
    offsets, position = [0], 0
    for char in text:
        position += 2 if char > "\uffff" else 1
        offsets.append(position)
    return offsets
