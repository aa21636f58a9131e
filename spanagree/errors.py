"""The exception and warning hierarchy of spanagree.

Every error a user can cause derives from :class:`SpanagreeError`; the command line turns it into
one line on stderr (exit 1 for bad input, 2 for bad usage) and never shows a traceback.
"""

from __future__ import annotations


class SpanagreeError(Exception):
    """Base class of every error spanagree raises on purpose."""


class FormatError(SpanagreeError, ValueError):
    """Bad input in a file, reported like a compiler: ``path:line: message``.

    Parameters
    ----------
    path : str or os.PathLike
        The file (or folder) at fault.
    message : str
        What is wrong, in one line.
    line : int, optional
        1-based line number, when there is one.
    """

    def __init__(self, path, message: str, line: int | None = None):
        self.path = str(path)
        self.line = line
        self.message = message
        where = self.path if line is None else f"{self.path}:{line}"
        super().__init__(f"{where}: {message}")

    def __reduce__(self):
        """Pickled with its parts, so that it can travel back from a worker process (``--jobs``)."""
        return type(self), (self.path, self.message, self.line)


class UsageError(SpanagreeError, ValueError):
    """A wrong call: unknown option value, impossible combination, existing output, ..."""


class SpanagreeWarning(UserWarning):
    """Something the user should know that does not stop the run (duplicates, skipped documents)."""
