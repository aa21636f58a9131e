"""UIMA CAS XMI: what INCEpTION, WebAnno, DKPro Core and other UIMA tools write, read with dkpro-cassis.

Reading
-------
An XMI file holds one CAS: one document (the text of a *view*'s sofa) and its feature
structures, which a **type system** (``TypeSystem.xml``) describes. spanagree reads one
annotation type as spans:

* **Type system.** ``--xmi-typesystem PATH`` (several files separated by commas are merged),
  else the ``TypeSystem.xml`` (any case: ``typesystem.xml``) next to the XMI file, else the one
  at the top of the folder being read. None: an error naming the file.
* **Spans** are the annotations of the type ``--xmi-type`` (default DKPro's
  ``de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity``, INCEpTION's *Named entity* layer;
  a short name such as ``NamedEntity`` is resolved by cassis when it is unique; subtypes count),
  labelled by their feature ``--xmi-feature`` (default ``value``). An annotation whose feature
  is unset or empty gets the type's short name as its label (``NamedEntity``), so that it still
  counts as a span; how many did is said in the notes.
* **Offsets.** UIMA's ``begin``/``end`` count Java's UTF-16 units; cassis maps them to code points
  (an emoji counts 2 in the file, 1 in spanagree). An offset inside a character (between the two
  halves of a surrogate pair) is an error.
* **Views.** A CAS may hold several views (sofas); the ``_InitialView`` is read, or the one named
  by ``--xmi-view``.
* **Zero-length annotations** (``begin`` = ``end``) cannot be spans: left out and counted in the
  notes.
* **Ids.** A single file holds one document, id ``1`` (as a one-document CoNLL or GATE file), so
  that two annotators' XMI files of the same document line up (``merge user1.xmi user2.xmi``).
  In a folder every ``.xmi`` file is a document, named by its path relative to the folder without
  ``.xmi`` (``sub/doc3``).
* **Safety.** XMI never needs a DTD: every file (and type system) is parsed first as every XML
  reader parses (:mod:`spanagree.formats.safexml`: no DTD loaded, no entity resolved, no network),
  and one holding a DOCTYPE — whatever its encoding or the length of its prolog — is refused
  before cassis sees it, so no entity is expanded (billion laughs) and nothing external is
  fetched; cassis then parses the checked root element alone (comments and processing
  instructions before it are skipped). A type system whose supertypes make a chain deeper than
  :data:`MAX_TYPE_DEPTH` (100), or a cycle, is refused before cassis sorts its types. A file
  beyond ``max_record_bytes``, not well-formed XML, not a CAS, with a feature structure the type
  system does not describe, or a missing view or type is one
  :class:`~spanagree.errors.FormatError` naming the file.

* **Features and relations** (INCEpTION's layers, :mod:`spanagree.formats.layers`): the type's
  other features are the spans' attributes (primitive values as strings, booleans
  ``true``/``false``; arrays and a slot feature's link roles joined by ``|``); the annotations of
  the types with ``Governor`` and ``Dependent`` features on the type read (INCEpTION's relation
  layers) are the document's relations, typed by their ``value`` feature (else their first string
  feature; unset: the type's short name). A relation with an end that is no span read is left out
  (counted in the notes); one without an end is an error.

:func:`xmi_document` reads one XMI held in memory (an INCEpTION project's per-user zip,
:mod:`spanagree.formats.inception`).

Writing
-------
:func:`write_xmi` writes a folder of ``<id>.xmi`` files and their ``TypeSystem.xml``: the spans as
annotations of one type (``xmi_type``), their labels and attributes in string features, their
binary relations as ``webanno.custom.Relation`` annotations.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import FormatError, parameter
from ..span import Document, Relation, Source, Span
from .files import open_bytes
from . import (MAX_RECORD_BYTES, DocumentStream, FolderListing, collect, document_files, listed_documents,
               natural_key, read_bounded, read_document_file, read_regular)
from .registry import FORMATS
from .safexml import root_without_doctype

#: This module's registry entry, on which it registers its functions.
FORMAT = FORMATS["xmi"]

__all__ = ["DEFAULT_FEATURE", "DEFAULT_TYPE", "DEFAULT_VIEW", "MAX_TYPE_DEPTH", "XmiReading", "list_xmi",
           "load_typesystem", "read_xmi", "recognise_xmi", "stream_xmi", "write_xmi", "xmi_document"]

#: DKPro Core's named entity, INCEpTION's built-in *Named entity* layer.
DEFAULT_TYPE = "de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity"
#: Its label feature.
DEFAULT_FEATURE = "value"
#: The view UIMA creates first, where INCEpTION keeps the document.
DEFAULT_VIEW = "_InitialView"

#: The deepest chain of supertypes a type system may hold (DKPro Core's deepest is 4): cassis'
#: work grows with the square of the depth (a chain of 20,000 took over a minute).
MAX_TYPE_DEPTH = 100


@FORMAT.provides("recogniser")
def recognise_xmi(path: Path, head: bytes | None) -> bool:
    """A folder holding ``.xmi`` files (at any depth), whose ``TypeSystem.xml`` files would otherwise
    make it inline XML; files go by their extension. (An INCEpTION project folder, which holds
    them too, is recognised first: containers are.)"""
    if head is not None:
        return False
    try:
        return any(name.lower().endswith(".xmi") for _, _, files in os.walk(path) for name in files)
    except OSError:
        return False


def _is_typesystem(name: str) -> bool:
    return name.lower() == "typesystem.xml"


@dataclass
class XmiReading:
    """What reading XMI documents counts for the notes: annotations left out or labelled by default."""

    type_name: str = DEFAULT_TYPE
    feature: str = DEFAULT_FEATURE
    view: str = DEFAULT_VIEW
    points: int = 0
    unlabelled: int = 0
    unread_relations: int = 0
    typesystems: dict = field(default_factory=dict)

    def notes(self) -> list[str]:
        notes = []
        if self.points:
            notes.append(f"{self.points} zero-length XMI annotation(s) left out (a span covers at least one character)")
        if self.unlabelled:
            short = self.type_name.rpartition(".")[2]
            notes.append(f"{self.unlabelled} XMI annotation(s) without a {self.feature!r} labelled {short!r}")
        if self.unread_relations:
            notes.append(f"{self.unread_relations} XMI relation(s) with an end not read (zero-length, or of another "
                         "type) left out")
        return notes


def _checked_root(data: bytes, path: str, kind: str, never: str):
    """``data`` parsed safely (:mod:`spanagree.formats.safexml`): its root, a DOCTYPE refused (``never``
    says who never uses one), a syntax error one line naming ``path`` as not a readable ``kind``."""
    from lxml import etree

    try:
        return root_without_doctype(data, path, never)
    except etree.XMLSyntaxError as error:
        raise FormatError(path, f"not a readable {kind}: {_message(error.msg or error)}", error.lineno or None) \
            from None
    except FormatError:
        raise
    except ValueError as error:
        raise FormatError(path, f"not a readable {kind}: {_message(error)}") from None


def _root_bytes(root) -> bytes:
    """The root element alone, as UTF-8, for cassis to parse: what was checked, without the prolog
    (its comments and processing instructions, which cassis' parsing cannot step over)."""
    from lxml import etree

    return etree.tostring(root, encoding="UTF-8")


def _check_depth(root, path: str) -> None:
    """Refuse a type system whose supertype chains are deeper than :data:`MAX_TYPE_DEPTH` (or make a
    cycle): cassis' work grows with the square of the depth."""
    supertypes = {}
    for description in root.iter("{*}typeDescription"):
        name = next((e.text for e in description if isinstance(e.tag, str) and _local(e.tag) == "name"), None)
        parent = next((e.text for e in description if isinstance(e.tag, str) and _local(e.tag) == "supertypeName"),
                      None)
        if name and parent:
            supertypes[name.strip()] = parent.strip()
    depths: dict[str, int] = {}
    for name in supertypes:
        chain, on_chain, current = [], set(), name
        while current in supertypes and current not in depths:
            if current in on_chain:
                raise FormatError(path, f"the supertypes of {current!r} make a cycle")
            on_chain.add(current)
            chain.append(current)
            current = supertypes[current]
        depth = depths.get(current, 0)
        for type_name in reversed(chain):
            depth += 1
            depths[type_name] = depth
    deepest = max(depths, key=depths.get, default=None)
    if deepest is not None and depths[deepest] > MAX_TYPE_DEPTH:
        raise FormatError(path, f"a chain of supertypes {depths[deepest]:,} types deep (at most {MAX_TYPE_DEPTH:,}): "
                          f"{deepest!r} is below {supertypes[deepest]!r}")


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def load_typesystem(paths, limit: int = MAX_RECORD_BYTES, data: bytes | None = None, where: str | None = None):
    """A cassis type system from one or more files (merged), or from ``data`` (named ``where``).

    Raises
    ------
    FormatError
        A missing, unreadable, too large, DTD-holding or malformed type system, naming the file.
    """
    import cassis

    sources = [(where or "TypeSystem.xml", data)] if data is not None else [(str(p), None) for p in paths]
    systems = []
    for path, content in sources:
        if content is None:
            try:
                with open_bytes(path) as handle:
                    content = read_bounded(handle, path, limit, "the type system")
            except FileNotFoundError:
                raise FormatError(path, "no such type system file") from None
            except IsADirectoryError:
                raise FormatError(path, "is a folder, not a type system file") from None
            except OSError as error:
                raise FormatError(path, f"cannot read: {error.strerror or error}") from None
        root = _checked_root(content, path, "UIMA type system", "UIMA type systems never use")
        _check_depth(root, path)
        try:
            from io import BytesIO

            systems.append(cassis.load_typesystem(BytesIO(_root_bytes(root))))
        except Exception as error:  # lxml's syntax errors, cassis' ValueErrors and KeyErrors
            raise FormatError(path, f"not a readable UIMA type system: {_message(error)}") from None
    if len(systems) == 1:
        return systems[0]
    try:
        return cassis.merge_typesystems(*systems)
    except Exception as error:
        raise FormatError(sources[0][0], f"type systems cannot be merged: {_message(error)}") from None


def _message(error) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= 300 else text[:297] + "..."


def xmi_document(data: bytes, typesystem, source: str, doc_id: str, reading: XmiReading) -> Document:
    """One XMI file's document (``data``, named ``source`` in messages) with the spans of
    ``reading.type_name``, using the cassis ``typesystem``; counts notes into ``reading``.

    Raises
    ------
    FormatError
        Naming ``source``: not XMI, a missing view or type, an offset inside a character.
    """
    import cassis
    from io import BytesIO

    checked = _root_bytes(_checked_root(data, source, "UIMA CAS XMI", "UIMA XMI never uses"))
    try:
        with warnings.catch_warnings():  # cassis warns of each type the type system lacks: not ours to read
            warnings.simplefilter("ignore")
            cas = cassis.load_cas_from_xmi(BytesIO(checked), typesystem=typesystem, lenient=True)
    except Exception as error:  # lxml.etree.XMLSyntaxError, cassis' ValueError/KeyError/TypeError on bad input
        line = getattr(error, "lineno", None)
        message = _message(getattr(error, "msg", None) or error)
        raise FormatError(source, f"not a readable UIMA CAS XMI: {message}", line or None) from None
    try:
        view = cas.get_view(reading.view)
    except Exception:
        names = ", ".join(v.sofa.sofaID for v in cas.views) or "none"
        raise FormatError(source, f"no view {reading.view!r} (it has: {names}); choose one with {{option}}",
                          option="xmi_view") from None
    try:
        kind = typesystem.get_type(reading.type_name)
    except Exception as error:
        raise FormatError(source, f"the type system has no type {reading.type_name!r} ({_message(error)}); "
                          "choose one with {option}", option="xmi_type") from None
    if not typesystem.subsumes("uima.tcas.Annotation", kind):
        raise FormatError(source, f"type {kind.name!r} is not an annotation (no begin and end)")
    if kind.get_feature(reading.feature) is None:
        raise FormatError(source, f"type {kind.name!r} has no feature {reading.feature!r}; choose one with "
                          "{option}", option="xmi_feature")
    text = view.sofa_string
    if text is None:
        raise FormatError(source, f"view {reading.view!r} holds no text (sofaString)")
    short = kind.name.rpartition(".")[2]
    spans, read_spans = [], {}
    try:
        annotations = view.select(kind)
    except Exception as error:
        raise FormatError(source, f"cannot select {kind.name!r}: {_message(error)}") from None
    for annotation in annotations:
        start, end = annotation.begin, annotation.end
        if not (isinstance(start, int) and isinstance(end, int)) or not 0 <= start <= end <= len(text):
            raise FormatError(source, f"a {short} at {start}-{end} lies outside the text ({len(text)} characters)")
        if start == end:
            reading.points += 1
            continue
        value = annotation.get(reading.feature)
        if value is None or (isinstance(value, str) and not value.strip()):
            reading.unlabelled += 1
            label = short
        elif isinstance(value, bool):
            label = str(value).lower()
        elif isinstance(value, (str, int, float)):
            label = str(value).strip()
        else:
            raise FormatError(source, f"feature {reading.feature!r} of {short} is not a primitive value; choose a "
                              "string feature with {option}", option="xmi_feature")
        span = Span(doc_id, ((start, end),), label, source=Source(source), attributes=_attributes(annotation, reading))
        spans.append(span)
        read_spans[annotation.xmiID] = span
    spans.sort(key=lambda s: (s.fragments, s.label))
    relations = _relations(view, typesystem, kind, read_spans, source, reading)
    return Document(doc_id, text, spans, source, relations=relations)


_NOT_ATTRIBUTES = frozenset({"sofa", "begin", "end"})


def _attributes(annotation, reading: XmiReading) -> tuple:
    """An annotation's features besides the label as ``(name, value)`` pairs, in the type's order:
    primitive values as strings (booleans ``true``/``false``), arrays and lists of them (a slot
    feature's links: their roles) joined by ``|``; unset and empty values left out."""
    attributes = []
    for feature in annotation.type.all_features:
        name = feature.name
        if name in _NOT_ATTRIBUTES or name == reading.feature:
            continue
        value = _text(annotation.get(name))
        if value:
            attributes.append((name, value))
    return tuple(attributes)


def _text(value) -> str | None:
    """A feature's value as an attribute's: ``None`` for what is no primitive value nor a collection of them."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return str(value)
    elements = getattr(value, "elements", None)
    if isinstance(elements, (list, tuple)):
        items = []
        for element in elements:
            if element is not None and not isinstance(element, (str, bool, int, float)):
                role = getattr(element, "role", None) if element.type.get_feature("role") is not None else None
                element = role if isinstance(role, str) else None  # a slot feature's link: its role
            item = _text(element)
            if item is not None:
                items.append(item)
        return "|".join(items) or None
    return None


def _relations(view, typesystem, kind, read_spans: dict, source: str, reading: XmiReading) -> list:
    """The relations between the spans read: annotations of the types with a ``Governor`` and a
    ``Dependent`` feature whose range is the type read, a type above it or below it (INCEpTION's
    relation layers, DKPro's ``Dependency`` between ``Token``\\ s)."""
    from .layers import DEPENDENT, GOVERNOR, RELATION_FEATURE, ROLE_FEATURES, roles

    relations, seen = [], set()
    for relation_type in typesystem.get_types():
        ends = [relation_type.get_feature(name) for name in (GOVERNOR, DEPENDENT)]
        if None in ends or not all(typesystem.subsumes(end.rangeType, kind) or typesystem.subsumes(kind, end.rangeType)
                                   for end in ends):
            continue
        names = [f.name for f in relation_type.all_features if f.rangeType.name == "uima.cas.String"
                 and f.name not in ROLE_FEATURES]
        label = RELATION_FEATURE if RELATION_FEATURE in names else (names[0] if names else None)
        short = relation_type.name.rpartition(".")[2]
        for annotation in view.select(relation_type):
            if annotation.xmiID in seen:
                continue
            seen.add(annotation.xmiID)
            spans = []
            for end in (GOVERNOR, DEPENDENT):
                target = annotation.get(end)
                if target is None:
                    raise FormatError(source, f"a {short} relation (xmi:id {annotation.xmiID}) has no {end}")
                spans.append(read_spans.get(getattr(target, "xmiID", None)))
            if None in spans:  # an end not read: zero-length, or of another type
                reading.unread_relations += 1
                continue
            value = annotation.get(label) if label is not None else None
            found = [annotation.get(name) if relation_type.get_feature(name) is not None else None
                     for name in ROLE_FEATURES]
            governor, dependent = roles(*(role if isinstance(role, str) else None for role in found))
            relation_label = value.strip() if isinstance(value, str) and value.strip() else short
            relations.append(Relation(relation_label, ((governor, spans[0]), (dependent, spans[1])),
                                      source=Source(source)))
    return relations


def _scan(top: str) -> list[tuple[str, str]]:
    """A folder's ``.xmi`` files as ``(id, path)`` in natural order (``doc2`` before ``doc10``): the
    relative path without ``.xmi``."""
    found = []
    for folder, dirs, files in os.walk(top):
        dirs.sort()
        for name in files:
            if name.lower().endswith(".xmi"):
                path = os.path.join(folder, name)
                found.append((Path(os.path.relpath(path, top)).with_suffix("").as_posix(), path))
    found.sort(key=lambda entry: natural_key(entry[0]))
    return found


def _typesystem_file(file: str, top: str) -> str | None:
    for folder in dict.fromkeys((os.path.dirname(file) or ".", top)):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            if _is_typesystem(name) and os.path.isfile(os.path.join(folder, name)):
                return os.path.join(folder, name)
    return None


class XmiFolder(FolderListing):
    """XMI files listed but not read (:class:`~spanagree.formats.FolderListing`): a unit is a file,
    its key the document's id (the path relative to the folder without ``.xmi``). Each reader of
    a shard loads the type systems it needs (the one given, or those found beside the files).

    Attributes
    ----------
    units : dict of str to (str, bool)
        Document id → (the file, whether it was found in a folder), in natural order of the ids.
    """

    format = "xmi"

    def __init__(self, name: str, path: str, typesystem: str | None, type_name: str | None, feature: str | None,
                 view: str | None, limit: int = MAX_RECORD_BYTES):
        super().__init__(name, {doc_id: (file, in_folder) for doc_id, file, in_folder in document_files(path, _scan)})
        self.top = path if os.path.isdir(path) else (os.path.dirname(path) or ".")
        self.typesystem = typesystem
        self.reading = (type_name or DEFAULT_TYPE, feature or DEFAULT_FEATURE, view or DEFAULT_VIEW)
        self.limit = limit

    def new_counts(self) -> dict[str, int]:
        return {"points": 0, "unlabelled": 0, "unread_relations": 0}

    def documents(self, keys, counts: dict[str, int]):
        units, top, limit = self.units, self.top, self.limit
        reading = XmiReading(*self.reading)
        given = None
        if self.typesystem:
            given = load_typesystem([p.strip() for p in str(self.typesystem).split(",") if p.strip()], limit)
        for doc_id in keys:
            if doc_id not in units:
                continue
            file, in_folder = units[doc_id]
            typesystem = given
            if typesystem is None:
                found = _typesystem_file(file, top)
                if found is None:
                    raise FormatError(file, "no type system: put the TypeSystem.xml the tool exported next to it, "
                                      "or give {typesystem}", typesystem=parameter("xmi_typesystem", "PATH",
                                                                                   command_line_value="PATH"))
                typesystem = reading.typesystems.get(found)
                if typesystem is None:
                    data = read_regular(found, "type systems found beside XMI files", limit)  # never a FIFO
                    typesystem = reading.typesystems[found] = load_typesystem((), limit, data, found)
            data = read_document_file(file, in_folder, limit, "a folder's .xmi files")
            yield xmi_document(data, typesystem, file, doc_id, reading)
        counts["points"] += reading.points
        counts["unlabelled"] += reading.unlabelled
        counts["unread_relations"] += reading.unread_relations

    def finish(self, counts: dict[str, int]) -> tuple[list[str], list[str]]:
        return XmiReading(*self.reading, points=counts["points"], unlabelled=counts["unlabelled"],
                          unread_relations=counts.get("unread_relations", 0)).notes(), []


@FORMAT.provides("lister")
def list_xmi(path, *, name: str | None = None, xmi_typesystem: str | None = None, xmi_type: str | None = None,
             xmi_feature: str | None = None, xmi_view: str | None = None,
             max_record_bytes: int = MAX_RECORD_BYTES) -> XmiFolder:
    """A folder's XMI files (listed, nothing read), as :func:`stream_xmi` reads them.

    Raises
    ------
    FormatError
        Not a folder.
    """
    from . import default_name

    path = str(path)
    if not os.path.isdir(path):
        raise FormatError(path, "not a folder")
    return XmiFolder(name or default_name(path), path, xmi_typesystem, xmi_type, xmi_feature, xmi_view,
                     max_record_bytes)


@FORMAT.provides("streamer")
def stream_xmi(path, *, name: str | None = None, xmi_typesystem: str | None = None, xmi_type: str | None = None,
               xmi_feature: str | None = None, xmi_view: str | None = None,
               max_record_bytes: int = MAX_RECORD_BYTES) -> DocumentStream:
    """The documents of an ``.xmi`` file (one document, id ``1``) or a folder of them."""
    from . import default_name

    path = str(path)
    stream = DocumentStream(name or default_name(path), "xmi", iter(()))
    listing = XmiFolder(stream.name, path, xmi_typesystem, xmi_type, xmi_feature, xmi_view, max_record_bytes)
    stream.documents = listed_documents(listing, stream.notes)
    return stream


def read_xmi(path, *, name: str | None = None, xmi_typesystem: str | None = None, xmi_type: str | None = None,
             xmi_feature: str | None = None, xmi_view: str | None = None, max_record_bytes: int = MAX_RECORD_BYTES):
    """:func:`stream_xmi` collected."""
    return collect(stream_xmi(path, name=name, xmi_typesystem=xmi_typesystem, xmi_type=xmi_type,
                              xmi_feature=xmi_feature, xmi_view=xmi_view, max_record_bytes=max_record_bytes))


# ---------------------------------------------------------------------------------------------
# Writing

#: The type system file the writer writes at the top of its folder.
TYPESYSTEM_FILE = "TypeSystem.xml"


def _full_type_name(name: str | None) -> str:
    if not name or name == "NamedEntity":
        return DEFAULT_TYPE
    return name if "." in name else "webanno.custom." + name


@FORMAT.provides("writer")
def write_xmi(spanset, dest, *, xmi_type: str | None = None, xmi_feature: str | None = None) -> None:
    """Write a span set as a folder of UIMA CAS XMI files, ``<id>.xmi`` per document (its text the
    sofa of the view ``_InitialView``), and the ``TypeSystem.xml`` they share at its top, as
    INCEpTION's layers: each span an annotation of the type ``xmi_type`` (default DKPro's
    ``NamedEntity``; a name without a dot is ``webanno.custom.<name>``) with its label in the
    string feature ``xmi_feature`` (default ``value``) and its attributes in string features of
    their names; the relations of two arguments as ``webanno.custom.Relation`` annotations
    (:mod:`spanagree.formats.layers`). Offsets are written in UTF-16 units.

    Raises
    ------
    UsageError
        Before anything is written: a document without text, a discontinuous span, a span beyond
        its text, an id that cannot be a file path, a type or feature name UIMA cannot hold (or
        one of UIMA's own ``uima.*`` types), an attribute named as the label feature.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from spanagree.span import Relation, Span, SpanSet
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "out"
    >>> ana, porto = Span("d1", 0, 3, "PER", attributes=(("kb_id", "Q1"),)), Span("d1", 9, 14, "LOC")
    >>> s = SpanSet.from_spans("ana", [ana, porto], {"d1": "Ana 😊 in Porto"})
    >>> s.documents["d1"].relations.append(Relation("lives_in", (("Arg1", ana), ("Arg2", porto))))
    >>> write_xmi(s, out)
    >>> sorted(p.name for p in out.iterdir())
    ['TypeSystem.xml', 'd1.xmi']
    >>> again = read_xmi(out)
    >>> again == s, again.documents["d1"].spans[0].attributes
    (True, (('kb_id', 'Q1'),))
    >>> [(r.type, [(role, span.label) for role, span in r.arguments]) for r in again.documents["d1"].relations]
    [('lives_in', [('Arg1', 'PER'), ('Arg2', 'LOC')])]
    """
    import cassis

    from ..errors import UsageError
    from .files import check_file_path
    from .layers import (DEPENDENT, GOVERNOR, RELATION_FEATURE, RELATION_LAYER, ROLE_FEATURES, feature_names,
                         is_feature_name, needs_roles, written_attributes, written_relations)

    type_name, feature = _full_type_name(xmi_type), xmi_feature or DEFAULT_FEATURE
    if (not all(part.isidentifier() for part in type_name.split(".")) or type_name == RELATION_LAYER
            or type_name.startswith("uima.")):
        raise UsageError(f"{type_name!r} cannot be the UIMA type written (dot-separated names, none of UIMA's own "
                         f"uima.* types, not {RELATION_LAYER}); choose another with {{option}}", option="xmi_type")
    if not is_feature_name(feature):
        raise UsageError(f"{feature!r} cannot be a UIMA feature's name; choose another with {{option}}",
                         option="xmi_feature")
    documents = dict(spanset.documents.items())  # each made once (a merge's gold is made as it is looked at)
    features = feature_names(documents.values())
    if feature in features:
        raise UsageError(f"a span attribute is named {feature!r}, as the label feature; choose another label "
                         "feature with {option}", option="xmi_feature")
    relations = {doc_id: written_relations(document) for doc_id, document in documents.items()}
    files = []
    for doc_id, document in documents.items():
        check_file_path(doc_id, ".xmi", "XMI")
        if document.text is None:
            raise UsageError(f"document {doc_id!r} has no text; XMI is written from texts")
        for span in document.spans:
            if len(span.fragments) > 1:
                raise UsageError(f"document {doc_id!r}: span {span.fragments} {span.label} is discontinuous; a UIMA "
                                 "annotation is one range")
            if span.end > len(document.text):
                raise UsageError(f"document {doc_id!r}: span {span.fragments} {span.label} ends beyond its text "
                                 f"({len(document.text)} characters)")
        files.append(doc_id)
    typesystem = cassis.TypeSystem()
    span_type = typesystem.create_type(type_name, supertypeName="uima.tcas.Annotation")
    for name in (feature, *features):
        typesystem.create_feature(span_type, name, "uima.cas.String")
    relation_type = None
    if any(relations.values()):
        relation_type = typesystem.create_type(RELATION_LAYER, supertypeName="uima.tcas.Annotation")
        typesystem.create_feature(relation_type, GOVERNOR, type_name)
        typesystem.create_feature(relation_type, DEPENDENT, type_name)
        typesystem.create_feature(relation_type, RELATION_FEATURE, "uima.cas.String")
        if any(needs_roles(found) for found in relations.values()):
            for name in ROLE_FEATURES:
                typesystem.create_feature(relation_type, name, "uima.cas.String")
    contents = []
    for doc_id in files:
        document = documents[doc_id]
        cas = cassis.Cas(typesystem=typesystem)
        cas.sofa_string = document.text
        annotations = []
        for span in document.spans:
            values = {feature: span.label, **dict(written_attributes(span))}
            annotations.append(span_type(begin=span.start, end=span.end, **values))
        cas.add_all(annotations)
        for relation, governor, dependent in relations[doc_id]:
            values = {RELATION_FEATURE: relation.type}
            (governor_role, _), (dependent_role, _) = relation.arguments
            if relation_type.get_feature(ROLE_FEATURES[0]) is not None and (governor_role, dependent_role) != (
                    GOVERNOR, DEPENDENT):
                values.update(zip(ROLE_FEATURES, (governor_role, dependent_role)))
            target = annotations[dependent]
            cas.add(relation_type(begin=target.begin, end=target.end, Governor=annotations[governor],
                                  Dependent=target, **values))
        try:
            contents.append((doc_id, cas.to_xmi().encode("utf-8")))
        except (UnicodeEncodeError, ValueError) as error:
            raise UsageError(f"document {doc_id!r}: XMI cannot hold its text or a label ({_message(error)})") from None
    dest = os.fspath(dest)
    os.makedirs(dest, exist_ok=True)
    with open(os.path.join(dest, TYPESYSTEM_FILE), "w", encoding="utf-8") as file:
        file.write(typesystem.to_xml())
    for doc_id, data in contents:
        path = os.path.join(dest, *doc_id.split("/")) + ".xmi"
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as file:
            file.write(data)
