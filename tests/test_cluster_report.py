"""agree and score --report on a Dask cluster: the workers spool the report's document records
into a hidden folder beside the report, which they share with the client (the client's temporary
folder is not on the workers' machines); without such a folder the records come back with the
tallies, in memory. Either way the report is the local run's, apart from the options echo.
"""

from __future__ import annotations

import gc
import os

import pytest

distributed = pytest.importorskip("distributed", reason="dask[distributed] is not installed (pip install '.[test]')")

from test_merge_parts import corpus  # noqa: E402,F401  (30 generated documents, three annotators)

from spanagree import agree, score  # noqa: E402
from spanagree.cli import main  # noqa: E402
from spanagree.pipeline.spool import MemoryFolder  # noqa: E402

pytestmark = pytest.mark.slow  # a Dask cluster: the full suite only


def spools_left(folder) -> list[str]:
    return sorted(p.name for p in folder.rglob(".spanagree-spool-*"))


def compared(command: str, inputs, **options):
    if command == "agree":
        return agree(inputs, **options)
    return score(inputs[0], inputs[1], **options)


@pytest.mark.parametrize("command", ["agree", "score"])
def test_the_command_line_report_on_the_cluster_is_the_local_report(scheduler, corpus, tmp_path, capsys, command):
    inputs = [corpus / "brat" / f"ann{k}" for k in (1, 2, 3)][:3 if command == "agree" else 2]
    pages = {}
    page = tmp_path / "report.html"  # the same path for both runs: the report names where it lies
    for where, extra in (("local", []), ("cluster", ["--scheduler", scheduler])):
        assert main([command, *map(str, inputs), "--output", "json", "--report", str(page), *extra]) == 0
        capsys.readouterr()
        pages[where] = page.read_bytes()
        page.unlink()
        assert spools_left(tmp_path) == []
    remote = pages["cluster"].replace(f'"scheduler":"{scheduler}"'.encode(), b'"scheduler":null')
    assert pages["local"].startswith(b"<!DOCTYPE html>") and len(pages["local"]) > 10_000
    assert remote == pages["local"]


@pytest.mark.parametrize("command", ["agree", "score"])
def test_the_workers_spool_beside_the_report(scheduler, corpus, tmp_path, command):
    """The records lie in files the workers wrote (named after their host and process), in a
    hidden folder beside the report, removed with the result."""
    inputs = [corpus / "brat" / "ann1", corpus / "brat" / "ann2"]
    local = compared(command, inputs, report=True)
    with distributed.Client(scheduler) as client:
        result = compared(command, inputs, report=str(tmp_path / "report.html"), scheduler=client)
    spool = result.spool
    assert len(spool.entries) == 30 and all(type(entry) is int for entry in spool.entries.values())
    (folder,) = {os.path.dirname(file) for file in spool.files}
    assert os.path.dirname(folder) == str(tmp_path) and spools_left(tmp_path) == [os.path.basename(folder)]
    assert all(f"-{os.getpid()}-" not in os.path.basename(file) for file in spool.files)  # the workers' own
    assert [spool.record(d) for d in spool.entries] == [local.spool.record(d) for d in local.spool.entries]
    del result, spool
    gc.collect()
    assert spools_left(tmp_path) == []


@pytest.mark.parametrize("command", ["agree", "score"])
def test_without_a_folder_beside_the_report_the_records_come_back_in_memory(scheduler, corpus, tmp_path, command):
    """``report=True`` names no place: the records travel back with the tallies."""
    inputs = [corpus / "brat" / "ann1", corpus / "brat" / "ann2"]
    local = compared(command, inputs, report=True)
    with distributed.Client(scheduler) as client:
        result = compared(command, inputs, report=True, scheduler=client)
    spool = result.spool
    assert isinstance(spool.folder, MemoryFolder) and spool.files == []
    assert len(spool.entries) == 30 and all(type(entry) is tuple for entry in spool.entries.values())
    assert [spool.record(d) for d in spool.entries] == [local.spool.record(d) for d in local.spool.entries]
    for name, run in (("local", local), ("cluster", result)):
        run.write_report(tmp_path / f"{name}.html")
    assert (tmp_path / "cluster.html").read_bytes() == (tmp_path / "local.html").read_bytes()
