"""GATE XML: GATE's own serialisation of a document, a container of annotation sets.

Reading
-------
A GATE XML file (root ``<GateDocument>``, what GATE Developer's "Save as XML…" and
``gate.corpora.DocumentStaxUtils`` write) holds one document::

    <GateDocument version="3">
    <GateDocumentFeatures>…</GateDocumentFeatures>
    <TextWithNodes><Node id="0"/>Ana<Node id="3"/> met Bo.</TextWithNodes>
    <AnnotationSet Name="ann1">
      <Annotation Id="1" Type="PER" StartNode="0" EndNode="3">
        <Feature><Name className="java.lang.String">kind</Name><Value className="java.lang.String">x</Value></Feature>
      </Annotation>
    </AnnotationSet>
    </GateDocument>

* **Text and offsets.** The text is ``<TextWithNodes>``'s character data; each ``<Node id="N"/>``
  marks a point of it, and an annotation's ``StartNode``/``EndNode`` name two of these points.
  The offset of a node is where it stands in the text, in code points, so that GATE's own
  offsets (Java's UTF-16 units, equal to the node ids) never have to be converted. An
  annotation naming a node that is not in the text is an error.
* **Annotators** are the annotation sets (a container: one path, several span sets). Every
  *named* set that holds at least one span (in any file of a folder) is an annotator, named by
  the set's ``Name`` (role ``"annotator"``). The default set (``<AnnotationSet>`` without a
  name), called ``default``, and ``Original markups`` (the markup GATE found in the source file)
  are kept beside them (role ``"other"``): they join a command only when named
  (``--annotators default,ann1``). A set present in a file but empty is that annotator's empty
  document; a set absent from a file means the annotator did not annotate it.
* **Labels** are the annotations' ``Type`` (``--only`` picks types), or with
  ``gate_label_feature=F`` the value of the feature ``F`` (annotations without it are left out
  and counted in the notes).
* **Zero-length annotations** (``StartNode`` = ``EndNode``: GATE's points) cannot be spans: left
  out and counted in the notes.
* **Ids.** A single file holds one document, id ``1`` (as a one-document CoNLL or XML file), so
  that two GATE files of the same document line up. In a folder every ``.xml`` file is a
  document, named by its path relative to the folder without ``.xml`` (``sub/doc3``).
* **Safety and errors** as every XML reader (:mod:`spanagree.formats.safexml`): lxml without DTD,
  network or entity expansion; GATE never writes a DOCTYPE, so a file holding one (whatever its
  encoding or prolog) is recognised as GATE and refused, and no entity it declares is ever
  expanded or dropped from the text; a file beyond ``max_record_bytes`` or not well formed, a missing
  ``TextWithNodes``, an annotation without ``Type``/``StartNode``/``EndNode``, a start after its
  end, or a node that is not in the text is one :class:`~spanagree.errors.FormatError` naming the
  file (and line).
* **Reading a folder.** The sets are found first by a scan of every file (checked as reading
  checks it, so every error is met then; no text or features kept), in shards over the
  ``--jobs`` processes when there are enough files, or over a Dask cluster's workers
  (``--scheduler``: a few tasks of many files each); then the sets' streams share each file's
  parse (:class:`_Parses`). Each stream of a folder carries its set's :class:`GateFolder`
  listing (:attr:`~spanagree.formats.DocumentStream.listing`): ``--jobs`` workers and Dask
  tasks read their own shard of the files, as for any folder of document files.

GATE XML is read, not written.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from ..errors import FormatError
from ..span import Document, Source, Span
from . import (MAX_RECORD_BYTES, DocumentStream, FolderListing, chosen_stream, collect, document_files, listed_documents,
               natural_key, read_document_file)
from .detection import HEAD_BYTES
from .registry import FORMATS
from .safexml import root_tag, root_tag_in, root_without_doctype

#: This module's registry entry, on which it registers its functions.
FORMAT = FORMATS["gate"]

__all__ = ["GateFolder", "annotators_gate", "list_gate", "read_gate", "recognise_gate", "stream_gate"]

#: How far into a file its root element is looked for, to recognise GATE XML.
PROLOG_BYTES = 1 << 20

#: What the default (unnamed) annotation set is called.
DEFAULT_SET = "default"
#: The set GATE fills with the source file's own markup.
ORIGINAL_MARKUPS = "Original markups"



@FORMAT.provides("recogniser")
def recognise_gate(path: Path, head: bytes | None) -> bool:
    """A file whose root element is ``GateDocument`` (told by parsing its start: past a declaration,
    comments or a DOCTYPE, in its encoding, within its first :data:`PROLOG_BYTES`), or a folder
    whose first ``.xml`` file is one."""
    if head is not None:
        tag = root_tag(head)
        if tag is None and len(head) == HEAD_BYTES:  # a long prolog: read on (a regular file only:
            try:                                     # a pipe's bytes are the reader's, never read twice)
                if not stat.S_ISREG(os.stat(path).st_mode):
                    return False
                with open(path, "rb") as file:
                    tag = root_tag_in(file, PROLOG_BYTES)
            except OSError:
                return False
        return tag == "GateDocument"
    try:
        for folder, subfolders, files in os.walk(path):  # stops at the first .xml file
            subfolders.sort(key=natural_key)
            first = min((f for f in files if f.endswith(".xml")), key=natural_key, default=None)
            if first is not None:
                candidate = os.path.join(folder, first)
                if not stat.S_ISREG(os.stat(candidate).st_mode):  # a FIFO is never read ahead
                    return False
                with open(candidate, "rb") as file:
                    return root_tag_in(file, PROLOG_BYTES) == "GateDocument"
    except OSError:
        return False
    return False


@dataclass
class _Parsed:
    """One file: its text and, per set name, its annotations as ``(type, start, end, features, line)``
    (a scan's, :func:`_parse` with ``full=False``: no text, no features)."""

    text: str
    sets: dict[str, list[tuple]] = field(default_factory=dict)


def _files(path: str) -> list[tuple[str, str, bool]]:
    """``(document id, file, in a folder)`` for a GATE file or folder."""
    from .xml import xml_files  # a folder's .xml files as sorted (id, path)

    return document_files(path, xml_files)


def _parse(file: str, in_folder: bool, limit: int, full: bool = True) -> _Parsed:
    """A file parsed and checked; ``full=False`` (a scan, to find the sets) checks it as fully, with
    the same errors, but keeps neither the text nor the annotations' features."""
    from lxml import etree

    data = read_document_file(file, in_folder, limit, "a folder's .xml files")
    try:
        root = root_without_doctype(data, file, "GATE XML never uses")
    except etree.XMLSyntaxError as error:
        message = " ".join(str(error.msg or error).split())
        raise FormatError(file, f"not well-formed XML: {message}", error.lineno or None) from None
    except FormatError:
        raise
    except ValueError as error:
        raise FormatError(file, f"not readable as XML: {error}") from None
    if not isinstance(root.tag, str) or _local(root.tag) != "GateDocument":
        raise FormatError(file, f"not GATE XML: the root element is {root.tag!r}, not GateDocument",
                          getattr(root, "sourceline", None))
    text_element = next((e for e in root if isinstance(e.tag, str) and _local(e.tag) == "TextWithNodes"), None)
    if text_element is None:
        raise FormatError(file, "GATE XML without TextWithNodes (the document's text)", root.sourceline)
    text, nodes = _text_and_nodes(file, text_element, full)
    parsed = _Parsed(text)
    for element in root:
        if not isinstance(element.tag, str) or _local(element.tag) != "AnnotationSet":
            continue
        name = element.get("Name")
        name = DEFAULT_SET if name is None or name == "" else name
        if name in parsed.sets:
            raise FormatError(file, f"annotation set {name!r} appears twice", element.sourceline)
        parsed.sets[name] = [_annotation(file, a, nodes, full) for a in element
                             if isinstance(a.tag, str) and _local(a.tag) == "Annotation"]
    return parsed


def _parse_from(cwd: str, file: str, in_folder: bool, limit: int, full: bool = True) -> _Parsed:
    """:func:`_parse` of ``file`` as given (relative to ``cwd``, the folder it was given in, whatever
    the folder of the process reading it: a worker's), its errors naming it as given."""
    opened = os.path.join(cwd, file)
    try:
        return _parse(opened, in_folder, limit, full)
    except FormatError as error:
        if error.path == file or error.path != opened:
            raise
        raise FormatError(file, error.template, error.line, **error.words) from None


def _text_and_nodes(file: str, element, full: bool = True) -> tuple[str, dict[str, int]]:
    """The text of ``<TextWithNodes>`` (``""`` unless ``full``) and each node's offset in it (code points)."""
    pieces, nodes, offset = [], {}, 0
    if element.text:
        pieces.append(element.text)
        offset += len(element.text)
    for child in element:
        if isinstance(child.tag, str):
            if _local(child.tag) != "Node":
                raise FormatError(file, f"unexpected element <{child.tag}> in TextWithNodes", child.sourceline)
            node = child.get("id")
            if node is None:
                raise FormatError(file, "a Node without id", child.sourceline)
            nodes[node.strip()] = offset
        if child.tail:
            pieces.append(child.tail)
            offset += len(child.tail)
    return "".join(pieces) if full else "", nodes


def _annotation(file: str, element, nodes: dict[str, int], full: bool = True) -> tuple:
    line = element.sourceline
    kind, start, end = element.get("Type"), element.get("StartNode"), element.get("EndNode")
    for attribute, value in (("Type", kind), ("StartNode", start), ("EndNode", end)):
        if value is None or not value.strip():
            raise FormatError(file, f"an Annotation without {attribute}", line)
    offsets = []
    for node in (start, end):
        try:
            offsets.append(nodes[node.strip()])
        except KeyError:
            raise FormatError(file, f"annotation {element.get('Id')!r} ({kind}) names node {node!r}, which is not "
                              "in the text", line) from None
    if offsets[0] > offsets[1]:
        raise FormatError(file, f"annotation {element.get('Id')!r} ({kind}) ends before it starts", line)
    features = {}
    for feature in element if full else ():
        if isinstance(feature.tag, str) and _local(feature.tag) == "Feature":
            name = next((f for f in feature if isinstance(f.tag, str) and _local(f.tag) == "Name"), None)
            value = next((f for f in feature if isinstance(f.tag, str) and _local(f.tag) == "Value"), None)
            if name is not None:
                features[(name.text or "").strip()] = "" if value is None else (value.text or "")
    return kind, offsets[0], offsets[1], features, line


def _local(tag: str) -> str:
    return tag[tag.find("}") + 1:] if tag[:1] == "{" else tag.rpartition(":")[2]


class _Parses:
    """The files of one GATE input as parsed, shared by the streams of its annotation sets: the
    pipeline reads the streams document by document, in turn, so each file is parsed once for
    all of them while the last :data:`KEEP` files are kept (a stream that runs ahead, past files
    lacking its set, parses again what has left). Pickled empty (a Dask task carries it)."""

    #: The parsed files kept.
    KEEP = 16

    def __init__(self, limit: int):
        self.limit = limit
        self.cwd = os.getcwd()  # where a relative path given is read from, whatever a worker's folder
        self.recent: dict[str, _Parsed] = {}

    def __getstate__(self):
        return {"limit": self.limit, "cwd": self.cwd, "recent": {}}

    def parsed(self, file: str, in_folder: bool) -> _Parsed:
        """``file`` parsed (its errors naming it as given)."""
        found = self.recent.pop(file, None)
        if found is None:
            found = _parse_from(self.cwd, file, in_folder, self.limit)
            if len(self.recent) >= self.KEEP:
                del self.recent[next(iter(self.recent))]
        self.recent[file] = found
        return found


class GateFolder(FolderListing):
    """One annotation set of a GATE file or folder, listed (:class:`~spanagree.formats.FolderListing`):
    a unit per file, ``document id -> (file, in a folder)``; the sets of one input share their
    files' parses (:class:`_Parses`)."""

    format = "gate"

    def __init__(self, name: str, units: dict, set_name: str, label_feature: str | None, parses: _Parses):
        super().__init__(name, units)
        self.set_name, self.label_feature, self.parses = set_name, label_feature, parses

    def new_counts(self) -> dict:
        return {"points": 0, "unlabelled": 0}

    def documents(self, keys, counts: dict):
        units, set_name, label_feature, parses = self.units, self.set_name, self.label_feature, self.parses
        for doc_id in keys:
            unit = units.get(doc_id)
            if unit is None:
                continue
            file, in_folder = unit
            parsed = parses.parsed(file, in_folder)
            annotations = parsed.sets.get(set_name)
            if annotations is None:
                continue
            spans = []
            for kind, start, end, features, line in annotations:
                if start == end:
                    counts["points"] += 1
                    continue
                label = kind
                if label_feature is not None:
                    label = features.get(label_feature)
                    if label is None or not label.strip():
                        counts["unlabelled"] += 1
                        continue
                    label = label.strip()
                spans.append(Span(doc_id, ((start, end),), label, source=Source(file, line)))
            spans.sort(key=lambda s: (s.fragments, s.label))
            yield Document(doc_id, parsed.text, spans, file)

    def finish(self, counts: dict) -> tuple[list[str], list[str]]:
        notes = []
        if counts["points"]:
            notes.append(f"{counts['points']} zero-length GATE annotation(s) left out (a span covers at least one "
                         "character)")
        if counts["unlabelled"]:
            notes.append(f"{counts['unlabelled']} GATE annotation(s) without the feature {self.label_feature!r} "
                         "left out")
        return notes, []


def _role(name: str) -> str:
    return "other" if name in (DEFAULT_SET, ORIGINAL_MARKUPS) else "annotator"


@FORMAT.provides("annotators")
def annotators_gate(path, *, gate_label_feature: str | None = None, max_record_bytes: int = MAX_RECORD_BYTES,
                    share_out=None) -> list[DocumentStream]:
    """One stream per annotation set of a GATE file or folder, in the order of first appearance
    (named sets holding spans: role ``"annotator"``; ``default`` and ``Original markups``: role
    ``"other"``).

    The sets are found by scanning every file (:func:`_parse` without text or features: every
    error is met here, as reading meets it), a folder's files in contiguous shards by
    ``share_out`` when it is given and takes them (``share_out(function, files, reads=[path])``:
    each shard's ``function(shard)`` in order, or ``None``; ``--jobs`` gives its forked
    processes', from :func:`spanagree.pipeline.parallel.sharing`, a Dask cluster its workers',
    from :func:`spanagree.pipeline.cluster.sharing`); the streams then share each file's parse. A
    folder's streams carry their :class:`GateFolder`
    (:attr:`~spanagree.formats.DocumentStream.listing`), so that ``--jobs`` workers and Dask tasks
    read their own shard of its files."""
    path = str(path)
    files = _files(path)
    parses = _Parses(max_record_bytes)
    order: dict[str, bool] = {}   # set name -> holds a span somewhere
    if os.path.isdir(path):
        found = _scanned(path, files, max_record_bytes, share_out)
    else:  # one file (perhaps a pipe, read once): its parse is the streams'
        found = [_holding(parses.parsed(file, in_folder)) for _, file, in_folder in files]
    for sets in found:
        for name, holds in sets.items():
            order[name] = order.get(name, False) or holds
    names = [n for n, holds in order.items() if holds or _role(n) == "other"]
    units = {doc_id: (file, in_folder) for doc_id, file, in_folder in files}
    streams = []
    for name in names:
        listing = GateFolder(name, units, name, gate_label_feature, parses)
        notes: list[str] = []
        stream = DocumentStream(name, "gate", listed_documents(listing, notes), notes, _role(name))
        stream.listing = listing if os.path.isdir(path) else None
        streams.append(stream)
    return streams


def _holding(parsed: _Parsed) -> dict[str, bool]:
    """A file's sets, in order: whether each holds a span (an annotation of at least one character)."""
    return {name: any(start < end for _, start, end, _, _ in members) for name, members in parsed.sets.items()}


def _sets_of_files(files: list[tuple[str, str, bool]], limit: int, cwd: str
                   ) -> tuple[list[dict[str, bool]], FormatError | None]:
    """Each file's sets (:func:`_holding`), scanned in order up to the first error, which is
    returned (with nothing it was raised while handling: it travels back from a worker); the
    files as given in ``cwd`` (:func:`_parse_from`: a Dask worker's folder may be another)."""
    found = []
    for _, file, in_folder in files:
        try:
            found.append(_holding(_parse_from(cwd, file, in_folder, limit, full=False)))
        except FormatError as error:
            error.__context__ = error.__cause__ = error.__traceback__ = None
            return found, error
    return found, None


def _scanned(folder: str, files: list[tuple[str, str, bool]], limit: int, share_out=None):
    """Each file's sets (:func:`_holding`) in order, the files (of ``folder``) scanned in
    contiguous shards by ``share_out`` when it takes them (else here); the first error of the
    files in order is raised, as one scan in order meets it."""
    scan = partial(_sets_of_files, limit=limit, cwd=os.getcwd())
    results = share_out(scan, files, reads=[folder]) if share_out is not None else None
    for found, error in results or [scan(files)]:
        yield from found
        if error is not None:
            raise error


@FORMAT.provides("lister")
def list_gate(path, *, name: str | None = None, annotator: str | None = None, gate_label_feature: str | None = None,
              max_record_bytes: int = MAX_RECORD_BYTES) -> GateFolder:
    """The listing of a GATE folder's one annotation set (``annotator``, as :func:`stream_gate` chooses it)."""
    stream = stream_gate(path, name=name, annotator=annotator, gate_label_feature=gate_label_feature,
                         max_record_bytes=max_record_bytes)
    listing = stream.listing
    listing.name = stream.name
    return listing


@FORMAT.provides("streamer")
def stream_gate(path, *, name: str | None = None, annotator: str | None = None,
                gate_label_feature: str | None = None, max_record_bytes: int = MAX_RECORD_BYTES) -> DocumentStream:
    """The documents of one annotation set (``annotator``; may be left out when the file or
    folder holds one annotator)."""
    streams = annotators_gate(path, gate_label_feature=gate_label_feature, max_record_bytes=max_record_bytes)
    return chosen_stream(path, streams, annotator, name)


def read_gate(path, *, name: str | None = None, annotator: str | None = None,
              gate_label_feature: str | None = None, max_record_bytes: int = MAX_RECORD_BYTES):
    """:func:`stream_gate` collected."""
    return collect(stream_gate(path, name=name, annotator=annotator, gate_label_feature=gate_label_feature,
                               max_record_bytes=max_record_bytes))
