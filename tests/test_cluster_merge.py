"""merge on a Dask cluster streams as ``merge --jobs`` does: the workers spool each document's
clusters, and write their share of the outputs, into a hidden folder beside the outputs, which the
client joins in document order (spanagree.pipeline.parts).

Whatever --to, the gold, both listings, the report, the summary and the warnings are byte for
byte those of ``--jobs 1``; the client's spool holds packed integers, not clusters; the folder is
gone after the run, and after a refusal, which writes nothing; without a folder the workers share
with the client the clusters come back to it, and the outputs are the same.
"""

from __future__ import annotations

import os

import pytest

distributed = pytest.importorskip("distributed", reason="dask[distributed] is not installed (pip install '.[test]')")

from test_merge_parts import corpus, merged, refused_at_the_end  # noqa: E402,F401  (fixtures and helpers)

from spanagree import vote  # noqa: E402
from spanagree.pipeline import parts, spool  # noqa: E402
from spanagree.pipeline.spool import process_name  # noqa: E402
from spanagree.voting import OutputPlan  # noqa: E402

pytestmark = pytest.mark.slow  # a Dask cluster: the full suite only


def spools_left(folder) -> list[str]:
    return sorted(p.name for p in folder.rglob(".spanagree-spool-*"))


def without_scheduler(run, address: str):
    """A :func:`merged` run with the scheduler's address out of the report's options echo."""
    code, summary, err, written = run
    if "report" in written:
        written["report"] = written["report"].replace(f'"scheduler":"{address}"'.encode(), b'"scheduler":null')
    return code, summary, err, written


@pytest.mark.parametrize("to", ["brat", "conll", "jsonl", "xml"])
def test_merge_on_the_cluster_writes_what_jobs_1_writes(scheduler, to, corpus, tmp_path, capsys, monkeypatch):
    inputs = ([corpus / "conll" / f"ann{k}.conll" for k in (1, 2, 3)] if to == "conll"
              else [corpus / "brat" / f"ann{k}" for k in (1, 2, 3)])
    joined = []  # the parts the client joined: how many documents the workers wrote into each
    for cls, method in ((parts.GoldParts, "write"), (parts.ListingParts, "write_rows")):
        def counted(self, *args, _original=getattr(cls, method), **kwargs):
            joined.append(len(self.parts.entries))
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(cls, method, counted)
    runs = []
    for where, extra in (("local", []), ("cluster", ["--scheduler", scheduler])):
        (tmp_path / where).mkdir()
        report = ["--report", str(tmp_path / where / "run1" / "report.html")]
        runs.append(without_scheduler(merged(capsys, tmp_path / where, inputs, "1", to, [*report, *extra]),
                                      scheduler))
    local, remote = runs
    # --jobs 1 wrote a BRAT gold's parts (one process writes only those as it votes); the
    # workers wrote the gold and both listings
    assert joined == ([30] if to == "brat" else []) + [30, 30, 30]
    assert local[0] == remote[0] == 0
    assert remote == local
    assert sorted(local[3]) == ["adjudicate", "all", "gold", "report"] and b"<html" in local[3]["report"]
    assert local[1]["documents"] == 30
    assert spools_left(tmp_path) == []


@pytest.mark.filterwarnings("ignore:.*notes .BRAT #")
def test_the_clients_spool_is_on_disk_beside_the_outputs(scheduler, corpus, tmp_path):
    """Every document's entry in the client's spool is one packed integer into a file the workers
    wrote (named after their host and process), in a hidden folder beside the gold, removed when
    the result is gone."""
    inputs = [corpus / "brat" / f"ann{k}" for k in (1, 2, 3)]
    with distributed.Client(scheduler) as client:
        result = vote(inputs, scheduler=client, outputs=OutputPlan("jsonl", dest=tmp_path / "gold.jsonl"))
        workers = client.run(process_name)
    store = result.clusters.store
    assert len(store.entries) == 30 and all(type(entry) is int for entry in store.entries.values())
    assert [p.name for p in tmp_path.iterdir()] == spools_left(tmp_path) == [os.path.basename(store.folder.path)]
    assert {os.path.basename(name).rsplit("-", 1)[0] for name in store.files} == set(workers.values())
    result.write(tmp_path / "gold.jsonl", "jsonl")
    local = vote(inputs)
    local.write(tmp_path / "local.jsonl", "jsonl")
    assert (tmp_path / "gold.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    del result, store
    assert spools_left(tmp_path) == []


@pytest.mark.filterwarnings("ignore:.*notes .BRAT #")
def test_without_a_shared_folder_the_clusters_come_back_and_the_outputs_are_the_same(scheduler, corpus, tmp_path):
    """No output planned (nowhere to spool): the workers send each document's clusters back, kept
    in the client's memory, and the gold and the listing are a local run's."""
    inputs = [corpus / "brat" / f"ann{k}" for k in (1, 2, 3)]
    results = [vote(inputs, match="overlap", scheduler=scheduler), vote(inputs, match="overlap")]
    assert all(type(entry) is tuple for entry in results[0].clusters.store.entries.values())
    for name, result in zip(("cluster", "local"), results):
        result.write(tmp_path / name / "gold.xml", "xml", adjudicate=tmp_path / name / "adjudicate.csv")
    for name in ("gold.xml", "adjudicate.csv"):
        assert (tmp_path / "cluster" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
    assert results[0].to_dict() == results[1].to_dict()


def test_a_folder_the_workers_cannot_write_into_is_not_used(scheduler, corpus, tmp_path):
    """Each worker is asked (client.run) to make a file in the folder: none can where it does not
    exist; a folder that is or lies in an input is never used."""
    with distributed.Client(scheduler) as client:
        refused = spool.unwritable_on_workers(client, str(tmp_path / "nowhere"))
        assert sorted(refused) == sorted(client.scheduler_info()["workers"])
        assert set(refused.values()) == {"No such file or directory"}
        assert spool.unwritable_on_workers(client, str(tmp_path)) == {}
        assert spool.shared_spool(client, str(corpus / "brat" / "ann1"), [corpus / "brat"]) is None
        assert spool.shared_spool(client, None) is None
        folder = spool.shared_spool(client, str(tmp_path / "not" / "yet"), [corpus / "brat"])
        assert os.path.dirname(folder.path) == str(tmp_path)  # the nearest folder that exists
        folder.remove()
    assert spools_left(tmp_path) == []


def test_a_document_refused_in_a_later_shard_writes_nothing_on_the_cluster(scheduler, tmp_path, capsys):
    """The last document's text has a double space: CoNLL cannot write it. The worker that votes
    on it marks it; the client meets the error where one process does, and nothing is written,
    the spool folder included."""
    inputs = refused_at_the_end(tmp_path)
    runs = []
    for where, extra in (("local", []), ("cluster", ["--scheduler", scheduler])):
        (tmp_path / where).mkdir()
        runs.append(merged(capsys, tmp_path / where, inputs, "1", "conll", extra))
    local, remote = runs
    assert local[0] == remote[0] == 2
    assert remote[2] == local[2] and "document 'd39': sentence 1 has an empty token" in local[2]
    assert remote[3] == local[3] == {}
    assert [p.name for p in (tmp_path / "cluster" / "run1").iterdir()] == []
