"""The spanagree benchmark: spanagree against its peers, in one run, on the same files.

Times whole processes (a fresh child per run; wall time, minimum of several runs; peak RSS of
that child from ``os.wait4``) of

* ``spanagree agree ann1 ann2 --format brat --output json`` (exact/strict),
  ``spanagree score ann1.conll ann2.conll --output json`` (conlleval's decoding, and
  ``--scheme iob2``) and ``spanagree score ann1.jsonl ann2.jsonl --output json``;
* bratiaa's ``compute_f1_agreement`` on the BRAT project, seqeval's ``f1_score`` (default, and
  ``mode="strict", scheme=IOB2``) on the CoNLL files, nervaluate's ``Evaluator(...).evaluate()``
  (all four schemes) on the JSONL files — each through a small driver in ``benchmarks/peers/``
  run by the peers' own interpreter (a scratch venv: ``benchmarks/requirements-peers.txt``);
* a plain-Python parse of the same files (``benchmarks/peers/plain_parse.py``): the practical
  limit;

checks that every tool gives the same F1 where the definitions coincide, shows where spanagree's
time goes (``phases.py``), and runs the scaling series (one long document, spanagree vs
nervaluate; number of documents), ``--jobs 2`` vs ``--jobs 1`` on 40,000 documents,
the HTML report on the main corpus (``agree --report``: time to write, page size, time until the
page is drawn in headless Chromium, ``report_load.py``), ``spanagree --help`` and the
heavy-import check, and the candidate-index micro-benchmark
(``index_bench.py``). Writes ``benchmarks/RESULTS.md`` (``--quick``: ``OUT/RESULTS.md``) and the
raw figures to ``OUT/results.json``. Corpora are generated under ``OUT`` (default
``/tmp/spanagree-bench``, never the repository) and reused while their parameters match.

A tool that cannot run (missing, failing, too slow) gets "not available", "exit N" or "timeout"
in its row, and the rest of the run goes on.

Usage::

    python benchmarks/run.py            # the benchmark of record (about 15-20 min on 2 cores)
    python benchmarks/run.py --quick    # smoke test of the whole harness (about 1-2 min)
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PEERS = HERE / "peers"
sys.path.insert(0, str(HERE))

import generate  # noqa: E402

DEFAULT_OUT = Path("/tmp/spanagree-bench")
DEFAULT_PEERS_PYTHON = "/tmp/peers/bin/python"
F1_TOLERANCE = 1e-9
HEAVY_MODULES = ("spacy", "pandas", "scipy", "numpy", "lxml", "intervaltree")


# ---------------------------------------------------------------------------------------------
# Running and timing whole processes
# ---------------------------------------------------------------------------------------------
class Run:
    """The outcome of timing one command: min wall time, peak RSS, last stdout, status."""

    def __init__(self, name, cmd):
        self.name, self.cmd = name, cmd
        self.times: list[float] = []
        self.rss_kib: list[int] = []
        self.cpu: list[float] = []   # processor time of each run (user + system): less disturbed by other work
        self.stdout = ""
        self.stderr = ""
        self.rc = None
        self.error = None  # "not available", "timeout (> N s)", "exit N"

    @property
    def ok(self):
        return self.error is None and bool(self.times)

    @property
    def seconds(self):
        return min(self.times) if self.ok else None

    @property
    def cpu_seconds(self):
        return min(self.cpu) if self.ok and self.cpu else None

    @property
    def rss_mib(self):
        return max(self.rss_kib) / 1024 if self.ok else None

    def json(self):
        try:
            return json.loads(self.stdout)
        except (ValueError, TypeError):
            return None

    def as_dict(self):
        return {"name": self.name, "cmd": [str(c) for c in self.cmd], "times": self.times,
                "seconds": self.seconds, "cpu_seconds": self.cpu_seconds, "rss_mib": self.rss_mib, "error": self.error,
                "stderr_tail": self.stderr[-2000:] if self.error else ""}


def run_once(cmd, *, timeout=None, cwd=None, env=None):
    """(wall seconds, peak RSS KiB, rc, stdout, stderr, timed_out) of one fresh child; its
    processor time (user + system seconds) in :data:`LAST_CPU`."""
    out_path = Path(os.environ.get("TMPDIR", "/tmp")) / f"spanagree-bench-{os.getpid()}.out"
    err_path = out_path.with_suffix(".err")
    with open(out_path, "wb") as fo, open(err_path, "wb") as fe:
        t0 = time.perf_counter()
        p = subprocess.Popen([str(c) for c in cmd], stdout=fo, stderr=fe, cwd=cwd, env=env)
        timed_out = threading.Event()

        def kill():
            timed_out.set()
            try:
                p.kill()
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, kill) if timeout else None
        if timer:
            timer.start()
        _pid, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        if timer:
            timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
    stdout = out_path.read_text(errors="replace")
    stderr = err_path.read_text(errors="replace")
    out_path.unlink(missing_ok=True)
    err_path.unlink(missing_ok=True)
    LAST_CPU[0] = ru.ru_utime + ru.ru_stime
    return wall, ru.ru_maxrss, p.returncode, stdout, stderr, timed_out.is_set()


#: The processor time of the last child :func:`run_once` ran.
LAST_CPU = [0.0]


def generated(out, **parameters):
    """``generate.generate`` in a forked child: a corpus generated in this process would leave its
    memory here, and every process this runner starts afterwards would report it in its peak RSS
    (``wait4`` counts the pages a child shares before ``exec``)."""
    import concurrent.futures
    import multiprocessing

    with concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
        return pool.submit(generate.generate, out, **parameters).result()


def xml_folder(sa, brat, dest, log) -> Path:
    """``dest``: a folder of XML files, one document each (``<id>.xml``), with the documents of the
    BRAT folder ``brat`` (made with ``spanagree convert`` unless it is newer than ``brat``)."""
    dest = Path(dest)
    if dest.is_dir() and dest.stat().st_mtime >= Path(brat).stat().st_mtime and any(dest.iterdir()):
        return dest
    _log(log, f"converting {brat} to a folder of XML files")
    whole = dest.parent / f"{dest.name}.whole.xml"
    subprocess.run(sa + ["convert", brat, "--format", "brat", "--to", "xml", "--out", whole, "--force"], check=True,
                   stdout=subprocess.DEVNULL)
    made = dest.parent / f"{dest.name}.making"
    shutil.rmtree(made, ignore_errors=True)
    in_child(split_xml, whole, made)
    whole.unlink()
    shutil.rmtree(dest, ignore_errors=True)
    made.rename(dest)
    return dest


def split_xml(whole, folder) -> None:
    """``spanagree convert --to xml``'s one file (a header, ``<doc id="...">`` elements each
    beginning a line, ``</corpus>``) written as one file per document with the same header."""
    folder = Path(folder)
    folder.mkdir(parents=True)
    head, document, doc_id = [], [], None
    with open(whole, encoding="utf-8") as lines:
        for line in lines:
            if doc_id is None and not line.startswith("<doc id="):
                head.append(line)
                continue
            if line.startswith("<doc id="):
                doc_id = line[len('<doc id="'):line.index('"', len('<doc id="'))]
            if line.startswith("</corpus>"):
                break
            document.append(line)
            if line.rstrip("\n").endswith("</doc>"):
                (folder / f"{doc_id}.xml").write_text("".join(head + document) + "</corpus>\n", encoding="utf-8")
                document = []


def in_child(function, *args):
    """``function(*args)`` in a forked child (what it reads never raises this runner's memory)."""
    import concurrent.futures
    import multiprocessing

    with concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
        return pool.submit(function, *args).result()


def outputs_identical(first: str, second: str, files) -> bool:
    """Two runs' JSON equal apart from the options echo, and each pair of ``files`` equal byte for byte."""
    import filecmp

    a, b = json.loads(first), json.loads(second)
    for x in (a, b):
        if isinstance(x, dict):
            x.pop("options", None)
    return a == b and all(filecmp.cmp(one, two, shallow=False) for one, two in files)


def measure(name, cmd, *, repeat=3, budget=120.0, timeout=1800, cwd=None, env=None,
            available=True, log=None):
    """Time ``cmd`` up to ``repeat`` times (at least twice unless one run takes over half the
    ``budget``; no new run once the runs add up to ``budget`` seconds). Minimum wall time,
    maximum peak RSS; the first failure ends the measurement and names itself."""
    r = Run(name, cmd)
    if not available:
        r.error = "not available"
        _log(log, f"  {name}: not available")
        return r
    spent = 0.0
    for i in range(max(repeat, 1)):
        try:
            wall, rss, rc, out, err, timed_out = run_once(cmd, timeout=timeout, cwd=cwd, env=env)
        except OSError as e:
            r.error = f"cannot run: {e}"
            break
        r.stdout, r.stderr, r.rc = out, err, rc
        if timed_out:
            r.error = f"timeout (> {timeout:.0f} s)"
            break
        if rc != 0:
            r.error = f"exit {rc}"
            break
        r.times.append(wall)
        r.cpu.append(LAST_CPU[0])
        r.rss_kib.append(rss)
        spent += wall
        if spent >= budget or (i == 0 and wall > budget / 2):
            break
    if r.ok:
        _log(log, f"  {name}: {r.seconds:.3f} s (runs: {', '.join(f'{t:.2f}' for t in r.times)}), "
                  f"{r.rss_mib:.0f} MiB")
    else:
        tail = r.stderr.strip().splitlines()[-1:] if r.stderr else ""
        _log(log, f"  {name}: {r.error} {tail}")
    return r


def _log(log, msg):
    print(msg, file=sys.stderr, flush=True)
    if log is not None:
        log.append(msg)


def section(R, name, log, function):
    """Run one part of the benchmark; a crash is recorded (and shown in RESULTS.md), not fatal."""
    try:
        return function()
    except Exception:  # noqa: BLE001 - the rest of the benchmark must go on
        R.setdefault("section_errors", {})[name] = traceback.format_exc()[-3000:]
        _log(log, f"section {name!r} failed:\n{traceback.format_exc()}")
        return None


# ---------------------------------------------------------------------------------------------
# Environment
# ---------------------------------------------------------------------------------------------
def spanagree_command():
    """The spanagree console script next to this interpreter (no pyenv shim), else on PATH."""
    local = Path(sys.executable).parent / "spanagree"
    if local.exists():
        return [str(local)]
    found = shutil.which("spanagree")
    return [found] if found else [sys.executable, "-m", "spanagree.cli"]


def check_spanagree(cmd):
    """(available, reason): ``spanagree --help`` runs and ``spanagree.match`` imports."""
    try:
        h = subprocess.run(cmd + ["--help"], capture_output=True, text=True, timeout=60)
        m = subprocess.run([sys.executable, "-c", "import spanagree.match"], capture_output=True,
                           text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, str(e)
    if h.returncode != 0:
        return False, "spanagree --help failed: " + (h.stderr.strip().splitlines() or ["?"])[-1]
    if m.returncode != 0:
        return False, "import spanagree.match failed: " + (m.stderr.strip().splitlines() or ["?"])[-1]
    for sub in ("agree", "score"):
        s = subprocess.run(cmd + [sub, "--help"], capture_output=True, text=True, timeout=60)
        if s.returncode != 0:
            return False, f"spanagree {sub} --help failed"
    return True, ""


def compile_bytecode() -> str:
    """Compile spanagree's modules to bytecode first, as installing a wheel does.

    pip compiles a package when it installs it, so the peers (installed into their venv) start
    from bytecode; an editable install of spanagree, or ``PYTHONDONTWRITEBYTECODE``, would leave
    every run compiling its modules again (about 0.05 s a process). Returns what was done.
    """
    where = subprocess.run([sys.executable, "-c", "import os, spanagree; print(os.path.dirname(spanagree.__file__))"],
                           capture_output=True, text=True)
    if where.returncode != 0:
        return "not compiled (spanagree not importable)"
    folder = where.stdout.strip()
    done = subprocess.run([sys.executable, "-m", "compileall", "-q", folder], capture_output=True, text=True)
    if done.returncode != 0:
        return f"not compiled (compileall failed: {done.stderr.strip()})"
    return f"compiled to bytecode first ({folder})"


def check_peers(python):
    if not Path(python).exists():
        return {}, (f"{python} does not exist (python -m venv /tmp/peers && "
                    f"/tmp/peers/bin/pip install -r benchmarks/requirements-peers.txt)")
    code = ("import json, importlib.metadata as m\n"
            "out = {}\n"
            "for d in ('bratiaa', 'seqeval', 'nervaluate', 'numpy', 'scipy', 'scikit-learn'):\n"
            "    try: out[d] = m.version(d)\n"
            "    except m.PackageNotFoundError: out[d] = None\n"
            "for mod in ('bratiaa', 'seqeval.metrics', 'nervaluate'):\n"
            "    try: __import__(mod)\n"
            "    except Exception as e: out['import-error:' + mod] = repr(e)\n"
            "print(json.dumps(out))")
    try:
        r = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return {}, str(e)
    if r.returncode != 0:
        return {}, r.stderr.strip()[-300:]
    return json.loads(r.stdout), ""


def peer_available(versions, module):
    """Whether a peer imported in the peers' interpreter."""
    return bool(versions) and f"import-error:{module}" not in versions


def machine_info(peer_versions):
    info = {"date": _dt.datetime.now().strftime("%Y-%m-%d %H:%M"),
            "nproc": os.cpu_count(), "python": platform.python_version(),
            "platform": platform.platform()}
    try:
        info["sched_cpus"] = len(os.sched_getaffinity(0))
    except AttributeError:
        pass
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["memory_gib"] = round(int(line.split()[1]) / 1024 ** 2, 1)
                break
    except OSError:
        pass
    versions = {}
    import importlib.metadata as md
    for d in ("spanagree", "numpy", "scipy", "pandas", "intervaltree"):
        try:
            versions[d] = md.version(d)
        except md.PackageNotFoundError:
            versions[d] = None
    info["versions"] = versions
    info["peer_versions"] = {k: v for k, v in peer_versions.items() if not k.startswith("import-error")}
    try:
        rev = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        info["git"] = rev + (" (+ uncommitted changes)" if dirty else "")
    except OSError:
        pass
    return info


def load_average():
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------
def f1_of(run, *path):
    data = run.json() if run is not None and run.ok else None
    for key in path:
        if data is None:
            return None
        if isinstance(data, dict):
            data = data.get(key)
        elif isinstance(data, list) and isinstance(key, int) and key < len(data):
            data = data[key]
        else:
            return None
    return data


def fmt_s(x, digits=2):
    return "—" if x is None else f"{x:.{digits}f}"


def ratio(slow, fast):
    if slow is None or fast is None or fast == 0:
        return None
    return slow / fast


def verdict(value, target, higher_is_better=True):
    if value is None:
        return "n/a"
    ok = value >= target if higher_is_better else value <= target
    return "**met**" if ok else "**MISSED**"


def by_how_much(value, target, higher_is_better=True):
    """How far a missed ratio is from its target, as a factor."""
    if value is None or value == 0:
        return ""
    ok = value >= target if higher_is_better else value <= target
    if ok:
        return ""
    return f"(needs {target / value:.2f}× more)" if higher_is_better else f"({value / target:.2f}× over)"


def doubling(rows, key):
    """(size, next size, time ratio per doubling) for consecutive rows of a series."""
    out = []
    for a, b in zip(rows, rows[1:]):
        ta, tb = a["spanagree"]["seconds"], b["spanagree"]["seconds"]
        if ta and tb:
            k = b[key] / a[key]
            out.append((a[key], b[key], (tb / ta) ** (math.log(2) / math.log(k))))
        else:
            out.append((a[key], b[key], None))
    return out


def phases_of(py, args, log):
    """Seconds per phase of one spanagree command (``phases.py``), or None."""
    try:
        r = subprocess.run([py, HERE / "phases.py", "--", *map(str, args)], capture_output=True, text=True,
                           timeout=1800)
    except (OSError, subprocess.TimeoutExpired) as e:
        _log(log, f"  phases {' '.join(map(str, args[:1]))}: {e}")
        return None
    if r.returncode != 0:
        _log(log, f"  phases failed: {r.stderr.strip()[-500:]}")
        return None
    data = json.loads(r.stdout)["seconds"]
    _log(log, f"  phases {args[0]} {Path(str(args[1])).name}: "
              + ", ".join(f"{k} {v:.2f}" for k, v in data.items()))
    return data


def heavy_imports(py, sa, args):
    """Heavy modules (HEAVY_MODULES) imported by ``import spanagree`` and by one command."""
    found = {}
    probes = {"import spanagree": [py, "-X", "importtime", "-c", "import spanagree"],
              "spanagree --help": [py, "-X", "importtime", "-m", "spanagree.cli", "--help"],
              "spanagree " + " ".join(map(str, args[:1])) + " (BRAT, --output json)":
                  [py, "-X", "importtime", "-m", "spanagree.cli", *map(str, args)]}
    for name, cmd in probes.items():
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        modules = set(re.findall(r"\|\s+([\w.]+)\s*$", r.stderr, re.M))
        found[name] = sorted({m.split(".")[0] for m in modules} & set(HEAVY_MODULES))
    return found


# ---------------------------------------------------------------------------------------------
# The benchmark
# ---------------------------------------------------------------------------------------------
def gamma_only(args) -> int:
    """``--gamma-only``: the γ rows (:mod:`gamma_bench`) alone, their markdown printed."""
    import gamma_bench

    if not args.gamma_python:
        raise SystemExit("--gamma-only needs --gamma-python (a venv with pygamma-agreement==0.5.9)")
    out = args.out.resolve()
    if out == REPO or REPO in out.parents:
        raise SystemExit(f"--out must be outside the repository: {out}")
    out.mkdir(parents=True, exist_ok=True)
    log: list[str] = []
    _log(log, f"spanagree modules: {compile_bytecode()}")
    rows = gamma_bench.gamma_rows(spanagree_command(), args.gamma_python, out, measure, repeat=args.repeat,
                                  log=log, quick=args.quick)
    (out / "gamma.json").write_text(json.dumps(rows, indent=1))
    print("\n".join(gamma_bench.gamma_markdown(rows)))
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"corpora folder (default {DEFAULT_OUT})")
    p.add_argument("--quick", action="store_true", help="small sizes: a smoke test of the whole run")
    p.add_argument("--docs", type=int, help="main corpus size in documents (default 10000; quick 400)")
    p.add_argument("--jobs-docs", type=int, help="corpus for --jobs (default 40000; quick 1600)")
    p.add_argument("--short-docs", type=int, help="short-document corpus (60-200 tokens each; default 10000; "
                                                    "quick 400)")
    p.add_argument("--long", help="comma-separated span counts of the one-long-document series")
    p.add_argument("--repeat", type=int, default=3, help="runs per measurement (min is reported)")
    p.add_argument("--nervaluate-limit", type=float, default=60.0,
                   help="stop nervaluate's long-document series once a run would exceed this (s)")
    p.add_argument("--peers-python", default=DEFAULT_PEERS_PYTHON)
    p.add_argument("--gamma-python", help="python of a venv with pygamma-agreement==0.5.9 (the γ rows; "
                                          "default: --peers-python)")
    p.add_argument("--results", type=Path, help="markdown output (default benchmarks/RESULTS.md; "
                                                  "--quick: OUT/RESULTS.md)")
    p.add_argument("--skip", default="", help="comma-separated sections to skip: "
                                              "main,phases,short,long,docs,jobs,scale,cluster,report,gamma,help,index")
    p.add_argument("--gamma-only", action="store_true",
                   help="measure the γ rows alone (--gamma-python; --quick: without the generated 2 × 5,000 "
                        "document), print their section and write OUT/gamma.json")
    args = p.parse_args(argv)
    if args.gamma_only:
        return gamma_only(args)
    quick = args.quick
    docs = args.docs or (400 if quick else 10000)
    jobs_docs = args.jobs_docs or (1600 if quick else 40000)
    short_docs = args.short_docs or (400 if quick else 10000)
    merge_docs = 2000 if quick else 50000  # merge's peak memory (issue 17: <= 100 MiB on 50,000 documents)
    if args.long:
        long_sizes = [int(x) for x in args.long.split(",")]
    else:  # doublings up to 100k, and the 10k-span point of the nervaluate target
        long_sizes = [500, 1000, 2000] if quick else [3125, 6250, 10000, 12500, 25000, 50000, 100000]
    doc_series = [jobs_docs // 32, jobs_docs // 16, jobs_docs // 8, jobs_docs // 4, jobs_docs // 2, jobs_docs]
    repeat = 2 if quick and args.repeat == 3 else args.repeat
    skip = {s for s in args.skip.split(",") if s}
    results_md = args.results or (args.out / "RESULTS.md" if quick else HERE / "RESULTS.md")
    out = args.out.resolve()
    if out == REPO or REPO in out.parents:
        p.error(f"--out must be outside the repository: {out}")
    out.mkdir(parents=True, exist_ok=True)
    log: list[str] = []
    t_start = time.perf_counter()

    sa = spanagree_command()
    bytecode = compile_bytecode()
    _log(log, f"spanagree modules: {bytecode}")
    sa_ok, sa_reason = check_spanagree(sa)
    _log(log, f"spanagree: {'available' if sa_ok else 'NOT available: ' + sa_reason} ({sa[0]})")
    peer_versions, peers_reason = check_peers(args.peers_python)
    _log(log, f"peers: {peer_versions or peers_reason}")
    have = {name: peer_available(peer_versions, module) for name, module in
            (("bratiaa", "bratiaa"), ("seqeval", "seqeval.metrics"), ("nervaluate", "nervaluate"))}
    py = sys.executable
    pp = args.peers_python
    R: dict = {"machine": machine_info(peer_versions), "spanagree_available": sa_ok, "spanagree_reason": sa_reason,
               "peers_reason": peers_reason, "sizes": {"docs": docs, "jobs_docs": jobs_docs, "long": long_sizes},
               "load_average": {"start": load_average()}, "bytecode": bytecode}

    # -- corpora --------------------------------------------------------------------------------
    _log(log, "generating corpora (cached in meta.json) ...")
    main_dir = out / f"docs-{docs}"
    meta = generated(main_dir, docs=docs)
    R["corpus"] = {k: meta[k] for k in ("documents", "tokens", "true_entities", "spans", "spans_total",
                                        "exact_strict")}
    R["corpus"]["path"] = str(main_dir)
    d = main_dir
    b1, b2 = d / "brat" / "ann1", d / "brat" / "ann2"
    c1, c2 = d / "conll" / "ann1.conll", d / "conll" / "ann2.conll"
    j1, j2 = d / "jsonl" / "ann1.jsonl", d / "jsonl" / "ann2.jsonl"

    # -- 1. the same work on the same files ------------------------------------------------------
    main_runs: dict[str, Run] = {}
    extra: dict[str, Run] = {}

    def main_comparison():
        _log(log, f"main comparison on {main_dir} ({meta['spans_total']} spans)")
        plan = [
            ("plain_brat", [py, PEERS / "plain_parse.py", "brat", b1, b2], True),
            ("plain_conll", [py, PEERS / "plain_parse.py", "conll", c1, c2], True),
            ("plain_jsonl", [py, PEERS / "plain_parse.py", "jsonl", j1, j2], True),
            ("spanagree_agree_brat", sa + ["agree", b1, b2, "--format", "brat", "--output", "json"], sa_ok),
            ("spanagree_score_conll", sa + ["score", c1, c2, "--output", "json"], sa_ok),
            ("spanagree_score_conll_iob2", sa + ["score", c1, c2, "--scheme", "iob2", "--output", "json"], sa_ok),
            ("spanagree_score_jsonl", sa + ["score", j1, j2, "--output", "json"], sa_ok),
            ("spanagree_agree_brat_errors", sa + ["agree", b1, b2, "--format", "brat", "--output", "json",
                                                  "--errors", out / "listings" / "agree-errors.csv", "--force"], sa_ok),
            ("spanagree_score_jsonl_errors", sa + ["score", j1, j2, "--output", "json",
                                                   "--errors", out / "listings" / "score-errors.csv", "--force"], sa_ok),
            ("bratiaa", [pp, PEERS / "bratiaa_agree.py", d / "brat"], have["bratiaa"]),
            ("seqeval_default", [pp, PEERS / "seqeval_score.py", c1, c2], have["seqeval"]),
            ("seqeval_strict", [pp, PEERS / "seqeval_score.py", c1, c2, "--strict"], have["seqeval"]),
            ("nervaluate", [pp, PEERS / "nervaluate_score.py", j1, j2], have["nervaluate"]),
        ]
        for name, cmd, avail in plan:
            main_runs[name] = measure(name, cmd, repeat=repeat, available=avail, log=log)
        # nervaluate's other schemes are other points of spanagree's grid: untimed runs.
        for scheme, opts in (("exact", ["--match", "exact", "--labels", "ignore"]),
                             ("partial", ["--match", "partial", "--labels", "ignore"]),
                             ("ent_type", ["--match", "overlap", "--labels", "strict"]),
                             ("ent_type_nervaluate", ["--match", "overlap", "--labels", "strict",
                                                      "--pairing", "nervaluate"])):
            extra[scheme] = measure(f"spanagree_score_jsonl_{scheme}",
                                    sa + ["score", j1, j2, "--output", "json"] + opts, repeat=1, available=sa_ok,
                                    log=log)

    if "main" not in skip:
        section(R, "main", log, main_comparison)
    R["main"] = {k: v.as_dict() for k, v in main_runs.items()}
    R["main_extra"] = {k: v.as_dict() for k, v in extra.items()}
    R["crosscheck"] = crosscheck(meta, main_runs, extra) if main_runs else []

    # -- 2. where spanagree's time goes ----------------------------------------------------------
    phases: dict = {}
    if "phases" not in skip and sa_ok:
        _log(log, "phases of the spanagree runs (one untimed run each)")
        for key, cmd in (("agree BRAT", ["agree", b1, b2, "--format", "brat", "--output", "json"]),
                         ("score CoNLL", ["score", c1, c2, "--output", "json"]),
                         ("score JSONL", ["score", j1, j2, "--output", "json"])):
            phases[key] = section(R, f"phases {key}", log, lambda c=cmd: phases_of(py, c, log))
            if phases[key]:
                phases[key]["documents"] = meta["documents"]
    R["phases"] = phases

    # -- 2a. many short documents: the run's own cost per document ------------------------------
    short_runs: dict[str, Run] = {}

    def short_section():
        sdir = out / f"short-{short_docs}"
        smeta = generated(sdir, docs=short_docs, short=True)
        R["short_corpus"] = {"documents": smeta["documents"], "tokens": smeta["tokens"],
                             "spans_total": smeta["spans_total"], "f1": smeta["exact_strict"][0]["f1"],
                             "path": str(sdir)}
        s1, s2 = sdir / "conll" / "ann1.conll", sdir / "conll" / "ann2.conll"
        _log(log, f"many short documents: {sdir} ({smeta['documents']} documents, {smeta['tokens']} tokens)")
        for name, cmd, avail in (("plain_conll", [py, PEERS / "plain_parse.py", "conll", s1, s2], True),
                                 ("spanagree_score_conll", sa + ["score", s1, s2, "--output", "json"], sa_ok),
                                 ("seqeval_default", [pp, PEERS / "seqeval_score.py", s1, s2], have["seqeval"])):
            short_runs[name] = measure(f"short_{name}", cmd, repeat=max(repeat, 5), available=avail, log=log)
        if sa_ok and "phases" not in skip:
            key = "score CoNLL, short documents"
            phases[key] = phases_of(py, ["score", s1, s2, "--output", "json"], log)
            if phases[key]:
                phases[key]["documents"] = smeta["documents"]

    if "short" not in skip:
        section(R, "short", log, short_section)
    R["short"] = {k: v.as_dict() for k, v in short_runs.items()}

    # -- 3. one long document ---------------------------------------------------------------------
    long_rows: list = []

    def long_series():
        _log(log, "one-long-document series")
        nerv_stop = not have["nervaluate"]
        prev_nerv = None
        for S in long_sizes:
            ldir = out / f"long-{S}"
            lmeta = generated(ldir, long=S, formats=("jsonl",))
            l1, l2 = ldir / "jsonl" / "ann1.jsonl", ldir / "jsonl" / "ann2.jsonl"
            row = {"spans_per_annotator": S, "spans_total": lmeta["spans_total"],
                   "expected_f1": lmeta["exact_strict"][0]["f1"]}
            s_run = measure(f"spanagree_score_long_{S}", sa + ["score", l1, l2, "--output", "json"],
                            repeat=repeat, available=sa_ok, log=log)
            row["spanagree"] = s_run.as_dict()
            row["spanagree_f1"] = f1_of(s_run, "f1")
            # nervaluate is quadratic within a document: predict the next time (×(S/prev)²) and
            # stop before it would exceed the limit.
            if not nerv_stop and prev_nerv is not None:
                prev_S, prev_t = prev_nerv
                if prev_t * (S / prev_S) ** 2 > args.nervaluate_limit:
                    nerv_stop = True
            if not nerv_stop:
                n_run = measure(f"nervaluate_long_{S}", [pp, PEERS / "nervaluate_score.py", l1, l2],
                                repeat=repeat, budget=args.nervaluate_limit, log=log,
                                timeout=max(4 * args.nervaluate_limit, 120))
                row["nervaluate"] = n_run.as_dict()
                row["nervaluate_f1"] = f1_of(n_run, "strict", "f1")
                if n_run.ok:
                    prev_nerv = (S, n_run.seconds)
                    if n_run.seconds > args.nervaluate_limit:
                        nerv_stop = True
                else:
                    nerv_stop = True
            long_rows.append(row)

    if "long" not in skip:
        section(R, "long", log, long_series)
    R["long"] = long_rows

    # -- 4. number of documents, and --jobs -----------------------------------------------------
    doc_rows: list = []
    jobs: dict = {}
    jdir = out / f"docs-{jobs_docs}"

    def docs_series():
        jmeta = generated(jdir, docs=jobs_docs)  # every format: the scale section reads them all
        R["jobs_corpus"] = {"documents": jmeta["documents"], "spans_total": jmeta["spans_total"],
                            "f1": jmeta["exact_strict"][0]["f1"]}
        if "docs" not in skip:
            _log(log, "number-of-documents series (spanagree score on JSONL; the first n documents)")
            for n in doc_series:
                sdir = out / f"series-{jobs_docs}" / str(n)
                sdir.mkdir(parents=True, exist_ok=True)
                paths = []
                for name in ("ann1", "ann2"):
                    dest = sdir / f"{name}.jsonl"
                    src = jdir / "jsonl" / f"{name}.jsonl"
                    if not dest.exists() or dest.stat().st_mtime < src.stat().st_mtime:
                        with open(src, encoding="utf-8") as fi, open(dest, "w", encoding="utf-8") as fo:
                            for i, line in enumerate(fi):
                                if i >= n:
                                    break
                                fo.write(line)
                    paths.append(dest)
                r = measure(f"spanagree_score_jsonl_{n}docs", sa + ["score", *paths, "--output", "json"],
                            repeat=repeat, available=sa_ok, log=log)
                doc_rows.append({"documents": n, "spanagree": r.as_dict()})
        if "jobs" not in skip:
            _log(log, f"--jobs on {jobs_docs} documents (BRAT)")
            jb1, jb2 = jdir / "brat" / "ann1", jdir / "brat" / "ann2"
            command = ["agree", jb1, jb2, "--format", "brat", "--output", "json"]
            for j in (1, 2):
                jobs[j] = measure(f"spanagree_agree_brat_jobs{j}", sa + command + ["--jobs", str(j)],
                                  repeat=repeat, available=sa_ok, log=log)
            same = None
            if jobs[1].ok and jobs[2].ok:
                a, b = jobs[1].json(), jobs[2].json()
                for x in (a, b):
                    if isinstance(x, dict):
                        x.get("options", {}).pop("jobs", None)
                same = a == b
            R["jobs"] = {"documents": jobs_docs, "expected_f1": jmeta["exact_strict"][0]["f1"],
                         "runs": {j: r.as_dict() for j, r in jobs.items()}, "identical": same,
                         "f1": {j: f1_of(r, "pairs", 0, "f1") for j, r in jobs.items()},
                         "phases": {j: phases_of(py, command + ["--jobs", str(j)], log) if sa_ok else None
                                    for j in (1, 2)}}

    if not {"docs", "jobs"} <= skip:
        section(R, "docs/jobs", log, docs_series)
    R["docs_series"] = doc_rows

    # -- 4a. --jobs for every command and format, and merge's memory ------------------------------
    def scale_section():
        # Peak RSS (wait4) counts the pages a child shares with this runner before exec, so what
        # this runner holds raises every later figure: merge's memory is measured first, and the
        # outputs are compared in a forked child (outputs_identical), never read here.
        work = out / "scale"
        work.mkdir(parents=True, exist_ok=True)
        mdir = out / f"docs-{merge_docs}"
        generated(mdir, docs=merge_docs)
        cmd = sa + ["merge", mdir / "brat" / "ann1", mdir / "brat" / "ann2", "--format", "brat", "--output", "json",
                    "--to", "jsonl", "--out", work / "gold-memory.jsonl", "--adjudicate", work / "adjudicate-memory.csv",
                    "--report", work / "merge-memory.html", "--force"]
        memory = measure("spanagree_merge_brat_memory", cmd, repeat=1, budget=1, available=sa_ok, log=log)
        memory.stdout = ""
        sdir = out / f"docs-{jobs_docs}"
        generated(sdir, docs=jobs_docs)
        inputs = {"brat": [sdir / "brat" / "ann1", sdir / "brat" / "ann2", "--format", "brat"],
                  "conll": [sdir / "conll" / "ann1.conll", sdir / "conll" / "ann2.conll"],
                  "jsonl": [sdir / "jsonl" / "ann1.jsonl", sdir / "jsonl" / "ann2.jsonl"]}
        if sa_ok:  # folders of XML files, one document each, converted from the BRAT folders
            inputs["xml"] = [xml_folder(sa, sdir / "brat" / name, sdir / "xml" / name, log) for name in ("ann1", "ann2")]
        rows = []
        for command in ("agree", "score", "merge"):
            for fmt, paths in inputs.items():
                runs = {}
                for j in (1, 2):
                    cmd = sa + [command, *paths, "--output", "json", "--jobs", str(j)]
                    if command == "merge":
                        cmd += ["--to", "jsonl", "--out", work / f"gold-{fmt}-{j}.jsonl",
                                "--adjudicate", work / f"adjudicate-{fmt}-{j}.csv", "--force"]
                    runs[j] = measure(f"spanagree_{command}_{fmt}_jobs{j}", cmd, repeat=1, budget=1,
                                      available=sa_ok, log=log)
                same = None
                if runs[1].ok and runs[2].ok:
                    files = [(work / f"{what}-{fmt}-1.{ext}", work / f"{what}-{fmt}-2.{ext}")
                             for what, ext in (("gold", "jsonl"), ("adjudicate", "csv"))] if command == "merge" else []
                    same = in_child(outputs_identical, runs[1].stdout, runs[2].stdout, files)
                if runs[1].ok:  # the cluster section compares its runs with this one
                    (work / f"stdout-{command}-{fmt}-1.json").write_text(runs[1].stdout)
                for r in runs.values():
                    r.stdout = ""
                rows.append({"command": command, "format": fmt, "identical": same,
                             "runs": {j: r.as_dict() for j, r in runs.items()}})
        return {"documents": jobs_docs, "rows": rows, "merge_memory": {"documents": merge_docs, **memory.as_dict()}}

    if "scale" not in skip:
        R["scale"] = section(R, "scale", log, scale_section)

    # -- 4b. a Dask cluster: a scheduler and two one-thread worker processes on this machine -------
    def cluster_section():
        # started as a user starts a real cluster (the `dask scheduler` and `dask worker` commands);
        # the one-process figures are the scale section's --jobs 1 runs, and each cluster run's
        # outputs are compared with them (the options echo apart)
        try:
            import distributed  # noqa: F401  (the [cluster] extra)
        except ImportError:
            return {"error": "dask[distributed] is not installed (pip install 'spanagree[cluster]')"}
        scale = R.get("scale") if isinstance(R.get("scale"), dict) else {}
        work = out / "scale"
        file = work / "scheduler.json"
        file.unlink(missing_ok=True)
        quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started = [subprocess.Popen([py, "-m", "distributed.cli.dask_scheduler", "--scheduler-file", file,
                                     "--host", "127.0.0.1", "--port", "0", "--no-dashboard"], **quiet)]
        try:
            for _ in range(100):
                if file.exists() and file.stat().st_size:
                    break
                time.sleep(0.2)
            started.append(subprocess.Popen([py, "-m", "distributed.cli.dask_worker", "--scheduler-file", file,
                                             "--nworkers", "2", "--nthreads", "1", "--no-dashboard",
                                             "--memory-limit", "0"], **quiet))
            address = json.loads(file.read_text())["address"]
            subprocess.run([py, "-c", "import sys; from distributed import Client; "
                                      "Client(sys.argv[1], timeout=60).wait_for_workers(2, timeout=60)", address],
                           check=True, timeout=120)
            rows = []
            for row in scale.get("rows", []):
                command, fmt = row["command"], row["format"]
                one = row["runs"][1]
                cmd = list(one["cmd"])
                at = cmd.index("--jobs")
                cmd = sa + cmd[len(sa):at] + cmd[at + 2:] + ["--scheduler", address]
                if command == "merge":
                    cmd = [str(c).replace(f"-{fmt}-1.", f"-{fmt}-cluster.") for c in cmd]
                run = measure(f"spanagree_{command}_{fmt}_cluster", cmd, repeat=1, budget=1, available=sa_ok,
                              log=log)
                same = None
                reference = work / f"stdout-{command}-{fmt}-1.json"
                if run.ok and reference.exists():
                    files = [(work / f"{what}-{fmt}-1.{ext}", work / f"{what}-{fmt}-cluster.{ext}")
                             for what, ext in (("gold", "jsonl"), ("adjudicate", "csv"))] if command == "merge" else []
                    same = in_child(outputs_identical, reference.read_text(), run.stdout, files)
                run.stdout = ""
                rows.append({"command": command, "format": fmt, "identical": same, "one_process": one,
                             "cluster": run.as_dict()})
            return {"documents": scale.get("documents"), "workers": 2, "rows": rows}
        finally:
            for process in reversed(started):
                process.terminate()
            for process in started:
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()

    if "cluster" not in skip and "scale" not in skip:
        R["cluster"] = section(R, "cluster", log, cluster_section)

    # -- 4c. the HTML report on the main corpus ----------------------------------------------------
    def report_section():
        page = out / "report" / f"agree-{docs}.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        command = ["agree", b1, b2, "--format", "brat", "--output", "json"]
        _log(log, f"--report on {docs} documents (BRAT)")
        plain = main_runs.get("spanagree_agree_brat") or measure(
            "spanagree_agree_brat", sa + command, repeat=repeat, available=sa_ok, log=log)
        by_document = measure("spanagree_agree_brat_by_document", sa + command + ["--by", "document"],
                              repeat=repeat, available=sa_ok, log=log)
        written = measure("spanagree_agree_brat_report", sa + command + ["--report", page, "--force"],
                          repeat=repeat, available=sa_ok, log=log)
        row = {"documents": docs, "agree": plain.as_dict(), "by_document": by_document.as_dict(),
               "with_report": written.as_dict(),
               "bytes": page.stat().st_size if page.exists() else None, "load": None}
        if page.exists():
            try:
                r = subprocess.run([py, HERE / "report_load.py", page, "--repeat", str(repeat)],
                                   capture_output=True, text=True, timeout=1800)
                row["load"] = json.loads(r.stdout) if r.returncode == 0 else {"error": r.stderr[-1500:]}
            except (OSError, subprocess.TimeoutExpired, ValueError) as e:
                row["load"] = {"error": str(e)}
        return row

    if "report" not in skip:
        R["report"] = section(R, "report", log, report_section)

    # -- 4b. gamma agreement against pygamma-agreement (gamma_bench.py) ------------------------------
    if "gamma" not in skip:
        import gamma_bench

        R["gamma"] = section(R, "gamma", log, lambda: gamma_bench.gamma_rows(
            sa, args.gamma_python or args.peers_python, out, measure, repeat=repeat, log=log, quick=quick))

    # -- 5. start-up and imports -----------------------------------------------------------------
    help_run = None
    if "help" not in skip:
        help_run = measure("spanagree_help", sa + ["--help"], repeat=max(repeat, 5), available=sa_ok, log=log)
        py_run = measure("python_startup", [py, "-c", "pass"], repeat=max(repeat, 5), log=log)
        R["help"] = help_run.as_dict()
        R["python_startup"] = py_run.as_dict()
        R["heavy_imports"] = section(R, "imports", log, lambda: heavy_imports(
            py, sa, ["agree", b1, b2, "--format", "brat", "--output", "json"]))

    # -- 6. candidate index micro-benchmark ------------------------------------------------------
    if "index" not in skip:
        _log(log, "candidate-index micro-benchmark (index_bench.py)")
        longs = [str(out / f"long-{S}" / "jsonl") for S in long_sizes if S in (10000, 100000, 2000)]
        cmd = [py, HERE / "index_bench.py", "--corpus", main_dir / "jsonl", "--markdown"]
        for folder in longs:
            cmd += ["--long", folder]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
            R["index_markdown"] = (r.stdout if r.returncode == 0 else
                                   f"index_bench.py failed:\n\n```\n{r.stderr[-2000:]}\n```\n")
        except (OSError, subprocess.TimeoutExpired) as e:
            R["index_markdown"] = f"index_bench.py failed: {e}\n"
        _log(log, R["index_markdown"])

    R["load_average"]["end"] = load_average()
    R["wall_seconds"] = round(time.perf_counter() - t_start, 1)
    (out / "results.json").write_text(json.dumps(R, indent=2, default=str) + "\n")
    md = render(R, main_runs, jobs, help_run, quick, args, repeat)
    results_md.write_text(md)
    _log(log, f"wrote {results_md} and {out / 'results.json'} ({R['wall_seconds']} s)")
    return 0


def crosscheck(meta, runs, extra):
    """Rows (definition, source, F1, reference F1) where the tools' definitions coincide."""
    expected = meta["exact_strict"][0]["f1"]
    rows = [
        ("exact span and label", "generator (set intersection)", expected, expected),
        ("exact span and label", "spanagree agree BRAT", f1_of(runs.get("spanagree_agree_brat"), "pairs", 0, "f1"),
         expected),
        ("exact span and label", "spanagree score CoNLL (conlleval decoding)",
         f1_of(runs.get("spanagree_score_conll"), "f1"), expected),
        ("exact span and label", "spanagree score JSONL", f1_of(runs.get("spanagree_score_jsonl"), "f1"), expected),
        ("exact span and label", "bratiaa compute_f1_agreement", f1_of(runs.get("bratiaa"), "f1"), expected),
        ("exact span and label", "seqeval f1_score (default)", f1_of(runs.get("seqeval_default"), "f1"), expected),
        ("exact span and label", "nervaluate strict", f1_of(runs.get("nervaluate"), "strict", "f1"), expected),
        ("strict IOB2 decoding", "seqeval f1_score (mode=strict, IOB2) vs spanagree --scheme iob2",
         f1_of(runs.get("seqeval_strict"), "f1"), f1_of(runs.get("spanagree_score_conll_iob2"), "f1")),
        ("exact span, labels ignored", "nervaluate exact vs spanagree exact/ignore",
         f1_of(runs.get("nervaluate"), "exact", "f1"), f1_of(extra.get("exact"), "f1")),
        ("partial credit 0.5, labels ignored", "nervaluate partial vs spanagree partial/ignore",
         f1_of(runs.get("nervaluate"), "partial", "f1"), f1_of(extra.get("partial"), "f1")),
        ("overlap, same label, nervaluate's pairing", "nervaluate ent_type vs spanagree overlap/strict "
         "--pairing nervaluate", f1_of(runs.get("nervaluate"), "ent_type", "f1"),
         f1_of(extra.get("ent_type_nervaluate"), "f1")),
        ("overlap, same label", "nervaluate ent_type vs spanagree overlap/strict",
         f1_of(runs.get("nervaluate"), "ent_type", "f1"), f1_of(extra.get("ent_type"), "f1")),
    ]
    checked = [{"definition": a, "source": b, "f1": c, "reference": d,
                "equal": None if c is None or d is None else abs(c - d) <= F1_TOLERANCE} for a, b, c, d in rows]
    # nervaluate's ent_type pairs each predicted span, in order, with the closest unclaimed gold
    # span of its label that it overlaps, else with the first unclaimed one it overlaps (a wrong
    # label); spanagree aligns same-label spans one-to-one with maximum credit. An early
    # prediction can claim a gold span that a later one needed, and then spanagree finds more
    # pairs (docs/peers.md): the row says by how many. --pairing nervaluate is its procedure.
    correct, a = f1_of(runs.get("nervaluate"), "ent_type", "correct"), f1_of(extra.get("ent_type"), "a")
    if checked[-1]["equal"] is False and correct is not None and a is not None and a >= correct:
        checked[-1]["note"] = (f"greedy pairing: nervaluate {correct:,} correct, spanagree a = {a:,} "
                               f"({a - correct:,} more; --pairing nervaluate gives its figure; docs/peers.md)")
    return checked


# ---------------------------------------------------------------------------------------------
# RESULTS.md
# ---------------------------------------------------------------------------------------------
def render(R, main_runs, jobs, help_run, quick, args, repeat):
    m = R["machine"]
    L = []
    w = L.append
    w("# spanagree benchmark results\n")
    if quick:
        w("**Quick (smoke-test) sizes — not the benchmark of record.**\n")
    w("Generated by `python benchmarks/run.py" + (" --quick" if quick else "") + "` "
      f"on {m['date']} in {R['wall_seconds']:.0f} s. Whole processes, wall time = minimum of "
      f"up to {repeat} runs, peak RSS of the child (`wait4`); spanagree's modules "
      f"{R.get('bytecode', 'as found')}, as a wheel's are on install. What each row runs: "
      "[benchmarks/README.md](README.md).\n")
    la = R.get("load_average", {})
    w("## Machine\n")
    w(f"- CPU: {m.get('cpu', '?')}; nproc {m['nproc']}"
      + (f" (usable {m['sched_cpus']})" if 'sched_cpus' in m else "") + f"; memory {m.get('memory_gib', '?')} GiB")
    w(f"- load average (1, 5, 15 min) at start {la.get('start')}, at end {la.get('end')} — other work on the "
      "machine shows here; ratios within one run are the figures to read")
    w(f"- Python {m['python']} ({m['platform']})")
    w("- spanagree side: " + ", ".join(f"{k} {v}" for k, v in m["versions"].items()))
    w("- peers venv: " + (", ".join(f"{k} {v}" for k, v in m["peer_versions"].items()) or
                          f"not available ({R.get('peers_reason')})"))
    if m.get("git"):
        w(f"- spanagree tree: {m['git']}")
    w(f"- spanagree: {'available' if R['spanagree_available'] else 'NOT available — ' + R['spanagree_reason']}")
    w("")
    c = R["corpus"]
    w("## Corpus\n")
    w(f"`benchmarks/generate.py` (seed 13): {c['documents']:,} documents × 2 annotators, "
      f"{c['tokens']:,} tokens, {c['true_entities']:,} true entities, "
      f"{c['spans_total']:,} spans ({', '.join(f'{k} {v:,}' for k, v in c['spans'].items())}); "
      "5% misses, 5% one-token boundary shifts, 5% label errors, 5% spurious spans per annotator. "
      "Same spans written as BRAT, CoNLL (IOB2) and JSONL.\n")

    s = {k: r.seconds for k, r in main_runs.items()}
    rss = {k: r.rss_mib for k, r in main_runs.items()}
    if main_runs:
        w("## Same work, same files\n")
        w("| tool | input | time (s) | peak RSS (MiB) | vs plain parse |")
        w("|---|---|---:|---:|---:|")
        plain = {"brat": s.get("plain_brat"), "conll": s.get("plain_conll"), "jsonl": s.get("plain_jsonl")}
        rows = [("plain-Python parse", "brat", "plain_brat"),
                ("**spanagree agree** (exact/strict)", "brat", "spanagree_agree_brat"),
                ("spanagree agree --errors FILE (every disagreement, in context)", "brat",
                 "spanagree_agree_brat_errors"),
                ("bratiaa `compute_f1_agreement`", "brat", "bratiaa"),
                ("plain-Python parse", "conll", "plain_conll"),
                ("**spanagree score** (conlleval decoding)", "conll", "spanagree_score_conll"),
                ("seqeval `f1_score` default", "conll", "seqeval_default"),
                ("**spanagree score --scheme iob2**", "conll", "spanagree_score_conll_iob2"),
                ("seqeval `f1_score` mode=strict, IOB2", "conll", "seqeval_strict"),
                ("plain-Python parse", "jsonl", "plain_jsonl"),
                ("**spanagree score**", "jsonl", "spanagree_score_jsonl"),
                ("spanagree score --errors FILE (every error, in context)", "jsonl", "spanagree_score_jsonl_errors"),
                ("nervaluate `evaluate()` (4 schemes)", "jsonl", "nervaluate")]
        for label, fmt, key in rows:
            r = main_runs.get(key)
            if r is None:
                continue
            rel = ratio(r.seconds, plain[fmt])
            w(f"| {label} | {'JSONL' if fmt == 'jsonl' else fmt.upper() if fmt == 'brat' else 'CoNLL'} | "
              f"{fmt_s(r.seconds) if r.ok else r.error} | {fmt_s(r.rss_mib, 0)} | "
              f"{fmt_s(rel, 2) + '×' if rel else '—'} |")
        w("")

    w("## Targets (issues 6 and 17)\n")
    w("| target | measured | verdict |")
    w("|---|---|---|")

    def row(text, value, target, higher=True, unit="×"):
        w(f"| {text} | {fmt_s(value) + unit if value is not None else 'n/a'} | "
          f"{verdict(value, target, higher)} {by_how_much(value, target, higher)} |")

    if main_runs:
        row("agree BRAT ≥ 3× faster than bratiaa", ratio(s.get("bratiaa"), s.get("spanagree_agree_brat")), 3)
        row("score CoNLL ≥ 2× faster than seqeval (default)",
            ratio(s.get("seqeval_default"), s.get("spanagree_score_conll")), 2)
        row("score CoNLL --scheme iob2 ≥ 2× faster than seqeval (strict)",
            ratio(s.get("seqeval_strict"), s.get("spanagree_score_conll_iob2")), 2)
        row("score JSONL ≥ 3× faster than nervaluate", ratio(s.get("nervaluate"), s.get("spanagree_score_jsonl")), 3)
        row("agree BRAT within 3× of the plain parse", ratio(s.get("spanagree_agree_brat"), s.get("plain_brat")), 3,
            False)
        row("score CoNLL within 3× of the plain parse", ratio(s.get("spanagree_score_conll"), s.get("plain_conll")),
            3, False)
        row("score JSONL within 3× of the plain parse", ratio(s.get("spanagree_score_jsonl"), s.get("plain_jsonl")),
            3, False)
        for key, text in (("spanagree_agree_brat", "agree BRAT"), ("spanagree_score_conll", "score CoNLL"),
                          ("spanagree_score_jsonl", "score JSONL")):
            row(f"{text} peak RSS ≤ bratiaa's (ratio)", ratio(rss.get(key), rss.get("bratiaa")), 1, False)
    long10 = next((r for r in R.get("long", []) if r["spans_per_annotator"] == 10000), None)
    if long10 is not None:
        row("one document, 10k spans: ≥ 30× faster than nervaluate",
            ratio((long10.get("nervaluate") or {}).get("seconds"), long10["spanagree"]["seconds"]), 30)
    doubling_rows = [r for r in R.get("long", []) if r["spans_per_annotator"] != 10000 or len(R["long"]) < 4]
    dbl = doubling(doubling_rows, "spans_per_annotator") + doubling(R.get("docs_series", []), "documents")
    worst = max((x for _, _, x in dbl if x is not None), default=None)
    if dbl:
        row("doubling spans (one document) or documents costs ≤ 2.2× (worst step)", worst, 2.2, False)
    if jobs:
        row(f"--jobs 2 ≥ 1.3× faster than --jobs 1 ({R['jobs']['documents']:,} documents)",
            ratio(jobs[1].seconds, jobs[2].seconds), 1.3)
        same = R["jobs"]["identical"]
        w(f"| --jobs 2 results identical to --jobs 1 | {same} | "
          f"{'**met**' if same else ('n/a' if same is None else '**MISSED**')} |")
    if main_runs:  # issue 17's one-process targets
        row("issue 17: agree BRAT ≥ 6× faster than bratiaa", ratio(s.get("bratiaa"), s.get("spanagree_agree_brat")), 6)
        row("issue 17: score CoNLL ≥ 3× faster than seqeval (default)",
            ratio(s.get("seqeval_default"), s.get("spanagree_score_conll")), 3)
        row("issue 17: score JSONL ≥ 6× faster than nervaluate",
            ratio(s.get("nervaluate"), s.get("spanagree_score_jsonl")), 6)
    scale = R.get("scale") if isinstance(R.get("scale"), dict) and "rows" in R["scale"] else None
    if scale:
        for r in scale["rows"]:
            row(f"issue 17: {r['command']} {r['format']} --jobs 2 ≥ 1.6× faster than --jobs 1 "
                f"({scale['documents']:,} documents; identical: {r['identical']})",
                ratio(r["runs"][1]["seconds"], r["runs"][2]["seconds"]), 1.6)
        mm = scale["merge_memory"]
        row(f"issue 17: merge of {mm['documents']:,} documents ≤ 100 MiB peak (with --adjudicate, --report)",
            mm["rss_mib"], 100, False, " MiB")
    cluster = R.get("cluster") if isinstance(R.get("cluster"), dict) and R["cluster"].get("rows") else None
    if cluster:
        same = all(r["identical"] for r in cluster["rows"])
        w(f"| issue 17: a two-worker cluster gives the same JSON as a local run ({len(cluster['rows'])} runs) | "
          f"{same} | {'**met**' if same else '**MISSED**'} |")
    if help_run is not None:
        row("`spanagree --help` < 0.5 s", help_run.seconds, 0.5, False, " s")
    report = R.get("report")
    if report and isinstance(report.get("load"), dict) and "seconds" in report["load"]:
        row(f"the {report['documents']:,}-document report opens in a few seconds (Chromium, < 5 s)",
            report["load"]["seconds"], 5, False, " s")
    heavy = R.get("heavy_imports")
    if heavy:
        loaded = sorted({m for mods in heavy.values() for m in mods})
        w(f"| no heavy module ({', '.join(HEAVY_MODULES)}) imported by `import spanagree`, `--help`, "
          f"`agree` BRAT JSON | {', '.join(loaded) or 'none imported'} | "
          f"{'**met**' if not loaded else '**MISSED**'} |")
    w("")

    if R.get("crosscheck"):
        w("## F1 cross-check (same data, where the definitions coincide)\n")
        w(f"Equal = within {F1_TOLERANCE:g}. The exact-span rows are compared with the generator's own "
          "set intersection; the others with the spanagree run of the same definition.\n")
        w("| definition | source | F1 | reference F1 | equal |")
        w("|---|---|---|---|---|")
        for x in R["crosscheck"]:
            eq = {None: "—", True: "yes", False: "**NO**"}[x["equal"]]
            if x.get("note"):
                eq = f"no, by design — {x['note']}"
            w(f"| {x['definition']} | {x['source']} | {fmt_s(x['f1'], 12)} | {fmt_s(x['reference'], 12)} | {eq} |")
        known = [x["equal"] for x in R["crosscheck"] if x["equal"] is not None and not x.get("note")]
        w(f"\nAll available figures of coinciding definitions agree: **{'yes' if known and all(known) else 'NO'}** "
          f"({len(known)} of {len(R['crosscheck'])} rows). Exact-boundary matches are unique (a span has at "
          "most one identical partner), so greedy matchers find the same pairs as spanagree's one-to-one "
          "alignment there, and bratiaa's set semantics lose nothing since no annotator repeats a span. "
          "Under overlap, greedy pairing can miss pairs the optimal alignment keeps.\n")

    if R.get("phases"):
        w("## Where spanagree's time goes (`benchmarks/phases.py`, one untimed run each)\n")
        w("Seconds per phase: interpreter start-up and imports; reading the files (the format readers); "
          "checking that each document's copies have the same text; aligning and counting; error analysis "
          "(`score`); JSON; the rest.\n")
        w("Per document: the run less its start-up, divided by the documents of the corpus (µs of wall "
          "time); CPU: the process's processor time (user + system, s), which other work sharing the cores "
          "disturbs less than the wall-clock phases.\n")
        w("| run | start-up | read | texts | align + count | error analysis | render | other | total | CPU | "
          "per document (µs) |")
        w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name, ph in R["phases"].items():
            if ph:
                per = ((ph["total"] - ph.get("startup", 0)) / ph["documents"] * 1e6
                       if ph.get("documents") and ph.get("total") is not None else None)
                w(f"| {name} | " + " | ".join(fmt_s(ph.get(k)) for k in
                                             ("startup", "read", "texts", "align", "errors", "render", "other"))
                  + f" | {fmt_s(ph.get('total'))} | {fmt_s(ph.get('cpu'))} | {fmt_s(per, 0)} |")
        w("")

    if R.get("short"):
        c = R.get("short_corpus") or {}
        runs = R["short"]
        w("## Many short documents (the run's own cost per document)\n")
        w(f"`benchmarks/generate.py --short`: {c.get('documents', 0):,} documents of 60-200 tokens "
          f"({c.get('tokens', 0):,} tokens, {c.get('spans_total', 0):,} spans) × 2 annotators, CoNLL. "
          "Wall time and processor time (user + system) are each the minimum of the runs; per document: "
          "processor time over the documents. Other processes sharing the cores lengthen the wall times far "
          "more than the processor times: read the ratios.\n")
        w("| tool | time (s) | CPU (s) | CPU per document (µs) | vs plain parse (time) | vs plain parse (CPU) |")
        w("|---|---:|---:|---:|---:|---:|")
        plain = runs.get("plain_conll") or {}
        for label, key in (("plain-Python parse", "plain_conll"),
                           ("**spanagree score** (conlleval decoding)", "spanagree_score_conll"),
                           ("seqeval `f1_score` default", "seqeval_default")):
            r = runs.get(key)
            if not r:
                continue
            if r.get("error"):
                w(f"| {label} | {r['error']} | | | | |")
                continue
            per = r["cpu_seconds"] / c["documents"] * 1e6 if c.get("documents") and r.get("cpu_seconds") else None
            wall_ratio, cpu_ratio = ratio(r["seconds"], plain.get("seconds")), ratio(r.get("cpu_seconds"),
                                                                                      plain.get("cpu_seconds"))
            w(f"| {label} | {fmt_s(r['seconds'])} | {fmt_s(r.get('cpu_seconds'))} | {fmt_s(per, 0)} | "
              f"{fmt_s(wall_ratio) + '×' if wall_ratio else '—'} | {fmt_s(cpu_ratio) + '×' if cpu_ratio else '—'} |")
        w("")

    if R.get("long"):
        w("## One long document (spanagree score JSONL vs nervaluate)\n")
        w(f"nervaluate is run while its predicted time stays under {args.nervaluate_limit:.0f} s "
          "(it is quadratic within a document).\n")
        w("| spans / annotator | spans total | spanagree (s) | RSS (MiB) | per doubling | nervaluate (s) | "
          "nervaluate / spanagree | F1 equal |")
        w("|---:|---:|---:|---:|---:|---:|---:|---|")
        steps = {b: x for _, b, x in doubling(doubling_rows, "spans_per_annotator")}
        for r in R["long"]:
            s_t = r["spanagree"]["seconds"]
            n = r.get("nervaluate") or {}
            n_t = n.get("seconds")
            f_ok = [abs(r[key] - r["expected_f1"]) <= F1_TOLERANCE for key in ("spanagree_f1", "nervaluate_f1")
                    if r.get(key) is not None]
            step = steps.get(r["spans_per_annotator"]) if r in doubling_rows else None
            w(f"| {r['spans_per_annotator']:,} | {r['spans_total']:,} | "
              f"{fmt_s(s_t) if s_t is not None else r['spanagree']['error']} | "
              f"{fmt_s(r['spanagree']['rss_mib'], 0)} | {fmt_s(step) + '×' if step else ''} | "
              f"{fmt_s(n_t) if n_t is not None else (n.get('error') or 'skipped')} | "
              f"{fmt_s(ratio(n_t, s_t), 1) + '×' if ratio(n_t, s_t) else ''} | "
              f"{('yes' if all(f_ok) else '**NO**') if f_ok else '—'} |")
        w("\nPer doubling = time over the previous size's, normalised to a doubling of the spans "
          "(the 10k row, the nervaluate target's point, is left out of the series).\n")
    if R.get("docs_series"):
        w("## Number of documents (spanagree score JSONL, the first n documents of the jobs corpus)\n")
        w("| documents | time (s) | RSS (MiB) | per doubling |")
        w("|---:|---:|---:|---:|")
        steps = {b: x for _, b, x in doubling(R["docs_series"], "documents")}
        for r in R["docs_series"]:
            t = r["spanagree"]["seconds"]
            x = steps.get(r["documents"])
            w(f"| {r['documents']:,} | {fmt_s(t) if t is not None else r['spanagree']['error']} | "
              f"{fmt_s(r['spanagree']['rss_mib'], 0)} | {fmt_s(x) + '×' if x else ''} |")
        w("")
    if R.get("scale") and isinstance(R["scale"], dict) and "rows" in R["scale"]:
        sc = R["scale"]
        w(f"## --jobs 2 against --jobs 1 for every command and format ({sc['documents']:,} documents, one run each)\n")
        w("Whole processes; RSS is the parent's (wait4), the workers' own memory is not in it. `merge` writes its "
          "gold (JSONL) and `--adjudicate` CSV; identical = the JSON apart from the options echo and, for merge, "
          "the gold and listing byte for byte. Target: ≥ 1.6×.\n")
        w("| command | input | --jobs 1 (s) | --jobs 2 (s) | speed-up | RSS 1 / 2 (MiB) | identical |")
        w("|---|---|---:|---:|---:|---:|---|")
        for r in sc["rows"]:
            one, two = r["runs"][1], r["runs"][2]
            w(f"| {r['command']} | {r['format']} | {fmt_s(one['seconds'])} | {fmt_s(two['seconds'])} | "
              f"{fmt_s(ratio(one['seconds'], two['seconds']))}× | {fmt_s(one['rss_mib'], 0)} / "
              f"{fmt_s(two['rss_mib'], 0)} | {r['identical']} |")
        mm = sc["merge_memory"]
        w(f"\n`merge` of {mm['documents']:,} BRAT documents with `--adjudicate` and `--report` (one process): "
          f"{fmt_s(mm['seconds'])} s, peak RSS {fmt_s(mm['rss_mib'], 0)} MiB (target ≤ 100 MiB)"
          + (f"; error: {mm['error']}" if mm.get("error") else "") + ".\n")
    cl = R.get("cluster")
    if isinstance(cl, dict) and (cl.get("rows") or cl.get("error")):
        w(f"## A Dask cluster against one process ({cl.get('documents') or 0:,} documents, one run each)\n")
        if cl.get("error"):
            w(f"Not measured: {cl['error']}.\n")
        else:
            w("A scheduler and two one-thread worker processes started with `dask scheduler` and `dask worker` "
              "on this machine (they share its two cores with the client); one process = the `--jobs 1` run "
              "above. Identical = the JSON apart from the options echo and, for merge, the gold and listing "
              "byte for byte. This shows the strategy's overhead, not a real cluster's scale.\n")
            w("| command | input | one process (s) | cluster, 2 workers (s) | speed-up | client RSS (MiB) | identical |")
            w("|---|---|---:|---:|---:|---:|---|")
            for r in cl["rows"]:
                one, two = r["one_process"], r["cluster"]
                w(f"| {r['command']} | {r['format']} | {fmt_s(one['seconds'])} | "
                  f"{fmt_s(two['seconds']) if two['seconds'] else two['error']} | "
                  f"{fmt_s(ratio(one['seconds'], two['seconds']))}× | {fmt_s(two['rss_mib'], 0)} | "
                  f"{r['identical']} |")
            w("")
    if jobs:
        j = R["jobs"]
        w(f"## --jobs on {j['documents']:,} documents (spanagree agree BRAT)\n")
        w("| --jobs | time (s) | RSS (MiB, parent) | F1 | read (s) | align + count (s) |")
        w("|---:|---:|---:|---|---:|---:|")
        for k, r in jobs.items():
            ph = (j.get("phases") or {}).get(k) or {}
            w(f"| {k} | {fmt_s(r.seconds) if r.ok else r.error} | {fmt_s(r.rss_mib, 0)} | {j['f1'][k]} | "
              f"{fmt_s(ph.get('read'))} | {fmt_s(ph.get('align'))} |")
        align = {k: ((j.get("phases") or {}).get(k) or {}).get("align") for k in (1, 2)}
        w(f"\nSpeed-up {fmt_s(ratio(jobs[1].seconds, jobs[2].seconds))}× for the whole process, "
          f"{fmt_s(ratio(align[1], align[2]))}× "
          f"for the alignment; JSON identical apart from `options.jobs`: {j['identical']}; "
          f"generator F1 {j['expected_f1']}. The read/align columns come from `phases.py` (one more run each). "
          "(Peak RSS from `wait4` is the largest single process — the workers' is not added.)\n")
    report = R.get("report")
    if report:
        load = report.get("load") or {}
        w(f"## The HTML report (`agree --report`, {report['documents']:,} documents, BRAT)\n")
        w("| run | wall (s) | peak RSS (MiB) | page (MB) | loaded in Chromium (s) |")
        w("|---|---|---|---|---|")
        for name, key in (("agree --output json", "agree"), ("agree --output json --by document", "by_document"),
                          ("agree --output json --report FILE.html (embeds the --by document JSON)", "with_report")):
            run_ = report.get(key) or {}
            size = f"{report['bytes'] / 1e6:.1f}" if key == "with_report" and report.get("bytes") else ""
            loaded = (fmt_s(load["seconds"]) if "seconds" in load else load.get("error", "n/a")[:80]) \
                if key == "with_report" else ""
            w(f"| {name} | {fmt_s(run_.get('seconds'))} | {fmt_s(run_.get('rss_mib'), 0)} | {size} | {loaded} |")
        if "seconds" in load:
            w(f"\nLoaded = from navigation until the page's script has drawn the summary and the first "
              f"disagreement (`benchmarks/report_load.py`, fastest of {len(load.get('runs', []))}); console "
              f"errors: {len(load.get('errors', []))}; requests other than the page: {load.get('requests')}.\n")
        else:
            w("")
    if R.get("gamma"):
        import gamma_bench

        L.extend(gamma_bench.gamma_markdown(R["gamma"]))
    if help_run is not None:
        w("## Start-up and imports\n")
        w(f"`spanagree --help`: {fmt_s(help_run.seconds, 3) if help_run.ok else help_run.error} s "
          f"(bare `python -c pass`: {fmt_s(R['python_startup']['seconds'], 3)} s).\n")
        if R.get("heavy_imports"):
            w("Heavy modules imported (`python -X importtime`):\n")
            for name, mods in R["heavy_imports"].items():
                w(f"- `{name}`: {', '.join(mods) or 'none'}")
            w("")
    if R.get("index_markdown"):
        w(R["index_markdown"].rstrip() + "\n")
    failed = [r for r in list(main_runs.values()) if r.error and r.error != "not available"]
    if failed or R.get("section_errors"):
        w("## Failures\n")
        for r in failed:
            w(f"- {r.name}: {r.error}\n\n```\n{r.stderr[-1500:]}\n```")
        for name, tb in (R.get("section_errors") or {}).items():
            w(f"- section {name} crashed:\n\n```\n{tb}\n```")
    return "\n".join(L) + "\n"


if __name__ == "__main__":
    sys.exit(main())
