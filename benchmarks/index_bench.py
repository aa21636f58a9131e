"""Candidate pairs: ``intervaltree`` against the sorted sweep (issue 6, item 2).

Times the real candidate finders of :mod:`spanagree.match` — ``CANDIDATE_INDEXES["sweep"]``
(:func:`~spanagree.match.sweep_candidates`) and ``CANDIDATE_INDEXES["intervaltree"]``
(:func:`~spanagree.match.intervaltree_candidates`: one ``IntervalTree`` per document, built over
one side and queried with the other) — and the whole matcher (``align(..., index=...)`` under
``overlap``/``strict``, and ``exact``, whose hash join needs no index) on

* every document of a corpus (many short documents: the benchmark's main corpus), and
* single long documents (``long-S`` corpora of ``generate.py --long S``), when present.

Spans are read with spanagree's JSONL reader (reading is not timed). Every finder must return the
same pairs on every document (checked). Times are the minimum of ``--repeat`` passes, in seconds
and in microseconds per span (both sides' spans).

Usage::

    python benchmarks/index_bench.py --corpus /tmp/spanagree-bench/docs-10000/jsonl \\
        [--long /tmp/spanagree-bench/long-10000/jsonl ...] [--markdown]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from importlib.metadata import version
from pathlib import Path

from spanagree.formats import read
from spanagree.match import CANDIDATE_INDEXES, MatchRule, align


def load(folder: Path) -> list[tuple[list, list]]:
    """``(first spans, second spans)`` of every document both annotators have."""
    gc.disable()
    try:
        first, second = read(folder / "ann1.jsonl"), read(folder / "ann2.jsonl")
    finally:
        gc.enable()
    return [(first.documents[d].spans, second.documents[d].spans) for d in first.documents if d in second.documents]


def best_of(repeat: int, function) -> tuple[float, object]:
    best, result = None, None
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = function()
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best, result


def measure(documents, repeat: int) -> dict:
    """Seconds of each finder and of the matcher over ``documents``; checks the finders agree."""
    spans = sum(len(a) + len(b) for a, b in documents)
    found = {}
    seconds = {}
    for name, finder in CANDIDATE_INDEXES.items():
        seconds[f"candidates: {name}"], found[name] = best_of(repeat, lambda f=finder: [f(a, b) for a, b in documents])
    reference = found["sweep"]
    mismatches = {name: sum(1 for x, y in zip(pairs, reference) if x != y) for name, pairs in found.items()}
    overlap = MatchRule("overlap", "strict")
    for name in CANDIDATE_INDEXES:
        seconds[f"align overlap/strict, index={name}"], _ = best_of(
            repeat, lambda n=name: [align(a, b, overlap, index=n) for a, b in documents])
    seconds["align exact/strict (hash join, no index)"], _ = best_of(
        repeat, lambda: [align(a, b, MatchRule()) for a, b in documents])
    return {"documents": len(documents), "spans": spans, "pairs": sum(map(len, reference)),
            "seconds": seconds, "mismatched_documents": mismatches}


def markdown(title: str, result: dict) -> str:
    lines = [f"**{title}**: {result['documents']:,} document(s), {result['spans']:,} spans, "
             f"{result['pairs']:,} candidate pairs (hulls intersecting).", "",
             "| method | seconds | µs per span |", "|---|---:|---:|"]
    for name, t in result["seconds"].items():
        lines.append(f"| {name} | {t:.3f} | {1e6 * t / max(result['spans'], 1):.2f} |")
    s = result["seconds"]
    lines += ["", f"Same pairs from both finders on every document: "
              f"**{'yes' if not any(result['mismatched_documents'].values()) else 'NO'}**. "
              f"Sweep / intervaltree: candidates **{s['candidates: intervaltree'] / s['candidates: sweep']:.1f}×** "
              f"faster; whole matcher (overlap/strict) **"
              f"{s['align overlap/strict, index=intervaltree'] / s['align overlap/strict, index=sweep']:.1f}×** "
              "faster.", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", type=Path, default=Path("/tmp/spanagree-bench/docs-10000/jsonl"),
                   help="folder with ann1.jsonl and ann2.jsonl (many documents)")
    p.add_argument("--long", type=Path, action="append", default=[],
                   help="folder with ann1.jsonl and ann2.jsonl holding one long document (repeatable)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--markdown", action="store_true", help="print a RESULTS.md section")
    args = p.parse_args(argv)
    results = [(f"{args.corpus}", measure(load(args.corpus), args.repeat))]
    for folder in args.long:
        if (folder / "ann1.jsonl").exists():
            results.append((f"{folder}", measure(load(folder), args.repeat)))
    bad = any(any(r["mismatched_documents"].values()) for _, r in results)
    if args.markdown:
        print("## Candidate pairs: intervaltree vs sorted sweep (`benchmarks/index_bench.py`)\n")
        print(f"The real finders of `spanagree.match.CANDIDATE_INDEXES` (intervaltree {version('intervaltree')}), "
              f"in-process, reading excluded, minimum of {args.repeat} passes.\n")
        for title, result in results:
            print(markdown(title, result))
    else:
        for title, result in results:
            print(title, result)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
