"""score and agree --errors on a Dask cluster, and agree --errors everywhere: each document's listed
items are spooled as it is compared (locally into a temporary folder; on a cluster, by the
workers, into a hidden folder beside the --errors file that they share with the client), and the
listing is written from the spool document by document. Where the workers cannot write beside
the file, the items travel back with the tallies, with one warning. Either way the file is the
local run's, byte for byte.
"""

from __future__ import annotations

import gc
import os

import pytest

distributed = pytest.importorskip("distributed", reason="dask[distributed] is not installed (pip install '.[test]')")

from test_merge_parts import corpus  # noqa: E402,F401  (30 generated documents, three annotators)

from spanagree import agree, score  # noqa: E402
from spanagree.pipeline import spool  # noqa: E402
from spanagree.pipeline.spool import process_name  # noqa: E402

pytestmark = pytest.mark.slow  # a Dask cluster: the full suite only


def spools_left(folder) -> list[str]:
    return sorted(p.name for p in folder.rglob(".spanagree-spool-*"))


def inputs_of(corpus, command: str) -> list:
    return [corpus / "brat" / f"ann{k}" for k in ((1, 2, 3) if command == "agree" else (1, 2))]


def listed(command: str, result) -> list[dict]:
    """The listing's rows as ``--errors`` writes them."""
    if command == "agree":
        return [{"first": first, "second": second, **item.as_pair_dict()} for first, second, item in result.errors()]
    return [item.as_dict() for item in result.errors()]


def item_spools(command: str, result) -> list:
    """The spools the listing reads from (one per pair for agree)."""
    if command == "agree":
        return [spool for spool, _ in result.listing.args[0]]
    return [spool for spool, _ in result.listing.args[0]]


def compared(command: str, inputs, **options):
    if command == "agree":
        return agree(inputs, **options)
    return score(inputs[0], inputs[1], **options)


@pytest.mark.parametrize("suffix", ["csv", "json"])
@pytest.mark.parametrize("command", ["agree", "score"])
def test_the_errors_file_on_the_cluster_is_the_local_one(scheduler, corpus, tmp_path, capsys, small_shards, command,
                                                         suffix):
    from spanagree.cli import main

    listing = tmp_path / f"errors.{suffix}"  # the same path for every run
    files = {}
    runs = {"local": [], "jobs 2": ["--jobs", "2"], "cluster": ["--scheduler", scheduler]}
    for where, extra in runs.items():
        assert main([command, *map(str, inputs_of(corpus, command)), "--errors", str(listing), "--output", "json",
                     *extra]) == 0
        assert capsys.readouterr().err == ""
        files[where] = listing.read_bytes()
        listing.unlink()
        assert spools_left(tmp_path) == []
    assert files["local"].count(b"\n") > 100  # hundreds of items: many documents, every shard has some
    assert small_shards and files["jobs 2"] == files["local"]  # (sharded: small_shards counts the forked runs)
    assert files["cluster"] == files["local"]


@pytest.mark.parametrize("command", ["agree", "score"])
def test_the_workers_spool_the_items_beside_the_errors_file(scheduler, corpus, tmp_path, command):
    """Every document's entry is one packed integer into a file a worker wrote (named after its
    host and process), in a hidden folder beside the listing, removed with the result."""
    inputs = inputs_of(corpus, command)
    local = compared(command, inputs, errors=True)
    with distributed.Client(scheduler) as client:
        result = compared(command, inputs, errors=str(tmp_path / "errors.csv"), scheduler=client)
        workers = set(client.run(process_name).values())
    spools = item_spools(command, result)
    assert len(spools) == (3 if command == "agree" else 1)
    entries = [entry for spool in spools for entry in spool.entries.values()]
    assert len(entries) >= 30 and all(type(entry) is int for entry in entries)
    files = {file for spool in spools for file in spool.files}
    (folder,) = {os.path.dirname(file) for file in files}
    assert os.path.dirname(folder) == str(tmp_path) and spools_left(tmp_path) == [os.path.basename(folder)]
    assert {os.path.basename(file).rsplit("-", 1)[0] for file in files} <= workers  # the workers' own
    assert listed(command, result) == listed(command, local)
    del result, spools
    gc.collect()
    assert spools_left(tmp_path) == []


@pytest.mark.parametrize("command", ["agree", "score"])
def test_without_a_path_the_items_come_back_in_memory(scheduler, corpus, command):
    """``errors=True`` names no place beside which to spool: the items travel back with the tallies."""
    inputs = inputs_of(corpus, command)
    local = compared(command, inputs, errors=True)
    with distributed.Client(scheduler) as client:
        result = compared(command, inputs, errors=True, scheduler=client)
    spools = item_spools(command, result)
    assert all(spool.files == [] for spool in spools)
    assert all(type(entry) is tuple for spool in spools for entry in spool.entries.values())
    assert listed(command, result) == listed(command, local)


@pytest.mark.parametrize("command", ["agree", "score"])
def test_a_folder_the_workers_cannot_write_gives_the_same_file_and_one_warning(scheduler, corpus, tmp_path, capsys,
                                                                               monkeypatch, command):
    """The workers are asked to write into a folder that does not exist (as they would into one
    they may not write): each really fails, the items come back to the client, one line says so."""
    from spanagree.cli import main

    probe = spool.unwritable_on_workers
    inputs = [str(path) for path in inputs_of(corpus, command)]
    main([command, *inputs, "--errors", str(tmp_path / "local.csv"), "--output", "json"])
    capsys.readouterr()
    monkeypatch.setattr(spool, "unwritable_on_workers", lambda client, folder: probe(client, folder + "-gone"))
    assert main([command, *inputs, "--errors", str(tmp_path / "cluster.csv"), "--output", "json",
                 "--scheduler", scheduler]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("spanagree: warning: Dask worker tcp://")
    assert (f"cannot write into {tmp_path} (No such file or directory): the error listing's items are kept in "
            "this process's memory (docs/cluster.md)") in err
    assert (tmp_path / "cluster.csv").read_bytes() == (tmp_path / "local.csv").read_bytes()
    assert spools_left(tmp_path) == []
