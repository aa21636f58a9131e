"""Per-document records spooled to disk as a run streams: the HTML report's (``--report``,
:class:`DocumentSpool`), ``merge``'s clusters and the ``--errors`` listings' items
(:class:`ObjectSpool`), and where they go.

A comparison that reports writes one JSON record per document it compares (its text, every
copy's spans, how they were paired and classified: see docs/report.md) and keeps only which
database holds it and how much the document disagrees. A :class:`DocumentSpool` is part of the
comparison's tally, so it adds up with ``+=`` like the counts: batch by batch, and shard by shard
under ``--jobs`` (each forked process writes a database of its own in the spool's folder; the
index travels back with the tally). Memory holds a few numbers per document; the report is
assembled from the databases at the end (:mod:`spanagree.report.html`).

``merge`` spools each document's clusters and text the same way (pickled: they are read back by
this process only), so that writing its gold, its adjudication listings and its report reads one
document at a time (:class:`~spanagree.voting.VoteClusters`); so do ``score --errors`` and
``agree --errors`` with each document's listed items (:class:`ObjectSpool`).

Both, and ``merge --jobs``' output parts (:class:`~spanagree.pipeline.parts.TextParts`), keep
their records the one way :class:`ProcessFiles` does: a SQLite database per process and spool
(one writer per file, also on a folder a cluster's workers share), a document's record found by
its id in the database its index entry names.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import socket
import tempfile
import threading
import weakref
from contextlib import contextmanager, nullcontext

from ..errors import UsageError, find_stack_level

#: Numbers the spool databases a process writes (one per spool: several spools may write at once).
_FILES = itertools.count()

#: Each database connection's page cache: records are written and read once, in turn; a small
#: cache keeps a run's memory flat (SQLite's default is 2 MiB a connection).
CACHE = "cache_size=-256"

#: Held around every opening and closing of a spool's database, and by a fork of ``--jobs``
#: workers (:class:`~spanagree.pipeline.parallel.Processes`): a database closed when its spool
#: is collected may be closed by any thread (a Dask client's, among others), and a process forked
#: while a thread is inside SQLite's allocator inherits its mutex locked, and hangs in its first
#: ``sqlite3.connect``.
SQLITE_LOCK = threading.RLock()


def _closed(connection) -> None:
    with SQLITE_LOCK:
        connection.close()


#: The folders this process made, by path: a spool sent to a worker and back finds its owner again.
_OWNERS: "weakref.WeakValueDictionary[str, SpoolFolder]" = weakref.WeakValueDictionary()


class SpoolFolder:
    """A temporary folder for the spool databases of one run, removed when the last spool that
    holds it is gone (or on :meth:`remove`): in the system's temporary folder, or a hidden one
    (``.spanagree-spool-*``) in ``dir`` (on a Dask cluster: a folder its workers share with the
    client, :func:`shared_spool`). A spool made with it keeps it alive; pickled (to a worker and
    back) it is its path, which finds the process's own folder object again."""

    def __init__(self, dir: str | None = None):
        self.path = tempfile.mkdtemp(prefix="spanagree-report-" if dir is None else ".spanagree-spool-", dir=dir)
        self._finalizer = weakref.finalize(self, removed, self.path)
        _OWNERS[self.path] = self

    def remove(self) -> None:
        self._finalizer()

    def __reduce__(self):
        return _folder_at, (self.path,)


def removed(path: str) -> None:
    """``path`` removed whole, the signals that end a run held back meanwhile (an interrupt then
    comes after: never a folder left half-removed)."""
    from ..outputs import signals_held

    with signals_held():
        shutil.rmtree(path, True)


class _Borrowed:
    """A :class:`SpoolFolder` of another process (a worker's view of the client's): its path only."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return _folder_at, (self.path,)


def _folder_at(path: str):
    return _OWNERS.get(path) or _Borrowed(path)


class MemoryFolder:
    """In place of a :class:`SpoolFolder` where a Dask cluster's workers share no folder with the
    client (:func:`spooling_beside`): the spools given it keep their records in memory, and they
    travel back with the tally."""

    path = None

    def remove(self) -> None:
        pass


def process_name() -> str:
    """This process's name in the spool files it writes: ``<host>-<pid>``, unique among the
    machines of a cluster that share a folder (process ids repeat from one machine to another)."""
    host = socket.gethostname().replace(os.sep, "_") or "host"
    return f"{host}-{os.getpid()}"


class ProcessFiles:
    """Records kept in a SQLite database of one's own per process in ``folder``
    (``<host>-<pid>-<n>.sqlite``, :func:`process_name`; a table of ``(document, record)``), and
    the index of which database holds each document's record (``entries``: document → its
    database's number in ``files``).

    The index travels back with a tally and adds up with :meth:`add_index` in document order,
    shard by shard under ``--jobs``: the other side's databases are numbered after these. What a
    record is (pickled objects, text in an output's format) is the subclass's.

    ``folder`` is a :class:`SpoolFolder` (the spool keeps it alive), a path, or, to keep the
    records in memory (no folder the workers of a Dask cluster share with the client), ``None``
    or a :class:`MemoryFolder`: a document's entry is then a 1-tuple holding its record, which
    travels with the index (:meth:`stored`, :meth:`fetched`).
    """

    def __init__(self, folder):
        self.folder = folder
        self.entries: dict = {}
        self.files: list[str] = []   # the databases entries point into, by number
        self._db = None
        self._file_number = None
        self._pid = None
        self._readers: dict = {}

    @property
    def in_memory(self) -> bool:
        """Whether the records are kept in memory (no folder)."""
        return self.folder is None or isinstance(self.folder, MemoryFolder)

    def stored(self, doc_id: str, record, encoded) -> int | tuple:
        """The entry of ``record``: kept as it is when :attr:`in_memory` (a 1-tuple), else
        ``encoded(record)`` (its bytes) written to this process's database (:meth:`put`)."""
        return (record,) if self.in_memory else self.put(doc_id, encoded(record))

    def fetched(self, doc_id: str, entry, decoded):
        """The record of a :meth:`stored` entry (``decoded``: its bytes to the record)."""
        return entry[0] if type(entry) is tuple else decoded(self.read(doc_id, entry))

    def put(self, doc_id: str, data: bytes) -> int:
        """Write ``data`` as ``doc_id``'s record in this process's database; its number."""
        if self._db is None or self._pid != os.getpid():
            import sqlite3

            self._pid = os.getpid()
            folder = getattr(self.folder, "path", self.folder)
            name = os.path.join(folder, f"{process_name()}-{next(_FILES)}.sqlite")
            with SQLITE_LOCK:
                self._db = sqlite3.connect(name, isolation_level=None, check_same_thread=False)
            self._db.executescript(f"PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA {CACHE}; "
                                   "CREATE TABLE records (document TEXT PRIMARY KEY, record BLOB); BEGIN")
            weakref.finalize(self, _closed, self._db)  # closed with the object, if not before
            self._file_number = len(self.files)
            self.files.append(name)
        self._db.execute("INSERT OR REPLACE INTO records VALUES (?, ?)", (doc_id, data))
        return self._file_number

    def read(self, doc_id: str, entry: int) -> bytes:
        """The record of ``doc_id`` in database number ``entry``."""
        self.flush()
        reader = self._readers.get((os.getpid(), entry))
        if reader is None:
            import sqlite3

            with SQLITE_LOCK:
                reader = self._readers[os.getpid(), entry] = sqlite3.connect(self.files[entry],
                                                                             check_same_thread=False)
            weakref.finalize(self, _closed, reader)  # closed with the object, by whichever thread
            reader.execute(f"PRAGMA {CACHE}")
        return reader.execute("SELECT record FROM records WHERE document = ?", (doc_id,)).fetchone()[0]

    def add_files(self, other: "ProcessFiles") -> list[int] | None:
        """Number ``other``'s databases after these (what it wrote is committed): the new number of
        each of its numbers, or ``None`` when they keep theirs."""
        other.flush()
        number = []
        for name in other.files:
            if name not in self.files:
                self.files.append(name)
            number.append(self.files.index(name))
        return None if number == list(range(len(number))) else number

    def add_index(self, other: "ProcessFiles") -> list[int] | None:
        """Add ``other``'s entries (a document both hold keeps other's), numbered as :meth:`add_files`
        (whose numbering is returned)."""
        number = self.add_files(other)
        if number is None:
            self.entries.update(other.entries)
        else:
            self.entries.update((doc_id, renumbered(entry, number)) for doc_id, entry in other.entries.items())
        return number

    def flush(self) -> None:
        """Commit what this process wrote (readable from other connections from now on)."""
        if self._db is not None and self._db.in_transaction:
            self._db.execute("COMMIT")
            self._db.execute("BEGIN")

    def close(self) -> None:
        """Close this process's database (a later :meth:`put` opens another): what another machine
        reads from a shared folder is what was written before the file was closed (NFS's
        close-to-open consistency), so a worker closes its databases before its tally is sent back."""
        if self._db is not None:
            if self._db.in_transaction:
                self._db.execute("COMMIT")
            _closed(self._db)
            self._db = None

    def __getstate__(self):
        self.close()  # sent back to the parent or the client, which reads the database: closed
        state = dict(self.__dict__)
        state.update(_db=None, _pid=None, _readers={})
        if "_last" in state:
            state["_last"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __deepcopy__(self, memo):
        import copy

        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)  # the folder shared: the copy keeps it alive too
        clone.__dict__.update(copy.deepcopy({k: v for k, v in self.__dict__.items()
                                             if k not in ("folder", "_db", "_readers", "_last")}, memo))
        clone._db, clone._pid, clone._readers = None, None, {}
        return clone


def renumbered(entry, number: list[int]):
    """An entry of another spool numbered as this one's (:meth:`ProcessFiles.add_files`); records
    kept in memory as they are."""
    return number[entry] if type(entry) is int else entry


class DocumentSpool(ProcessFiles):
    """Document records written as JSON (:class:`ProcessFiles`: a database per process); the index
    kept in memory, in the order the documents were added.

    Attributes
    ----------
    folder : SpoolFolder, str or None
        Where this process's database goes (``None`` or a :class:`MemoryFolder`: kept in memory).
    entries : dict
        ``document id →`` the number of the database holding its record.
    disagreeing : dict
        ``document id →`` how much it disagrees (what the report sorts and colours by).
    more : dict
        ``document id →`` further records of the document (:meth:`join`).
    """

    def __init__(self, folder):
        super().__init__(folder)
        self.disagreeing: dict[str, int] = {}
        self.more: dict[str, list[int]] = {}

    def add(self, doc_id: str, disagreements: int, record: dict) -> None:
        """Write ``record`` (a JSON-able dict) for ``doc_id``."""
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        self.entries[doc_id] = self.stored(doc_id, line, bytes)
        self.disagreeing[doc_id] = disagreements

    def __iadd__(self, other: "DocumentSpool") -> "DocumentSpool":
        number = self.add_index(other)
        self.disagreeing.update(other.disagreeing)
        for doc_id, entries in other.more.items():
            self.more.setdefault(doc_id, []).extend(renumbered(e, number) if number else e for e in entries)
        return self

    def join(self, other: "DocumentSpool") -> None:
        """Add ``other``'s records, joining a document's records when both spools hold one: records
        of the same document written by different groups of annotators (``agree --documents
        pairwise``) become one (spans by annotator united, classified items concatenated,
        disagreements added)."""
        number = self.add_files(other)
        for doc_id, entry in other.entries.items():
            entry = renumbered(entry, number) if number else entry
            if doc_id not in self.entries:
                self.entries[doc_id] = entry
                self.disagreeing[doc_id] = other.disagreeing[doc_id]
            else:
                self.more.setdefault(doc_id, []).append(entry)
                self.disagreeing[doc_id] += other.disagreeing[doc_id]
        for doc_id, entries in other.more.items():
            self.more.setdefault(doc_id, []).extend(renumbered(e, number) if number else e for e in entries)

    def disagreements(self, doc_id: str) -> int:
        return self.disagreeing.get(doc_id, 0)

    def record(self, doc_id: str) -> dict | None:
        """The record written for ``doc_id`` (``None`` if none was)."""
        entry = self.entries.get(doc_id)
        if entry is None:
            return None
        record = json.loads(self.fetched(doc_id, entry, bytes))
        for more in self.more.get(doc_id, ()):
            part = json.loads(self.fetched(doc_id, more, bytes))
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

    Each process writes to a database of its own in ``folder`` (:class:`ProcessFiles`); the
    index (document → the number of its database) travels with the tally and
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

    def __init__(self, folder):
        super().__init__(folder)
        self._last: tuple[str, object] | None = None  # the record read last (a document is read in turn)

    def add(self, doc_id: str, record) -> None:
        """Spool ``record`` for ``doc_id`` (a document given twice keeps its last record)."""
        self.entries[doc_id] = self.stored(doc_id, record, _pickled)

    def load(self, doc_id: str):
        """The record spooled for ``doc_id`` (``KeyError`` if none was)."""
        if self._last is not None and self._last[0] == doc_id:
            return self._last[1]
        import pickle

        record = self.fetched(doc_id, self.entries[doc_id], pickle.loads)
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
                      "(docs/cluster.md)", SpanagreeWarning, stacklevel=find_stack_level())
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
