"""``agree --gamma`` against pygamma-agreement 0.5.9 (the benchmark's γ rows).

Times whole processes on the same units: pygamma-agreement (``peers/pygamma_gamma.py``: a
Python process that imports it, reads the CSV and computes γ with 30 samples after
``numpy.random.seed``) and ``spanagree agree --gamma --seed S --output json`` on the same units
written as JSONL (one file per annotator, one document). The continua: pygamma-agreement's
own test continua ``3by100`` and ``2by1000`` (``tests/data/gamma``) and one generated document
of 2 × 5,000 spans. The observed disorder and the number of unitary alignments must be equal
(both are deterministic), and so are the expected disorders (spanagree draws pygamma's samples
for the same seed); the target is 20× faster on ``3by100`` and ``2by1000``. Both wall time and
processor time (user + system of the child and what it waited for) are reported: pygamma's
solver runs in its process, so on a machine shared with other work the processor time is the
steadier figure.

:func:`gamma_rows` runs the measurements, :func:`gamma_markdown` renders them; ``run.py`` calls
both (``python benchmarks/run.py --gamma-only --gamma-python PY --out DIR`` measures the γ rows
alone and prints their section).
"""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONTINUA = HERE.parent / "tests" / "data" / "gamma"
SEED = 4772
ALPHA, BETA, DELTA_EMPTY = 3.0, 1.0, 1.0  # pygamma's own tests' dissimilarity
TARGET = 20.0


def generated_continuum(path: Path, spans: int = 5000, seed: int = 29) -> None:
    """One document of two annotators with ``spans`` units each: the second moves some
    boundaries of the first, relabels some units, drops some and adds others."""
    rng = random.Random(seed)
    labels = ["Adj", "Noun", "Prep", "Verb"]
    rows, position = [], 0
    for _ in range(spans):
        position += rng.randint(2, 12)
        length = rng.randint(2, 15)
        label = rng.choice(labels)
        rows.append(("annotator_1", label, position, position + length))
        kind = rng.random()
        if kind < 0.08:  # dropped by the second, who marks something else nearby
            rows.append(("annotator_2", rng.choice(labels), position + length + 1, position + length + 4))
        else:
            start = max(0, position + (rng.randint(-2, 2) if kind < 0.4 else 0))
            end = max(start + 1, position + length + (rng.randint(-2, 2) if kind < 0.5 else 0))
            rows.append(("annotator_2", rng.choice(labels) if kind > 0.9 else label, start, end))
        position += length
    with open(path, "w", newline="") as handle:
        csv.writer(handle).writerows(rows)


def jsonl_of(csv_path: Path, folder: Path) -> list[Path]:
    """The continuum's units as JSONL, one file per annotator, one document (its text blank)."""
    units: dict[str, list] = {}
    with open(csv_path, newline="") as handle:
        for annotator, label, start, end in csv.reader(handle):
            units.setdefault(annotator, []).append({"start": int(float(start)), "end": int(float(end)),
                                                    "label": label})
    length = max(span["end"] for spans in units.values() for span in spans)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for annotator, spans in sorted(units.items()):
        path = folder / f"{annotator}.jsonl"
        path.write_text(json.dumps({"id": csv_path.stem, "text": " " * length, "spans": spans}) + "\n")
        paths.append(path)
    return paths


def last_json(stdout: str) -> dict:
    """The JSON line a peer printed last (GLPK writes its log to the same stdout on some runs)."""
    for line in reversed(stdout.splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                return {}
    return {}


def gamma_rows(sa: list, gamma_python: str | None, out: Path, measure, *, repeat: int, log, quick: bool) -> list[dict]:
    """Per continuum: both timings, both figures and whether they agree. ``measure`` is
    run.py's (whole processes, minimum wall time)."""
    folder = out / "gamma"
    folder.mkdir(parents=True, exist_ok=True)
    generated = folder / "2by5000.csv"
    if not generated.exists():
        generated_continuum(generated)
    continua = [CONTINUA / "3by100.csv", CONTINUA / "2by1000.csv"] + ([] if quick else [generated])
    rows = []
    for path in continua:
        name = path.stem
        files = jsonl_of(path, folder / name)
        ours = measure(f"spanagree gamma {name}", sa + ["agree", *files, "--gamma", "--gamma-alpha", str(ALPHA),
                                                         "--gamma-beta", str(BETA), "--gamma-delta-empty",
                                                         str(DELTA_EMPTY), "--seed", str(SEED), "--output", "json"],
                       repeat=repeat, log=log)
        theirs = measure(f"pygamma {name}", [gamma_python, HERE / "peers" / "pygamma_gamma.py", path, str(SEED),
                                             str(ALPHA), str(BETA), str(DELTA_EMPTY)],
                         repeat=1 if name == "2by5000" else min(repeat, 2), timeout=3600,
                         available=bool(gamma_python) and Path(gamma_python).exists(), log=log)
        mine = (ours.json() or {}).get("gamma") or {}
        peer = last_json(theirs.stdout) if theirs.ok else {}
        rows.append({
            "continuum": name, "units": mine.get("units"), "spanagree": ours.as_dict(), "pygamma": theirs.as_dict(),
            "figures": {"spanagree": {k: mine.get(k) for k in ("disorder", "alignments", "expected_disorder", "gamma",
                                                               "gamma_cat")},
                        "pygamma": peer},
            "same_alignment": bool(peer) and mine.get("disorder") == peer.get("disorder")
            and mine.get("alignments") == peer.get("alignments"),
            "same_samples": bool(peer) and mine.get("expected_disorder") == peer.get("expected_disorder"),
            "speedup": (theirs.seconds / ours.seconds) if ours.ok and theirs.ok else None,
            "speedup_cpu": (theirs.cpu_seconds / ours.cpu_seconds) if ours.ok and theirs.ok and ours.cpu_seconds
            else None,
        })
    return rows


def gamma_markdown(rows: list[dict] | None) -> list[str]:
    """The benchmark's γ section (markdown lines)."""
    if not rows:
        return []
    lines = ["## Gamma agreement: `agree --gamma` against pygamma-agreement 0.5.9\n",
             f"Whole processes, same units, 30 samples after seed {SEED}, α = {ALPHA:g}, β = {BETA:g}, "
             f"δ∅ = {DELTA_EMPTY:g} (pygamma's own tests' settings; pygamma solves with cvxpy and GLPK). "
             f"Target: {TARGET:g}× faster on 3by100 and 2by1000.\n",
             "Wall: the least of the runs' wall times; CPU: the least of their processor times (user + system).\n",
             "| continuum | units | spanagree wall / CPU (s) | pygamma wall / CPU (s) | speed-up wall / CPU "
             "| disorder | alignments | expected disorder | γ spanagree | γ pygamma |",
             "|---|---:|---:|---:|---:|---|---|---|---:|---:|"]
    for row in rows:
        ours, theirs = row["spanagree"], row["pygamma"]
        mine, peer = row["figures"]["spanagree"], row["figures"]["pygamma"]

        def seconds(run):
            if run["seconds"] is None:
                return run["error"]
            cpu = run.get("cpu_seconds")
            return f"{run['seconds']:.2f} / {cpu:.2f}" if cpu is not None else f"{run['seconds']:.2f} / n/a"

        def figure(value):
            return "n/a" if value is None else f"{value:.6f}"

        def times(ratio):
            return f"{ratio:.0f}×" if ratio else "n/a"

        same = "equal" if row["same_alignment"] else ("differ" if peer else "n/a")
        lines.append(f"| {row['continuum']} | {row['units'] or 'n/a'} | {seconds(ours)} | {seconds(theirs)} "
                     f"| {times(row['speedup'])} / {times(row.get('speedup_cpu'))} "
                     f"| {figure(mine.get('disorder'))} ({same}) | {mine.get('alignments')} | "
                     f"{figure(mine.get('expected_disorder'))} "
                     f"({'equal' if row['same_samples'] else ('differ' if peer else 'n/a')}) "
                     f"| {figure(mine.get('gamma'))} | {figure(peer.get('gamma'))} |")
    lines.append("")
    return lines
