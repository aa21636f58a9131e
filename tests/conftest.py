"""Shared fixtures: where the real corpora are, and the bundled demo corpus.

Tests on ``../shared/corpora`` skip with a reason when it is absent, except under ``CI=true``,
where it is always present and its absence is a failure.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Property tests check results, never speed (speed lives in benchmarks/): no per-example deadline
# and no too-slow health check, so a loaded CI machine cannot turn a correct run red.
settings.register_profile("spanagree", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("spanagree")

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "corpora" / "demo"
SHARED_CORPORA = Path(os.environ.get("SPANAGREE_SHARED", ROOT.parent / "shared")) / "corpora"


@pytest.fixture(scope="session")
def shared_corpora() -> Path:
    """The folder ``../shared/corpora``; skip without it (fail under CI=true)."""
    if SHARED_CORPORA.is_dir():
        return SHARED_CORPORA
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but the shared corpora are missing: {SHARED_CORPORA}")
    pytest.skip(f"the shared corpora are not here: {SHARED_CORPORA}")


@pytest.fixture(scope="session")
def demo() -> Path:
    return DEMO


def generated(top: Path, **options) -> Path:
    """``benchmarks/generate.py``'s corpus written under ``top`` (its keyword arguments: ``docs``,
    ``annotators``, ``formats``, ...; quietly): the benchmark's generator, as the benchmark runs it."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("generate", ROOT / "benchmarks" / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    generate.generate(top, quiet=True, **options)
    return top


def run(capsys, *argv) -> tuple[int, str, str]:
    """``spanagree`` run in this process on ``argv`` (paths made strings): its exit code, standard
    output and standard error."""
    from spanagree.cli import main

    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def without_executor(out: str) -> dict:
    """A JSON document without the options that only say how the run was executed (``jobs``,
    ``scheduler``)."""
    data = json.loads(out)
    for key in ("jobs", "scheduler"):
        data.get("options", {}).pop(key, None)
    return data


def same_under(capsys, argv, executor=("--jobs", "2"), *, calls: list | None = None,
               sharded: bool = True) -> tuple[int, str, str]:
    """``argv`` run in one process (``--jobs 1``) and under ``executor`` (``--jobs 2``, or
    ``--scheduler ADDRESS``): the same exit code, standard error and standard output (a JSON
    document apart from how it was executed: :func:`without_executor`). With ``calls`` (the
    :func:`small_shards` fixture's), the first run forked nothing and the second forked when
    ``sharded``. Returns the first run."""
    before = len(calls) if calls is not None else 0
    one = run(capsys, *argv, "--jobs", "1")
    if calls is not None:
        assert len(calls) == before
    two = run(capsys, *argv, *executor)
    if calls is not None:
        assert (len(calls) > before) == sharded
    assert one[0] == two[0] and one[2] == two[2], (one[0], two[0], one[2], two[2])
    if one[0] == 0 and "json" in map(str, argv):
        assert without_executor(one[1]) == without_executor(two[1])
    else:
        assert one[1] == two[1]
    return one


@pytest.fixture
def small_shards(monkeypatch):
    """``--jobs N`` of the command line (which has no option for the thresholds) as a
    :class:`~spanagree.pipeline.parallel.Processes` that shards even a test's small corpora (one
    document and one span per process pay, unless a test says otherwise); the shards of each map it forked, in order (its
    :attr:`~spanagree.pipeline.parallel.Processes.mapped`), to tell that a run was sharded."""
    from spanagree.pipeline import parallel

    mapped: list[int] = []
    processes = parallel.Processes

    class SmallShards(processes):
        def __new__(cls, jobs, **thresholds):
            return processes(jobs, **{"min_documents_per_job": 1, "min_spans_per_job": 1, **thresholds}, mapped=mapped)

    monkeypatch.setattr(parallel, "Processes", SmallShards)
    return mapped


@pytest.fixture(scope="module")
def scheduler():
    """The address of a ``distributed.LocalCluster`` of two one-thread worker processes, one per
    test module (skipped with a reason when ``dask[distributed]`` is not installed)."""
    distributed = pytest.importorskip("distributed",
                                      reason="dask[distributed] is not installed (pip install '.[test]')")
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None,
                                  silence_logs=50) as local:
        yield local.scheduler_address
