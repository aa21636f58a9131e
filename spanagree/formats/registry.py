"""The format registry: :class:`Format`, what a format is and declares; :data:`FORMATS`, the
formats by name; their options (:class:`FormatOption`).

The registry is the single source of truth for formats: their names drive the command line's
choices and the error for an unknown name, their extensions auto-detection
(:func:`spanagree.formats.detect_format`), their options the command line's format options, the
keywords passed to readers and writers, and the docs' options table, and their capabilities
(:class:`Format`'s flags) what the rest of spanagree does with them: no module outside
``spanagree/formats/`` names a format.

An entry is declared here, with no import of its module (``spanagree --help`` imports none); its
module registers its functions on it (:meth:`Format.provides`), and the entry imports that
module the first time one of them is asked for (:meth:`Format.streamer`, ...). What each function
is, and which capability it goes with, is :data:`FORMAT_FUNCTIONS`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

from ..errors import UsageError
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
        Two exceptions: CoNLL's ``scheme``, kept for its users, and JSONL's ``doccano_labels``,
        named after the tool whose exports it reads.
    help : str
        The command line's help text, without the format's name (``"XML: "`` is put before it).
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
    path : bool
        The value names files (several comma-separated, as ``--xmi-typesystem``): a Dask
        cluster's workers are given them as absolute paths (:func:`path_options`).
    internal : bool
        Set by a command, never given: no flag, not in :func:`registered_options` (nor so in the
        command line, the docs' table and the docstrings' lists), but a keyword the reader takes
        (``conll_drop_hash_rows``, which ``score --pairing hipe`` sets).

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
    path: bool = False
    internal: bool = False

    @property
    def flag(self) -> str:
        """The command-line flag: ``--`` and the keyword with ``-`` for ``_`` (``--<format>-<option>``)."""
        return "--" + self.keyword.replace("_", "-")


@dataclass(frozen=True)
class FormatFunction:
    """One function a format's module registers on its entry (:meth:`Format.provides`).

    Parameters
    ----------
    kind : str
        The function's name on the entry (:meth:`Format.streamer` gives the ``"streamer"``).
    does : str
        Its signature and what it does.
    capability : str, optional
        The entry's flag it goes with: registered if and only if the entry declares it
        (``"container"``: a container, and only a container, registers ``"annotators"``).
    needs : str, optional
        For a function a format may do without: the flag the entry must declare to register it.
    required : bool
        Every format registers it (the reader).
    """

    kind: str
    does: str
    capability: str | None = None
    needs: str | None = None
    required: bool = False


#: The functions a format registers on its entry, by kind: the protocol every format follows.
FORMAT_FUNCTIONS: dict[str, FormatFunction] = {f.kind: f for f in (
    FormatFunction("streamer", "``stream_<name>(path, *, name=None, **options) -> DocumentStream``: the reader, "
                   "documents one at a time (``read_<name>`` is the same stream collected)", required=True),
    FormatFunction("writer", "``write_<name>(spanset, dest, **options) -> None``: the writer", capability="writable"),
    FormatFunction("annotators", "``annotators_<name>(path, **options) -> list[DocumentStream]``: a container's "
                   "span sets, one stream per annotator in the export's order", capability="container"),
    FormatFunction("recogniser", "``recognise_<name>(path, head) -> bool``: the format told by its content",
                   capability="recognises"),
    FormatFunction("document_starts", "``document_starts_<name>(path)``: where documents begin, found in the bytes "
                   "alone (each document's byte offset and the lines before it)", capability="splits"),
    FormatFunction("part_notes", "``part_notes_<name>(path, counts, **options) -> (notes, warnings)``: what the "
                   "whole file gives at its end, from its parts' counts added up", capability="splits"),
    FormatFunction("lister", "``list_<name>(path, **options) -> FolderListing``: a folder's document files "
                   "listed in the reader's order, nothing read", capability="folder_shards"),
    FormatFunction("file_writer", "``file_writer_<name>(**options) -> FileWriter``: the writer of one file, a "
                   "document at a time (``write_<name>`` writes through it; ``merge --jobs`` workers write "
                   "their documents' part of the file with it)", needs="writable"),
    FormatFunction("document_files", "a :class:`~spanagree.formats.DocumentFiles`: the writer of a folder, each "
                   "document's files of their own (``merge --jobs`` workers write their documents' files with it)",
                   needs="writes_to_folder"),
    FormatFunction("document_counter", "``(path) -> int | None``: the documents of a path counted without "
                   "reading them (the progress bar's total), ``None`` when they cannot be"),
    FormatFunction("document_names", "``(path, known: set[str]) -> list[str] | None``: the ids a file of a "
                   "format that numbers its documents gives them, one per document in order, each one of "
                   "``known`` (CoNLL's ``-DOCSTART-`` lines), or ``None`` when it names none", needs="numbered"),
    FormatFunction("unkept", "``(notes) -> dict[str, int]``: of what a span set's notes count, what no span "
                   "set keeps (BRAT's equivalences), by kind, for a writer to announce"),
    FormatFunction("symmetric_relations", "``(path) -> frozenset[str]``: the relation types a path's own "
                   "configuration declares symmetric (BRAT's ``annotation.conf``), which ``relations=True`` "
                   "matches in either argument order"),
)}


@dataclass(frozen=True, kw_only=True)
class Format:
    """A registered format: what it is, how it is recognised, its options, and what it can do.

    Built by keyword; the flags declare its capabilities, and each capability has its functions
    (:data:`FORMAT_FUNCTIONS`), which the format's module registers (:meth:`provides`) and the
    rest of spanagree asks the entry for (:meth:`streamer`, :meth:`annotators`, ...): nothing
    looks a format up by its name, and a test checks that every entry's declarations hold.

    Parameters
    ----------
    name : str
        The registry name (``--format``, ``--to``, :attr:`~spanagree.formats.DocumentStream.format`).
    title : str
        How the docs and help texts write it (``CoNLL``).
    description : str
        One line: what the format is.
    module : str, optional
        The module that registers the format's functions, imported the first time one is asked
        for (``spanagree.formats.conll``); ``None`` for an entry whose functions are registered
        on it directly.
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
        file with several annotation sets): the module registers :meth:`annotators`,
        ``annotators_<name>(path, **options) -> list[DocumentStream]``, one stream per annotator
        in the export's order, each named by the tool's annotator id (see
        :func:`~spanagree.formats.open_annotators`). ``stream_<name>`` then takes ``annotator=``
        and reads that one.
    writable : bool
        The module registers a writer (:meth:`writer`): ``convert --to`` and ``merge --to`` offer
        the format (:func:`writable_formats`).
    recognises : bool
        The format is told by content, before any extension rule: the module registers
        :meth:`recogniser`, ``recognise_<name>(path: Path, head: bytes | None) -> bool``, given a
        file's first :data:`~spanagree.formats.HEAD_BYTES` bytes (``None`` for a folder). It must
        be cheap and import nothing heavy (a WebAnno TSV file is a ``.tsv`` whose first line is
        ``#FORMAT=WebAnno TSV 3``; a Label Studio export a ``.json`` holding a list).
    drops : tuple of str
        What the writer cannot hold of a span set, announced when writing drops it
        (:func:`~spanagree.formats.dropped`): ``"attributes"``, the spans' attributes (BRAT's
        notes ``#``, attributes ``A`` and normalisations ``N``; but those named in
        :attr:`kept_attributes`); ``"notes"``, only the notes (``#:`` keys: free text, never
        compared); ``"relations"``, the documents' relations and events;
        ``"events"``, the events and the relations other than ``Arg1`` → ``Arg2`` (a format that
        holds binary relations only); ``"ids"``, the document ids: the format numbers its
        documents (:attr:`numbered`); ``"layers"``, what INCEpTION's layers (span features,
        binary relations) cannot hold (:func:`spanagree.formats.layers.unwritten`: notes,
        attributes whose names cannot be features', events, relations of other than two
        arguments or to spans the document lacks). Default: the attributes and the relations.
    kept_attributes : tuple of str
        With ``"attributes"`` in :attr:`drops`, the attributes the writer does write all the same
        (spaCy's DocBin writes ``kb_id``, its entities' knowledge-base ids).
    splits : bool
        A file can be read in parts, each a byte range of whole documents read on its own
        (``--jobs`` workers: :mod:`spanagree.pipeline.parallel`): ``stream_<name>`` takes
        ``part=`` (a :class:`~spanagree.formats.FilePart`), and the module registers
        :meth:`document_starts` (where documents begin, found in the bytes alone: each
        document's byte offset and the lines before it, yielded as the scan finds them) and
        :meth:`part_notes` (``(path, counts, **options) -> (notes, warnings)``: what the whole
        file gives at its end, made from its parts' :attr:`~spanagree.formats.FilePart.counts` added up).
    folder_shards : bool
        A folder keeps its documents in files of their own (one document per file, or a known set
        of documents per file), read in shards (``--jobs`` workers, Dask tasks:
        :mod:`spanagree.pipeline.parallel`): the module registers :meth:`lister`,
        ``list_<name>(path, **options) -> FolderListing`` (the folder's document files listed in
        the reader's order, nothing read; the errors of the listing as ``stream_<name>`` gives
        them), and ``stream_<name>`` of a folder reads that listing whole
        (:func:`~spanagree.formats.listed_documents`). A container (a GATE folder: one folder,
        several span sets) gives its folders' streams their listings
        (:attr:`~spanagree.formats.DocumentStream.listing`), which the workers read as they read a listed path; its
        ``list_<name>`` lists the span set ``stream_<name>`` chooses, and its
        ``annotators_<name>`` takes ``share_out=`` (what shares out the work of finding the span
        sets: :func:`~spanagree.formats.container_streams`).
    strings : bool
        Its documents hold strings without positions (a prompted model's answers,
        :class:`~spanagree.span.StringsDocument`): ``score`` places them in the gold's text
        before comparing (:mod:`spanagree.pipeline.placing`); ``agree``, ``merge`` and ``convert`` refuse them.
    tokens : bool
        Its documents come with their tokens (``Document.tokens_from_text``: the
        whitespace-separated pieces of the text, as CoNLL's): ``agree --chance`` counts them
        instead of spaCy's, and ``convert --tokenize`` (which puts texts in that shape) writes to
        it.

    Examples
    --------
    >>> toy = Format(name="toy", title="Toy", description="a test format", extensions=(".toy",))
    >>> toy.container, toy.writable, toy.numbered, toy.file_writer()
    (False, True, False, None)
    """

    name: str
    title: str
    description: str
    module: str | None = None
    extensions: tuple[str, ...] = ()
    folder_extensions: tuple[str, ...] = ()
    folder_precedence: int = 0
    writes_to_folder: bool = False
    options: tuple[FormatOption, ...] = ()
    container: bool = False
    recognises: bool = False
    writable: bool = True
    drops: tuple[str, ...] = ("attributes", "relations")
    kept_attributes: tuple[str, ...] = ()
    splits: bool = False
    folder_shards: bool = False
    tokens: bool = False
    strings: bool = False
    _functions: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def numbered(self) -> bool:
        """The format numbers its documents ``"1"``, ``"2"``, ... in file order instead of naming
        them (CoNLL): ``"ids"`` in :attr:`drops`. A numbered prediction is paired with a gold of
        named documents by :meth:`document_names`, else in order (``score --align-text``)."""
        return "ids" in self.drops

    @property
    def reader_keywords(self) -> frozenset[str]:
        """The keywords the reader takes (besides ``name``)."""
        return frozenset(o.keyword for o in self.options if o.reader)

    @property
    def writer_keywords(self) -> frozenset[str]:
        """The keywords the writer takes."""
        return frozenset(o.keyword for o in self.options if o.writer)

    def provides(self, kind: str, function=None):
        """Register ``function`` as the format's function of ``kind`` (:data:`FORMAT_FUNCTIONS`);
        without ``function``, a decorator that does (``@FORMAT.provides("streamer")``).

        Raises
        ------
        ValueError
            An unknown kind, or a kind whose capability the entry does not declare (a format that
            is no container registers no ``"annotators"``).
        """
        spec = FORMAT_FUNCTIONS.get(kind)
        if spec is None:
            raise ValueError(f"no format function {kind!r}; the kinds are: {', '.join(FORMAT_FUNCTIONS)}")
        declared = spec.capability or spec.needs
        if declared is not None and not getattr(self, declared):
            raise ValueError(f"format {self.name!r} does not declare {declared}: it registers no {kind}")

        def register(function):
            self._functions[kind] = function
            return function

        return register if function is None else register(function)

    def registered(self, kind: str):
        """The function of ``kind`` the format's module registered (the module imported the first
        time), or ``None``."""
        if kind not in FORMAT_FUNCTIONS:
            raise ValueError(f"no format function {kind!r}; the kinds are: {', '.join(FORMAT_FUNCTIONS)}")
        if kind not in self._functions and self.module is not None:
            importlib.import_module(self.module)
        return self._functions.get(kind)

    def _required(self, kind: str):
        function = self.registered(kind)
        if function is None:
            spec = FORMAT_FUNCTIONS[kind]
            if spec.capability is not None and not getattr(self, spec.capability):
                why = f"it does not declare {spec.capability}"
            else:
                why = f"{self.module} registers none" if self.module is not None else "none is registered on it"
            raise AttributeError(f"format {self.name!r} has no {kind}: {why}")
        return function

    def streamer(self):
        """``stream_<name>``: the reader (every format has one)."""
        return self._required("streamer")

    def writer(self):
        """``write_<name>``: the writer (:attr:`writable`)."""
        return self._required("writer")

    def annotators(self):
        """``annotators_<name>``: a container's span sets as streams (:attr:`container`)."""
        return self._required("annotators")

    def recogniser(self):
        """``recognise_<name>``: the format told by its content (:attr:`recognises`)."""
        return self._required("recogniser")

    def document_starts(self):
        """``document_starts_<name>``: where a file's documents begin (:attr:`splits`)."""
        return self._required("document_starts")

    def part_notes(self):
        """``part_notes_<name>``: what a file read in parts gives at its end (:attr:`splits`)."""
        return self._required("part_notes")

    def lister(self):
        """``list_<name>``: a folder's document files listed (:attr:`folder_shards`)."""
        return self._required("lister")

    def file_writer(self):
        """``file_writer_<name>`` (:class:`~spanagree.formats.FileWriter`), or ``None`` for a format
        not written to one file a document at a time."""
        return self.registered("file_writer")

    def document_files(self):
        """The :class:`~spanagree.formats.DocumentFiles` of a format that writes each document's
        files of their own into a folder (BRAT), or ``None``."""
        return self.registered("document_files")

    def written_in_parts(self) -> bool:
        """Whether the writer writes each document on its own (:meth:`file_writer` or
        :meth:`document_files`), so that ``merge --jobs`` workers can write their documents'
        share of the output."""
        return self.file_writer() is not None or self.document_files() is not None

    def document_counter(self):
        """``(path) -> int | None``: a path's documents counted without reading them, or ``None``
        for a format that cannot count them so."""
        return self.registered("document_counter")

    def document_names(self):
        """``(path, known) -> list[str] | None``: the ids a file of a numbered format
        (:attr:`numbered`) names its documents with, or ``None`` for a format that names none."""
        return self.registered("document_names")

    def unkept(self, notes: list[str]) -> dict[str, int]:
        """Of what a span set read in this format counts in its ``notes``, what no span keeps,
        by kind (BRAT's ``{"equivalence": 3}``), for a writer to announce; ``{}`` for most formats."""
        function = self.registered("unkept")
        return {} if function is None else function(notes)

    def symmetric_relations(self, path) -> frozenset:
        """The relation types ``path``'s own configuration declares symmetric (BRAT's
        ``annotation.conf``); none for a format without such a configuration."""
        function = self.registered("symmetric_relations")
        return frozenset() if function is None else function(path)


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

def conll_column_value(text: str):
    """``--conll-column``'s value as understood: a number, a name, or a list of them (``A,B``).

    Examples
    --------
    >>> conll_column_value("3"), conll_column_value("NE-COARSE-LIT"), conll_column_value("NE-COARSE-LIT,4")
    (3, 'NE-COARSE-LIT', ['NE-COARSE-LIT', 4])
    """
    items = [int(item) if item.strip().isdigit() else item.strip() for item in text.split(",")]
    return items[0] if len(items) == 1 else items


_CONLL_OPTIONS = (
    FormatOption("conll_column", "tag column, counted from 1, or named (default: last)", metavar="N|NAME[,...]",
                 type=conll_column_value,
                 details="; the token is column 1; a name picks a column of a file that names them (a header "
                         "row, CoNLL-U), where the default is the only tag-like column; several, separated by "
                         "commas, read as one span set (nested entities kept in their own column); `TAG+LINK` "
                         "pairs a tag column with a link column whose id on an entity's first token is its "
                         "`kb_id` (HIPE's `NE-COARSE-LIT+NEL-LIT`)"),
    FormatOption("scheme", "decode strictly in this tag scheme (default: conlleval's lenient decoding)",
                 type=str.lower, choices=SCHEME_NAMES, writer=True,
                 details=", dropping invalid chunks with a warning giving their number (seqeval "
                         "`mode=\"strict\"`; "
                         + ", ".join(f"{alias} is {s.name}" for s in SCHEMES.values() for alias in s.aliases)
                         + "); the CoNLL writer's scheme (default `iob2`)"),
    FormatOption("conll_drop_hash_rows", "leave out every row whose token holds a '#' (the HIPE scorer's reading)",
                 internal=True),
    FormatOption("conll_tags_as_written", "keep each document's tags where they are not its spans' IOB2 "
                 "(Document.tags; off in a run that makes no token-level figures of them)", internal=True),
)

_XMI_OPTIONS = (
    FormatOption("xmi_typesystem", "the UIMA type system file(s), merged when several", metavar="PATH[,PATH]",
                 path=True, details=" (default: the `TypeSystem.xml` next to the file, else at the top of the "
                                    "folder; an INCEpTION project's per-user zips hold theirs)"),
    FormatOption("xmi_type", "the annotation type read (or written) as spans", metavar="TYPE", writer=True,
                 details=" (default `de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity`, INCEpTION's named "
                         "entities; a unique short name such as `NamedEntity` will do; the writer takes a name "
                         "without a dot as `webanno.custom.<name>`)"),
    FormatOption("xmi_feature", "the feature holding the label", metavar="FEATURE", writer=True,
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
FORMATS: dict[str, Format] = {f.name: f for f in (
    Format(name="brat", title="BRAT", description="BRAT standoff: a folder of .txt + .ann files",
           module="spanagree.formats.brat", folder_extensions=(".ann",), folder_precedence=1, writes_to_folder=True,
           options=(
               FormatOption("brat_line_ends", "the offsets count the text with LF line ends while the .txt has CRLF: "
                            "map them onto the text as stored", choices=("lf",),
                            details=" (tools that normalise line ends on load write such files; without it they "
                                    "are recognised from the text columns and the warning says so)"),
           ), drops=(), folder_shards=True),
    Format(name="xml", title="XML", description="inline XML markup (an .xml file or a folder of them)",
           module="spanagree.formats.xml", extensions=(".xml",), folder_extensions=(".xml",), folder_precedence=2,
           options=_XML_OPTIONS, folder_shards=True),
    Format(name="conll", title="CoNLL", description="CoNLL columns with IOB/BIOES tags",
           module="spanagree.formats.conll",
           extensions=(".conll", ".conllu", ".bio", ".iob", ".iob2", ".tsv", ".txt", ".test", ".dev", ".train", ""),
           folder_extensions=(".conll",), folder_precedence=4, options=_CONLL_OPTIONS,
           drops=("attributes", "relations", "ids"),
           splits=True, tokens=True),
    Format(name="jsonl", title="JSONL",
           description="JSON lines {id, text, spans: [{start, end, label}]} (spaCy/Prodigy, doccano)",
           module="spanagree.formats.jsonl", extensions=(".jsonl", ".json", ".ndjson"), folder_extensions=(".jsonl",),
           folder_precedence=3, container=True, splits=True, drops=("notes",), options=(
               FormatOption("doccano_labels", "doccano's exported label list (JSON): the label ids of a doccano "
                            "multi-user export read as their names", metavar="FILE", path=True),
           )),
    Format(name="gate", title="GATE",
           description="GATE XML (a GateDocument file or a folder of them): each annotation set an annotator",
           module="spanagree.formats.gate", folder_precedence=9, options=(
               FormatOption("gate_label_feature", "label from this feature of each annotation", metavar="F",
                            details=" instead of its type (annotations without it are left out, counted in the "
                                    "notes)"),
           ), container=True, recognises=True, writable=False, folder_shards=True),
    Format(name="labelstudio", title="Label Studio",
           description="Label Studio JSON or JSON-MIN export (a .json task list): each annotator a span set",
           module="spanagree.formats.labelstudio", folder_precedence=9, options=(
               FormatOption("labelstudio_text_field", "the task's data field holding the text", metavar="KEY",
                            details=" (default: the results' `to_name` when the data has that key, else `text`, "
                                    "else the task's only string field)"),
               FormatOption("labelstudio_predictions", "also read the predictions, one span set per model version",
                            flag_only=True, details=" (role prediction: they join a command when named with "
                                                    "`--annotators` or `--gold`)"),
           ), container=True, recognises=True, drops=("notes", "events")),
    Format(name="docbin", title="spaCy DocBin", description="spaCy DocBin (a .spacy file): doc.ents or a span group",
           module="spanagree.formats.docbin", extensions=(".spacy",), folder_precedence=9, options=(
               FormatOption("docbin_spans_key", "read (and write) the span group doc.spans[KEY]", metavar="KEY",
                            writer=True, details=" instead of `doc.ents` (a span group may hold overlapping spans)"),
           ), kept_attributes=("kb_id",)),
    Format(name="webanno", title="WebAnno TSV",
           description="WebAnno / INCEpTION TSV 3.x (a .tsv file starting #FORMAT=WebAnno TSV 3, or a folder of "
                       "them): one span layer",
           module="spanagree.formats.webanno", folder_precedence=9, writes_to_folder=True, options=_WEBANNO_OPTIONS,
           recognises=True, folder_shards=True, drops=("layers",)),
    Format(name="xmi", title="XMI",
           description="UIMA CAS XMI (an .xmi file or a folder of them, with the TypeSystem.xml; INCEpTION, DKPro)",
           module="spanagree.formats.xmi", extensions=(".xmi",), folder_precedence=9, options=_XMI_OPTIONS,
           recognises=True, folder_shards=True, writes_to_folder=True, drops=("layers",)),
    Format(name="inception", title="INCEpTION",
           description="INCEpTION project export (the .zip or its unpacked folder): each user a span set, the "
                       "curation its own",
           module="spanagree.formats.inception", extensions=(".zip",), folder_precedence=9,
           options=_XMI_OPTIONS + _WEBANNO_OPTIONS, container=True, recognises=True, writable=False),
    Format(name="doccano", title="doccano",
           description="doccano project export (the .zip of doccano 1.6 or later: one JSONL file per member)",
           module="spanagree.formats.doccano", folder_precedence=9, container=True, recognises=True, writable=False),
    Format(name="strings", title="Strings",
           description="string predictions (a .jsonl or .json of records whose entities have a text and a label "
                       "but no offsets, as language models answer): placed in the gold's text by score",
           module="spanagree.formats.strings", folder_precedence=9, recognises=True, writable=False, strings=True),
)}


def writable_formats() -> list[str]:
    """The names of the formats that can be written (:attr:`Format.writable`), in registry order."""
    return [name for name, fmt in FORMATS.items() if fmt.writable]


#: The markers :func:`documented` replaces in a docstring, each with what the registry gives.
DOC_MARKERS = ("{FORMATS}", "{WRITABLE FORMATS}", "{CONTAINERS}", "{READER OPTIONS}", "{WRITER OPTIONS}",
               "{EXTENSIONS}")


def documented(doc: str | None) -> str | None:
    """``doc`` (a docstring) with the registry's lists in place of its markers (:data:`DOC_MARKERS`),
    so that a docstring listing the formats or their options lists every one of them:
    ``{FORMATS}`` every format's name and title, ``{WRITABLE FORMATS}`` those written,
    ``{CONTAINERS}`` those holding several annotators, ``{READER OPTIONS}`` and ``{WRITER OPTIONS}``
    the keywords readers and writers take, ``{EXTENSIONS}`` the file extensions by format.

    Examples
    --------
    >>> documented("Containers: {CONTAINERS}.")
    'Containers: ``jsonl`` (JSONL), ``gate`` (GATE), ``labelstudio`` (Label Studio), ``inception`` (INCEpTION), ``doccano`` (doccano).'
    """
    def formats(entries) -> str:
        return ", ".join(f"``{fmt.name}`` ({fmt.title})" for fmt in entries)

    def options(side: str) -> str:
        return ", ".join(f"``{option.keyword}``" for option, _ in registered_options() if getattr(option, side))

    def extensions() -> str:
        return "; ".join(f"{fmt.title}: " + ", ".join(f"``{suffix}``" if suffix else "no extension"
                                                       for suffix in fmt.extensions)
                         for fmt in FORMATS.values() if fmt.extensions)

    found = {"{FORMATS}": lambda: formats(FORMATS.values()),
             "{WRITABLE FORMATS}": lambda: formats(fmt for fmt in FORMATS.values() if fmt.writable),
             "{CONTAINERS}": lambda: formats(fmt for fmt in FORMATS.values() if fmt.container),
             "{READER OPTIONS}": lambda: options("reader"), "{WRITER OPTIONS}": lambda: options("writer"),
             "{EXTENSIONS}": extensions}
    for marker in DOC_MARKERS if doc else ():  # (no docstring under python -OO)
        if marker in doc:
            doc = doc.replace(marker, found[marker]())
    return doc


def registered_options() -> list[tuple[FormatOption, list[Format]]]:
    """Every format option once, in registry order, with the formats that declare it (not the
    :attr:`~FormatOption.internal` ones, which no flag gives).

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
            if not option.internal:
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


def get_format(name: str) -> Format:
    """The registered format called ``name``, or a :class:`UsageError` listing the choices."""
    try:
        return FORMATS[name]
    except KeyError:
        raise UsageError(f"unknown format {name!r}; choose one of: {', '.join(FORMATS)}") from None


def declares(name: str | None, capability: str) -> bool:
    """Whether the registered format called ``name`` declares ``capability`` (a flag or property
    of :class:`Format`: ``declares("conll", "tokens")``); ``False`` for ``None`` or a name not
    registered.

    Examples
    --------
    >>> declares("conll", "tokens"), declares("jsonl", "tokens"), declares(None, "tokens")
    (True, False, False)
    """
    fmt = FORMATS.get(name) if name is not None else None
    return fmt is not None and bool(getattr(fmt, capability))


def path_options() -> tuple[str, ...]:
    """The keywords of the format options whose values name files (:attr:`FormatOption.path`),
    in registry order.

    Examples
    --------
    >>> path_options()
    ('doccano_labels', 'xmi_typesystem')
    """
    return tuple(option.keyword for option, _ in registered_options() if option.path)
