"""Where a spanagree run spends its time: one command, timed phase by phase.

Runs ``spanagree.cli.main`` on the given arguments in this process with light wrappers (no
profiler: each phase is a wall-clock interval) around

* ``read``      — reading the inputs: the format readers, whether the files are read whole first
  (``spanagree.cli.read_all``) or document by document while comparing (``spanagree.pipeline.stream``:
  the time spent getting each next document);
* ``texts``     — checking that every copy of a document has the same text (``reconcile``);
* ``align``     — aligning every document and adding up counts (``compare_all_pairs``, or
  ``compare_pair`` per batch when streaming), less
* ``errors``    — for ``score``, the error analysis of each document (``error_keys``);
* ``render``    — the JSON output (``report.to_json``);

and ``startup`` (interpreter and imports: the process's wall time minus ``main``), ``other`` (the
rest of ``main``). Prints JSON (``--markdown``: a table row per phase).

Usage::

    python benchmarks/phases.py [--markdown] -- agree ann1/ ann2/ --format brat --output json
"""

from __future__ import annotations

import json
import sys
import time

T0 = time.perf_counter()
_START = time.time()


def main(argv: list[str]) -> int:
    markdown = "--markdown" in argv[: argv.index("--")] if "--" in argv else False
    args = argv[argv.index("--") + 1:] if "--" in argv else argv
    import importlib

    import spanagree.cli as cli

    agreement = importlib.import_module("spanagree.agreement")
    score = importlib.import_module("spanagree.scoring")
    report = importlib.import_module("spanagree.report")
    spent: dict[str, float] = {}

    def timed(name, function):
        def wrapper(*a, **k):
            t = time.perf_counter()
            try:
                return function(*a, **k)
            finally:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - t
        return wrapper

    cli.read_all = timed("read", cli.read_all)
    for module in (agreement, score):
        module.reconcile = timed("texts", module.reconcile)
        if hasattr(module, "compare_all_pairs"):
            module.compare_all_pairs = timed("align", module.compare_all_pairs)
    stream = importlib.import_module("spanagree.pipeline.stream")  # imported before score is patched: its own names
    score.error_keys = timed("errors", score.error_keys)
    stream._Reading.next = timed("read", stream._Reading.next)
    stream._Texts.reconciled = timed("texts", stream._Texts.reconciled)
    stream.compare_pair = timed("align", stream.compare_pair)
    stream.error_keys = timed("errors", stream.error_keys)
    report.to_json = timed("render", report.to_json)

    startup = time.perf_counter() - T0
    import io
    from contextlib import redirect_stdout

    t = time.perf_counter()
    with redirect_stdout(io.StringIO()):
        code = cli.main(args)
    total = time.perf_counter() - t
    if "errors" in spent:
        spent["align"] = spent.get("align", 0.0) - spent["errors"]  # errors run inside align
    phases = {"startup": startup, **spent}
    phases["other"] = total - sum(spent.values())
    phases["total"] = startup + total
    if markdown:
        order = ["startup", "read", "texts", "align", "errors", "render", "other"]
        print(" | ".join(f"{phases[k]:.2f}" if k in phases else "—" for k in order) + f" | {phases['total']:.2f}")
    else:
        print(json.dumps({"exit": code, "seconds": {k: round(v, 4) for k, v in phases.items()}}))
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
