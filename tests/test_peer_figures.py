"""Figures that peers publish on real corpora, reproduced (tests skip without ../shared).

Each expectation comes from the corpus folder's SOURCE.md, the peer's recorded output, or a run
of the peer itself (seqeval 1.2.2, nervaluate 1.2.1 in a scratch environment; the commands are in
docs/peers.md). The peers are never imported here: their figures are recorded numbers.
"""

from __future__ import annotations

import csv
import warnings

import pytest

from spanagree import agree, read, score
from spanagree.errors import SpanagreeError, SpanagreeWarning

from test_peer_nervaluate import categories as nervaluate_categories  # one mapping, kinds → COR/INC/PAR/MIS/SPU

#: nervaluate scheme → spanagree (match, labels) (DESIGN.md, "Matching").
SCHEMES = {"strict": ("exact", "strict"), "exact": ("exact", "ignore"), "partial": ("partial", "ignore"),
           "ent_type": ("overlap", "strict")}


@pytest.fixture(scope="module")
def conll03(shared_corpora):
    folder = shared_corpora / "conll2003-test-reannotations"
    return read(folder / "conll2003_test.txt", "conll"), read(folder / "conllpp_test.txt", "conll")


@pytest.mark.parametrize(
    "match, labels, a",
    [
        ("exact", "strict", 5506),
        ("exact", "ignore", 5586),
        ("partial", "ignore", 5608.5),
        ("overlap", "strict", 5536),
        ("partial", "strict", 5521),
        ("overlap", "ignore", 5631),
    ],
)
def test_conll2003_vs_conllpp(conll03, match, labels, a):
    original, conllpp = conll03
    pair = agree([original, conllpp], match=match, labels=labels).pairs[0]
    assert pair.counts.a == a
    assert pair.counts.a + pair.counts.b == 5648
    assert pair.counts.a + pair.counts.c == 5702


#: nervaluate 1.2.1 on CoNLL-2003 (true) vs CoNLL++ (pred), list loader, one document per
#: sentence: (COR, INC, PAR, MIS, SPU) and P, R, F1 to 6 decimals (run for docs/peers.md).
NERVALUATE_CONLL03 = {
    "strict": ((5506, 125, 0, 17, 71), (0.965626, 0.974858, 0.970220)),
    "exact": ((5586, 45, 0, 17, 71), (0.979656, 0.989023, 0.984317)),
    "partial": ((5586, 0, 45, 17, 71), (0.983602, 0.993006, 0.988282)),
    "ent_type": ((5536, 95, 0, 17, 71), (0.970887, 0.980170, 0.975507)),
}


@pytest.mark.parametrize("scheme", list(NERVALUATE_CONLL03))
def test_conll2003_vs_conllpp_equals_nervaluate(conll03, scheme):
    """All four schemes coincide here, categories included: nervaluate's greedy matching happens to
    find a maximum alignment on this pair (on WNUT-17 its ent_type does not, see below)."""
    original, conllpp = conll03
    match, labels = SCHEMES[scheme]
    result = score(original, conllpp, match=match, labels=labels)  # gold = the original, as nervaluate's true
    categories, rates = NERVALUATE_CONLL03[scheme]
    assert nervaluate_categories(result.error_counts(), scheme) == categories
    counts = result.counts
    assert (counts.a + counts.b, counts.a + counts.c) == (5702, 5648)  # nervaluate's ACT, POS
    assert tuple(round(x, 6) for x in (counts.precision, counts.recall, counts.f1)) == rates


def test_conll2003_vs_conllpp_matches_conlleval_and_seqeval(conll03):
    original, conllpp = conll03
    exact = score(original, conllpp).counts
    # conlleval 97.02; seqeval 1.2.2 default and strict IOB2 both P 0.965626, R 0.974858, F1 0.970220
    assert (round(exact.precision, 6), round(exact.recall, 6), round(exact.f1, 6)) == (0.965626, 0.974858, 0.970220)
    assert round(exact.f1, 5) == 0.97022



def test_conll2003_vs_conllpp_strict_iob2_equals_seqeval_strict(shared_corpora):
    folder = shared_corpora / "conll2003-test-reannotations"
    with warnings.catch_warnings():
        warnings.simplefilter("error", SpanagreeWarning)  # no invalid IOB2 transition in either file
        original = read(folder / "conll2003_test.txt", "conll", scheme="iob2")
        conllpp = read(folder / "conllpp_test.txt", "conll", scheme="iob2")
    assert round(score(original, conllpp).counts.f1, 6) == 0.970220  # seqeval mode="strict", IOB2


def test_conll2003_vs_conllpp_partial_equals_nervaluate(conll03):
    original, conllpp = conll03
    partial = agree([original, conllpp], match="partial", labels="ignore").pairs[0].counts
    assert round(partial.f1, 5) == 0.98828  # nervaluate partial


def wnut_reference(shared_corpora):
    with open(shared_corpora / "wnut17" / "reference" / "summary.tsv", encoding="utf-8") as handle:
        return {row["system"]: row for row in csv.DictReader(handle, delimiter="\t")}


SYSTEMS = ["arcada", "drexel_cci", "flytxt", "mic-cis", "sjtu_adapt", "spinningbytes", "uh_ritual"]


def submission(shared_corpora, system):
    folder = shared_corpora / "wnut17" / "submissions"
    path = folder / system
    return path if path.exists() else folder / f"{system}.txt"


@pytest.mark.parametrize("system", SYSTEMS)
def test_wnut17_submissions_score_conllevals_figures(shared_corpora, system):
    reference = wnut_reference(shared_corpora)[system]
    gold = read(shared_corpora / "wnut17" / "emerging.test.annotated", "conll")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)  # mic-cis spells 1283 tokens differently
        pred = read(submission(shared_corpora, system), "conll")
        result = score(gold, pred)
    counts = result.counts
    assert counts.a == int(reference["correct"])
    assert counts.a + counts.c == int(reference["gold_spans"])
    assert counts.a + counts.b == int(reference["system_spans"])
    assert f"{100 * counts.precision:.2f}" == reference["conlleval_P"]
    assert f"{100 * counts.recall:.2f}" == reference["conlleval_R"]
    assert f"{100 * counts.f1:.2f}" == reference["conlleval_F1"]
    # and conlleval.pl's own report, type by type
    report = conlleval_report(shared_corpora / "wnut17" / "reference" / f"conlleval_{system}.txt")
    assert report["overall"] == (int(reference["gold_spans"]), int(reference["system_spans"]), int(reference["correct"]))
    assert by_type(result) == report["types"]


def conlleval_report(path):
    """conlleval.pl's output: (phrases, found, correct) and, per type, (P, R, FB1, found) as printed."""
    import re

    text = path.read_text(encoding="utf-8")
    phrases, found, correct = map(int, re.search(
        r"with (\d+) phrases; found: (\d+) phrases; correct: (\d+)", text).groups())
    types = {m[0]: (m[1], m[2], m[3], int(m[4])) for m in re.findall(
        r"^\s+(\S+): precision:\s+([\d.]+)%; recall:\s+([\d.]+)%; FB1:\s+([\d.]+)\s+(\d+)$", text, re.M)}
    return {"overall": (phrases, found, correct), "types": types}


def by_type(result):
    """spanagree's per-label figures printed as conlleval prints them (0/0 printed as 0.00)."""
    from spanagree.measures.registry import counts_dict

    printed = {}
    for label, counts in result.pair.by_label.items():
        d = counts_dict(counts)
        rates = [0.0 if d[k] != d[k] else d[k] for k in ("precision", "recall", "f1")]
        printed[label] = (*(f"{100 * v:.2f}" for v in rates), d["a"] + d["b"])
    return printed


def test_reconll_merged_sentences_are_an_error_naming_the_document(shared_corpora, conll03):
    """ReCoNLL merges 10 sentences (SOURCE.md): compared by token position, the first merge stops
    the run, naming the document and the sentence counts."""
    from spanagree.errors import FormatError

    original, _ = conll03
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        reconll = read(shared_corpora / "conll2003-test-reannotations" / "reconll_test.txt", "conll")
    with pytest.raises(FormatError, match=r"reconll_test.txt: document 24: 48 sentences in reconll_test, "
                                          r"49 in conll2003_test"):
        agree([original, reconll])


def test_conll2003_vs_conllpp_conlleval_report(shared_corpora, conll03):
    original, conllpp = conll03
    folder = shared_corpora / "conll2003-test-reannotations" / "reference"
    report = conlleval_report(folder / "conlleval_orig_conllpp.txt")
    result = score(original, conllpp)
    counts = result.counts
    assert report["overall"] == (counts.a + counts.c, counts.a + counts.b, counts.a) == (5648, 5702, 5506)
    assert by_type(result) == report["types"]


@pytest.mark.parametrize("system", SYSTEMS)
def test_wnut17_strict_iob2_equals_seqeval_strict(shared_corpora, system):
    reference = wnut_reference(shared_corpora)[system]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        gold = read(shared_corpora / "wnut17" / "emerging.test.annotated", "conll", scheme="iob2")
        pred = read(submission(shared_corpora, system), "conll", scheme="iob2")
        result = score(gold, pred)
    assert f"{100 * result.counts.f1:.2f}" == reference["seqeval_strict_IOB2_F1"]


def test_wnut17_seqeval_strict_figures_named_by_the_issue(shared_corpora):
    """Where strict decoding parts from conlleval's (invalid IOB2 transitions: mic-cis 13,
    spinningbytes 34), seqeval strict gives 37.30 and 41.31 — and so does --scheme iob2."""
    gold = read(shared_corpora / "wnut17" / "emerging.test.annotated", "conll", scheme="iob2")
    figures = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        for system in ("mic-cis", "spinningbytes"):
            figures[system] = score(gold, read(submission(shared_corpora, system), "conll", scheme="iob2")).counts
    assert f"{100 * figures['mic-cis'].f1:.2f}" == "37.30"  # conlleval / seqeval default: 37.06
    assert f"{100 * figures['spinningbytes'].f1:.2f}" == "41.31"  # conlleval / seqeval default: 40.78
    assert round(figures["mic-cis"].precision, 6) == 0.415718 and round(figures["spinningbytes"].recall, 6) == 0.357739


#: nervaluate 1.2.1 on WNUT-17 (gold = emerging.test.annotated; list loader, one document per
#: sentence): (COR, INC, PAR, MIS, SPU) per scheme, and F1 to 6 decimals (run for docs/peers.md).
NERVALUATE_WNUT = {
    "arcada": {"strict": (373, 251, 0, 455, 163, 0.399786), "exact": (535, 89, 0, 455, 163, 0.573419),
               "partial": (535, 0, 89, 455, 163, 0.621115), "ent_type": (425, 199, 0, 455, 163, 0.455520)},
    "drexel_cci": {"strict": (192, 110, 0, 777, 79, 0.263014), "exact": (231, 71, 0, 777, 79, 0.316438),
                   "partial": (231, 0, 71, 777, 79, 0.365068), "ent_type": (237, 65, 0, 777, 79, 0.324658)},
    "flytxt": {"strict": (345, 221, 0, 513, 154, 0.383546), "exact": (492, 74, 0, 513, 154, 0.546971),
               "partial": (492, 0, 74, 513, 154, 0.588105), "ent_type": (381, 185, 0, 513, 154, 0.423569)},
    "mic-cis": {"strict": (365, 250, 0, 464, 276, 0.370558), "exact": (499, 116, 0, 464, 276, 0.506599),
                "partial": (499, 0, 116, 464, 276, 0.565482), "ent_type": (415, 200, 0, 464, 276, 0.421320)},
    "sjtu_adapt": {"strict": (365, 224, 0, 490, 138, 0.404208), "exact": (505, 84, 0, 490, 138, 0.559247),
                   "partial": (505, 0, 84, 490, 138, 0.605759), "ent_type": (407, 182, 0, 490, 138, 0.450720)},
    "spinningbytes": {"strict": (388, 255, 0, 436, 181, 0.407777), "exact": (515, 128, 0, 436, 181, 0.541251),
                      "partial": (515, 0, 128, 436, 181, 0.608513), "ent_type": (465, 178, 0, 436, 181, 0.488702)},
    "uh_ritual": {"strict": (355, 171, 0, 553, 91, 0.418632), "exact": (448, 78, 0, 553, 91, 0.528302),
                  "partial": (448, 0, 78, 553, 91, 0.574292), "ent_type": (402, 124, 0, 553, 91, 0.474057)},
}
#: Sentences (1-based) where nervaluate's ent_type pairs a gold span with the first overlapping
#: prediction of another type and so misses a same-type pair that the one-to-one maximum finds:
#: system → {sentence: (spanagree's a there, nervaluate's COR there)}. docs/peers.md shows them.
GREEDY_SENTENCES = {
    "arcada": {748: (1, 0)},          # gold creative-work "Kelli 's ... Equipment", pred person "Kelli" first
    "flytxt": {748: (1, 0)},
    "mic-cis": {1056: (1, 0)},        # gold creative-work "Auto DJ Show", pred person "Auto" first
    "spinningbytes": {120: (2, 1), 414: (1, 0)},  # "Diego Rolan" person vs group + person; "Amazon Echo"
}


@pytest.mark.parametrize("system", SYSTEMS)
def test_wnut17_nervaluate(shared_corpora, system):
    gold = read(shared_corpora / "wnut17" / "emerging.test.annotated", "conll")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        pred = read(submission(shared_corpora, system), "conll")
    reference = wnut_reference(shared_corpora)[system]
    for scheme, (*categories, f1) in NERVALUATE_WNUT[system].items():
        match, labels = SCHEMES[scheme]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SpanagreeWarning)
            result = score(gold, pred, match=match, labels=labels)
        counts = result.counts
        assert f"{100 * f1:.2f}" == reference[f"nerv_{scheme}_F1"]  # the recorded run agrees with summary.tsv
        if scheme != "ent_type":
            assert nervaluate_categories(result.error_counts(), scheme) == tuple(categories)
            assert round(counts.f1, 6) == f1
            continue
        # ent_type: nervaluate's greedy pairing loses same-type pairs in the listed sentences only.
        text = gold.documents["1"].text
        starts = [0] + [k + 1 for k, ch in enumerate(text) if ch == "\n"]
        ours_there = theirs_there = 0
        for sentence, (ours, theirs) in GREEDY_SENTENCES.get(system, {}).items():
            begin, end = starts[sentence - 1], starts[sentence] if sentence < len(starts) else len(text)
            found = sum(i.credit for i in result.items if i.aligned and begin <= i.gold.start < end)
            assert found == ours
            ours_there, theirs_there = ours_there + ours, theirs_there + theirs
        assert counts.a - (ours_there - theirs_there) == categories[0]
        assert counts.a >= categories[0]  # the maximum never finds fewer pairs
        assert (counts.a + counts.c, counts.a + counts.b) == (1079, int(reference["system_spans"]))


def test_wnut17_mic_cis_token_spellings_warn(shared_corpora):
    gold = read(shared_corpora / "wnut17" / "emerging.test.annotated", "conll")
    pred = read(submission(shared_corpora, "mic-cis"), "conll")
    with pytest.warns(SpanagreeWarning, match="1283 token"):
        score(gold, pred)


@pytest.mark.parametrize(
    "match, labels, abc",
    [
        ("exact", "strict", (761, 6, 9)),
        ("exact", "ignore", (762, 5, 8)),
        ("overlap", "strict", (766, 1, 4)),
        ("overlap", "ignore", (767, 0, 3)),
    ],
)
def test_chemu_matches_brateval(shared_corpora, match, labels, abc):
    folder = shared_corpora / "brateval-chemu-sample"
    gold, system = read(folder / "gt", "brat"), read(folder / "system", "brat")
    counts = score(gold, system, match=match, labels=labels).counts
    assert (counts.a, counts.b, counts.c) == abc


def test_meddocan_matches_the_official_scorer(shared_corpora):
    folder = shared_corpora / "meddocan-sample"
    gold = read(folder / "gold" / "brat" / "sample", "brat")
    system = read(folder / "system" / "brat" / "subtrack1" / "sample" / "baseline", "brat")
    strict = score(gold, system).counts
    assert (strict.a, strict.a + strict.b, strict.a + strict.c) == (48, 137, 347)
    assert round(strict.f1, 4) == 0.1983  # subtrack 1
    with pytest.warns(SpanagreeWarning, match="8 span"):
        ignore = score(gold, system, labels="ignore").counts
    assert (ignore.a, ignore.a + ignore.b, ignore.a + ignore.c) == (48, 129, 347)
    assert round(ignore.f1, 4) == 0.2017  # subtrack 2 strict


def test_acl_rd_tec_with_whitespace_alignment(shared_corpora):
    """171 documents; 123 copies differ, 118 only in whitespace; 5 differ in content (SOURCE.md)."""
    folder = shared_corpora / "acl-rd-tec-2.0" / "double_annotated"
    first = read(folder / "annotator1", "xml", xml_label_attr="class")
    second = read(folder / "annotator2", "xml", xml_label_attr="class")
    assert len(first.documents) == len(second.documents) == 171
    assert sum(first.documents[d].text == second.documents[d].text for d in first.documents) == 48
    with pytest.raises(SpanagreeError, match="has a different text in annotator2 than in annotator1"):
        agree([first, second])
    differ = ["C94-1030_abstr", "C94-1061_abstr", "C94-1077_abstr", "J86-4002_abstr", "P80-1026_abstr"]
    with pytest.warns(SpanagreeWarning, match="5 document\\(s\\) left out because their texts differ beyond "
                                              "whitespace: " + ", ".join(differ)):
        result = agree([first, second], align_whitespace=True)
    assert len(result.documents) == 166
    assert result.left_out == {"texts_differ": differ}
    assert "118 document(s) compared through their non-whitespace characters" in " ".join(result.notes)
    counts = result.pairs[0].counts
    assert (counts.a, counts.a + counts.b, counts.a + counts.c) == (1651, 2512, 2348)
    assert round(counts.f1, 4) == 0.6794
    with pytest.warns(SpanagreeWarning, match="left out"):
        unlabelled = agree([first, second], align_whitespace=True, labels="ignore").pairs[0].counts
    assert (unlabelled.a, round(unlabelled.f1, 4)) == (1959, 0.8062)
