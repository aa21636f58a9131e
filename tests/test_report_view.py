"""The HTML report's view model (spanagree/report/view.py; docs/report.md): its figures checked by
hand on a corpus small enough to count, the kinds defined once, and a page that never asks which
command made it — by a scan of its script and, in a real headless Chromium, by drawing the same
page when everything but the view and the documents is taken away.

The corpus (two documents, three annotators; ``[...]`` a span and its label)::

    d1  "Ana met Bo in Rome."        d2  "Cy is here."
    a   [Ana]PER [Bo]PER [Rome]LOC        [Cy]PER
    b   [Ana]PER [Bo]LOC                  [Cy]PER
    c   [Ana]PER [Bo]PER                  [Cy]PER
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from spanagree import agree, score, vote
from spanagree.report.html import script_json, write_report
from spanagree.report.view import CLUSTER_KINDS, DISAGREEMENT_KINDS, ITEM_KINDS, view_of
from spanagree.span import Span, SpanSet
from test_report import ANNOTATORS, Opened, blocks, browser  # noqa: F401  (the Chromium fixture)

ROOT = Path(__file__).resolve().parent.parent
ASSETS = ROOT / "spanagree" / "report" / "assets"
TEXTS = {"d1": "Ana met Bo in Rome.", "d2": "Cy is here."}
ANA, BO, ROME, CY = ("d1", 0, 3), ("d1", 8, 10), ("d1", 14, 18), ("d2", 0, 2)


def annotator(name: str, spans) -> SpanSet:
    return SpanSet.from_spans(name, [Span(doc, (start, end), label) for (doc, start, end), label in spans], TEXTS)


A = annotator("a", [(ANA, "PER"), (BO, "PER"), (ROME, "LOC"), (CY, "PER")])
B = annotator("b", [(ANA, "PER"), (BO, "LOC"), (CY, "PER")])
C = annotator("c", [(ANA, "PER"), (BO, "PER"), (CY, "PER")])


def section(view, id: str) -> list[dict]:
    (found,) = [s for s in view.sections if s.id == id]
    return found.blocks


# -- the kinds, once ---------------------------------------------------------------------------------------------

def test_the_kinds_are_the_scoring_and_voting_modules_own():
    from spanagree.scoring import KINDS
    from spanagree.voting import KINDS as VOTE_KINDS

    assert tuple(k.name for k in ITEM_KINDS) == KINDS
    assert [k.name for k in DISAGREEMENT_KINDS] == [k for k in KINDS if k != "correct"]
    assert [(k.name, k.description) for k in CLUSTER_KINDS] == list(VOTE_KINDS.items())
    colours = [k.colour for k in DISAGREEMENT_KINDS]
    assert all(colours) and len(set(colours)) == len(colours)


def test_the_page_names_no_kind_and_no_command():
    """The script and the style sheet take the kinds from the view; the script never branches on
    the command (nor reads the command's JSON document: it draws the view and the documents)."""
    script = (ASSETS / "report.js").read_text(encoding="utf-8")
    code = re.sub(r"/\*.*?\*/", "", script, flags=re.S)
    code = re.sub(r"^\s*//.*$|\s//.*$", "", code, flags=re.M)  # comments may name a command's option
    assert re.findall(r"\b(agree|score|merge|command|COMMAND|predictions)\b", code, flags=re.I) == []
    assert "spanagree-data" not in code and "DATA" not in code
    style = (ASSETS / "report.css").read_text(encoding="utf-8")
    for kind in ITEM_KINDS:
        assert kind.name not in code and kind.name not in style, kind.name
    for kind in CLUSTER_KINDS:  # "dropped" is also the word for a cluster not kept: never compared
        name = re.escape(kind.name)
        assert not re.search(rf'(===|!==|==|!=|indexOf\(|case|\[)\s*"{name}"|"{name}"\s*(===|!==|==|!=|,\s*")', code), kind.name
        assert kind.name not in style, kind.name


# -- hand-checked views --------------------------------------------------------------------------------------

def test_the_agree_view_by_hand():
    view = view_of(agree([A, B, C], report=True))
    assert (view.title, view.annotators, view.lanes) == ("Agreement", ["a", "b", "c"], ["a", "b", "c"])
    assert [(c.first, c.second, c.name) for c in view.comparisons] == [(0, 1, "a × b"), (0, 2, "a × c"),
                                                                        (1, 2, "b × c")]
    assert view.comparison_filter == "pair" and view.unit == "disagreement" and view.proposed_lane is None
    assert [c.value for c in view.kind_filter] == ["", "partial", "wrong_label", "wrong_label_and_boundary",
                                                   "missed", "spurious"]
    assert [s.id for s in view.sections] == ["sa-figures", None, "sa-labels"]  # no --chance, --bootstrap
    pairs, words = section(view, "sa-figures")[:2]
    # a × b: Ana, Cy agree (a = 2); a's Bo PER and Rome only in a (b = 2); b's Bo LOC (c = 1)
    # a × c: Ana, Bo, Cy (3); Rome (b = 1).  b × c: Ana, Cy (2); Bo LOC (1); Bo PER (1)
    assert [row[:7] for row in pairs["rows"]] == [["a", "b", 2, 2, 1, 2 / 4, 2 / 3], ["a", "c", 3, 1, 0, 3 / 4, 1.0],
                                                  ["b", "c", 2, 1, 1, 2 / 3, 2 / 3]]
    assert [row[7]["heat"] for row in pairs["rows"]] == pytest.approx([4 / 7, 6 / 7, 4 / 6])
    assert words["parts"][1]["value"] == pytest.approx((4 / 7 + 6 / 7 + 4 / 6) / 3)  # mean pairwise F1
    assert words["parts"][5]["value"] == pytest.approx(2 * 7 / (2 * 7 + 4 + 2))  # pooled: a=7, b=4, c=2
    heatmap = section(view, None)[0]["blocks"][0]
    assert heatmap["matrix"][0][1] == heatmap["matrix"][1][0] == pytest.approx(4 / 7)
    # the documents: d1's pairs have F1 2/5, 4/5, 2/4 (mean 17/30), pooled a=4, b=4, c=2; d2 agrees
    assert [c.name for c in view.documents.columns] == ["document", "mean pairwise F1", "pooled F1"]
    (d1, d2) = view.documents.rows
    assert d1[0] == "d1" and d1[1:] == pytest.approx([17 / 30, 8 / 14]) and d2 == ["d2", 1.0, 1.0]
    (mean,) = view.document_f1
    assert (mean["mean"], mean["sd"]) == pytest.approx(((17 / 30 + 1) / 2, (1 - 17 / 30) / 2))
    # d1 holds Bo (a × b, b × c: wrong_label) and Rome (a × b, a × c: spurious)
    assert view.weights == {"d1": 4, "d2": 0}
    (record, other) = view.records()
    assert [item[:2] for item in record["items"] if item[1] != "correct"] == [
        [0, "wrong_label"], [0, "spurious"], [1, "spurious"], [2, "wrong_label"]]
    assert other["items"] == [[0, "correct", 0, 0, 1.0], [1, "correct", 0, 0, 1.0], [2, "correct", 0, 0, 1.0]]


def test_the_score_view_by_hand():
    view = view_of(score(A, [B, C], report=True))
    assert (view.title, view.annotators, view.lanes) == ("Scores", ["a", "b", "c"], ["a (gold)", "b", "c"])
    assert [(c.first, c.second, c.name) for c in view.comparisons] == [(1, 0, "b × a"), (2, 0, "c × a")]
    assert view.comparison_filter == "prediction" and view.item_columns[0] == "prediction × gold"
    assert [s.id for s in view.sections] == ["sa-figures", "sa-labels", "sa-confusion"]
    pairs = section(view, "sa-figures")[0]
    # b: Ana, Cy right; Bo LOC spurious in b, Bo PER and Rome missed: a=2, b=1, c=2. c: only Rome missed.
    # In rank order: c (F1 6/7) first
    assert [row[:8] for row in pairs["rows"]] == [[1, "c", "a", 3, 0, 1, 1.0, 3 / 4], [2, "b", "a", 2, 1, 2, 2 / 3, 2 / 4]]
    labels = section(view, "sa-labels")[0]
    assert labels["head"] == ["label", "b", "c", "support (gold spans)"]
    assert [(row[0], row[-1]) for row in labels["rows"]] == [("LOC", 1), ("PER", 3)]
    assert [row[2]["heat"] for row in labels["rows"]] == pytest.approx([0.0, 1.0])  # c: LOC missed, PER all right
    box = section(view, "sa-confusion")[0]
    confusion = box["blocks"][1]
    assert confusion["head"] == ["gold \\ prediction", "LOC", "PER", "(none)"]
    assert [[cell["value"] for cell in row[1:]] for row in confusion["rows"]] == [[0, 0, 1], [1, 2, 0], [0, 0, 0]]
    assert confusion["rows"][1][2]["style"] == "background:hsl(120,60%,60%)"  # the diagonal's top count: 95 - 35
    assert {row[0]: row[1] for row in box["blocks"][3]["rows"]} == {"correct": 2, "partial": 0, "wrong_label": 1,
                                                 "wrong_label_and_boundary": 0, "missed": 1, "spurious": 0}
    assert view.documents.rows == [["d1", pytest.approx(2 / 5), pytest.approx(4 / 5)], ["d2", 1.0, 1.0]]
    assert [(m["name"], m["mean"], m["sd"]) for m in view.document_f1] == [
        ("b F1", pytest.approx(0.7), pytest.approx(0.3)), ("c F1", pytest.approx(0.9), pytest.approx(0.1))]
    assert view.weights == {"d1": 3, "d2": 0}  # b: Bo wrong_label, Rome missed; c: Rome missed


def test_the_merge_view_by_hand():
    view = view_of(vote([A, B, C]))
    assert (view.title, view.annotators, view.comparisons, view.comparison_filter) == (
        "Merge", ["a", "b", "c"], [], None)
    assert view.unit == "cluster" and view.item_columns is None and view.proposed_lane == "merged (proposed spans)"
    assert [c.value for c in view.kind_filter][:4] == ["to_adjudicate", "all", "kept", "not_kept"]
    assert [s.id for s in view.sections] == ["sa-figures"]
    counts, words = section(view, "sa-figures")
    # K = 2 of 3. d1: Ana (3 votes), Bo PER (a, c), Bo LOC (b: dropped), Rome (a: dropped); Bo's two
    # labels split it; d2: Cy (3 votes)
    assert dict(zip(counts["head"], counts["rows"][0])) == {
        "clusters": 5, "kept": 3, "dropped": 2, "boundary_tie": 0, "label_tie": 0, "label_split": 2,
        "several_spans": 0, "to_adjudicate": 3, "spans": 3}
    assert words["parts"] == ["2 documents merged, K = 2 of 3 annotators; votes per cluster: 1: 2, 2: 1, 3: 2"]
    assert [c.name for c in view.documents.columns] == ["document", "clusters", "kept", "to adjudicate"]
    assert view.documents.rows == [["d1", 4, 2, 3], ["d2", 1, 1, 0]]
    assert (view.documents.sort, view.documents.ascending) == (3, False)  # most to adjudicate first
    assert view.weights == {"d1": 3, "d2": 0} and view.document_f1 is None
    record = next(view.records())
    assert [(c["span"][1], c["votes"], c["kept"], c["kinds"]) for c in record["clusters"]] == [
        ("PER", 3, True, []), ("LOC", 1, False, ["dropped", "label_split"]), ("PER", 2, True, ["label_split"]),
        ("LOC", 1, False, ["dropped"])]


def test_report_documents_selects_in_the_view():
    view = view_of(agree([A, B, C], report=True), 1)
    assert view.shown == ["d1"] and [r["id"] for r in view.records()] == ["d1"]
    note = "1 of 2 documents shown (the 1 with the most disagreements); 1 left out, with 0 disagreement(s) between them"
    assert view.selection() == {"documents": 2, "shown": 1, "left_out": ["d2"], "left_out_disagreements": 0,
                                "note": note}
    assert view.as_json()["documents"]["notes"][-1]["parts"] == [note] and view.as_json()["selection_note"] == note


def test_the_documents_block_of_a_small_run(tmp_path):
    """The contract block, whole, for the corpus above (agree, two annotators)."""
    page = tmp_path / "agree.html"
    result = agree([A, B], report=True)
    write_report(result, page)
    html = page.read_text(encoding="utf-8")
    block = re.search(r'id="spanagree-documents">(.*?)</script>', html, re.S).group(1)
    version = json.loads(block)["spanagree"]
    assert block == (
        '{"spanagree":"' + version + '","command":"agree","annotators":["a","b"],"comparisons":[{"first":0,'
        '"second":1}],"selection":{"documents":2,"shown":2,"left_out":[],"left_out_disagreements":0,"note":null},'
        '"kappa_curves":[],"document_f1":[{"name":"mean pairwise F1","mean":0.7,"sd":0.3,"defined":2,"skipped":0}],'
        '"documents":[{"id":"d1","text":"Ana met Bo in Rome.","spans":[[[[[0,3]],"PER"],[[[8,10]],"PER"],'
        '[[[14,18]],"LOC"]],[[[[0,3]],"PER"],[[[8,10]],"LOC"]]],"items":[[0,"correct",0,0,1.0],'
        '[0,"wrong_label",1,1,0.0],[0,"spurious",2,null,0.0]],"disagreements":2},\n'
        '{"id":"d2","text":"Cy is here.","spans":[[[[[0,2]],"PER"]],[[[[0,2]],"PER"]]],"items":[[0,"correct",0,0,'
        '1.0]],"disagreements":0}]}')
    view = re.search(r'id="spanagree-view">(.*?)</script>', html, re.S).group(1)
    assert view == script_json(view_of(result).as_json())


def test_an_unknown_result_has_no_view():
    from spanagree.errors import UsageError

    with pytest.raises(UsageError, match="no report of a dict"):
        view_of({})


# -- in Chromium: the page draws the view, whichever command made it -------------------------------------------

def cell_text(cell) -> str:
    """A view's table cell as the page writes it (three decimals; integers as they are; — for none)."""
    if isinstance(cell, dict):
        if "heat" in cell:
            return cell_text(cell["heat"])
        if "interval" in cell:
            found = cell["interval"]
            return "—" if found is None else f"[{cell_text(found[0])}, {cell_text(found[1])}]"
        if "bar" in cell:
            return ""
        return cell_text(cell["value"])
    if cell is None:
        return "—"
    if isinstance(cell, (int, float)) and not isinstance(cell, bool):
        return str(int(cell)) if float(cell).is_integer() else f"{cell:.3f}"
    return str(cell)


def tables_of(blocks: list[dict]):
    for block in blocks:
        if block["type"] == "table":
            yield block
        yield from tables_of(block.get("blocks", []))


def drawn(opened) -> str:
    return opened.page.inner_html("#sa-app")


@pytest.mark.filterwarnings("ignore::spanagree.errors.SpanagreeWarning")  # the demo's nested spans, 10 documents
@pytest.mark.parametrize("command", ["agree", "score", "merge"])
def test_the_page_draws_the_view_and_nothing_else(browser, tmp_path, command):
    page = tmp_path / f"{command}.html"
    if command == "agree":
        result = agree(ANNOTATORS, report=True, bootstrap=20, seed=1, chance=True)
    elif command == "score":
        result = score(ANNOTATORS[0], ANNOTATORS[1:], report=True)
    else:
        result = vote(ANNOTATORS)
    write_report(result, page)
    view = json.loads(re.search(r'id="spanagree-view">(.*?)</script>', page.read_text(encoding="utf-8"),
                                re.S).group(1))
    _, documents = blocks(page)
    opened = Opened(browser, page)
    try:
        assert opened.clean(), (opened.messages, opened.requests)
        first = drawn(opened)
        walked = opened.walk()
        assert len(walked) == sum(d["disagreements"] for d in documents["documents"]) > 0
        # the sections are the view's, in its order, then the documents and the document view
        titles = opened.page.eval_on_selector_all("#sa-app > section > h2", "n => n.map(x => x.textContent)")
        assert titles == [s["title"] for s in view["summary"]] + ["Documents", view["document_heading"]]
        # every table of the summary holds the view's cells
        shown = opened.page.eval_on_selector_all("#sa-app > section:not(#sa-documents):not(#sa-view) table", """
            t => t.map(x => [[...x.tHead.rows[0].cells].map(c => c.textContent),
                             [...x.tBodies[0].rows].map(r => [...r.cells].map(c => c.textContent))])""")
        expected = [[t["head"], [[cell_text(c) for c in row] for row in t["rows"]]]
                    for s in view["summary"] for t in tables_of(s["blocks"])]
        assert shown == expected and len(shown) >= 1
        rows = opened.page.eval_on_selector_all("#sa-document-table tbody tr", "r => r.map(x => x.dataset.doc)")
        assert sorted(rows) == sorted(r[0] for r in view["documents"]["rows"])
        kinds = opened.page.eval_on_selector_all("#sa-filter-kind option", "o => o.map(x => x.value)")
        assert kinds == [c["value"] for c in view["kind_filter"]]
        lanes = opened.page.eval_on_selector_all("#sa-document .sa-lane", "n => n.map(x => x.dataset.lane)")
        assert lanes[:len(view["lanes"])] == view["lanes"]
    finally:
        opened.close()
    # the same page without the command's JSON document and with another command's name draws the same
    html = page.read_text(encoding="utf-8")
    html = re.sub(r'(id="spanagree-data">).*?(</script>)', r"\1{}\2", html, count=1, flags=re.S)
    stripped = html.replace(f'"command":"{command}"', '"command":"none"', 1)
    assert stripped != html
    other = tmp_path / "other.html"
    other.write_text(stripped, encoding="utf-8")
    opened = Opened(browser, other)
    try:
        assert opened.clean(), (opened.messages, opened.requests)
        assert drawn(opened) == first
        assert opened.walk() == walked
    finally:
        opened.close()


def test_the_gamma_section_of_a_run_without_units_says_so():
    from spanagree.measures.gamma import GammaSettings, gamma_figures
    from spanagree.report.view import gamma_section

    found = gamma_figures([None], GammaSettings(seed=3))  # one document, no unit in it
    assert found["documents"] == 0 and found["gamma"] is None
    [section] = gamma_section(found)
    assert section.id == "sa-gamma" and section.blocks[0]["parts"] == ["γ: no unit in any document"]
    assert gamma_section(None) == []
