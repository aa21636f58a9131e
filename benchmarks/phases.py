"""Where a spanagree run spends its time: one command, timed phase by phase.

Runs ``spanagree.cli.main`` on the given arguments in this process with light wrappers (no
profiler: each phase is a wall-clock interval) around

* ``read``      — reading the inputs: the format readers, whether the files are read whole first
  (``spanagree.pipeline.read_inputs``) or document by document while comparing
  (``spanagree.pipeline.sequential``: the time spent getting each next document);
* ``texts``     — checking that every copy of a document has the same text (``reconciled_batch``);
* ``align``     — aligning every document and adding up counts (``compare_pair`` per batch;
  ``merge``: ``vote_document``);
* ``errors``    — for ``score``, the error analysis of each batch (``ErrorKinds.observe``);
* ``render``    — the JSON output (``report.document.to_json``);

and ``startup`` (interpreter and imports: the process's wall time minus ``main``), ``other`` (the
rest of ``main``), and ``cpu``: the process's processor time (user and system), which other
processes sharing the machine's cores disturb far less than the wall-clock phases. Prints JSON
(``--markdown``: a table row per phase).

Usage::

    python benchmarks/phases.py [--markdown] -- agree ann1/ ann2/ --format brat --output json
"""

from __future__ import annotations

import json
import resource
import sys
import time

T0 = time.perf_counter()
_START = time.time()


def main(argv: list[str]) -> int:
    markdown = "--markdown" in argv[: argv.index("--")] if "--" in argv else False
    args = argv[argv.index("--") + 1:] if "--" in argv else argv
    import importlib

    import spanagree.cli as cli

    pipeline = importlib.import_module("spanagree.pipeline")
    sequential = importlib.import_module("spanagree.pipeline.sequential")
    analyses = importlib.import_module("spanagree.pipeline.analyses")
    voting = importlib.import_module("spanagree.voting")
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

    pipeline.read_inputs = timed("read", pipeline.read_inputs)
    sequential._Reading.next = timed("read", sequential._Reading.next)
    sequential.reconciled_batch = timed("texts", sequential.reconciled_batch)
    analyses.compare_pair = timed("align", analyses.compare_pair)
    analyses.ErrorKinds.observe = timed("errors", analyses.ErrorKinds.observe)
    voting.vote_document = timed("align", voting.vote_document)
    report.to_json = timed("render", report.to_json)

    startup = time.perf_counter() - T0
    import io
    from contextlib import redirect_stdout

    t = time.perf_counter()
    with redirect_stdout(io.StringIO()):
        code = cli.main(args)
    total = time.perf_counter() - t
    phases = {"startup": startup, **spent}
    phases["other"] = total - sum(spent.values())
    phases["total"] = startup + total
    usage = resource.getrusage(resource.RUSAGE_SELF)
    phases["cpu"] = usage.ru_utime + usage.ru_stime
    if markdown:
        order = ["startup", "read", "texts", "align", "errors", "render", "other"]
        print(" | ".join(f"{phases[k]:.2f}" if k in phases else "—" for k in order) + f" | {phases['total']:.2f}")
    else:
        print(json.dumps({"exit": code, "seconds": {k: round(v, 4) for k, v in phases.items()}}))
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
