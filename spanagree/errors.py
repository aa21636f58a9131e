"""The exception and warning hierarchy of spanagree, and how their messages name parameters.

Every error a user can cause derives from :class:`SpanagreeError`; the command line turns it into
one line on stderr (exit 1 for bad input, 2 for bad usage) and never shows a traceback.

Messages speak the Python API's words (``jobs``, ``documents="common"``); a message that names a
parameter holds it as a placeholder (``{option}``, ``{documents}``) filled with a
:class:`Parameter`, which the command line spells as its flag instead
(:meth:`SpanagreeError.command_line_message`, :meth:`SpanagreeWarning.command_line_message`).
Warnings name the line that called spanagree (:func:`find_stack_level`).
"""

from __future__ import annotations

import functools
import os
import sys
from typing import NamedTuple


class Parameter(NamedTuple):
    """A parameter (with its value, or a phrase of them) as a message names it.

    Attributes
    ----------
    api : str
        In the Python API's words: ``documents="common"``.
    command_line : str
        As the command line says it: ``--documents common``.
    """

    api: str
    command_line: str


_NO_VALUE = object()


def parameter(name: str, value=_NO_VALUE, *, flag: str | None = None,
              command_line_value: str | None = None) -> Parameter:
    """``name`` (given ``value``) in a message: the keyword argument, or the command line's flag.

    Parameters
    ----------
    name : str
        The parameter as the Python API names it (``min_votes``).
    value : optional
        Its value, when the message gives one: a string is quoted, a number is not; ``True`` is a
        switch (the flag alone).
    flag : str, optional
        The command line's flag, when it is not ``--`` and the name with dashes (``label_map`` is
        ``--map``).
    command_line_value : str, optional
        The value as the command line writes it, when not ``str(value)`` (``OLD=NEW``).

    Examples
    --------
    >>> parameter("documents", "common")
    Parameter(api='documents="common"', command_line='--documents common')
    >>> parameter("min_votes", 3)
    Parameter(api='min_votes=3', command_line='--min-votes 3')
    >>> parameter("label_map", flag="--map")
    Parameter(api='label_map', command_line='--map')
    """
    flag = "--" + name.replace("_", "-") if flag is None else flag
    if value is _NO_VALUE:
        return Parameter(name, flag)
    if value is True:
        return Parameter(f"{name}=True", flag)
    shown = f'"{value}"' if isinstance(value, str) else repr(value)
    return Parameter(f"{name}={shown}", f"{flag} {value if command_line_value is None else command_line_value}")


def _fill(template: str, words: dict, side: int) -> str:
    """``template`` with each ``{key}`` of ``words`` replaced by its API (0) or command-line (1) spelling."""
    for key, words_of in words.items():
        template = template.replace("{" + key + "}", words_of[side])
    return template


def _parameters(words: dict) -> dict:
    """Every placeholder's :class:`Parameter`; a bare string is a parameter's name."""
    return {key: value if isinstance(value, Parameter) else parameter(value) for key, value in words.items()}


class _Worded:
    """A message whose ``{placeholders}`` name parameters: in the API's words by ``str()``, by
    their flags in :meth:`command_line_message`."""

    template: str
    words: dict

    def _word(self, template: str, words: dict) -> str:
        self.template = template
        self.words = _parameters(words)
        return _fill(template, self.words, 0)

    def command_line_message(self) -> str:
        """The message as the command line says it: each parameter named by its flag."""
        return _fill(self.template, self.words, 1) if self.words else str(self)

    def __reduce__(self):
        """Pickled with its parts (it may travel back from a worker process)."""
        return _rebuilt, (type(self), self.template, self.words)


def _rebuilt(cls, template: str, words: dict):
    return cls(template, **words)


class SpanagreeError(_Worded, Exception):
    """Base class of every error spanagree raises on purpose.

    Parameters
    ----------
    message : str
        What is wrong; ``{key}`` stands for the parameter given as ``key``.
    **words : Parameter or str
        The parameters the message names (a string: a parameter's name, its flag the name with
        dashes).

    Examples
    --------
    >>> error = SpanagreeError("a worker of {jobs} ended abruptly; try fewer {jobs}", jobs="jobs")
    >>> str(error), error.command_line_message()
    ('a worker of jobs ended abruptly; try fewer jobs', 'a worker of --jobs ended abruptly; try fewer --jobs')
    """

    def __init__(self, message: str = "", **words):
        super().__init__(self._word(message, words))


class FormatError(SpanagreeError, ValueError):
    """Bad input in a file, reported like a compiler: ``path:line: message``.

    Parameters
    ----------
    path : str or os.PathLike
        The file (or folder) at fault.
    message : str
        What is wrong, in one line; ``{key}`` stands for the parameter given as ``key``.
    line : int, optional
        1-based line number, when there is one.
    **words : Parameter or str
        The parameters the message names (as in :class:`SpanagreeError`).

    Examples
    --------
    >>> error = FormatError("a.xmi", "no view 'x'; choose one with {view}", view="xmi_view")
    >>> str(error), error.command_line_message()
    ("a.xmi: no view 'x'; choose one with xmi_view", "a.xmi: no view 'x'; choose one with --xmi-view")
    """

    def __init__(self, path, message: str, line: int | None = None, **words):
        self.path = str(path)
        self.line = line
        self.where = self.path if line is None else f"{self.path}:{line}"
        self.message = self._word(message, words)
        Exception.__init__(self, f"{self.where}: {self.message}")

    def command_line_message(self) -> str:
        """The message as the command line says it: where, then each parameter named by its flag."""
        return f"{self.where}: {_fill(self.template, self.words, 1)}"

    def __reduce__(self):
        """Pickled with its parts, so that it can travel back from a worker process (``jobs``)."""
        return _format_error, (type(self), self.path, self.template, self.line, self.words)


def _format_error(cls, path, message: str, line: int | None, words: dict) -> FormatError:
    return cls(path, message, line, **words)


class UsageError(SpanagreeError, ValueError):
    """A wrong call: unknown option value, impossible combination, existing output, ...

    Parameters
    ----------
    message : str
        What is wrong. Where it concerns one parameter, ``{option}`` stands for its name; other
        parameters it names stand as ``{key}`` (as in :class:`SpanagreeError`).
    option : str, optional
        That parameter as the Python API names it (``partial_credit``): the message says it so,
        and the command line says its flag instead (:meth:`command_line_message`).
    flag : str, optional
        The command line's flag for it, when it is not ``--`` and the name with dashes
        (``label_map`` is ``--map``).
    **words : Parameter or str
        The other parameters the message names.

    Examples
    --------
    >>> error = UsageError("{option} must be in (0, 1], got 2", option="partial_credit")
    >>> str(error), error.command_line_message()
    ('partial_credit must be in (0, 1], got 2', '--partial-credit must be in (0, 1], got 2')
    >>> error = UsageError("{option} needs every annotator; use {common}", option="unitizing",
    ...                    common=parameter("documents", "common"))
    >>> str(error), error.command_line_message()
    ('unitizing needs every annotator; use documents="common"', '--unitizing needs every annotator; use --documents common')
    """

    def __init__(self, message: str, *, option: str | None = None, flag: str | None = None, **words):
        self.option = option
        self.flag = flag if flag is not None or option is None else "--" + option.replace("_", "-")
        if option is not None:
            words = {"option": Parameter(option, self.flag), **words}
        super().__init__(message, **words)

    def __reduce__(self):
        """Pickled with its parts (it may travel back from a worker process)."""
        words = {key: value for key, value in self.words.items() if key != "option"}
        return _usage_error, (type(self), self.template, self.option, self.flag, words)


def _usage_error(cls, message: str, option: str | None, flag: str | None, words: dict) -> UsageError:
    return cls(message, option=option, flag=flag, **words)


class SpanagreeWarning(_Worded, UserWarning):
    """Something the user should know that does not stop the run (duplicates, skipped documents).

    Parameters
    ----------
    message : str
        What happened; ``{key}`` stands for the parameter given as ``key`` (as in
        :class:`SpanagreeError`): warn with an instance, ``warnings.warn(SpanagreeWarning(...))``,
        for the command line to name it by its flag.
    **words : Parameter or str
        The parameters the message names.

    Examples
    --------
    >>> warning = SpanagreeWarning("fewer annotators than {k}", k=parameter("min_votes", 3))
    >>> str(warning), warning.command_line_message()
    ('fewer annotators than min_votes=3', 'fewer annotators than --min-votes 3')
    """

    def __init__(self, message: str = "", **words):
        super().__init__(self._word(message, words))


#: The folder of the spanagree package: frames of files inside it are spanagree's own.
PACKAGE_FOLDER = os.path.dirname(os.path.abspath(__file__)) + os.sep


# Letters of other scripts drawn like Latin ones (Cyrillic, Greek), and the fullwidth Latin forms.
_LOOKALIKES = frozenset("АВЕЅІЈКМНОРСТХУаеорсухіјѕԁԛԝһӏ" "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧοικνρτυχ") | frozenset(
    map(chr, range(0xFF21, 0xFF5B)))


def lookalikes(text: str) -> str:
    """What a message adds after a tag or label holding letters that look Latin but are not: each
    one's code point and name (``""`` when it holds none).

    Examples
    --------
    >>> lookalikes("B-PER"), lookalikes("\u041e")
    ('', ' (U+041E CYRILLIC CAPITAL LETTER O is not a Latin letter)')
    """
    import unicodedata

    found = list(dict.fromkeys(c for c in text if c in _LOOKALIKES))
    if not found:
        return ""
    named = ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, '?')}" for c in found)
    return f" ({named} {'is not a Latin letter' if len(found) == 1 else 'are not Latin letters'})"


@functools.lru_cache(maxsize=None)
def _inside_package(filename: str) -> bool:
    return os.path.abspath(filename).startswith(PACKAGE_FOLDER)


def first_line(error: Exception) -> str:
    """An exception's message cut to its first line (its type's name when it has none), for a
    message that quotes another library's error in one line."""
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def find_stack_level() -> int:
    """The ``stacklevel`` of :func:`warnings.warn` that names the first frame outside spanagree.

    Called where the warning is given, it counts the frames of spanagree's own files (this
    function's, the caller's and theirs), so that the warning names the user's line that called
    into spanagree, however deep the warning arose (as pandas' ``find_stack_level``). Tests and
    users' code are outside the package.

    Returns
    -------
    int
        1 when called from outside the package: the caller's own line.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("here", stacklevel=find_stack_level())
    >>> caught[0].filename.startswith(PACKAGE_FOLDER), find_stack_level()
    (False, 1)
    """
    frame = sys._getframe()
    level = 0
    while frame is not None and _inside_package(frame.f_code.co_filename):
        frame = frame.f_back
        level += 1
    return level
