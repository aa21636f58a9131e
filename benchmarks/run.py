"""The spanagree benchmark: spanagree against its peers, in one run, on the same files.

Times whole processes (a fresh child per run; wall time, minimum of several runs; peak RSS of
that child from ``os.wait4``) of

* ``spanagree agree ann1 ann2 --format brat --output json`` (exact/strict),
  ``spanagree score ann1.conll ann2.conll --output json`` and the same on JSONL;
* bratiaa's ``compute_f1_agreement`` on the BRAT project, seqeval's ``f1_score`` (default and
  ``mode="strict", scheme=IOB2``) on the CoNLL files, nervaluate's ``Evaluator(...).evaluate()``
  (all four schemes) on the JSONL files — each through a small driver in ``benchmarks/peers/``
  run by the peers' own interpreter (a scratch venv, ``--peers-python``);
* a plain-Python parse of the same files (``benchmarks/peers/plain_parse.py``): the practical
  limit;

checks that every tool gives the same F1 where the definitions coincide, and runs the scaling
series (one long document, spanagree vs nervaluate; number of documents), ``--jobs 2`` vs
``--jobs 1`` on 40,000 documents, ``spanagree --help``, and the candidate-pair micro-benchmark
(``index_bench.py``). Writes ``benchmarks/RESULTS.md`` (``--quick``: ``OUT/RESULTS.md``) and the
raw figures to ``OUT/results.json``.

If spanagree (or a peer) cannot run, its rows say "not available" and the rest still runs.

Usage::

    python benchmarks/run.py            # full run (~10-20 min on 2 cores)
    python benchmarks/run.py --quick    # smoke test (~1 min)
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PEERS = HERE / "peers"
sys.path.insert(0, str(HERE))

import generate  # noqa: E402

DEFAULT_OUT = Path("/tmp/spanagree-bench")
DEFAULT_PEERS_PYTHON = "/tmp/peers/bin/python"
F1_TOLERANCE = 1e-9


# ---------------------------------------------------------------------------------------------
# Running and timing whole processes
# ---------------------------------------------------------------------------------------------
class Run:
    """The outcome of timing one command: min wall time, peak RSS, last stdout, status."""

    def __init__(self, name, cmd):
        self.name, self.cmd = name, cmd
        self.times: list[float] = []
        self.rss_kib: list[int] = []
        self.stdout = ""
        self.stderr = ""
        self.rc = None
        self.error = None  # "not available", "timeout", "exit N"

    @property
    def ok(self):
        return self.error is None and self.times

    @property
    def seconds(self):
        return min(self.times) if self.ok else None

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
                "seconds": self.seconds, "rss_mib": self.rss_mib, "error": self.error,
                "stderr_tail": self.stderr[-2000:] if self.error else ""}


def run_once(cmd, *, timeout=None, cwd=None, env=None):
    """(wall seconds, peak RSS KiB, rc, stdout, stderr, timed_out) of one fresh child."""
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
    return wall, ru.ru_maxrss, p.returncode, stdout, stderr, timed_out.is_set()


def measure(name, cmd, *, repeat=3, budget=120.0, timeout=None, cwd=None, env=None,
            available=True, log=None):
    """Time ``cmd`` up to ``repeat`` times (at least twice unless a run exceeds ``budget``/2;
    stop once the runs add up to ``budget`` seconds). Minimum wall time, maximum peak RSS."""
    r = Run(name, cmd)
    if not available:
        r.error = "not available"
        _log(log, f"  {name}: not available")
        return r
    spent = 0.0
    for i in range(max(repeat, 1)):
        wall, rss, rc, out, err, timed_out = run_once(cmd, timeout=timeout, cwd=cwd, env=env)
        r.stdout, r.stderr, r.rc = out, err, rc
        if timed_out:
            r.error = f"timeout (> {timeout:.0f} s)"
            break
        if rc != 0:
            r.error = f"exit {rc}"
            break
        r.times.append(wall)
        r.rss_kib.append(rss)
        spent += wall
        if spent >= budget or (i == 0 and wall > budget / 2):
            break
    if r.ok:
        _log(log, f"  {name}: {r.seconds:.3f} s (runs: {', '.join(f'{t:.2f}' for t in r.times)}), "
                  f"{r.rss_mib:.0f} MiB")
    else:
        _log(log, f"  {name}: {r.error} {r.stderr.strip().splitlines()[-1:] if r.stderr else ''}")
    return r


def _log(log, msg):
    print(msg, file=sys.stderr, flush=True)
    if log is not None:
        log.append(msg)


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


def check_peers(python):
    if not Path(python).exists():
        return {}, f"{python} does not exist (python -m venv /tmp/peers && " \
                   f"/tmp/peers/bin/pip install -r benchmarks/requirements.txt)"
    code = ("import json, importlib.metadata as m\n"
            "out = {}\n"
            "for d in ('bratiaa', 'seqeval', 'nervaluate', 'numpy', 'scipy', 'scikit-learn'):\n"
            "    try: out[d] = m.version(d)\n"
            "    except m.PackageNotFoundError: out[d] = None\n"
            "for mod in ('bratiaa', 'seqeval.metrics', 'nervaluate'):\n"
            "    try: __import__(mod)\n"
            "    except Exception as e: out['import-error:' + mod] = repr(e)\n"
            "print(json.dumps(out))")
    r = subprocess.run([python, "-c", code], capture_output=True, text=True)
    if r.returncode != 0:
        return {}, r.stderr.strip()[-300:]
    return json.loads(r.stdout), ""


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


# ---------------------------------------------------------------------------------------------
# The benchmark
# ---------------------------------------------------------------------------------------------
def f1_of(run, *path):
    data = run.json() if run.ok else None
    for key in path:
        if data is None:
            return None
        data = data[key] if isinstance(data, dict) or (isinstance(data, list) and isinstance(key, int)) else None
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


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"corpora folder (default {DEFAULT_OUT})")
    p.add_argument("--quick", action="store_true", help="small sizes: a smoke test of the whole run")
    p.add_argument("--docs", type=int, help="main corpus size in documents (default 10000; quick 400)")
    p.add_argument("--jobs-docs", type=int, help="corpus for --jobs (default 40000; quick 1600)")
    p.add_argument("--long", help="comma-separated span counts of the one-long-document series")
    p.add_argument("--repeat", type=int, default=3, help="runs per measurement (min is reported)")
    p.add_argument("--nervaluate-limit", type=float, default=60.0,
                   help="stop nervaluate's long-document series once a run would exceed this (s)")
    p.add_argument("--peers-python", default=DEFAULT_PEERS_PYTHON)
    p.add_argument("--results", type=Path, help="markdown output (default benchmarks/RESULTS.md; "
                                                  "--quick: OUT/RESULTS.md)")
    p.add_argument("--skip", default="", help="comma-separated sections to skip: "
                                              "main,long,docs,jobs,help,index")
    args = p.parse_args(argv)
    quick = args.quick
    docs = args.docs or (400 if quick else 10000)
    jobs_docs = args.jobs_docs or (1600 if quick else 40000)
    if args.long:
        long_sizes = [int(x) for x in args.long.split(",")]
    else:
        long_sizes = [500, 1000, 2000] if quick else [2500, 5000, 10000, 20000, 40000, 80000, 100000]
    doc_series = [jobs_docs // 32, jobs_docs // 16, jobs_docs // 8, jobs_docs // 4, jobs_docs // 2, jobs_docs]
    repeat = 2 if quick and args.repeat == 3 else args.repeat
    skip = {s for s in args.skip.split(",") if s}
    results_md = args.results or (args.out / "RESULTS.md" if quick else HERE / "RESULTS.md")
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    log: list[str] = []
    t_start = time.perf_counter()

    sa = spanagree_command()
    sa_ok, sa_reason = check_spanagree(sa)
    _log(log, f"spanagree: {'available' if sa_ok else 'NOT available: ' + sa_reason} ({sa[0]})")
    peer_versions, peers_reason = check_peers(args.peers_python)
    peers_ok = bool(peer_versions) and not any(k.startswith("import-error") for k in peer_versions)
    _log(log, f"peers: {peer_versions or peers_reason}")
    py = sys.executable
    pp = args.peers_python
    info = machine_info(peer_versions)
    R: dict = {"machine": info, "spanagree_available": sa_ok, "spanagree_reason": sa_reason,
               "sizes": {"docs": docs, "jobs_docs": jobs_docs, "long": long_sizes}}

    # -- corpora --------------------------------------------------------------------------------
    _log(log, "generating corpora (cached in meta.json) ...")
    main_dir = out / f"docs-{docs}"
    meta = generate.generate(main_dir, docs=docs)
    R["corpus"] = {k: meta[k] for k in ("documents", "tokens", "true_entities", "spans", "spans_total",
                                        "exact_strict")}
    R["corpus"]["path"] = str(main_dir)

    # -- 1. main comparison -----------------------------------------------------------------------
    main_runs: dict[str, Run] = {}
    if "main" not in skip:
        _log(log, f"main comparison on {main_dir} ({meta['spans_total']} spans)")
        d = main_dir
        b1, b2 = d / "brat" / "ann1", d / "brat" / "ann2"
        c1, c2 = d / "conll" / "ann1.conll", d / "conll" / "ann2.conll"
        j1, j2 = d / "jsonl" / "ann1.jsonl", d / "jsonl" / "ann2.jsonl"
        plan = [
            ("plain_brat", [py, PEERS / "plain_parse.py", "brat", b1, b2], True),
            ("plain_conll", [py, PEERS / "plain_parse.py", "conll", c1, c2], True),
            ("plain_jsonl", [py, PEERS / "plain_parse.py", "jsonl", j1, j2], True),
            ("spanagree_agree_brat", sa + ["agree", b1, b2, "--format", "brat", "--output", "json"], sa_ok),
            ("spanagree_score_conll", sa + ["score", c1, c2, "--output", "json"], sa_ok),
            ("spanagree_score_jsonl", sa + ["score", j1, j2, "--output", "json"], sa_ok),
            ("bratiaa", [pp, PEERS / "bratiaa_agree.py", d / "brat"], peers_ok),
            ("seqeval_default", [pp, PEERS / "seqeval_score.py", c1, c2], peers_ok),
            ("seqeval_strict", [pp, PEERS / "seqeval_score.py", c1, c2, "--strict"], peers_ok),
            ("nervaluate", [pp, PEERS / "nervaluate_score.py", j1, j2], peers_ok),
        ]
        for name, cmd, avail in plan:
            main_runs[name] = measure(name, cmd, repeat=repeat, available=avail, log=log,
                                      timeout=1800)
        # Other (match, labels) points of spanagree against nervaluate's other schemes: untimed.
        extra = {}
        if sa_ok:
            for scheme, opts in (("exact", ["--match", "exact", "--labels", "ignore"]),
                                 ("partial", ["--match", "partial", "--labels", "ignore"]),
                                 ("ent_type", ["--match", "overlap", "--labels", "strict"])):
                extra[scheme] = measure(f"spanagree_score_jsonl_{scheme}",
                                        sa + ["score", j1, j2, "--output", "json"] + opts,
                                        repeat=1, log=log, timeout=1800)
        R["main"] = {k: v.as_dict() for k, v in main_runs.items()}
        R["main_extra"] = {k: v.as_dict() for k, v in extra.items()}
        R["main_extra_json"] = {k: {kk: v.json().get(kk) for kk in ("a", "b", "c", "f1")}
                                for k, v in extra.items() if v.ok and v.json()}
    # F1 values
    f1s = {}
    if main_runs:
        f1s = {
            "generator (set intersection)": meta["exact_strict"][0]["f1"],
            "spanagree agree BRAT (exact/strict)": f1_of(main_runs["spanagree_agree_brat"], "pairs", 0, "f1"),
            "spanagree score CoNLL (exact/strict)": f1_of(main_runs["spanagree_score_conll"], "f1"),
            "spanagree score JSONL (exact/strict)": f1_of(main_runs["spanagree_score_jsonl"], "f1"),
            "bratiaa compute_f1_agreement": f1_of(main_runs["bratiaa"], "f1"),
            "seqeval f1_score (default)": f1_of(main_runs["seqeval_default"], "f1"),
            "seqeval f1_score (strict, IOB2)": f1_of(main_runs["seqeval_strict"], "f1"),
            "nervaluate strict": f1_of(main_runs["nervaluate"], "strict", "f1"),
        }
    R["f1_crosscheck"] = f1s

    # -- 2. one long document -------------------------------------------------------------------
    long_rows = []
    if "long" not in skip:
        _log(log, "one-long-document series")
        nerv_stop = not peers_ok
        prev_nerv = None
        for S in long_sizes:
            ldir = out / f"long-{S}"
            lmeta = generate.generate(ldir, long=S, formats=("jsonl",))
            j1, j2 = ldir / "jsonl" / "ann1.jsonl", ldir / "jsonl" / "ann2.jsonl"
            row = {"spans_per_annotator": S, "spans_total": lmeta["spans_total"],
                   "expected_f1": lmeta["exact_strict"][0]["f1"]}
            s_run = measure(f"spanagree_score_long_{S}", sa + ["score", j1, j2, "--output", "json"],
                            repeat=repeat, available=sa_ok, log=log, timeout=1800)
            row["spanagree"] = s_run.as_dict()
            row["spanagree_f1"] = f1_of(s_run, "f1")
            # nervaluate is quadratic within a document: predict the next time (x4 per doubling)
            # and stop before it would exceed the limit.
            if not nerv_stop and prev_nerv is not None:
                prev_S, prev_t = prev_nerv
                if prev_t * (S / prev_S) ** 2 > args.nervaluate_limit:
                    nerv_stop = True
            if not nerv_stop:
                n_run = measure(f"nervaluate_long_{S}", [pp, PEERS / "nervaluate_score.py", j1, j2],
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
    R["long"] = long_rows

    # -- 3. number of documents, and --jobs ---------------------------------------------------
    doc_rows = []
    jobs = {}
    if not {"docs", "jobs"} <= skip:
        jdir = out / f"docs-{jobs_docs}"
        fmts = ("brat", "jsonl")
        jmeta = generate.generate(jdir, docs=jobs_docs, formats=fmts)
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
                        repeat=repeat, available=sa_ok, log=log, timeout=1800)
            doc_rows.append({"documents": n, "spanagree": r.as_dict()})
    R["docs_series"] = doc_rows
    if "jobs" not in skip:
        _log(log, f"--jobs on {jobs_docs} documents (BRAT)")
        b1, b2 = jdir / "brat" / "ann1", jdir / "brat" / "ann2"
        for j in (1, 2):
            jobs[j] = measure(f"spanagree_agree_brat_jobs{j}",
                              sa + ["agree", b1, b2, "--format", "brat", "--output", "json", "--jobs", str(j)],
                              repeat=repeat, available=sa_ok, log=log, timeout=1800)
        same = None
        if jobs[1].ok and jobs[2].ok:
            a, b = jobs[1].json(), jobs[2].json()
            for x in (a, b):
                if isinstance(x, dict):
                    x.get("options", {}).pop("jobs", None)
            same = a == b
        R["jobs"] = {"documents": jobs_docs, "expected_f1": jmeta["exact_strict"][0]["f1"],
                     "runs": {j: r.as_dict() for j, r in jobs.items()}, "identical": same,
                     "f1": {j: f1_of(r, "pairs", 0, "f1") for j, r in jobs.items()}}

    # -- 4. --help ----------------------------------------------------------------------------------
    help_run = None
    if "help" not in skip:
        help_run = measure("spanagree_help", sa + ["--help"], repeat=max(repeat, 5), available=sa_ok, log=log)
        py_run = measure("python_startup", [py, "-c", "pass"], repeat=max(repeat, 5), log=log)
        R["help"] = help_run.as_dict()
        R["python_startup"] = py_run.as_dict()

    # -- 5. index micro-benchmark --------------------------------------------------------------
    index_md = ""
    if "index" not in skip:
        _log(log, "candidate-pair micro-benchmark (index_bench.py)")
        r = subprocess.run([py, HERE / "index_bench.py", "--corpus", main_dir / "jsonl", "--markdown"],
                           capture_output=True, text=True)
        index_md = r.stdout if r.returncode == 0 else f"index_bench.py failed:\n\n```\n{r.stderr[-2000:]}\n```\n"
        _log(log, index_md)
        R["index_markdown"] = index_md

    R["wall_seconds"] = round(time.perf_counter() - t_start, 1)
    (out / "results.json").write_text(json.dumps(R, indent=2, default=str) + "\n")
    md = render(R, main_runs, jobs, help_run, quick, args)
    results_md.write_text(md)
    _log(log, f"wrote {results_md} and {out / 'results.json'} ({R['wall_seconds']} s)")
    return 0


# ---------------------------------------------------------------------------------------------
# RESULTS.md
# ---------------------------------------------------------------------------------------------
def render(R, main_runs, jobs, help_run, quick, args):
    m = R["machine"]
    L = []
    w = L.append
    w("# spanagree benchmark results\n")
    if quick:
        w("**Quick (smoke-test) sizes — not the benchmark of record.**\n")
    w("Generated by `python benchmarks/run.py" + (" --quick" if quick else "") + "` "
      f"on {m['date']} in {R['wall_seconds']:.0f} s. Whole processes, wall time = minimum of "
      f"up to {args.repeat if not quick else 2} runs, peak RSS of the child (`wait4`). "
      "See benchmarks/README.md for what each row runs.\n")
    w("## Machine\n")
    w(f"- CPU: {m.get('cpu', '?')}; nproc {m['nproc']}"
      + (f" (usable {m['sched_cpus']})" if 'sched_cpus' in m else "") + f"; memory {m.get('memory_gib', '?')} GiB")
    w(f"- Python {m['python']} ({m['platform']})")
    w("- spanagree side: " + ", ".join(f"{k} {v}" for k, v in m["versions"].items()))
    w("- peers venv: " + (", ".join(f"{k} {v}" for k, v in m["peer_versions"].items()) or "not available"))
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
      f"Same spans written as BRAT, CoNLL (IOB2) and JSONL.\n")

    if main_runs:
        w("## Same work, same files\n")
        w("| tool | input | time (s) | peak RSS (MiB) | vs plain parse |")
        w("|---|---|---:|---:|---:|")
        plain = {"brat": main_runs["plain_brat"].seconds, "conll": main_runs["plain_conll"].seconds,
                 "jsonl": main_runs["plain_jsonl"].seconds}
        rows = [("plain-Python parse", "brat", "plain_brat"),
                ("**spanagree agree** (exact/strict)", "brat", "spanagree_agree_brat"),
                ("bratiaa `compute_f1_agreement`", "brat", "bratiaa"),
                ("plain-Python parse", "conll", "plain_conll"),
                ("**spanagree score**", "conll", "spanagree_score_conll"),
                ("seqeval `f1_score` default", "conll", "seqeval_default"),
                ("seqeval `f1_score` strict IOB2", "conll", "seqeval_strict"),
                ("plain-Python parse", "jsonl", "plain_jsonl"),
                ("**spanagree score**", "jsonl", "spanagree_score_jsonl"),
                ("nervaluate `evaluate()` (4 schemes)", "jsonl", "nervaluate")]
        for label, fmt, key in rows:
            r = main_runs[key]
            rel = ratio(r.seconds, plain[fmt])
            w(f"| {label} | {fmt.upper() if fmt != 'jsonl' else 'JSONL'} | "
              f"{fmt_s(r.seconds) if r.ok else r.error} | {fmt_s(r.rss_mib, 0)} | "
              f"{fmt_s(rel, 2) + '×' if rel else '—'} |")
        w("")
        w("### Targets (issue 6)\n")
        w("| target | measured | verdict |")
        w("|---|---|---|")
        s = {k: main_runs[k].seconds for k in main_runs}
        rss = {k: main_runs[k].rss_mib for k in main_runs}

        def row(text, value, target, higher=True, unit="×"):
            w(f"| {text} | {fmt_s(value) + unit if value is not None else 'n/a'} | "
              f"{verdict(value, target, higher)} |")

        row("agree BRAT ≥ 3× faster than bratiaa", ratio(s["bratiaa"], s["spanagree_agree_brat"]), 3)
        row("score CoNLL ≥ 2× faster than seqeval default", ratio(s["seqeval_default"], s["spanagree_score_conll"]), 2)
        row("score CoNLL ≥ 2× faster than seqeval strict", ratio(s["seqeval_strict"], s["spanagree_score_conll"]), 2)
        row("score JSONL ≥ 3× faster than nervaluate", ratio(s["nervaluate"], s["spanagree_score_jsonl"]), 3)
        row("agree BRAT within 3× of plain parse", ratio(s["spanagree_agree_brat"], s["plain_brat"]), 3, False)
        row("score CoNLL within 3× of plain parse", ratio(s["spanagree_score_conll"], s["plain_conll"]), 3, False)
        row("score JSONL within 3× of plain parse", ratio(s["spanagree_score_jsonl"], s["plain_jsonl"]), 3, False)
        row("agree BRAT peak RSS ≤ bratiaa's", ratio(rss["spanagree_agree_brat"], rss["bratiaa"]), 1, False)
        row("score CoNLL peak RSS ≤ bratiaa's", ratio(rss["spanagree_score_conll"], rss["bratiaa"]), 1, False)
        row("score JSONL peak RSS ≤ bratiaa's", ratio(rss["spanagree_score_jsonl"], rss["bratiaa"]), 1, False)
        long10 = next((r for r in R["long"] if r["spans_per_annotator"] == 10000), None)
        if long10 is not None:
            row("one document, 10k spans: ≥ 30× faster than nervaluate",
                ratio((long10.get("nervaluate") or {}).get("seconds"), long10["spanagree"]["seconds"]), 30)
        dbl = doubling(R["long"], "spans_per_annotator") + doubling(
            [{"documents": r["documents"], "spanagree": r["spanagree"]} for r in R["docs_series"]], "documents")
        worst = max((d for _, _, d in dbl if d is not None), default=None)
        row("doubling spans or documents costs ≤ 2.2× (worst step)", worst, 2.2, False)
        if jobs:
            row("--jobs 2 ≥ 1.3× faster than --jobs 1 (40k docs)", ratio(jobs[1].seconds, jobs[2].seconds), 1.3)
            w(f"| --jobs 2 results identical to --jobs 1 | {R['jobs']['identical']} | "
              f"{'**met**' if R['jobs']['identical'] else ('n/a' if R['jobs']['identical'] is None else '**MISSED**')} |")
        if help_run is not None:
            row("`spanagree --help` < 0.5 s", help_run.seconds, 0.5, False, " s")
        w("")

        w("### F1 cross-check (exact span and label, same data)\n")
        vals = [v for v in R["f1_crosscheck"].values() if v is not None]
        ref = R["f1_crosscheck"]["generator (set intersection)"]
        w("| source | F1 | equal to the generator's |")
        w("|---|---|---|")
        for k, v in R["f1_crosscheck"].items():
            eq = "—" if v is None else ("yes" if abs(v - ref) <= F1_TOLERANCE else f"NO (Δ {v - ref:+.3g})")
            w(f"| {k} | {'not available' if v is None else f'{v:.12f}'} | {eq} |")
        allsame = all(abs(v - ref) <= F1_TOLERANCE for v in vals)
        w(f"\nAll available figures agree within {F1_TOLERANCE:g}: **{'yes' if allsame else 'NO'}**. "
          "(An annotator's spans never overlap in this corpus, so greedy and one-to-one optimal "
          "matching coincide for exact matches, and bratiaa's set semantics lose nothing.)\n")
        if R.get("main_extra_json") and main_runs["nervaluate"].ok:
            nv = main_runs["nervaluate"].json()
            w("Other points of the grid (spanagree score JSONL vs nervaluate; untimed). "
              "nervaluate matches greedily in document order, spanagree one-to-one with maximum "
              "credit, so these may legitimately differ; the table shows by how much.\n")
            w("| nervaluate scheme | spanagree rule | nervaluate correct / partial | nervaluate F1 | spanagree a | spanagree F1 |")
            w("|---|---|---|---|---|---|")
            rules = {"exact": "exact / ignore", "partial": "partial / ignore", "ent_type": "overlap / strict"}
            for scheme, rule in rules.items():
                sj = R["main_extra_json"].get(scheme, {})
                n = nv.get(scheme, {})
                w(f"| {scheme} | {rule} | {n.get('correct')} / {n.get('partial')} | "
                  f"{fmt_s(n.get('f1'), 6)} | {sj.get('a')} | {fmt_s(sj.get('f1'), 6)} |")
            w("")

    if R["long"]:
        w("## One long document (spanagree score JSONL vs nervaluate)\n")
        w(f"nervaluate is run while its predicted time stays under {args.nervaluate_limit:.0f} s "
          "(it is quadratic within a document).\n")
        w("| spans / annotator | spans total | spanagree (s) | RSS (MiB) | ×prev | nervaluate (s) | ×prev | nervaluate / spanagree | F1 equal |")
        w("|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        prev = None
        for r in R["long"]:
            s_t = r["spanagree"]["seconds"]
            n = r.get("nervaluate") or {}
            n_t = n.get("seconds")
            sx = ratio(s_t, prev["spanagree"]["seconds"]) if prev else None
            nx = ratio(n_t, (prev.get("nervaluate") or {}).get("seconds")) if prev else None
            f_ok = []
            for key in ("spanagree_f1", "nervaluate_f1"):
                if r.get(key) is not None:
                    f_ok.append(abs(r[key] - r["expected_f1"]) <= F1_TOLERANCE)
            w(f"| {r['spans_per_annotator']:,} | {r['spans_total']:,} | "
              f"{fmt_s(s_t) if s_t is not None else r['spanagree']['error']} | "
              f"{fmt_s(r['spanagree']['rss_mib'], 0)} | {fmt_s(sx) + '×' if sx else ''} | "
              f"{fmt_s(n_t) if n_t is not None else (n.get('error') or 'skipped')} | "
              f"{fmt_s(nx) + '×' if nx else ''} | {fmt_s(ratio(n_t, s_t), 1) + '×' if ratio(n_t, s_t) else ''} | "
              f"{('yes' if all(f_ok) else 'NO') if f_ok else '—'} |")
            prev = r
        w("\n×prev = time over the previous row's (a doubling, except 80k → 100k: ×1.25 spans).\n")
    if R["docs_series"]:
        w("## Number of documents (spanagree score JSONL, first n documents of the 40k corpus)\n")
        w("| documents | time (s) | RSS (MiB) | ×prev |")
        w("|---:|---:|---:|---:|")
        prev = None
        for r in R["docs_series"]:
            t = r["spanagree"]["seconds"]
            x = ratio(t, prev) if prev else None
            w(f"| {r['documents']:,} | {fmt_s(t) if t is not None else r['spanagree']['error']} | "
              f"{fmt_s(r['spanagree']['rss_mib'], 0)} | {fmt_s(x) + '×' if x else ''} |")
            prev = t
        w("")
    if jobs:
        j = R["jobs"]
        w(f"## --jobs on {j['documents']:,} documents (spanagree agree BRAT)\n")
        w("| --jobs | time (s) | RSS (MiB, parent) | F1 |")
        w("|---:|---:|---:|---|")
        for k, r in jobs.items():
            w(f"| {k} | {fmt_s(r.seconds) if r.ok else r.error} | {fmt_s(r.rss_mib, 0)} | {j['f1'][k]} |")
        w(f"\nSpeed-up {fmt_s(ratio(jobs[1].seconds, jobs[2].seconds))}×; JSON identical apart "
          f"from `options.jobs`: {j['identical']}; generator F1 {j['expected_f1']}.\n"
          "(Peak RSS from `wait4` is the largest single process — with --jobs 2 the workers' "
          "RSS is not added to the parent's.)\n")
    if help_run is not None:
        w("## Start-up\n")
        w(f"`spanagree --help`: {fmt_s(help_run.seconds, 3) if help_run.ok else help_run.error} s "
          f"(bare `python -c pass`: {fmt_s(R['python_startup']['seconds'], 3)} s).\n")
    if R.get("index_markdown"):
        w(R["index_markdown"].rstrip() + "\n")
    failed = [r for r in list(main_runs.values()) if r.error and r.error != "not available"]
    if failed:
        w("## Failures\n")
        for r in failed:
            w(f"- {r.name}: {r.error}\n\n```\n{r.stderr[-1500:]}\n```")
    return "\n".join(L) + "\n"


def doubling(rows, key):
    """(size, next size, time ratio normalised to a doubling) for consecutive rows."""
    out = []
    for a, b in zip(rows, rows[1:]):
        ta, tb = a["spanagree"]["seconds"], b["spanagree"]["seconds"]
        if ta and tb:
            k = b[key] / a[key]
            # normalise a ×k step to a doubling: (tb/ta) ** (log 2 / log k)
            out.append((a[key], b[key], (tb / ta) ** (math.log(2) / math.log(k))))
        else:
            out.append((a[key], b[key], None))
    return out


if __name__ == "__main__":
    sys.exit(main())
