"""Inline XML: running text with span elements inside it (``<doc>Ana met <PER>Bo</PER>.</doc>``).

Reading
-------
* **Input.** One ``.xml`` file, or a folder searched recursively for ``*.xml`` files (read in
  natural order of their document ids: ``doc2`` before ``doc10``). A folder without any is an error.
* **Document elements.** Without ``xml_doc_tag``, each file's root element is one document.
  With ``xml_doc_tag=TAG``, every ``TAG`` element is a document (MUC's ``DOC``, the
  ``<corpus><doc id=...>`` files that :func:`write_xml` writes); a file without one is an error,
  and so is a ``TAG`` element inside another. Elements outside the document elements are not read.
* **Document ids** use ``/`` separators on every OS.

  - Without ``xml_doc_tag``: the file's path relative to the folder, without ``.xml``
    (``sub/paper``); for a single file, its name without extension (``paper.xml`` gives
    ``paper``), as BRAT does for a single ``.ann``.
  - With ``xml_doc_tag``: each document element's *key* is its ``id`` (or ``xml:id``) attribute
    when it has one, else its 1-based ordinal among the file's ``TAG`` elements. In a folder the
    id is the file's path + ``#`` + key (``sub/file#3``, ``sub/file#clinic-01``); in a single file
    it is the key alone, never the file name, so that ``gold.xml`` and ``system.xml`` line up (as
    CoNLL's ordinals do) and ids written by :func:`write_xml` (or any other format's ids, such as
    the demo corpus's ``clinic-01``) come back unchanged. A key seen twice in a file is an error.
* **Text** = the document element's text content in document order (``itertext`` order):
  character and predefined entity references resolved (``&amp;`` is ``&``, ``&#233;`` is ``é``),
  CDATA sections as their content, comments and processing instructions contributing nothing
  (the text after them counts). The XML parser turns every line break (``\\r\\n``, ``\\r``) of the
  file into ``\\n``; only a character reference ``&#13;`` gives a ``\\r`` (the writer uses it).
  Offsets are half-open and count code points. A byte-order mark at the start of the file is the
  encoding's signature, not text. Files are UTF-8 unless their XML declaration names another
  encoding.
* **Spans** are elements below the document element (never the document element itself):

  - with ``xml_span_tags="A,B"`` (a comma-separated string, or a list), the elements whose tag
    is one of those;
  - else, with ``xml_label_attr=ATTR``, the elements that carry the attribute ``ATTR``;
  - else, when the file carries the marker :func:`write_xml` writes (``<?spanagree
    xml_doc_tag="doc"?>`` before the root element, in the first 4 KiB of a regular file) and no
    option is given, the options it names (they also choose the document elements);
  - else every element. A note (in the span set's notes) then lists the elements taken and their
    counts (``term (2586), S (817), Title (171)``), since structure elements (sentences,
    sections, titles) count as spans too; when some of them hold other span elements, the same
    is a :class:`~spanagree.errors.SpanagreeWarning` naming those (``<S>, <Title> hold other
    elements``).

  A span covers its element's text content, from the start tag to the end tag; nested elements are
  nested spans, and spans come in document order of their start tags. Tags are matched by their
  local name: a namespace-qualified ``<x:PER xmlns:x="...">`` is ``PER`` (so are
  ``xml_span_tags`` and ``xml_doc_tag``).
* **Label** = the element's local name, or with ``xml_label_attr`` the value of that attribute
  (ACL RD-TEC ``<term class="tech">`` with ``xml_label_attr="class"``, MUC ``<ENAMEX
  TYPE="PERSON">`` with ``"TYPE"``). ``ATTR`` is the attribute's name without prefix; an
  attribute in a namespace is named ``{uri}name``. A span element without that attribute (when
  ``xml_span_tags`` chose it) or with an empty value is an error.
* An **empty element** (no text: ``<PER/>``, ``<PER></PER>``) cannot be a span (a span covers at
  least one character): it is skipped, with one :class:`~spanagree.errors.SpanagreeWarning` per
  read naming the first one (``file:line``) and the number of them, and a count in the span set's
  notes.
* Each span's source is its file and the line of its start tag.
* **Safety.** Parsed with lxml, never loading a DTD, never touching the network, never expanding
  an entity declared in a DTD, and with lxml's size limits on (no ``huge_tree``): an external
  entity (``<!ENTITY x SYSTEM "file:///etc/passwd">``) is never read, and a "billion laughs"
  file fails at once (:mod:`spanagree.formats.safexml`). A reference to such an entity (``&x;``)
  in the text is an error, since leaving it out would shift every offset after it; and a DOCTYPE
  that declares entities is refused, since libxml2 expands an internal entity in an attribute's
  value (a label's) even when told not to. A DOCTYPE declaring none is read past.
* **Errors** (:class:`~spanagree.errors.FormatError`, ``path:line: message``): a missing path, a
  folder without ``.xml`` files, XML that is not well formed (with libxml2's line and column),
  bytes that are not UTF-8 (with the first bad byte's line), an entity reference that is not
  expanded, a document key seen twice, no ``xml_doc_tag`` element, a document element inside
  another, a span element without its label attribute or with an empty label.

Writing
-------
``write_xml`` writes one UTF-8 file::

    <?xml version="1.0" encoding="UTF-8"?>
    <?spanagree xml_doc_tag="doc"?>
    <corpus>
    <doc id="d1">Ana met <PER>Bo</PER> in <LOC>Porto</LOC>.</doc>
    </corpus>

one ``<doc id="...">`` element per document, in order, one line each (the line breaks between
them are outside the documents). The processing instruction ``<?spanagree ...?>`` (the
*marker*) names the options that read the file back (``xml_doc_tag``, and ``xml_label_attr`` and
``xml_span_tags`` when given), so that reading it without options gives the same ids, texts and
spans as reading it with them. ``xml_doc_tag`` names the document element instead of ``doc``.

* **Spans** are elements named by their label. With ``xml_label_attr=ATTR`` they are instead
  generic elements carrying the label in that attribute, named by the first of ``xml_span_tags``
  or else ``span`` (``<term class="tech">`` with ``xml_label_attr="class"``,
  ``xml_span_tags="term"``); use that when a label is not an XML name (``measure(ment)``, ``has
  space``): without ``xml_label_attr`` such a label is refused, as is a label equal to the
  document element's name or, when ``xml_span_tags`` is given, a label not among them (the reader
  would not read those back).
* **Nesting.** Spans are opened in the order (start, longest first, label): a span inside another
  is an element inside the other's; spans with the same extent nest with their labels in sorted
  order from the outside in, and identical spans (same extent and label) nest inside each other,
  so duplicates survive the round trip.
* **Escaping** (lxml's serializer; the tree is built with lxml, never as strings): ``&``, ``<``,
  ``>`` as entity references, and ``\\r`` as ``&#13;`` (a raw ``\\r`` would be read back as
  ``\\n``), so that texts with ``\\r\\n`` round-trip; in attribute values also ``"`` and tab,
  ``\\n``, ``\\r`` as character references.
* **Refused** (:class:`~spanagree.errors.UsageError`, naming the document and the span; nothing is
  written): a discontinuous span, spans that cross (overlap without one inside the other), a span
  beyond its text, a document without text, a character that XML 1.0 cannot hold (U+0000 to
  U+001F other than tab, ``\\n`` and ``\\r``; U+FFFE, U+FFFF; lone surrogates) in a text, id or
  label, and the label names above.
"""

from __future__ import annotations

import io
import os
import re
from collections import Counter

from lxml import etree

from ..errors import FormatError, UsageError, parameter
from ..span import Document, Source, Span, SpanSet, moved_relations
from .files import is_pipe, open_bytes
from . import (HEAD_BYTES, MAX_RECORD_BYTES, DocumentStream, FileWriter, FolderListing, collect, listed_documents,
               natural_key, open_regular, read_bounded, read_regular, write_documents)
from .registry import FORMATS
from .safexml import SAFE, declared_entities

#: This module's registry entry, on which it registers its functions.
FORMAT = FORMATS["xml"]

__all__ = ["list_xml", "read_xml", "stream_xml", "write_xml", "XmlFolder"]

_XML_ID = "{http://www.w3.org/XML/1998/namespace}id"
_ENTITY = etree.Entity

# The parser options: no DTD, no network, no entity expansion, libxml2's size limits kept.
_SAFE = SAFE

_DECLARED_ENCODING = re.compile(rb"""^(?:\xef\xbb\xbf)?<\?xml[^>]*?encoding\s*=\s*["']([^"']+)["']""")
_WHERE = re.compile(r",\s*line \d+, column \d+\s*$")

# XML 1.0 (fifth edition) names without colons (NCName): element and attribute names.
_NAME_START = ("A-Z_a-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff\u200c-\u200d"
               "\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff")
_NAME = re.compile(f"[{_NAME_START}][{_NAME_START}\\-.0-9\u00b7\u0300-\u036f\u203f-\u2040]*")
# Characters XML 1.0 cannot hold, even as a character reference.
_ILLEGAL = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")



def read_xml(path, *, name: str | None = None, xml_label_attr: str | None = None,
             xml_span_tags: str | list[str] | None = None, xml_doc_tag: str | None = None) -> SpanSet:
    """Read inline XML (a file, or a folder of ``.xml`` files) as one annotator's :class:`SpanSet`.

    Parameters
    ----------
    path : str or path
        An ``.xml`` file or a folder (searched recursively).
    name : str, optional
        The span set's name; default the folder name or the file name without extension.
    xml_label_attr : str, optional
        Take labels from this attribute instead of the tag name (``"class"``, ``"TYPE"``).
    xml_span_tags : str or list of str, optional
        Only these elements are spans (``"ENAMEX,TIMEX"``); default: with ``xml_label_attr`` the
        elements carrying it, else every element below the document element.
    xml_doc_tag : str, optional
        Every element with this tag is a document; default: each file's root element.

    Returns
    -------
    SpanSet
        Offsets over each document element's text content; see the module documentation for
        document ids.

    Raises
    ------
    FormatError
        Naming the file (and line): see the module documentation.
    UsageError
        An empty ``xml_span_tags``, ``xml_label_attr`` or ``xml_doc_tag``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "ann1.xml"
    >>> _ = f.write_text('<corpus><doc id="d1"><PER>Ana</PER> met <PER>Bo</PER> in '
    ...                  '<ORG>University of <LOC>Porto</LOC></ORG>.</doc><doc>Bo &amp; <!-- hm --><PER>Ana</PER>'
    ...                  '</doc></corpus>', encoding="utf-8")
    >>> spans = read_xml(f, xml_doc_tag="doc")
    >>> spans.name, list(spans.documents), spans.documents["2"].text
    ('ann1', ['d1', '2'], 'Bo & Ana')
    >>> [(s.doc, s.start, s.end, s.label) for s in spans]
    [('d1', 0, 3, 'PER'), ('d1', 8, 10, 'PER'), ('d1', 14, 33, 'ORG'), ('d1', 28, 33, 'LOC'), ('2', 5, 8, 'PER')]
    """
    return collect(stream_xml(path, name=name, xml_label_attr=xml_label_attr, xml_span_tags=xml_span_tags,
                              xml_doc_tag=xml_doc_tag))


@FORMAT.provides("streamer")
def stream_xml(path, *, name: str | None = None, xml_label_attr: str | None = None,
               xml_span_tags: str | list[str] | None = None, xml_doc_tag: str | None = None,
               max_record_bytes: int = MAX_RECORD_BYTES) -> DocumentStream:
    """:func:`read_xml`'s documents one at a time: file by file, and with ``xml_doc_tag`` element by
    element (each freed once read). Options and the path are checked when the stream is made.

    A file given as ``path`` may be a pipe (``<(...)``); the files of a folder must be regular
    files (a FIFO among them is an error, never waited on). Without ``xml_doc_tag``, a file is one
    document and may take at most ``max_record_bytes`` bytes (64 MiB unless raised).
    """
    options = _Options(xml_label_attr, xml_span_tags, xml_doc_tag)
    top = os.fspath(path)
    name = _name(top, name)
    if os.path.exists(top) and not os.path.isdir(top):  # a regular file, or a pipe given on purpose
        stem = os.path.splitext(os.path.basename(top))[0]
        files = [(stem, top, False)]
    elif os.path.isdir(top):
        files = [(rel, file, True) for rel, file in xml_files(top)]
    else:
        raise FormatError(top, "no such file or folder")
    stream = DocumentStream(name, "xml", iter(()))
    stream.documents = listed_documents(XmlFolder(name, files, options, max_record_bytes), stream.notes)
    return stream


#: The processing instruction :func:`write_xml` puts after the XML declaration, naming the options
#: that read its output back: ``<?spanagree xml_doc_tag="doc"?>`` (and ``xml_label_attr``,
#: ``xml_span_tags`` when it was given them).
MARKER = "spanagree"
_MARKER = re.compile(rb"<\?spanagree\s([^?>]*)\?>")
_MARKER_OPTION = re.compile(rb'(xml_doc_tag|xml_label_attr|xml_span_tags)="([^"]*)"')


def marked_options(path: str) -> "_Options | None":
    """The options a file's ``<?spanagree ...?>`` marker names (in its first :data:`HEAD_BYTES`
    bytes, before the root element), or ``None``: a file not written by :func:`write_xml`, or not
    a regular file (a pipe is never read ahead)."""
    if not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as file:
            head = file.read(HEAD_BYTES)
    except OSError:
        return None  # reading it will say why
    return _marked_in(head)


def _marked_in(head: bytes) -> "_Options | None":
    """The options the marker in a file's first bytes names, or ``None``."""
    found = _MARKER.search(head)
    if found is None or _ROOT_BEFORE.search(head, 0, found.start()):
        return None
    given = {name.decode(): value.decode("utf-8", "replace") for name, value in _MARKER_OPTION.findall(found.group(1))}
    try:
        return _Options(given.get("xml_label_attr"), given.get("xml_span_tags"), given.get("xml_doc_tag"))
    except UsageError:
        return None  # a marker not ours: read as without it


# An element's start tag (not a declaration, comment or processing instruction).
_ROOT_BEFORE = re.compile(rb"<[^?!]")


class XmlFolder(FolderListing):
    """XML files listed but not read (:class:`~spanagree.formats.FolderListing`): a unit is a file,
    its key the file's path relative to the folder without ``.xml`` (the id of its document, or
    what the ids of its documents begin with: ``sub/file#3``).

    Attributes
    ----------
    units : dict of str to (str, bool)
        Key → (the file, whether it was found in a folder), in natural order of the keys.
    """

    format = "xml"

    def __init__(self, name: str, files: list[tuple[str, str, bool]], options: "_Options",
                 limit: int = MAX_RECORD_BYTES):
        super().__init__(name, {rel: (file, in_folder) for rel, file, in_folder in files})
        self.options = options
        self.limit = limit

    def new_counts(self) -> dict:
        # empty elements skipped, the first one's (file, line, tag) in a list (lists of shards are
        # concatenated: the first is the whole folder's), elements taken as spans because no option
        # said which, and of those the ones holding other span elements
        return {"skipped": 0, "first_skipped": [], "by_default": Counter(), "holding": Counter()}

    def documents(self, keys, counts: dict):
        """The documents of every file of ``keys`` in turn (ids made unique across files)."""
        units, options, limit = self.units, self.options, self.limit
        sources: dict[str, str] = {}  # id -> the file it was read from
        for rel in keys:
            if rel not in units:
                continue
            file, in_folder = units[rel]
            own = options
            if options.unset:
                own = marked_options(file) or options
            reader = _FileReader(file, own, in_folder, limit)
            for key, document in reader.documents():
                own = reader.options  # a pipe's marker is found as it is read
                if own.doc_tag is None:
                    doc_id = rel
                else:
                    doc_id = f"{rel}#{key}" if in_folder else key
                if doc_id in sources:
                    raise FormatError(file, f"document id {doc_id!r} appears twice (also in {sources[doc_id]})")
                sources[doc_id] = document.source
                document.id = doc_id
                trusted = Span.trusted
                spans = [trusted(doc_id, s.fragments, s.label, s.source, s.attributes) for s in document.spans]
                document.relations = moved_relations(document.relations, document.spans, spans)
                document.spans = spans
                yield document
            if reader.empty:
                counts["skipped"] += reader.empty
                if not counts["first_skipped"]:
                    counts["first_skipped"].append((file,) + reader.first_empty)
            if own.unset:
                counts["by_default"].update(reader.tags)
                counts["holding"].update(reader.holders)

    def finish(self, counts: dict) -> tuple[list[str], list[str]]:
        notes, warned = [], []
        skipped, by_default, holding = counts["skipped"], counts["by_default"], counts["holding"]
        if skipped:
            notes.append(f"{skipped} empty element{'s' if skipped != 1 else ''} (no text) skipped: a span covers "
                         "at least one character")
            file, line, tag = counts["first_skipped"][0]
            more = f" ({skipped - 1} more like it)" if skipped > 1 else ""
            warned.append(f"{file}:{line}: <{tag}> has no text and cannot be a span: skipped{more}")
        if by_default:
            counted = ", ".join(f"{tag} ({count})" for tag, count in sorted(by_default.items(),
                                                                           key=lambda item: (-item[1], item[0])))
            note = (f"every element was taken as a span (no --xml-span-tags, --xml-label-attr or spanagree marker): "
                    f"{counted}; name the span elements with --xml-span-tags (and the label's attribute with "
                    "--xml-label-attr)")
            notes.append(note)
            if holding:  # sentences, sections, titles: structure more likely than spans
                holders = sorted(holding, key=lambda tag: (-by_default[tag], tag))
                files = [file for file, _ in self.units.values()]
                where = files[0] if len(files) == 1 else os.path.commonpath(files)
                warned.append(f"{where}: {note}; {', '.join(f'<{tag}>' for tag in holders)} "
                              f"{'holds' if len(holders) == 1 else 'hold'} other elements (structure rather than "
                              "spans?)")
        return notes, warned


@FORMAT.provides("lister")
def list_xml(path, *, name: str | None = None, xml_label_attr: str | None = None,
             xml_span_tags: str | list[str] | None = None, xml_doc_tag: str | None = None,
             max_record_bytes: int = MAX_RECORD_BYTES) -> XmlFolder:
    """A folder's XML files (listed, nothing read), as :func:`stream_xml` reads them.

    Raises
    ------
    FormatError
        Not a folder, or as :func:`stream_xml` for a folder (no .xml file in it).
    UsageError
        A bad option.
    """
    options = _Options(xml_label_attr, xml_span_tags, xml_doc_tag)
    top = os.fspath(path)
    if not os.path.isdir(top):
        raise FormatError(top, "not a folder")
    return XmlFolder(_name(top, name), [(rel, file, True) for rel, file in xml_files(top)], options, max_record_bytes)


def _name(top: str, name: str | None) -> str:
    if name is not None:
        return name
    from . import default_name

    return default_name(top) or os.path.basename(os.path.abspath(top))


class _Options:
    """The reader's options, checked once: which elements are spans and where labels come from."""

    __slots__ = ("label_attr", "span_tags", "doc_tag")

    def __init__(self, label_attr, span_tags, doc_tag):
        if label_attr is not None and (not isinstance(label_attr, str) or not label_attr.strip()):
            raise UsageError(f"{{option}} needs an attribute name, got {label_attr!r}", option="xml_label_attr")
        if doc_tag is not None and (not isinstance(doc_tag, str) or not doc_tag.strip()):
            raise UsageError(f"{{option}} needs a tag name, got {doc_tag!r}", option="xml_doc_tag")
        if span_tags is not None:
            names = span_tags.split(",") if isinstance(span_tags, str) else list(span_tags)
            span_tags = frozenset(_local(str(n).strip()) for n in names if str(n).strip())
            if not span_tags:
                raise UsageError("{option} needs at least one tag name (A,B,...)", option="xml_span_tags")
        self.label_attr = label_attr.strip() if label_attr is not None else None
        self.span_tags = span_tags
        self.doc_tag = _local(doc_tag.strip()) if doc_tag is not None else None

    @property
    def unset(self) -> bool:
        """No option given: every element is a span, each file's root a document (unless the file
        is marked, :func:`marked_options`)."""
        return self.label_attr is None and self.span_tags is None and self.doc_tag is None


def _local(tag: str) -> str:
    """A tag's local name: ``{uri}PER`` and ``x:PER`` are ``PER``."""
    if tag[:1] == "{":
        return tag[tag.find("}") + 1:]
    return tag.rpartition(":")[2]


def xml_files(top: str) -> list[tuple[str, str]]:
    """The folder's ``.xml`` files in natural order, ``(path relative to the folder without .xml, path)``."""
    files = []
    for dirpath, dirnames, filenames in os.walk(top, onerror=_walk_error):
        dirnames.sort()
        rel = os.path.relpath(dirpath, top)
        prefix = "" if rel == os.curdir else rel.replace(os.sep, "/") + "/"
        files.extend((prefix + f[:-4], os.path.join(dirpath, f)) for f in filenames if f.endswith(".xml"))
    if not files:
        raise FormatError(top, "empty folder: no .xml file in it")
    files.sort(key=lambda entry: natural_key(entry[0]))
    return files


def _walk_error(error: OSError) -> None:
    raise FormatError(error.filename or "?", f"cannot read: {error.strerror or error}")


class _FileReader:
    """One file's documents: ``documents()`` yields ``(key, Document)``; ``empty`` counts skipped elements
    and ``first_empty`` is the first one's ``(line, tag)``."""

    def __init__(self, path: str, options: _Options, in_folder: bool = False, limit: int = MAX_RECORD_BYTES):
        self.path = path
        self.options = options
        self.in_folder = in_folder
        self.limit = limit
        self.empty = 0
        self.first_empty: tuple[int, str] | None = None
        self.tags: Counter = Counter()  # span elements by tag, when every element is a span
        self.holders: Counter = Counter()  # of those, the ones holding other span elements
        self.entities_checked = False  # the DOCTYPE's entities, looked for once per file

    def documents(self):
        path, doc_tag = self.path, self.options.doc_tag
        try:
            if doc_tag is not None:
                yield from self._documents_by_tag(doc_tag)
                return
            if self.in_folder:  # a regular file only, never waited on
                data = read_regular(path, "a folder's .xml files", self.limit)
            else:  # the file given as the path: a pipe too (through its one opening)
                with open_bytes(path) as file:
                    data = read_bounded(file, path, self.limit, "the file")
            if self.options.unset:  # a pipe (a regular file's marker was looked for before)
                marked = _marked_in(data[:HEAD_BYTES])
                if marked is not None:
                    self.options = marked
                    if marked.doc_tag is not None:
                        yield from self._documents_by_tag(marked.doc_tag, io.BytesIO(data))
                        return
            try:
                root = etree.fromstring(data, etree.XMLParser(**_SAFE))
            except etree.XMLSyntaxError as error:
                raise self._syntax_error(error) from None
            yield None, self._document(root)
        except FileNotFoundError:
            raise FormatError(path, "no such file") from None
        except OSError as error:
            raise FormatError(path, f"cannot read: {error.strerror or error}") from None

    def _open(self):
        """The file for reading bytes; in a folder, only a regular file (never waiting on a FIFO)."""
        return open_regular(self.path, "a folder's .xml files") if self.in_folder else open_bytes(self.path)

    def _documents_by_tag(self, doc_tag: str, source=None):
        """Stream the file (or ``source``, its bytes already read): each document element is read
        when it ends, then freed."""
        path = self.path
        seen: dict[str, int | None] = {}
        ordinal = 0
        with source if source is not None else self._open() as file:
            # every element's end, the document elements picked here: lxml's own filter for a tag
            # in any namespace ("{*}doc") keeps the parser and the file's tree in a reference
            # cycle, which only the collector would free (spanagree.collector)
            events = etree.iterparse(file, events=("end",), **_SAFE)
            try:
                for _, element in events:
                    tag = element.tag
                    if tag != doc_tag and (type(tag) is not str or tag[0] != "{"
                                           or tag[tag.find("}") + 1:] != doc_tag):
                        continue
                    ordinal += 1
                    line = element.sourceline
                    if next(element.iterancestors("{*}" + doc_tag), None) is not None:
                        raise FormatError(path, f"a <{doc_tag}> document element inside another", line)
                    key = element.get("id")
                    if key is None:
                        key = element.get(_XML_ID)
                    if key is None:
                        key = str(ordinal)
                    if key in seen:
                        raise FormatError(path, f"document {key!r} appears twice in this file (first at line "
                                          f"{seen[key]})", line)
                    seen[key] = line
                    yield key, self._document(element)
                    # Free what is read: the element's content and the documents before it.
                    element.clear(keep_tail=True)
                    parent = element.getparent()
                    if parent is not None:
                        while element.getprevious() is not None:
                            del parent[0]
            except etree.XMLSyntaxError as error:
                raise self._syntax_error(error) from None
        if not ordinal:
            raise FormatError(path, f"no <{doc_tag}> element in it ({{doc_tag}})", doc_tag=parameter("xml_doc_tag", doc_tag))

    def _document(self, root) -> Document:
        """The document element's text and spans (ids are set by the caller)."""
        path = self.path
        options = self.options
        label_attr, span_tags = options.label_attr, options.span_tags
        parts: list[str] = []
        append = parts.append
        spans: list[Span | None] = []
        sources: list = [0, None]  # the last span's line and its Source
        position = 0
        trusted, at = Span.trusted, Source.at
        every, tags, holders = options.unset, self.tags, self.holders

        def walk(element) -> None:
            nonlocal position
            text = element.text
            if text:
                append(text)
                position += len(text)
            for child in element:
                tag = child.tag
                if type(tag) is str:
                    # Is it a span, and with which label?
                    if span_tags is not None:
                        local = tag if tag[0] != "{" else tag[tag.find("}") + 1:]
                        if local in span_tags:
                            if label_attr is None:
                                label = local
                            else:
                                label = child.get(label_attr)
                                if label is None:
                                    raise FormatError(path, f"<{local}> has no {label_attr} attribute for its "
                                                      "label ({label_attr})", child.sourceline,
                                                      label_attr=parameter("xml_label_attr", label_attr))
                        else:
                            label = None
                    elif label_attr is not None:
                        label = child.get(label_attr)
                    else:
                        label = tag if tag[0] != "{" else tag[tag.find("}") + 1:]
                    if label is None:
                        walk(child)
                    else:
                        if not label:
                            raise FormatError(path, f"<{_local(tag)}> has an empty {label_attr} attribute: a "
                                              "label cannot be empty", child.sourceline)
                        start = position
                        index = len(spans)
                        spans.append(None)
                        if len(child):
                            walk(child)
                            if every and len(spans) > index + 1:  # it holds other span elements
                                holders[label] += 1
                        else:  # a leaf (most spans): its text, without a call
                            text = child.text
                            if text:
                                append(text)
                                position += len(text)
                        if position > start:
                            line = child.sourceline
                            if line != sources[0]:  # spans of one line share their (immutable) source
                                sources[0], sources[1] = line, at(path, line)
                            spans[index] = trusted("", ((start, position),), label, sources[1])
                            if every:
                                tags[label] += 1
                        else:
                            self.empty += 1
                            if self.first_empty is None:
                                self.first_empty = (child.sourceline, _local(tag))
                elif tag is _ENTITY:
                    raise FormatError(path, f"entity reference {child.text} is not expanded: spanagree never "
                                      "expands entities declared in a DTD (write its text, or a character "
                                      "reference)", child.sourceline or element.sourceline)
                # Comments and processing instructions: their own text is not text; their tail is.
                tail = child.tail
                if tail:
                    append(tail)
                    position += len(tail)

        walk(root)
        del walk  # it calls itself: a reference cycle, and the collector is paused while reading
        if not self.entities_checked:  # after the text's own references, refused where they stand
            self.entities_checked = True
            entities = declared_entities(root)
            if entities:
                names = ", ".join(map(repr, entities[:5])) + (", ..." if len(entities) > 5 else "")
                raise FormatError(path, f"its DOCTYPE declares the entit{'ies' if len(entities) > 1 else 'y'} {names}, "
                                  "which spanagree never expands: not read (an attribute's value would hold "
                                  f"{'their' if len(entities) > 1 else 'its'} text; write the text instead)")
        kept = [span for span in spans if span is not None] if self.empty else spans
        return Document("", "".join(parts), kept, path)

    def _syntax_error(self, error: etree.XMLSyntaxError) -> FormatError:
        path = self.path
        message = _WHERE.sub("", " ".join(str(error.msg or error).split()))
        line, column = error.position if error.position else (error.lineno, None)
        if "encoding" in message.lower() or "utf-8" in message.lower():
            bad = _utf8_error(path)
            if bad is not None:
                return FormatError(path, bad[0], bad[1])
        where = f" (column {column})" if column else ""
        return FormatError(path, f"not well-formed XML: {message}{where}", line or None)


def _utf8_error(path: str) -> tuple[str, int] | None:
    """For a file meant to be UTF-8 (no other encoding declared): its first bad byte and line
    (``None`` for a pipe: its bytes cannot be read again)."""
    if is_pipe(path):
        return None
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError:
        return None
    declared = _DECLARED_ENCODING.match(data[:256])
    if declared is not None and declared.group(1).decode("ascii", "replace").lower().replace("_", "-") not in (
            "utf-8", "utf8"):
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        return f"not UTF-8 (byte 0x{data[error.start]:02x} at byte offset {error.start})", line
    return None


# -- writing -------------------------------------------------------------------------------------

@FORMAT.provides("writer")
def write_xml(spanset: SpanSet, dest, *, xml_label_attr: str | None = None,
              xml_span_tags: str | list[str] | None = None, xml_doc_tag: str | None = None) -> None:
    """Write a span set as one inline-XML file: ``<corpus>`` with a ``<doc id="...">`` per document.

    Parameters
    ----------
    spanset : SpanSet
        Every document needs its text; spans must be continuous and must not cross.
    dest : str or path
        The file to write (overwritten; the caller decides whether that is allowed).
    xml_label_attr : str, optional
        Write spans as generic elements with the label in this attribute (for labels that are not
        XML names).
    xml_span_tags : str or list of str, optional
        With ``xml_label_attr``: the first is the generic element's name (default ``span``).
        Without it: the labels allowed (a label outside them is refused).
    xml_doc_tag : str, optional
        The document element's name; default ``doc``.

    Raises
    ------
    UsageError
        Naming the document (and span): see the module documentation. Nothing is written then.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "out.xml"
    >>> s = SpanSet.from_spans("a", [Span("d1", (13, 32), "ORG"), Span("d1", (27, 32), "LOC"),
    ...                              Span("d1", (0, 3), "PER")], {"d1": "Ana & Bo\\r\\nof University of Porto"})
    >>> write_xml(s, f)
    >>> print(f.read_text(encoding="utf-8"), end="")
    <?xml version="1.0" encoding="UTF-8"?>
    <?spanagree xml_doc_tag="doc"?>
    <corpus>
    <doc id="d1"><PER>Ana</PER> &amp; Bo&#13;
    of <ORG>University of <LOC>Porto</LOC></ORG></doc>
    </corpus>
    >>> read_xml(f, xml_doc_tag="doc") == s == read_xml(f)  # the marker names xml_doc_tag
    True
    """
    write_documents(file_writer_xml(xml_label_attr, xml_span_tags, xml_doc_tag), spanset, dest)


@FORMAT.provides("file_writer")
def file_writer_xml(xml_label_attr: str | None = None, xml_span_tags: str | list[str] | None = None,
                    xml_doc_tag: str | None = None) -> FileWriter:
    """:func:`write_xml`'s file: the declaration, the marker and ``<corpus>``, a ``<doc>`` element
    per document, ``</corpus>`` (the options checked first)."""
    doc_tag = "doc" if xml_doc_tag is None else xml_doc_tag.strip()
    _check_name(doc_tag, "xml_doc_tag")
    if doc_tag == "corpus":
        raise UsageError("{option} cannot be 'corpus': the writer's root element is <corpus>", option="xml_doc_tag")
    tags = None
    if xml_span_tags is not None:
        names = xml_span_tags.split(",") if isinstance(xml_span_tags, str) else list(xml_span_tags)
        tags = [str(n).strip() for n in names if str(n).strip()]
        if not tags:
            raise UsageError("{option} needs at least one tag name (A,B,...)", option="xml_span_tags")
        for tag in tags:
            _check_name(tag, "xml_span_tags")
    if xml_label_attr is not None:
        attr = xml_label_attr.strip()
        _check_name(attr, "xml_label_attr")
        element = tags[0] if tags else "span"
        _check_name(element, "xml_span_tags")
        if element == doc_tag:
            raise UsageError(f"the span element <{element}> cannot also be the document element ({{option}})",
                             option="xml_doc_tag")
        writer = _DocumentWriter(doc_tag, element, attr, None)
    else:
        writer = _DocumentWriter(doc_tag, None, None, None if tags is None else frozenset(tags))
    # One document element at a time, each serialised as it is made (what serialising one
    # <corpus> holding them all writes). lxml's own declaration quotes with ' : this one is
    # written as before, with ".
    head = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            + _marker(doc_tag, xml_label_attr and xml_label_attr.strip(),
                      ([writer.element] if writer.element else tags)) + "\n<corpus>\n")

    def document_text(doc_id: str, document: Document) -> str:
        return etree.tostring(writer.document_element(doc_id, document), encoding="unicode")

    return FileWriter(head, document_text, "</corpus>\n")


def _marker(doc_tag: str, label_attr: str | None, span_tags: list[str] | None) -> str:
    """The ``<?spanagree ...?>`` processing instruction naming the options that read the file back."""
    options = f'xml_doc_tag="{doc_tag}"'
    if label_attr:
        options += f' xml_label_attr="{label_attr}"'
    if span_tags:
        options += f' xml_span_tags="{",".join(span_tags)}"'
    return f"<?{MARKER} {options}?>"


def _check_name(name: str, option: str) -> None:
    if not isinstance(name, str) or _NAME.fullmatch(name) is None:
        raise UsageError(f"{{option}} {name!r} is not an XML name (a letter or _, then letters, digits, "
                         "'-', '.' or '_'; no ':')", option=option)


class _DocumentWriter:
    """One ``<doc>`` element per document, built with lxml; spans as nested elements."""

    def __init__(self, doc_tag: str, element: str | None, attr: str | None, allowed: frozenset | None):
        self.doc_tag = doc_tag
        self.element = element
        self.attr = attr
        self.allowed = allowed
        self.checked: set[str] = set()

    def document_element(self, doc_id: str, document: Document) -> etree._Element:
        """The document's element, a line break after it; lxml escapes the text when writing it."""
        text = document.text
        if text is None:
            raise UsageError(f"document {doc_id!r} has no text; XML is written from texts")
        _check_characters(doc_id, "its id", doc_id)
        _check_characters(doc_id, "its text", text)
        n = len(text)
        root = etree.Element(self.doc_tag, id=doc_id)
        root.text = ""  # <doc id="..."></doc>, never <doc/>, for a document without text
        root.tail = "\n"
        # The open elements, outermost first: [span, element, its last child so far]; text goes at
        # the end of the innermost one's content (its text, or its last child's tail).
        stack: list[list] = [[None, root, None]]
        position = 0
        for span in sorted(document.spans, key=_nesting_order):
            if span.is_discontinuous:
                raise UsageError(f"document {doc_id!r}: span {_show(span, text)} is discontinuous; inline XML "
                                 "cannot write it")
            if span.end > n:
                raise UsageError(f"document {doc_id!r}: span {_show(span, text)} ends beyond its text "
                                 f"({n} characters)")
            start = span.start
            while len(stack) > 1 and stack[-1][0].end <= start:
                closed = stack[-1][0]
                _add_text(stack.pop(), text[position:closed.end])
                position = closed.end
            if len(stack) > 1 and stack[-1][0].end < span.end:
                raise UsageError(f"document {doc_id!r}: span {_show(span, text)} crosses "
                                 f"{_show(stack[-1][0], text)} (they overlap, neither inside the other); inline XML "
                                 "cannot write that")
            parent = stack[-1]
            _add_text(parent, text[position:start])
            self._check(doc_id, span.label)
            if self.attr is None:
                child = etree.SubElement(parent[1], span.label)
            else:
                child = etree.SubElement(parent[1], self.element, {self.attr: span.label})
            parent[2] = child
            position = start
            stack.append([span, child, None])
        while len(stack) > 1:
            closed = stack[-1][0]
            _add_text(stack.pop(), text[position:closed.end])
            position = closed.end
        _add_text(stack[0], text[position:])
        return root

    def _check(self, doc_id: str, label: str) -> None:
        """Refuse a label that cannot be written, or would not be read back (once per label)."""
        if label in self.checked:
            return
        if self.attr is not None:
            _check_characters(doc_id, "a label", label)
        else:
            if _NAME.fullmatch(label) is None:
                raise UsageError(f"document {doc_id!r}: label {label!r} is not an XML name, so it cannot be an "
                                 "element; give {option} (e.g. {example}) to write labels as an attribute",
                                 option="xml_label_attr", example=parameter("xml_label_attr", "label"))
            if label == self.doc_tag:
                raise UsageError(f"document {doc_id!r}: label {label!r} is the document element's name; give "
                                 "another {doc_tag}, or {option}", option="xml_label_attr", doc_tag="xml_doc_tag")
            if self.allowed is not None and label not in self.allowed:
                raise UsageError(f"document {doc_id!r}: label {label!r} is not among {{tags}}, so it would not be read "
                                 "back", tags=parameter("xml_span_tags", ",".join(sorted(self.allowed))))
        self.checked.add(label)


def _add_text(entry: list, text: str) -> None:
    """Append text at the end of an open element's content (``entry``: span, element, last child):
    the element's text, or its last child's tail."""
    if text:
        _, element, last = entry
        if last is None:
            element.text = element.text + text if element.text else text
        else:
            last.tail = last.tail + text if last.tail else text


def _nesting_order(span: Span) -> tuple:
    """Outer spans first: start, then longest, then label (the outermost of equal extents first)."""
    return (span.start, -span.end, span.label)


def _check_characters(doc_id: str, what: str, value: str) -> None:
    bad = _ILLEGAL.search(value)
    if bad is not None:
        raise UsageError(f"document {doc_id!r}: {what} holds U+{ord(bad.group()):04X} at offset {bad.start()}, a "
                         "character XML 1.0 cannot hold")


def _show(span: Span, text: str) -> str:
    covered = span.text(text)
    if len(covered) > 40:
        covered = covered[:37] + "..."
    return f"{span.label} {';'.join(f'{s} {e}' for s, e in span.fragments)} {covered!r}"
