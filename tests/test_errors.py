"""The error and warning hierarchy: warnings name the caller's line (find_stack_level), messages
name parameters in the API's words and the command line spells them as flags."""

from __future__ import annotations

import os
import pickle
import sys
import warnings

import pytest

from spanagree.errors import (PACKAGE_FOLDER, FormatError, Parameter, SpanagreeError, SpanagreeWarning,
                              UsageError, find_stack_level, parameter)


def package_function(name: str, body: str, namespace: dict):
    """A function ``name`` whose code lives, as far as frames tell, in a file of the spanagree
    package (one that does not exist), defined in ``namespace``."""
    exec(compile(body, os.path.join(PACKAGE_FOLDER, f"{name}_made_up.py"), "exec"), namespace)
    return namespace[name]


def test_find_stack_level_outside_the_package_is_the_callers_own_line():
    assert find_stack_level() == 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("here", SpanagreeWarning, stacklevel=find_stack_level()); line = sys._getframe().f_lineno
    assert [(w.filename, w.lineno) for w in caught] == [(__file__, line)]


def test_find_stack_level_skips_every_frame_of_the_package():
    # user (this test) -> outer (package) -> inner (package) -> warns: the warning names this line;
    # inner's own count is 3: find_stack_level's frame, inner's and outer's
    namespace = {"find_stack_level": find_stack_level, "warnings": warnings, "SpanagreeWarning": SpanagreeWarning}
    package_function("inner", "def inner(levels):\n"
                              "    levels.append(find_stack_level())\n"
                              "    warnings.warn('deep', SpanagreeWarning, stacklevel=levels[-1])\n", namespace)
    outer = package_function("outer", "def outer(levels):\n    inner(levels)\n", namespace)
    levels = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outer(levels); line = sys._getframe().f_lineno
    assert levels == [3]
    assert [(w.filename, w.lineno, str(w.message)) for w in caught] == [(__file__, line, "deep")]


def test_find_stack_level_stops_at_a_users_function_called_back_from_the_package():
    # package -> user's callback -> warns: the callback's own line, the first frame outside
    namespace = {}
    call = package_function("call", "def call(function):\n    return function()\n", namespace)
    assert call(lambda: find_stack_level()) == 1
    assert call(find_stack_level) == 2  # called by the package itself: its frame counts too
