"""The Dask strategy (``--scheduler``): a real ``distributed.LocalCluster`` of two worker processes
gives the JSON of a local run (apart from the options' echo)."""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed", reason="dask[distributed] is not installed (pip install '.[test]')")

from spanagree import SpanagreeError, agree, score  # noqa: E402
from spanagree.errors import UsageError  # noqa: E402
from spanagree.cli import main  # noqa: E402
from spanagree.pipeline import cluster  # noqa: E402
from spanagree.report.schemas import schema  # noqa: E402

pytestmark = pytest.mark.slow  # a Dask cluster: the full suite only

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "corpora" / "demo"


def run(capsys, *argv) -> dict:
    assert main([str(a) for a in argv]) == 0
    return json.loads(capsys.readouterr().out)


def without_options(document: dict) -> dict:
    document = dict(document)
    document.pop("options", None)
    return document


INPUTS = {
    "brat": [DEMO / "brat" / name for name in ("ann1", "ann2", "ann3")],
    "conll": [DEMO / "conll" / f"{name}.conll" for name in ("ann1", "ann2", "ann3")],
    "jsonl": [DEMO / "jsonl" / f"{name}.jsonl" for name in ("ann1", "ann2", "ann3")],
    "webanno": [DEMO / "webanno" / name for name in ("ann1", "ann2", "ann3")],
    "xmi": [DEMO / "xmi" / name for name in ("ann1", "ann2", "ann3")],
}


@pytest.mark.parametrize("fmt", sorted(INPUTS))
def test_agree_score_and_merge_on_the_cluster_equal_a_local_run(scheduler, capsys, tmp_path, fmt):
    import jsonschema

    paths = INPUTS[fmt]
    for command, extra in (("agree", ["--by", "label,document"]), ("score", ["--by", "document"])):
        local = run(capsys, command, *paths, *extra, "--output", "json")
        remote = run(capsys, command, *paths, *extra, "--scheduler", scheduler, "--output", "json")
        jsonschema.Draft202012Validator(schema(command)).validate(remote)
        assert remote["options"]["scheduler"] == scheduler
        assert without_options(remote) == without_options(local)
    local = run(capsys, "merge", *paths, "--to", "jsonl", "--out", tmp_path / "local.jsonl", "--output", "json")
    remote = run(capsys, "merge", *paths, "--to", "jsonl", "--out", tmp_path / "remote.jsonl", "--scheduler",
                 scheduler, "--output", "json")
    assert without_options(remote) == without_options(local)
    assert (tmp_path / "remote.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()


def test_the_python_entry_point_takes_a_client(scheduler):
    with distributed.Client(scheduler) as client:
        result = agree(INPUTS["brat"], scheduler=client, errors=True)
        assert not client.status == "closed"  # a client given is left open
    local = agree(INPUTS["brat"], errors=True)
    assert [p.counts for p in result.pairs] == [p.counts for p in local.pairs]
    assert len(result.errors()) == len(local.errors())
    many = score(INPUTS["brat"][0], INPUTS["brat"][1:], scheduler=scheduler)
    assert [r.counts for r in many] == [r.counts for r in score(INPUTS["brat"][0], INPUTS["brat"][1:])]


def test_a_path_no_worker_can_see_fails_in_one_line(scheduler):
    with distributed.Client(scheduler) as client:
        with pytest.raises(SpanagreeError, match=r"Dask worker tcp://\S+ cannot see /nowhere/ann1: the workers read "
                                                 "the inputs by path and need a filesystem shared with the client"):
            cluster.check_paths(client, [str(DEMO / "brat" / "ann1"), "/nowhere/ann1"])
        assert cluster.missing_on_workers(client, [str(DEMO / "brat" / "ann1")]) == {}


def test_relative_paths_are_made_absolute_for_the_workers(scheduler, capsys, monkeypatch):
    monkeypatch.chdir(DEMO / "brat")
    remote = run(capsys, "agree", "ann1", "ann2", "--scheduler", scheduler, "--output", "json")
    monkeypatch.chdir(ROOT)
    local = run(capsys, "agree", DEMO / "brat" / "ann1", DEMO / "brat" / "ann2", "--output", "json")
    assert without_options(remote) == without_options(local)


def test_a_relative_type_system_is_made_absolute_for_the_workers(scheduler, capsys, monkeypatch, tmp_path):
    """XMI folders are read on the workers, whose working folder is not the client's: the type
    system given by a relative path is found all the same."""
    import shutil

    for name in ("ann1", "ann2"):
        shutil.copytree(DEMO / "xmi" / name, tmp_path / name, ignore=shutil.ignore_patterns("TypeSystem.xml"))
    shutil.copy(DEMO / "xmi" / "ann1" / "TypeSystem.xml", tmp_path / "types.xml")
    monkeypatch.chdir(tmp_path)
    remote = run(capsys, "agree", "ann1", "ann2", "--xmi-typesystem", "types.xml", "--scheduler", scheduler,
                 "--output", "json")
    local = run(capsys, "agree", "ann1", "ann2", "--xmi-typesystem", "types.xml", "--output", "json")
    assert without_options(remote) == without_options(local) and local["documents"] == 10


def test_an_unreachable_scheduler_fails_without_hanging(capsys):
    code = main(["agree", *map(str, INPUTS["brat"][:2]), "--scheduler", "tcp://127.0.0.1:9", "--scheduler-timeout", "2"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("spanagree: error: cannot reach the Dask scheduler at tcp://127.0.0.1:9 (within 2 s)")
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("address", ["garbage", "tcp://", "", "tls://node01:8786", "tcp://node01", "node01:0",
                                     "node01:99999", "udp://node01:8786", "tcp://:8786", "tcp://node 01:8786"])
def test_a_malformed_address_is_one_line_before_connecting(capsys, address):
    started = time.monotonic()
    code = main(["agree", *map(str, INPUTS["brat"][:2]), "--scheduler", address])
    err = capsys.readouterr().err
    assert (code, err.count("\n")) == (2, 1), err
    assert err.startswith("spanagree: error: --scheduler ") and repr(address) in err
    assert time.monotonic() - started < 5  # no connection tried, no client left to time out


def test_the_scheduler_timeout_is_checked_and_named_as_the_api_names_it(capsys):
    assert main(["agree", *map(str, INPUTS["brat"][:2]), "--scheduler-timeout", "0"]) == 2
    assert capsys.readouterr().err == "spanagree: error: --scheduler-timeout is a number of seconds above 0; got 0.0\n"
    with pytest.raises(UsageError, match=r"^scheduler_timeout is a number of seconds above 0; got -1$"):
        agree(INPUTS["brat"][:2], scheduler="tcp://127.0.0.1:9", scheduler_timeout=-1)
    with pytest.raises(UsageError, match=r"^scheduler takes a scheduler's address, tcp://HOST:PORT; got 'garbage'$"):
        score(INPUTS["brat"][0], INPUTS["brat"][1], scheduler="garbage")


def silent_or_noisy_server(noisy: bool):
    """A plain TCP server that is not a Dask scheduler: it accepts and says nothing, or answers
    every connection with an HTTP page. Returns its port."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    accepted = []

    def serve():
        while True:
            connection, _ = server.accept()
            accepted.append(connection)  # kept open: the silent server never answers
            if noisy:
                connection.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<html>hello</html>")

    threading.Thread(target=serve, daemon=True).start()
    return server.getsockname()[1]


@pytest.mark.parametrize("noisy", [False, True])
def test_a_service_that_is_not_a_dask_scheduler_fails_within_the_timeout(capsys, noisy):
    port = silent_or_noisy_server(noisy)
    started = time.monotonic()
    code = main(["agree", *map(str, INPUTS["brat"][:2]), "--scheduler", f"tcp://127.0.0.1:{port}",
                 "--scheduler-timeout", "2"])
    took = time.monotonic() - started
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1, err
    assert err.startswith(f"spanagree: error: cannot reach the Dask scheduler at tcp://127.0.0.1:{port} (within 2 s): ")
    assert took < 2 + 3  # the handshake under the timeout too (it hung for ever)


def test_a_workers_address_is_not_a_schedulers(scheduler, capsys):
    with distributed.Client(scheduler, set_as_default=False) as client:
        worker = sorted(client.scheduler_info()["workers"])[0]
    assert main(["agree", *map(str, INPUTS["brat"][:2]), "--scheduler", worker]) == 1
    assert capsys.readouterr().err == (f"spanagree: error: {worker} is a Dask Worker, not a scheduler: give the "
                                       "scheduler's address\n")


def test_the_scheduler_timeout_is_echoed(scheduler, capsys):
    document = run(capsys, "agree", *INPUTS["brat"][:2], "--scheduler", scheduler, "--scheduler-timeout", "7",
                   "--output", "json")
    assert document["options"]["scheduler"] == scheduler and document["options"]["scheduler_timeout"] == 7.0
    assert run(capsys, "agree", *INPUTS["brat"][:2], "--output", "json")["options"]["scheduler_timeout"] == 10.0


@pytest.mark.parametrize("fmt", ["conll", "jsonl"])
def test_the_workers_read_their_byte_ranges_of_conll_and_jsonl_files(scheduler, capsys, monkeypatch, fmt):
    """CoNLL and JSON-lines files are read on the workers, by path, in byte ranges: the client
    never reads them (its reader is made to fail) and the result is a local run's."""
    import spanagree.pipeline as pipeline

    local = run(capsys, "agree", *INPUTS[fmt], "--by", "document", "--output", "json")

    def refused(*args, **kwargs):
        raise AssertionError("the client read the inputs")

    monkeypatch.setattr(pipeline, "read_inputs", refused)
    remote = run(capsys, "agree", *INPUTS[fmt], "--by", "document", "--scheduler", scheduler, "--output", "json")
    assert without_options(remote) == without_options(local)


def test_jsonl_files_in_different_orders_are_read_by_the_client(scheduler, capsys, tmp_path):
    lines = INPUTS["jsonl"][1].read_text(encoding="utf-8").splitlines(keepends=True)
    reversed_copy = tmp_path / "ann2.jsonl"
    reversed_copy.write_text("".join(reversed(lines)), encoding="utf-8")
    local = run(capsys, "score", INPUTS["jsonl"][0], reversed_copy, "--by", "document", "--output", "json")
    remote = run(capsys, "score", INPUTS["jsonl"][0], reversed_copy, "--by", "document", "--scheduler", scheduler,
                 "--output", "json")
    assert without_options(remote) == without_options(local)


@pytest.mark.parametrize("fmt", ["brat", "conll"])
def test_agree_chance_on_the_cluster_equals_a_local_run(scheduler, capsys, fmt):
    """--chance: the workers tokenise their shards' documents (each worker makes its own spaCy
    tokenizer) and the token tallies come back with the counts; the block, and the warnings, are a
    local run's."""
    paths = INPUTS[fmt]
    outputs = []
    for extra in ([], ["--scheduler", scheduler]):
        assert main(["agree", *map(str, paths), "--chance", *extra, "--output", "json"]) == 0
        out, err = capsys.readouterr()
        outputs.append((without_options(json.loads(out)), err))
    assert outputs[1] == outputs[0]
    assert outputs[0][0]["chance"]["tokens"] == (581 if fmt == "brat" else 565)


@pytest.mark.parametrize("fmt", ["brat", "conll"])
def test_score_chance_on_the_cluster_equals_a_local_run(scheduler, capsys, monkeypatch, fmt):
    """score --chance with two predictions: the workers tokenise their shards' documents for each
    prediction and the token tallies come back with the counts; the client never reads the inputs
    (its reader is made to fail); the blocks and the warnings are a local run's."""
    import spanagree.pipeline as pipeline

    paths = INPUTS[fmt]
    assert main(["score", *map(str, paths), "--chance", "--output", "json"]) == 0
    local = capsys.readouterr()

    def refused(*args, **kwargs):
        raise AssertionError("the client read the inputs")

    monkeypatch.setattr(pipeline, "read_inputs", refused)
    assert main(["score", *map(str, paths), "--chance", "--scheduler", scheduler, "--output", "json"]) == 0
    remote = capsys.readouterr()
    assert remote.err == local.err
    assert without_options(json.loads(remote.out)) == without_options(json.loads(local.out))
    assert [p["chance"]["tokens"] for p in json.loads(remote.out)["predictions"]] == \
        ([581, 581] if fmt == "brat" else [565, 565])


def test_the_workers_read_their_share_of_xml_folders(scheduler, capsys, tmp_path, monkeypatch):
    """A folder of one-document XML files per annotator (the demo's, one file per document, and a
    document the second lacks): the workers read their shards' files by path, the client none (its
    reader is made to fail), and agree, score and merge give a local run's JSON and gold."""
    import spanagree.pipeline as pipeline
    from spanagree.formats import read
    from spanagree.formats.xml import write_xml
    from spanagree.span import SpanSet

    paths = []
    for name in ("ann1", "ann2", "ann3"):
        spanset = read(DEMO / "xml" / f"{name}.xml")
        (tmp_path / name).mkdir()
        for doc_id, document in spanset.documents.items():
            if not (name == "ann2" and doc_id == "news-03"):
                write_xml(SpanSet(name, {doc_id: document}, [], "xml"), tmp_path / name / f"{doc_id}.xml")
        paths.append(tmp_path / name)
    local = [run(capsys, "agree", *paths, "--by", "document", "--output", "json"),
             run(capsys, "score", *paths[:2], "--by", "document", "--output", "json"),
             run(capsys, "merge", *paths, "--to", "jsonl", "--out", tmp_path / "local.jsonl", "--output", "json")]

    def refused(*args, **kwargs):
        raise AssertionError("the client read the inputs")

    monkeypatch.setattr(pipeline, "read_inputs", refused)
    remote = [run(capsys, "agree", *paths, "--by", "document", "--scheduler", scheduler, "--output", "json"),
              run(capsys, "score", *paths[:2], "--by", "document", "--scheduler", scheduler, "--output", "json"),
              run(capsys, "merge", *paths, "--to", "jsonl", "--out", tmp_path / "remote.jsonl", "--scheduler",
                  scheduler, "--output", "json")]
    assert [without_options(r) for r in remote] == [without_options(r) for r in local]
    assert (tmp_path / "remote.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    assert local[0]["documents"] == 9 and local[1]["documents"] == 10
