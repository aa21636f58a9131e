"""The README and the pages of docs/ are run, not re-typed: when a figure drifts, a test fails.

- README.md's quick start: its two commands are the CI's (``.ci/run``), and the first one's
  output block is compared, verbatim, with what the command prints now.
- Every ``>>>`` example in README.md and in each docs/*.md page runs as a doctest, in the
  repository's root (the examples use paths such as ``corpora/demo/brat/ann1``), with one
  namespace per page so that a page's later examples can use its earlier names.
- The version string is kept out of every comparison.
"""

from __future__ import annotations

import doctest
import re
import warnings
from pathlib import Path

import pytest

import spanagree
from spanagree.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
CI_SCRIPT = ROOT / ".ci" / "run"

#: ``spanagree 0.1.0``, ``"spanagree": "0.1.0"``: replaced before any comparison.
VERSION = re.compile(re.escape(spanagree.__version__))


def without_version(text: str) -> str:
    return VERSION.sub("<version>", text)


def code_blocks(text: str) -> list[str]:
    return re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S)


def quick_start_commands() -> list[str]:
    section = README.read_text(encoding="utf-8").split("## Quick start", 1)[1]
    return code_blocks(section)[0].strip().splitlines()


def test_quick_start_is_two_commands_and_ci_runs_them_verbatim():
    commands = quick_start_commands()
    assert len(commands) == 2
    assert "corpora/demo" in commands[0] and "pytest" in commands[1]
    ci_lines = [line.strip() for line in CI_SCRIPT.read_text(encoding="utf-8").splitlines()]
    for command in commands:
        assert command in ci_lines


def test_the_spanagree_command_is_cli_main():
    """The quick start runs the ``spanagree`` script; the next test calls what that script calls
    (through :mod:`spanagree.console`, which only answers signals until it hands over)."""
    scripts = (ROOT / "pyproject.toml").read_text(encoding="utf-8").split("[project.scripts]", 1)[1]
    assert scripts.split("[", 1)[0].strip() == 'spanagree = "spanagree.console:main"'


def test_quick_start_output_is_what_the_demo_command_prints(capsys, monkeypatch):
    install_and_run = quick_start_commands()[0]
    argv = install_and_run.split("&& spanagree ", 1)[1].split()
    assert argv[0] == "agree" and len(argv) == 4
    printed = code_blocks(README.read_text(encoding="utf-8").split("The first prints:", 1)[1])[0]
    monkeypatch.chdir(ROOT)  # the command's paths are relative to a clone's root
    assert main(argv) == 0
    assert without_version(capsys.readouterr().out) == without_version(printed)


# --- every >>> example of the README and of docs/*.md -----------------------------------------

def page_doctest(page: Path) -> doctest.DocTest:
    text = without_version(page.read_text(encoding="utf-8"))
    name = page.relative_to(ROOT).as_posix()
    return doctest.DocTestParser().get_doctest(text, {}, name, str(page), 0)


def examples_in(page: Path) -> int:
    return len(page_doctest(page).examples)


def test_the_pages_with_examples():
    """The README and concepts.md carry examples; a page that loses them all fails here, not silently."""
    with_examples = {page.relative_to(ROOT).as_posix() for page in PAGES if examples_in(page)}
    assert {"README.md", "docs/concepts.md"} <= with_examples


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_page_examples_run(page, monkeypatch):
    test = page_doctest(page)
    if not test.examples:
        return
    monkeypatch.chdir(ROOT)
    for example in test.examples:
        example.want = without_version(example.want)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # reader warnings go to stderr, never into an example's output
        result = runner.run(test, out=report.append, clear_globs=True)
    assert result.failed == 0, "".join(report)
    assert result.attempted == len(test.examples)
