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


def test_an_error_keeps_its_parameters_through_pickling():
    """Errors travel back from worker processes: each still names its parameters both ways."""
    errors = [UsageError("{option} must be at least 1", option="jobs"),
              UsageError("{option} takes OLD=NEW, got 'PER'", option="label_map", flag="--map"),
              UsageError("use {common}", common=parameter("documents", "common")),
              SpanagreeError("a worker of {jobs} ended", jobs=parameter("jobs", 4)),
              FormatError("a.xmi", "choose one with {option}", 3, option="xmi_view"),
              FormatError("ann1/d.ann", "expected a span", 12)]
    for error in errors:
        again = pickle.loads(pickle.dumps(error))
        assert type(again) is type(error)
        assert (str(again), again.command_line_message()) == (str(error), error.command_line_message())
    assert [e.command_line_message() for e in errors] == [
        "--jobs must be at least 1", "--map takes OLD=NEW, got 'PER'", "use --documents common",
        "a worker of --jobs 4 ended", "a.xmi:3: choose one with --xmi-view", "ann1/d.ann:12: expected a span"]
    assert [str(e) for e in errors] == [
        "jobs must be at least 1", "label_map takes OLD=NEW, got 'PER'", 'use documents="common"',
        "a worker of jobs=4 ended", "a.xmi:3: choose one with xmi_view", "ann1/d.ann:12: expected a span"]
    error = errors[-2]
    assert (error.path, error.line, error.message) == ("a.xmi", 3, "choose one with xmi_view")
    warning = pickle.loads(pickle.dumps(SpanagreeWarning("fewer than {k}", k=parameter("min_votes", 3))))
    assert (str(warning), warning.command_line_message()) == ("fewer than min_votes=3", "fewer than --min-votes 3")


def test_parameters_as_the_api_and_the_command_line_name_them():
    assert parameter("align_text", True) == Parameter("align_text=True", "--align-text")
    assert parameter("unit", "sentence") == Parameter('unit="sentence"', "--unit sentence")
    assert parameter("label_map", flag="--map") == Parameter("label_map", "--map")
    # a message without parameters is the same both ways, braces and all
    assert SpanagreeWarning("a {b} c").command_line_message() == str(SpanagreeWarning("a {b} c")) == "a {b} c"


def test_the_api_says_parameters_and_the_command_line_says_flags(tmp_path, capsys):
    from spanagree import Span, SpanSet, agree, vote
    from spanagree.cli import main

    a = SpanSet.from_spans("a", [Span("d", ((0, 3),), "X")], {"d": "abcdef"})
    with pytest.raises(UsageError) as raised:
        agree([a, a], documents="pairwise", unitizing=True)
    assert str(raised.value).endswith('use documents="common"')
    with pytest.raises(UsageError, match=r"^jobs must be a whole number of processes, at least 1; got 0$"):
        agree([a, a], jobs=0)
    b = SpanSet.from_spans("b", [], {"d": "abcdef", "e": "xyz"})
    with pytest.warns(SpanagreeWarning) as caught:
        vote([a, b, b], 3, documents="present")
    assert [str(w.message) for w in caught if "fewer annotators" in str(w.message)] == [
        "1 document(s) have fewer annotators than min_votes=3: nothing can be kept there: e"]
    # the same inputs as files, on the command line
    (tmp_path / "a.jsonl").write_text('{"id": "d", "text": "abcdef", "spans": [{"start": 0, "end": 3, "label": "X"}]}\n')
    (tmp_path / "b.jsonl").write_text('{"id": "d", "text": "abcdef", "spans": []}\n'
                                      '{"id": "e", "text": "xyz", "spans": []}\n')
    paths = [str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")]
    code = main(["merge", *paths, paths[1], "--min-votes", "3", "--documents", "present", "--to", "jsonl",
                 "--out", str(tmp_path / "gold.jsonl")])
    err = capsys.readouterr().err
    assert code == 0 and ("spanagree: warning: 1 document(s) have fewer annotators than --min-votes 3: nothing can "
                          "be kept there: e\n") in err
    code = main(["agree", *paths, "--documents", "pairwise", "--unitizing"])
    assert code == 2 and capsys.readouterr().err.endswith("; use --documents common\n")


def _outside_parameters(nodes):
    """Every node under ``nodes`` but those inside a ``Parameter(...)`` or ``parameter(...)``
    (which spell the flag on purpose)."""
    import ast

    for node in nodes:
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("Parameter", "parameter"):
            continue
        yield node
        yield from _outside_parameters(ast.iter_child_nodes(node))


def test_library_messages_name_no_flag():
    """No error or warning the library raises spells a command-line flag in its text: flags are
    the command line's (Parameter, and ``flag=``)."""
    import ast
    import re
    from pathlib import Path

    raising = {"UsageError", "FormatError", "SpanagreeError", "SpanagreeWarning", "warn", "warn_few_units"}
    found = []
    for path in sorted(Path(PACKAGE_FOLDER).rglob("*.py")):
        if path.name == "cli.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            name = getattr(node.func, "id", getattr(node.func, "attr", None)) if isinstance(node, ast.Call) else None
            if name not in raising:
                continue
            for part in _outside_parameters(node.args):
                if isinstance(part, ast.Constant) and isinstance(part.value, str) and re.search(r"--[a-z]", part.value):
                    found.append(f"{path.name}:{part.lineno}: {part.value}")
    assert found == []
