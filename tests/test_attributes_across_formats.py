"""``agree --attributes`` and ``--match-attributes`` on files that carry attributes (issue 28): a
hand-counted JSONL pair, and the same pair converted to every format that holds attributes, give
the same figures."""

from __future__ import annotations

import json

import pytest

from conftest import run

TEXT = "Ana met Bo in Rome."
ANN1 = [{"start": 0, "end": 3, "label": "PER", "kb_id": "Q1", "attributes": {"Negation": True}},
        {"start": 8, "end": 10, "label": "PER", "kb_id": "Q2"},
        {"start": 14, "end": 18, "label": "LOC", "kb_id": "Q220"}]
ANN2 = [{"start": 0, "end": 3, "label": "PER", "kb_id": "Q1", "attributes": {"Negation": True}},
        {"start": 8, "end": 10, "label": "PER", "kb_id": "Q3"},
        {"start": 14, "end": 18, "label": "ORG", "kb_id": "Q220"}]


@pytest.fixture()
def pair(tmp_path):
    paths = []
    for name, spans in (("ann1", ANN1), ("ann2", ANN2)):
        path = tmp_path / f"{name}.jsonl"
        path.write_text(json.dumps({"id": "d1", "text": TEXT, "spans": spans}) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def figures(capsys, *argv) -> dict:
    code, out, err = run(capsys, "agree", *argv, "--output", "json")
    assert code == 0, err
    return json.loads(out)["pairs"][0]


def test_attribute_counts_by_hand(capsys, pair):
    """Labels strict: Ana and Bo are aligned, Rome (LOC against ORG) is not. Ana's Negation and
    kb_id agree (a 2); Bo's ids differ (b 1, c 1); Rome's ids are on unaligned spans (b 1, c 1).
    Kappa over the two aligned pairs: Negation (True, True), (none, none): 1; kb_id (Q1, Q1),
    (Q2, Q3): p_o 1/2, p_e 1/4, kappa 1/3."""
    found = figures(capsys, *pair, "--attributes")["attributes"]
    assert (found["a"], found["b"], found["c"]) == (2, 2, 2)
    by_name = found["by_name"]
    assert {name: (v["a"], v["b"], v["c"]) for name, v in by_name.items()} == {"Negation": (1, 0, 0), "kb_id": (1, 2, 2)}
    assert by_name["Negation"]["kappa"] == pytest.approx(1.0)
    assert by_name["kb_id"]["kappa"] == pytest.approx(1 / 3)
    ignored = figures(capsys, *pair, "--attributes", "--labels", "ignore")["attributes"]
    assert (ignored["a"], ignored["b"], ignored["c"]) == (3, 1, 1)  # Rome aligned: its ids agree


def test_links_in_the_span_identity_by_hand(capsys, pair):
    """With kb_id part of a span's identity, Bo's spans no longer match: a 1 (Ana), b 2, c 2."""
    found = figures(capsys, *pair, "--match-attributes", "kb_id")
    assert (found["a"], found["b"], found["c"]) == (1, 2, 2)
    assert (figures(capsys, *pair)["a"], figures(capsys, *pair, "--labels", "ignore",
                                                  "--match-attributes", "kb_id")["a"]) == (2, 2)


@pytest.mark.parametrize("fmt", ["webanno", "xmi", "labelstudio", "brat"])
def test_the_same_figures_through_every_format_that_holds_attributes(capsys, tmp_path, pair, fmt):
    converted = []
    for path in pair:
        out = tmp_path / fmt / (path.stem + (".json" if fmt == "labelstudio" else ""))
        code, _, err = run(capsys, "convert", path, "--to", fmt, "--out", out)
        assert code == 0, err
        converted.append(out)
    expected = figures(capsys, *pair, "--attributes", "--labels", "ignore")["attributes"]
    found = figures(capsys, *converted, "--attributes", "--labels", "ignore")["attributes"]
    assert (found["a"], found["b"], found["c"]) == (expected["a"], expected["b"], expected["c"]) == (3, 1, 1)
    assert found["by_name"].keys() == expected["by_name"].keys()


def test_label_studio_bi_relations_match_in_either_order(capsys, tmp_path):
    """A relation drawn with ``"direction": "bi"`` is symmetric: the other annotator's arrow the
    other way round matches it; a ``right`` one does not."""
    def region(i, s, e, label):
        return {"id": i, "type": "labels", "from_name": "label", "to_name": "text",
                "value": {"start": s, "end": e, "labels": [label]}}

    def export(user, relations):
        result = [region("a", 0, 3, "PER"), region("b", 8, 10, "PER")]
        result += [{"type": "relation", "from_id": f, "to_id": t, "direction": d, "labels": [label]}
                   for f, t, d, label in relations]
        return [{"id": 1, "data": {"text": "Ana met Bo."}, "annotations": [{"completed_by": user, "result": result}]}]

    first, second = tmp_path / "first.json", tmp_path / "second.json"
    first.write_text(json.dumps(export(1, [("a", "b", "bi", "Knows"), ("a", "b", "right", "Met")])), encoding="utf-8")
    second.write_text(json.dumps(export(2, [("b", "a", "bi", "Knows"), ("b", "a", "right", "Met")])), encoding="utf-8")
    found = figures(capsys, first, second, "--relations")["relations"]
    assert (found["a"], found["b"], found["c"]) == (1, 1, 1)  # Knows matches; Met (one way each) does not
    assert {kind: (v["a"], v["b"], v["c"]) for kind, v in found["by_type"].items()} == {"Knows": (1, 0, 0),
                                                                                      "Met": (0, 1, 1)}
