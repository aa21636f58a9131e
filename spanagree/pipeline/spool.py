"""Per-document records kept for the HTML report (``--report``), spooled to disk as a run streams.

A comparison that reports writes one JSON line per document it compares (its text, every
copy's spans, how they were paired and classified: see docs/report.md) to a temporary file and
keeps only where the line is and how much the document disagrees. A :class:`DocumentSpool` is
part of the comparison's tally, so it adds up with ``+=`` like the counts: batch by batch, and
shard by shard under ``--jobs`` (each forked process writes its own file in the spool's folder;
the index entries travel back with the tally). Memory holds a few numbers per document; the
report is assembled from the files at the end (:mod:`spanagree.report.html`).
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import tempfile
import weakref


#: Numbers the spool files a process writes (one per spool: several spools may write at once).
_FILES = itertools.count()


class SpoolFolder:
    """A temporary folder for the spool files of one run, removed when the last object that
    holds it is gone (or on :meth:`remove`)."""

    def __init__(self):
        self.path = tempfile.mkdtemp(prefix="spanagree-report-")
        self._finalizer = weakref.finalize(self, shutil.rmtree, self.path, True)

    def remove(self) -> None:
        self._finalizer()


class DocumentSpool:
    """Document records written as JSON lines; the index (document → file, offset, length,
    disagreements) kept in memory, in the order the documents were added.

    Attributes
    ----------
    folder : str
        Where this process's file goes (one file per spool and process: ``<pid>-<n>.jsonl``).
    entries : dict
        ``document id → (file, offset, length, disagreements)``.
    """

    def __init__(self, folder: str):
        self.folder = folder
        self.entries: dict[str, tuple[str, int, int, int]] = {}
        self.more: dict[str, list[tuple[str, int, int, int]]] = {}  # further records of a document (join)
        self.folder_owner: SpoolFolder | None = None  # keeps the temporary folder alive (the result's)
        self._file = None
        self._pid = None

    def add(self, doc_id: str, disagreements: int, record: dict) -> None:
        """Write ``record`` (a JSON-able dict) for ``doc_id``."""
        if self._file is None or self._pid != os.getpid():
            self._pid = os.getpid()
            self._file = open(os.path.join(self.folder, f"{self._pid}-{next(_FILES)}.jsonl"), "ab")
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        offset = self._file.tell()
        self._file.write(line)
        self.entries[doc_id] = (self._file.name, offset, len(line) - 1, disagreements)

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def __iadd__(self, other: "DocumentSpool") -> "DocumentSpool":
        other.flush()
        self.entries.update(other.entries)
        for doc_id, entries in other.more.items():
            self.more.setdefault(doc_id, []).extend(entries)
        return self

    def join(self, other: "DocumentSpool") -> None:
        """Add ``other``'s records, joining a document's records when both spools hold one: records
        of the same document written by different groups of annotators (``agree --documents
        pairwise``) become one (spans by annotator united, classified items concatenated,
        disagreements added)."""
        other.flush()
        for doc_id, entry in other.entries.items():
            mine = self.entries.get(doc_id)
            if mine is None:
                self.entries[doc_id] = entry
            else:
                self.more.setdefault(doc_id, []).append(entry)
                self.entries[doc_id] = (*mine[:3], mine[3] + entry[3])
        for doc_id, entries in other.more.items():
            self.more.setdefault(doc_id, []).extend(entries)

    def __getstate__(self):
        self.flush()
        return {"folder": self.folder, "entries": self.entries, "more": self.more}

    def __setstate__(self, state):
        self.folder = state["folder"]
        self.entries = state["entries"]
        self.more = state.get("more", {})
        self.folder_owner = None
        self._file = None
        self._pid = None

    def __deepcopy__(self, memo):
        copy = DocumentSpool(self.folder)
        copy.entries = dict(self.entries)
        copy.more = {d: list(e) for d, e in self.more.items()}
        copy.folder_owner = self.folder_owner
        return copy

    def disagreements(self, doc_id: str) -> int:
        entry = self.entries.get(doc_id)
        return entry[3] if entry is not None else 0

    def record(self, doc_id: str) -> dict | None:
        """The record written for ``doc_id`` (``None`` if none was)."""
        entry = self.entries.get(doc_id)
        if entry is None:
            return None
        self.flush()
        record = _read(entry)
        for more in self.more.get(doc_id, ()):
            part = _read(more)
            record["spans"].update(part["spans"])
            record["items"] += part["items"]
        return record

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def _read(entry: tuple) -> dict:
    path, offset, length, _ = entry
    with open(path, "rb") as handle:
        handle.seek(offset)
        return json.loads(handle.read(length).decode("utf-8"))


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
