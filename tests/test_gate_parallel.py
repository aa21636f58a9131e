"""GATE folders under ``--jobs`` and on Dask: each annotation set's stream carries its folder's
listing (:class:`spanagree.formats.gate.GateFolder`), so the workers read their own shard of the
files, and the run is that of one process: the same JSON (apart from the options' echo), the
same notes summed over the shards, the same one-line error whichever shard holds the bad file.
The scan that finds the sets is shared out too: over the processes, or on a cluster over the
workers (a few tasks, seen in the scheduler's task stream). In one process the sets' streams
share each file's parse.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections import Counter
import shutil
import sys

import pytest

from spanagree import agree
from spanagree.formats import open_annotators
from spanagree.formats import gate as gate_module
from spanagree.pipeline import expand_inputs
from spanagree.pipeline.shards import folder_listings

from conftest import DEMO, run, same_under

sys.path.insert(0, str(DEMO))
from build_demo import gate_xml  # noqa: E402  (the demo's GATE builder)
from test_gate import bratiaa_in_gate  # noqa: E402

pytestmark = pytest.mark.usefixtures("small_shards")

#: The demo's GATE folder: ten documents, sets default (empty), ann1, ann2, ann3.
FOLDER = DEMO / "gate" / "demo"


def without_options(out: str) -> dict:
    data = json.loads(out)
    data.pop("options", None)
    return data


def with_points(tmp_path):
    """The demo folder with a zero-length annotation (a GATE point) added to ann2 in its first and
    its last file: 2 points, in two shards."""
    folder = tmp_path / "demo"
    shutil.copytree(FOLDER, folder)
    files = sorted(folder.glob("*.xml"))
    for file in (files[0], files[-1]):
        content = file.read_text(encoding="utf-8")
        node = re.search(r'<Node id="([0-9]+)"/>', content).group(1)
        content = content.replace('<AnnotationSet Name="ann2">\n', '<AnnotationSet Name="ann2">\n<Annotation Id="99" '
                                  f'Type="PER" StartNode="{node}" EndNode="{node}">\n</Annotation>\n', 1)
        file.write_text(content, encoding="utf-8")
    return folder, files


#: The lists :func:`files_opened` is filling, each with its folder.
_RECORDING: list[tuple[str, list]] = []


def _record_opens(event: str, args: tuple) -> None:
    if event == "open" and _RECORDING and isinstance(args[0], str):
        for folder, opened in _RECORDING:
            if os.path.dirname(os.path.abspath(args[0])) == folder:
                opened.append(os.path.basename(args[0]))


sys.addaudithook(_record_opens)  # for the process (a hook cannot be removed): it records only in files_opened


@contextlib.contextmanager
def files_opened(folder):
    """The names of the files of ``folder`` that this process opens while inside, in order, as
    the interpreter's audit hook sees them (``open``, ``os.open``): what a reader reads, whatever
    reads it."""
    recording = (os.path.abspath(folder), [])
    _RECORDING.append(recording)
    try:
        yield recording[1]
    finally:
        _RECORDING.remove(recording)


def test_the_sets_streams_carry_their_folders_listing_named_as_the_command_names_them():
    inputs = expand_inputs([FOLDER, FOLDER])
    assert [s.name for s in inputs] == ["ann1", "ann2", "ann3", "ann1#2", "ann2#2", "ann3#2"]
    listings = folder_listings(inputs, None)
    assert [(f.name, f.set_name, f.format) for f in listings] == [
        ("ann1", "ann1", "gate"), ("ann2", "ann2", "gate"), ("ann3", "ann3", "gate"),
        ("ann1#2", "ann1", "gate"), ("ann2#2", "ann2", "gate"), ("ann3#2", "ann3", "gate")]
    assert list(listings[0].units) == ["clinic-01", "clinic-02", "clinic-03", "clinic-04", "clinic-05", "news-01",
                                       "news-02", "news-03", "news-04", "news-05"]
    (one_file,) = open_annotators(FOLDER / "news-01.xml", annotators=["ann1"])
    assert one_file.listing is None  # a single GATE file is one XML document: read in the parent


@pytest.mark.slow
def test_agree_score_and_merge_read_their_shards(tmp_path, capsys, small_shards):
    folder, _ = with_points(tmp_path)
    code, out, err = same_under(capsys, calls=small_shards, argv=["agree", folder, "--by", "label,document",
                                                            "--output", "json"])
    assert code == 0 and json.loads(out)["documents"] == 10
    assert "2 zero-length GATE annotation(s) left out" in out  # ann2's two points, one per shard, noted once
    # 2 jobs x 4 shards of the 10 files: scanned for the sets, then read
    assert small_shards == [8, 8]
    code, out, _ = same_under(capsys, calls=small_shards, argv=["score", folder, "--annotators", "ann1,ann2,default",
                                                          "--by", "document", "--output", "json"])
    assert code == 0 and len(json.loads(out)["predictions"]) == 2
    golds = []
    for jobs in ("1", "2"):
        out = tmp_path / f"gold{jobs}.jsonl"
        code, summary, err = run(capsys, "merge", folder, "--to", "jsonl", "--out", out, "--output", "json",
                                 "--jobs", jobs)
        assert code == 0, err
        golds.append((without_options(summary), err, out.read_bytes()))
    assert golds[0] == golds[1] and golds[0][2].count(b"\n") == 10


@pytest.mark.slow
def test_two_gate_folders_and_a_brat_folder_share_out_alike(tmp_path, capsys, small_shards):
    code, out, _ = same_under(capsys, calls=small_shards, argv=["agree", FOLDER, DEMO / "brat" / "ann1", "--output",
                                                          "json"])
    assert code == 0
    assert [p["annotators"] for p in json.loads(out)["pairs"]][:3] == [["ann1", "ann2"], ["ann1", "ann3"],
                                                                       ["ann1", "ann1#2"]]


@pytest.mark.parametrize("damage, message", [
    (lambda text: text[:200], "not well-formed XML"),
    (lambda text: text.replace('EndNode="', 'EndNode="9', 1), "which is not in the text"),
])
def test_a_bad_file_in_a_later_shard_is_the_error_of_one_process(tmp_path, capsys, small_shards, damage, message):
    folder = tmp_path / "demo"
    shutil.copytree(FOLDER, folder)
    last = sorted(folder.glob("*.xml"))[-1]
    last.write_text(damage(last.read_text(encoding="utf-8")), encoding="utf-8")
    code, out, err = same_under(capsys, calls=small_shards, argv=["agree", folder, "--output", "json"])
    assert code == 1 and out == "" and small_shards == [8]  # met by the scan's last shard
    assert err.startswith(f"spanagree: error: {last}:") and message in err and len(err.strip().splitlines()) == 1


def test_of_two_bad_files_in_two_shards_the_first_is_the_error(tmp_path, capsys, small_shards):
    folder = tmp_path / "demo"
    shutil.copytree(FOLDER, folder)
    files = sorted(folder.glob("*.xml"))
    files[-1].write_text(files[-1].read_text(encoding="utf-8")[:200], encoding="utf-8")
    files[2].write_text(files[2].read_text(encoding="utf-8").replace('EndNode="', 'EndNode="9', 1), encoding="utf-8")
    code, _, err = same_under(capsys, calls=small_shards, argv=["agree", folder, "--output", "json"])
    assert code == 1 and err.startswith(f"spanagree: error: {files[2]}:") and "which is not in the text" in err


def test_the_sets_are_in_order_of_first_appearance_and_annotators_hold_a_span(tmp_path, capsys, small_shards):
    folder = tmp_path / "corpus"
    folder.mkdir()
    texts = ["Ana met Bo.", "Bo met Ana.", "Cy met Di."]
    (folder / "d1.xml").write_text(gate_xml(texts[0], {"B": [(0, 3, "PER")], "P": [(3, 3, "PER")]}), "utf-8")
    (folder / "d2.xml").write_text(gate_xml(texts[1], {"A": [(0, 2, "PER")], "B": [(7, 10, "PER")]}), "utf-8")
    (folder / "d10.xml").write_text(gate_xml(texts[2], {"A": [(0, 2, "PER")], "B": [(0, 2, "PER")],
                                                        "P": [(4, 4, "X")]}), "utf-8")
    # P holds only points (zero-length): not an annotator; B comes first (d1), A in d2; d10 after d2
    assert [(s.name, s.role) for s in gate_module.annotators_gate(folder)] == [
        ("default", "other"), ("B", "annotator"), ("A", "annotator")]
    code, out, err = same_under(capsys, calls=small_shards, argv=["agree", folder, "--output", "json"])
    assert code == 0, err
    (pair,) = json.loads(out)["pairs"]
    # d1 lacks A (left out); d2: B's "Ana" and A's "Bo" differ (b = c = 1); d10: both "Cy" (a = 1)
    assert pair["annotators"] == ["B", "A"] and (pair["a"], pair["b"], pair["c"]) == (1, 1, 1)


def test_in_one_process_a_file_is_scanned_once_and_parsed_once_for_all_its_sets():
    files = sorted(path.name for path in FOLDER.glob("*.xml"))
    assert len(files) == 10
    with files_opened(FOLDER) as opened:
        streams = open_annotators(FOLDER, "gate")  # the format given: no file opened to recognise it
    assert [s.name for s in streams] == ["ann1", "ann2", "ann3"]
    assert sorted(opened) == files  # the scan for the sets: each file read once
    with files_opened(FOLDER) as opened:
        iterators = [iter(s.documents) for s in streams]
        for _ in range(10):  # the pipeline reads the streams document by document, in turn
            assert len({next(i).id for i in iterators}) == 1
        assert [next(i, None) for i in iterators] == [None, None, None]
    assert sorted(opened) == files  # each file read once for its three sets


@pytest.mark.slow
def test_the_bratiaa_example_in_gate_files_agrees_under_jobs_as_in_brat(shared_corpora, tmp_path, capsys,
                                                                       small_shards):
    brat, folder = bratiaa_in_gate(shared_corpora, tmp_path)
    code, out, err = same_under(capsys, calls=small_shards, argv=["agree", folder, "--match", "overlap", "--output",
                                                            "json"])
    assert code == 0, err
    from_brat = agree(brat, match="overlap")
    assert [(p["annotators"], p["a"], p["b"], p["c"]) for p in json.loads(out)["pairs"]] == \
           [([p.first, p.second], p.counts.a, p.counts.b, p.counts.c) for p in from_brat.pairs]


@pytest.mark.slow
def test_agree_score_merge_and_an_error_on_the_cluster_equal_a_local_run(scheduler, tmp_path, capsys, monkeypatch):
    from spanagree.pipeline import shards

    sharded = []
    added = shards.shards_added

    def counted(results, folders):
        sharded.append([folder.format for folder in folders])
        return added(results, folders)

    monkeypatch.setattr(shards, "shards_added", counted)
    folder, files = with_points(tmp_path)
    for argv in (["agree", folder, "--by", "label,document"], ["score", folder, "--by", "document"]):
        with files_opened(folder) as alone:
            run(capsys, *argv, "--output", "json", "--jobs", "1")
        assert sorted(set(alone)) == sorted(file.name for file in files)
        with files_opened(folder) as opened:
            same_under(capsys, [*argv, "--output", "json"], ("--scheduler", scheduler))
        # beyond the local run's reads, the client only looked at the first file to recognise the
        # format: the workers found the sets and read the files
        assert set(Counter(opened) - Counter(alone)) <= {files[0].name}
    outs = []
    for where in ([], ["--scheduler", scheduler]):
        out = tmp_path / f"gold{len(where)}.jsonl"
        with files_opened(folder) as opened:
            code, summary, err = run(capsys, "merge", folder, "--to", "jsonl", "--out", out, "--output", "json", *where)
        assert code == 0, err
        # here: every file (the first also to recognise the format); on the cluster, the first only
        assert set(opened) - {files[0].name} == (set() if where else {file.name for file in files[1:]})
        outs.append((without_options(summary), err, out.read_bytes()))
    assert outs[0] == outs[1]
    assert sharded == [["gate"] * 3] * 3  # each run's tasks read their shards of the files
    files[-1].write_text(files[-1].read_text(encoding="utf-8")[:200], encoding="utf-8")
    local = run(capsys, "agree", folder, "--output", "json")
    remote = run(capsys, "agree", folder, "--output", "json", "--scheduler", scheduler)
    assert local == remote and local[0] == 1 and local[2].startswith(f"spanagree: error: {files[-1]}:")


def test_on_the_cluster_the_sets_are_found_by_a_few_tasks_on_the_workers(scheduler, tmp_path, capsys, monkeypatch):
    from distributed import Client, get_task_stream
    from distributed.utils import key_split

    folder, files = with_points(tmp_path)
    with files_opened(folder) as opened:
        local = run(capsys, "agree", folder, "--by", "label,document", "--output", "json")
    assert sorted(set(opened)) == sorted(file.name for file in files)  # locally, read in this process
    with Client(scheduler, set_as_default=False) as client, get_task_stream(client) as stream, \
            files_opened(folder) as opened:
        remote = run(capsys, "agree", folder, "--by", "label,document", "--output", "json", "--scheduler", scheduler)
        workers = set(client.scheduler_info()["workers"])
    assert local[0] == remote[0] == 0 and local[2] == remote[2]
    assert without_options(remote[1]) == without_options(local[1])
    assert set(opened) <= {files[0].name}  # on the cluster this process only recognised the format
    shards = [task for task in stream.data if key_split(task["key"]) == "mapped_shard"]
    # 2 workers x 4 shards, twice: eight tasks finding the sets in one or two files each, then
    # eight comparing them, all run on the cluster's workers
    assert len(shards) == 16 and {task["worker"] for task in shards} <= workers


def test_on_the_cluster_a_bad_file_given_relatively_is_the_error_of_one_process(scheduler, tmp_path, capsys,
                                                                               monkeypatch):
    folder = tmp_path / "demo"
    shutil.copytree(FOLDER, folder)
    files = sorted(folder.glob("*.xml"))
    files[-1].write_text(files[-1].read_text(encoding="utf-8")[:200], encoding="utf-8")
    files[4].write_text(files[4].read_text(encoding="utf-8").replace('EndNode="', 'EndNode="9', 1), encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # the workers' folder is another: they read demo/... from here
    local = run(capsys, "agree", "demo", "--output", "json")
    remote = run(capsys, "agree", "demo", "--output", "json", "--scheduler", scheduler)
    assert local == remote and local[0] == 1 and local[1] == ""
    # the first bad file of the fifth (the third task's), with its line, not the last file's
    assert re.match(rf"spanagree: error: demo/{files[4].name}:[0-9]+: annotation .* which is not in the text\n$",
                    local[2])


def test_a_clusters_share_out_gives_each_contiguous_shard_in_order_and_checks_the_paths_first(scheduler):
    from distributed import Client

    from spanagree.errors import SpanagreeError
    from spanagree.pipeline.cluster import Workers
    from spanagree.pipeline.parallel import sharing

    with Client(scheduler, set_as_default=False) as client:
        share_out = sharing(Workers(client))
        # 2 workers x 4 shards of ten items: [0, 1], [2, 3], [4], ..., [9]
        assert share_out(sum, list(range(10)), reads=[str(FOLDER)]) == [1, 5, 4, 5, 6, 7, 8, 9]
        assert share_out(sum, []) is None
        with pytest.raises(SpanagreeError, match=r"^Dask worker tcp://\S+ cannot see /nowhere/gate: the workers read "
                                                 "the inputs by path"):
            share_out(sum, [1, 2], reads=[str(FOLDER), "/nowhere/gate"])
