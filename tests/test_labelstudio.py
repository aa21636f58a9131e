"""Label Studio JSON exports (issue 14): a container, one span set per annotator.

Figures from Label Studio's own example tasks (``labelstudio-samples``, SOURCE.md), hand counts,
and the same annotations read as BRAT.
"""

from __future__ import annotations

import json
import sys

import pytest

from spanagree import agree
from spanagree.errors import SpanagreeWarning
from spanagree.formats import collect, container_streams, detect_format, open_annotators, read

from conftest import DEMO, run

sys.path.insert(0, str(DEMO))
from build_demo import labelstudio_tasks  # noqa: E402  (the demo's Label Studio export builder)


def spans_of(spanset) -> list[tuple]:
    return [(d.id, s.start, s.end, s.label) for d in spanset.documents.values() for s in d.spans]


def export(tmp_path, tasks, name="export.json"):
    path = tmp_path / name
    path.write_text(json.dumps(tasks, ensure_ascii=False), encoding="utf-8")
    return path


def test_label_studios_example_task_is_read_with_its_prediction_and_its_offset_mismatch(shared_corpora):
    tasks = shared_corpora / "labelstudio-samples" / "text_named_entity" / "tasks.json"
    assert detect_format(tasks) == "labelstudio"
    assert open_annotators(tasks) == []  # predictions only: no annotator
    assert [(s.name, s.role) for s in container_streams(tasks, labelstudio_predictions=True)] == [
        ("model 1", "prediction")]
    # SOURCE.md: value.text "February 22" but text[343:353] is "February 2": the offsets are kept, warned
    with pytest.warns(SpanagreeWarning, match=r"1 span\(s\) whose value.text differs from the text at their offsets "
                      r"\(offsets kept\): task 1 \[343, 353\): 'February 2' in the text, 'February 22' in value.text"):
        model = read(tasks, annotator="model 1", labelstudio_predictions=True)
    assert spans_of(model) == [("1", 343, 353, "Date")]
    assert len(model.documents["1"].text) == 915


def test_the_corrected_task_scores_the_first_one(shared_corpora, capsys):
    root = shared_corpora / "labelstudio-samples"
    corrected, first = root / "editor-named_entity" / "tasks.json", root / "text_named_entity" / "tasks.json"
    # both hold a model called "model 1": the second is "model 1#2"
    code, out, err = run(capsys, "score", corrected, first, "--labelstudio-predictions",
                         "--annotators", "model 1,model 1#2", "--output", "json")
    assert code == 0, err
    document = json.loads(out)
    assert (document["gold"], document["prediction"]) == ("model 1", "model 1#2")
    assert (document["a"], document["b"], document["c"]) == (0, 1, 1)  # 343-353 against 343-354
    code, out, err = run(capsys, "score", corrected, first, "--labelstudio-predictions",
                         "--annotators", "model 1,model 1#2", "--match", "overlap", "--output", "json")
    assert code == 0 and (json.loads(out)["a"], json.loads(out)["b"]) == (1, 0)


def test_one_task_object_as_the_editor_gives_it(shared_corpora):
    one = shared_corpora / "labelstudio-samples" / "editor-named_entity" / "annotations" / "1.json"
    spanset = read(one, "labelstudio")
    # no completed_by: the annotation is named by its place in the task
    assert spanset.name == "annotation1"
    assert [(d, s, e, label) for d, s, e, label in spans_of(spanset)] == [("1", 343, 354, "Date")]
    assert spanset.documents["1"].text[343:354] == "February 22"


def test_the_demo_export_agrees_as_its_brat_version_without_discontinuous_spans(capsys):
    demo = DEMO / "labelstudio" / "demo.json"
    names = ["ann1@example.org", "ann2@example.org", "ann3@example.org"]
    assert [s.name for s in open_annotators(demo)] == names
    from_export = agree([demo])
    brat = [read(DEMO / "brat" / n) for n in ("ann1", "ann2", "ann3")]
    for spanset in brat:  # a Label Studio region is one range
        for document in spanset.documents.values():
            document.spans = [s for s in document.spans if len(s.fragments) == 1]
    from_brat = agree(brat)
    assert [p.counts for p in from_export.pairs] == [p.counts for p in from_brat.pairs]
    # the demo's task ids are 1..10; the BRAT ids are in data.doc
    assert list(from_export.documents) == [str(n) for n in range(1, 11)]
    code, out, err = run(capsys, "score", demo, "--gold", "ann2@example.org", "--output", "json")
    assert code == 0, err
    predictions = json.loads(out)["predictions"]
    assert [(p["prediction"], p["a"], p["b"], p["c"]) for p in predictions] == [
        ("ann1@example.org", 61, 15, 12), ("ann3@example.org", 56, 18, 17)]


def test_cancelled_annotations_other_results_and_missing_tasks(tmp_path, capsys):
    text = "Ana met Bo in Porto."
    label = lambda s, e, lab: {"type": "labels", "value": {"start": s, "end": e, "text": text[s:e],  # noqa: E731
                                                           "labels": [lab]}}
    tasks = [
        {"id": 1, "data": {"text": text}, "annotations": [
            {"completed_by": 1, "result": [label(0, 3, "PER"), {"type": "choices", "value": {"choices": ["ok"]}}]},
            {"completed_by": 2, "result": [label(0, 3, "PER"), label(14, 19, "LOC")]},
            {"completed_by": 3, "was_cancelled": True, "result": [label(8, 10, "PER")]}]},
        {"id": 2, "data": {"text": text}, "annotations": [
            {"completed_by": 1, "result": []}, {"completed_by": 3, "result": [label(8, 10, "PER")]}]},
    ]
    path = export(tmp_path, tasks)
    streams = {s.name: collect(s) for s in open_annotators(path)}
    assert {n: list(s.documents) for n, s in streams.items()} == {"1": ["1", "2"], "2": ["1"], "3": ["2"]}
    assert streams["1"].notes == ["1 cancelled (skipped) Label Studio annotation(s) left out",
                                  "1 Label Studio result(s) other than labelled spans (choices, relations, ...) not "
                                  "read"]
    code, out, err = run(capsys, "agree", path, "--annotators", "1,2", "--output", "json")
    assert code == 0, err
    assert "1 document(s) not annotated by every annotator are left out: 2" in err
    (pair,) = json.loads(out)["pairs"]
    assert (pair["a"], pair["b"], pair["c"]) == (1, 0, 1)


def test_offsets_are_code_points_and_an_older_exports_utf16_units_are_recognised(tmp_path):
    text = "😀 Ana met 😀😀 Bo."
    ana, bo = text.index("Ana"), text.index("Bo")
    as_units = lambda i: i + sum(1 for ch in text[:i] if ord(ch) > 0xFFFF)  # noqa: E731
    def task(number, start, end, shown):
        return {"id": number, "data": {"text": text}, "annotations": [{"completed_by": 1, "result": [
            {"type": "labels", "value": {"start": start, "end": end, "text": shown, "labels": ["PER"]}}]}]}
    tasks = [task(1, ana, ana + 3, "Ana"),                            # code points (Label Studio today)
             task(2, as_units(bo), as_units(bo) + 2, "Bo")]           # UTF-16 units (before 2021)
    spanset = read(export(tmp_path, tasks))
    assert [(d.text[s.start:s.end]) for d in spanset.documents.values() for s in d.spans] == ["Ana", "Bo"]
    assert spanset.notes == ["1 span(s) counted in UTF-16 units (an older Label Studio) read as code points"]


def test_json_min_records(tmp_path):
    text = "Ana met Bo."
    records = [{"id": 5, "text": text, "annotator": "ana@example.org", "annotation_id": 1,
                "ner": [{"start": 0, "end": 3, "text": "Ana", "labels": ["PER"]},
                        {"start": 8, "end": 10, "text": "Bo", "labels": ["PER", "X"]}]},
               {"id": 5, "text": text, "annotator": "bo@example.org", "annotation_id": 2,
                "ner": [{"start": 0, "end": 3, "text": "Ana", "labels": ["PER"]}]}]
    path = export(tmp_path, records)
    spansets = {s.name: collect(s) for s in open_annotators(path)}
    assert {n: spans_of(s) for n, s in spansets.items()} == {
        "ana@example.org": [("5", 0, 3, "PER"), ("5", 8, 10, "PER"), ("5", 8, 10, "X")],
        "bo@example.org": [("5", 0, 3, "PER")]}


def test_the_writer_round_trips_and_refuses_discontinuous_spans(tmp_path, capsys):
    out = tmp_path / "ann2.json"
    code, _, err = run(capsys, "convert", DEMO / "brat" / "ann2", "--to", "labelstudio", "--out", out)
    assert code == 0, err
    back, original = read(out), read(DEMO / "brat" / "ann2")
    assert back.name == "ann2"
    assert list(back.documents) == list(original.documents)
    assert spans_of(back) == sorted(spans_of(original), key=lambda s: (list(original.documents).index(s[0]), *s[1:]))
    assert all(back.documents[d].text == original.documents[d].text for d in original.documents)
    code, _, err = run(capsys, "convert", DEMO / "brat" / "ann1", "--to", "labelstudio", "--out", tmp_path / "x.json")
    assert code == 2 and "is discontinuous; a Label Studio region is one range" in err
    assert not (tmp_path / "x.json").exists()


def test_the_bratiaa_example_in_one_export_agrees_exactly_as_in_brat(shared_corpora, tmp_path):
    project = shared_corpora / "bratiaa-example" / "example-project"
    names = ["Lisa", "Maria", "Max", "Peter"]
    brat = [read(project / name, "brat") for name in names]
    documents = [(doc_id, document.text, {s.name: [(x.start, x.end, x.label) for x in s.documents[doc_id].spans]
                                          for s in brat}) for doc_id, document in brat[0].documents.items()]
    path = export(tmp_path, labelstudio_tasks(documents))
    for options in ({}, {"match": "overlap"}, {"match": "partial", "labels": "ignore"}):
        from_export, from_brat = agree([path], **options), agree(brat, **options)
        assert from_export.annotators == [f"{n}@example.org" for n in names]
        assert [p.counts for p in from_export.pairs] == [p.counts for p in from_brat.pairs]
        assert from_export.mean.mean == from_brat.mean.mean


@pytest.mark.parametrize("content, message", [
    ('[{"id": 1, "data": {"text": "Ana"}', "invalid JSON"),
    ('[{"id": 1, "data": {"text": "Ana"}, "annotations": [{"completed_by": 1, "result": [{"type": "labels", '
     '"value": {"start": 0, "end": 9, "labels": ["PER"]}}]}]}]',
     "task 1: span [0, 9) is empty, reversed or outside the text (3 characters)"),
    ('[{"id": 1, "data": {"text": "Ana"}}, {"id": 1, "data": {"text": "Bo"}}]', "task 1: appears twice"),
    ('[{"id": 1, "data": {"n": 3}, "annotations": []}]', "task 1: no text"),
    ('[7]', "task 1: not an object"),
])
def test_bad_exports_are_one_line_naming_the_file(tmp_path, capsys, content, message):
    bad = tmp_path / "x.json"
    bad.write_text(content, encoding="utf-8")
    code, out, err = run(capsys, "agree", bad, bad)
    assert code == 1 and out == ""
    assert err.startswith(f"spanagree: error: {bad}") and message in err and err.count("\n") == 1


# -- issue 32: type mistakes are one line; JSON-MIN items without labels; notes to their annotator --

def _check_every_type_swap(tmp_path, tasks) -> dict:
    """Every field of ``tasks`` swapped for every other JSON type, each export read: read, or one
    FormatError naming the file (never another exception). Returns the outcomes' counts."""
    import warnings

    from spanagree.errors import FormatError, UsageError

    from json_swaps import type_swaps

    outcomes = {"read": 0, "refused": 0}
    for what, mutated in type_swaps(tasks):
        path = export(tmp_path, mutated)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", SpanagreeWarning)
                for stream in container_streams(path, "labelstudio"):
                    collect(stream)
        except (FormatError, UsageError) as error:
            assert "\n" not in str(error), what
            assert isinstance(error, UsageError) or str(error).startswith(str(path)), what
            outcomes["refused"] += 1
        else:
            outcomes["read"] += 1
    return outcomes


def test_every_field_of_a_full_export_swapped_for_another_type(tmp_path):
    text = "Ana met Bo."
    tasks = [{"id": 1, "data": {"text": text}, "annotations": [
        {"completed_by": {"id": 1, "email": "a@x"}, "was_cancelled": False, "result": [
            {"type": "labels", "from_name": "label", "to_name": "text",
             "value": {"start": 0, "end": 3, "text": "Ana", "labels": ["PER"]}}]}],
        "predictions": [{"model_version": "m1", "result": []}]}]
    outcomes = _check_every_type_swap(tmp_path, tasks)
    assert outcomes["read"] and outcomes["refused"]


def test_every_field_of_a_json_min_export_swapped_for_another_type(tmp_path):
    records = [{"id": 5, "text": "Ana met Bo.", "annotator": "ana@example.org", "annotation_id": 1,
                "ner": [{"start": 0, "end": 3, "text": "Ana", "labels": ["PER"]}]}]
    outcomes = _check_every_type_swap(tmp_path, records)
    assert outcomes["read"] and outcomes["refused"]


@pytest.mark.parametrize("to_name, shown", [(["text"], "['text']"), ({"a": 1}, "{'a': 1}")])
def test_to_name_of_the_wrong_type_is_one_line_naming_the_task(tmp_path, capsys, to_name, shown):
    tasks = [{"id": 7, "data": {"text": "Ana"}, "annotations": [{"completed_by": 1, "result": [
        {"type": "labels", "to_name": to_name, "value": {"start": 0, "end": 3, "labels": ["PER"]}}]}]}]
    path = export(tmp_path, tasks)
    code, out, err = run(capsys, "agree", path, path)
    assert (code, out) == (1, "")
    assert err == f"spanagree: error: {path}: task 7: result 1's to_name is not a string: {shown}\n"


def test_json_min_items_without_labels_are_noted_not_dropping_their_neighbours(tmp_path):
    records = [{"id": 5, "text": "Ana met Bo.", "annotator": "ana", "ner": [
                    {"start": 0, "end": 3, "labels": ["PER"]}, {"start": 4, "end": 7}, {"start": 8, "end": 10,
                                                                                         "labels": ["PER"]}]},
               {"id": 5, "text": "Ana met Bo.", "annotator": "bo", "ner": [{"start": 0, "end": 3, "labels": ["PER"]}]}]
    spansets = {s.name: collect(s) for s in open_annotators(export(tmp_path, records))}
    assert spans_of(spansets["ana"]) == [("5", 0, 3, "PER"), ("5", 8, 10, "PER")]
    assert spansets["ana"].notes == ["1 Label Studio JSON-MIN span(s) without labels left out"]
    assert spansets["bo"].notes == []


def test_notes_go_to_the_annotator_they_concern(tmp_path):
    text = "😀 Ana met Bo."
    ana = text.index("Ana")

    def result(start, end, shown):
        return {"type": "labels", "value": {"start": start, "end": end, "text": shown, "labels": ["PER"]}}

    tasks = [{"id": 1, "data": {"text": text}, "annotations": [
                 {"completed_by": 1, "result": [result(ana + 1, ana + 4, "Ana")]},   # UTF-16 units
                 {"completed_by": 2, "result": [result(ana, ana + 3, "Ana")]},
                 {"completed_by": 2, "result": []}]}]                                # task 1 twice by 2
    streams = {s.name: collect(s) for s in open_annotators(export(tmp_path, tasks))}
    assert streams["1"].notes == ["1 span(s) counted in UTF-16 units (an older Label Studio) read as code points"]
    assert streams["2"].notes == ["1 task(s) annotated twice by one annotator: the last annotation read"]


# --- relations drawn bi: their types, found as the export is read, travel on its span sets ---

def _region(i, start, end):
    return {"id": i, "type": "labels", "from_name": "label", "to_name": "text",
            "value": {"start": start, "end": end, "labels": ["PER"]}}


def _relation_export(tmp_path, name, user, relations, predicted=()):
    """One task, ``Ana met Bo.``, whose annotation by ``user`` draws ``relations`` (from, to,
    direction, type) between Ana (a) and Bo (b); a prediction draws ``predicted``."""
    def results(drawn):
        return [_region("a", 0, 3), _region("b", 8, 10)] + [
            {"type": "relation", "from_id": f, "to_id": t, "direction": d, "labels": [kind]} for f, t, d, kind in drawn]

    task = {"id": 1, "data": {"text": "Ana met Bo."}, "annotations": [{"completed_by": user, "result": results(relations)}]}
    if predicted:
        task["predictions"] = [{"model_version": "m1", "result": results(predicted)}]
    return export(tmp_path, [task], name)


def test_the_types_drawn_bi_are_on_every_span_set_and_the_run_reads_the_export_once_for_them(tmp_path, capsys):
    """The export's types drawn ``bi`` (its predictions' too, read or not) are each span set's
    ``symmetric_relations``; the format declares none for a path (no second reading for them)."""
    path = _relation_export(tmp_path, "export.json", {"email": "ann1"}, [("a", "b", "bi", "Knows")],
                            predicted=[("b", "a", "bi", "Sees")])
    from spanagree.formats import FORMATS

    assert [(s.name, s.symmetric_relations) for s in container_streams(path)] == [("ann1", {"Knows", "Sees"})]
    assert [(s.name, s.symmetric_relations) for s in container_streams(path, labelstudio_predictions=True)] == [
        ("ann1", {"Knows", "Sees"}), ("m1", {"Knows", "Sees"})]
    assert FORMATS["labelstudio"].symmetric_relations(path) == frozenset()
    # only the relations read are noted as read bi
    assert read(path).notes == ["1 bidirectional Label Studio relation(s) read from → to (their types, symmetric: "
                                "Knows)"]


@pytest.mark.parametrize("names", [("ann1", "ann2"), ("one", "two")])
def test_a_bi_relation_drawn_the_other_way_matches_whether_the_file_is_read_as_a_path_or_a_span_set(
        tmp_path, capsys, names):
    """``ann1.json`` whose one annotator is ``ann1`` is read as a path (its span set is named as
    the file), ``one.json`` as a container's span set: either way ann2's Knows b → a (drawn
    ``right``) matches ann1's Knows a → b drawn ``bi``, and Sees, drawn bi only in ann2's
    predictions (not compared), is symmetric too."""
    first = _relation_export(tmp_path, f"{names[0]}.json", {"email": "ann1"},
                             [("a", "b", "bi", "Knows"), ("a", "b", "right", "Sees"), ("a", "b", "right", "Met")])
    second = _relation_export(tmp_path, f"{names[1]}.json", {"email": "ann2"},
                              [("b", "a", "right", "Knows"), ("b", "a", "right", "Sees"), ("b", "a", "right", "Met")],
                              predicted=[("a", "b", "bi", "Sees")])
    code, out, err = run(capsys, "agree", first, second, "--relations", "--output", "json")
    assert code == 0, err
    result = json.loads(out)
    assert result["options"]["symmetric_relations"] == ["Knows", "Sees"]
    assert {kind: (v["a"], v["b"], v["c"]) for kind, v in result["relations"]["by_type"].items()} == {
        "Knows": (1, 0, 0), "Sees": (1, 0, 0), "Met": (0, 1, 1)}
