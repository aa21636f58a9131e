"""spanagree's counts on the HIPE-2022 evaluation data, read as published, next to the official scorer's.

For every submitted run (bundles 1 to 5, the NE-COARSE-LIT column), spanagree reads the gold and
the run with its own CoNLL reader and is run three ways:

* ``spanagree score GOLD RUN --format conll --conll-column NE-COARSE-LIT`` (strict, the default
  optimal pairing): overall;
* the same with ``--pairing hipe --by label`` (the scorer's strict regime): overall and per label;
* the same with ``--match overlap --pairing hipe --by label`` (its fuzzy regime): overall and per
  label;

each set beside the micro TP/FP/FN of the HIPE scorer's ``nerc_coarse`` evaluation (its
``*_nerc_coarse.tsv``, rows ``NE-COARSE-LIT-micro-strict-TIME-ALL-LED-ALL`` and
``NE-COARSE-LIT-micro-fuzzy-TIME-ALL-LED-ALL``, label ``ALL`` and one row per type). The
official figures are read from a folder of those files: run the HIPE scorer
(``clef_evaluation.py --task nerc_coarse --ref GOLD --pred RUN --outdir OFFICIAL --tagset
tagset-hipe2022-all.txt --hipe_edition hipe-2022``) on each run first, in an environment of its own.
The scorer writes its types in capitals; a type is compared with spanagree's label of the same
name in capitals (a label absent on one side counts 0 0 0). A run that shares no label with the
gold but spells them in another case (``LOC`` for ``loc``) is scored once more, each of its
labels mapped onto the gold's spelling (``--map LOC=loc,...``), and listed apart.

Usage::

    python benchmarks/hipe2022.py --data HIPE-2022-eval --official OFFICIAL [--markdown]

``--data`` is a copy of the public HIPE-2022-eval repository (its gold under
``HIPE-2022-data-provisional/data/v2.1``, the runs under ``evaluation/system-responses/submitted``).
Prints one row per run (official and spanagree counts of each comparison, which agree) and, at
the end, how many runs agree on each.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import subprocess
import sys
from pathlib import Path

#: The scorer's rows for the two regimes.
ROWS = {"strict": "NE-COARSE-LIT-micro-strict-TIME-ALL-LED-ALL",
        "fuzzy": "NE-COARSE-LIT-micro-fuzzy-TIME-ALL-LED-ALL"}

#: The comparisons: name → (the official regime, spanagree's options, whether per label).
COMPARISONS = {
    "strict": ("strict", [], False),
    "strict hipe": ("strict", ["--pairing", "hipe", "--by", "label"], False),
    "strict hipe per label": ("strict", ["--pairing", "hipe", "--by", "label"], True),
    "fuzzy hipe": ("fuzzy", ["--match", "overlap", "--pairing", "hipe", "--by", "label"], False),
    "fuzzy hipe per label": ("fuzzy", ["--match", "overlap", "--pairing", "hipe", "--by", "label"], True),
}

Counts = tuple[int, int, int]


def official_counts(path: Path) -> dict[str, dict[str, Counts]] | None:
    """The official micro TP, FP, FN of one run, by regime (``strict``, ``fuzzy``) and type
    (``ALL`` and each type, in capitals), or ``None`` when the scorer left no file."""
    if not path.exists():
        return None
    counts: dict[str, dict[str, Counts]] = {regime: {} for regime in ROWS}
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            for regime, evaluation in ROWS.items():
                if row["Evaluation"] == evaluation:
                    counts[regime][row["Label"]] = (int(row["TP"]), int(row["FP"]), int(row["FN"]))
    return counts


def spanagree_counts(gold: Path, run: Path, options: list[str]) -> tuple[dict[str, Counts] | None, str, dict]:
    """spanagree's a, b, c for one run (``ALL``, and each label in capitals under ``--by label``),
    its notes (or the error it stopped at), and the labels as written of each side (``gold``,
    ``run``: those with spans)."""
    done = subprocess.run([sys.executable, "-c", "import sys; from spanagree.cli import main; sys.exit(main())",
                           "score", str(gold), str(run), "--format", "conll", "--conll-column", "NE-COARSE-LIT",
                           *options, "--output", "json"], capture_output=True, text=True)
    if done.returncode != 0:
        return None, done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}", {}
    result = json.loads(done.stdout)
    by_label = result.get("by_label") or {}
    sides = {"gold": [label for label, f in by_label.items() if f["a"] + f["c"]],
             "run": [label for label, f in by_label.items() if f["a"] + f["b"]]}
    counts = {"ALL": (int(result["a"]), int(result["b"]), int(result["c"]))}
    for label, figures in (result.get("by_label") or {}).items():
        key = label.upper()
        if key in counts:  # two labels that differ only in case: kept apart, never summed
            key = f"{key} ({label})"
        counts[key] = (int(figures["a"]), int(figures["b"]), int(figures["c"]))
    return counts, "; ".join(result["notes"]), sides


def case_map(sides: dict) -> list[str]:
    """``--map`` of each run label onto the gold's label spelled the same but for case, for a run
    that shares no label with the gold (``[]`` otherwise, or when no label maps)."""
    gold, run = sides.get("gold", []), sides.get("run", [])
    if not gold or set(gold) & set(run):
        return []
    spelled = {label.upper(): label for label in gold}
    pairs = [f"{label}={spelled[label.upper()]}" for label in run if label.upper() in spelled]
    return ["--map", ",".join(pairs)] if pairs else []


def per_label_differences(official: dict[str, Counts], ours: dict[str, Counts]) -> list[str]:
    """The types whose counts differ, as ``TYPE official/ours`` (a type missing on a side: 0 0 0)."""
    differ = []
    for label in sorted((set(official) | set(ours)) - {"ALL"}):
        theirs, mine = official.get(label, (0, 0, 0)), ours.get(label, (0, 0, 0))
        if theirs != mine:
            differ.append(f"{label} {' '.join(map(str, theirs))}/{' '.join(map(str, mine))}")
    return differ


def brief(note: str) -> str:
    """A run's notes in a few words: cut along the gold's documents, tokens written otherwise,
    rows whose token holds a ``#`` left out and spans not equal for a token written otherwise
    (``--pairing hipe``), no label shared with the gold."""
    said = []
    cut = re.search(r"its (\d+) document\(s\) were cut along the gold's (\d+)", note)
    if cut:
        said.append(f"{cut[1]} document(s) cut along the gold's {cut[2]}")
    otherwise = re.search(r"(\d+) token\(s\) written otherwise", note)
    if otherwise:
        said.append(f"{otherwise[1]} token(s) written otherwise")
    hashed = re.findall(r"(\d+) row\(s\) whose token holds a '#' left out", note)
    if hashed:
        said.append(f"hipe: {' and '.join(dict.fromkeys(hashed))} '#' row(s) left out of gold and run")
    unequal = re.search(r"(\d+) span\(s\) with a gold span's fragments and label cover a token written otherwise",
                        note)
    if unequal:
        said.append(f"hipe: {unequal[1]} span(s) written_otherwise")
    if "share no label" in note:
        said.append("no label shared with the gold")
    return "; ".join(said) or note[:80]


def shown(counts: Counts | None) -> str:
    return " ".join(map(str, counts)) if counts else "-"


def compare_run(gold: Path, run: Path, official: dict | None, extra: list[str] = ()) -> dict:
    """One run's comparisons (each with the options ``extra`` too): for each of
    :data:`COMPARISONS`, whether spanagree's counts are the official ones, and the differing
    types; the counts of each regime; spanagree's notes (every comparison's, once); the labels of
    each side."""
    outputs = {}
    row = {"run": run.stem, "official": official, "agree": {}, "differ": {}, "ours": {}, "note": "", "sides": {}}
    notes: list[str] = []
    for name, (regime, options, per_label) in COMPARISONS.items():
        key = tuple(options)
        if key not in outputs:
            outputs[key] = spanagree_counts(gold, run, [*options, *extra])
        ours, note, sides = outputs[key]
        row["sides"] = row["sides"] or sides
        notes += [n for n in note.replace(f"{run.stem}: ", "").split("; ") if n and n not in notes]
        row["note"] = "; ".join(notes)
        row["ours"][name] = ours
        if official is None or ours is None:
            row["agree"][name] = None
            continue
        if per_label:
            differ = per_label_differences(official[regime], ours)
            row["differ"][name] = differ
            row["agree"][name] = not differ
        else:
            row["agree"][name] = ours["ALL"] == official[regime].get("ALL")
    return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a copy of HIPE-2022-eval")
    parser.add_argument("--official", type=Path, required=True, help="the HIPE scorer's *_nerc_coarse.tsv files")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    parser.add_argument("--json", type=Path, help="also write every row as JSON to this file")
    args = parser.parse_args(argv)
    gold_folder = args.data / "HIPE-2022-data-provisional" / "data" / "v2.1"
    runs = sorted((args.data / "evaluation" / "system-responses" / "submitted").glob("*_bundle[0-9]_*.tsv"))
    rows = []
    if args.markdown:
        print("| run | strict: official / spanagree | = | `--pairing hipe` = | per label = "
              "| fuzzy: official / `--pairing hipe` | = | per label = | note |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for run in runs:
        team, bundle, dataset, language, number = run.stem.split("_")
        gold = gold_folder / f"HIPE-2022-v2.1-{dataset}-test-{language}.tsv"
        official = official_counts(args.official / f"{run.stem}_nerc_coarse.tsv")
        row = compare_run(gold, run, official)
        mapping = case_map(row["sides"]) if official is not None else []
        if mapping:  # labels spelled in another case: scored again, mapped onto the gold's spelling
            row["mapped"] = compare_run(gold, run, official, mapping)
            row["mapped"]["map"] = mapping[1]
        rows.append(row)
        marks = {name: {True: "yes", False: "no", None: "-"}[agree] for name, agree in row["agree"].items()}
        strict = shown(official["strict"].get("ALL") if official else None)
        fuzzy = shown(official["fuzzy"].get("ALL") if official else None)
        ours = {name: shown(counts["ALL"] if counts else None) for name, counts in row["ours"].items()}
        note = row["note"].replace("|", "/")
        if args.markdown:
            print(f"| {run.stem} | {strict} / {ours['strict']} | {marks['strict']} | {marks['strict hipe']} "
                  f"| {marks['strict hipe per label']} | {fuzzy} / {ours['fuzzy hipe']} | {marks['fuzzy hipe']} "
                  f"| {marks['fuzzy hipe per label']} | {brief(note)} |")
        else:
            differ = "; ".join(f"{name}: {', '.join(types)}" for name, types in row["differ"].items() if types)
            print("\t".join([run.stem, strict, ours["strict"], ours["strict hipe"], fuzzy, ours["fuzzy hipe"],
                             " ".join(marks.values()), differ, note]))
    mapped = [row["mapped"] for row in rows if "mapped" in row]
    if mapped and args.markdown:
        print("\nRuns that spell the gold's labels in another case, scored with `--map` onto the gold's spelling:\n")
        print("| run | `--map` | strict: official / spanagree | = | `--pairing hipe` = | per label = "
              "| fuzzy: official / `--pairing hipe` | = | per label = |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for row in mapped:
            marks = {name: {True: "yes", False: "no", None: "-"}[agree] for name, agree in row["agree"].items()}
            ours = {name: shown(counts["ALL"] if counts else None) for name, counts in row["ours"].items()}
            print(f"| {row['run']} | `{row['map']}` | {shown(row['official']['strict'].get('ALL'))} / {ours['strict']} "
                  f"| {marks['strict']} | {marks['strict hipe']} | {marks['strict hipe per label']} "
                  f"| {shown(row['official']['fuzzy'].get('ALL'))} / {ours['fuzzy hipe']} | {marks['fuzzy hipe']} "
                  f"| {marks['fuzzy hipe per label']} |")
    compared = [row for row in rows if row["official"] is not None]
    spelled = [row for row in compared if "mapped" not in row]
    print(f"\n{len(runs)} runs, {len(compared)} with the official figures, {len(spelled)} of them with the gold's "
          "labels as spelled; runs whose counts are the official ones:")
    for name in COMPARISONS:
        print(f"- {name}: {sum(bool(row['agree'][name]) for row in compared)} of {len(compared)}; "
              f"{sum(bool(row['agree'][name]) for row in spelled)} of {len(spelled)} spelled as the gold's; "
              f"{sum(bool(row['agree'][name]) for row in mapped)} of {len(mapped)} others with --map")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
