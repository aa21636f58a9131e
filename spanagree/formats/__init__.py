"""Readers and writers, one module per format, and the registry that names them.

The registry :data:`FORMATS` is the single source of truth for format names: it drives the
command line's choices, the error for an unknown name, and auto-detection.

Every format module ``spanagree.formats.<name>`` provides
``stream_<name>(path, *, name=None, **options) -> DocumentStream`` (the reader: documents one at
a time), ``read_<name>(path, *, name=None, **options) -> SpanSet`` (the same stream collected,
:func:`collect`) and ``write_<name>(spanset, dest, **options) -> None``; modules are imported
only when used.
"""

from __future__ import annotations

import importlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from ..collector import collector_paused
from ..errors import FormatError, UsageError
from ..span import Document, SpanSet


# The largest record a reader takes (a JSONL line, a CoNLL document, an XML document, a BRAT file),
# in bytes; ``--max-record-bytes`` raises it. Reading stays bounded even on endless input (/dev/zero).
MAX_RECORD_BYTES = 64 * 2**20


@dataclass(frozen=True)
class Format:
    """A registered format: its name, module, what it reads, its reader's options and its writer's."""

    name: str
    description: str
    extensions: tuple[str, ...]
    options: tuple[str, ...]
    writes_to_folder: bool
    write_options: tuple[str, ...] = ()

    def module(self):
        return importlib.import_module(f"spanagree.formats.{self.name}")

    def streamer(self):
        return getattr(self.module(), f"stream_{self.name}")

    def writer(self):
        return getattr(self.module(), f"write_{self.name}")


FORMATS: dict[str, Format] = {
    "brat": Format("brat", "BRAT standoff: a folder of .txt + .ann files", (".ann",), (), True),
    "xml": Format(
        "xml", "inline XML markup (an .xml file or a folder of them)", (".xml",),
        ("xml_label_attr", "xml_span_tags", "xml_doc_tag"), False,
        write_options=("xml_label_attr", "xml_span_tags", "xml_doc_tag"),
    ),
    "conll": Format(
        "conll", "CoNLL columns with IOB/BIOES tags", (".conll", ".bio", ".iob", ".tsv", ".txt"),
        ("conll_column", "scheme"), False,
        write_options=("scheme",),
    ),
    "jsonl": Format(
        "jsonl", "JSON lines {id, text, spans: [{start, end, label}]} (spaCy/Prodigy, doccano)",
        (".jsonl", ".json", ".ndjson"), (), False,
    ),
}


@dataclass
class DocumentStream:
    """One annotator's documents, read one at a time as ``documents`` is iterated.

    What every reader gives (``stream_<name>``). The path and the options are checked when the
    stream is made (a missing file, a bad option); the rest of the reading happens as documents
    are asked for, each with its warnings and errors (:class:`~spanagree.errors.FormatError`
    naming the file and line) at that point, so a stream holds one document at a time (plus
    what the format needs to check across documents, such as the ids seen). ``notes`` is
    complete once ``documents`` is exhausted. :func:`collect` makes a :class:`SpanSet` of it;
    :mod:`spanagree.pipeline.stream` compares streams document by document without keeping them.

    Attributes
    ----------
    name : str
        The annotator's name (the span set's).
    format : str
        The format's name.
    documents : iterator of Document
        In file order; every id once.
    notes : list of str
        What was read and not compared (the span set's notes).
    """

    name: str
    format: str
    documents: Iterator[Document]
    notes: list[str] = field(default_factory=list)


def collect(stream: DocumentStream) -> SpanSet:
    """A stream read to the end, as a :class:`SpanSet` (the readers' ``read_<name>``)."""
    documents: dict[str, Document] = {}
    with collector_paused():
        for document in stream.documents:
            documents[document.id] = document
    return SpanSet(stream.name, documents, stream.notes, stream.format)


def get_format(name: str) -> Format:
    """The registered format called ``name``, or a :class:`UsageError` listing the choices."""
    try:
        return FORMATS[name]
    except KeyError:
        raise UsageError(f"unknown format {name!r}; choose one of: {', '.join(FORMATS)}") from None


def detect_format(path: str | os.PathLike) -> str:
    """Guess a path's format from its extension, or, for a folder, from the files inside.

    A folder holding ``.ann`` files is BRAT; one holding ``.xml`` files is XML; a ``.txt`` file
    whose first non-blank line has at least two whitespace-separated columns is CoNLL.
    """
    path = Path(path)
    if not path.exists():
        raise FormatError(path, "no such file or folder")
    if path.is_dir():
        for suffix, fmt in ((".ann", "brat"), (".xml", "xml"), (".jsonl", "jsonl"), (".conll", "conll")):
            if next(path.rglob(f"*{suffix}"), None) is not None:
                return fmt
        raise FormatError(path, "empty folder: no .ann, .xml, .jsonl or .conll file in it")
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        return "jsonl"
    if suffix == ".xml":
        return "xml"
    if suffix in (".conll", ".bio", ".iob", ".tsv", ".txt", ".test", ".dev", ".train", ""):
        return "conll"
    raise FormatError(path, f"cannot tell the format from the extension {suffix!r}; give --format")


def read(path: str | os.PathLike, format: str | None = None, *, name: str | None = None, **options) -> SpanSet:
    """Read one annotator's span set.

    Parameters
    ----------
    path : str or path
        A file or a folder.
    format : {"brat", "xml", "conll", "jsonl"}, optional
        Detected from the path when not given.
    name : str, optional
        The span set's name; defaults to the file stem or folder name.
    **options
        Format options (``xml_label_attr``, ``xml_span_tags``, ``xml_doc_tag``, ``conll_column``,
        ``scheme``); options of other formats are ignored, so one set of options can serve a
        mixed call.

    Raises
    ------
    FormatError
        Bad input, naming the file (and line).
    """
    return collect(open_stream(path, format, name=name, **options))


def open_stream(path: str | os.PathLike, format: str | None = None, *, name: str | None = None,
                **options) -> DocumentStream:
    """One annotator's documents as a :class:`DocumentStream`: :func:`read` one document at a time
    (``read`` is this stream collected).

    Parameters and errors as :func:`read`; reading errors come as the documents are read.
    ``max_record_bytes`` (every format; default :data:`MAX_RECORD_BYTES`) bounds what one record
    may take, so that endless input ends in one error.
    """
    fmt = get_format(format) if format else get_format(detect_format(path))
    if not Path(path).exists():
        raise FormatError(path, "no such file or folder")
    own = {k: v for k, v in options.items() if k in fmt.options and v is not None}
    limit = options.get("max_record_bytes")
    if limit is not None:
        if type(limit) is not int or limit < 1:
            raise UsageError(f"--max-record-bytes must be a positive number of bytes, not {limit!r}")
        own["max_record_bytes"] = limit
    return fmt.streamer()(path, name=name, **own)


def too_large(path: str, what: str, limit: int, line: int | None = None) -> FormatError:
    """The error for a record beyond ``max_record_bytes``, naming the option that raises the limit."""
    return FormatError(path, f"{what} is longer than {limit:,} bytes, the largest record read "
                       "(raise it with --max-record-bytes)", line)


def write(spanset: SpanSet, dest: str | os.PathLike, format: str, **options) -> None:
    """Write a span set to ``dest`` (a folder for BRAT, a file otherwise) in ``format``.

    Only the options the chosen format's writer takes (:attr:`Format.write_options`) are passed
    on, so one set of command-line options can serve a reader and a writer (``--conll-column``
    means something to the CoNLL reader only). The caller decides about overwriting.
    """
    fmt = get_format(format)
    own = {k: v for k, v in options.items() if k in fmt.write_options and v is not None}
    fmt.writer()(spanset, dest, **own)


def default_name(path: str | os.PathLike) -> str:
    """A span set's default name: the folder name, or the file name without its extension."""
    path = Path(path)
    return path.name if path.is_dir() else path.stem


def open_file(path: str, what: str):
    """A one-file format's file (``what``: ``"CoNLL"``, ``"JSONL"``) opened for reading bytes.

    Raises
    ------
    FormatError
        No such file, a folder, or unreadable.
    """
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise FormatError(path, "no such file or folder") from None
    except IsADirectoryError:
        raise FormatError(path, f"is a folder; {what} is read from one file") from None
    except OSError as error:
        raise FormatError(path, f"cannot read: {error.strerror or error}") from None


# Opening without waiting: a FIFO with no writer would otherwise block the run for ever.
_NONBLOCKING = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def open_regular(path: str, what: str):
    """A file found in a folder, opened for reading bytes: a regular file, or a one-line error.

    Opened without blocking and checked before anything is read, so that a FIFO, a device or a
    socket among the files of a folder is an error at once instead of a run that waits for ever.

    Raises
    ------
    FormatError
        No such file, unreadable, or not a regular file.
    """
    fd, _ = _regular(path, what)
    return open(fd, "rb")  # O_NONBLOCK changes nothing on a regular file


def read_regular(path: str, what: str, limit: int) -> bytes:
    """All the bytes of a file found in a folder: a regular file of at most ``limit`` bytes.

    :func:`open_regular`'s checks, then the file read in one system call (its size is known), so
    that a folder of many small files is read as fast as with ``open(path, "rb").read()``.

    Raises
    ------
    FormatError
        No such file, unreadable, not a regular file, or larger than ``limit`` (:func:`too_large`).
    """
    fd, info = _regular(path, what)
    try:
        if info.st_size > limit:
            raise too_large(path, "the file", limit)
        data = os.read(fd, info.st_size + 1)
        if len(data) != info.st_size:  # a short read, or the file grew: read on to its end
            parts, total = [data], len(data)
            while True:
                more = os.read(fd, 1 << 20)
                if not more:
                    break
                parts.append(more)
                total += len(more)
                if total > limit:
                    raise too_large(path, "the file", limit)
            data = b"".join(parts)
        return data
    except OSError as error:
        raise FormatError(path, f"cannot read: {error.strerror or error}") from None
    finally:
        os.close(fd)


def _regular(path: str, what: str) -> tuple[int, os.stat_result]:
    """A regular file's descriptor, opened without blocking, and its status; else the error."""
    try:
        fd = os.open(path, _NONBLOCKING)
    except FileNotFoundError:
        raise FormatError(path, "no such file") from None
    except OSError as error:
        raise FormatError(path, f"cannot read: {error.strerror or error}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise FormatError(path, f"not a regular file (a folder, FIFO, device or socket); {what} are read "
                          "from regular files")
    return fd, info


def read_bounded(file, path: str, limit: int, what: str) -> bytes:
    """All of ``file`` (opened for bytes), or :func:`too_large` when it holds more than ``limit`` bytes.

    A regular file is measured first; anything else (a pipe given on purpose) is read at most
    ``limit + 1`` bytes, so that endless input ends in one error.
    """
    info = os.fstat(file.fileno())
    if stat.S_ISREG(info.st_mode):
        if info.st_size > limit:
            raise too_large(path, what, limit)
        return file.read()
    data = file.read(limit + 1)
    if len(data) > limit:
        raise too_large(path, what, limit)
    return data
