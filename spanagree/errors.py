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
    """A wrong call: unknown option value, impossible combination, existing output, ...

    Parameters
    ----------
    message : str
        What is wrong. Where it concerns one parameter, ``{option}`` stands for its name.
    option : str, optional
        That parameter as the Python API names it (``partial_credit``): the message says it so,
        and the command line says its flag instead (:meth:`command_line_message`).
    flag : str, optional
        The command line's flag for it, when it is not ``--`` and the name with dashes
        (``label_map`` is ``--map``).

    Examples
    --------
    >>> error = UsageError("{option} must be in (0, 1], got 2", option="partial_credit")
    >>> str(error), error.command_line_message()
    ('partial_credit must be in (0, 1], got 2', '--partial-credit must be in (0, 1], got 2')
    """

    def __init__(self, message: str, *, option: str | None = None, flag: str | None = None):
        self.template = message
        self.option = option
        self.flag = flag if flag is not None or option is None else "--" + option.replace("_", "-")
        super().__init__(message if option is None else message.replace("{option}", option))

    def command_line_message(self) -> str:
        """The message as the command line says it: the parameter named by its flag."""
        return str(self) if self.option is None else self.template.replace("{option}", self.flag)

    def __reduce__(self):
        """Pickled with its parts (it may travel back from a worker process)."""
        return _usage_error, (self.template, self.option, self.flag)


def _usage_error(message: str, option: str | None, flag: str | None) -> UsageError:
    return UsageError(message, option=option, flag=flag)


class SpanagreeWarning(UserWarning):
    """Something the user should know that does not stop the run (duplicates, skipped documents)."""
