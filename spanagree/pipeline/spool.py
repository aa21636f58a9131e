"""Per-document records spooled to disk as a run streams: the HTML report's (``--report``,
:class:`DocumentSpool`), ``merge``'s clusters and the ``--errors`` listings' items
(:class:`ObjectSpool`).

A comparison that reports writes one JSON line per document it compares (its text, every
copy's spans, how they were paired and classified: see docs/report.md) to a temporary file and
keeps only where the line is and how much the document disagrees. A :class:`DocumentSpool` is
part of the comparison's tally, so it adds up with ``+=`` like the counts: batch by batch, and
shard by shard under ``--jobs`` (each forked process writes its own file in the spool's folder;
the index entries travel back with the tally). Memory holds a few numbers per document; the
report is assembled from the files at the end (:mod:`spanagree.report.html`).

``merge`` spools each document's clusters and text the same way (pickled: they are read back by
this process only), so that writing its gold, its adjudication listings and its report reads one
document at a time (:class:`~spanagree.voting.VoteClusters`); so do ``score --errors`` and
``agree --errors`` with each document's listed items (:class:`ObjectSpool`), written to the
listing document by document.

Both, and ``merge --jobs``' output parts (:class:`~spanagree.pipeline.parts.TextParts`), keep
their files the one way :class:`ProcessFiles` does: a file per process, appended to, and one
integer per document saying where its record lies.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import socket
import tempfile
import weakref
from contextlib import contextmanager, nullcontext

from ..errors import UsageError


#: Numbers the spool files a process writes (one per spool: several spools may write at once).
_FILES = itertools.count()


class SpoolFolder:
    """A temporary folder for the spool files of one run, removed when the last object that
    holds it is gone (or on :meth:`remove`): in the system's temporary folder, or a hidden one
    (``.spanagree-spool-*``) in ``dir`` (``merge`` on a Dask cluster: a folder its workers share
    with the client, :func:`shared_spool`)."""

    def __init__(self, dir: str | None = None):
        self.path = tempfile.mkdtemp(prefix="spanagree-report-" if dir is None else ".spanagree-spool-", dir=dir)
        self._finalizer = weakref.finalize(self, shutil.rmtree, self.path, True)

    def remove(self) -> None:
        self._finalizer()


def process_name() -> str:
    """This process's name in the spool files it writes: ``<host>-<pid>``, unique among the
    machines of a cluster that share a folder (process ids repeat from one machine to another)."""
    host = socket.gethostname().replace(os.sep, "_") or "host"
    return f"{host}-{os.getpid()}"


#: The path of a :class:`MemoryFolder`: a spool given it keeps its records in memory (:class:`ProcessFiles`).
IN_MEMORY = ":memory:"


class MemoryFolder:
    """In place of a :class:`SpoolFolder` where a Dask cluster's workers share no folder with the
    client (:func:`spooling_beside`): the spools given its path
    (:data:`IN_MEMORY`) keep their records in memory, and they travel back with the tally."""

    path = IN_MEMORY

    def remove(self) -> None:
        pass


def packed_entry(file_number: int, offset: int, length: int) -> int:
    """Where a record lies (the number of its file, its offset and its length) packed in one
    integer: what memory keeps per document (:class:`ProcessFiles`)."""
    return (((offset << LENGTH_BITS) | length) << FILE_BITS) | file_number


def unpacked_entry(entry: int) -> tuple[int, int, int]:
    """``(file number, offset, length)`` of a :func:`packed_entry`."""
    file_number = entry & ((1 << FILE_BITS) - 1)
    entry >>= FILE_BITS
    return file_number, entry >> LENGTH_BITS, entry & ((1 << LENGTH_BITS) - 1)


#: Bits of a packed entry for the file's number and for the record's length (the offset above).
FILE_BITS, LENGTH_BITS = 16, 40


def _same(entry):
    return entry


class ProcessFiles:
    """Records appended to files of one's own per process in ``folder``
    (``<host>-<pid>-<n><SUFFIX>``, :func:`process_name`), and the index of where each document's record lies (``entries``:
    document → :func:`packed_entry` into ``files``).

    The index travels back with a tally and adds up with :meth:`add_index` in document order,
    shard by shard under ``--jobs``: the other side's files are numbered after these. What a
    record is (pickled objects, text in an output's format) is the subclass's.

    Without a folder (``None``, or a :class:`MemoryFolder`'s :data:`IN_MEMORY`: a Dask cluster
    whose workers share no folder with the client) the records are kept in memory, as they are:
    a document's entry is then a 1-tuple holding its record, which travels with the index
    (:meth:`stored`, :meth:`fetched`).
    """

    SUFFIX = ".bin"

    def __init__(self, folder: str | None):
        self.folder = folder
        self.entries: dict = {}
        self.files: list[str] = []   # the files entries point into, by number
        self._file = None
        self._file_number = None
        self._pid = None

    @property
    def in_memory(self) -> bool:
        """Whether the records are kept in memory (no folder: ``None`` or :data:`IN_MEMORY`)."""
        return self.folder is None or self.folder == IN_MEMORY

    def stored(self, record, encoded) -> int | tuple:
        """The entry of ``record``: kept as it is when :attr:`in_memory` (a 1-tuple), else
        ``encoded(record)`` (its bytes) appended to this process's file (:meth:`append`)."""
        return (record,) if self.in_memory else self.append(encoded(record))

    def fetched(self, entry, decoded):
        """The record of a :meth:`stored` entry (``decoded``: its bytes to the record)."""
        return entry[0] if type(entry) is tuple else decoded(self.read(entry))

    def append(self, data: bytes) -> int:
        """Append ``data`` to this process's file; its :func:`packed_entry`."""
        if self._file is None or self._pid != os.getpid():
            self._pid = os.getpid()
            self._file = open(os.path.join(self.folder, f"{process_name()}-{next(_FILES)}{self.SUFFIX}"), "ab")
            weakref.finalize(self, self._file.close)  # closed with the object, if not before
            self._file_number = len(self.files)
            self.files.append(self._file.name)
        offset = self._file.tell()
        self._file.write(data)
        return packed_entry(self._file_number, offset, len(data))

    def read(self, entry: int) -> bytes:
        """The bytes of a packed entry."""
        self.flush()
        file_number, offset, length = unpacked_entry(entry)
        with open(self.files[file_number], "rb") as handle:
            handle.seek(offset)
            return handle.read(length)

    def add_files(self, other: "ProcessFiles"):
        """Number ``other``'s files after these (what it wrote is flushed); a function that turns
        its entries into entries of this object (entries that are not packed integers, records
        kept in memory, as they are)."""
        other.flush()
        number = []
        for name in other.files:
            if name not in self.files:
                self.files.append(name)
            number.append(self.files.index(name))
        if number == list(range(len(number))):
            return _same

        def renumbered(entry):
            if type(entry) is not int:
                return entry
            file_number, offset, length = unpacked_entry(entry)
            return packed_entry(number[file_number], offset, length)

        return renumbered

    def add_index(self, other: "ProcessFiles") -> None:
        """Add ``other``'s entries (a document both hold keeps other's), numbered as :meth:`add_files`."""
        renumbered = self.add_files(other)
        if renumbered is _same:
            self.entries.update(other.entries)
        else:
            self.entries.update((doc_id, renumbered(entry)) for doc_id, entry in other.entries.items())

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        """Close this process's file (a later :meth:`append` opens another): what another machine
        reads from a shared folder is what was written before the file was closed (NFS's
        close-to-open consistency), so a worker closes its files before its tally is sent back."""
        if self._file is not None:
            self._file.close()
            self._file = None


class DocumentSpool(ProcessFiles):
    """Document records written as JSON lines (:class:`ProcessFiles`: one file per process,
    ``<host>-<pid>-<n>.jsonl``); the index kept in memory, in the order the documents were added.

    Attributes
    ----------
    folder : str
        Where this process's file goes.
    entries : dict
        ``document id → packed entry`` (:func:`packed_entry`) of its record.
    disagreeing : dict
        ``document id →`` how much it disagrees (what the report sorts and colours by).
    more : dict
        ``document id →`` further records of the document (:meth:`join`).
    """

    SUFFIX = ".jsonl"

    def __init__(self, folder: str):
        super().__init__(folder)
        self.disagreeing: dict[str, int] = {}
        self.more: dict[str, list[int]] = {}
        self.folder_owner: SpoolFolder | None = None  # keeps the temporary folder alive (the result's)

    def add(self, doc_id: str, disagreements: int, record: dict) -> None:
        """Write ``record`` (a JSON-able dict) for ``doc_id``."""
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        self.entries[doc_id] = self.stored(line, bytes)
        self.disagreeing[doc_id] = disagreements

    def __iadd__(self, other: "DocumentSpool") -> "DocumentSpool":
        renumbered = self.add_files(other)
        self.entries.update((doc_id, renumbered(entry)) for doc_id, entry in other.entries.items())
        self.disagreeing.update(other.disagreeing)
        for doc_id, entries in other.more.items():
            self.more.setdefault(doc_id, []).extend(map(renumbered, entries))
        return self

    def join(self, other: "DocumentSpool") -> None:
        """Add ``other``'s records, joining a document's records when both spools hold one: records
        of the same document written by different groups of annotators (``agree --documents
        pairwise``) become one (spans by annotator united, classified items concatenated,
        disagreements added)."""
        renumbered = self.add_files(other)
        for doc_id, entry in other.entries.items():
            entry = renumbered(entry)
            if doc_id not in self.entries:
                self.entries[doc_id] = entry
                self.disagreeing[doc_id] = other.disagreeing[doc_id]
            else:
                self.more.setdefault(doc_id, []).append(entry)
                self.disagreeing[doc_id] += other.disagreeing[doc_id]
        for doc_id, entries in other.more.items():
            self.more.setdefault(doc_id, []).extend(map(renumbered, entries))

    def __getstate__(self):
        self.close()  # sent back to the parent or the client, which reads the file: closed (see ProcessFiles.close)
        return {"folder": self.folder, "entries": self.entries, "files": self.files,
                "disagreeing": self.disagreeing, "more": self.more}

    def __setstate__(self, state):
        self.__init__(state["folder"])
        self.entries, self.files = state["entries"], state["files"]
        self.disagreeing, self.more = state["disagreeing"], state["more"]

    def __deepcopy__(self, memo):
        copy = DocumentSpool(self.folder)
        copy.entries, copy.files = dict(self.entries), list(self.files)
        copy.disagreeing = dict(self.disagreeing)
        copy.more = {d: list(e) for d, e in self.more.items()}
        copy.folder_owner = self.folder_owner
        return copy

    def disagreements(self, doc_id: str) -> int:
        return self.disagreeing.get(doc_id, 0)

    def _line(self, entry) -> bytes:
        """A record's line: kept in memory or where the entry says (:meth:`~ProcessFiles.fetched`)."""
        return self.fetched(entry, bytes)

    def record(self, doc_id: str) -> dict | None:
        """The record written for ``doc_id`` (``None`` if none was)."""
        entry = self.entries.get(doc_id)
        if entry is None:
            return None
        record = json.loads(self._line(entry))
        for more in self.more.get(doc_id, ()):
            part = json.loads(self._line(more))
            record["spans"].update(part["spans"])
            record["items"] += part["items"]
        return record


def span_entry(span) -> tuple:
    """A span as the report's documents block gives it: ``[[[start, end], ...], label]`` (tuples,
    written as JSON arrays)."""
    return span.fragments, span.label


def spans_entry(spans) -> tuple[list, dict[int, int]]:
    """Every span of one copy as :func:`span_entry` and the index of each span object (by ``id``)."""
    return [span_entry(s) for s in spans], {id(s): k for k, s in enumerate(spans)}


def items_entry(records, first_index: dict[int, int], second_index: dict[int, int]) -> tuple[list, int]:
    """scoring's classified records ``(kind, aligned, credit, second span, first span)`` of one
    pair as ``[kind, first span's index or None, second span's index or None, credit]``, and the
    number that are not ``correct``."""
    items, disagreements = [], 0
    for kind, _, credit, second, first in records:
        items.append([kind, first_index.get(id(first)) if first is not None else None,
                      second_index.get(id(second)) if second is not None else None, credit])
        disagreements += kind != "correct"
    return items, disagreements


def _pickled(record) -> bytes:
    import pickle

    return pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL)


class ObjectSpool(ProcessFiles):
    """One picklable object per document, spooled to disk as a run streams: ``merge``'s clusters
    and texts (:class:`~spanagree.voting.VoteTally`), ``score --errors``' and ``agree --errors``'
    items, so that what memory holds per document is where its record lies (one integer), not
    the record.

    Each process appends to a file of its own in ``folder`` (``<host>-<pid>-<n>.pickle``); the
    index (document → file, offset, length, packed in one integer) travels with the tally and
    adds up with ``+=`` in document order, shard by shard under ``--jobs`` or on a Dask cluster
    (whose workers write into a folder they share with the client). Without a folder
    (:attr:`~ProcessFiles.in_memory`) the objects are kept in memory, unpickled, and travel with
    the index instead.

    Examples
    --------
    >>> import tempfile
    >>> spool = ObjectSpool(tempfile.mkdtemp())
    >>> spool.add("d1", ("text", [1, 2]))
    >>> spool.add("d2", ("more", []))
    >>> spool.load("d1"), list(spool.entries)
    (('text', [1, 2]), ['d1', 'd2'])
    """

    SUFFIX = ".pickle"

    def __init__(self, folder: str | None):
        super().__init__(folder)
        self.folder_owner: SpoolFolder | None = None  # keeps the temporary folder alive (the result's)
        self._last: tuple[str, object] | None = None  # the record read last (a document is read in turn)

    def add(self, doc_id: str, record) -> None:
        """Spool ``record`` for ``doc_id`` (a document given twice keeps its last record)."""
        self.entries[doc_id] = self.stored(record, _pickled)

    def load(self, doc_id: str):
        """The record spooled for ``doc_id`` (``KeyError`` if none was)."""
        if self._last is not None and self._last[0] == doc_id:
            return self._last[1]
        import pickle

        record = self.fetched(self.entries[doc_id], pickle.loads)
        self._last = (doc_id, record)
        return record

    # the mapping operations a tally uses on a dict of per-document lists (``score``'s items)
    __setitem__ = add

    def get(self, doc_id: str, default=None):
        return self.load(doc_id) if doc_id in self.entries else default

    def update(self, other: "ObjectSpool") -> None:
        self += other

    def __iadd__(self, other: "ObjectSpool") -> "ObjectSpool":
        self.add_index(other)
        self._last = None
        return self

    def __getstate__(self):
        self.close()  # sent back to the parent or the client, which reads the file: closed (see ProcessFiles.close)
        return {"folder": self.folder, "entries": self.entries, "files": self.files}

    def __setstate__(self, state):
        self.__init__(state["folder"])
        self.entries = state["entries"]
        self.files = state["files"]

    def __deepcopy__(self, memo):
        copy = ObjectSpool(self.folder)
        copy.entries = dict(self.entries)
        copy.files = list(self.files)
        copy.folder_owner = self.folder_owner
        return copy


def unwritable_on_workers(client, folder: str) -> dict[str, str]:
    """Per worker address, why it cannot make a file in ``folder`` (the workers that can are
    left out): each worker makes and removes a file of its own there."""
    def probe(folder=folder):
        name = os.path.join(folder, f".probe-{process_name()}")
        try:
            with open(name, "xb"):
                pass
            os.remove(name)
        except OSError as error:
            return error.strerror or type(error).__name__
        return None

    found = client.run(probe)
    return {worker: why for worker, why in found.items() if why is not None}


def shared_spool(client, near: str | None, inputs=(), *, kept: str = "merge keeps every document's clusters"):
    """A hidden temporary folder (:class:`~spanagree.pipeline.spool.SpoolFolder`) in ``near``
    (the folder of ``merge``'s first output or of the report, or its nearest existing parent)
    into which every worker of ``client`` can write, for the spool and the output parts; ``None``
    (the records are then kept in the client's memory) without ``near``, when it is or lies
    inside one of the ``inputs`` (paths), or when some worker cannot write there (with a warning
    naming it, and saying what is ``kept`` in memory instead).
    """
    import warnings

    from ..errors import SpanagreeWarning
    from ..outputs import check_not_inputs
    
    if near is None:
        return None
    near = os.path.abspath(near)
    while not os.path.isdir(near) and os.path.dirname(near) != near:
        near = os.path.dirname(near)
    try:  # the spool folder, a new one in `near`, would lie inside an input when `near` is or lies in one
        check_not_inputs([os.path.join(near, ".spanagree-spool")],
                         [item for item in inputs if isinstance(item, (str, os.PathLike))])
    except UsageError:
        return None
    try:
        folder = SpoolFolder(dir=near)
    except OSError:
        return None
    refused = unwritable_on_workers(client, folder.path)
    if refused:
        folder.remove()
        worker, why = sorted(refused.items())[0]
        warnings.warn(f"Dask worker {worker} cannot write into {near} ({why}): {kept} in this process's memory "
                      "(docs/cluster.md)", SpanagreeWarning, stacklevel=4)
        return None
    return folder


@contextmanager
def spooling(scheduler, near: str | None, inputs=(), *, kept: str):
    """``(folder, scheduler)`` for a run that spools per-document records (``merge``'s clusters):
    locally (``scheduler`` is ``None``) a temporary folder
    (:class:`~spanagree.pipeline.spool.SpoolFolder`); on a Dask cluster (``scheduler``: the
    run's client, :func:`~spanagree.pipeline.cluster.one_client`) the folder :func:`shared_spool` makes beside ``near``
    (``None``: none the workers share, the records are kept in memory)."""
    
    yield (SpoolFolder() if scheduler is None else shared_spool(scheduler, near, inputs, kept=kept)), scheduler


def spooling_beside(scheduler, inputs, *outputs):
    """:func:`spooling`'s folders for the per-document records of the outputs of ``agree`` and
    ``score`` (the report's documents, ``--errors``' items), one folder per output; the records
    of an output go beside it (in its folder) on a Dask cluster.

    Parameters
    ----------
    scheduler
        ``None`` (a local run, ``--jobs`` included), or the run's Dask client (:func:`~spanagree.pipeline.cluster.one_client`).
    inputs : list
        The run's inputs (no spool folder may lie inside one).
    *outputs : tuple
        Per output, ``(where, kept)``: ``where`` is false (not asked for), ``True`` (asked for,
        written nowhere known) or the path the output will be written to; ``kept`` says, in the
        warning of a folder the workers cannot write into, what is kept in memory instead.

    Returns
    -------
    context manager
        Yields ``(folders, client)``: per output ``None`` (not asked for), or a
        :class:`~spanagree.pipeline.spool.SpoolFolder` — locally a temporary one; on a cluster
        the one :func:`shared_spool` makes beside the output's path — or, on a cluster without a
        path or where the workers share no folder with this process, a
        :class:`~spanagree.pipeline.spool.MemoryFolder` (the records are kept in memory and travel
        back with the tallies). ``client``: ``scheduler``, to run on.
    """
    from .finish import input_path

    if scheduler is None:
        return nullcontext(([SpoolFolder() if where else None for where, _ in outputs], None))
    paths = [input_path(item) for item in inputs]
    folders = []
    for where, kept in outputs:
        near = os.path.dirname(os.path.abspath(where)) if isinstance(where, (str, os.PathLike)) else None
        folder = shared_spool(scheduler, near, paths, kept=kept) if where else None
        folders.append(folder if folder is not None or not where else MemoryFolder())
    return nullcontext((folders, scheduler))
