"""Safe file I/O for the readers and writers: reading bounded by :data:`MAX_RECORD_BYTES` (even
endless input ends in one error), files found in folders opened without blocking and refused
unless regular, one-document files, a written file removed again when writing fails; a pipe
given as an input path opened once, its bytes shared by detection and the reader
(:func:`shared_pipe`); and the names and order of what folders hold (:func:`default_name`,
:func:`natural_key`).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import stat
import weakref
from pathlib import Path
from typing import Callable

from ..errors import FormatError


# The largest record a reader takes (a JSONL line, a CoNLL document, an XML document, a BRAT file),
# in bytes; ``--max-record-bytes`` raises it. Reading stays bounded even on endless input (/dev/zero).
MAX_RECORD_BYTES = 64 * 2**20


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


def too_large(path: str, what: str, limit: int, line: int | None = None) -> FormatError:
    """The error for a record beyond ``max_record_bytes``, naming the option that raises the limit."""
    return FormatError(path, f"{what} is longer than {limit:,} bytes, the largest record read "
                       "(raise it with {max_record_bytes})", line, max_record_bytes="max_record_bytes")



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


def default_name(path: str | os.PathLike) -> str:
    """A span set's default name: the folder name, or the file name without its extension."""
    path = Path(path)
    return path.name if path.is_dir() else path.stem


def open_file(path: str, what: str):
    """A one-file format's file (``what``: ``"CoNLL"``, ``"JSONL"``) opened for reading bytes.

    A pipe (a FIFO, a shell's ``<(...)``, ``/dev/stdin``) is read through :func:`shared_pipe`:
    opened once, the bytes detection looked at given again to the reader.

    Raises
    ------
    FormatError
        No such file, a folder, or unreadable.
    """
    try:
        return open_bytes(path)
    except FileNotFoundError:
        raise FormatError(path, "no such file or folder") from None
    except IsADirectoryError:
        raise FormatError(path, f"is a folder; {what} is read from one file") from None
    except OSError as error:
        raise FormatError(path, f"cannot read: {error.strerror or error}") from None


def open_bytes(path):
    """``open(path, "rb")``, except that a pipe is read through its one opening
    (:func:`shared_pipe`): what detection read of it is read again. Raises what ``open`` raises."""
    if is_pipe(path):
        return io.BufferedReader(_PipeReader(shared_pipe(path)))
    return open(path, "rb")


def is_pipe(path) -> bool:
    """Whether ``path`` exists and is neither a regular file nor a folder (a FIFO, a device): a
    file that can be read only once."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


class SharedPipe:
    """A pipe given as an input path, opened once in this process: what was looked at first (the
    ``head`` that detection reads: :meth:`peek`) is read again by the reader, then the rest.

    Opening a FIFO a second time would wait for a writer that has gone (the first reader's close
    ended its writing), so every reading of the path in a run goes through this one opening
    (:func:`shared_pipe`); once read to its end and closed, the path is opened anew if asked again.
    """

    def __init__(self, path: str):
        self.path = path
        self.file = open(path, "rb", buffering=0)
        weakref.finalize(self, self.file.close)  # (closed at exit too: an endless device never ends)
        self.head = b""
        self.ended = False

    def peek(self, size: int) -> bytes:
        """The first ``size`` bytes (fewer at the end), read once and kept for the reader."""
        while len(self.head) < size and not self.ended:
            more = self.file.read(size - len(self.head))
            if not more:
                self.ended = True
            self.head += more or b""
        return self.head[:size]

    def take(self, size: int) -> bytes:
        """The next ``size`` bytes at most: the kept head first, then the pipe."""
        if self.head:
            data, self.head = self.head[:size], self.head[size:]
            return data
        if self.ended:
            return b""
        data = self.file.read(size)
        if not data:
            self.ended = True
        return data or b""

    def release(self) -> None:
        """A reader closed: once everything was read, the pipe is closed and forgotten."""
        if self.ended and not self.head:
            self.file.close()
            if _PIPES.get(self.path) is self:
                del _PIPES[self.path]


#: The pipes opened in this process (:class:`SharedPipe`), by path, until read to their end.
_PIPES: dict[str, SharedPipe] = {}


def shared_pipe(path) -> SharedPipe:
    """The one opening of the pipe at ``path`` in this process (opened on first use).

    Examples
    --------
    >>> import os, tempfile, threading
    >>> fifo = os.path.join(tempfile.mkdtemp(), "fifo")
    >>> os.mkfifo(fifo)
    >>> def write():
    ...     with open(fifo, "wb") as file:
    ...         file.write(b"EU B-ORG\\nrejects O\\n")
    >>> writer = threading.Thread(target=write); writer.start()
    >>> shared_pipe(fifo).peek(2)
    b'EU'
    >>> with open_file(fifo, "CoNLL") as file:
    ...     file.read()
    b'EU B-ORG\\nrejects O\\n'
    >>> writer.join()
    """
    key = os.fspath(path)
    pipe = _PIPES.get(key)
    if pipe is None:
        pipe = _PIPES[key] = SharedPipe(key)
    return pipe


class _PipeReader(io.RawIOBase):
    """One reading of a :class:`SharedPipe` (wrapped in a buffered reader by :func:`open_file`);
    closing it leaves the pipe open for the next reading until everything was read."""

    def __init__(self, pipe: SharedPipe):
        self.pipe = pipe

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self.pipe.take(len(buffer))
        buffer[:len(data)] = data
        return len(data)

    def fileno(self) -> int:
        return self.pipe.file.fileno()

    def close(self) -> None:
        if not self.closed:
            self.pipe.release()
        super().close()


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
        with open_bytes(file) as handle:  # (a pipe: through its one opening)
            return read_bounded(handle, file, limit, "the file")
    except FileNotFoundError:
        raise FormatError(file, "no such file") from None
    except IsADirectoryError:
        raise FormatError(file, "is a folder") from None
    except OSError as error:
        raise FormatError(file, f"cannot read: {error.strerror or error}") from None


#: The longest file name most file systems take (ext4, XFS, APFS, NTFS: 255 bytes or units).
MAX_FILE_NAME_BYTES = 255


def check_file_path(doc_id: str, extension: str, title: str) -> None:
    """Refuse (:class:`~spanagree.errors.UsageError` naming the document) a document id that a
    writer of one file per document cannot make a file path of: relative, ``/``-separated, no
    empty, ``.`` or ``..`` part, no backslash or NUL, each part with ``extension`` within
    :data:`MAX_FILE_NAME_BYTES`.

    >>> check_file_path("news/d1", ".txt", "BRAT")
    >>> check_file_path("../d1", ".txt", "BRAT")
    Traceback (most recent call last):
    ...
    spanagree.errors.UsageError: document id '../d1' cannot be a BRAT file path (relative, '/'-separated, no empty, '.' or '..' parts)
    """
    from ..errors import UsageError

    parts = doc_id.split("/")
    if not doc_id or any(p in ("", ".", "..") or "\\" in p or "\0" in p for p in parts):
        raise UsageError(f"document id {doc_id!r} cannot be a {title} file path (relative, '/'-separated, "
                         "no empty, '.' or '..' parts)")
    if max(len(p.encode("utf-8", "surrogatepass")) for p in parts) + len(extension) > MAX_FILE_NAME_BYTES:
        shown = doc_id if len(doc_id) <= 60 else doc_id[:57] + "..."
        raise UsageError(f"document id {shown!r} cannot be a {title} file name: a part of it is longer than "
                         f"{MAX_FILE_NAME_BYTES - len(extension)} bytes")
