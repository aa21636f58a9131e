"""Figures for papers (``--plots DIR``): PNG and SVG drawn with matplotlib's Agg backend.

Every figure is drawn from the command's JSON document (:mod:`.document`), so what it shows is
what ``--output json`` says. The SVG files keep their texts as text (``svg.fonttype: none``)
and name what they draw (``id`` of the group holding each cell, bar and marker), so that
scripts and tests can read the figures back. matplotlib is an optional dependency
(``pip install 'spanagree[plots]'``); :func:`check_plots` says so, in one line, before anything
is read. The file names (:data:`FIGURES`) are documented in docs/cli.md.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from ..errors import Parameter, UsageError
from .document import agreement_document, score_document, vote_document
from .notebook import cell

#: The figures, by file stem (each written as ``<stem>.png`` and ``<stem>.svg``).
FIGURES = {
    "pairwise_f1": "agree: the k×k pairwise F1 heatmap (matrix.f1), each cell's F1 written in it",
    "label_f1": "agree: F1 per label, one bar per pair (by_label.<label>.pairs[].f1); "
                "score: one bar per prediction (by_label.<label>.f1)",
    "confusion": "score: the gold × predicted label counts (confusion.matrix); with several predictions "
                 "confusion_<n>, n the prediction's place (1, 2, ...)",
    "kappa_vs_d": "--chance: Cohen's kappa as a function of d for the span counts a, b, c and the token "
                  "counts of each pair, converging to the PSA (F1) as d grows, the token level's d marked "
                  "(Hripcsak & Rothschild 2005); score with several predictions: kappa_vs_d_<n>",
    "votes": "merge: clusters by their number of votes (votes), kept and dropped (K marked), and the clusters "
             "of each kind, to adjudicate and not unanimous",
}

INSTALL = "pip install 'spanagree[plots]'"


def check_plots(directory, *, force: bool = False, other=None) -> Path:
    """Refuse before anything is read: matplotlib missing (a :class:`UsageError`, exit 2), a
    ``directory`` that exists and is not empty (without ``force``), or one that is or holds
    ``other`` (the command's other outputs, a path or a list of them: replacing the folder would
    delete them)."""
    from ..outputs import check_destination

    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError(f"{{plots}} needs matplotlib, which is not installed: {INSTALL}",
                         plots=Parameter("drawing the figures", "--plots")) from None
    path = check_destination(directory, force=force, what="plots folder", folder=True)
    resolved = path.resolve()
    for output in other if isinstance(other, (list, tuple)) else [other]:
        if output is None:
            continue
        held = Path(output).resolve()
        if held == resolved or resolved in held.parents or held in resolved.parents:
            raise UsageError(f"{output}: cannot be the plots folder, inside it or around it ({directory})")
    return path


def agreement_plots(result, directory, *, force: bool = False) -> list[str]:
    """Write ``agree``'s figures into ``directory``; return the file names written."""
    document = agreement_document(result)
    figures = {"pairwise_f1": pairwise_f1_figure(document), "label_f1": label_f1_figure(
        [" × ".join(p["annotators"]) for p in document["pairs"]],
        {label: [p["f1"] for p in entry["pairs"]] for label, entry in document["by_label"].items()}, "pair")}
    if "chance" in document:
        figures["kappa_vs_d"] = kappa_figure(document["pairs"], document["chance"]["pairs"])
    return write_figures(figures, directory, force=force)


def score_plots(results: list, directory, *, force: bool = False) -> list[str]:
    """Write ``score``'s figures (every prediction's) into ``directory``; return the file names."""
    documents = [score_document(r) for r in results]
    labels = sorted({label for d in documents for label in d["by_label"]})
    figures = {"label_f1": label_f1_figure(
        [d["prediction"] for d in documents],
        {label: [d["by_label"].get(label, {}).get("f1") for d in documents] for label in labels}, "prediction")}
    several = len(documents) > 1
    for n, document in enumerate(documents, 1):
        suffix = f"_{n}" if several else ""
        figures[f"confusion{suffix}"] = confusion_figure(document)
        if "chance" in document:
            span_pair = {"annotators": [document["prediction"], document["gold"]],
                         **{k: document[k] for k in ("a", "b", "c", "f1")}}
            figures[f"kappa_vs_d{suffix}"] = kappa_figure([span_pair], document["chance"]["pairs"])
    return write_figures(figures, directory, force=force)


def vote_plots(result, directory, *, force: bool = False) -> list[str]:
    """Write ``merge``'s figure into ``directory``; return the file names written."""
    return write_figures({"votes": votes_figure(vote_document(result), list(result.kinds))}, directory, force=force)


# -- drawing ---------------------------------------------------------------------------------------

def new_figure(width: float, height: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def number(value) -> float:
    return math.nan if value is None else float(value)


def pairwise_f1_figure(document: dict):
    """The heatmap of ``matrix.f1``; the group of cell (i, j)'s text has the id ``f1-i-j``."""
    names = document["matrix"]["annotators"]
    matrix = [[number(v) for v in row] for row in document["matrix"]["f1"]]
    k = len(names)
    figure = new_figure(1.6 + 0.9 * k, 1.2 + 0.8 * k)
    axes = figure.add_subplot()
    image = axes.imshow(matrix, vmin=0, vmax=1, cmap="viridis")
    axes.set_xticks(range(k), names, rotation=45, ha="right")
    axes.set_yticks(range(k), names)
    for i in range(k):
        for j in range(k):
            value = document["matrix"]["f1"][i][j]
            shade = number(value)
            colour = "black" if not math.isnan(shade) and shade > 0.6 else "white"
            axes.text(j, i, cell(value) or "n/a", ha="center", va="center", color=colour, fontsize=8,
                      gid=f"f1-{i}-{j}")
    figure.colorbar(image, ax=axes, label="F1")
    axes.set_title(f"pairwise F1 ({document['match']}, labels {document['labels']})")
    return figure


def label_f1_figure(series: list[str], by_label: dict[str, list], what: str):
    """Grouped bars: one group per label, one bar per pair or prediction (``series``); each bar's
    F1 is written above it, in a group with the id ``bar-<label index>-<series index>``."""
    import numpy as np

    labels = list(by_label)
    width = 0.8 / max(len(series), 1)
    figure = new_figure(max(4.0, 1.0 + 0.35 * len(labels) * max(len(series), 1)), 3.6)
    axes = figure.add_subplot()
    positions = np.arange(len(labels))
    for s, name in enumerate(series):
        values = [number(by_label[label][s]) for label in labels]
        heights = [0 if math.isnan(v) else v for v in values]
        axes.bar(positions + (s - (len(series) - 1) / 2) * width, heights, width, label=name)
        for n, (label, value) in enumerate(zip(labels, values)):
            axes.text(positions[n] + (s - (len(series) - 1) / 2) * width, (0 if math.isnan(value) else value) + 0.01,
                      cell(by_label[label][s]) or "n/a", ha="center", va="bottom", rotation=90, fontsize=6,
                      gid=f"bar-{n}-{s}")
    tilted = len(labels) > 4
    axes.set_xticks(positions, labels, rotation=45 if tilted else 0, ha="right" if tilted else "center")
    axes.set_ylim(0, 1.15)
    axes.set_ylabel("F1")
    axes.set_title(f"F1 per label and {what}")
    if series:
        axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return figure


def confusion_figure(document: dict):
    """The heatmap of ``confusion.matrix`` (rows gold, columns prediction); cell (i, j)'s text in a
    group with the id ``confusion-i-j``."""
    confusion = document["confusion"]
    labels, matrix = confusion["labels"], confusion["matrix"]
    k = len(labels)
    figure = new_figure(1.8 + 0.6 * k, 1.4 + 0.55 * k)
    axes = figure.add_subplot()
    top = max((v for row in matrix for v in row), default=0) or 1
    image = axes.imshow(matrix, cmap="Blues", vmin=0, vmax=top)
    axes.set_xticks(range(k), labels, rotation=45, ha="right")
    axes.set_yticks(range(k), labels)
    axes.set_xlabel(f"prediction ({document['prediction']})")
    axes.set_ylabel(f"gold ({document['gold']})")
    for i in range(k):
        for j in range(k):
            axes.text(j, i, str(matrix[i][j]), ha="center", va="center", fontsize=7,
                      color="white" if matrix[i][j] > top / 2 else "black", gid=f"confusion-{i}-{j}")
    figure.colorbar(image, ax=axes, label="spans")
    axes.set_title("confusion (gold × prediction)")
    return figure


def kappa_figure(span_pairs: list[dict], token_pairs: list[dict]):
    """Cohen's kappa as a function of d (``measures.registry`` ``kappa``) for each pair's span
    counts (left) and token counts (right), the PSA (F1) each converges to dashed, and on the
    token curve the token level's actual d marked (group id ``d-<pair index>``, its text giving
    d and kappa there)."""
    import numpy as np

    from ..measures.registry import value

    figure = new_figure(9.0, 3.8)
    span_axes, token_axes = figure.subplots(1, 2)
    for axes, pairs, title in ((span_axes, span_pairs, "span counts (d unknown)"),
                               (token_axes, token_pairs, "token counts")):
        for n, pair in enumerate(pairs):
            a, b, c = (float(pair[k]) for k in ("a", "b", "c"))
            actual = pair.get("d")
            top = max(1000.0 * max(a + b + c, 1.0), 10.0 * (actual or 0))
            d = np.concatenate([[0.0], np.logspace(0, math.log10(top), 400)])
            kappa = value("kappa", a, b, c, d)
            psa = value("f1", a, b, c)
            line, = axes.plot(d + 1, kappa, label=" × ".join(pair["annotators"]))
            axes.axhline(psa, color=line.get_color(), linestyle="--", linewidth=0.8)
            if actual is not None:
                at = value("kappa", a, b, c, float(actual))
                axes.plot([actual + 1], [at], "o", color=line.get_color(), gid=f"d-{n}")
                axes.text(0.02, 0.97 - 0.06 * n, f"{' × '.join(pair['annotators'])}: d = {actual}, kappa = {cell(at)}",
                          transform=axes.transAxes, va="top", fontsize=6, color=line.get_color(), gid=f"d-{n}-text")
        axes.set_xscale("log")
        axes.set_xlabel("d + 1 (items neither side marked)")
        axes.set_ylabel("Cohen's kappa")
        axes.set_ylim(-0.05, 1.05)
        axes.set_title(title)
    token_axes.legend(fontsize=7, loc="lower right")
    figure.suptitle("kappa converges to the PSA (F1, dashed) as d grows (Hripcsak & Rothschild 2005)", fontsize=9)
    return figure


def votes_figure(document: dict, kinds: list[str]):
    """Left: clusters per number of votes (``votes``), bars of K votes or more kept; right: the
    clusters of each kind, to adjudicate and not unanimous. Each bar's count is written above it,
    in a group with the id ``votes-<votes>`` or ``kind-<key>``."""
    figure = new_figure(8.0, 3.4)
    votes_axes, kinds_axes = figure.subplots(1, 2)
    k = document["min_votes"]  # null: merge --documents present, K a majority of each document's annotators
    histogram = {int(v): n for v, n in document["votes"].items()}
    for v, n in histogram.items():
        votes_axes.bar(v, n, color="tab:green" if k is not None and v >= k else "tab:grey")
        votes_axes.text(v, n, str(n), ha="center", va="bottom", fontsize=7, gid=f"votes-{v}")
    votes_axes.set_xticks(range(1, len(document["annotators"]) + 1))
    if k is not None:
        votes_axes.axvline(k - 0.5, color="black", linestyle="--", linewidth=0.8)
        votes_axes.set_xlabel(f"votes (K = {k}: kept from the dashed line on)")
    else:
        votes_axes.set_xlabel("votes (K: a majority of the annotators who have the document)")
    votes_axes.set_ylabel("clusters")
    votes_axes.set_title("clusters by votes")
    keys = [*kinds, "to_adjudicate", "not_unanimous"]
    for n, key in enumerate(keys):
        kinds_axes.bar(n, document[key], color="tab:orange" if key in kinds else "tab:blue")
        kinds_axes.text(n, document[key], str(document[key]), ha="center", va="bottom", fontsize=7, gid=f"kind-{key}")
    kinds_axes.set_xticks(range(len(keys)), [key.replace("_", " ") for key in keys], rotation=30, ha="right")
    kinds_axes.set_title(f"{document['clusters']} clusters, {document['kept']} kept")
    return figure


def write_figures(figures: dict, directory, *, force: bool = False) -> list[str]:
    """Every figure as ``<stem>.png`` and ``<stem>.svg`` in ``directory``, written atomically (the
    folder appears whole or not at all)."""
    import matplotlib

    from ..outputs import write_atomically

    names = [f"{stem}.{ext}" for stem in figures for ext in ("png", "svg")]

    def produce(temporary: Path) -> None:
        temporary.mkdir()
        with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "spanagree"}):
            for stem, figure in figures.items():
                figure.savefig(temporary / f"{stem}.png", dpi=150, metadata={"Software": None})
                figure.savefig(temporary / f"{stem}.svg", metadata={"Date": None, "Creator": None})

    write_atomically(directory, produce, force=force, what="plots folder", folder=True)
    return names


def safe_stem(name: str) -> str:
    """A name as a file stem (letters, digits, ``-``, ``_``, ``.``)."""
    return re.sub(r"[^\w.-]+", "_", name)
