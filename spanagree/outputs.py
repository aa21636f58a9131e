"""Writing results safely, and leaving nothing behind.

* Never into an existing non-empty file or folder without ``force`` (:func:`check_destination`),
  never into anything but a regular file or a folder (``/dev/null``, a FIFO), and never at, inside
  or around an input, whatever ``force`` says (:func:`check_not_inputs`).
* Never half-written: everything goes to a hidden temporary place next to the destination first,
  then is moved in one step (:func:`write_atomically`); a failure (a full disk, a read-only
  folder) is one line naming the destination, and the temporary place is removed.
* SIGINT, SIGTERM and SIGHUP end a run alike (:func:`signals_as_interrupts`): the first one
  raises :class:`Interrupted`, the temporary outputs are removed, later ones are ignored while
  that happens, and the command exits with 128 + the first signal's number — also when the
  exception was swallowed where Python ignores exceptions (a finaliser: :func:`received`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from pathlib import Path
from typing import Callable, Iterable, Iterator

from .errors import SpanagreeError, UsageError, parameter

# The signals that end a run cleanly, as Ctrl-C (SIGINT) does; SIGHUP is absent on Windows.
SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
#: Every signal :func:`signals_as_interrupts` turns into :class:`Interrupted`.
STOPPING = (signal.SIGINT, *SIGNALS)
#: The first signal received inside :func:`signals_as_interrupts` (its number), until it is entered again.
_RECEIVED: list[int] = []


class Interrupted(KeyboardInterrupt):
    """A run ended by a signal; ``signum`` is its number (exit status 128 + ``signum``).

    A :class:`KeyboardInterrupt`, so that every ``finally`` (the temporary outputs' removal
    among them) runs as it does for Ctrl-C.
    """

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


class OutputError(SpanagreeError):
    """An output that could not be written (a full disk, a read-only folder): names the destination."""


@contextlib.contextmanager
def signals_as_interrupts() -> Iterator[None]:
    """While inside, SIGINT, SIGTERM and SIGHUP raise :class:`Interrupted` in the main thread
    (a :class:`KeyboardInterrupt`, as Ctrl-C raises by default); the handlers before are restored
    on leaving.

    A process forked inside (a ``--jobs`` worker) does not inherit the behaviour: there the
    signal does what it does by default (the process ends). Only the first signal raises: later
    ones, while the run stops (its workers ended, the temporary outputs removed), are ignored.
    The first is remembered (:func:`received`), so that a run whose interrupt was swallowed
    where Python ignores exceptions (a finaliser, a thread) still ends as interrupted.

    Examples
    --------
    >>> import os, signal
    >>> try:
    ...     with signals_as_interrupts():
    ...         os.kill(os.getpid(), signal.SIGTERM)
    ... except Interrupted as stop:
    ...     print(128 + stop.signum)
    143
    """
    owner = os.getpid()
    del _RECEIVED[:]

    def handler(signum, frame):
        if os.getpid() != owner:  # a forked worker: die as the signal says
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        if _RECEIVED:  # already stopping: let the clean-up finish
            return
        raise interrupted(signum)

    try:
        previous = {signum: signal.signal(signum, handler) for signum in STOPPING}
    except ValueError:  # not the main thread: signals cannot be handled here
        yield
        return
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


def interrupted(signum: int) -> Interrupted:
    """The :class:`Interrupted` of ``signum``, remembered as the run's first signal (:func:`received`):
    for a signal this process learns of another way (a ``--jobs`` worker ended by it)."""
    if not _RECEIVED:
        _RECEIVED.append(signum)
    return Interrupted(signum)


def received() -> int | None:
    """The first signal received inside the last :func:`signals_as_interrupts` (its number), or ``None``."""
    return _RECEIVED[0] if _RECEIVED else None


def exit_status(interrupt: KeyboardInterrupt) -> int:
    """128 + the signal's number: 130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP."""
    return 128 + getattr(interrupt, "signum", signal.SIGINT)


def is_occupied(path: Path) -> bool:
    """True for an existing non-empty file or folder."""
    if path.is_dir():
        return next(path.iterdir(), None) is not None
    return path.exists() and (not path.is_file() or path.stat().st_size > 0)


def check_destination(path: str | os.PathLike, *, force: bool = False, what: str = "output",
                      folder: bool | None = None) -> Path:
    """Refuse a destination that is not a regular file or folder (``/dev/null``, a FIFO), or an
    existing non-empty one unless ``force``; return it as a Path.

    ``folder`` says what the output is: ``False`` one file (an existing folder there is refused,
    whatever ``force`` says: a folder is never replaced by a file), ``True`` a folder (an existing
    file is refused likewise), ``None`` either.

    Raises
    ------
    UsageError
        One line naming the destination (exit status 2).
    """
    path = Path(path)
    if path.exists() and not path.is_dir() and not path.is_file():
        raise UsageError(f"{path}: {what} is not a regular file or folder (a device, FIFO or socket); "
                         "nothing was written (give a file or folder to write)")
    if folder is not None and path.exists() and path.is_dir() != folder:
        written, found = ("a folder", "a file") if folder else ("one file", "a folder")
        raise UsageError(f"{path}: {what} is {found}, and it is written as {written}; nothing was written "
                         f"({found} is never replaced by {written}, even with {{force}}: give another path)",
                         force=parameter("force", True))
    if is_occupied(path) and not force:
        raise UsageError(f"{path}: {what} exists and is not empty; nothing was written (use {{force}} to replace it)",
                         force=parameter("force", True))
    return path


def check_not_inputs(outputs: Iterable[str | os.PathLike | None], inputs: Iterable[str | os.PathLike], *,
                     what: str = "output") -> None:
    """Refuse an output that is an input, holds one (a folder around it) or lies inside one (a
    folder given as input), whatever ``--force`` says: writing it would change or delete the input.

    Paths are compared after symbolic links are resolved, and a file is also the same as any
    hard link to it. ``None`` outputs (an option not given) are skipped.

    Raises
    ------
    UsageError
        One line naming both (exit status 2).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> top = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (top / "in.jsonl").write_text("")
    >>> check_not_inputs([top / "out"], [top / "in.jsonl"])
    >>> try:
    ...     check_not_inputs([top], [top / "in.jsonl"])
    ... except UsageError as error:
    ...     print(str(error).replace(str(top), "TOP"))
    TOP: output would replace the input TOP/in.jsonl (it holds it); nothing was written (force=True never replaces an input)
    """
    inputs = [(given, Path(given).resolve()) for given in inputs]
    for output in outputs:
        if output is None:
            continue
        out = Path(output).resolve()
        for given, source in inputs:
            if out == source or _same_file(out, source):
                relation = "is"
            elif out in source.parents:
                relation = "holds"
            elif source in out.parents:
                relation = "lies inside"
            else:
                continue
            problem = {"is": f"{what} is the input {given}",
                       "holds": f"{what} would replace the input {given} (it holds it)",
                       "lies inside": f"{what} lies inside the input {given}"}[relation]
            raise UsageError(f"{output}: {problem}; nothing was written ({{force}} never replaces an input)",
                             force=parameter("force", True))


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def write_atomically(dest: str | os.PathLike, produce: Callable[[Path], None], *, force: bool = False,
                     what: str = "output", folder: bool | None = None) -> None:
    """Let ``produce(temporary_path)`` write a file or folder, then move it to ``dest``.

    ``dest`` is checked first (see :func:`check_destination`; ``folder`` says which it writes); if ``produce`` fails or the run is
    interrupted (Ctrl-C, or SIGTERM/SIGHUP under :func:`signals_as_interrupts`), nothing at
    ``dest`` changes and the temporary output is removed. The final swap is done with those
    signals held back, so an interrupted run never loses the destination it replaces.

    Raises
    ------
    UsageError
        A destination refused by :func:`check_destination`.
    OutputError
        The system refused to write (a full disk, a read-only folder): one line naming ``dest``,
        never the hidden temporary path.
    """
    import shutil
    import tempfile

    dest = check_destination(dest, force=force, what=what, folder=folder)
    parent = dest.parent if str(dest.parent) else Path(".")
    try:
        parent.mkdir(parents=True, exist_ok=True)
        workspace = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=parent))
    except OSError as error:
        raise _output_error(dest, what, error) from None
    try:
        temporary = workspace / dest.name
        try:
            produce(temporary)
            if not temporary.exists():  # an empty result still replaces the destination
                temporary.mkdir() if dest.is_dir() else temporary.touch()
            with signals_held():
                _swap(temporary, dest, workspace)
        except OSError as error:
            raise _output_error(dest, what, error) from None
    finally:
        shutil.rmtree(workspace, ignore_errors=True)


def _swap(temporary: Path, dest: Path, workspace: Path) -> None:
    """Move ``temporary`` to ``dest``, the old ``dest`` (if any) put back when the move fails."""
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


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP held back (delivered on leaving) where the platform allows: for
    what must not stop half-way (an output moved into place, a temporary folder removed, the
    workers ended)."""
    held = set(STOPPING)
    try:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    except (AttributeError, ValueError, OSError):  # no sigmask on this platform
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _output_error(dest: Path, what: str, error: OSError) -> OutputError:
    reason = error.strerror or str(error)
    return OutputError(f"{dest}: cannot write the {what}: {reason}; nothing was written")


def write_text(dest: str | os.PathLike, text: str, *, force: bool = False, what: str = "output") -> None:
    """Write ``text`` (UTF-8) to ``dest`` atomically, refusing to replace a non-empty file without ``force``."""

    def produce(path: Path) -> None:
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)

    write_atomically(dest, produce, force=force, what=what, folder=False)


def write_stdout(text) -> None:
    """Write the report (a text, or its pieces one after the other) to standard output; a
    refusal (``> /dev/full``) is one line naming it.

    Raises
    ------
    BrokenPipeError
        The reader went away (``| head``): the caller ends quietly.
    OutputError
        Any other refusal, naming standard output.
    """
    try:
        for piece in ([text] if isinstance(text, str) else text):
            sys.stdout.write(piece)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        raise OutputError(f"standard output: cannot write the report: {error.strerror or error}") from None
