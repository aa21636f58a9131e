"""Readers and writers, one module per format, and the registry that names them.

The registry :data:`FORMATS` is the single source of truth for formats: their names drive the
command line's choices and the error for an unknown name, their extensions auto-detection
(:func:`detect_format`), and their options (:class:`FormatOption`) the command line's format
options, the keywords passed to readers and writers, and the docs' options table.

Every format module ``spanagree.formats.<name>`` provides
``stream_<name>(path, *, name=None, **options) -> DocumentStream`` (the reader: documents one at
a time), ``read_<name>(path, *, name=None, **options) -> SpanSet`` (the same stream collected,
:func:`collect`) and ``write_<name>(spanset, dest, **options) -> None``; modules are imported
only when used. A format written to one file also provides ``file_writer_<name>(**options) ->``
:class:`FileWriter` (its head, each document's text, its tail), which ``write_<name>`` writes
through (:func:`write_documents`) and which ``merge --jobs`` workers use to write their
documents' part of the file (:mod:`spanagree.pipeline.parts`); BRAT, a file pair per document,
provides ``write_brat_document``.
"""

from __future__ import annotations

import abc
import contextlib
import importlib
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from ..collector import collector_paused
from ..errors import FormatError, UsageError, find_stack_level
from ..span import Document, SpanSet
from .schemes import SCHEME_NAMES, SCHEMES


@dataclass(frozen=True)
class FormatOption:
    """One option of a format, declared once: the reader's or writer's keyword, its command-line
    flag, how the flag's value is parsed, and what it means.

    The command line's options (``spanagree.cli.add_format_options``), the keywords passed on to
    a reader or a writer (:func:`open_stream`, :func:`write`) and the options table of the docs
    (:func:`options_table`) are all made from these records, so a format added to
    :data:`FORMATS` with its options needs no other edit.

    Parameters
    ----------
    keyword : str
        The keyword of ``stream_<format>``/``read_<format>`` and/or ``write_<format>``, named
        ``<format>_<option>`` (``xml_label_attr``); also the attribute of the parsed arguments.
        One exception, kept for its users: CoNLL's ``scheme``.
    help : str
        The command line's help text, without the format's name (``XML: `` is put before it).
    metavar : str, optional
        The value's placeholder in the help (``ATTR``); options with ``choices`` show those.
    type : callable, optional
        Turns the command line's string into the keyword's value (``int``); default the string.
    choices : tuple of str, optional
        The values allowed, checked by the command line.
    reader, writer : bool
        Whether the format's reader, its writer, takes the keyword.
    details : str
        What the docs' table says beyond ``help`` (appended to it there).
    flag_only : bool
        A switch: the flag takes no value and gives ``True`` (``--labelstudio-predictions``);
        not given, the keyword is left out (``None`` in the options echo).

    Examples
    --------
    >>> option = FormatOption("xml_doc_tag", "every TAG element is a document", metavar="TAG")
    >>> option.flag
    '--xml-doc-tag'
    """

    keyword: str
    help: str
    metavar: str | None = None
    type: Callable[[str], Any] | None = None
    choices: tuple[str, ...] | None = None
    reader: bool = True
    writer: bool = False
    details: str = ""
    flag_only: bool = False

    @property
    def flag(self) -> str:
        """The command-line flag: ``--`` and the keyword with ``-`` for ``_`` (``--<format>-<option>``)."""
        return "--" + self.keyword.replace("_", "-")


# The largest record a reader takes (a JSONL line, a CoNLL document, an XML document, a BRAT file),
# in bytes; ``--max-record-bytes`` raises it. Reading stays bounded even on endless input (/dev/zero).
MAX_RECORD_BYTES = 64 * 2**20


@dataclass(frozen=True)
class Format:
    """A registered format: its name, module, how it is recognised, and its options.

    Parameters
    ----------
    name : str
        The registry name and module name (``spanagree.formats.<name>``).
    title : str
        How the docs and help texts write it (``CoNLL``).
    description : str
        One line: what the format is.
    extensions : tuple of str
        Lower-case file suffixes that make a file this format when detected (``""``: a file
        without suffix). A suffix belongs to one format at most.
    folder_extensions : tuple of str
        A folder holding (at any depth) a file with one of these suffixes is this format...
    folder_precedence : int
        ...unless it also holds the files of a format of lower precedence, which wins (BRAT's
        ``.ann`` before XML's ``.xml`` before JSONL's ``.jsonl`` before CoNLL's ``.conll``).
    writes_to_folder : bool
        The writer makes a folder (else one file).
    options : tuple of FormatOption
        The reader's and the writer's options.
    container : bool
        One path holds several annotators (a Label Studio export, an INCEpTION project, a GATE
        file with several annotation sets): the module provides
        ``annotators_<name>(path, **options) -> list[DocumentStream]``, one stream per annotator
        in the export's order, each named by the tool's annotator id (see :func:`open_annotators`).
        ``stream_<name>`` then takes ``annotator=`` and reads that one.
    writable : bool
        The module has a writer (``write_<name>``): ``convert --to`` and ``merge --to`` offer
        the format (:func:`writable_formats`).
    recognises : bool
        The format is told by content, before any extension rule: the module provides
        ``recognise_<name>(path: Path, head: bytes | None) -> bool``, given a file's first
        :data:`HEAD_BYTES` bytes (``None`` for a folder). It must be cheap and import nothing
        heavy (a WebAnno TSV file is a ``.tsv`` whose first line is ``#FORMAT=WebAnno TSV 3``; a
        Label Studio export a ``.json`` holding a list).
    drops : tuple of str
        What the writer cannot hold of a span set, announced when writing drops it
        (:func:`dropped`): ``"attributes"``, the spans' attributes (BRAT's notes ``#``,
        attributes ``A`` and normalisations ``N``); ``"ids"``, the document ids (CoNLL numbers its
        documents). Default: the attributes.
    splits : bool
        A file can be read in parts, each a byte range of whole documents read on its own
        (``--jobs`` workers: :mod:`spanagree.pipeline.parallel`): ``stream_<name>`` takes
        ``part=`` (a :class:`FilePart`), and the module provides
        ``document_starts_<name>(path)`` (where documents begin, found in the bytes alone: each
        document's byte offset and the lines before it, yielded as the scan finds them) and
        ``part_notes_<name>(path, counts, **options) -> (notes, warnings)`` (what the whole file
        gives at its end, made from its parts' :attr:`FilePart.counts` added up).
    folder_shards : bool
        A folder keeps its documents in files of their own (one document per file, or a known set
        of documents per file), read in shards (``--jobs`` workers, Dask tasks:
        :mod:`spanagree.pipeline.parallel`): the module provides ``list_<name>(path, **options) ->
        FolderListing`` (the folder's document files listed in the reader's order, nothing read;
        the errors of the listing as ``stream_<name>`` gives them), and ``stream_<name>`` of a
        folder reads that listing whole (:func:`listed_documents`). A container (a GATE folder:
        one folder, several span sets) gives its folders' streams their listings
        (:attr:`DocumentStream.listing`), which the workers read as they read a listed path;
        its ``list_<name>`` lists the span set ``stream_<name>`` chooses, and its
        ``annotators_<name>`` takes ``share_out=`` (what shares out the work of finding the span
        sets: :func:`container_streams`).
    """

    name: str
    title: str
    description: str
    extensions: tuple[str, ...]
    folder_extensions: tuple[str, ...]
    folder_precedence: int
    writes_to_folder: bool
    options: tuple[FormatOption, ...] = ()
    container: bool = False
    recognises: bool = False
    writable: bool = True
    drops: tuple[str, ...] = ("attributes",)
    splits: bool = False
    folder_shards: bool = False

    @property
    def reader_keywords(self) -> frozenset[str]:
        """The keywords the reader takes (besides ``name``)."""
        return frozenset(o.keyword for o in self.options if o.reader)

    @property
    def writer_keywords(self) -> frozenset[str]:
        """The keywords the writer takes."""
        return frozenset(o.keyword for o in self.options if o.writer)

    def module(self):
        return importlib.import_module(f"spanagree.formats.{self.name}")

    def streamer(self):
        return getattr(self.module(), f"stream_{self.name}")

    def writer(self):
        return getattr(self.module(), f"write_{self.name}")

    def annotators(self):
        return getattr(self.module(), f"annotators_{self.name}")

    def recogniser(self):
        return getattr(self.module(), f"recognise_{self.name}")

    def document_starts(self):
        return getattr(self.module(), f"document_starts_{self.name}")

    def part_notes(self):
        return getattr(self.module(), f"part_notes_{self.name}")

    def lister(self):
        return getattr(self.module(), f"list_{self.name}")

    def file_writer(self):
        """``file_writer_<name>`` (:class:`FileWriter`), or ``None`` for a format not written to one file."""
        return getattr(self.module(), f"file_writer_{self.name}", None)


@dataclass
class FileWriter:
    """How a format writes one file, document by document: ``head``, then each document's text
    (``document(doc_id, document) -> str``, a UsageError naming a document it cannot write), then
    ``tail``. The text of a document does not depend on the documents before it, so the file
    can be written in parts (a ``merge --jobs`` worker's documents) joined in document order."""

    head: str
    document: Callable[[str, Document], str]
    tail: str = ""


@dataclass
class FilePart:
    """A part of a file for a reader to read on its own: the bytes ``[start, stop)``, which begin
    where a document begins (or at the file's start) and end where one begins (or at its end), so
    they hold whole documents (:attr:`Format.splits`).

    The reader reads them as it reads them in the whole file: lines (in errors and span
    sources) counted on from ``lines_before``, and documents (where the format numbers them, as
    CoNLL does) from ``documents_before``. What the whole file gives only at its end (the
    empty-file error, a note or warning summing something over the file) is not given; the
    reader adds what it is made of to ``counts`` instead, for the caller to add up over the
    parts and give once (``part_notes_<name>``).
    """

    start: int
    stop: int
    lines_before: int = 0
    documents_before: int = 0
    counts: dict = field(default_factory=dict)


class FolderListing(abc.ABC):
    """A folder of document files (:attr:`Format.folder_shards`) listed but not read: its units
    (a file, or a document's set of files, as BRAT's ``.txt`` and ``.ann``), read a shard at a time.

    Reading the whole folder (``stream_<name>``) is :meth:`documents` of every unit in order, then
    :meth:`finish` of the counts: reading shards of units in several processes, adding their
    counts up (numbers and counters add, lists are concatenated in shard order) and finishing
    once gives the same documents, warnings, errors, notes and end-of-folder warnings. A format
    subclasses it in its module; subclasses hold nothing but picklable data (a Dask task carries
    one to its worker).

    Attributes
    ----------
    name : str
        The span set's name (the folder's).
    format : str
        The format's name.
    units : dict of str to object
        Unit key → what reading the unit needs, in the reader's order (natural order of the keys,
        :func:`natural_key`). A unit's key is its document's id, or (a file holding several
        documents) the file's, which its documents' ids begin with: the copies of a document in
        several folders are in units of one key.
    """

    format = ""

    def __init__(self, name: str, units: dict):
        self.name = name
        self.units = units

    def new_counts(self) -> dict:
        """What :meth:`documents` adds to for :meth:`finish`, every key present (so that shards' counts add up)."""
        return {}

    @abc.abstractmethod
    def documents(self, keys, counts: dict) -> Iterator[Document]:
        """The documents of the units of ``keys`` this folder holds, in order, each read as reading
        the whole folder reads it (its warnings and errors included); ``counts`` added to.
        ``keys`` is :attr:`units` itself when the whole folder is read."""

    def finish(self, counts: dict) -> tuple[list[str], list[str]]:
        """The notes and the warnings reading the whole folder gives at its end, when ``counts``
        are every unit's (its shards' summed)."""
        return [], []


def listed_documents(listing: FolderListing, notes: list[str]) -> Iterator[Document]:
    """Every document of ``listing`` in order (a folder read whole: ``stream_<name>``), then its
    end-of-folder notes added to ``notes`` and its warnings given."""
    counts = listing.new_counts()
    yield from listing.documents(listing.units, counts)
    found, warned = listing.finish(counts)
    notes += found
    if warned:
        import warnings

        from ..errors import SpanagreeWarning

        for message in warned:
            warnings.warn(message, SpanagreeWarning, stacklevel=find_stack_level())


#: How much of a file the content recognisers (:attr:`Format.recognises`) see.
HEAD_BYTES = 4096


_XML_OPTIONS = (
    FormatOption("xml_label_attr", "label from this attribute (e.g. TYPE, class)", metavar="ATTR", writer=True,
                 details=" instead of the tag name; the writer then writes generic elements with the label in "
                         "this attribute"),
    FormatOption("xml_span_tags", "only these elements are spans", metavar="A,B", writer=True,
                 details="; the writer names generic elements after the first"),
    FormatOption("xml_doc_tag", "every TAG element is a document (e.g. DOC)", metavar="TAG", writer=True,
                 details="; without it each file's root is one; its id is its `id` attribute, else its 1-based "
                         "ordinal (in a folder, prefixed with the file's path and `#`: `sub/file#3`); the writer's "
                         "document element (default `doc`)"),
)

_CONLL_OPTIONS = (
    FormatOption("conll_column", "tag column, counted from 1 (default: last)", metavar="N", type=int,
                 details="; the token is column 1"),
    FormatOption("scheme", "decode strictly in this tag scheme (default: conlleval's lenient decoding)",
                 type=str.lower, choices=SCHEME_NAMES, writer=True,
                 details=", dropping invalid chunks with a warning giving their number (seqeval "
                         "`mode=\"strict\"`; "
                         + ", ".join(f"{alias} is {s.name}" for s in SCHEMES.values() for alias in s.aliases)
                         + "); the CoNLL writer's scheme (default `iob2`)"),
)

_XMI_OPTIONS = (
    FormatOption("xmi_typesystem", "the UIMA type system file(s), merged when several", metavar="PATH[,PATH]",
                 details=" (default: the `TypeSystem.xml` next to the file, else at the top of the folder; an "
                         "INCEpTION project's per-user zips hold theirs)"),
    FormatOption("xmi_type", "the annotation type read as spans", metavar="TYPE",
                 details=" (default `de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity`, INCEpTION's named "
                         "entities; a unique short name such as `NamedEntity` will do)"),
    FormatOption("xmi_feature", "the feature holding the label", metavar="FEATURE",
                 details=" (default `value`; an annotation without it is labelled with the type's short name)"),
    FormatOption("xmi_view", "the view (sofa) read", metavar="VIEW", details=" (default `_InitialView`)"),
)

_WEBANNO_OPTIONS = (
    FormatOption("webanno_layer", "the span layer read or written (full or short name; "
                 "default NamedEntity)", metavar="LAYER", writer=True,
                 details=": `de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity`, "
                         "`webanno.custom.Span` or `Span`; the writer takes a name without a "
                         "dot as `webanno.custom.<name>`"),
    FormatOption("webanno_feature", "the layer's feature that gives the label", metavar="FEATURE",
                 writer=True, details=" (default `value`, else the layer's first feature; an "
                                      "annotation without it is labelled with the layer's short "
                                      "name)"),
)

#: The formats, by name, in the order the command line and the docs list them.
FORMATS: dict[str, Format] = {
    "brat": Format("brat", "BRAT", "BRAT standoff: a folder of .txt + .ann files", (), (".ann",), 1, True, (
        FormatOption("brat_line_ends", "the offsets count the text with LF line ends while the .txt has CRLF: map "
                     "them onto the text as stored", choices=("lf",),
                     details=" (tools that normalise line ends on load write such files; without it they are "
                             "recognised from the text columns and the warning says so)"),
    ), drops=(), folder_shards=True),
    "xml": Format("xml", "XML", "inline XML markup (an .xml file or a folder of them)", (".xml",), (".xml",), 2,
                  False, _XML_OPTIONS, folder_shards=True),
    "conll": Format("conll", "CoNLL", "CoNLL columns with IOB/BIOES tags",
                    (".conll", ".bio", ".iob", ".tsv", ".txt", ".test", ".dev", ".train", ""), (".conll",), 4,
                    False, _CONLL_OPTIONS, drops=("attributes", "ids"), splits=True),
    "jsonl": Format("jsonl", "JSONL", "JSON lines {id, text, spans: [{start, end, label}]} (spaCy/Prodigy, doccano)",
                    (".jsonl", ".json", ".ndjson"), (".jsonl",), 3, False, container=True, splits=True),
    "gate": Format("gate", "GATE", "GATE XML (a GateDocument file or a folder of them): each annotation set an annotator",
                   (), (), 9, False, (
                       FormatOption("gate_label_feature", "label from this feature of each annotation", metavar="F",
                                    details=" instead of its type (annotations without it are left out, counted in "
                                            "the notes)"),
                   ), container=True, recognises=True, writable=False, folder_shards=True),
    "labelstudio": Format("labelstudio", "Label Studio", "Label Studio JSON or JSON-MIN export (a .json task list): "
                          "each annotator a span set", (), (), 9, False, (
                              FormatOption("labelstudio_text_field", "the task's data field holding the text",
                                           metavar="KEY", details=" (default: the results' `to_name` when the data "
                                           "has that key, else `text`, else the task's only string field)"),
                              FormatOption("labelstudio_predictions", "also read the predictions, one span set per "
                                           "model version", flag_only=True,
                                           details=" (role prediction: they join a command when named with "
                                                   "`--annotators` or `--gold`)"),
                          ), container=True, recognises=True),
    "docbin": Format("docbin", "spaCy DocBin", "spaCy DocBin (a .spacy file): doc.ents or a span group", (".spacy",),
                     (), 9, False, (
                         FormatOption("docbin_spans_key", "read (and write) the span group doc.spans[KEY]",
                                      metavar="KEY", writer=True,
                                      details=" instead of `doc.ents` (a span group may hold overlapping spans)"),
                     )),
    "webanno": Format("webanno", "WebAnno TSV", "WebAnno / INCEpTION TSV 3.x (a .tsv file starting #FORMAT=WebAnno "
                      "TSV 3, or a folder of them): one span layer", (), (), 9, True, _WEBANNO_OPTIONS,
                      recognises=True, folder_shards=True),
    "xmi": Format("xmi", "XMI", "UIMA CAS XMI (an .xmi file or a folder of them, with the TypeSystem.xml; INCEpTION, "
                  "DKPro)", (".xmi",), (), 9, False, _XMI_OPTIONS, recognises=True, writable=False,
                  folder_shards=True),
    "inception": Format("inception", "INCEpTION", "INCEpTION project export (the .zip or its unpacked folder): each "
                        "user a span set, the curation its own", (".zip",), (), 9, False,
                        _XMI_OPTIONS + _WEBANNO_OPTIONS, container=True, recognises=True, writable=False),
}


def writable_formats() -> list[str]:
    """The names of the formats that can be written (:attr:`Format.writable`), in registry order."""
    return [name for name, fmt in FORMATS.items() if fmt.writable]


_DIGIT_RUNS = re.compile(r"([0-9]+)")


def natural_key(name: str) -> tuple:
    """The key that sorts names in natural order: runs of digits compared as numbers, so ``doc2``
    comes before ``doc10`` (and ``sub/2`` before ``sub/10``); the order every folder reader lists
    its documents in.

    Equal numbers written differently (``doc02``, ``doc2``) are ordered by their spelling, so the
    order is total and does not depend on the file system.

    Examples
    --------
    >>> sorted(["doc10", "doc2", "doc1", "a/doc02", "a/doc2", "b"], key=natural_key)
    ['a/doc02', 'a/doc2', 'b', 'doc1', 'doc2', 'doc10']
    """
    parts = _DIGIT_RUNS.split(name)  # text, digits, text, digits, ..., text
    return tuple((int(part), part) if index % 2 else part for index, part in enumerate(parts))


def registered_options() -> list[tuple[FormatOption, list[Format]]]:
    """Every format option once, in registry order, with the formats that declare it.

    Several formats may take one keyword (a later format with tags could take ``scheme``): each
    declares the same record, and the command line has the option once.

    Examples
    --------
    >>> [(o.flag, [f.name for f in formats]) for o, formats in registered_options()][4:6]
    [('--conll-column', ['conll']), ('--scheme', ['conll'])]
    """
    found: dict[str, tuple[FormatOption, list[Format]]] = {}
    for fmt in FORMATS.values():
        for option in fmt.options:
            found.setdefault(option.keyword, (option, []))[1].append(fmt)
    return list(found.values())


def options_table() -> str:
    """The docs' table of format options, made from the registry (docs/formats.md and docs/cli.md
    hold it; a test checks that they hold this one).

    A row per option: the flag with its metavar (or its choices), the formats, and the help
    followed by the details.
    """
    rows = ["| option | format | meaning |", "|---|---|---|"]
    for option, formats in registered_options():
        value = "" if option.flag_only else option.metavar or "|".join(option.choices or ())
        flag = f"`{option.flag} {value}`".replace("|", "\\|") if value else f"`{option.flag}`"
        rows.append(f"| {flag} | {', '.join(f.title for f in formats)} | {option.help}{option.details} |")
    return "\n".join(rows) + "\n"


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
    role : {"annotator", "curation", "prediction", "other"}
        What the span set is in a container (:attr:`Format.container`): an annotator's (the
        default, and every single-annotator file's), a curation (INCEpTION's curated copy), or a
        model's predictions (Label Studio's). Commands take the annotators of a container, and the
        others only when named (:func:`open_annotators`).
    path : str, optional
        The file or folder it is read from (set by :func:`open_stream` and
        :func:`container_streams`), for messages about the whole input.
    listing : FolderListing, optional
        A container's span set kept in a folder of document files (:attr:`Format.folder_shards`):
        the listing ``documents`` reads whole, so that ``--jobs`` workers and Dask tasks read
        their own shards of it instead (a container's path is several span sets, so the
        listings come with its streams, not from ``list_<name>``).
    """

    name: str
    format: str
    documents: Iterator[Document]
    notes: list[str] = field(default_factory=list)
    role: str = "annotator"
    path: str | None = None
    listing: FolderListing | None = None


#: The roles a span set in a container may have (:attr:`DocumentStream.role`): an annotator's,
#: a curation, a model's predictions, or another set the tool keeps beside the annotators (GATE's
#: default set and its ``Original markups``). All but annotators join a command only when named.
ROLES = ("annotator", "curation", "prediction", "other")


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
    """The format of a path, told by the registry: a file's by its extension
    (:attr:`Format.extensions`), a folder's by the files inside (:attr:`Format.folder_extensions`,
    in order of :attr:`Format.folder_precedence`).

    A folder holding ``.ann`` files is BRAT, else one holding ``.xml`` files XML, else ``.jsonl``
    JSONL, else ``.conll`` CoNLL (the last two are read from one file: their readers then say
    so). A file ``.txt`` (or without extension) is CoNLL, as are ``.conll``, ``.bio``, ``.iob``,
    ``.tsv``, ``.test``, ``.dev`` and ``.train``.

    Raises
    ------
    FormatError
        No such path, a folder with none of those files, or an extension no format claims.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> (folder / "a.ann").touch(); (folder / "b.xml").touch()
    >>> detect_format(folder), detect_format(folder / "b.xml")
    ('brat', 'xml')
    """
    path = Path(path)
    if not path.exists():
        raise FormatError(path, "no such file or folder")
    recognised = recognised_format(path)
    if recognised is not None:
        return recognised
    if path.is_dir():
        by_precedence = sorted(FORMATS.values(), key=lambda fmt: fmt.folder_precedence)
        for fmt in by_precedence:
            for suffix in fmt.folder_extensions:
                if next(path.rglob(f"*{suffix}"), None) is not None:
                    return fmt.name
        suffixes = [suffix for fmt in by_precedence for suffix in fmt.folder_extensions]
        listed = ", ".join(suffixes[:-1]) + " or " + suffixes[-1] if len(suffixes) > 1 else suffixes[0]
        raise FormatError(path, f"empty folder: no {listed} file in it")
    suffix = path.suffix.lower()
    for fmt in FORMATS.values():
        if suffix in fmt.extensions:
            return fmt.name
    raise FormatError(path, f"cannot tell the format from the extension {suffix!r}; give {{format}}", format="format")


def recognised_format(path: Path) -> str | None:
    """The first format whose recogniser claims ``path`` by its content (:attr:`Format.recognises`),
    containers before the others, else in registry order; ``None`` when none does."""
    # containers first: their layouts are the more specific (an INCEpTION project folder holds
    # .xmi files, which alone would make it XMI)
    sniffers = sorted((fmt for fmt in FORMATS.values() if fmt.recognises), key=lambda fmt: not fmt.container)
    if not sniffers:
        return None
    head = None
    if not path.is_dir():
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):
                return None  # a pipe or a device is never read ahead (its bytes would be lost)
            with open(path, "rb") as file:
                head = file.read(HEAD_BYTES)
        except OSError:
            return None
    for fmt in sniffers:
        if fmt.recogniser()(path, head):
            return fmt.name
    return None


def read(path: str | os.PathLike, format: str | None = None, *, name: str | None = None,
         annotator: str | None = None, **options) -> SpanSet:
    """Read one annotator's span set.

    Parameters
    ----------
    path : str or path
        A file or a folder.
    format : {"brat", "xml", "conll", "jsonl"}, optional
        Detected from the path when not given.
    name : str, optional
        The span set's name; defaults to the file stem or folder name (in a container: the
        annotator's id).
    annotator : str, optional
        In a container (:attr:`Format.container`), whose span set to read; may be left out when
        the container holds one annotator. Elsewhere it must be left out.
    **options
        Format options by keyword (:func:`registered_options`: ``xml_label_attr``,
        ``conll_column``, ``scheme``, ...); those the format's reader does not take are ignored,
        so one set of options can serve a mixed call.

    Raises
    ------
    FormatError
        Bad input, naming the file (and line).
    UsageError
        A container holding several annotators and no ``annotator`` chosen (the message lists
        them), or an ``annotator`` it does not hold.
    """
    if annotator is None and is_container(path, format):
        every = container_streams(path, format, **options)
        streams = [s for s in every if s.role == "annotator"]
        if len(streams) != 1:
            names = ", ".join(s.name if s.role == "annotator" else f"{s.name} ({s.role})" for s in every)
            raise UsageError(f"{path} holds {len(streams)} annotators{f' ({names})' if names else ''}; choose one "
                             "with {option}", option="annotator", flag="--annotators")
        stream = streams[0]
        if name is not None:
            stream.name = name
        return collect(stream)
    if annotator is not None:
        (stream,) = open_annotators(path, format, annotators=[annotator], **options)
        if name is not None:
            stream.name = name
        return collect(stream)
    return collect(open_stream(path, format, name=name, **options))


def is_container(path: str | os.PathLike, format: str | None = None) -> bool:
    """Whether ``path`` (in ``format``, detected when not given) holds several annotators
    (:attr:`Format.container`); ``False`` where the format cannot be told (reading will say why)."""
    try:
        return get_format(format or detect_format(path)).container
    except (FormatError, UsageError):
        return False


def open_annotators(path: str | os.PathLike, format: str | None = None, *, annotators=None, also=(),
                    share_out=None, **options) -> list[DocumentStream]:
    """The span sets one path holds, as streams: one for a single-annotator format, one per
    annotator for a container (:attr:`Format.container`), nothing read yet.

    Parameters
    ----------
    path, format, **options
        As in :func:`read`.
    annotators : list of str, optional
        Pick and order a container's span sets by name (an unknown name is a
        :class:`UsageError` listing the names it holds). Without it, the container's span sets of
        role ``"annotator"`` in the export's order, and those named in ``also`` (a curation or a
        prediction joins only when named).
    also : collection of str
        Names to take even when their role is not ``"annotator"`` (``score --gold curation``).
    share_out : callable, optional
        As in :func:`container_streams`.
    """
    fmt = get_format(format) if format else get_format(detect_format(path))
    if not fmt.container:
        if annotators:
            raise UsageError(f"{{option}} picks annotators inside an export that holds several; {path} is "
                             f"{fmt.title}, one annotator per path", option="annotators", flag="--annotators")
        return [open_stream(path, fmt.name, **options)]
    streams = container_streams(path, fmt.name, share_out=share_out, **options)
    if annotators is None:
        return [s for s in streams if s.role == "annotator" or s.name in also]
    by_name = {s.name: s for s in streams}
    unknown = [a for a in annotators if a not in by_name]
    if unknown:
        raise UsageError(f"{path} holds no annotator {', '.join(map(repr, unknown))}; it holds: "
                         + (", ".join(f"{s.name} ({s.role})" if s.role != "annotator" else s.name
                                      for s in streams) or "none"), option="annotators", flag="--annotators")
    return [by_name[a] for a in annotators]


def open_stream(path: str | os.PathLike, format: str | None = None, *, name: str | None = None,
                **options) -> DocumentStream:
    """One annotator's documents as a :class:`DocumentStream`: :func:`read` one document at a time
    (``read`` is this stream collected).

    Parameters and errors as :func:`read`; reading errors come as the documents are read.
    ``max_record_bytes`` (every format; default :data:`MAX_RECORD_BYTES`) bounds what one record
    may take, so that endless input ends in one error.
    """
    fmt, own = _reader_options(path, format, options)
    stream = fmt.streamer()(path, name=name, **own)
    stream.path = stream.path or str(path)
    return stream


def chosen_stream(path, streams: list[DocumentStream], annotator: str | None, name: str | None = None
                  ) -> DocumentStream:
    """What a container's ``stream_<name>(path, annotator=)`` returns: of the container's
    ``streams``, the span set called ``annotator``, or its one annotator when ``annotator`` is
    ``None``; renamed ``name`` when given.

    Raises
    ------
    UsageError
        No ``annotator`` given and not exactly one annotator in the container, or no span set
        called ``annotator`` (the message lists what the container holds).
    """
    if annotator is None:
        users = [s for s in streams if s.role == "annotator"]
        if len(users) != 1:
            raise UsageError(f"{path} holds {len(users)} annotators ({', '.join(s.name for s in users)}); "
                             "choose one with {option}", option="annotator", flag="--annotators")
        chosen = users[0]
    else:
        chosen = next((s for s in streams if s.name == annotator), None)
        if chosen is None:
            raise UsageError(f"{path} holds no annotator {annotator!r}; it holds: "
                             + ", ".join(s.name for s in streams), option="annotator", flag="--annotators")
    if name is not None:
        chosen.name = name
    return chosen


def _reader_options(path, format: str | None, options: dict) -> tuple[Format, dict]:
    """The format of ``path`` (``format``, else detected) and the keywords its reader takes from
    ``options`` (those given, and the checked ``max_record_bytes``)."""
    fmt = get_format(format) if format else get_format(detect_format(path))
    if not Path(path).exists():
        raise FormatError(path, "no such file or folder")
    own = {k: v for k, v in options.items() if k in fmt.reader_keywords and v is not None}
    limit = options.get("max_record_bytes")
    if limit is not None:
        if type(limit) is not int or limit < 1:
            raise UsageError(f"{{option}} must be a positive number of bytes, not {limit!r}", option="max_record_bytes")
        own["max_record_bytes"] = limit
    return fmt, own


def container_streams(path: str | os.PathLike, format: str | None = None, *, share_out=None,
                      **options) -> list[DocumentStream]:
    """Every span set a container holds (whatever its role), in the export's order, as streams;
    ``options`` as in :func:`read` (those the format does not take are ignored). ``share_out``:
    for a container kept in a folder of document files (:attr:`Format.folder_shards`), what
    shares out listing its span sets, ``share_out(function, files, reads=[path])`` giving each
    contiguous shard's ``function(shard)`` in order, or ``None`` (then the files are listed
    here); ``--jobs`` gives its processes' (:func:`spanagree.pipeline.parallel.sharing`), a Dask
    cluster its workers' (:func:`spanagree.pipeline.cluster.sharing`)."""
    fmt, own = _reader_options(path, format, options)
    if fmt.folder_shards and share_out is not None:
        own["share_out"] = share_out
    streams = fmt.annotators()(path, **own)
    for stream in streams:
        stream.path = stream.path or str(path)
    return streams


def too_large(path: str, what: str, limit: int, line: int | None = None) -> FormatError:
    """The error for a record beyond ``max_record_bytes``, naming the option that raises the limit."""
    return FormatError(path, f"{what} is longer than {limit:,} bytes, the largest record read "
                       "(raise it with {max_record_bytes})", line, max_record_bytes="max_record_bytes")


def write_documents(writer: FileWriter, spanset: SpanSet, dest: str | os.PathLike) -> None:
    """Write ``spanset`` with ``writer`` to the file ``dest``, one document at a time (nothing is
    left at ``dest`` when a document is refused)."""
    with written_or_removed(dest) as file:
        file.write(writer.head)
        for doc_id, document in spanset.documents.items():
            file.write(writer.document(doc_id, document))
        file.write(writer.tail)


@contextlib.contextmanager
def written_or_removed(dest: str | os.PathLike):
    """A text file (UTF-8, ``\\n`` line ends) that a writer fills one document at a time, removed
    again if writing fails (a document refused half-way), so that nothing is written then and no
    writer holds the whole output in memory."""
    path = os.fspath(dest)
    file = open(path, "w", encoding="utf-8", newline="\n")
    try:
        with file:
            yield file
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(path)
        raise


def write(spanset: SpanSet, dest: str | os.PathLike, format: str, *, unkept: dict[str, int] | None = None,
          attribute_keys: dict[str, int] | None = None, parts=None, **options) -> None:
    """Write a span set to ``dest`` (a folder for BRAT, a file otherwise) in ``format``.

    Only the options the chosen format's writer takes (:attr:`Format.writer_keywords`) are passed
    on, so one set of command-line options can serve a reader and a writer (``--conll-column``
    means something to the CoNLL reader only). The caller decides about overwriting. What the
    format cannot hold (:func:`dropped`, and ``unkept``: what the reader read and no span set
    holds, such as BRAT's relations) is announced in one
    :class:`~spanagree.errors.SpanagreeWarning` once written. ``attribute_keys``: the spans'
    attribute keys counted, when the caller knows them (``merge``'s gold: one note per span), so
    that the spans are not read once more to count them. ``parts``: the documents already written
    in this format by ``merge --jobs`` workers (:class:`~spanagree.pipeline.parts.GoldParts`),
    joined here in the span set's order (a document they lack is written here).
    """
    fmt = get_format(format)
    if not fmt.writable:
        raise UsageError(f"spanagree reads {fmt.title} but does not write it; write one of: "
                         + ", ".join(writable_formats()))
    own = {k: v for k, v in options.items() if k in fmt.writer_keywords and v is not None}
    if parts is not None:
        parts.write(spanset, dest, fmt, own)
    else:
        fmt.writer()(spanset, dest, **own)
    lost = dropped(spanset, fmt.name, attribute_keys) + [_counted(number, kind) for kind, number in (unkept or {}).items() if number]
    if lost:
        import warnings

        from ..errors import SpanagreeWarning

        warnings.warn(f"{fmt.title} output: not written: {'; '.join(lost)}", SpanagreeWarning, stacklevel=find_stack_level())


# Span attributes by key prefix (spanagree.formats.brat keeps BRAT's lines on spans this way).
_ATTRIBUTE_KINDS = {"#": ("note", "notes", "BRAT #, e.g. AnnotatorNotes"), "A": ("attribute", "attributes", "BRAT A"),
                    "N": ("normalization", "normalizations", "BRAT N")}


def dropped(spanset: SpanSet, format: str, attribute_keys: dict[str, int] | None = None) -> list[str]:
    """What writing ``spanset`` in ``format`` leaves out, counted (:attr:`Format.drops`): the
    spans' attributes by kind, and the document ids where the format numbers its documents.

    Examples
    --------
    >>> from spanagree.span import Span
    >>> span = Span.trusted("doc-a", ((0, 2),), "X", None, (("#:AnnotatorNotes", "C0011849"), ("A:Negation", "True")))
    >>> s = SpanSet.from_spans("a", [span], {"doc-a": "ab"})
    >>> dropped(s, "jsonl"), dropped(s, "brat")
    (['1 note (BRAT #, e.g. AnnotatorNotes) on spans, 1 attribute (BRAT A) on spans'], [])
    >>> dropped(s, "conll")[1]
    'the document ids (doc-a): CoNLL numbers its documents 1 to 1'
    """
    fmt = get_format(format)
    lost = []
    if "attributes" in fmt.drops:
        if attribute_keys is None:
            attribute_keys = {}
            for span in spanset:
                for key, _ in span.attributes:
                    attribute_keys[key] = attribute_keys.get(key, 0) + 1
        kinds: dict[str, int] = {}
        for key, number in attribute_keys.items():
            kind = key[:1] if key[:1] in _ATTRIBUTE_KINDS else "other"
            kinds[kind] = kinds.get(kind, 0) + number
        parts = [f"{kinds[k]} {_ATTRIBUTE_KINDS[k][0] if kinds[k] == 1 else _ATTRIBUTE_KINDS[k][1]} "
                 f"({_ATTRIBUTE_KINDS[k][2]}) on spans" for k in _ATTRIBUTE_KINDS if kinds.get(k)]
        if kinds.get("other"):
            parts.append(f"{kinds['other']} other span attribute{'s' if kinds['other'] != 1 else ''}")
        if parts:
            lost.append(", ".join(parts))
    if "ids" in fmt.drops:
        ids = list(spanset.documents)
        if ids != [str(n) for n in range(1, len(ids) + 1)]:
            shown = ", ".join(ids[:3]) + (", ..." if len(ids) > 3 else "")
            lost.append(f"the document ids ({shown}): {fmt.title} numbers its documents 1 to {len(ids)}")
    return lost


def _counted(number: int, kind: str) -> str:
    return f"{number} {kind}{'s' if number != 1 else ''}"


def convert(path: str | os.PathLike, dest: str | os.PathLike, *, to: str, source_format: str | None = None,
            force: bool = False, annotator: str | None = None, tokenize: bool = False, lang: str | None = None,
            spacy_model: str | None = None, **options) -> SpanSet:
    """Read ``path`` (in ``source_format``, detected when not given) and write it to ``dest`` in ``to``.

    ``annotator`` chooses the span set of a container holding several (as in :func:`read`).
    ``tokenize`` (with ``to="conll"``) puts raw texts in CoNLL's shape first, with spaCy's
    tokenizer and sentence splitter: a blank ``lang`` pipeline (default ``en``) or the pipeline
    ``spacy_model`` (:func:`spanagree.formats.retokenize.conll_shaped`).
    ``dest`` is written atomically and an existing non-empty one only replaced with ``force``
    (:func:`spanagree.outputs.write_atomically`). Returns the span set written.
    """
    from ..outputs import write_atomically

    if tokenize and to != "conll":
        raise UsageError("{option} puts texts in CoNLL's shape: it goes with CoNLL output", option="tokenize",
                         flag="--tokenize")
    if not tokenize and (lang is not None or spacy_model is not None):
        raise UsageError("lang and spacy_model choose the tokenizer of tokenize=True; give tokenize")
    if lang is not None and spacy_model is not None:
        raise UsageError("lang and spacy_model exclude each other (the pipeline has its own language)")
    with collector_paused(freeze=True):  # what is read lives until the process ends
        spanset = read(path, source_format, annotator=annotator, **options)
    if tokenize:
        from .retokenize import conll_shaped

        spanset = conll_shaped(spanset, lang=lang, spacy_model=spacy_model)
    unkept = None
    if spanset.format == "brat":
        from .brat import unkept_lines

        unkept = unkept_lines(spanset.notes)
    write_atomically(dest, lambda temporary: write(spanset, temporary, to, unkept=unkept, **options), force=force)
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


#: The id of the one document a file of a one-document format holds (a WebAnno TSV, XMI or GATE
#: file), as a one-document CoNLL or XML file's: two annotators' files of a document line up.
SINGLE_FILE_ID = "1"


def document_files(path: str, scan: Callable[[str], list[tuple[str, str]]]) -> list[tuple[str, str, bool]]:
    """``(document id, file, in a folder)`` for a format that keeps one document per file: a
    folder's files as ``scan(folder)`` lists them (``(id, file)``), or the file given, with id
    :data:`SINGLE_FILE_ID`."""
    if os.path.isdir(path):
        return [(doc_id, file, True) for doc_id, file in scan(path)]
    return [(SINGLE_FILE_ID, path, False)]


def read_document_file(file: str, in_folder: bool, limit: int, what: str) -> bytes:
    """All the bytes of a one-document file (:func:`document_files`): in a folder a regular file
    only (:func:`read_regular`; ``what`` names the folder's files, ``"a folder's .tsv files"``),
    the file given as the path whatever it is (:func:`read_bounded`: a pipe too).

    Raises
    ------
    FormatError
        No such file, a folder, unreadable, or larger than ``limit``.
    """
    try:
        if in_folder:
            return read_regular(file, what, limit)
        with open(file, "rb") as handle:
            return read_bounded(handle, file, limit, "the file")
    except FileNotFoundError:
        raise FormatError(file, "no such file") from None
    except IsADirectoryError:
        raise FormatError(file, "is a folder") from None
    except OSError as error:
        raise FormatError(file, f"cannot read: {error.strerror or error}") from None
