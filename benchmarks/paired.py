"""Is one spanagree tree slower than another? Paired, interleaved timings of the same commands.

``benchmarks/run.py`` times spanagree against its peers in one run; comparing two of its runs
taken at different times compares two machines' loads as much as two trees. This script runs
each command with the base tree and with the head tree in turn (``base, head, head, base, ...``),
``--rounds`` times, in fresh processes (the ``spanagree`` command with ``PYTHONPATH`` set to the
tree), and reports per command the median CPU time (user + system of the child, from
``wait4``) and wall time of each tree and their ratio head / base. CPU time is what a
shared machine disturbs least; the interleaving spreads the rest of the load over both trees.

    python benchmarks/paired.py --base /path/to/old/checkout --head . --corpus /tmp/spanagree-bench

The corpora are ``benchmarks/generate.py``'s (``--docs 10000`` and ``--short --docs 10000``):
they are made when missing.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


#: The ``spanagree`` command as its console script runs it (0.5's entry point, else 0.4's).
ENTRY_POINT = """import sys
try:
    from spanagree.console import main
except ImportError:
    from spanagree.cli import main
sys.argv[0] = "spanagree"
sys.exit(main())
"""


def commands(corpus: Path) -> list[tuple[str, list[str]]]:
    """The timed command lines (arguments after ``python -m spanagree``), by name."""
    main, short = corpus / "docs-10000", corpus / "short-10000"
    return [
        ("agree BRAT", ["agree", str(main / "brat" / "ann1"), str(main / "brat" / "ann2"), "--output", "json"]),
        ("score CoNLL", ["score", str(main / "conll" / "ann1.conll"), str(main / "conll" / "ann2.conll"),
                         "--output", "json"]),
        ("score JSONL", ["score", str(main / "jsonl" / "ann1.jsonl"), str(main / "jsonl" / "ann2.jsonl"),
                         "--output", "json"]),
        ("score CoNLL, short documents", ["score", str(short / "conll" / "ann1.conll"),
                                          str(short / "conll" / "ann2.conll"), "--output", "json"]),
        ("agree JSONL, short documents", ["agree", str(short / "jsonl" / "ann1.jsonl"),
                                          str(short / "jsonl" / "ann2.jsonl"), "--output", "json"]),
        ("merge BRAT", ["merge", str(main / "brat" / "ann1"), str(main / "brat" / "ann2"), "--to", "brat",
                        "--out", "{out}", "--output", "json"]),
    ]


def ensure_corpora(corpus: Path) -> None:
    """``benchmarks/generate.py``'s corpora, made when missing."""
    for folder, extra in (("docs-10000", []), ("short-10000", ["--short"])):
        if not (corpus / folder / "meta.json").exists():
            subprocess.run([sys.executable, str(HERE / "generate.py"), "--docs", "10000", *extra,
                            "--out", str(corpus / folder)], check=True)


def timed(tree: Path, arguments: list[str], scratch: Path) -> tuple[float, float, str]:
    """One run: CPU seconds (user + system of the child), wall seconds, its standard output."""
    out = scratch / f"out-{time.monotonic_ns()}"
    arguments = [str(out) if a == "{out}" else a for a in arguments]
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0")
    with open(scratch / "stdout", "w+") as stdout_file, open(scratch / "stderr", "w+") as stderr_file:
        start = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-c", ENTRY_POINT, *arguments], env=env, cwd=scratch,
                                 stdout=stdout_file, stderr=stderr_file)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        stdout_file.seek(0)
        stderr_file.seek(0)
        stdout, stderr = stdout_file.read(), stderr_file.read()
    if child.returncode != 0 or not stdout.strip():
        raise SystemExit(f"{tree}: spanagree {' '.join(arguments)} failed ({child.returncode}): {stderr[-500:]}")
    subprocess.run(["rm", "-rf", str(out)])
    return usage.ru_utime + usage.ru_stime, wall, stdout


def figures(stdout: str) -> object:
    """The run's JSON document (``None`` when it printed none)."""
    try:
        return json.loads(stdout)
    except ValueError:
        return None


def extends(base: object, head: object) -> bool:
    """Whether ``head`` says what ``base`` says: the same values under every key of ``base``
    (new keys allowed, as the JSON contract allows), the options and the version
    (``"spanagree"``) aside."""
    if isinstance(base, dict) and isinstance(head, dict):
        return all(key in head and extends(value, head[key]) for key, value in base.items()
                   if key not in ("options", "spanagree"))  # the version, and the options echoed
    if isinstance(base, list) and isinstance(head, list):
        return len(base) == len(head) and all(map(extends, base, head))
    return base == head


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="the older tree (a checkout's root)")
    parser.add_argument("--head", type=Path, default=HERE.parent, help="the newer tree (default: this one)")
    parser.add_argument("--corpus", type=Path, default=Path("/tmp/spanagree-bench"))
    parser.add_argument("--rounds", type=int, default=5, help="runs of each tree per command")
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/spanagree-paired"))
    parser.add_argument("--only", help="comma-separated command names (default: all)")
    args = parser.parse_args(argv)
    ensure_corpora(args.corpus)
    args.scratch.mkdir(parents=True, exist_ok=True)
    for tree in (args.base, args.head):
        compileall.compile_dir(str(tree / "spanagree"), quiet=1)
    wanted = None if not args.only else set(args.only.split(","))
    rows = []
    load_start = os.getloadavg()
    for name, arguments in commands(args.corpus):
        if wanted and name not in wanted:
            continue
        times = {"base": [], "head": []}
        outputs = {}
        for round_ in range(args.rounds):
            order = ("base", "head") if round_ % 2 == 0 else ("head", "base")
            for side in order:
                cpu, wall, stdout = timed(getattr(args, side), arguments, args.scratch)
                times[side].append((cpu, wall))
                outputs[side] = figures(stdout)
        base_cpu = statistics.median(c for c, _ in times["base"])
        head_cpu = statistics.median(c for c, _ in times["head"])
        base_wall = statistics.median(w for _, w in times["base"])
        head_wall = statistics.median(w for _, w in times["head"])
        rows.append((name, base_cpu, head_cpu, base_wall, head_wall, extends(outputs["base"], outputs["head"])))
        print(f"{name}: CPU {base_cpu:.2f} → {head_cpu:.2f} s ({head_cpu / base_cpu:.2f}×), "
              f"wall {base_wall:.2f} → {head_wall:.2f} s", flush=True)
    print(f"\nbase {args.base}, head {args.head}; {args.rounds} interleaved runs each; medians; load average "
          f"{[round(x, 2) for x in load_start]} at start, {[round(x, 2) for x in os.getloadavg()]} at end\n")
    print("| command | base CPU (s) | head CPU (s) | head / base (CPU) | base wall (s) | head wall (s) | same figures |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for name, base_cpu, head_cpu, base_wall, head_wall, same in rows:
        print(f"| {name} | {base_cpu:.2f} | {head_cpu:.2f} | {head_cpu / base_cpu:.2f}× | {base_wall:.2f} | "
              f"{head_wall:.2f} | {'yes' if same else 'no'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
