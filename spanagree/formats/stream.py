"""What a reader gives: :class:`DocumentStream`, one annotator's documents read one at a time
(:func:`collect` makes a span set of it), and what the ``--jobs`` workers and Dask tasks read
instead of a whole input: a :class:`FilePart` of a file read in byte ranges, a
:class:`FolderListing` of a folder of document files read in shards.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Iterator

from ..collector import collector_paused
from ..span import Document, SpanSet


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
        What the span set is in a container (:attr:`~spanagree.formats.Format.container`): an annotator's (the
        default, and every single-annotator file's), a curation (INCEpTION's curated copy), or a
        model's predictions (Label Studio's). Commands take the annotators of a container, and the
        others only when named (:func:`~spanagree.formats.open_annotators`).
    path : str, optional
        The file or folder it is read from (set by :func:`~spanagree.formats.open_stream` and
        :func:`~spanagree.formats.container_streams`), for messages about the whole input.
    aliases : tuple of str
        Other names that pick it (``--annotators``): the whole id of a Prodigy session named by its
        session.
    listing : FolderListing, optional
        A container's span set kept in a folder of document files (:attr:`~spanagree.formats.Format.folder_shards`):
        the listing ``documents`` reads whole, so that ``--jobs`` workers and Dask tasks read
        their own shards of it instead (a container's path is several span sets, so the
        listings come with its streams, not from ``list_<name>``).
    symmetric_relations : frozenset of str
        The relation types the input declares symmetric, found by the reader as it read them
        (Label Studio's relations drawn ``bi``), complete when the stream is made: a run's
        ``relations=True`` matches them in either argument order, with those given and those a
        path's own configuration declares (BRAT's ``annotation.conf``:
        :meth:`~spanagree.formats.Format.symmetric_relations`).
    """

    name: str
    format: str
    documents: Iterator[Document]
    notes: list[str] = field(default_factory=list)
    role: str = "annotator"
    path: str | None = None
    listing: FolderListing | None = None
    aliases: tuple = ()
    symmetric_relations: frozenset = frozenset()


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


@dataclass
class FilePart:
    """A part of a file for a reader to read on its own: the bytes ``[start, stop)``, which begin
    where a document begins (or at the file's start) and end where one begins (or at its end), so
    they hold whole documents (:attr:`~spanagree.formats.Format.splits`).

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
    """A folder of document files (:attr:`~spanagree.formats.Format.folder_shards`) listed but not read: its units
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
        :func:`~spanagree.formats.natural_key`). A unit's key is its document's id, or (a file holding several
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

        from ..errors import SpanagreeWarning, find_stack_level

        for message in warned:
            warnings.warn(message, SpanagreeWarning, stacklevel=find_stack_level())
