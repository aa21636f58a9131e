"""Averages over labels (``--by label``): support, micro, macro and weighted precision, recall and F1,
several breakdowns at once, and the systems' rank (docs/measures.md, "Averages over labels")."""

from __future__ import annotations

import json
import math
import statistics

import pytest

from spanagree import SpanagreeWarning, agree, score
from spanagree.measures.averages import label_averages, undefined_labels
from spanagree.measures.counts import Counts
from spanagree.report.document import ranks
from spanagree.span import Span, SpanSet
from conftest import run

SYSTEMS = ["arcada", "drexel_cci", "flytxt", "mic-cis", "sjtu_adapt", "spinningbytes", "uh_ritual"]

#: seqeval 1.2.2's ``classification_report(y_true, y_pred, output_dict=True)`` (default mode, the
#: conlleval-like decoding) on WNUT-17: the gold ``emerging.test.annotated`` against each submission,
#: sentence by sentence, the last column as the tags; (precision, recall, f1-score) of its
#: "micro avg", "macro avg" and "weighted avg" rows. Recorded with the peers' venv (seqeval is not
#: a dependency): ``classification_report(gold, pred, output_dict=True, zero_division=0)``.
SEQEVAL_AVERAGES = {
    "arcada": {
        "micro": (0.47395171537484115, 0.3456904541241891, 0.3997856377277599),
        "macro": (0.37207967507107353, 0.2675241310142053, 0.29455644076931753),
        "weighted": (0.44420409188484355, 0.3456904541241891, 0.37438885918855364),
    },
    "drexel_cci": {
        "micro": (0.5039370078740157, 0.17794253938832252, 0.263013698630137),
        "macro": (0.2952015843512126, 0.11823223146057792, 0.149123346855074),
        "weighted": (0.35884809305443516, 0.17794253938832252, 0.22133306440600176),
    },
    "flytxt": {
        "micro": (0.4791666666666667, 0.31974050046339203, 0.38354641467481937),
        "macro": (0.34019523291304504, 0.23104190228954566, 0.2638824146283824),
        "weighted": (0.43373693099214117, 0.31974050046339203, 0.35859057285505014),
    },
    "mic-cis": {
        "micro": (0.409652076318743, 0.3382761816496756, 0.37055837563451777),
        "macro": (0.32304731205908915, 0.2703062315427847, 0.2817805769576535),
        "weighted": (0.3922063171293216, 0.3382761816496756, 0.3528723985232099),
    },
    "sjtu_adapt": {
        "micro": (0.5020632737276479, 0.3382761816496756, 0.40420819490586934),
        "macro": (0.43411365765898785, 0.26688217516098184, 0.2923874619502949),
        "weighted": (0.5072061613570101, 0.3382761816496756, 0.3742448299080229),
    },
    "spinningbytes": {
        "micro": (0.470873786407767, 0.35959221501390176, 0.40777719390436157),
        "macro": (0.34182763305570324, 0.24666810313145016, 0.26984416722338667),
        "weighted": (0.4310239608907966, 0.35959221501390176, 0.3749448821159597),
    },
    "uh_ritual": {
        "micro": (0.5753646677471637, 0.3290083410565338, 0.4186320754716981),
        "macro": (0.4479809949377356, 0.26057025152955066, 0.31575884017850536),
        "weighted": (0.5282223021864635, 0.3290083410565338, 0.3937201610501292),
    },
}
#: seqeval's support column for uh_ritual (the gold's entities of each type).
SEQEVAL_SUPPORT = {"corporation": 66, "creative-work": 142, "group": 165, "location": 150, "person": 429,
                   "product": 127}


def submission(folder, system):
    path = folder / "submissions" / system
    return path if path.exists() else folder / "submissions" / f"{system}.txt"


def test_averages_equal_seqeval_classification_report_on_wnut17(shared_corpora, capsys):
    folder = shared_corpora / "wnut17"
    code, out, _ = run(capsys, "score", folder / "emerging.test.annotated",
                       *(submission(folder, s) for s in SYSTEMS), "--format", "conll", "--by", "label",
                       "--output", "json")
    assert code == 0
    predictions = json.loads(out)["predictions"]
    assert [p["prediction"] for p in predictions] == SYSTEMS
    for p in predictions:
        for average, expected in SEQEVAL_AVERAGES[p["prediction"]].items():
            found = p["averages"][average]
            assert (found["precision"], found["recall"], found["f1"]) == pytest.approx(expected, abs=1e-12)
    uh_ritual = predictions[-1]
    assert {label: entry["support"] for label, entry in uh_ritual["by_label"].items()} == SEQEVAL_SUPPORT
    # ranked by F1 (the JSON keeps the order given): uh_ritual 0.4186 first, drexel_cci 0.2630 last
    assert [p["rank"] for p in predictions] == [4, 7, 5, 6, 3, 2, 1]


def test_wnut17_table_in_rank_order_with_the_averages(shared_corpora, capsys):
    folder = shared_corpora / "wnut17"
    code, out, _ = run(capsys, "score", folder / "emerging.test.annotated",
                       *(submission(folder, s) for s in SYSTEMS), "--format", "conll", "--by", "label")
    assert code == 0
    lines = out.splitlines()
    assert [line.split()[:2] for line in lines[4:11]] == [["1", "uh_ritual"], ["2", "spinningbytes"],
                                                          ["3", "sjtu_adapt"], ["4", "arcada"], ["5", "flytxt"],
                                                          ["6", "mic-cis"], ["7", "drexel_cci"]]
    start = lines.index("per label: uh_ritual")
    block = lines[start + 1:start + 12]
    assert block[-3].split() == ["micro", "avg", "0.5754", "0.3290", "0.4186", "1079"]
    assert block[-2].split() == ["macro", "avg", "0.4480", "0.2606", "0.3158", "1079"]
    assert block[-1].split() == ["weighted", "avg", "0.5282", "0.3290", "0.3937", "1079"]


def test_an_undefined_rate_counts_zero_in_macro_and_weighted_with_a_warning(capsys, tmp_path):
    """The gold has no ORG, the prediction one: ORG's recall is 0/0 (null), counted 0 in the averages."""
    text = "Ana met Bo in Rome"
    gold = tmp_path / "gold.jsonl"
    pred = tmp_path / "pred.jsonl"
    gold.write_text(json.dumps({"id": "d", "text": text, "spans": [{"start": 0, "end": 3, "label": "PER"},
                                                                  {"start": 14, "end": 18, "label": "LOC"}]}) + "\n")
    pred.write_text(json.dumps({"id": "d", "text": text, "spans": [{"start": 0, "end": 3, "label": "PER"},
                                                                  {"start": 8, "end": 10, "label": "ORG"}]}) + "\n")
    code, out, err = run(capsys, "score", gold, pred, "--by", "label", "--output", "json")
    assert code == 0
    data = json.loads(out)
    assert data["by_label"]["ORG"]["recall"] is None and data["by_label"]["ORG"]["support"] == 0
    assert data["by_label"]["LOC"]["precision"] is None
    # PER P 1 R 1; LOC P 0/0 -> 0, R 0; ORG P 0, R 0/0 -> 0; supports PER 1, LOC 1, ORG 0
    assert data["averages"]["macro"]["precision"] == pytest.approx(1 / 3)
    assert data["averages"]["macro"]["recall"] == pytest.approx(1 / 3)
    assert data["averages"]["weighted"]["recall"] == pytest.approx(0.5)
    assert data["averages"]["weighted"]["precision"] == pytest.approx(0.5)
    assert data["averages"]["micro"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5}
    assert ("pred: precision undefined (0/0) for LOC; recall undefined (0/0) for ORG; the macro and weighted "
            "averages count them as 0") in err
    # without --by label, no such warning
    code, out, err = run(capsys, "score", gold, pred)
    assert "macro" not in err


@pytest.mark.slow
def test_label_averages_against_scikit_learn_where_the_definitions_coincide():
    """One item per gold span, exact boundaries: the prediction's label for it, or a label of its
    own for a span the prediction lacks. scikit-learn's precision_recall_fscore_support(average=...)
    over the gold's labels equals the span-level averages when no prediction is spurious."""
    from sklearn.metrics import precision_recall_fscore_support

    y_true = ["PER"] * 5 + ["LOC"] * 3 + ["ORG"] * 2
    y_pred = ["PER", "PER", "PER", "LOC", "ORG", "LOC", "LOC", "PER", "ORG", "ORG"]
    labels = ["LOC", "ORG", "PER"]
    by_label = {}
    for label in labels:
        a = sum(t == p == label for t, p in zip(y_true, y_pred))
        by_label[label] = Counts(a, sum(p == label for p in y_pred) - a, sum(t == label for t in y_true) - a)
    support = {label: y_true.count(label) for label in labels}
    found = label_averages(by_label, support)
    for average in ("micro", "macro", "weighted"):
        p, r, f, _ = precision_recall_fscore_support(y_true, y_pred, labels=labels, average=average, zero_division=0)
        assert (found[average]["precision"], found[average]["recall"], found[average]["f1"]) == \
            pytest.approx((p, r, f), abs=1e-12)


def test_undefined_labels_and_empty_averages():
    # A: nothing predicted, 2 in the gold -> precision 0/0; recall 0/2 and F1 0/2 are defined (0)
    assert undefined_labels({"A": Counts(0, 0, 2), "B": Counts(1, 0, 0)}) == {"precision": ["A"]}
    empty = label_averages({}, {})
    assert all(math.isnan(v) for average in empty.values() for v in average.values())
    assert math.isnan(label_averages({"A": Counts(1, 0, 0)}, {"A": 0})["weighted"]["f1"])


def test_ranks_share_the_lower_rank_and_skip_undefined():
    assert ranks([0.5, 0.9, 0.5, float("nan"), 0.1]) == [2, 1, 2, None, 4]


def test_several_breakdowns_and_the_per_document_summary(demo, capsys):
    brat = demo / "brat"
    code, out, _ = run(capsys, "agree", brat / "ann1", brat / "ann2", brat / "ann3", "--by", "label,document",
                       "--output", "json")
    assert code == 0
    data = json.loads(out)
    assert data["options"]["by"] == ["label", "document"]
    assert "by_document" in data and data["by_label"]
    means = [entry["mean_f1"] for entry in data["by_document"].values()]
    summary = data["by_document_summary"]["mean_f1"]
    assert summary == pytest.approx({"mean": statistics.fmean(means), "sd": statistics.pstdev(means),
                                     "defined": 10, "skipped": 0})
    code, repeated, _ = run(capsys, "agree", brat / "ann1", brat / "ann2", brat / "ann3", "--by", "document",
                            "--by", "label", "--output", "json")
    assert json.loads(repeated) == data      # repeated --by: the same, in the same order
    code, table, _ = run(capsys, "agree", brat / "ann1", brat / "ann2", "--by", "label,document")
    assert "F1 per label" in table and "F1 per document" in table and "averages over labels" in table
    code, _, err = run(capsys, "agree", brat / "ann1", brat / "ann2", "--by", "label,document", "--output", "csv")
    assert code == 2 and "--output csv writes one table" in err
    code, out, _ = run(capsys, "agree", brat / "ann1", brat / "ann2", "--output", "json")
    assert json.loads(out)["options"]["by"] == []


def test_score_per_document_summary(demo, capsys):
    brat = demo / "brat"
    code, out, _ = run(capsys, "score", brat / "ann1", brat / "ann2", "--by", "document", "--output", "json")
    data = json.loads(out)
    for key in ("precision", "recall", "f1"):
        values = [entry[key] for entry in data["by_document"].values()]
        assert data["by_document_summary"][key] == pytest.approx(
            {"mean": statistics.fmean(values), "sd": statistics.pstdev(values), "defined": 10, "skipped": 0})


def test_averages_and_support_hold_under_jobs():
    from spanagree.pipeline.parallel import Processes

    jobs = Processes(2, min_spans_per_job=1)
    texts = {f"d{k}": "Ana met Bo in Rome" for k in range(40)}
    gold = SpanSet.from_spans("gold", [Span(d, (0, 3), "PER") for d in texts] + [Span(d, (14, 18), "LOC") for d in texts],
                              texts)
    pred = SpanSet.from_spans("pred", [Span(d, (0, 3), "PER") for d in texts]
                              + [Span(d, (8, 10), "ORG") for n, d in enumerate(texts) if n % 3 == 0], texts)
    with pytest.warns(SpanagreeWarning):
        one, two = score(gold, pred).to_dict(), score(gold, pred, jobs=jobs).to_dict()
    assert jobs.mapped == [8]  # forked: 2 processes x 4 shards
    assert one["averages"] == two["averages"] and one["by_label"] == two["by_label"]
    with pytest.warns(SpanagreeWarning):
        assert agree([gold, pred]).to_dict()["pairs"][0]["averages"] == \
            agree([gold, pred], jobs=2).to_dict()["pairs"][0]["averages"]

