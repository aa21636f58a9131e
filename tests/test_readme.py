"""The README's quick start stays true: its commands are the CI's, its printed output is the real one."""

from __future__ import annotations

import re
import warnings

import pytest

import spanagree
from spanagree.cli import main

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

README = (ROOT / "README.md").read_text(encoding="utf-8")
CI_SCRIPT = (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def code_blocks(text: str) -> list[str]:
    return re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S)


def quick_start_commands() -> list[str]:
    section = README.split("## Quick start", 1)[1]
    return code_blocks(section)[0].strip().splitlines()


def test_quick_start_is_two_commands_and_ci_runs_them_verbatim():
    commands = quick_start_commands()
    assert len(commands) == 2
    assert "corpora/demo" in commands[0] and "pytest" in commands[1]
    ci_lines = [line.strip() for line in CI_SCRIPT.splitlines()]
    for command in commands:
        assert command in ci_lines


def test_quick_start_output_is_what_the_demo_command_prints(capsys):
    install_and_run = quick_start_commands()[0]
    argv = install_and_run.split("&& spanagree ", 1)[1].split()
    printed = code_blocks(README.split("The first prints:", 1)[1])[0]
    assert main(argv) == 0
    assert capsys.readouterr().out == printed


def test_python_example_figures():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ann = [spanagree.read(ROOT / "corpora" / "demo" / "brat" / f"ann{k}") for k in (1, 2, 3)]
        result = spanagree.agree(ann, match="overlap", labels="ignore")
        run = spanagree.score(ann[0], ann[1])
    assert round(result.mean.mean, 4) == 0.9510
    assert round(result.pooled.f1, 4) == 0.9511
    assert run.counts == spanagree.Counts(61, 12, 16)
    assert round(run.counts.precision, 4) == 0.8356
    assert run.error_counts()["correct"] == 61 and run.error_counts()["partial"] == 7
    assert spanagree.Counts(a=300, b=20, c=10).kappa(d=70) == pytest.approx(0.7761, abs=5e-5)
