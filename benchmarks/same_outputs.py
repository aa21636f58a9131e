"""Do two versions of spanagree write the same bytes? Every output of a matrix of commands on the
demo corpus, compared file by file.

    python benchmarks/same_outputs.py --base OLD_CHECKOUT --head NEW_CHECKOUT [--out DIR]

Each checkout's ``spanagree`` runs (its command line, with the checkout first on ``PYTHONPATH``) the same commands — ``agree``, ``score``, ``merge`` and ``convert`` on the demo's
JSONL, CoNLL, BRAT and XML copies, with table, JSON and CSV outputs, listings (CSV and JSON),
reports, merged golds in four formats, adjudication listings, the bootstrap, ``--compare``,
``--chance``, ``--unitizing`` and ``--jobs 2`` — and every file each writes (standard output and
error, exit status, outputs) is compared. The version string is masked. A report's embedded
blocks are compared one by one, so that a block only the newer version writes is named as added
rather than as a difference. Exit status 1 when any file differs.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

DEMO = Path(__file__).resolve().parent.parent / "corpora" / "demo"
FORMATS = {
    "jsonl": [DEMO / "jsonl" / f"ann{n}.jsonl" for n in (1, 2, 3)],
    "conll": [DEMO / "conll" / f"ann{n}.conll" for n in (1, 2, 3)],
    "brat": [DEMO / "brat" / f"ann{n}" for n in (1, 2, 3)],
    "xml": [DEMO / "xml" / f"ann{n}.xml" for n in (1, 2, 3)],
}
VERSION = re.compile(rb"spanagree[\"':\s]+\d+\.\d+\.\d+[^\"'\s,]*")
RUN = "import sys; from spanagree.cli import main; sys.exit(main())"
BLOCK = re.compile(rb'<script[^>]*id="([^"]+)"[^>]*>(.*?)</script>', re.S)


def commands(fmt: str, n: int) -> list[list[str]]:
    """The matrix for one format (``n`` numbers its output files)."""
    a, b, c = map(str, FORMATS[fmt])
    runs = []
    for output in ("table", "json", "csv"):
        runs += [["agree", a, b, c, "--output", output],
                 ["agree", a, b, c, "--output", output, "--match", "overlap", "--by", "label"],
                 ["agree", a, b, c, "--output", output, "--match", "partial", "--labels", "ignore", "--by", "document"],
                 ["score", a, b, "--output", output, "--by", "label"],
                 ["score", a, b, c, "--output", output, "--match", "overlap"],
                 ["merge", a, b, c, "--output", output, "--to", "jsonl", "--out", f"m{n}-{output}.jsonl"]]
    runs += [
        ["agree", a, b, c, "--output", "json", "--errors", f"e{n}.csv", "--report", f"rep{n}.html", "--chance",
         "--bootstrap", "200", "--seed", "1", "--unitizing"],
        ["agree", a, b, c, "--output", "json", "--errors", f"e{n}.json", "--compare", "--resamples", "500", "--seed", "2"],
        ["score", a, b, c, "--output", "json", "--errors", f"s{n}.json", "--chance", "--compare", "--resamples", "300",
         "--seed", "3", "--report", f"srep{n}.html"],
        ["score", a, b, "--output", "json", "--errors", f"s{n}.csv", "--jobs", "2", "--match", "overlap"],
        ["merge", a, b, c, "--output", "json", "--to", "brat", "--out", f"mb{n}", "--adjudicate", f"adj{n}.csv",
         "--adjudicate-all", f"adja{n}.json", "--report", f"mrep{n}.html"],
        ["merge", a, b, c, "--output", "json", "--to", "conll", "--out", f"mc{n}.conll", "--min-votes", "1",
         "--match", "overlap"],
        ["merge", a, b, c, "--output", "json", "--to", "xml", "--out", f"mx{n}.xml", "--labels", "ignore",
         "--documents", "present"],
        ["convert", a, "--to", "jsonl", "--out", f"cv{n}.jsonl"],
        ["agree", a, b, c, "--output", "json", "--documents", "pairwise", "--jobs", "2"],
    ]
    return runs


def run_matrix(checkout: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    number = 0
    for n, fmt in enumerate(FORMATS):
        for argv in commands(fmt, n):
            number += 1
            done = subprocess.run([sys.executable, "-c", RUN, *argv], cwd=out, env=env, capture_output=True)
            stem = out / f"{number:03d}"
            stem.with_suffix(".stdout").write_bytes(done.stdout)
            stem.with_suffix(".stderr").write_bytes(done.stderr)
            stem.with_suffix(".rc").write_text(f"{done.returncode}\n")


def files(top: Path) -> dict[str, bytes]:
    return {str(p.relative_to(top)): VERSION.sub(b"spanagree VERSION", p.read_bytes())
            for p in sorted(top.rglob("*")) if p.is_file()}


def compare(base: Path, head: Path) -> list[str]:
    """What differs, one line per file (empty: the same bytes)."""
    old, new = files(base), files(head)
    found = [f"only in base: {name}" for name in old if name not in new]
    found += [f"only in head: {name}" for name in new if name not in old]
    for name in old.keys() & new.keys():
        if old[name] == new[name]:
            continue
        if name.endswith(".html"):
            blocks = dict(BLOCK.findall(old[name])), dict(BLOCK.findall(new[name]))
            changed = [k.decode() for k in blocks[0] if blocks[1].get(k) != blocks[0][k]]
            added = [k.decode() for k in blocks[1] if k not in blocks[0]]
            found.append(f"{name}: embedded blocks changed {changed or 'none'}, added {added or 'none'} "
                         "(the page's markup and script differ)")
        else:
            found.append(f"differs: {name}")
    return sorted(found)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="the older checkout (its top folder)")
    parser.add_argument("--head", type=Path, required=True, help="the newer checkout")
    parser.add_argument("--out", type=Path, help="where the outputs are kept (default: a temporary folder)")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="same-outputs-"))
    run_matrix(args.base.resolve(), out / "base")
    run_matrix(args.head.resolve(), out / "head")
    found = compare(out / "base", out / "head")
    total = len(files(out / "base"))
    print(f"{total} files compared ({out}): {total - len(found)} the same byte for byte")
    print("\n".join(found))
    return 1 if any(not line.endswith("(the page's markup and script differ)") or "changed none" not in line
                    for line in found) else 0


if __name__ == "__main__":
    sys.exit(main())
