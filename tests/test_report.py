"""The HTML report (``--report FILE.html``; docs/report.md).

The page's two JSON blocks are checked against ``--output json`` of the same run, the inputs, the
``score --errors`` listings and the measures registry; then the page is opened from disk in a
real headless Chromium (Debian's ``chromium``, driven by playwright; skipped with a reason when
absent, failing under ``CI=true``) and used as a person would: every document's span elements
against its spans, the filters, next/previous through every disagreement, a screenshot.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from spanagree import agree, read, score, vote
from spanagree.cli import main
from spanagree.errors import UsageError
from spanagree.measures.registry import value
from spanagree.report.html import write_report
from spanagree.report.schemas import schema
from spanagree.span import Span, SpanSet

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "corpora" / "demo" / "brat"
ANNOTATORS = [DEMO / name for name in ("ann1", "ann2", "ann3")]
CHROMIUM = Path("/usr/bin/chromium")


def blocks(path: Path) -> tuple[dict, dict]:
    """The page's ``spanagree-data`` and ``spanagree-documents`` blocks."""
    page = path.read_text(encoding="utf-8")
    found = {}
    for name in ("spanagree-data", "spanagree-documents"):
        match = re.search(rf'<script type="application/json" id="{name}">(.*?)</script>', page, re.S)
        found[name] = json.loads(match.group(1))
    return found["spanagree-data"], found["spanagree-documents"]


def run(capsys, *argv) -> dict:
    assert main([str(a) for a in argv]) == 0
    return json.loads(capsys.readouterr().out)


def fragments(span) -> str:
    return ";".join(f"{s}-{e}" for s, e in (span.fragments if isinstance(span, Span) else span[0]))


def spans_of(documents: dict) -> dict:
    """``{(document, annotator): Counter of (fragments, label)}`` of a documents block."""
    found = {}
    for document in documents["documents"]:
        for k, spans in enumerate(document["spans"]):
            found[document["id"], documents["annotators"][k]] = Counter((fragments(s), s[1]) for s in spans)
    return found


def spans_read(paths) -> dict:
    found = {}
    for path in paths:
        spanset = read(path, "brat")
        for doc_id, document in spanset.documents.items():
            found[doc_id, Path(path).name] = Counter((fragments(s), s.label) for s in document.spans)
    return found


def listing_of_pairs(documents: dict, inputs) -> set:
    """Every disagreement of ``score --errors`` for each comparison of the block (agree: the second
    annotator of a pair is the gold; score: the gold), as ``(document, kind, comparison, first, second)``."""
    found = set()
    for c, comparison in enumerate(documents["comparisons"]):
        result = score(inputs[comparison["second"]], inputs[comparison["first"]], errors=True)
        for item in result.errors():
            found.add((item.document, item.kind, c,
                       f"{fragments(item.pred)}|{item.pred.label}" if item.pred else "",
                       f"{fragments(item.gold)}|{item.gold.label}" if item.gold else ""))
    return found


def listing_of_items(documents: dict) -> set:
    found = set()
    for document in documents["documents"]:
        for c, kind, first, second, _ in document["items"]:
            if kind == "correct":
                continue
            comparison = documents["comparisons"][c]
            a = document["spans"][comparison["first"]][first] if first is not None else None
            b = document["spans"][comparison["second"]][second] if second is not None else None
            found.add((document["id"], kind, c, f"{fragments(a)}|{a[1]}" if a else "",
                       f"{fragments(b)}|{b[1]}" if b else ""))
    return found


# -- the embedded data -----------------------------------------------------------------------------------------

def test_agree_report_embeds_the_json_output_and_every_span_of_the_inputs(capsys, tmp_path):
    page = tmp_path / "agree.html"
    shown = run(capsys, "agree", *ANNOTATORS, "--report", page, "--chance", "--bootstrap", "20", "--seed", "3",
                "--output", "json", "--by", "document")
    data, documents = blocks(page)
    assert data == shown  # the same run: the same document, options echo included
    assert shown["options"]["report"] == str(page) and shown["options"]["report_documents"] is None
    Draft202012Validator(schema("report")).validate(documents)
    Draft202012Validator(schema("agree")).validate(data)
    assert documents["annotators"] == ["ann1", "ann2", "ann3"]
    assert documents["comparisons"] == [{"first": 0, "second": 1}, {"first": 0, "second": 2},
                                        {"first": 1, "second": 2}]
    assert [d["id"] for d in documents["documents"]] == list(shown["by_document"])
    assert spans_of(documents) == spans_read(ANNOTATORS)
    # every disagreement is score --errors' item of the pair (the second annotator plays the gold)
    assert listing_of_items(documents) == listing_of_pairs(documents, ANNOTATORS)
    # each pair's kinds add up to its b and c: spurious and first-side residuals in b, etc.
    for c, pair in enumerate(shown["pairs"]):
        kinds = Counter(kind for d in documents["documents"] for p, kind, *_ in d["items"] if p == c)
        assert kinds["correct"] == pair["a"]  # exact/strict: every aligned pair is correct, credit 1
        assert kinds["correct"] + kinds["partial"] + kinds["wrong_label"] + kinds["wrong_label_and_boundary"] \
            + kinds["spurious"] == pair["a"] + pair["b"]
    assert sum(d["disagreements"] for d in documents["documents"]) == len(listing_of_pairs(documents, ANNOTATORS))
    means = documents["document_f1"][0]
    values = [shown["by_document"][d]["mean_f1"] for d in shown["by_document"]]
    assert means["defined"] == 10 and means["mean"] == pytest.approx(sum(values) / 10)


def test_the_agree_errors_listing_and_the_report_hold_the_same_disagreements(capsys, tmp_path):
    page, errors = tmp_path / "agree.html", tmp_path / "errors.json"
    run(capsys, "agree", *ANNOTATORS, "--errors", errors, "--report", page, "--output", "json")
    _, documents = blocks(page)
    pairs = [(documents["annotators"][c["first"]], documents["annotators"][c["second"]])
             for c in documents["comparisons"]]
    listing = json.loads(errors.read_text(encoding="utf-8"))["errors"]
    rows = {(e["document"], e["kind"], pairs.index((e["first"], e["second"])),
             f"{e['first_fragments']}|{e['first_label']}" if e["first_label"] else "",
             f"{e['second_fragments']}|{e['second_label']}" if e["second_label"] else "") for e in listing}
    assert len(rows) == len(listing) == 52
    assert listing_of_items(documents) == rows


def test_the_kappa_curves_come_from_the_registry_and_tend_to_the_psa(capsys, tmp_path):
    page = tmp_path / "agree.html"
    shown = run(capsys, "agree", *ANNOTATORS[:2], "--report", page, "--chance", "--output", "json")
    _, documents = blocks(page)
    spans, tokens = documents["kappa_curves"]
    assert (spans["level"], tokens["level"]) == ("spans", "tokens")
    pair, token_pair = shown["pairs"][0], shown["chance"]["pairs"][0]
    assert (spans["a"], spans["b"], spans["c"], spans["d"]) == (pair["a"], pair["b"], pair["c"], None)
    assert (tokens["a"], tokens["b"], tokens["c"], tokens["d"]) == (120, 17, 21, 433) == tuple(
        token_pair[k] for k in "abcd")
    assert tokens["kappa"] == pytest.approx(token_pair["kappa_2x2"])  # the token level's actual d, marked
    assert spans["psa"] == pytest.approx(pair["f1"]) and tokens["psa"] == pytest.approx(token_pair["psa"])
    for curve in (spans, tokens):
        ds = [d for d, _ in curve["points"]]
        assert ds[0] == 0 and ds == sorted(ds) and len(ds) == 61
        for d, kappa in curve["points"]:
            assert kappa == value("kappa", curve["a"], curve["b"], curve["c"], d)
        # Hripcsak & Rothschild: kappa -> 2a/(2a+b+c) as d grows; at d = 0 it is negative here
        assert abs(curve["points"][-1][1] - curve["psa"]) < 2e-3
        assert curve["points"][0][1] < 0
    # worked example: a=120, b=17, c=21, d=433: 2(ad - bc)/((a+b)(b+d) + (a+c)(c+d))
    assert tokens["kappa"] == pytest.approx(2 * (120 * 433 - 17 * 21) / (137 * 450 + 141 * 454))


def test_score_report_holds_every_prediction_and_the_errors_listing(capsys, tmp_path):
    page, errors = tmp_path / "score.html", tmp_path / "errors.json"
    shown = run(capsys, "score", *ANNOTATORS, "--report", page, "--errors", errors, "--output", "json",
                "--by", "document")
    data, documents = blocks(page)
    assert data == shown
    Draft202012Validator(schema("report")).validate(documents)
    assert documents["annotators"] == ["ann1", "ann2", "ann3"]
    assert documents["comparisons"] == [{"first": 1, "second": 0}, {"first": 2, "second": 0}]
    assert spans_of(documents) == spans_read(ANNOTATORS)
    listing = json.loads(errors.read_text(encoding="utf-8"))["errors"]
    rows = {(e["document"], e["kind"], ["ann2", "ann3"].index(e["prediction"]),
             f"{e['pred_fragments']}|{e['pred_label']}" if e["pred_label"] else "",
             f"{e['gold_fragments']}|{e['gold_label']}" if e["gold_label"] else "") for e in listing}
    assert len(rows) == len(listing) == 29
    assert listing_of_items(documents) == rows


def test_merge_report_holds_every_cluster_with_its_vote(capsys, tmp_path):
    page = tmp_path / "merge.html"
    shown = run(capsys, "merge", *ANNOTATORS, "--match", "overlap", "--labels", "ignore", "--to", "brat",
                "--out", tmp_path / "gold", "--report", page, "--output", "json")
    data, documents = blocks(page)
    assert data == shown
    Draft202012Validator(schema("report")).validate(documents)
    result = vote(ANNOTATORS, match="overlap", labels="ignore")
    clusters = [c for d in documents["documents"] for c in d["clusters"]]
    assert len(clusters) == shown["clusters"] == len(result.clusters) == 80
    assert sum(bool(c["kinds"]) for c in clusters) == shown["to_adjudicate"] == 10
    assert sum(c["kept"] for c in clusters) == shown["kept"]
    for mine, theirs in zip(clusters, result.clusters):
        assert (mine["votes"], mine["kept"], tuple(mine["kinds"])) == (theirs.votes, theirs.kept, theirs.kinds)
        assert mine["span"] == [[list(f) for f in theirs.span.fragments], theirs.span.label]
    assert documents["min_votes"] == 2 and spans_of(documents) == spans_read(ANNOTATORS)
    again = tmp_path / "again.html"
    result.write_report(again)  # from Python: the same page, apart from the options echo
    assert blocks(again)[1] == documents


def test_report_documents_keeps_the_documents_with_the_most_disagreement(capsys, tmp_path):
    page = tmp_path / "agree.html"
    assert main(["agree", *map(str, ANNOTATORS), "--report", str(page), "--report-documents", "3"]) == 0
    note = capsys.readouterr().err
    _, documents = blocks(page)
    assert f"spanagree: warning: {page}: {documents['selection']['note']}" in note
    everything = tmp_path / "all.html"
    run(capsys, "agree", *ANNOTATORS, "--report", everything, "--output", "json")
    _, whole = blocks(everything)
    weights = {d["id"]: d["disagreements"] for d in whole["documents"]}
    order = list(weights)
    worst = sorted(order, key=lambda d: (-weights[d], order.index(d)))[:3]
    assert [d["id"] for d in documents["documents"]] == [d for d in order if d in worst]
    selection = documents["selection"]
    assert selection["shown"] == 3 and selection["documents"] == 10
    assert selection["left_out"] == [d for d in order if d not in worst]
    assert selection["left_out_disagreements"] == sum(weights[d] for d in selection["left_out"])
    assert selection["note"].startswith("3 of 10 documents shown")
    assert selection["note"] in page.read_text(encoding="utf-8")
    assert whole["selection"]["note"] is None and whole["selection"]["left_out"] == []


@pytest.mark.slow
def test_a_jobs_2_report_equals_the_jobs_1_report(tmp_path):
    from spanagree.pipeline.parallel import Processes

    pages = {}
    two = Processes(2, min_documents_per_job=1, min_spans_per_job=1)
    for jobs in (1, two):
        pages["agree", jobs] = tmp_path / f"agree-{int(jobs)}.html"
        agree(ANNOTATORS, report=True, jobs=jobs).write_report(pages["agree", jobs])
        pages["score", jobs] = tmp_path / f"score-{int(jobs)}.html"
        write_report(score(ANNOTATORS[0], ANNOTATORS[1:], report=True, jobs=jobs), pages["score", jobs])
    assert len(two.mapped) == 2 and min(two.mapped) > 1  # agree and score forked
    for command in ("agree", "score"):
        one, two = pages[command, 1].read_text(encoding="utf-8"), pages[command, 2].read_text(encoding="utf-8")
        assert one.replace('"jobs":1', '"jobs":2') == two or one == two
        assert blocks(pages[command, 1])[1] == blocks(pages[command, 2])[1]


def test_the_forked_shards_really_spool_in_their_own_processes(tmp_path):
    from spanagree.pipeline.parallel import Processes

    result = agree(ANNOTATORS, report=True, jobs=Processes(2, min_documents_per_job=1, min_spans_per_job=1))
    spool = result.spool
    files = {spool.files[entry] for entry in spool.entries.values()}
    assert len({Path(f).name.rsplit("-", 2)[1] for f in files}) == 2  # two processes (<host>-<pid>-<n>) wrote records
    assert list(result.spool.entries) == result.documents


def test_script_end_and_emoji_are_safe_in_the_page(tmp_path):
    text = "Ana 😀 met </script><!-- Bo in 𝕽ome"
    start = text.index("Bo")
    rome = text.index("𝕽ome")
    a = SpanSet.from_spans("a", [Span("d", (0, 3), "PER"), Span("d", (start, start + 2), "PER"),
                                 Span("d", ((rome, rome + 4),), "LOC")], {"d": text})
    b = SpanSet.from_spans("b", [Span("d", (0, 5), "PER"), Span("d", ((start, start + 2), (rome, rome + 4)), "LOC")],
                           {"d": text})
    page = tmp_path / "emoji.html"
    agree([a, b], report=True).write_report(page)
    html = page.read_text(encoding="utf-8")
    assert html.count("</script>") == 4 and "<!-- Bo" not in html
    _, documents = blocks(page)
    (document,) = documents["documents"]
    assert document["text"] == text
    assert document["spans"][1][1] == [[[start, start + 2], [rome, rome + 4]], "LOC"]
    kinds = Counter(item[1] for item in document["items"])
    # residual alignment (overlap, labels ignored; same label preferred): PER–PER and LOC–LOC partial, Bo spurious
    assert kinds == Counter({"partial": 2, "spurious": 1})


def test_the_report_destination_is_safe(capsys, tmp_path):
    page = tmp_path / "report.html"
    page.write_text("mine", encoding="utf-8")
    assert main(["agree", *map(str, ANNOTATORS), "--report", str(page)]) == 2
    assert "exists and is not empty" in capsys.readouterr().err and page.read_text() == "mine"
    assert main(["agree", *map(str, ANNOTATORS), "--report", str(page), "--force"]) == 0
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    capsys.readouterr()
    ann = tmp_path / "ann1"
    shutil.copytree(ANNOTATORS[0], ann)
    assert main(["agree", str(ann), str(ANNOTATORS[1]), "--report", str(ann / "news-01.txt"), "--force"]) == 2
    assert "report" in capsys.readouterr().err
    assert main(["merge", *map(str, ANNOTATORS), "--to", "brat", "--out", str(tmp_path / "gold"),
                 "--report", str(tmp_path / "gold" / "r.html")]) == 2
    assert "inside the gold output" in capsys.readouterr().err
    assert main(["score", str(ANNOTATORS[0]), str(ANNOTATORS[1]), "--errors", str(tmp_path / "same.html"),
                 "--report", str(tmp_path / "same.html")]) == 2
    assert "another output" in capsys.readouterr().err
    assert main(["agree", *map(str, ANNOTATORS), "--report-documents", "3"]) == 2
    assert "--report-documents goes with --report" in capsys.readouterr().err
    assert main(["agree", *map(str, ANNOTATORS), "--report", str(tmp_path / "x.html"), "--report-documents", "-1"]) == 2
    assert not (tmp_path / "x.html").exists()
    with pytest.raises(UsageError, match="report=True"):
        agree(ANNOTATORS).write_report(tmp_path / "y.html")


def test_the_spool_files_go_when_the_result_goes(tmp_path):
    import gc

    result = agree(ANNOTATORS, report=True)
    folder = Path(result.spool.folder.path)  # the spool holds its SpoolFolder: no one else keeps it alive
    assert folder.is_dir() and list(folder.iterdir())
    del result
    gc.collect()
    assert not folder.exists()


# -- in a real browser -----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, headless, through playwright (never ``playwright install``)."""
    reason = None
    if not CHROMIUM.exists():
        reason = f"Chromium is not installed ({CHROMIUM}; apt-get install chromium)"
    else:
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            reason = "playwright is not installed (pip install '.[test]')"
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but {reason}")
        pytest.skip(reason)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield chromium
        chromium.close()


class Opened:
    """A report opened from disk: the page, what it logged and every request it made."""

    def __init__(self, browser, path: Path):
        self.page = browser.new_page(viewport={"width": 1280, "height": 900})
        self.messages, self.requests = [], []
        self.page.on("console", lambda m: self.messages.append((m.type, m.text)))
        self.page.on("pageerror", lambda e: self.messages.append(("pageerror", str(e))))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.url = path.resolve().as_uri()
        self.page.goto(self.url)
        self.page.wait_for_selector("html[data-ready]", timeout=60_000)

    def clean(self) -> bool:
        return self.messages == [] and self.requests == [self.url]

    def drawn_spans(self) -> dict:
        """The span elements of the document shown: ``{(document, annotator): Counter}``."""
        found = self.page.eval_on_selector_all("#sa-document .sa-span[data-annotator]", """nodes => nodes.map(n => [
            n.dataset.doc, n.dataset.annotator, n.dataset.fragments, n.dataset.label,
            n.dataset.start, n.dataset.end])""")
        spans = {}
        for doc, annotator, frags, label, start, end in found:
            assert int(start) == int(frags.split("-")[0]) and int(end) == int(frags.split("-")[-1])
            spans.setdefault((doc, annotator), Counter())[frags, label] += 1
        return spans

    def walk(self, button: str = "#sa-next") -> list:
        """Click ``button`` once per entry of the listing; what the info panel showed each time."""
        return self.page.evaluate("""button => {
            const status = document.getElementById("sa-status");
            const n = +status.dataset.count, seen = [];
            for (let k = 0; k < n; k++) {
                document.querySelector(button).click();
                const info = document.getElementById("sa-info").dataset;
                const current = document.querySelectorAll("#sa-document .sa-current").length;
                seen.push([info.doc, info.kind, +info.comparison, info.first, info.second, current, info.cluster]);
            }
            return seen;
        }""", button)

    def whole(self, on: bool = True) -> None:
        """Ask for the whole document (``on``) or the window around each disagreement."""
        if self.page.evaluate("document.getElementById('sa-whole').textContent.startsWith('window')") != on:
            self.page.click("#sa-whole")

    def close(self):
        self.page.close()


@pytest.mark.slow
def test_the_demo_report_in_chromium(browser, capsys, tmp_path):
    page = tmp_path / "agree.html"
    run(capsys, "agree", *ANNOTATORS, "--report", page, "--chance", "--bootstrap", "20", "--seed", "1",
        "--output", "json")
    data, documents = blocks(page)
    opened = Opened(browser, page)
    try:
        assert opened.clean(), (opened.messages, opened.requests)
        # the summary: the figures and the charts
        assert opened.page.locator("#sa-pairs tbody tr").count() == 3
        assert opened.page.locator("#sa-heatmap rect").count() == 9
        assert opened.page.locator(".sa-kappa-chart").count() == 3
        assert opened.page.locator(".sa-actual-d").count() == 3
        assert opened.page.locator(".sa-interval").count() == 4  # three pairs and the mean
        assert opened.page.locator("#sa-document-table tbody tr").count() == 10
        first_row = opened.page.locator("#sa-document-table tbody tr").first.get_attribute("data-doc")
        assert first_row == min(data["by_document"], key=lambda d: data["by_document"][d]["mean_f1"])  # worst first
        # every document's span elements are its spans, in the JSON and in the inputs (the whole document)
        read_in = spans_read(ANNOTATORS)
        opened.whole()
        for document in documents["documents"]:
            opened.page.select_option("#sa-filter-document", document["id"])
            drawn = opened.drawn_spans()
            expected = {key: spans for key, spans in spans_of(documents).items() if key[0] == document["id"]}
            assert {k: v for k, v in drawn.items() if v} == {k: v for k, v in expected.items() if v}
            assert {k: v for k, v in drawn.items()} == {k: read_in[k] for k in drawn}
        opened.page.select_option("#sa-filter-document", "")
        # next reaches every disagreement of the listings, each drawn and marked; previous goes back
        seen = opened.walk()
        assert all(entry[5] >= 1 for entry in seen)
        reached = {tuple(entry[:5]) for entry in seen}
        assert len(seen) == len(reached) == len(listing_of_pairs(documents, ANNOTATORS))
        assert reached == listing_of_pairs(documents, ANNOTATORS)
        back = opened.walk("#sa-previous")
        assert {tuple(entry[:5]) for entry in back} == reached and back[0] == seen[-2]
        # the filters change what is shown
        total = int(opened.page.get_attribute("#sa-status", "data-count"))
        opened.page.select_option("#sa-filter-kind", "missed")
        missed = int(opened.page.get_attribute("#sa-status", "data-count"))
        assert 0 < missed < total
        assert {entry[1] for entry in opened.walk()} == {"missed"}
        opened.page.select_option("#sa-filter-kind", "")
        opened.page.select_option("#sa-filter-label", "DRUG")
        labels = opened.page.eval_on_selector_all("#sa-document .sa-span[data-annotator]",
                                                  "n => n.map(x => x.dataset.label)")
        assert labels and set(labels) == {"DRUG"}
        drug = int(opened.page.get_attribute("#sa-status", "data-count"))
        assert 0 < drug < total
        opened.page.select_option("#sa-filter-label", "")
        opened.page.select_option("#sa-filter-pair", "2")
        assert opened.page.eval_on_selector_all("#sa-document .sa-lane", "n => n.map(x => x.dataset.lane)") == [
            "ann2", "ann3"]
        assert {entry[2] for entry in opened.walk()} == {2}
        shot = opened.page.screenshot(full_page=True)
    finally:
        opened.close()
    assert shot[:8] == b"\x89PNG\r\n\x1a\n" and len(shot) > 10 * blank_screenshot_size(browser)


def blank_screenshot_size(browser) -> int:
    """The size of a screenshot of an empty page, as the report's are taken (a page that shows
    something compresses far worse)."""
    blank = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        blank.set_content("<html><body></body></html>")
        return len(blank.screenshot(full_page=True))
    finally:
        blank.close()


@pytest.mark.slow
def test_score_and_merge_reports_in_chromium(browser, capsys, tmp_path):
    page = tmp_path / "score.html"
    run(capsys, "score", *ANNOTATORS, "--report", page, "--output", "json")
    opened = Opened(browser, page)
    try:
        assert opened.clean(), (opened.messages, opened.requests)
        _, documents = blocks(page)
        reached = {tuple(entry[:5]) for entry in opened.walk()}
        assert reached == listing_of_items(documents) and len(reached) == 29
        assert opened.page.locator("#sa-confusion table").count() == 4  # per prediction: the confusion, the kinds
    finally:
        opened.close()
    page = tmp_path / "merge.html"
    shown = run(capsys, "merge", *ANNOTATORS, "--to", "brat", "--out", tmp_path / "gold", "--report", page,
                "--output", "json")
    opened = Opened(browser, page)
    try:
        assert opened.clean(), (opened.messages, opened.requests)
        seen = opened.walk()
        assert len(seen) == shown["to_adjudicate"] and all(entry[5] >= 1 for entry in seen)
        opened.page.select_option("#sa-filter-kind", "all")
        assert int(opened.page.get_attribute("#sa-status", "data-count")) == shown["clusters"]
        opened.page.select_option("#sa-filter-kind", "dropped")
        assert int(opened.page.get_attribute("#sa-status", "data-count")) == shown["dropped"]
        kept = opened.page.eval_on_selector_all("#sa-document .sa-cluster", "n => n.map(x => x.dataset.kept)")
        assert "false" in kept
    finally:
        opened.close()


@pytest.mark.slow
def test_emoji_offsets_are_code_points_in_the_browser(browser, tmp_path):
    text = "I ❤️ 😀 Zoë in 𝕽ome 👩‍👩‍👧 and Ana"
    spans = [(text.index("😀"), text.index("😀") + 1, "EMO"), (text.index("Zoë"), text.index("Zoë") + 3, "PER"),
             (text.index("𝕽ome"), text.index("𝕽ome") + 4, "LOC"), (text.index("👩"), text.index("👩") + 5, "FAM"),
             (text.index("Ana"), text.index("Ana") + 3, "PER")]
    a = SpanSet.from_spans("a", [Span("d", (s, e), label) for s, e, label in spans], {"d": text})
    b = SpanSet.from_spans("b", [Span("d", ((spans[1][0], spans[1][1]), (spans[4][0], spans[4][1])), "PER")],
                           {"d": text})
    page = tmp_path / "emoji.html"
    agree([a, b], report=True).write_report(page)
    opened = Opened(browser, page)
    try:
        assert opened.clean(), (opened.messages, opened.requests)
        drawn = opened.page.eval_on_selector_all("#sa-document .sa-span[data-annotator]", """nodes => nodes.map(n => {
            const copy = n.cloneNode(true);
            copy.querySelectorAll(".sa-label, .sa-gap").forEach(x => x.remove());
            return [n.dataset.annotator, n.dataset.fragments, n.dataset.label, copy.textContent, n.dataset.kind || null];
        })""")
    finally:
        opened.close()
    expected = [("a", f"{s}-{e}", label, text[s:e]) for s, e, label in spans]
    (s1, e1), (s2, e2) = (spans[1][:2]), (spans[4][:2])
    expected.append(("b", f"{s1}-{e1};{s2}-{e2}", "PER", text[s1:e1] + text[s2:e2]))
    assert sorted(tuple(d[:4]) for d in drawn) == sorted(expected)
    kinds = {d[1]: d[4] for d in drawn}
    assert kinds[f"{spans[0][0]}-{spans[0][1]}"] == "spurious"  # only the first (a) marked it
    assert kinds[f"{s1}-{e1};{s2}-{e2}"] == "partial"


@pytest.mark.slow
def test_the_bratiaa_example_report_reaches_every_disagreement(browser, shared_corpora, tmp_path):
    project = shared_corpora / "bratiaa-example" / "example-project"
    names = ["Lisa", "Maria", "Max", "Peter"]
    inputs = [project / name for name in names]
    page = tmp_path / "bratiaa.html"
    assert main(["agree", *map(str, inputs), "--report", str(page), "--output", "json", "--by", "document"]) == 0
    data, documents = blocks(page)
    assert data["mean_f1"] == pytest.approx(agree(inputs).mean.mean)
    listing = listing_of_pairs(documents, inputs)
    assert listing_of_items(documents) == listing and len(listing) > 100
    opened = Opened(browser, page)
    try:
        assert opened.clean(), (opened.messages, opened.requests)
        seen = opened.walk()
        assert {tuple(e[:5]) for e in seen} == listing and all(e[5] >= 1 for e in seen)
        opened.whole()
        for document in documents["documents"]:
            opened.page.select_option("#sa-filter-document", document["id"])
            expected = {k: v for k, v in spans_of(documents).items() if k[0] == document["id"] and v}
            assert {k: v for k, v in opened.drawn_spans().items() if v} == expected
    finally:
        opened.close()


@pytest.mark.slow
def test_the_wnut17_report_reaches_every_error_of_seven_systems(browser, shared_corpora, capsys, tmp_path):
    folder = shared_corpora / "wnut17"
    systems = sorted((folder / "submissions").iterdir())
    page, errors = tmp_path / "wnut.html", tmp_path / "errors.json"
    shown = run(capsys, "score", folder / "emerging.test.annotated", *systems, "--format", "conll",
                "--errors", errors, "--report", page, "--output", "json", "--by", "document")
    data, documents = blocks(page)
    assert data == shown
    names = [p["prediction"] for p in shown["predictions"]]
    listing = json.loads(errors.read_text(encoding="utf-8"))["errors"]
    rows = {(e["document"], e["kind"], names.index(e["prediction"]),
             f"{e['pred_fragments']}|{e['pred_label']}" if e["pred_label"] else "",
             f"{e['gold_fragments']}|{e['gold_label']}" if e["gold_label"] else "") for e in listing}
    assert len(rows) == len(listing) == 6252
    assert listing_of_items(documents) == rows
    opened = Opened(browser, page)
    try:
        assert opened.clean(), (opened.messages, opened.requests)
        seen = opened.walk()
        assert {tuple(e[:5]) for e in seen} == rows and all(e[5] >= 1 for e in seen)
    finally:
        opened.close()


@pytest.mark.slow
def test_a_round_robin_report_in_chromium(browser, capsys, tmp_path):
    """agree --documents pairwise: a document's lanes are the annotators who have it, and next
    reaches every disagreement of every pair on its own documents (the --errors listing)."""
    names = [p.name for p in ANNOTATORS]
    ids = sorted(p.stem for p in ANNOTATORS[0].glob("*.ann"))
    holders = {d: sorted([names[n % 3], names[(n + 1) % 3]]) for n, d in enumerate(ids)}
    for name, source in zip(names, ANNOTATORS):
        (tmp_path / name).mkdir()
        for d in ids:
            if name in holders[d]:
                for suffix in (".ann", ".txt"):
                    shutil.copy(source / (d + suffix), tmp_path / name / (d + suffix))
    page, listing = tmp_path / "pairwise.html", tmp_path / "pairwise.json"
    data = run(capsys, "agree", *(tmp_path / n for n in names), "--documents", "pairwise", "--report", page,
               "--errors", listing, "--output", "json")
    assert [p["documents"] for p in data["pairs"]] == [4, 3, 3]
    _, documents = blocks(page)
    assert not list(Draft202012Validator(schema("report")).iter_errors(documents))
    for document in documents["documents"]:
        held = [documents["annotators"][k] for k, spans in enumerate(document["spans"]) if spans is not None]
        assert held == holders[document["id"]]
    listed = json.loads(listing.read_text(encoding="utf-8"))["errors"]
    opened = Opened(browser, page)
    try:
        assert opened.clean(), (opened.messages, opened.requests)
        for document in documents["documents"]:
            opened.page.select_option("#sa-filter-document", document["id"])
            lanes = opened.page.eval_on_selector_all("#sa-document .sa-lane", "n => n.map(x => x.dataset.lane)")
            assert lanes == holders[document["id"]]
        opened.page.select_option("#sa-filter-document", "")
        seen = opened.walk()
        assert len(seen) == len(listed) and all(entry[5] >= 1 for entry in seen)
        assert sorted(entry[0] for entry in seen) == sorted(item["document"] for item in listed)
        assert opened.clean(), opened.messages
    finally:
        opened.close()
    # merge --documents present: each document's lanes are its annotators' and the merged one
    merged, gold = tmp_path / "merge.html", tmp_path / "gold"
    run(capsys, "merge", *(tmp_path / n for n in names), "--documents", "present", "--to", "brat", "--out", gold,
        "--report", merged, "--output", "json")
    _, documents = blocks(merged)
    assert not list(Draft202012Validator(schema("report")).iter_errors(documents))
    opened = Opened(browser, merged)
    try:
        assert opened.clean(), (opened.messages, opened.requests)
        for document in documents["documents"]:
            opened.page.select_option("#sa-filter-document", document["id"])
            lanes = opened.page.eval_on_selector_all("#sa-document .sa-lane", "n => n.map(x => x.dataset.lane)")
            assert lanes == [*holders[document["id"]], "merged (proposed spans)"]
    finally:
        opened.close()


@pytest.mark.slow
def test_the_report_ranks_the_predictions_and_shows_the_averages(browser, capsys, tmp_path):
    page = tmp_path / "score.html"
    data = run(capsys, "score", ANNOTATORS[0], ANNOTATORS[1], ANNOTATORS[2], "--report", page, "--output", "json")
    assert [p["rank"] for p in data["predictions"]] == [2, 1]
    opened = Opened(browser, page)
    try:
        assert opened.clean(), (opened.messages, opened.requests)
        first = opened.page.eval_on_selector_all("#sa-pairs tbody tr", "rows => rows.map(r => [...r.cells].slice(0, 2).map(c => c.textContent))")
        assert first == [["1", "ann3"], ["2", "ann2"]]
        averages = opened.page.eval_on_selector_all("#sa-averages tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))")
        assert [row[0] for row in averages] == ["ann2", "ann3"]
        macro_f1 = data["predictions"][0]["averages"]["macro"]["f1"]
        assert float(averages[0][6]) == pytest.approx(macro_f1, abs=5e-4)  # shown to three decimals
        supports = opened.page.eval_on_selector_all("#sa-by-label tbody tr", "rows => rows.map(r => r.cells[r.cells.length - 1].textContent)")
        assert supports == [str(p["support"]) for p in data["predictions"][0]["by_label"].values()]
    finally:
        opened.close()


@pytest.mark.slow
def test_the_report_shows_the_paired_comparisons(browser, capsys, tmp_path):
    page = tmp_path / "compare.html"
    data = run(capsys, "score", ANNOTATORS[0], ANNOTATORS[1], ANNOTATORS[2], "--compare", "--seed", "3",
               "--resamples", "500", "--report", page, "--output", "json")
    embedded, _ = blocks(page)
    assert embedded["comparisons"] == data["comparisons"]
    opened = Opened(browser, page)
    try:
        assert opened.clean(), (opened.messages, opened.requests)
        rows = opened.page.eval_on_selector_all("#sa-comparisons-table tbody tr",
                                                "rows => rows.map(r => [...r.cells].map(c => c.textContent))")
        assert [row[:3] for row in rows] == [[e["first"], e["second"], e["measure"]] for e in data["comparisons"]]
    finally:
        opened.close()


@pytest.mark.slow
def test_the_report_shows_the_unitizing_alpha(browser, capsys, tmp_path):
    page = tmp_path / "alpha.html"
    data = run(capsys, "agree", *ANNOTATORS, "--unitizing", "--report", page, "--output", "json")
    opened = Opened(browser, page)
    try:
        assert opened.clean(), (opened.messages, opened.requests)
        assert opened.page.text_content("#sa-alpha-u") == f"{data['alpha_u']['overall']:.3f}"
        rows = opened.page.eval_on_selector_all("#sa-alpha-u-labels tbody tr", "rows => rows.map(r => r.cells[0].textContent)")
        assert rows == list(data["alpha_u"]["labels"])
    finally:
        opened.close()


@pytest.mark.slow
def test_the_report_shows_where_texts_differ(browser, capsys, tmp_path):
    text = "Ana Ruiz met Bo Li in Porto."
    for name, own, spans in (("a", text, [(0, 8), (13, 18), (22, 27)]),
                             ("b", text.replace("Porto", "Oporto").replace("Ana ", "Ana  "), [(0, 9), (14, 19), (23, 29)])):
        (tmp_path / name).mkdir()
        (tmp_path / name / "d1.txt").write_text(own, encoding="utf-8")
        (tmp_path / name / "d1.ann").write_text("".join(f"T{k}\tPER {s} {e}\t{own[s:e]}\n" for k, (s, e) in enumerate(spans, 1)),
                                                encoding="utf-8")
    page = tmp_path / "texts.html"
    data = run(capsys, "agree", tmp_path / "a", tmp_path / "b", "--align-text", "--report", page, "--output", "json")
    opened = Opened(browser, page)
    try:
        assert opened.clean(), (opened.messages, opened.requests)
        note = opened.page.text_content("#sa-aligned-texts")
        assert note.startswith("1 document(s) whose copies' texts differ were compared through a character alignment")
        cells = opened.page.eval_on_selector_all("#sa-document-table tbody tr", "rows => rows.map(r => r.cells[r.cells.length - 1].textContent)")
        assert cells == [str(data["aligned_texts"]["differing_characters"]["d1"])]
        # the span that touches changed characters ("Ana  Ruiz" → "Ana Ruiz" is whitespace: not marked) is marked
        opened.page.select_option("#sa-filter-document", "d1")
        marked = opened.page.eval_on_selector_all("#sa-document .sa-span[data-text-changed]",
                                                  "n => n.map(x => [x.dataset.annotator, x.dataset.fragments])")
        assert marked == [["b", "22-27"]] == [[e["annotator"], ";".join(f"{s}-{t}" for s, t in e["mapped"])]
                                              for e in data["aligned_texts"]["affected"]]
    finally:
        opened.close()
