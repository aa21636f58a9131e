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
* **Safety and errors** as the inline-XML reader (:mod:`spanagree.formats.xml`): lxml without DTD,
  network or entity expansion; a file beyond ``max_record_bytes`` or not well formed, a missing
  ``TextWithNodes``, an annotation without ``Type``/``StartNode``/``EndNode``, a start after its
  end, or a node that is not in the text is one :class:`~spanagree.errors.FormatError` naming the
  file (and line).

GATE XML is read, not written.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import FormatError
from ..span import Document, Source, Span
from . import MAX_RECORD_BYTES, DocumentStream, chosen_stream, collect, document_files, natural_key, read_document_file

__all__ = ["annotators_gate", "read_gate", "recognise_gate", "stream_gate"]

#: What the default (unnamed) annotation set is called.
DEFAULT_SET = "default"
#: The set GATE fills with the source file's own markup.
ORIGINAL_MARKUPS = "Original markups"

_ROOT = re.compile(rb"^(?:\xef\xbb\xbf)?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--.*?-->\s*)*<GateDocument[\s/>]", re.S)


def recognise_gate(path: Path, head: bytes | None) -> bool:
    """A file whose root element is ``GateDocument``, or a folder whose first ``.xml`` file is one."""
    if head is not None:
        return _ROOT.match(head) is not None
    try:
        for folder, subfolders, files in os.walk(path):  # stops at the first .xml file
            subfolders.sort(key=natural_key)
            first = min((f for f in files if f.endswith(".xml")), key=natural_key, default=None)
            if first is not None:
                candidate = os.path.join(folder, first)
                if not stat.S_ISREG(os.stat(candidate).st_mode):  # a FIFO is never read ahead
                    return False
                with open(candidate, "rb") as file:
                    return _ROOT.match(file.read(4096)) is not None
    except OSError:
        return False
    return False


@dataclass
class _Parsed:
    """One file: its text and, per set name, its annotations as ``(type, start, end, features, line)``."""

    text: str
    sets: dict[str, list[tuple]] = field(default_factory=dict)


def _scan(top: str) -> list[tuple[str, str]]:
    """A folder's ``.xml`` files as sorted ``(id, path)``."""
    from .xml import _scan as scan_xml

    return scan_xml(top)


def _files(path: str) -> list[tuple[str, str, bool]]:
    """``(document id, file, in a folder)`` for a GATE file or folder."""
    return document_files(path, _scan)


def _parse(file: str, in_folder: bool, limit: int) -> _Parsed:
    from lxml import etree

    from .xml import _SAFE

    data = read_document_file(file, in_folder, limit, "a folder's .xml files")
    try:
        root = etree.fromstring(data, etree.XMLParser(**_SAFE))
    except etree.XMLSyntaxError as error:
        message = " ".join(str(error.msg or error).split())
        raise FormatError(file, f"not well-formed XML: {message}", error.lineno or None) from None
    except ValueError as error:
        raise FormatError(file, f"not readable as XML: {error}") from None
    if not isinstance(root.tag, str) or _local(root.tag) != "GateDocument":
        raise FormatError(file, f"not GATE XML: the root element is {root.tag!r}, not GateDocument",
                          getattr(root, "sourceline", None))
    text_element = next((e for e in root if isinstance(e.tag, str) and _local(e.tag) == "TextWithNodes"), None)
    if text_element is None:
        raise FormatError(file, "GATE XML without TextWithNodes (the document's text)", root.sourceline)
    text, nodes = _text_and_nodes(file, text_element)
    parsed = _Parsed(text)
    for element in root:
        if not isinstance(element.tag, str) or _local(element.tag) != "AnnotationSet":
            continue
        name = element.get("Name")
        name = DEFAULT_SET if name is None or name == "" else name
        if name in parsed.sets:
            raise FormatError(file, f"annotation set {name!r} appears twice", element.sourceline)
        parsed.sets[name] = [_annotation(file, a, nodes) for a in element
                             if isinstance(a.tag, str) and _local(a.tag) == "Annotation"]
    return parsed


def _text_and_nodes(file: str, element) -> tuple[str, dict[str, int]]:
    """The text of ``<TextWithNodes>`` and each node's offset in it (code points)."""
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
    return "".join(pieces), nodes


def _annotation(file: str, element, nodes: dict[str, int]) -> tuple:
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
    for feature in element:
        if isinstance(feature.tag, str) and _local(feature.tag) == "Feature":
            name = next((f for f in feature if isinstance(f.tag, str) and _local(f.tag) == "Name"), None)
            value = next((f for f in feature if isinstance(f.tag, str) and _local(f.tag) == "Value"), None)
            if name is not None:
                features[(name.text or "").strip()] = "" if value is None else (value.text or "")
    return kind, offsets[0], offsets[1], features, line


def _local(tag: str) -> str:
    return tag[tag.find("}") + 1:] if tag[:1] == "{" else tag.rpartition(":")[2]


def _role(name: str) -> str:
    return "other" if name in (DEFAULT_SET, ORIGINAL_MARKUPS) else "annotator"


def annotators_gate(path, *, gate_label_feature: str | None = None, max_record_bytes: int = MAX_RECORD_BYTES
                    ) -> list[DocumentStream]:
    """One stream per annotation set of a GATE file or folder, in the order of first appearance
    (named sets holding spans: role ``"annotator"``; ``default`` and ``Original markups``: role
    ``"other"``). The files are parsed once here to find the sets, and again as each stream is read."""
    path = str(path)
    order: dict[str, bool] = {}   # set name -> holds a span somewhere
    for _, file, in_folder in _files(path):
        for name, members in _parse(file, in_folder, max_record_bytes).sets.items():
            holds = any(start < end for _, start, end, _, _ in members)
            order[name] = order.get(name, False) or holds
    names = [n for n, holds in order.items() if holds or _role(n) == "other"]
    return [_stream(path, n, n, gate_label_feature, max_record_bytes) for n in names]


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


def _stream(path: str, set_name: str, name: str, label_feature: str | None, limit: int) -> DocumentStream:
    notes: list[str] = []
    stream = DocumentStream(name, "gate", iter(()), notes, _role(set_name))
    stream.documents = _documents(path, set_name, label_feature, limit, notes)
    return stream


def _documents(path: str, set_name: str, label_feature: str | None, limit: int, notes: list[str]):
    points = unlabelled = 0
    for doc_id, file, in_folder in _files(path):
        parsed = _parse(file, in_folder, limit)
        annotations = parsed.sets.get(set_name)
        if annotations is None:
            continue
        spans = []
        for kind, start, end, features, line in annotations:
            if start == end:
                points += 1
                continue
            label = kind
            if label_feature is not None:
                label = features.get(label_feature)
                if label is None or not label.strip():
                    unlabelled += 1
                    continue
                label = label.strip()
            spans.append(Span(doc_id, ((start, end),), label, Source(file, line)))
        spans.sort(key=lambda s: (s.fragments, s.label))
        yield Document(doc_id, parsed.text, spans, file)
    if points:
        notes.append(f"{points} zero-length GATE annotation(s) left out (a span covers at least one character)")
    if unlabelled:
        notes.append(f"{unlabelled} GATE annotation(s) without the feature {label_feature!r} left out")
