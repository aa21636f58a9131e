"""Zip archives read safely by the readers of exports (INCEpTION's, doccano's): a zip's members
counted from its central directory before :mod:`zipfile` reads it (at most
:data:`MAX_ZIP_MEMBERS`), a member's bytes read at most up to a limit whatever the zip declares,
and what :mod:`zipfile` raises on a damaged zip (:data:`ZIP_ERRORS`) worded in one line
(:func:`zip_message`). A zip is only read, never unpacked: member names are never used as paths.
"""

from __future__ import annotations

import os
import struct
import zipfile
import zlib

from ..errors import FormatError
from .files import too_large

__all__ = ["MAX_ZIP_MEMBERS", "ZIP_ERRORS", "bounded_zip", "zip_member", "zip_message"]

#: What the zipfile module raises on a damaged or unusual zip.
ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, NotImplementedError, RuntimeError, ValueError,
              EOFError, OSError, UnicodeDecodeError, OverflowError)

#: The most members a zip (an export, or a zip inside it) may hold: zipfile keeps about a
#: kilobyte per member, and INCEpTION writes a few per document and user.
MAX_ZIP_MEMBERS = 250_000

_END = struct.Struct("<4s4H2LH")            # the end of central directory record
_END64_LOCATOR = struct.Struct("<4sLQL")     # the zip64 end record's locator, just before it
_END64 = struct.Struct("<4sQ2H2L4Q")         # the zip64 end of central directory record
_ENTRY = struct.Struct("<4s6H3L5H2L")        # a central directory entry's fixed part


def bounded_zip(file, where: str) -> zipfile.ZipFile:
    """The zip in the open ``file`` (bytes, seekable), its members counted from its central directory
    before zipfile reads it (zipfile walks the whole directory, whatever the end record declares).

    Raises
    ------
    FormatError
        More than :data:`MAX_ZIP_MEMBERS` members, naming ``where``.
    zipfile.BadZipFile, OSError, ...
        A damaged zip, as zipfile says (:data:`ZIP_ERRORS`; the caller words it: :func:`zip_message`).

    Examples
    --------
    >>> import io
    >>> data = io.BytesIO()
    >>> with zipfile.ZipFile(data, "w") as archive:
    ...     archive.writestr("a.jsonl", '{"text": "a"}')
    >>> with bounded_zip(data, "export.zip") as archive:
    ...     archive.namelist(), zip_member(archive, archive.getinfo("a.jsonl"), "export.zip/a.jsonl", 100)
    (['a.jsonl'], b'{"text": "a"}')
    """
    file.seek(0, os.SEEK_END)
    size = file.tell()
    tail_at = max(0, size - _END.size - 0xFFFF)
    file.seek(tail_at)
    tail = file.read()
    end = tail.rfind(b"PK\x05\x06")
    if end >= 0 and end + _END.size <= len(tail):
        fields = _END.unpack_from(tail, end)
        declared, directory_size = fields[4], fields[5]
        directory_end = tail_at + end
        if end >= _END64_LOCATOR.size and tail[end - _END64_LOCATOR.size:end - 16] == b"PK\x06\x07":
            directory_end -= _END64_LOCATOR.size + _END64.size
            file.seek(directory_end)
            record = file.read(_END64.size)
            if len(record) == _END64.size and record[:4] == b"PK\x06\x06":
                fields = _END64.unpack(record)
                declared, directory_size = fields[7], fields[8]
        if declared > MAX_ZIP_MEMBERS or _members(file, directory_end - directory_size, directory_size) > \
                MAX_ZIP_MEMBERS:
            raise FormatError(where, f"a zip of more than {MAX_ZIP_MEMBERS:,} members (at most {MAX_ZIP_MEMBERS:,} "
                              "are read)")
    file.seek(0)
    return zipfile.ZipFile(file)


def _members(file, start: int, size: int) -> int:
    """The entries of the central directory at ``[start, start + size)``, counted up to one more than
    :data:`MAX_ZIP_MEMBERS` (then it stops): each entry's fixed part and its name, extra field and
    comment's lengths, as zipfile walks them."""
    if start < 0:
        return 0  # zipfile will say what is wrong
    file.seek(start)
    directory = file.read(size)
    count, at, fixed = 0, 0, _ENTRY.size
    while at + fixed <= len(directory) and count <= MAX_ZIP_MEMBERS:
        name, extra, comment = struct.unpack_from("<3H", directory, at + 28)
        at += fixed + name + extra + comment
        count += 1
    return count


def zip_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, where: str, limit: int) -> bytes:
    """A zip member's bytes, at most ``limit`` of them whatever the zip declares (more is a
    :class:`~spanagree.errors.FormatError` naming ``where``, as is a member that cannot be read)."""
    if info.file_size > limit:
        raise too_large(where, "the file", limit)
    try:
        with archive.open(info) as member:
            data = member.read(limit + 1)
    except ZIP_ERRORS as error:
        raise FormatError(where, f"cannot be read from the zip: {zip_message(error)}") from None
    if len(data) > limit:
        raise too_large(where, "the file", limit)
    return data


def zip_message(error: BaseException) -> str:
    """What zipfile said, on one line of at most 300 characters.

    >>> zip_message(zipfile.BadZipFile("File is not\\na zip file"))
    'File is not a zip file'
    """
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= 300 else text[:297] + "..."
