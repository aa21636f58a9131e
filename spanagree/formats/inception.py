"""INCEpTION project exports: a container, one span set per user, the curation its own.

Reading
-------
INCEpTION's *Export project* (Project settings → Export) writes a zip, which spanagree reads as
it is or unpacked into a folder. The layout is the one INCEpTION's exporters write
(``AnnotationDocumentExporter``, ``CuratedDocumentsExporter``)::

    exportedproject<digits>.json          the project's metadata (users, layers, documents)
    source/<document>                     the documents as imported
    annotation_ser/<document>/<user>.ser  every user's CAS in UIMA's binary form (not read)
    annotation/<document>/<user>.<ext>    the same in the *secondary format* chosen for the export
    curation_ser/<document>/CURATION_USER.ser
    curation/<document>/CURATION_USER.<ext>

The secondary format decides what spanagree can read: *UIMA CAS XMI* (XML 1.0 or 1.1) gives
``<user>.zip`` holding ``<document>.xmi`` and ``TypeSystem.xml`` (read with
:mod:`spanagree.formats.xmi`), *WebAnno TSV 3.x* gives ``<user>.tsv`` (read with
:mod:`spanagree.formats.webanno`); a loose ``<user>.xmi`` is read with ``--xmi-typesystem``.

* **Annotators** are the users, named by their login, in the order they first appear (documents
  in name order, each document's files in name order); each is role ``"annotator"``. The
  ``INITIAL_CAS`` INCEpTION adds beside them (the document as imported) is not an annotator and is
  not read. The curation (``CURATION_USER``) is a span set of its own called ``curation``, role
  ``"curation"``: it joins a command only when named (``score project.zip --gold curation``,
  ``--annotators curation,alice``).
* **Documents** are named by their source name (``annotation/<document>/``: ``news-01.txt``); a
  user without a file for a document did not annotate it.
* **Spans** as the XMI or TSV reader reads them, with their options (``--xmi-type``,
  ``--xmi-feature``, ``--xmi-view``; the per-user zip's own type system unless
  ``--xmi-typesystem`` is given).
* **What cannot be read.** An export holding only INCEpTION's binary CASes (``.ser``) or other
  secondary formats (plain text, CoNLL, ...) is an error saying to export the project again
  choosing *UIMA CAS XMI (XML 1.0)* or *WebAnno TSV v3.3* as the secondary format. Files of such a
  format beside readable ones are left out and counted in the notes.
* **Safety.** The export is only read, never unpacked to disk (member names are never used as
  paths); every member (and every file inside a per-user zip) is bounded by
  ``max_record_bytes``, so a zip bomb ends in one error. A zip (the export, or a user's) holds at
  most :data:`MAX_ZIP_MEMBERS` (250,000) members, counted from its central directory before it is
  read; the export's directory is read once, for every user's span set. A damaged zip or member is one
  :class:`~spanagree.errors.FormatError` naming the export and the member.

INCEpTION projects are read, not written.
"""

from __future__ import annotations

import io
import os
import re
import weakref
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import FormatError, parameter
from ..span import Document
from . import MAX_RECORD_BYTES, DocumentStream, chosen_stream, collect, natural_key, read_regular
from .archives import MAX_ZIP_MEMBERS, ZIP_ERRORS, bounded_zip, zip_member, zip_message
from .registry import FORMATS

#: This module's registry entry, on which it registers its functions.
FORMAT = FORMATS["inception"]

__all__ = ["CURATION", "MAX_ZIP_MEMBERS", "annotators_inception", "read_inception", "recognise_inception",
           "stream_inception"]

#: What the curation's span set is called.
CURATION = "curation"
#: INCEpTION's pseudo-users: the curated copy, and the document as imported.
CURATION_USER = "CURATION_USER"
INITIAL_CAS = "INITIAL_CAS"
#: The secondary formats spanagree reads, by file extension.
READABLE = ("zip", "xmi", "tsv")

_PROJECT_JSON = re.compile(r"^exportedproject[^/]*\.json$")
_CHOOSE = ("export the project again from INCEpTION (Project settings > Export) choosing 'UIMA CAS XMI (XML 1.0)' "
           "or 'WebAnno TSV v3.3' as the secondary format")


@FORMAT.provides("recogniser")
def recognise_inception(path: Path, head: bytes | None) -> bool:
    """A folder or zip laid out as an INCEpTION project export: ``exportedproject*.json`` at its top,
    or an ``annotation/`` (or ``annotation_ser/``) folder beside ``source/``."""
    if head is None:
        try:
            names = os.listdir(path)
        except OSError:
            return False
        folders = {n for n in ("annotation", "annotation_ser", "source")  # not a stat per entry:
                   if n in names and os.path.isdir(os.path.join(path, n))}  # a corpus folder has many
        return any(_PROJECT_JSON.match(n) for n in names) or (
            bool(folders & {"annotation", "annotation_ser"}) and "source" in folders)
    if not head.startswith(b"PK\x03\x04"):
        return False
    try:
        with open(path, "rb") as file, bounded_zip(file, str(path)) as archive:
            names = archive.namelist()
    except FormatError:
        return True  # a zip too large to look into: the extension's format, which reading refuses
    except ZIP_ERRORS:
        return False
    tops = {n.split("/", 1)[0] for n in names if "/" in n}
    return any(_PROJECT_JSON.match(n) for n in names) or (
        bool(tops & {"annotation", "annotation_ser"}) and "source" in tops)


class _Export:
    """The files of an export, zip or folder: their names (``/``-separated) and their bytes, bounded."""

    def __init__(self, path: str, limit: int):
        self.path, self.limit = path, limit
        self.folder = os.path.isdir(path)
        self.archive = None
        if self.folder:
            names = []
            for folder, dirs, files in os.walk(path):
                dirs.sort()
                names += [Path(os.path.relpath(os.path.join(folder, f), path)).as_posix() for f in files]
            self.names = sorted(names)
            return
        try:
            handle = open(path, "rb")
        except FileNotFoundError:
            raise FormatError(path, "no such file") from None
        except OSError as error:
            raise FormatError(path, f"cannot read: {error.strerror or error}") from None
        self._closing = weakref.finalize(self, _close, handle)  # closed with the last stream that reads it
        try:
            self.archive = bounded_zip(handle, path)
            self.infos = {i.filename: i for i in self.archive.infolist() if not i.is_dir()}
        except FormatError:
            self.close()
            raise
        except ZIP_ERRORS as error:
            self.close()
            raise FormatError(path, f"not a readable zip file: {zip_message(error)}") from None
        self.names = sorted(self.infos)

    def where(self, name: str) -> str:
        return os.path.join(self.path, *name.split("/")) if self.folder else f"{self.path}/{name}"

    def read(self, name: str) -> bytes:
        if self.folder:
            return read_regular(self.where(name), "an INCEpTION project's files", self.limit)
        return zip_member(self.archive, self.infos[name], self.where(name), self.limit)

    def close(self) -> None:
        if self.archive is not None:
            self.archive.close()
        if not self.folder:
            self._closing()


def _close(handle) -> None:
    handle.close()


@dataclass
class _Layout:
    """Who annotated what: ``files[(set name, document)] = member``, set names in order, what was left out."""

    files: dict = field(default_factory=dict)
    sets: dict = field(default_factory=dict)          # name -> role, in order
    unreadable: dict = field(default_factory=dict)    # extension -> count (annotation/ and curation/)
    binary: int = 0                                   # .ser files
    documents: list = field(default_factory=list)


def _layout(export: _Export) -> _Layout:
    layout = _Layout()
    documents: dict[str, None] = {}
    curation = []
    for name in export.names:
        parts = name.split("/")
        if len(parts) == 3 and parts[0] in ("annotation_ser", "curation_ser") and parts[2].endswith(".ser"):
            layout.binary += 1
            continue
        if len(parts) != 3 or parts[0] not in ("annotation", "curation") or not parts[1] or not parts[2]:
            continue
        folder, document, file = parts
        user, dot, extension = file.rpartition(".")
        if not dot or not user:
            user, extension = file, ""
        extension = extension.lower()
        if user == INITIAL_CAS:
            continue
        if folder == "curation":
            if user != CURATION_USER:
                continue
            set_name = CURATION
        else:
            set_name = user
        if extension not in READABLE:
            layout.unreadable[f".{extension}" if extension else "(no extension)"] = \
                layout.unreadable.get(f".{extension}" if extension else "(no extension)", 0) + 1
            continue
        if (set_name, document) in layout.files:
            raise FormatError(export.where(name), f"a second file of {set_name!r} for document {document!r}")
        layout.files[(set_name, document)] = name
        documents[document] = None
        if folder == "curation":
            curation.append(document)
        else:
            layout.sets.setdefault(set_name, "annotator")
    if curation:
        layout.sets[CURATION] = "curation"
    layout.documents = sorted(documents, key=natural_key)  # doc2 before doc10, as every folder reader
    return layout


def _cannot_read(export: _Export, layout: _Layout) -> FormatError:
    held = []
    if layout.binary:
        held.append(f"{layout.binary} binary CAS file(s) (.ser)")
    held += [f"{count} {extension} file(s)" for extension, count in sorted(layout.unreadable.items())]
    if not held and not any(n.split("/", 1)[0] in ("annotation", "source") for n in export.names):
        return FormatError(export.path, "not an INCEpTION project export: no annotation/ or source/ folder in it")
    what = ", ".join(held) if held else "no annotation file"
    return FormatError(export.path, f"holds {what} and no annotator's file in a format spanagree reads (UIMA CAS XMI "
                       "or WebAnno TSV); "
                       + _CHOOSE)


@FORMAT.provides("annotators")
def annotators_inception(path, *, xmi_typesystem: str | None = None, xmi_type: str | None = None,
                         xmi_feature: str | None = None, xmi_view: str | None = None,
                         webanno_layer: str | None = None, webanno_feature: str | None = None,
                         max_record_bytes: int = MAX_RECORD_BYTES) -> list[DocumentStream]:
    """One stream per user of an INCEpTION project export (zip or folder), in the order they first
    appear, then the curation (role ``"curation"``) when the export holds one. The options are the
    XMI reader's (:mod:`spanagree.formats.xmi`) and the WebAnno TSV reader's
    (:mod:`spanagree.formats.webanno`), for the files inside."""
    path = str(path)
    options = dict(xmi_typesystem=xmi_typesystem, xmi_type=xmi_type, xmi_feature=xmi_feature, xmi_view=xmi_view,
                   webanno_layer=webanno_layer, webanno_feature=webanno_feature)
    export = _Export(path, max_record_bytes)
    try:
        layout = _layout(export)
        if not any(role == "annotator" for role in layout.sets.values()) and (layout.binary or layout.unreadable
                                                                              or not layout.sets):
            raise _cannot_read(export, layout)
    except BaseException:
        export.close()
        raise
    shared = _Shared(export, layout, len(layout.sets))
    streams = [_stream(shared, set_name, set_name, role, options, max_record_bytes)
               for set_name, role in layout.sets.items()]
    left_out = []
    if layout.unreadable:
        left_out.append(", ".join(f"{count} {extension}" for extension, count in sorted(layout.unreadable.items()))
                        + " annotation file(s) in formats spanagree does not read left out; to read them, " + _CHOOSE)
    streams[0].notes.extend(left_out)
    return streams


@FORMAT.provides("streamer")
def stream_inception(path, *, name: str | None = None, annotator: str | None = None,
                     xmi_typesystem: str | None = None, xmi_type: str | None = None, xmi_feature: str | None = None,
                     xmi_view: str | None = None, webanno_layer: str | None = None, webanno_feature: str | None = None,
                     max_record_bytes: int = MAX_RECORD_BYTES) -> DocumentStream:
    """The documents of one user (``annotator``, or ``curation``) of an INCEpTION project export;
    ``annotator`` may be left out when the export holds one user."""
    streams = annotators_inception(path, xmi_typesystem=xmi_typesystem, xmi_type=xmi_type, xmi_feature=xmi_feature,
                                   xmi_view=xmi_view, webanno_layer=webanno_layer, webanno_feature=webanno_feature,
                                   max_record_bytes=max_record_bytes)
    return chosen_stream(path, streams, annotator, name)


def read_inception(path, *, name: str | None = None, annotator: str | None = None,
                   xmi_typesystem: str | None = None, xmi_type: str | None = None, xmi_feature: str | None = None,
                   xmi_view: str | None = None, webanno_layer: str | None = None, webanno_feature: str | None = None,
                   max_record_bytes: int = MAX_RECORD_BYTES):
    """:func:`stream_inception` collected."""
    return collect(stream_inception(path, name=name, annotator=annotator, xmi_typesystem=xmi_typesystem,
                                    xmi_type=xmi_type, xmi_feature=xmi_feature, xmi_view=xmi_view,
                                    webanno_layer=webanno_layer, webanno_feature=webanno_feature,
                                    max_record_bytes=max_record_bytes))


@dataclass
class _Shared:
    """The export (its central directory read once) and its layout, shared by its span sets' streams;
    closed when the last of them that is read ends (else when they are all forgotten)."""

    export: _Export
    layout: _Layout
    unread: int

    def finished(self) -> None:
        self.unread -= 1
        if self.unread <= 0:
            self.export.close()


def _stream(shared: _Shared, set_name: str, name: str, role: str, options: dict, limit: int) -> DocumentStream:
    notes: list[str] = []
    stream = DocumentStream(name, "inception", iter(()), notes, role)
    stream.documents = _documents(shared, set_name, options, limit, notes)
    return stream


def _documents(shared: _Shared, set_name: str, options: dict, limit: int, notes: list[str]):
    from .xmi import DEFAULT_FEATURE, DEFAULT_TYPE, DEFAULT_VIEW, XmiReading, load_typesystem

    reading = XmiReading(options.get("xmi_type") or DEFAULT_TYPE, options.get("xmi_feature") or DEFAULT_FEATURE,
                         options.get("xmi_view") or DEFAULT_VIEW)
    given = options.get("xmi_typesystem")
    if given:
        given = load_typesystem([p.strip() for p in str(given).split(",") if p.strip()], limit)
    webanno = {k: v for k, v in options.items() if k in ("webanno_layer", "webanno_feature") and v is not None}
    counts: Counter = Counter()
    export, layout = shared.export, shared.layout
    tsv = False
    try:
        for document in layout.documents:
            member = layout.files.get((set_name, document))
            if member is None:
                continue
            tsv = tsv or member.lower().endswith(".tsv")
            yield _document(export, member, document, reading, given, webanno, counts, limit)
    finally:
        shared.finished()
    notes.extend(reading.notes())
    if tsv:
        from .webanno import webanno_notes

        notes.extend(webanno_notes(counts, webanno.get("webanno_layer"), webanno.get("webanno_feature")))


def _document(export: _Export, member: str, doc_id: str, reading, given, webanno: dict, counts: Counter,
              limit: int) -> Document:
    from .xmi import load_typesystem, xmi_document

    where = export.where(member)
    data = export.read(member)
    extension = member.rpartition(".")[2].lower()
    if extension == "tsv":
        from .webanno import webanno_document

        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise FormatError(where, f"not UTF-8 at byte {error.start}") from None
        return webanno_document(text, where, doc_id, counts=counts, **webanno)
    if extension == "xmi":
        if given is None:
            raise FormatError(where, "a loose XMI file without its type system: give {typesystem}",
                              typesystem=parameter("xmi_typesystem", "PATH"))
        return xmi_document(data, given, where, doc_id, reading)
    try:
        inner = bounded_zip(io.BytesIO(data), where)
        infos = [i for i in inner.infolist() if not i.is_dir()]
    except FormatError:
        raise
    except ZIP_ERRORS as error:
        raise FormatError(where, f"not a readable zip file: {zip_message(error)}") from None
    with inner:
        xmis = [i for i in infos if i.filename.lower().endswith(".xmi")]
        if len(xmis) != 1:
            raise FormatError(where, f"holds {len(xmis)} .xmi files; INCEpTION's XMI export holds one document's")
        typesystem = given
        if typesystem is None:
            found = [i for i in infos if i.filename.rpartition("/")[2].lower() == "typesystem.xml"]
            if not found:
                raise FormatError(where, "holds no TypeSystem.xml beside its XMI; give {typesystem}",
                                  typesystem=parameter("xmi_typesystem", "PATH"))
            ts_where = f"{where}/{found[0].filename}"
            ts_data = zip_member(inner, found[0], ts_where, limit)
            typesystem = reading.typesystems.get(ts_data)
            if typesystem is None:
                typesystem = reading.typesystems[ts_data] = load_typesystem((), limit, ts_data, ts_where)
        xmi_where = f"{where}/{xmis[0].filename}"
        return xmi_document(zip_member(inner, xmis[0], xmi_where, limit), typesystem, xmi_where, doc_id, reading)
