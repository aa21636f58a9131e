"""Shared fixtures: where the real corpora are, and the bundled demo corpus.

Tests on ``../shared/corpora`` skip with a reason when it is absent, except under ``CI=true``,
where it is always present and its absence is a failure.
"""

from __future__ import annotations

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


def run(capsys, *argv) -> tuple[int, str, str]:
    """``spanagree`` run in this process on ``argv`` (paths made strings): its exit code, standard
    output and standard error."""
    from spanagree.cli import main

    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


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
