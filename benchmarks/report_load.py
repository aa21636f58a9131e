"""Seconds until an HTML report (``--report``) is loaded and drawn in headless Chromium.

Opens the page from disk in Debian's Chromium through playwright (``--no-sandbox`` for root),
waits until the report's script has drawn the page (``<html data-ready>``), and prints one JSON
line: ``{"seconds": ..., "first_paint": ..., "errors": [...], "requests": N}`` (the fastest of
``--repeat`` loads, each in a fresh page; ``first_paint``: the fastest first contentful paint, when
the summary Python wrote is on screen, before the script has run). Run by ``benchmarks/run.py`` (section *report*).

Usage::

    python benchmarks/report_load.py REPORT.html [--repeat 3] [--chromium /usr/bin/chromium]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    url = args.report.resolve().as_uri()
    times, paints, errors, requests = [], [], [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        for _ in range(max(args.repeat, 1)):
            page = browser.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("request", lambda r: requests.append(r.url))
            start = time.perf_counter()
            page.goto(url, timeout=300_000)
            page.wait_for_selector("html[data-ready]", timeout=300_000)
            times.append(time.perf_counter() - start)
            paint = page.evaluate("(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime")
            if paint is not None:
                paints.append(paint / 1000)
            page.close()
        browser.close()
    print(json.dumps({"seconds": min(times), "runs": times, "first_paint": min(paints) if paints else None,
                      "errors": errors,
                      "requests": len(set(requests) - {url})}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
