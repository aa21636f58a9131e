"""The HTML report as a reader meets it (docs/report.md), in a real headless Chromium: the figures
with scripts off and in a plain ``chromium --headless --screenshot``, the page opening at its
top, a ``#doc=…&item=…`` link opening it on a disagreement, the window of aligned rows around
each disagreement of a long document, and the colour scales, the token measures and the
captions.

The long document (:func:`long_corpus`): 15,000 characters in paragraphs; annotator ``a`` marks
150 words, ``c`` marks the same, ``b`` differs from ``a`` on 100 of them, 25 of each kind::

    a   [w]PER   [w]PER      [w]PER   .          ... (150 spans; the 4th of each four only in b)
    b   [w]ORG   [w w]PER    .        [w]PER         wrong_label, partial, spurious, missed
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spanagree import agree, score, vote
from spanagree.report.html import write_report
from spanagree.report.scale import fitted
from spanagree.report.summary import figure
from spanagree.span import Span, SpanSet
from test_report import (ANNOTATORS, CHROMIUM, Opened, blank_screenshot_size, blocks,  # noqa: F401  (the Chromium
                         browser, run)                                                  # fixture)

pytestmark = pytest.mark.filterwarnings("ignore::spanagree.errors.SpanagreeWarning")


def view_block(path: Path) -> dict:
    return json.loads(re.search(r'id="spanagree-view">(.*?)</script>', path.read_text(encoding="utf-8"),
                                re.S).group(1))


def without_scripts(browser, path: Path):
    """The page opened with JavaScript disabled (as a mail preview or a sanitised viewer shows it)."""
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(path.resolve().as_uri())
    return context, page


def rows_of(page, selector: str) -> list[list[str]]:
    return page.eval_on_selector_all(f"{selector} tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))")


# -- the figures, with scripts off -----------------------------------------------------------------------------

@pytest.mark.slow
def test_the_agree_figures_are_on_the_page_without_scripts(browser, capsys, tmp_path):
    page = tmp_path / "agree.html"
    data = run(capsys, "agree", *ANNOTATORS, "--report", page, "--chance", "--bootstrap", "20", "--seed", "1",
               "--output", "json", "--by", "document")
    context, shown = without_scripts(browser, page)
    try:
        assert shown.evaluate("document.documentElement.hasAttribute('data-ready')") is False  # no script ran
        pairs = rows_of(shown, "#sa-pairs")
        assert pairs == [[*p["annotators"], str(p["a"]), str(p["b"]), str(p["c"]), f"{p['precision']:.3f}",
                          f"{p['recall']:.3f}", f"{p['f1']:.3f}"] for p in data["pairs"]]
        text = shown.inner_text("#sa-app")
        assert f"mean pairwise F1 {data['mean_f1']:.3f} (SD {data['sd_f1']:.3f}); pooled F1 {data['pooled_f1']:.3f}" in text
        # the heatmap is inline SVG, its figures written in it and, as HTML text, in the pairs table
        cells = shown.eval_on_selector_all("#sa-heatmap svg text", "n => n.map(x => x.textContent)")
        matrix = data["matrix"]["f1"]
        names = data["matrix"]["annotators"]
        assert [c for c in cells if c not in names] == [figure(v) for row in matrix for v in row]
        html_figures = {c for row in pairs for c in row}
        assert {figure(matrix[i][j]) for i in range(3) for j in range(3) if i != j} <= html_figures
        # --chance: the token measures, each pair's and over every annotator
        tokens = rows_of(shown, "#sa-token-measures")
        assert tokens == [[*p["annotators"], str(p["tokens"]), *(f"{p[k]:.3f}" for k in
                           ("cohen_kappa", "scott_pi", "informedness", "markedness", "mcc"))]
                          for p in data["chance"]["pairs"]]
        chance = data["chance"]
        assert (f"Fleiss' κ {chance['fleiss_kappa']:.3f}, Krippendorff's α {chance['krippendorff_alpha']:.3f} over "
                f"{chance['tokens']} tokens") in text
        # the kappa charts' figures are in their legends; the intervals in their table
        legends = shown.eval_on_selector_all("#sa-kappa .sa-legend", "n => n.map(x => x.textContent)")
        pair = chance["pairs"][0]
        assert f"d={pair['d']} κ={pair['kappa_2x2']:.3f}" in legends[0]
        intervals = rows_of(shown, "#sa-intervals")
        first = data["bootstrap"]["pairs"][0]["f1"]
        assert intervals[0][:2] == [" × ".join(data["pairs"][0]["annotators"]),
                                    f"[{figure(first[0])}, {figure(first[1])}]"]
        # the documents table, worst first, with its links
        documents = shown.eval_on_selector_all("#sa-document-table tbody tr", "r => r.map(x => x.dataset.doc)")
        assert documents == sorted(data["by_document"], key=lambda d: data["by_document"][d]["mean_f1"])
        assert "needs JavaScript" in shown.inner_text("#sa-view")
        shot = shown.screenshot(full_page=True)
    finally:
        context.close()
    assert len(shot) > 20 * blank_screenshot_size(browser)


@pytest.mark.slow
def test_the_score_figures_and_captions_without_scripts(browser, capsys, tmp_path):
    page = tmp_path / "score.html"
    data = run(capsys, "score", *ANNOTATORS, "--compare", "--seed", "3", "--resamples", "200", "--chance",
               "--report", page, "--output", "json")
    context, shown = without_scripts(browser, page)
    try:
        pairs = rows_of(shown, "#sa-pairs")
        by_rank = sorted(data["predictions"], key=lambda p: p["rank"])
        assert [row[1:] for row in pairs] == [[p["prediction"], p["gold"], str(p["a"]), str(p["b"]), str(p["c"]),
                                               f"{p['precision']:.3f}", f"{p['recall']:.3f}", f"{p['f1']:.3f}"]
                                              for p in by_rank]
        captions = shown.eval_on_selector_all("#sa-confusion .sa-caption", "n => n.map(x => x.textContent)")
        for p in data["predictions"]:
            conf = p["confusion"]
            diagonal = sum(conf["matrix"][i][i] for i in range(len(conf["labels"]) - 1))
            assert diagonal == p["errors"]["correct"] + p["errors"]["partial"]  # what the caption says
            assert any(f"The diagonal ({diagonal}) counts the pairs with the same label" in c
                       and f"({p['errors']['partial']} partial)" in c and f"in a ({p['a']})" in c for c in captions)
        # the paired tests: which test gave the interval, which the p-values
        head = shown.eval_on_selector_all("#sa-comparisons-table thead th", "n => n.map(x => x.textContent)")
        assert head[4:] == ["95% interval (paired bootstrap)", "p (approximate randomization)",
                            "p Holm (approximate randomization)"]
        assert "the interval is the paired bootstrap's percentile interval of Δ, the p-values the approximate " \
               "randomization test's" in shown.inner_text("#sa-tests")
        rows = rows_of(shown, "#sa-comparisons-table")
        e = data["comparisons"][0]
        assert rows[0][3:6] == [figure(e["difference"]), f"[{figure(e['low'])}, {figure(e['high'])}]", figure(e["p_value"])]
        # --chance: each prediction against the gold, its token measures and its Fleiss' kappa
        tokens = rows_of(shown, "#sa-token-measures")
        assert tokens == [[*q["annotators"], str(q["tokens"]), *(figure(q[k]) for k in
                           ("cohen_kappa", "scott_pi", "informedness", "markedness", "mcc"))]
                          for p in data["predictions"] for q in p["chance"]["pairs"]]
        overall = shown.eval_on_selector_all("#sa-tokens p:not(.sa-caption)", "n => n.map(x => x.textContent)")
        assert [o.split(" over ")[0] for o in overall] == [
            f"Fleiss' κ {figure(p['chance']['fleiss_kappa'])}, Krippendorff's α {figure(p['chance']['krippendorff_alpha'])}"
            for p in data["predictions"]]
        # the error kinds: every count as HTML text
        kinds = rows_of(shown, "#sa-confusion table:not(:first-of-type)")
        assert [[k, str(n)] for k, n in data["predictions"][0]["errors"].items()] == [row[:2] for row in kinds[:6]]
    finally:
        context.close()


@pytest.mark.slow
def test_a_plain_headless_screenshot_shows_the_figures(tmp_path):
    """``chromium --headless --screenshot``, as a reader would take it: not a blank page."""
    if not CHROMIUM.exists():
        pytest.skip(f"Chromium is not installed ({CHROMIUM})")
    page = tmp_path / "agree.html"
    agree(ANNOTATORS, report=True).write_report(page)
    blank = tmp_path / "blank.html"
    blank.write_text("<!DOCTYPE html><html><body style=\"background:#fafafa\"></body></html>", encoding="utf-8")
    sizes = {}
    for name in (page, blank):
        shot = tmp_path / f"{name.stem}.png"
        subprocess.run([str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", f"--screenshot={shot}",
                        "--window-size=1280,1200", name.resolve().as_uri()], capture_output=True, timeout=120)
        sizes[name.stem] = shot.stat().st_size
    assert sizes["agree"] > 10 * sizes["blank"]


def test_python_writes_figures_as_the_script_does():
    """Three decimals rounded as JavaScript's toFixed (ties away from zero), whole numbers bare."""
    assert [figure(x) for x in (0.0625, 0.1875, -0.0625, 2 / 3, 1.0, 0.0, 7, None, float("nan"), "x")] == [
        "0.063", "0.188", "-0.063", "0.667", "1", "0", "7", "—", "—", "x"]


# -- the page opens at its top, and on a disagreement through its link ----------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("command", ["agree", "score", "merge"])
def test_the_page_opens_at_its_top(browser, tmp_path, command):
    page = tmp_path / f"{command}.html"
    result = {"agree": lambda: agree(ANNOTATORS, report=True), "score": lambda: score(ANNOTATORS[0], ANNOTATORS[1:], report=True),
              "merge": lambda: vote(ANNOTATORS)}[command]()
    write_report(result, page)
    opened = Opened(browser, page)
    try:
        assert opened.clean(), (opened.messages, opened.requests)
        opened.page.wait_for_timeout(300)
        assert opened.page.evaluate("window.scrollY") == 0
        assert opened.page.locator("#sa-document .sa-current").count() >= 1  # the first one drawn, not scrolled to
    finally:
        opened.close()


@pytest.mark.slow
def test_a_link_opens_the_page_on_its_disagreement(browser, tmp_path):
    page = tmp_path / "agree.html"
    agree(ANNOTATORS, report=True).write_report(page)
    _, documents = blocks(page)
    document = documents["documents"][-1]
    n = max(k for k, item in enumerate(document["items"]) if item[1] != "correct")
    item = document["items"][n]
    opened = Opened.__new__(Opened)
    opened.page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        opened.page.goto(page.resolve().as_uri() + f"#doc={document['id']}&item={n}")
        opened.page.wait_for_selector("html[data-ready]")
        info = opened.page.evaluate("({...document.getElementById('sa-info').dataset})")
        assert (info["doc"], info["item"], info["kind"], info["comparison"]) == (document["id"], str(n), item[1], str(item[0]))
        assert opened.page.evaluate("window.scrollY") > 0
        current = opened.page.eval_on_selector_all("#sa-document .sa-current", """n => n.map(x => {
            const r = x.getBoundingClientRect(); return [r.top, r.bottom, x.dataset.annotator, +x.dataset.index]; })""")
        comparison = documents["comparisons"][item[0]]
        sides = {(documents["annotators"][comparison["first"]], item[2]), (documents["annotators"][comparison["second"]], item[3])}
        assert {(a, k) for _, _, a, k in current} == {s for s in sides if s[1] is not None}
        assert all(0 <= top and bottom <= 900 for top, bottom, _, _ in current)  # in view
        assert opened.page.get_attribute("#sa-link", "href") == f"#doc={document['id']}&item={n}"
        # another link, followed from the page (the document's table of disagreements)
        first = document["items"].index(next(i for i in document["items"] if i[1] != "correct"))
        opened.page.click(f"#sa-items a[href='#doc={document['id']}&item={first}']")
        assert opened.page.get_attribute("#sa-info", "data-item") == str(first)
        # a kind filter that hides the item gives way to the link
        opened.page.select_option("#sa-filter-kind", next(k for k in ("missed", "spurious", "partial") if k != item[1]))
        opened.page.evaluate(f"location.hash = '#doc={document['id']}&item={n}'")
        opened.page.wait_for_function(f"document.getElementById('sa-info').dataset.item === '{n}'")
        assert opened.page.input_value("#sa-filter-kind") == ""
    finally:
        opened.page.close()


@pytest.mark.slow
def test_a_link_to_a_document_whose_id_needs_escaping(browser, tmp_path):
    doc_id = "case 7/α&β #2"
    text = "Ana met Bo in Rome."
    a = SpanSet.from_spans("a", [Span(doc_id, (0, 3), "PER"), Span(doc_id, (8, 10), "PER")], {doc_id: text})
    b = SpanSet.from_spans("b", [Span(doc_id, (0, 3), "PER"), Span(doc_id, (8, 10), "LOC")], {doc_id: text})
    page = tmp_path / "escaped.html"
    agree([a, b], report=True).write_report(page)
    shown = browser.new_page()
    try:
        shown.goto(page.resolve().as_uri())
        shown.wait_for_selector("html[data-ready]")
        href = shown.get_attribute("#sa-link", "href")
        assert href == "#doc=case%207%2F%CE%B1%26%CE%B2%20%232&item=1"
        shown.goto("about:blank")
        shown.goto(page.resolve().as_uri() + href)
        shown.wait_for_selector("html[data-ready]")
        assert shown.get_attribute("#sa-info", "data-doc") == doc_id
        assert shown.get_attribute("#sa-info", "data-kind") == "wrong_label"
    finally:
        shown.close()
    # the documents table Python wrote links the same way
    assert 'href="#doc=case%207%2F%CE%B1%26%CE%B2%20%232"' in page.read_text(encoding="utf-8")


# -- a long document: the window of aligned rows ----------------------------------------------------------------

KINDS = ("wrong_label", "partial", "spurious", "missed")


def long_corpus() -> tuple[list[SpanSet], str]:
    """One document of 15,000 characters; a, b, c as in the module docstring."""
    words = ["court", "appeal", "judgment", "the", "respondent", "held", "that", "section", "statute", "order"]
    paragraphs, length, n = [], 0, 0
    while length < 15_000:
        paragraph = " ".join(words[(n + k * 7) % len(words)] + str(n + k) for k in range(70))
        paragraphs.append(paragraph)
        length += len(paragraph) + 2
        n += 70
    text = "\n\n".join(paragraphs)[:15_000]
    starts = [m.start() for m in re.finditer(r"\S+", text)]
    ends = [m.end() for m in re.finditer(r"\S+", text)]
    picked = list(range(5, len(starts) - 10, (len(starts) - 15) // 150))[:150]
    a, b = [], []
    for k, w in enumerate(picked):
        kind = KINDS[k % 4] if k < 100 else "correct"
        span = Span("judgment", (starts[w], ends[w]), "PER")
        if kind != "missed":
            a.append(span)
        if kind == "wrong_label":
            b.append(Span("judgment", (starts[w], ends[w]), "ORG"))
        elif kind == "partial":
            b.append(Span("judgment", (starts[w], ends[w + 1]), "PER"))
        elif kind in ("missed", "correct"):
            b.append(span)
    texts = {"judgment": text}
    return [SpanSet.from_spans("a", a, texts), SpanSet.from_spans("b", b, texts), SpanSet.from_spans("c", a, texts)], text


@pytest.mark.slow
def test_a_long_document_shows_each_disagreement_in_a_window_of_aligned_rows(browser, tmp_path):
    spansets, text = long_corpus()
    assert len(text) == 15_000
    result = agree(spansets, report=True)
    (ab,) = [p for p in result.pairs if (p.first, p.second) == ("a", "b")]
    page = tmp_path / "long.html"
    result.write_report(page)
    _, documents = blocks(page)
    (document,) = documents["documents"]
    kinds = [item[1] for item in document["items"] if item[0] == 0 and item[1] != "correct"]
    assert sorted(kinds) == sorted(KINDS * 25) and len(kinds) == 100  # a × b: 100 disagreements
    assert (ab.counts.b, ab.counts.c) == (75, 75)
    opened = Opened(browser, page)
    try:
        assert opened.clean(), (opened.messages, opened.requests)
        assert opened.page.evaluate("window.scrollY") == 0
        opened.page.select_option("#sa-filter-pair", "0")
        assert opened.page.get_attribute("#sa-status", "data-count") == "100"
        opened.page.select_option("#sa-filter-pair", "")
        # every disagreement of every pair (a × b, b × c: 200), each in a window of three aligned rows
        seen = opened.page.evaluate("""() => {
            const n = +document.getElementById("sa-status").dataset.count, found = [];
            const plain = layer => { const c = layer.cloneNode(true); c.querySelectorAll(".sa-label").forEach(x => x.remove()); return c.textContent; };
            for (let k = 0; k < n; k++) {
                document.getElementById("sa-next").click();
                const box = document.querySelector("#sa-document .sa-window");
                const lanes = [...box.querySelectorAll(".sa-lane")];
                const texts = lanes.map(l => plain(l.querySelector(".sa-layer")));
                // the same character offset starts at the same x in every row
                const lefts = {};
                box.querySelectorAll(".sa-span[data-annotator]:not([data-clipped])").forEach(s => {
                    (lefts[s.dataset.start] = lefts[s.dataset.start] || []).push(s.getClientRects()[0].left);
                });
                const misaligned = Object.values(lefts).filter(xs => Math.max(...xs) - Math.min(...xs) > 0.5).length;
                const info = document.getElementById("sa-info").dataset;
                found.push({from: +box.dataset.from, to: +box.dataset.to, lanes: lanes.map(l => l.dataset.lane),
                            same: texts.every(t => t === texts[0]), text: texts[0], misaligned,
                            shared: Object.values(lefts).filter(xs => xs.length > 1).length,
                            current: box.querySelectorAll(".sa-current").length, first: info.first, second: info.second,
                            kind: info.kind, versions: [...box.querySelectorAll(".sa-versions")].map(v => v.textContent)});
            }
            return found;
        }""")
        assert len(seen) == 200
        for entry in seen:
            assert entry["lanes"] == ["a", "b", "c"] and entry["same"] and entry["current"] >= 1
            assert entry["text"] == text[entry["from"]:entry["to"]]
            assert entry["to"] - entry["from"] <= 2 * 160 + 40  # a few lines, not the document
            assert entry["misaligned"] == 0 and entry["shared"] >= 1
            for side in (entry["first"], entry["second"]):
                if side:
                    start, end = (int(x) for x in side.split("|")[0].split("-"))
                    assert entry["from"] <= start and end <= entry["to"]
            assert any(entry["kind"] in v for v in entry["versions"])  # its kind and what it was aligned with
        # the whole document on request: every row holds the whole text
        opened.whole()
        whole = opened.page.eval_on_selector_all("#sa-document .sa-document .sa-lane-name + .sa-layer", """n => n.map(x => {
            const c = x.cloneNode(true); c.querySelectorAll(".sa-label").forEach(y => y.remove()); return c.textContent; })""")
        assert whole == [text] * 3
        assert opened.page.locator("#sa-document .sa-document .sa-span[data-annotator='a']").count() == 150 - 25
        opened.whole(False)  # and back
        assert opened.page.locator("#sa-document .sa-window").count() == 1
    finally:
        opened.close()


@pytest.mark.slow
def test_a_link_opens_the_merge_page_on_its_cluster(browser, tmp_path):
    page = tmp_path / "merge.html"
    vote(ANNOTATORS).write_report(page)
    _, documents = blocks(page)
    document = documents["documents"][3]
    n = len(document["clusters"]) - 1
    shown = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        shown.goto(page.resolve().as_uri() + f"#doc={document['id']}&cluster={n}")
        shown.wait_for_selector("html[data-ready]")
        assert shown.get_attribute("#sa-info", "data-doc") == document["id"]
        assert shown.get_attribute("#sa-info", "data-cluster") == str(n)
        marked = shown.eval_on_selector_all("#sa-document .sa-current", "n => n.map(x => [x.dataset.cluster, x.className])")
        assert marked and {c for c, _ in marked} == {str(n)} and all("sa-span" in css for _, css in marked)
        members = {documents["annotators"][k] for k, _ in document["clusters"][n]["members"]}
        versions = shown.eval_on_selector_all("#sa-document .sa-window .sa-versions[data-annotator] .sa-version", """
            n => n.map(x => [x.parentNode.dataset.annotator, x.dataset.inCluster, x.textContent])""")
        assert {a for a, c, words in versions if c == str(n) and words.endswith("in this cluster")} == members
        assert all(words.endswith("in this cluster") == (c == str(n)) for _, c, words in versions)
        assert shown.get_attribute("#sa-link", "href") == f"#doc={document['id']}&cluster={n}"
    finally:
        shown.close()


# -- what the script adds: sorting, finding ---------------------------------------------------------------------

@pytest.mark.slow
def test_the_script_sorts_the_tables_and_finds_documents(browser, tmp_path):
    page = tmp_path / "agree.html"
    agree(ANNOTATORS, report=True).write_report(page)
    opened = Opened(browser, page)
    try:
        before = rows_of(opened.page, "#sa-by-label")
        opened.page.click("#sa-by-label thead th:nth-child(2)")  # ann1 × ann2, ascending
        after = rows_of(opened.page, "#sa-by-label")
        assert sorted(before) == sorted(after)
        assert [float(r[1]) for r in after] == sorted(float(r[1]) for r in before)
        opened.page.click("#sa-by-label thead th:nth-child(2)")  # descending
        assert [float(r[1]) for r in rows_of(opened.page, "#sa-by-label")] == sorted(
            (float(r[1]) for r in before), reverse=True)
        opened.page.fill("#sa-documents-find", "clinic")
        found = opened.page.eval_on_selector_all("#sa-document-table tbody tr", "r => r.map(x => x.dataset.doc)")
        assert found and all("clinic" in d for d in found) and len(found) < 10
        opened.page.click(f"#sa-document-table a[href='#doc={found[0]}']")
        opened.page.wait_for_function(f"document.getElementById('sa-info').dataset.doc === '{found[0]}'")
        assert opened.page.evaluate("window.scrollY") > 0  # the document view, below
        assert opened.clean(), opened.messages
    finally:
        opened.close()


# -- the colour scales ------------------------------------------------------------------------------------------

def test_the_heatmap_scale_is_fitted_to_the_figures_shown():
    view = agree(ANNOTATORS, report=True).report_view()
    (heatmap,) = [b for s in view.sections if s.title == "Pairwise F1" for b in s.blocks[0]["blocks"] if b["type"] == "heatmap"]
    figures = [heatmap["matrix"][i][j] for i in range(3) for j in range(3) if i != j]
    edges = heatmap["scale"]["edges"]
    assert edges[0] <= min(figures) < edges[1] and edges[-2] < max(figures) <= edges[-1]
    assert edges[-1] - edges[0] <= 0.2  # 0.757 .. 0.882: not 0 .. 1
    colours = {fitted(figures).colour(v) for v in figures}
    assert len(colours) == 3  # three figures, three colours
    # every cell's ink contrasts with its colour (WCAG 2: at least 4.5 to 1)
    from spanagree.report.scale import luminance_of

    for colour, ink in zip(heatmap["scale"]["colours"], heatmap["scale"]["inks"]):
        light, dark = sorted([luminance_of(colour), luminance_of(ink)], reverse=True)
        assert (light + 0.05) / (dark + 0.05) >= 4.5, (colour, ink)


@pytest.mark.slow
def test_the_script_colours_the_documents_as_python_does(browser, tmp_path):
    page = tmp_path / "agree.html"
    agree(ANNOTATORS, report=True).write_report(page)
    context, shown = without_scripts(browser, page)
    try:
        static = shown.eval_on_selector_all("#sa-document-table tbody tr", """r => r.map(x => [...x.cells].map(c =>
            [c.textContent, c.getAttribute("style")]))""")
    finally:
        context.close()
    opened = Opened(browser, page)
    try:
        drawn = opened.page.eval_on_selector_all("#sa-document-table tbody tr", """r => r.map(x => [...x.cells].map(c =>
            [c.textContent, c.getAttribute("style")]))""")
        legend = opened.page.locator("#sa-documents .sa-scale .sa-swatch").count()
    finally:
        opened.close()
    assert static == drawn and len(drawn) == 10
    view = view_block(page)
    assert legend == len(view["documents"]["scale"]["colours"]) >= 2


def contrast(a: str, b: str) -> float:
    from spanagree.report.scale import luminance_of

    light, dark = sorted([luminance_of(a), luminance_of(b)], reverse=True)
    return (light + 0.05) / (dark + 0.05)


@given(st.lists(st.floats(min_value=-1, max_value=1, allow_nan=False), min_size=1, max_size=40))
def test_a_fitted_scale_covers_its_figures_in_order(values):
    scale = fitted(values)
    edges = scale.edges
    assert list(edges) == sorted(set(edges)) and 2 <= len(edges) <= 9  # at most 8 bins, ascending
    assert edges[0] <= min(values) and max(values) <= edges[-1]
    assert edges[-1] - edges[0] <= max(2 * (max(values) - min(values)), 0.02) + 1e-9 or len(edges) - 1 <= 2
    bins = [scale.bin(v) for v in sorted(values)]
    assert bins == sorted(bins) and 0 <= bins[0] and bins[-1] < len(scale.colours)  # higher figure, same bin or higher
    for k, v in enumerate(sorted(values)):
        assert edges[bins[k]] <= v <= edges[bins[k] + 1]
    assert all(contrast(c, ink) >= 4.5 for c, ink in zip(scale.colours, scale.inks))
    assert len(set(scale.colours)) == len(scale.colours)


@pytest.mark.slow
def test_the_gamma_figures_are_the_jsons_with_and_without_scripts(browser, capsys, tmp_path):
    """``--gamma``: γ, γ-cat and each label's γ-k in one table, the settings in its caption."""
    page = tmp_path / "gamma.html"
    data = run(capsys, "agree", *ANNOTATORS, "--gamma", "--gamma-samples", "4", "--seed", "11", "--report", page,
               "--output", "json")
    gamma = data["gamma"]
    assert len(gamma["gamma_k"]) == 5 and gamma["samples"] == 40  # 10 documents, 4 samples each
    expected = [["γ", "every label", figure(gamma["gamma"])],
                ["γ-cat", "every label, categories only", figure(gamma["gamma_cat"])],
                *(["γ-k", label, figure(value)] for label, value in gamma["gamma_k"].items())]
    opened = Opened(browser, page)
    context, shown = without_scripts(browser, page)
    try:
        assert opened.clean(), (opened.messages, opened.requests)
        for reader in (opened.page, shown):
            assert rows_of(reader, "#sa-gamma-table") == expected
            assert reader.text_content("#sa-gamma-value") == figure(gamma["gamma"])
            section = reader.inner_text("#sa-gamma")
            assert (f"disorder {figure(gamma['disorder'])} observed ({gamma['alignments']} unitary alignments of "
                    f"{gamma['units']} units), {figure(gamma['expected_disorder'])} expected") in section
            assert "the mean of 40 continua drawn by the statistical sampler (seed 11) over 10 document(s)" in section
    finally:
        opened.close()
        context.close()
