"""Detection: a path's format told by the registry, by its content
(:attr:`~spanagree.formats.Format.recognises`), else a file's extension or the files a folder
holds.
"""

from __future__ import annotations

import os
import stat
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from ..errors import FormatError
from .files import shared_pipe
from .registry import FORMATS, documented


#: How much of a file the content recognisers (:attr:`~spanagree.formats.Format.recognises`) see.
HEAD_BYTES = 4096


def detect_format(path: str | os.PathLike) -> str:
    """The format of a path, told by the registry: a file's by its extension
    (:attr:`~spanagree.formats.Format.extensions`), a folder's by the files inside
    (:attr:`~spanagree.formats.Format.folder_extensions`, in order of
    :attr:`~spanagree.formats.Format.folder_precedence`).

    A folder holding ``.ann`` files is BRAT, else one holding ``.xml`` files XML, else ``.jsonl``
    JSONL, else ``.conll`` CoNLL (the last two are read from one file: their readers then say
    so). A file's extension, where its content does not tell: {EXTENSIONS}.

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
    remembered = _DETECTED.get()
    if remembered is not None:
        key = os.path.abspath(path)
        if key not in remembered:
            remembered[key] = _detected(Path(path))
        return remembered[key]
    return _detected(Path(path))


def _detected(path: Path) -> str:
    """:func:`detect_format`, every time."""
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


detect_format.__doc__ = documented(detect_format.__doc__)  # the extensions, from the registry

#: The formats detected in the current run (:func:`detected_once`), by absolute path.
_DETECTED: ContextVar[dict | None] = ContextVar("detected", default=None)


@contextmanager
def detected_once():
    """Within it, each path's format is detected once: a run asks for an input's format several
    times (is it a container, which reader, which options), and on a folder each detection walks
    it for every content recogniser (three walks of 20,000 files: 0.3 s each). The inputs of a
    run do not change during the run; outside a run nothing is remembered.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> (folder / "a.ann").touch()
    >>> with detected_once():
    ...     first = detect_format(folder)
    ...     (folder / "a.ann").unlink(); (folder / "b.xml").touch()
    ...     first, detect_format(folder)
    ('brat', 'brat')
    >>> detect_format(folder)
    'xml'
    """
    token = _DETECTED.set({}) if _DETECTED.get() is None else None
    try:
        yield
    finally:
        if token is not None:
            _DETECTED.reset(token)


def recognised_format(path: Path) -> str | None:
    """The first format whose recogniser claims ``path`` by its content (:attr:`~spanagree.formats.Format.recognises`),
    containers before the others, else in registry order; ``None`` when none does."""
    # containers first: their layouts are the more specific (an INCEpTION project folder holds
    # .xmi files, which alone would make it XMI)
    sniffers = sorted((fmt for fmt in FORMATS.values() if fmt.recognises), key=lambda fmt: not fmt.container)
    if not sniffers:
        return None
    head = None
    if not path.is_dir():
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):  # a pipe: opened once, its head kept for the reader
                head = shared_pipe(path).peek(HEAD_BYTES)
            else:
                with open(path, "rb") as file:
                    head = file.read(HEAD_BYTES)
        except OSError:
            return None
    for fmt in sniffers:
        if fmt.recogniser()(path, head):
            return fmt.name
    return None
