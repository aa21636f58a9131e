"""Writing results safely: never into an existing non-empty file or folder without ``force``,
and never half-written (everything goes to a temporary place first, then is moved in one step).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable

from .errors import UsageError


def is_occupied(path: Path) -> bool:
    """True for an existing non-empty file or folder."""
    if path.is_dir():
        return next(path.iterdir(), None) is not None
    return path.exists() and (not path.is_file() or path.stat().st_size > 0)


def check_destination(path: str | os.PathLike, *, force: bool = False, what: str = "output") -> Path:
    """Refuse an existing non-empty destination unless ``force``; return it as a Path."""
    path = Path(path)
    if is_occupied(path) and not force:
        raise UsageError(f"{path}: {what} exists and is not empty; nothing was written (use --force to replace it)")
    if path.exists() and not path.is_dir() and not path.is_file():
        raise UsageError(f"{path}: not a regular file or folder")
    return path


def write_atomically(dest: str | os.PathLike, produce: Callable[[Path], None], *, force: bool = False,
                     what: str = "output") -> None:
    """Let ``produce(temporary_path)`` write a file or folder, then move it to ``dest``.

    ``dest`` is checked first (see :func:`check_destination`); if ``produce`` fails, nothing at
    ``dest`` changes and the temporary output is removed.
    """
    dest = check_destination(dest, force=force, what=what)
    parent = dest.parent if str(dest.parent) else Path(".")
    parent.mkdir(parents=True, exist_ok=True)
    workspace = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=parent))
    try:
        temporary = workspace / dest.name
        produce(temporary)
        if not temporary.exists():  # an empty result still replaces the destination
            temporary.mkdir() if dest.is_dir() else temporary.touch()
        if dest.exists():
            retired = workspace / (dest.name + ".old")
            os.replace(dest, retired)
            try:
                os.replace(temporary, dest)
            except OSError:
                os.replace(retired, dest)
                raise
        else:
            os.replace(temporary, dest)
    finally:
        shutil.rmtree(workspace, ignore_errors=True)


def write_text(dest: str | os.PathLike, text: str, *, force: bool = False, what: str = "output") -> None:
    """Write ``text`` (UTF-8) to ``dest`` atomically, refusing to replace a non-empty file without ``force``."""

    def produce(path: Path) -> None:
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)

    write_atomically(dest, produce, force=force, what=what)
