"""spanagree's strict counts on the HIPE-2022 evaluation data, next to the official scorer's.

For every run submitted for named-entity recognition (bundles 1 to 4, the NE-COARSE-LIT column),
``spanagree score GOLD RUN --conll-column NE-COARSE-LIT --output json`` (strict, default optimal
pairing) is set beside the strict micro TP/FP/FN of the HIPE scorer's ``nerc_coarse`` evaluation
(its ``*_nerc_coarse.tsv``, row ``NE-COARSE-LIT-micro-strict-TIME-ALL-LED-ALL``, label ``ALL``).
The official figures are read from a folder of those files: run the HIPE scorer
(``clef_evaluation.py --task nerc_coarse --ref GOLD --pred RUN --outdir OFFICIAL --tagset
tagset-hipe2022-all.txt --hipe_edition hipe-2022``) on each run first, in an environment of its own.

Usage::

    python benchmarks/hipe2022.py --data HIPE-2022-eval --official OFFICIAL [--markdown]

``--data`` is a copy of the public HIPE-2022-eval repository (its gold under
``HIPE-2022-data-provisional/data/v2.1``, the runs under ``evaluation/system-responses/submitted``).
Prints one row per run and the number of runs whose three counts equal the official ones.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import subprocess
import sys
from pathlib import Path

STRICT = "NE-COARSE-LIT-micro-strict-TIME-ALL-LED-ALL"


def official_counts(path: Path) -> tuple[int, int, int] | None:
    """The official strict micro TP, FP, FN of one run, or ``None`` when the scorer left no file."""
    if not path.exists():
        return None
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if row["Evaluation"] == STRICT and row["Label"] == "ALL":
                return int(row["TP"]), int(row["FP"]), int(row["FN"])
    return None


def spanagree_counts(gold: Path, run: Path) -> tuple[tuple[int, int, int] | None, str]:
    """spanagree's a, b, c for one run, and its notes (or the error it stopped at)."""
    done = subprocess.run([sys.executable, "-c", "import sys; from spanagree.cli import main; sys.exit(main())", "score", str(gold), str(run), "--format", "conll",
                           "--conll-column", "NE-COARSE-LIT", "--output", "json"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        return None, done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"
    result = json.loads(done.stdout)
    return (int(result["a"]), int(result["b"]), int(result["c"])), "; ".join(result["notes"])


def brief(note: str) -> str:
    """A run's notes in a few words: cut along the gold's documents, tokens written otherwise, no
    label shared with the gold."""
    said = []
    cut = re.search(r"its (\d+) document\(s\) were cut along the gold's (\d+)", note)
    if cut:
        said.append(f"{cut[1]} document(s) cut along the gold's {cut[2]}")
    otherwise = re.search(r"(\d+) token\(s\) written otherwise", note)
    if otherwise:
        said.append(f"{otherwise[1]} token(s) written otherwise")
    if "share no label" in note:
        said.append("no label shared with the gold")
    return "; ".join(said) or note[:80]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a copy of HIPE-2022-eval")
    parser.add_argument("--official", type=Path, required=True, help="the HIPE scorer's *_nerc_coarse.tsv files")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args(argv)
    gold_folder = args.data / "HIPE-2022-data-provisional" / "data" / "v2.1"
    runs = sorted(p for p in (args.data / "evaluation" / "system-responses" / "submitted").glob("*_bundle[1234]_*.tsv"))
    equal = compared = 0
    if args.markdown:
        print("| run | official TP FP FN | spanagree a b c | equal | note |")
        print("| --- | --- | --- | --- | --- |")
    for run in runs:
        team, bundle, dataset, language, number = run.stem.split("_")
        gold = gold_folder / f"HIPE-2022-v2.1-{dataset}-test-{language}.tsv"
        official = official_counts(args.official / f"{run.stem}_nerc_coarse.tsv")
        ours, note = spanagree_counts(gold, run)
        same = official is not None and ours == official
        compared += official is not None
        equal += same
        shown = [" ".join(map(str, c)) if c else "-" for c in (official, ours)]
        note = note.replace(f"{run.stem}: ", "").replace("|", "/")
        if args.markdown:
            print(f"| {run.stem} | {shown[0]} | {shown[1]} | {'yes' if same else 'no'} | {brief(note)} |")
        else:
            print(f"{run.stem}\t{shown[0]}\t{shown[1]}\t{'equal' if same else 'DIFFERENT'}\t{note}")
    print(f"\n{equal} of {compared} runs give the official strict TP/FP/FN ({len(runs)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
