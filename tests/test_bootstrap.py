"""Percentile bootstrap over documents: reproducible, equal to a plain loop, and covering the truth.

The coverage test draws synthetic corpora whose true (population) precision, recall and F1 are
known, and checks that the 95% interval covers them in roughly 95% of the draws.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from spanagree import SpanagreeWarning
from spanagree.measures import bootstrap as bootstrap_module
from spanagree.measures.bootstrap import bootstrap_intervals
from conftest import run

BRAT = ["brat/ann1", "brat/ann2", "brat/ann3"]
CONCEPTS = Path(__file__).resolve().parent.parent / "docs" / "concepts.md"


def reference_intervals(per_document, n, seed, level=0.95):
    """A plain loop: draw documents, sum each pair's counts, percentiles of the defined values."""
    counts = np.asarray(per_document, dtype=float)
    documents, pairs = counts.shape[0], counts.shape[1]
    rng = np.random.default_rng(seed)
    f1 = np.full((n, pairs), np.nan)
    means = np.full(n, np.nan)
    for r in range(n):
        drawn = rng.integers(0, documents, size=documents)
        a, b, c = counts[drawn].sum(axis=0).T
        for p in range(pairs):
            if 2 * a[p] + b[p] + c[p]:
                f1[r, p] = 2 * a[p] / (2 * a[p] + b[p] + c[p])
        defined = f1[r][~np.isnan(f1[r])]
        if defined.size:
            means[r] = defined.mean()
    tail = (1 - level) / 2 * 100
    pair_bounds = [np.percentile(f1[:, p][~np.isnan(f1[:, p])], [tail, 100 - tail]).tolist() for p in range(pairs)]
    return pair_bounds, np.percentile(means[~np.isnan(means)], [tail, 100 - tail]).tolist()


def demo_per_document(demo):
    from spanagree import agree, read

    result = agree([read(demo / p, "brat") for p in BRAT])
    return [[(c.a, c.b, c.c) for c in result.document_pairs(d)] for d in result.documents], result


def test_reproducible_with_a_seed(demo):
    per_document, _ = demo_per_document(demo)
    first = bootstrap_intervals(per_document, n=300, seed=42)
    again = bootstrap_intervals(per_document, n=300, seed=42)
    other = bootstrap_intervals(per_document, n=300, seed=43)
    assert first == again
    assert first["pairs"] != other["pairs"]
    assert first["seed"] == 42 and first["n"] == 300 and first["documents"] == 10 and first["level"] == 0.95


def test_without_a_seed_the_drawn_seed_reproduces(demo):
    per_document, _ = demo_per_document(demo)
    unseeded = bootstrap_intervals(per_document, n=100)
    assert isinstance(unseeded["seed"], int)
    assert bootstrap_intervals(per_document, n=100, seed=unseeded["seed"]) == unseeded


def test_equal_to_a_plain_loop(demo, monkeypatch):
    per_document, _ = demo_per_document(demo)
    expected_pairs, expected_mean = reference_intervals(per_document, 500, seed=7)
    result = bootstrap_intervals(per_document, n=500, seed=7)
    for entry, expected in zip(result["pairs"], expected_pairs):
        assert entry["f1"] == pytest.approx(expected, abs=1e-12)
    assert result["mean_f1"] == pytest.approx(expected_mean, abs=1e-12)
    # drawing resamples in small blocks changes nothing
    monkeypatch.setattr(bootstrap_module, "CHUNK_CELLS", 30)
    assert bootstrap_intervals(per_document, n=500, seed=7) == result


def test_demo_intervals(demo):
    per_document, agreement = demo_per_document(demo)
    result = bootstrap_intervals(per_document, n=2000, seed=2024,
                                 pairs=[[p.first, p.second] for p in agreement.pairs])
    assert [p["annotators"] for p in result["pairs"]] == [["ann1", "ann2"], ["ann1", "ann3"], ["ann2", "ann3"]]
    for entry, pair in zip(result["pairs"], agreement.pairs):
        for measure in ("f1", "precision", "recall"):
            low, high = entry[measure]
            assert low < getattr(pair.counts, measure) < high
        assert entry["undefined"] == {"f1": 0, "precision": 0, "recall": 0}
    low, high = result["mean_f1"]
    assert low < agreement.mean.mean < high
    assert [[round(x, 4) for x in p["f1"]] for p in result["pairs"]] == [
        [0.736, 0.8765], [0.7973, 0.9497], [0.6772, 0.8276]]
    assert [round(x, 4) for x in result["mean_f1"]] == [0.7529, 0.8762]


def test_level_narrows_the_interval(demo):
    per_document, _ = demo_per_document(demo)
    wide = bootstrap_intervals(per_document, n=1000, seed=5, level=0.95)
    narrow = bootstrap_intervals(per_document, n=1000, seed=5, level=0.80)
    for w, n in zip(wide["pairs"], narrow["pairs"]):
        assert w["f1"][0] <= n["f1"][0] < n["f1"][1] <= w["f1"][1]


def test_fewer_than_two_documents_gives_no_interval():
    with pytest.warns(SpanagreeWarning, match="at least two are needed"):
        result = bootstrap_intervals([[(3, 1, 1)]], n=100, seed=1)
    assert result["pairs"] is None and result["mean_f1"] is None
    assert result["reason"] == "fewer than two documents"
    with pytest.warns(SpanagreeWarning, match="0 document"):
        assert bootstrap_intervals([], n=10, seed=1)["pairs"] is None


def test_undefined_resamples_are_left_out_and_counted():
    # pair 2 has spans in one document only: resamples without it leave its F1 undefined
    per_document = [[(3, 1, 0), (0, 0, 0)], [(2, 0, 1), (0, 0, 0)], [(4, 1, 1), (0, 0, 0)], [(1, 1, 1), (2, 1, 0)]]
    with pytest.warns(SpanagreeWarning, match="left out"):
        result = bootstrap_intervals(per_document, n=400, seed=3)
    undefined = result["pairs"][1]["undefined"]["f1"]
    # P(document 4 never drawn in 4 draws) = (3/4)^4 ≈ 0.32
    assert 0.25 * 400 < undefined < 0.40 * 400
    assert result["pairs"][0]["undefined"]["f1"] == 0
    assert result["mean_f1_undefined"] == 0  # pair 1 is always defined, so the mean is too
    pairs, mean = reference_intervals(per_document, 400, seed=3)
    assert result["pairs"][1]["f1"] == pytest.approx(pairs[1], abs=1e-12)
    assert result["mean_f1"] == pytest.approx(mean, abs=1e-12)


def test_bad_arguments():
    from spanagree import UsageError

    with pytest.raises(UsageError, match="positive integer"):
        bootstrap_intervals([[(1, 0, 0)], [(1, 0, 0)]], n=0)
    with pytest.raises(UsageError, match="level"):
        bootstrap_intervals([[(1, 0, 0)], [(1, 0, 0)]], n=10, level=95)


def synthetic_corpus(rng, documents=40, shares=(0.7, 0.2, 0.1), concentration=20.0):
    """Per document, items split into a, b, c with document-specific shares drawn around ``shares``."""
    sizes = 1 + rng.poisson(15, size=documents)
    probabilities = rng.dirichlet(np.array(shares) * concentration, size=documents)
    return np.array([rng.multinomial(size, p) for size, p in zip(sizes, probabilities)])[:, None, :]


def test_coverage_on_synthetic_data():
    """The 95% interval covers the known truth in about 95% of repeated corpora; the rates are
    those concepts.md states."""
    pa, pb, pc = 0.7, 0.2, 0.1
    truth = {"f1": 2 * pa / (2 * pa + pb + pc), "precision": pa / (pa + pb), "recall": pa / (pa + pc)}
    rng = np.random.default_rng(20240501)
    draws = 300
    covered = dict.fromkeys(truth, 0)
    for _ in range(draws):
        corpus = synthetic_corpus(rng, shares=(pa, pb, pc))
        result = bootstrap_intervals(corpus, n=400, seed=int(rng.integers(2**32)))
        for measure, value in truth.items():
            low, high = result["pairs"][0][measure]
            covered[measure] += low <= value <= high
    rates = {m: k / draws for m, k in covered.items()}
    for measure, rate in rates.items():
        assert 0.88 <= rate <= 0.99, rates
    stated = re.search(r"with (\d+) synthetic documents .*? covered the truth in (\d+)%, (\d+)% and (\d+)% of "
                       r"(\d+) repeated corpora", " ".join(CONCEPTS.read_text(encoding="utf-8").split()))
    documents, f1, precision, recall, corpora = map(int, stated.groups())
    assert (documents, corpora) == (40, draws)  # synthetic_corpus's default size, and the draws here
    assert [round(100 * rates[m]) for m in ("f1", "precision", "recall")] == [f1, precision, recall]


def test_coverage_fails_for_a_wrong_truth():
    """The same check rejects a value the data do not support (the test can fail)."""
    rng = np.random.default_rng(7)
    misses = 0
    for _ in range(50):
        result = bootstrap_intervals(synthetic_corpus(rng), n=300, seed=int(rng.integers(2**32)))
        low, high = result["pairs"][0]["f1"]
        misses += not (low <= 0.75 <= high)  # the true F1 is 0.8235
    assert misses >= 45


# -- the command line ------------------------------------------------------------------------------


def test_cli_agree_bootstrap(demo, capsys):
    paths = [demo / p for p in BRAT]
    code, out, err = run(capsys, "agree", *paths, "--bootstrap", "2000", "--seed", "2024", "--output", "json")
    assert code == 0, err
    boot = json.loads(out)["bootstrap"]
    assert boot["n"] == 2000 and boot["seed"] == 2024 and boot["method"] == "percentile"
    assert [[round(x, 4) for x in p["f1"]] for p in boot["pairs"]] == [
        [0.736, 0.8765], [0.7973, 0.9497], [0.6772, 0.8276]]
    assert [round(x, 4) for x in boot["mean_f1"]] == [0.7529, 0.8762]
    code, again, _ = run(capsys, "agree", *paths, "--bootstrap", "2000", "--seed", "2024", "--output", "json")
    assert json.loads(again)["bootstrap"] == boot
    code, table, _ = run(capsys, "agree", *paths, "--bootstrap", "2000", "--seed", "2024")
    assert "95% percentile bootstrap intervals (2000 resamples of 10 documents, seed 2024)" in table
    assert "ann1 × ann2  [0.7360, 0.8765]" in table
    assert "mean pairwise F1 [0.7529, 0.8762]" in table
    code, csv_out, _ = run(capsys, "agree", *paths, "--bootstrap", "2000", "--seed", "2024", "--output", "csv")
    header, first = csv_out.splitlines()[:2]
    assert header.endswith("f1_low,f1_high,precision_low,precision_high,recall_low,recall_high")
    assert round(float(first.split(",")[-6]), 4) == 0.736


def test_cli_score_bootstrap(demo, capsys):
    gold, pred = demo / BRAT[0], demo / BRAT[1]
    code, out, err = run(capsys, "score", gold, pred, "--bootstrap", "1000", "--seed", "9", "--output", "json")
    assert code == 0, err
    data = json.loads(out)
    (entry,) = data["bootstrap"]["pairs"]
    assert entry["annotators"] == ["ann2", "ann1"]
    assert data["bootstrap"]["mean_f1"] is None
    for measure in ("f1", "precision", "recall"):
        low, high = entry[measure]
        assert low < data[measure] < high
    # the same pooled counts as agree, sides exchanged: precision and recall swap
    code, out, _ = run(capsys, "agree", gold, pred, "--bootstrap", "1000", "--seed", "9", "--output", "json")
    (swapped,) = json.loads(out)["bootstrap"]["pairs"]
    assert swapped["f1"] == pytest.approx(entry["f1"])
    assert swapped["precision"] == pytest.approx(entry["recall"])


def test_cli_one_document_warns(tmp_path, capsys):
    text = "Ana Ruiz met Bo Li ."
    for name, spans in (("a", [[0, 8, "PER"]]), ("b", [[0, 8, "PER"], [13, 18, "PER"]])):
        record = {"id": "d1", "text": text, "spans": [{"start": s, "end": e, "label": l} for s, e, l in spans]}
        (tmp_path / f"{name}.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "agree", tmp_path / "a.jsonl", tmp_path / "b.jsonl", "--bootstrap", "100")
    assert code == 0, err
    assert "bootstrap: 1 document(s): at least two are needed" in err
    assert "bootstrap: no interval (fewer than two documents)" in out
    code, out, err = run(capsys, "agree", tmp_path / "a.jsonl", tmp_path / "b.jsonl", "--bootstrap", "100",
                         "--output", "json")
    assert json.loads(out)["bootstrap"]["pairs"] is None
    assert not math.isnan(json.loads(out)["pairs"][0]["f1"])


def json_example_of_concepts_md() -> tuple[list[str], dict]:
    """The command and the JSON block of concepts.md's "In the JSON output" section."""
    section = CONCEPTS.read_text(encoding="utf-8").split("## In the JSON output", 1)[1].split("\n## ", 1)[0]
    command = re.search(r"`(spanagree agree [^`]+)`", section)[1].split()
    block = re.search(r"```json\n(.*?)```", section, flags=re.S)[1]
    return command[1:], json.loads("{" + block + "}")


def shown_as_printed(shown, real, where="") -> list[str]:
    """Where the page's JSON differs from the real output: numbers rounded to 4 decimals, a list
    that ends in "..." compared up to it, only the keys the page shows (fields are only added)."""
    if isinstance(shown, dict):
        if not isinstance(real, dict):
            return [f"{where}: {real!r} is not an object"]
        return [d for key in shown for d in (shown_as_printed(shown[key], real[key], f"{where}.{key}")
                                              if key in real else [f"{where}.{key}: missing"])]
    if isinstance(shown, list):
        if not isinstance(real, list):
            return [f"{where}: {real!r} is not a list"]
        if shown and shown[-1] == "...":
            shown, real = shown[:-1], real[:len(shown) - 1]
        if len(shown) != len(real):
            return [f"{where}: {len(real)} items, the page shows {len(shown)}"]
        return [d for k, (s, r) in enumerate(zip(shown, real)) for d in shown_as_printed(s, r, f"{where}[{k}]")]
    if isinstance(shown, float) and not isinstance(real, bool) and isinstance(real, (int, float)):
        return [] if round(real, 4) == shown else [f"{where}: {real} printed, the page shows {shown}"]
    return [] if (shown, type(shown)) == (real, type(real)) else [f"{where}: {real!r}, the page shows {shown!r}"]


def test_the_json_example_of_concepts_md(capsys, monkeypatch):
    """concepts.md's command, run as the page gives it, prints the page's figures."""
    argv, shown = json_example_of_concepts_md()
    assert set(shown) == {"chance", "bootstrap"} and "--seed" in argv
    monkeypatch.chdir(CONCEPTS.parent.parent)
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    real = json.loads(out)
    assert shown_as_printed(shown, real) == []
    # the comparison can fail: one figure changed in the page is found
    altered = json.loads(json.dumps(shown))
    altered["bootstrap"]["pairs"][0]["f1"][0] += 0.0001
    assert shown_as_printed(altered, real) == [
        f".bootstrap.pairs[0].f1[0]: {real['bootstrap']['pairs'][0]['f1'][0]} printed, "
        f"the page shows {altered['bootstrap']['pairs'][0]['f1'][0]}"]
