"""Paired significance tests (``--compare``), sentence units and honest intervals (docs/statistics.md)."""

from __future__ import annotations

import itertools
import math
import json
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from spanagree import SpanagreeWarning, UsageError, agree, score
from spanagree.measures.registry import value
from spanagree.measures.significance import holm, paired_comparisons
from spanagree.pipeline import parallel
from spanagree.pipeline.units import sentence_counts, sentence_starts
from spanagree.report.schemas import schema
from spanagree.span import Document, Span, SpanSet
from conftest import run

ROOT = Path(__file__).resolve().parent.parent
SYSTEMS = ["arcada", "drexel_cci", "flytxt", "mic-cis", "sjtu_adapt", "spinningbytes", "uh_ritual"]


def f1(counts) -> float:
    return value("f1", *counts)


def exact_randomization_p(first, second) -> float:
    """The exact two-sided randomization p-value: every one of the 2^n swaps, by brute force."""
    first, second = np.asarray(first, float), np.asarray(second, float)
    observed = abs(f1(first.sum(0)) - f1(second.sum(0)))
    extreme = total = 0
    for swaps in itertools.product((0, 1), repeat=len(first)):
        mask = np.array(swaps, bool)[:, None]
        one = np.where(mask, second, first).sum(0)
        two = np.where(mask, first, second).sum(0)
        extreme += abs(f1(one) - f1(two)) >= observed - 1e-12
        total += 1
    return extreme / total


UNITS_A = [(9, 1, 1), (8, 2, 2), (9, 0, 1), (8, 1, 2), (5, 3, 2), (7, 2, 2), (6, 1, 3), (9, 2, 1), (4, 4, 4)]
UNITS_B = [(7, 3, 3), (6, 4, 4), (7, 2, 3), (8, 1, 2), (6, 2, 1), (5, 3, 4), (6, 2, 3), (8, 1, 2), (5, 2, 3)]


def test_approximate_randomization_tends_to_the_exact_test():
    exact = exact_randomization_p(UNITS_A, UNITS_B)
    found = paired_comparisons(np.stack([UNITS_A, UNITS_B], axis=1), ["A", "B"], resamples=40_000, seed=3)
    entry = next(e for e in found if e["measure"] == "f1")
    assert entry["first"] == "A" and entry["difference"] == pytest.approx(f1(np.sum(UNITS_A, 0)) - f1(np.sum(UNITS_B, 0)))
    # Monte-Carlo error of a p-value near 0.1 over 40,000 rounds: about 0.0015
    assert entry["p_value"] == pytest.approx(exact, abs=0.006)
    assert 0.01 < exact < 0.5


@pytest.mark.slow
def test_the_paired_bootstrap_matches_a_plain_reimplementation():
    """An independent numpy bootstrap (its own draws) gives the same interval and p-value within
    Monte-Carlo error."""
    rng = np.random.default_rng(11)
    a = rng.integers(0, 6, size=(60, 3)).astype(float)
    b = np.clip(a + rng.integers(-2, 3, size=(60, 3)), 0, None)
    found = {e["measure"]: e for e in paired_comparisons(np.stack([a, b], 1), ["a", "b"], test="bootstrap",
                                                         resamples=20_000, seed=5)}
    deltas = []
    plain = np.random.default_rng(99)
    for _ in range(20_000):
        drawn = plain.integers(0, 60, 60)
        deltas.append(f1(a[drawn].sum(0)) - f1(b[drawn].sum(0)))
    deltas = np.array(deltas)
    observed = f1(a.sum(0)) - f1(b.sum(0))
    low, high = np.percentile(deltas, [2.5, 97.5])
    p = (np.sum(np.abs(deltas - observed) >= abs(observed)) + 1) / (len(deltas) + 1)
    entry = found["f1"]
    sign = 1 if entry["first"] == "a" else -1  # the better-ranked system comes first
    assert entry["difference"] == pytest.approx(sign * observed)
    assert sorted([sign * entry["low"], sign * entry["high"]]) == pytest.approx([low, high], abs=0.01)
    assert entry["p_value"] == pytest.approx(p, abs=0.02)


def test_holm_equals_statsmodels():
    from statsmodels.stats.multitest import multipletests

    ps = [0.01, 0.04, 0.03, 0.2, 0.001, 0.04]
    assert holm(ps) == pytest.approx(list(multipletests(ps, method="holm")[1]))
    assert holm([0.5, None]) == [0.5, None]


def test_sentences_of_conll_text_and_of_the_sentencizer():
    conll = Document("d", "EU rejects German call\nPeter Blackburn\n.", tokens_from_text=True)
    assert sentence_starts(conll) == [0, 23, 39]
    raw = Document("d", "Ana met Bo. Then she left for Rome. Done.")
    assert sentence_starts(raw) == [0, 12, 36]


def test_sentence_counts_add_up_and_a_span_belongs_to_where_it_starts():
    """A span crossing a sentence break counts in the sentence where it starts; a pair where its
    gold (second) span starts."""
    from spanagree.match import MatchRule, align

    starts = [0, 12, 36]  # "Ana met Bo. Then she left for Rome. Done."
    first = [Span("d", (0, 3), "PER"), Span("d", (8, 14), "PER"), Span("d", (30, 34), "LOC")]
    second = [Span("d", (0, 3), "PER"), Span("d", (30, 34), "LOC"), Span("d", (36, 40), "X")]
    alignment = align(first, second, MatchRule("exact", "strict"))
    counts = sentence_counts(alignment, starts)
    # sentence 0: Ana (both) and "Bo. Th" (first only, starts at 8 in sentence 0); 1: Rome (both); 2: Done (second)
    assert counts == [(1.0, 1.0, 0.0), (1.0, 0.0, 0.0), (0.0, 0.0, 1.0)]
    total = alignment.counts
    assert tuple(map(sum, zip(*counts))) == (total.a, total.b, total.c)


def test_score_compare_by_sentence_on_the_demo_conll_holds_under_jobs(demo):
    jobs = parallel.Processes(2, min_documents_per_job=1)
    conll = demo / "conll"
    files = sorted(conll.glob("*.conll"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        one = score(files[0], files[1:], compare=True, unit="sentence", resamples=2000, seed=4)
        two = score(files[0], files[1:], compare=True, unit="sentence", resamples=2000, seed=4, jobs=jobs)
    assert len(jobs.mapped) == 1  # forked: each process read its byte ranges of the files
    assert one.comparisons == two.comparisons
    entry = one.comparisons[0]
    assert entry["unit"] == "sentence" and entry["units"] > 30 and entry["seed"] == 4
    # the sentences' counts add up to each prediction's counts
    assert entry["difference"] == pytest.approx(
        {r.prediction: r.counts.as_dict()["f1"] for r in one}[entry["first"]]
        - {r.prediction: r.counts.as_dict()["f1"] for r in one}[entry["second"]])


def test_agree_compare_and_the_json_contract(demo, capsys):
    import jsonschema

    brat = demo / "brat"
    code, out, err = run(capsys, "agree", brat / "ann1", brat / "ann2", brat / "ann3", "--compare", "--seed", "2",
                         "--resamples", "500", "--output", "json")
    assert code == 0
    data = json.loads(out)
    jsonschema.Draft202012Validator(schema("agree")).validate(data)
    assert [e["measure"] for e in data["comparisons"]] == ["f1"] * 3 + ["precision"] * 3 + ["recall"] * 3
    assert {(e["first"], e["second"]) for e in data["comparisons"]} == {
        ("ann1 × ann3", "ann1 × ann2"), ("ann1 × ann3", "ann2 × ann3"), ("ann1 × ann2", "ann2 × ann3")}
    # ten documents: fewer than 30 units, and the warning says what that means for this run: its
    # intervals and its randomization test's p-values (and not an option the run did not use)
    assert ("agree --compare: only 10 documents to resample and swap: with fewer than 30 units the intervals are "
            "too narrow and unstable and the p-values coarse (a randomization test over 10 units has at most 2^10 "
            "distinct swaps); read them with care") in err
    assert "--unit" not in err
    code, out, _ = run(capsys, "agree", brat / "ann1", brat / "ann2", brat / "ann3", "--compare", "--seed", "2",
                       "--resamples", "500")
    assert "paired comparisons of pairs of annotators (approximate randomization, 500 rounds over 10 documents" in out


def test_score_compare_json_on_the_demo(demo, capsys):
    import jsonschema

    brat = demo / "brat"
    code, out, _ = run(capsys, "score", brat / "ann1", brat / "ann2", brat / "ann3", "--compare", "--test",
                       "bootstrap", "--unit", "sentence", "--seed", "7", "--resamples", "1000", "--output", "json")
    assert code == 0
    data = json.loads(out)
    jsonschema.Draft202012Validator(schema("score")).validate(data)
    assert data["options"]["compare"] is True and data["options"]["unit"] == "sentence"
    first = data["comparisons"][0]
    assert (first["first"], first["second"], first["test"]) == ("ann3", "ann2", "bootstrap")
    assert first["low"] < first["difference"] < first["high"]


def test_one_unit_has_no_interval_and_no_p_value():
    with pytest.warns(SpanagreeWarning, match="at least two are needed"):
        gold = SpanSet.from_spans("gold", [Span("d", (0, 3), "PER")], {"d": "Ana"})
        a = SpanSet.from_spans("a", [Span("d", (0, 3), "PER")], {"d": "Ana"})
        b = SpanSet.from_spans("b", [], {"d": "Ana"})
        found = score(gold, [a, b], compare=True, seed=1)
    entry = found.comparisons[0]
    assert entry["difference"] == 1.0 and entry["low"] is None and entry["p_value"] is None


def test_no_document_compared_by_every_pair_is_a_warning_and_no_test(capsys, tmp_path):
    """A round-robin design in which no document is annotated by all three: the pairs share no
    unit, so nothing is tested (it used to stop with a ValueError)."""
    texts = {d: "Ana met Bo." for d in ("d1", "d2", "d3")}
    own = {"A": ("d1", "d2"), "B": ("d2", "d3"), "C": ("d3", "d1")}
    sets = [SpanSet.from_spans(name, [Span(d, 0, 3, "PER") for d in docs], {d: texts[d] for d in docs})
            for name, docs in own.items()]
    with pytest.warns(SpanagreeWarning, match="0 document.s. compared by every pair"):
        result = agree(sets, documents="pairwise", compare=True, seed=2)
    assert [p.f1 for p in (pair.counts for pair in result.pairs)] == [1.0, 1.0, 1.0]
    found = result.extras["comparisons"]
    assert len(found) == 9 and {e["units"] for e in found} == {0}
    assert all(math.isnan(e["difference"]) and e["p_value"] is None and e["low"] is None for e in found)
    for name, spans in zip(own, sets):
        folder = tmp_path / name
        folder.mkdir()
        for doc_id, document in spans.documents.items():
            (folder / f"{doc_id}.txt").write_text(document.text, encoding="utf-8")
            (folder / f"{doc_id}.ann").write_text("T1\tPER 0 3\tAna\n", encoding="utf-8")
    code, out, err = run(capsys, "agree", *(tmp_path / name for name in own), "--documents", "pairwise", "--compare",
                         "--output", "json")
    assert code == 0 and "Traceback" not in err
    assert {e["units"] for e in json.loads(out)["comparisons"]} == {0}


def test_bootstrap_warns_with_few_documents(shared_corpora, capsys):
    project = shared_corpora / "bratiaa-example" / "example-project"
    code, out, err = run(capsys, "agree", *(project / n for n in ("Lisa", "Maria", "Max", "Peter")),
                         "--bootstrap", "200", "--seed", "1", "--output", "json")
    assert code == 0
    # what a bootstrap computes: intervals; no p-value, randomization test or --unit sentence
    assert ("spanagree: warning: bootstrap: only 7 documents to resample: with fewer than 30 units the intervals are "
            "too narrow and unstable; read them with care\n") in err
    assert "p-value" not in err and "randomization" not in err and "--unit" not in err
    assert json.loads(out)["bootstrap"]["units"] == 7


def test_few_units_under_the_bootstrap_test(demo, capsys):
    """``--compare --test bootstrap``: intervals and p-values, no randomization swaps."""
    brat = demo / "brat"
    code, _, err = run(capsys, "score", brat / "ann1", brat / "ann2", brat / "ann3", "--compare", "--test",
                       "bootstrap", "--seed", "7", "--resamples", "200")
    assert code == 0
    assert ("score --compare: only 10 documents to resample: with fewer than 30 units the intervals are too narrow "
            "and unstable and the p-values coarse; read them with care") in err
    assert "swap" not in err and "randomization" not in err


@pytest.mark.parametrize("argv, message", [
    (["--unit", "sentence"], "--unit goes with --bootstrap or --compare"),
    (["--test", "bootstrap"], "--test goes with --compare"),
    (["--compare", "--resamples", "0"], "--resamples must be a whole number, at least 1; got 0"),
])
def test_option_errors(demo, capsys, argv, message):
    brat = demo / "brat"
    code, _, err = run(capsys, "score", brat / "ann1", brat / "ann2", brat / "ann3", *argv)
    assert code == 2 and message in err


def test_compare_needs_two_predictions_or_three_annotators(demo, capsys):
    brat = demo / "brat"
    code, _, err = run(capsys, "score", brat / "ann1", brat / "ann2", "--compare")
    assert code == 2 and "--compare compares predictions: give two or more" in err
    with pytest.raises(UsageError, match="three annotators or more"):
        agree([brat / "ann1", brat / "ann2"], compare=True)


def submission(folder, system):
    path = folder / "submissions" / system
    return path if path.exists() else folder / "submissions" / f"{system}.txt"


@pytest.mark.slow
def test_wnut17_ranked_with_p_values_by_sentence_as_docs_statistics_md_shows(shared_corpora, capsys):
    folder = shared_corpora / "wnut17"
    code, out, _ = run(capsys, "score", folder / "emerging.test.annotated", *(submission(folder, s) for s in SYSTEMS),
                       "--format", "conll", "--compare", "--unit", "sentence", "--seed", "1")
    assert code == 0
    page = (ROOT / "docs" / "statistics.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```\n(.*?)```", page.split("## The seven WNUT-17 systems", 1)[1], re.S)
    shown = [line for block in blocks[1:] for line in block.splitlines()]
    printed = out.splitlines()
    assert shown and all(line in printed for line in shown)
    code, out, _ = run(capsys, "score", folder / "emerging.test.annotated", submission(folder, "spinningbytes"),
                       submission(folder, "uh_ritual"), "--format", "conll", "--compare", "--unit", "sentence",
                       "--test", "bootstrap", "--seed", "5", "--output", "json")
    entry = json.loads(out)["comparisons"][0]
    assert (entry["first"], entry["second"], entry["measure"]) == ("uh_ritual", "spinningbytes", "f1")
    assert entry["difference"] == pytest.approx(0.4186320754716981 - 0.40777719390436157)   # 0.0109
    # the user's hand-written paired bootstrap over sentences: [−0.0204, 0.0415]; seeds differ
    assert entry["low"] == pytest.approx(-0.0204, abs=0.003) and entry["high"] == pytest.approx(0.0415, abs=0.003)
    assert entry["p_value"] > 0.3 and entry["units"] == 1287
