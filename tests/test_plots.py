"""``--plots DIR``: the figures exist, are valid PNG and SVG, and the SVG's texts are the JSON figures."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from lxml import etree

from spanagree.measures.registry import value
from spanagree.report.notebook import cell
from conftest import run

SVG = "{http://www.w3.org/2000/svg}"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def svg_texts(path) -> dict[str, str]:
    """The text of every group with an id (``f1-0-1`` → ``0.8133``), read with lxml."""
    tree = etree.parse(str(path))
    assert tree.getroot().tag == f"{SVG}svg"
    texts = {}
    for group in tree.iter(f"{SVG}g"):
        ident = group.get("id")
        if ident:
            found = ["".join(t.itertext()) for t in group.iter(f"{SVG}text")]
            if found:
                texts[ident] = found[0]
    return texts


def check_files(folder, stems):
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"{s}.{e}" for s in stems for e in ("png", "svg"))
    for stem in stems:
        png = (folder / f"{stem}.png").read_bytes()
        assert png.startswith(PNG_SIGNATURE) and len(png) > 5000
        etree.parse(str(folder / f"{stem}.svg"))  # well-formed XML


@pytest.mark.slow
def test_agree_plots_equal_the_json(demo, tmp_path, capsys):
    paths = [demo / "brat" / name for name in ("ann1", "ann2", "ann3")]
    folder = tmp_path / "figures"
    code, out, err = run(capsys, "agree", *paths, "--plots", folder, "--chance", "--output", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["options"]["plots"] == str(folder)
    check_files(folder, ["pairwise_f1", "label_f1", "kappa_vs_d"])
    texts = svg_texts(folder / "pairwise_f1.svg")
    matrix = data["matrix"]["f1"]
    for i, row in enumerate(matrix):
        for j, f1 in enumerate(row):
            assert texts[f"f1-{i}-{j}"] == cell(f1)
    assert texts["f1-0-1"] == "0.8133" and texts["f1-1-2"] == "0.7568"  # docs/cli.md's table
    bars = svg_texts(folder / "label_f1.svg")
    for n, (label, entry) in enumerate(data["by_label"].items()):
        for s, pair in enumerate(entry["pairs"]):
            assert bars[f"bar-{n}-{s}"] == (cell(pair["f1"]) or "n/a"), (label, s)
    kappa = svg_texts(folder / "kappa_vs_d.svg")
    for n, pair in enumerate(data["chance"]["pairs"]):
        # the marked point: the token 2×2 table's kappa, the one --chance reports (kappa_2x2)
        names = " × ".join(pair["annotators"])
        assert kappa[f"d-{n}-text"] == f"{names}: d = {pair['d']}, kappa = {cell(pair['kappa_2x2'])}"
        assert pair["kappa_2x2"] == pytest.approx(value("kappa", pair["a"], pair["b"], pair["c"], pair["d"]))


@pytest.mark.slow
def test_score_plots_one_confusion_per_prediction(demo, tmp_path, capsys):
    gold, ann2, ann3 = (demo / "brat" / name for name in ("ann1", "ann2", "ann3"))
    folder = tmp_path / "figures"
    code, out, err = run(capsys, "score", gold, ann2, ann3, "--plots", folder, "--output", "json")
    assert code == 0, err
    data = json.loads(out)
    check_files(folder, ["label_f1", "confusion_1", "confusion_2"])
    for n, prediction in enumerate(data["predictions"], 1):
        texts = svg_texts(folder / f"confusion_{n}.svg")
        matrix = prediction["confusion"]["matrix"]
        assert {k: v for k, v in texts.items() if k.startswith("confusion-")} == {
            f"confusion-{i}-{j}": str(count) for i, row in enumerate(matrix) for j, count in enumerate(row)}
    labels = sorted({label for p in data["predictions"] for label in p["by_label"]})
    bars = svg_texts(folder / "label_f1.svg")
    for n, label in enumerate(labels):
        for s, prediction in enumerate(data["predictions"]):
            assert bars[f"bar-{n}-{s}"] == cell(prediction["by_label"][label]["f1"])
    # one prediction: confusion.png, and --chance adds kappa_vs_d
    single = tmp_path / "single"
    code, out, err = run(capsys, "score", gold, ann2, "--plots", single, "--chance", "--output", "json")
    assert code == 0, err
    check_files(single, ["label_f1", "confusion", "kappa_vs_d"])
    pair = json.loads(out)["chance"]["pairs"][0]
    assert svg_texts(single / "kappa_vs_d.svg")["d-0-text"].endswith(f"kappa = {cell(pair['kappa_2x2'])}")


@pytest.mark.slow
def test_plots_folder_output_safety(demo, tmp_path, capsys):
    paths = [demo / "brat" / name for name in ("ann1", "ann2")]
    folder = tmp_path / "figures"
    folder.mkdir()
    (folder / "mine.txt").write_text("keep\n")
    code, _, err = run(capsys, "agree", *paths, "--plots", folder)
    assert code == 2 and "plots folder exists and is not empty" in err
    assert [p.name for p in folder.iterdir()] == ["mine.txt"]
    code, _, err = run(capsys, "agree", *paths, "--plots", demo / "brat", "--force")
    assert code == 2 and "plots folder" in err
    code, _, err = run(capsys, "agree", *paths, "--plots", folder, "--errors", folder / "e.csv", "--force")
    assert code == 2 and "cannot be the plots folder, inside it or around it" in err
    code, _, err = run(capsys, "agree", *paths, "--plots", folder, "--force")
    assert code == 0 and sorted(p.name for p in folder.iterdir()) == sorted(
        f"{s}.{e}" for s in ("pairwise_f1", "label_f1") for e in ("png", "svg"))


def test_without_matplotlib_plots_is_one_line_and_exit_2(demo, tmp_path):
    # matplotlib made unimportable in a fresh interpreter (None in sys.modules blocks the import)
    script = ("import sys; sys.modules['matplotlib'] = None; from spanagree.cli import main; "
              f"sys.exit(main(['agree', {str(demo / 'brat' / 'ann1')!r}, {str(demo / 'brat' / 'ann2')!r}, "
              f"'--plots', {str(tmp_path / 'figures')!r}]))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr == ("spanagree: error: --plots needs matplotlib, which is not installed: "
                           "pip install 'spanagree[plots]'\n")
    assert not (tmp_path / "figures").exists()


@pytest.mark.slow
def test_merge_plots_equal_the_json(demo, tmp_path, capsys):
    paths = [demo / "brat" / name for name in ("ann1", "ann2", "ann3")]
    folder, gold = tmp_path / "figures", tmp_path / "gold"
    code, out, err = run(capsys, "merge", *paths, "--to", "brat", "--out", gold, "--plots", folder, "--output", "json")
    assert code == 0, err
    data = json.loads(out)
    check_files(folder, ["votes"])
    texts = svg_texts(folder / "votes.svg")
    assert {k: v for k, v in texts.items() if k.startswith("votes-")} == {
        f"votes-{v}": str(n) for v, n in data["votes"].items()}
    for key in ("dropped", "boundary_tie", "label_tie", "label_split", "several_spans", "to_adjudicate",
                "not_unanimous"):
        assert texts[f"kind-{key}"] == str(data[key])
    assert sum(data["votes"].values()) == data["clusters"]
    # the plots folder may not hold the gold
    code, _, err = run(capsys, "merge", *paths, "--to", "brat", "--out", tmp_path / "figures2" / "gold",
                       "--plots", tmp_path / "figures2")
    assert code == 2 and "cannot be the plots folder, inside it or around it" in err
    assert not (tmp_path / "figures2").exists()
