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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from ..collector import collector_paused
from ..errors import FormatError, UsageError
from ..span import Document, SpanSet


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
    """
    fmt = get_format(format) if format else get_format(detect_format(path))
    if not Path(path).exists():
        raise FormatError(path, "no such file or folder")
    own = {k: v for k, v in options.items() if k in fmt.options and v is not None}
    return fmt.streamer()(path, name=name, **own)


def write(spanset: SpanSet, dest: str | os.PathLike, format: str, **options) -> None:
    """Write a span set to ``dest`` (a folder for BRAT, a file otherwise) in ``format``.

    Only the options the chosen format's writer takes (:attr:`Format.write_options`) are passed
    on, so one set of command-line options can serve a reader and a writer (``--conll-column``
    means something to the CoNLL reader only). The caller decides about overwriting.
    """
    fmt = get_format(format)
    own = {k: v for k, v in options.items() if k in fmt.write_options and v is not None}
    fmt.writer()(spanset, dest, **own)


def convert(path: str | os.PathLike, dest: str | os.PathLike, *, to: str, source_format: str | None = None,
            force: bool = False, **options) -> SpanSet:
    """Read ``path`` (in ``source_format``, detected when not given) and write it to ``dest`` in ``to``.

    ``dest`` is written atomically and an existing non-empty one only replaced with ``force``
    (:func:`spanagree.outputs.write_atomically`). Returns the span set written.
    """
    from ..outputs import write_atomically

    with collector_paused(freeze=True):  # what is read lives until the process ends
        spanset = read(path, source_format, **options)
    write_atomically(dest, lambda temporary: write(spanset, temporary, to, **options), force=force)
    return spanset


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
