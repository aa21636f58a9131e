"""Readers and writers, one module per format, and the registry that names them.

The package is split by concern, and everything is importable from here:

- :mod:`~spanagree.formats.registry`: :class:`Format` (what a format is, declares and registers),
  :data:`FORMATS`, the format options (:class:`FormatOption`);
- :mod:`~spanagree.formats.stream`: :class:`DocumentStream`, what every reader gives, and what
  the ``--jobs`` workers read instead of a whole input (:class:`FilePart`, :class:`FolderListing`);
- :mod:`~spanagree.formats.detection`: a path's format (:func:`detect_format`);
- :mod:`~spanagree.formats.reading`: :func:`read`, :func:`open_stream`, :func:`open_annotators`;
- :mod:`~spanagree.formats.writing`: :func:`write`, :func:`convert`, :class:`FileWriter`,
  :class:`DocumentFiles`;
- :mod:`~spanagree.formats.files`: safe file I/O for the readers and writers.

Every format module (``spanagree.formats.brat``, ...) registers its functions on its registry
entry (:meth:`Format.provides`): ``stream_<name>(path, *, name=None, **options) ->
DocumentStream`` (the reader: documents one at a time), ``write_<name>(spanset, dest, **options)
-> None`` and what its capabilities call for (:data:`FORMAT_FUNCTIONS`); it also provides
``read_<name>(path, *, name=None, **options) -> SpanSet`` (the same stream collected,
:func:`collect`). Modules are imported only when used.
"""

from __future__ import annotations

from .registry import (FORMAT_FUNCTIONS, FORMATS, Format, FormatFunction, FormatOption, declares, get_format,
                       options_table, path_options, registered_options, writable_formats)
from .files import (MAX_RECORD_BYTES, SINGLE_FILE_ID, default_name, document_files, natural_key, open_file,
                    open_regular, read_bounded, read_document_file, read_regular, too_large, written_or_removed)
from .stream import ROLES, DocumentStream, FilePart, FolderListing, collect, listed_documents
from .detection import HEAD_BYTES, detect_format, recognised_format
from .reading import (chosen_stream, container_streams, is_container, open_annotators, open_stream, read,
                      reader_options)
from .writing import DocumentFiles, FileWriter, convert, dropped, write, write_documents

__all__ = [
    "FORMAT_FUNCTIONS", "FORMATS", "Format", "FormatFunction", "FormatOption", "declares", "get_format",
    "options_table", "path_options", "registered_options", "writable_formats",
    "MAX_RECORD_BYTES", "SINGLE_FILE_ID", "default_name", "document_files", "natural_key", "open_file",
    "open_regular", "read_bounded", "read_document_file", "read_regular", "too_large", "written_or_removed",
    "ROLES", "DocumentStream", "FilePart", "FolderListing", "collect", "listed_documents",
    "HEAD_BYTES", "detect_format", "recognised_format",
    "chosen_stream", "container_streams", "is_container", "open_annotators", "open_stream", "read",
    "DocumentFiles", "FileWriter", "convert", "dropped", "write", "write_documents",
]
