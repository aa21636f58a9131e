"""GATE XML (issue 14): a container whose annotation sets are the annotators.

Figures come from GATE's own test files (``gate-xml-samples``: ``beijing-opera.xml`` of gate-core's
IAA tests, ``doc1.xml`` of the Evaluation plugin, ``testdoc1.xml`` of python-gatenlp; counts in
their SOURCE.md), from hand counts, and from the same annotations read as BRAT.
"""

from __future__ import annotations

import json
import sys
from collections import Counter

import pytest

from spanagree import agree
from spanagree.formats import collect, container_streams, detect_format, open_annotators, read

from conftest import DEMO, run

sys.path.insert(0, str(DEMO))
from build_demo import gate_xml  # noqa: E402  (the demo's GATE builder: node ids in UTF-16 units)


@pytest.fixture
def opera(shared_corpora):
    return shared_corpora / "gate-xml-samples" / "gate-core-iaa" / "beijing-opera.xml"


def labels_of(stream) -> Counter:
    spanset = collect(stream)
    return Counter(span.label for document in spanset.documents.values() for span in document.spans)


def test_every_set_of_gates_iaa_file_is_read_with_its_role_and_spans(opera):
    assert detect_format(opera) == "gate"
    streams = {s.name: s for s in container_streams(opera)}
    assert [(s.name, s.role) for s in streams.values()] == [
        ("default", "other"), ("Original markups", "other"), ("ann2", "annotator"), ("ann3", "annotator"),
        ("ann1", "annotator")]
    # SOURCE.md: Os ann1 5, ann2 3, ann3 4; ann1 14 Location; 19 sent per set
    assert labels_of(streams["ann1"]) == {"Os": 5, "Location": 14, "sent": 19}
    assert labels_of(streams["ann2"]) == {"Os": 3, "sent": 19}
    assert labels_of(streams["ann3"]) == {"Os": 4, "sent": 19}
    assert [s.name for s in open_annotators(opera)] == ["ann2", "ann3", "ann1"]  # the others when named


def test_offsets_are_the_nodes_places_in_the_text(opera):
    ann1 = read(opera, annotator="ann1")
    (document,) = ann1.documents.values()
    assert document.id == "1" and len(document.text) == 2068 and document.text[0] == "\n"
    os_spans = sorted((s.start, s.end, document.text[s.start:s.end]) for s in document.spans if s.label == "Os")
    # SOURCE.md: "The form" 245-253, "the skill of performers" 1036-1059, "Performers" 1117-1127,
    # "Beijing opera" 1632-1645, "Beijing opera's fate" 1997-2017
    assert os_spans == [(245, 253, "The form"), (1036, 1059, "the skill of performers"), (1117, 1127, "Performers"),
                        (1632, 1645, "Beijing opera"), (1997, 2017, "Beijing opera's fate")]


def test_merging_the_three_sets_on_os_by_majority_gives_gates_two_spans(opera, tmp_path, capsys):
    # gate-core TestAnnotationMerging: ann1;ann2;ann3 on Os, by majority and by "at least 2", both give 2
    for votes in ([], ["--min-votes", "2"]):
        out = tmp_path / f"merged{len(votes)}.jsonl"
        code, _, err = run(capsys, "merge", opera, "--only", "Os", "--to", "jsonl", "--out", out, *votes)
        assert code == 0, err
        (record,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        assert [(s["start"], s["end"], record["text"][s["start"]:s["end"]]) for s in record["spans"]] == [
            (245, 253, "The form"), (1117, 1127, "Performers")]


def test_agree_and_score_on_one_file_count_its_sets_as_annotators(opera, capsys):
    code, out, err = run(capsys, "agree", opera, "--only", "Os", "--output", "json")
    assert code == 0, err
    pairs = {tuple(p["annotators"]): (p["a"], p["b"], p["c"]) for p in json.loads(out)["pairs"]}
    # by hand from SOURCE.md: all three share "The form" and "Performers"; ann3's "skill of
    # performers" and "fate" and ann2's "Beijing opera" (1997-2010) differ from ann1's spans
    assert pairs == {("ann2", "ann3"): (2, 1, 2), ("ann2", "ann1"): (2, 1, 3), ("ann3", "ann1"): (2, 2, 3)}
    code, out, err = run(capsys, "agree", opera, "--only", "Os", "--annotators", "ann1,ann3", "--output", "json")
    assert code == 0, err
    document = json.loads(out)
    assert document["options"]["annotators"] == ["ann1", "ann3"]
    assert [(*p["annotators"], p["a"], p["b"], p["c"]) for p in document["pairs"]] == [("ann1", "ann3", 2, 3, 2)]
    code, out, err = run(capsys, "score", opera, "--gold", "ann1", "--only", "Os", "--output", "json")
    assert code == 0, err
    document = json.loads(out)
    assert document["gold"] == "ann1" and document["options"]["gold"] == "ann1"
    assert [(p["prediction"], p["a"], p["b"], p["c"]) for p in document["predictions"]] == [
        ("ann2", 2, 1, 3), ("ann3", 2, 2, 3)]


def test_the_other_sets_join_only_when_named(opera, capsys):
    code, out, err = run(capsys, "agree", opera, "--annotators", "Original markups,ann1", "--output", "json")
    assert code == 0, err
    (pair,) = json.loads(out)["pairs"]
    assert (*pair["annotators"], pair["a"]) == ("Original markups", "ann1", 0)
    code, _, err = run(capsys, "agree", opera, "--annotators", "ann1,nobody")
    assert code == 2
    assert err == ("spanagree: error: no span set called 'nobody' among the inputs; there are: default (other), "
                   "Original markups (other), ann2, ann3, ann1\n")


def test_the_evaluation_plugins_key_and_response(shared_corpora, capsys):
    doc1 = shared_corpora / "gate-xml-samples" / "gateplugin-Evaluation" / "doc1.xml"
    # Resp2 is empty: not an annotator; Key 12 Mentions, Resp1 5
    assert [(s.name, s.role) for s in open_annotators(doc1)] == [("Resp1", "annotator"), ("Key", "annotator")]
    assert labels_of(open_annotators(doc1, annotators=["Key"])[0]) == {"Mention": 12}
    # the feature id (a/b/c) as the label
    key = read(doc1, annotator="Key", gate_label_feature="id")
    assert sum(len(d.spans) for d in key.documents.values()) == 12
    assert {s.label for d in key.documents.values() for s in d.spans} == {"a", "b", "c"}
    # Resp1's feature c names the outcome each mention was made to have; one mention has none
    resp1 = read(doc1, annotator="Resp1", gate_label_feature="c")
    assert sorted(s.label for d in resp1.documents.values() for s in d.spans) == [
        "correct", "incorrect", "partial correct", "spurious"]
    assert resp1.notes == ["1 GATE annotation(s) without the feature 'c' left out"]


def test_zero_length_annotations_are_noted_not_read(shared_corpora):
    testdoc = shared_corpora / "gate-xml-samples" / "python-gatenlp" / "testdoc1.xml"
    set2 = read(testdoc, annotator="Set2")
    (document,) = set2.documents.values()
    assert document.text == "This is the document text"
    assert [(s.start, s.end, s.label) for s in document.spans] == [(0, 20, "LONG"), (5, 10, "SHORT")]
    assert set2.notes == ["3 zero-length GATE annotation(s) left out (a span covers at least one character)"]
    default = read(testdoc, annotator="default")
    assert sorted(s.label for d in default.documents.values() for s in d.spans) == ["Type1", "Type1"]


def test_node_ids_count_utf16_units_and_offsets_are_code_points(tmp_path):
    text = "Met 😀 Ana 😀😀 in Porto."
    start_ana, start_porto = text.index("Ana"), text.index("Porto")
    file = tmp_path / "emoji.xml"
    file.write_text(gate_xml(text, {"A": [(start_ana, start_ana + 3, "PER"), (start_porto, start_porto + 5, "LOC")]}),
                    encoding="utf-8")
    assert 'StartNode="7"' in file.read_text(encoding="utf-8")  # Java's offset of "Ana": 6 code points + 1
    assert 'StartNode="19"' in file.read_text(encoding="utf-8")  # of "Porto": 16 code points + 3
    document = read(file).documents["1"]
    assert [(document.text[s.start:s.end], s.label) for s in document.spans] == [("Ana", "PER"), ("Porto", "LOC")]


def test_a_folder_is_a_corpus_and_a_missing_set_is_a_missing_document(tmp_path, capsys):
    folder = tmp_path / "corpus"
    (folder / "sub").mkdir(parents=True)
    (folder / "d1.xml").write_text(gate_xml("Ana met Bo.", {"A": [(0, 3, "PER")], "B": [(0, 3, "PER")]}),
                                   encoding="utf-8")
    (folder / "sub" / "d2.xml").write_text(gate_xml("Bo met Ana.", {"A": [(7, 10, "PER")]}), encoding="utf-8")
    assert detect_format(folder) == "gate"
    spansets = {s.name: collect(s) for s in open_annotators(folder)}
    assert {name: list(s.documents) for name, s in spansets.items()} == {"A": ["d1", "sub/d2"], "B": ["d1"]}
    code, out, err = run(capsys, "agree", folder, "--output", "json")
    assert code == 0, err
    assert "1 document(s) not annotated by every annotator are left out: sub/d2" in err
    (pair,) = json.loads(out)["pairs"]
    assert (pair["a"], pair["b"], pair["c"], pair["f1"]) == (1, 0, 0, 1.0)


def bratiaa_in_gate(shared_corpora, tmp_path):
    """The bratiaa example project's four annotators read from BRAT, and written as a folder of
    GATE files (one file per document, one annotation set per annotator): the span sets and the folder."""
    project = shared_corpora / "bratiaa-example" / "example-project"
    brat = [read(project / name, "brat") for name in ("Lisa", "Maria", "Max", "Peter")]
    folder = tmp_path / "gate"
    folder.mkdir()
    for doc_id, document in brat[0].documents.items():
        sets = {s.name: [(span.start, span.end, span.label) for span in s.documents[doc_id].spans] for s in brat}
        (folder / f"{doc_id}.xml").write_text(gate_xml(document.text, sets), encoding="utf-8")
    return brat, folder


@pytest.mark.slow
def test_the_bratiaa_example_in_gate_files_agrees_exactly_as_in_brat(shared_corpora, tmp_path):
    names = ["Lisa", "Maria", "Max", "Peter"]
    brat, folder = bratiaa_in_gate(shared_corpora, tmp_path)
    for options in ({}, {"match": "overlap"}, {"match": "partial", "labels": "ignore"}):
        from_gate, from_brat = agree([folder], **options), agree(brat, **options)
        assert from_gate.annotators == names
        assert [(p.first, p.second, p.counts) for p in from_gate.pairs] == \
               [(p.first, p.second, p.counts) for p in from_brat.pairs]
        assert from_gate.mean.mean == from_brat.mean.mean


@pytest.mark.parametrize("content, message", [
    ('<GateDocument><TextWithNodes><Node id="0"/>Ana</TextWithNodes><AnnotationSet Name="A">'
     '<Annotation Id="1" Type="PER" StartNode="0" EndNode="3"/></AnnotationSet></GateDocument>',
     "x.xml:1: annotation '1' (PER) names node '3', which is not in the text"),
    ('<GateDocument><TextWithNodes>Ana</TextWithNodes><AnnotationSet Name="A">'
     '<Annotation Id="1" StartNode="0" EndNode="3"/></AnnotationSet></GateDocument>',
     "x.xml:1: an Annotation without Type"),
    ('<GateDocument><AnnotationSet Name="A"/></GateDocument>', "x.xml:1: GATE XML without TextWithNodes"),
    ('<GateDocument><TextWithNodes><Node id="0"/>Ana<Node id="3"/></TextWithNodes>\n<AnnotationSet Name="A">\n'
     '<Annotation Id="1" Type="PER" StartNode="3" EndNode="0"/></AnnotationSet></GateDocument>',
     "x.xml:3: annotation '1' (PER) ends before it starts"),
    ('<GateDocument><TextWithNodes>Ana</TextWithNodes>', "x.xml:1: not well-formed XML"),
])
def test_bad_gate_files_are_one_line_naming_the_file(tmp_path, capsys, content, message):
    bad = tmp_path / "x.xml"
    bad.write_text(content, encoding="utf-8")
    code, out, err = run(capsys, "agree", bad, "--format", "gate")
    assert code == 1 and out == ""
    assert err.startswith(f"spanagree: error: {tmp_path / message}") and err.count("\n") == 1


def test_gate_is_read_not_written(capsys, tmp_path):
    code, _, err = run(capsys, "convert", DEMO / "gate" / "demo", "--annotators", "ann1", "--to", "gate",
                       "--out", tmp_path / "x")
    assert code == 2 and "invalid choice: 'gate'" in err
    code, _, err = run(capsys, "convert", DEMO / "gate" / "demo", "--to", "jsonl", "--out", tmp_path / "x.jsonl")
    assert code == 2 and "holds 3 annotators (default (other), ann1, ann2, ann3); choose one with --annotators" in err
    code, _, err = run(capsys, "convert", DEMO / "gate" / "demo", "--annotators", "ann2", "--to", "jsonl",
                       "--out", tmp_path / "x.jsonl")
    assert code == 0, err
    assert read(tmp_path / "x.jsonl").documents.keys() == read(DEMO / "brat" / "ann2").documents.keys()


def test_a_set_the_file_does_not_hold_is_an_error_not_an_empty_stream():
    from spanagree.errors import UsageError
    from spanagree.formats.gate import stream_gate

    with pytest.raises(UsageError, match=r"holds no annotator 'nobody'; it holds: default, ann1, ann2, ann3"):
        stream_gate(DEMO / "gate" / "demo", annotator="nobody")


# -- issue 32: a DOCTYPE recognised, then refused; its entities never dropped from the text -------

GATE_WITH_ENTITY = ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE GateDocument [<!ENTITY who "Ana">]>\n'
                    '<GateDocument><TextWithNodes><Node id="0"/>&who;<Node id="3"/> met Bo.</TextWithNodes>'
                    '<AnnotationSet Name="A"><Annotation Id="1" Type="PER" StartNode="0" EndNode="3"/>'
                    '</AnnotationSet></GateDocument>')


@pytest.mark.parametrize("content", [
    GATE_WITH_ENTITY,
    GATE_WITH_ENTITY.replace("&who;", "Ana"),  # a DOCTYPE alone: GATE never writes one
    GATE_WITH_ENTITY.replace("\n<!DOCTYPE", "\n<!-- saved by hand -->\n" + "\n" * 70_000 + "<!DOCTYPE"),
])
def test_a_gate_file_with_a_doctype_is_recognised_and_refused(tmp_path, capsys, content):
    bad = tmp_path / "x.xml"
    bad.write_text(content, encoding="utf-8")
    assert detect_format(bad) == "gate"
    code, out, err = run(capsys, "agree", bad, "--format", "gate")
    assert (code, out) == (1, "")
    assert err == (f"spanagree: error: {bad}: holds a DOCTYPE (a DTD), which GATE XML never uses: not read, so "
                   "that no entity is expanded or fetched\n")


def test_a_gate_file_in_utf16_with_a_declaration_and_comment_is_recognised(tmp_path):
    good = tmp_path / "x.xml"
    good.write_bytes(GATE_WITH_ENTITY.replace("&who;", "Ana").replace(
        '<!DOCTYPE GateDocument [<!ENTITY who "Ana">]>', "<!-- c -->").replace("UTF-8", "UTF-16").encode("utf-16"))
    assert detect_format(good) == "gate"
    document = read(good, annotator="A").documents["1"]
    assert [(s.start, s.end, s.label) for s in document.spans] == [(0, 3, "PER")] and document.text == "Ana met Bo."
