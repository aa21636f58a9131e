"""Outputs written in parts by the ``--jobs`` workers (or a Dask cluster's) and joined in document
order by the parent (or the client).

``merge --jobs N`` would otherwise vote in N processes and then write its gold and its
adjudication listings in one: each document read back from the spool, its gold text and its
listing rows made, one after the other (the serial tail that kept ``merge --jobs 2`` at 1.3-1.5
times ``--jobs 1``). Instead each worker writes, as it votes on a document, the document's text in
the gold's format and its listing rows to a database of its own in the spool's folder, and keeps
which database holds each document's text (:class:`TextParts`, a
:class:`~spanagree.pipeline.spool.ProcessFiles` added up with ``+=`` like the spool's index); the
parent then copies the texts into the output in document order, around the head and tail only it
writes. The texts are made by the one
writer of each format (:class:`~spanagree.formats.FileWriter`) and of the listings
(:class:`~spanagree.report.Listing`), so the output is byte for byte what one process writes.

A document a worker could not write (a UsageError: a label BRAT cannot hold, a text CoNLL
cannot shape) is only marked failed: the parent writes it again when it gets to it, in document
order, and so raises the error one process raises, after the vote's warnings, into the temporary
output that is then removed. BRAT's gold, a file pair per document, is written by the workers
into folders of their own (:class:`FolderParts`) and moved into the temporary output.

On a Dask cluster the workers write the same parts into a folder they share with the client
(:func:`~spanagree.pipeline.spool.shared_spool`), which joins them as the parent does: one
writer for both.
"""

from __future__ import annotations

import itertools
import os
import shutil

from .spool import CACHE, ProcessFiles, process_name

#: Numbers the part files a process writes.
_FILES = itertools.count()


class TextParts(ProcessFiles):
    """Each document's text in one output, written to a database of this process's in ``folder``
    (UTF-8; the index of :class:`~spanagree.pipeline.spool.ProcessFiles` travels back with the
    tally and adds up with ``+=``); ``failed``: the documents whose text could not be made
    (written again by the parent, which then meets the error)."""

    def __init__(self, folder):
        super().__init__(folder)
        self.failed: set[str] = set()

    def add(self, doc_id: str, text: str) -> None:
        self.entries[doc_id] = self.put(doc_id, text.encode("utf-8"))

    def __iadd__(self, other: "TextParts") -> "TextParts":
        self.add_index(other)
        self.failed |= other.failed
        return self

    def ready(self, doc_id: str) -> bool:
        """Whether ``doc_id``'s text was made by a worker (else the parent makes it)."""
        return doc_id in self.entries and doc_id not in self.failed

    def copier(self, out) -> "TextCopier":
        """A :class:`TextCopier` of this output's texts into the open file ``out``."""
        self.flush()
        return TextCopier(self, out)


class TextCopier:
    """Copies the workers' texts (:class:`TextParts`) into an open output file, as bytes, in
    batches; :meth:`write` writes text in between (what only the parent writes)."""

    def __init__(self, parts: TextParts, out):
        self.parts = parts
        self.out = out
        self._pending: list[bytes] = []
        self._size = 0
        self._rows: dict = {}  # per database, its rows in the order written: the order they are joined in

    def _text(self, doc_id: str) -> bytes:
        """``doc_id``'s text: the next row of its database when it is (a worker wrote its shard's
        documents in order), else looked up by id."""
        import sqlite3

        entry = self.parts.entries[doc_id]
        rows = self._rows.get(entry)
        if rows is None:
            database = sqlite3.connect(self.parts.files[entry])
            database.execute(f"PRAGMA {CACHE}")
            rows = self._rows[entry] = database.execute("SELECT document, record FROM records ORDER BY rowid")
        row = rows.fetchone()
        return row[1] if row is not None and row[0] == doc_id else self.parts.read(doc_id, entry)

    def copy(self, doc_id: str, skip: int = 0) -> int:
        """Copy ``doc_id``'s text, less its first ``skip`` bytes; its length (before ``skip``)."""
        data = self._text(doc_id)
        if len(data) > skip:
            self._pending.append(data[skip:] if skip else data)
            self._size += len(data) - skip
            if self._size >= 1 << 20:
                self.flush()
        return len(data)

    def write(self, text: str) -> None:
        self.flush()
        self.out.write(text)

    def flush(self) -> None:
        if not self._pending:
            return
        data, self._pending, self._size = b"".join(self._pending), [], 0
        self.out.flush()
        view, fd = memoryview(data), self.out.fileno()
        while view:
            view = view[os.write(fd, view):]

    def close(self) -> None:
        self.flush()
        self.out.flush()
        self._rows.clear()


class GoldParts:
    """``merge``'s gold written in parts: each document's text in the gold's format (a format
    written to one file, :class:`TextParts`), or its BRAT files (:class:`FolderParts`)."""

    def __init__(self, folder: str, format: str):
        self.format = format
        from ..formats import get_format

        written_per_document = get_format(format).document_files() is not None
        self.parts = FolderParts(folder, format) if written_per_document else TextParts(folder)

    def __iadd__(self, other: "GoldParts") -> "GoldParts":
        self.parts += other.parts
        return self

    def write(self, spanset, dest, fmt, options: dict) -> None:
        """Write ``spanset`` (whose documents are made when looked at) to ``dest`` as
        :func:`~spanagree.formats.write` does: the documents the workers wrote are joined in,
        the others made and written here (a refused one raises its error)."""
        from ..formats import write_documents, written_or_removed

        if isinstance(self.parts, FolderParts):
            self.parts.write(spanset, dest)
            return
        writer = fmt.file_writer()(**options)
        if not self.parts.entries:
            write_documents(writer, spanset, dest)
            return
        with written_or_removed(dest) as file:
            copier = self.parts.copier(file)
            try:
                copier.write(writer.head)
                for doc_id in spanset.documents:
                    if self.parts.ready(doc_id):
                        copier.copy(doc_id)
                    else:
                        copier.write(writer.document(doc_id, spanset.documents[doc_id]))
                copier.write(writer.tail)
            finally:
                copier.close()


class FolderParts:
    """A gold written in parts in a format that writes each document's files
    (:meth:`~spanagree.formats.Format.document_files`: BRAT's ``.txt`` and ``.ann``): each process
    writes its documents' files into a folder of its own in ``folder``
    (``<host>-<pid>-<format>-<n>``); the parent moves them into the gold's folder."""

    def __init__(self, folder, format: str):
        self.format = format
        self.folder = getattr(folder, "path", folder)
        self.entries: dict[str, int] = {}  # document -> number of the folder holding its files
        self.folders: list[str] = []
        self.failed: set[str] = set()
        self._own = None
        self._pid = None

    def add(self, doc_id: str, document) -> None:
        from ..formats import get_format

        if self._own is None or self._pid != os.getpid():
            self._pid = os.getpid()
            self._own = len(self.folders)
            self.folders.append(os.path.join(self.folder, f"{process_name()}-{self.format}-{next(_FILES)}"))
            os.mkdir(self.folders[-1])
        get_format(self.format).document_files().write(self.folders[self._own], doc_id, document)
        self.entries[doc_id] = self._own

    def __iadd__(self, other: "FolderParts") -> "FolderParts":
        for doc_id, k in other.entries.items():
            name = other.folders[k]
            if name not in self.folders:
                self.folders.append(name)
            self.entries[doc_id] = self.folders.index(name)
        self.failed |= other.failed
        return self

    def __getstate__(self):
        return {"folder": self.folder, "format": self.format, "entries": self.entries, "folders": self.folders,
                "failed": self.failed}

    def __setstate__(self, state):
        self.__init__(state["folder"], state["format"])
        self.entries, self.folders, self.failed = state["entries"], state["folders"], state["failed"]

    def write(self, spanset, dest) -> None:
        """The format's writer (:func:`~spanagree.formats.brat.write_brat`) of ``spanset``: every
        document checked (the first refused raises), then each one's files moved in (or written,
        when no worker did)."""
        from ..formats import get_format

        files = get_format(self.format).document_files()

        for doc_id in spanset.documents:
            if doc_id not in self.entries or doc_id in self.failed:
                files.check(doc_id, spanset.documents[doc_id])
        dest = os.fspath(dest)
        os.makedirs(dest, exist_ok=True)
        for doc_id in spanset.documents:
            k = self.entries.get(doc_id)
            if k is None:
                files.write(dest, doc_id, spanset.documents[doc_id], checked=True)
                continue
            for source, target in zip(files.paths(self.folders[k], doc_id), files.paths(dest, doc_id)):
                folder = os.path.dirname(target)
                if folder != dest:
                    os.makedirs(folder, exist_ok=True)
                try:
                    os.replace(source, target)
                except OSError:  # another file system: copied
                    shutil.copyfile(source, target)


class ListingParts:
    """An adjudication listing written in parts: each document's rows as
    :meth:`~spanagree.report.Listing.row` gives them, none of them first (:class:`TextParts`)."""

    def __init__(self, folder: str):
        self.parts = TextParts(folder)

    def __iadd__(self, other: "ListingParts") -> "ListingParts":
        self.parts += other.parts
        return self

    def write_rows(self, handle, documents, listing, rows_of) -> bool:
        """Write the rows of ``documents`` in order to the open ``handle``; ``rows_of(doc_id)``
        gives the rows of a document no worker wrote. Whether any row was written."""
        copier = self.parts.copier(handle)
        first = True
        try:
            for doc_id in documents:
                if self.parts.ready(doc_id):
                    if copier.copy(doc_id, skip=listing.FIRST_SKIP if first and listing.json else 0):
                        first = False
                    continue
                for row in rows_of(doc_id):
                    copier.write(listing.row(row, first=first))
                    first = False
        finally:
            copier.close()
        return not first
