"""doccano project exports (doccano 1.6 and later): a container, one span set per user.

Reading
-------
doccano's *Export Dataset* of a sequence-labelling project, format *JSONL*, is a zip. Without
collaborative annotation it holds one JSONL file per project member, ``<username>.jsonl``, each
with a record per document (``{"id", "text", "label": [[start, end, "LABEL"], ...], "Comments",
...}``, the document's metadata keys beside them); doccano 1.8.4's export of this project's demo
documents is ``tests/data/doccano/separate.zip``.

* **Annotators** are the members, named by their file's name without ``.jsonl``, in name order.
  doccano writes a file for every member, whether or not they annotated: a member whose file
  marks no span in any document (the project's administrator, typically) is role ``"other"`` and
  joins a command only when named (``--annotators admin,alice``); a note names them.
* **Documents** are named by doccano's example ``id`` (the same in every member's file); spans
  are read as :mod:`spanagree.formats.jsonl` reads doccano's ``label`` lists.
* **A collaborative project's export cannot be compared**: doccano (1.6 and later) then writes one
  ``all.jsonl`` holding every member's spans merged, without saying whose. Reading it is an error
  saying to export again with collaborative annotation switched off (the project's settings),
  which writes one file per member. (doccano 1.2's collaborative export, whose ``annotations``
  name their ``user``, is read by :mod:`spanagree.formats.jsonl`.)
* **Safety** as for INCEpTION exports (:mod:`spanagree.formats.archives`): the zip is only read,
  never unpacked; its members are counted from the central directory (at most
  :data:`~spanagree.formats.archives.MAX_ZIP_MEMBERS`) and each is read at most
  ``max_record_bytes``.

doccano exports are read, not written (the JSONL writer writes one file a member's file can be
imported from).
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from ..errors import FormatError
from ..span import Document
from .files import MAX_RECORD_BYTES
from .archives import ZIP_ERRORS, bounded_zip, zip_member, zip_message
from .jsonl import Reading, line_documents, record_document
from .reading import chosen_stream
from .registry import FORMATS
from .stream import DocumentStream, collect

#: This module's registry entry, on which it registers its functions.
FORMAT = FORMATS["doccano"]

#: The one file of a collaborative project's export.
MERGED = "all.jsonl"


def _member_names(archive: zipfile.ZipFile) -> list[str] | None:
    """The names of a zip's files when they are all top-level ``.jsonl`` files (at least one),
    in name order; ``None`` otherwise."""
    names = sorted(info.filename for info in archive.infolist() if not info.is_dir())
    if not names or any("/" in name or not name.lower().endswith(".jsonl") for name in names):
        return None
    return names


@FORMAT.provides("recogniser")
def recognise_doccano(path: Path, head: bytes | None) -> bool:
    """A zip whose files are all top-level ``.jsonl`` files: a doccano export."""
    if head is None or not head.startswith(b"PK\x03\x04"):
        return False
    try:
        with open(path, "rb") as file, bounded_zip(file, str(path)) as archive:
            return _member_names(archive) is not None
    except FormatError:
        return False  # too many members: not doccano's (the extension's format then says what is wrong)
    except (*ZIP_ERRORS, OSError):
        return False


def _documents(data: bytes, where: str, reading: Reading) -> list[Document]:
    """A member file's documents, one per line (blank lines skipped), read as the JSONL reader
    reads its lines (:func:`~spanagree.formats.jsonl.line_documents`); what looks like annotations
    and is not read is counted in ``reading`` (never 0 spans in silence)."""
    def document_of(record, lineno: int) -> Document:
        if type(record) is not dict:
            raise FormatError(where, f"a record must be a JSON object, got {type(record).__name__}", lineno)
        return record_document(record, where, lineno, reading)

    return [document for _, _, document in line_documents(data.split(b"\n"), where, document_of)]


@FORMAT.provides("annotators")
def annotators_doccano(path, *, max_record_bytes: int = MAX_RECORD_BYTES) -> list[DocumentStream]:
    """One stream per member file of a doccano export, in name order; a member who marked no span
    in any document is role ``"other"``."""
    path = str(path)
    try:
        with open(path, "rb") as file, bounded_zip(file, path) as archive:
            names = _member_names(archive)
            if names is None:
                raise FormatError(path, "not a doccano export: its files are not all top-level .jsonl files")
            if names == [MERGED]:
                raise FormatError(path, "a doccano export of a collaborative project: all.jsonl holds every "
                                  "member's spans merged, without saying whose, so annotators cannot be compared; "
                                  "export again with collaborative annotation switched off (the project's "
                                  "settings), which writes one file per member")
            members = [(name, zip_member(archive, archive.getinfo(name), f"{path}/{name}", max_record_bytes))
                       for name in names]
    except FormatError:
        raise
    except FileNotFoundError:
        raise FormatError(path, "no such file") from None
    except ZIP_ERRORS as error:
        raise FormatError(path, f"not a readable zip file: {zip_message(error)}") from None
    streams, idle = [], []
    for name, data in members:
        reading = Reading()
        documents = _documents(data, f"{path}/{name}", reading)
        user = name[:-len(".jsonl")]
        marked = any(document.spans for document in documents)
        if not marked:
            idle.append(user)
        streams.append(DocumentStream(user, "doccano", iter(documents), reading.notes(),
                                      "annotator" if marked else "other", path))
    if idle:  # said by the first annotator's span set, which every command reads
        said = next((s for s in streams if s.role == "annotator"), streams[0])
        said.notes.append(f"{', '.join(idle)} marked no span in any document of the export: not compared "
                          "unless named among the annotators")
    return streams


@FORMAT.provides("streamer")
def stream_doccano(path, *, name: str | None = None, annotator: str | None = None,
                   max_record_bytes: int = MAX_RECORD_BYTES) -> DocumentStream:
    """The documents of one member (``annotator``) of a doccano export; ``annotator`` may be left
    out when the export holds one annotator."""
    return chosen_stream(path, annotators_doccano(path, max_record_bytes=max_record_bytes), annotator, name)


def read_doccano(path, *, name: str | None = None, annotator: str | None = None,
                 max_record_bytes: int = MAX_RECORD_BYTES):
    """:func:`stream_doccano` collected."""
    return collect(stream_doccano(path, name=name, annotator=annotator, max_record_bytes=max_record_bytes))


__all__ = ["annotators_doccano", "read_doccano", "recognise_doccano", "stream_doccano"]
