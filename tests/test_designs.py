"""Annotation designs with missing annotations: ``agree --documents pairwise`` (round-robin designs,
each document annotated by some of the annotators)."""

from __future__ import annotations

import json
import random
import shutil
import warnings

import pytest

from spanagree import SpanSet, SpanagreeError, SpanagreeWarning, UsageError, agree
from spanagree.cli import main
from spanagree.formats import DocumentStream
from spanagree.measures.counts import Counts
from spanagree.pipeline import parallel
from spanagree.report.document import to_json
from spanagree.report.schemas import schema
from spanagree.span import Span

TEXTS = {"d1": "Ana met Bo", "d2": "Cy saw Di", "d3": "Ed in Rome"}


def design():
    """d1: A and B; d2: A and C; d3: B and C (each document by 2 of 3 annotators)."""
    a = SpanSet.from_spans("A", [Span("d1", (0, 3), "PER"), Span("d1", (8, 10), "PER"), Span("d2", (0, 2), "PER")],
                           {d: TEXTS[d] for d in ("d1", "d2")})
    b = SpanSet.from_spans("B", [Span("d1", (0, 3), "PER"), Span("d3", (0, 2), "PER")],
                           {d: TEXTS[d] for d in ("d1", "d3")})
    c = SpanSet.from_spans("C", [Span("d2", (0, 2), "PER"), Span("d2", (7, 9), "PER"), Span("d3", (0, 2), "PER"),
                                 Span("d3", (6, 10), "LOC")], {d: TEXTS[d] for d in ("d2", "d3")})
    return [a, b, c]


def figures(result):
    return [(p.first, p.second, sorted(p.by_document), p.counts) for p in result.pairs]


def test_each_pair_compares_the_documents_both_annotators_have_by_hand():
    result = agree(design(), documents="pairwise")
    # A×B on d1: Ana both, Bo only A -> a=1, b=1, c=0; A×C on d2: Cy both, Di only C -> a=1, b=0, c=1;
    # B×C on d3: Ed both, Rome only C -> a=1, b=0, c=1
    assert figures(result) == [("A", "B", ["d1"], Counts(1, 1, 0)), ("A", "C", ["d2"], Counts(1, 0, 1)),
                               ("B", "C", ["d3"], Counts(1, 0, 1))]
    assert result.documents == ["d1", "d2", "d3"]
    assert result.mean.mean == pytest.approx(2 / 3)          # each pair's F1 is 2/3
    assert result.pooled == Counts(3, 1, 2)                  # summed over pairs, each on its own documents
    data = result.to_dict(by_document=True)
    assert [p["documents"] for p in data["pairs"]] == [1, 1, 1]
    assert data["options"]["documents"] == "pairwise"
    # a document's breakdown lists the pairs that compared it
    assert [p["annotators"] for p in data["by_document"]["d2"]["pairs"]] == [["A", "C"]]


def test_the_default_design_still_needs_a_document_everyone_has():
    with pytest.raises(SpanagreeError, match="no document is annotated by every annotator"):
        agree(design())


def test_a_pair_without_a_shared_document_has_null_figures_and_a_warning():
    a, b, c = design()
    c = SpanSet("C", {"d3": c.documents["d3"]})         # C and A now share nothing
    with pytest.warns(SpanagreeWarning) as caught:
        result = agree([a, b, c], documents="pairwise")
    messages = [str(w.message) for w in caught]
    assert "A × C: no document annotated by both; the pair's figures are null" in messages
    data = json.loads(to_json(result.to_dict()))
    a_c = data["pairs"][1]
    assert a_c["annotators"] == ["A", "C"] and a_c["documents"] == 0
    assert a_c["f1"] is None and a_c["a"] == 0
    assert data["pairs_with_undefined_f1"] == 1
    assert data["left_out"] == {"annotated_by_one": ["d2"]}   # d2 is A's only now
    assert any("annotated by only one annotator are left out: d2" in m for m in messages)


def test_no_two_annotators_sharing_a_document_is_an_error():
    a, b, c = design()
    lonely = [SpanSet("A", {"d1": a.documents["d1"]}), SpanSet("B", {"d3": b.documents["d3"]})]
    with pytest.raises(SpanagreeError, match="no document is annotated by two annotators: A has 1; B has 1"):
        agree(lonely, documents="pairwise")


def test_an_unknown_design_is_a_usage_error():
    with pytest.raises(UsageError, match="unknown document design 'some'"):
        agree(design(), documents="some")


def test_streams_in_different_orders_give_the_in_memory_figures():
    """Comparing while reading holds a document until every pair that needs it has its copies, and
    releases it once no pair will: streams in other orders give the same figures."""
    sets = design()
    expected = figures(agree(sets, documents="pairwise"))
    for order in (["d3", "d2", "d1"], ["d2", "d3", "d1"]):
        streams = [DocumentStream(s.name, "", iter([s.documents[d] for d in order if d in s.documents]))
                   for s in sets]
        assert figures(agree(streams, documents="pairwise")) == expected


def round_robin(k: int, n: int, per_document: int, seed: int):
    """``k`` annotators, ``n`` documents, each annotated by ``per_document`` of them (random spans)."""
    rnd = random.Random(seed)
    texts = {f"doc{d:03}": " ".join(rnd.choice(["alpha", "beta", "gamma", "delta"]) for _ in range(40))
             for d in range(n)}
    spans = [[] for _ in range(k)]
    holders = {}
    for d, (doc, text) in enumerate(texts.items()):
        holders[doc] = rnd.sample(range(k), per_document)
        words = [(m.start(), m.end()) for m in __import__("re").finditer(r"\w+", text)]
        for a in holders[doc]:
            for start, end in rnd.sample(words, 6):
                spans[a].append(Span(doc, (start, end), rnd.choice("PL")))
    return [SpanSet.from_spans(f"ann{a + 1}", spans[a], {d: t for d, t in texts.items() if a in holders[d]})
            for a in range(k)]


def test_pairwise_equals_each_pair_compared_alone():
    """A pair's figures under --documents pairwise are the two annotators compared alone."""
    sets = round_robin(4, 30, 2, seed=3)
    result = agree(sets, documents="pairwise")
    for pair in result.pairs:
        first, second = (next(s for s in sets if s.name == name) for name in (pair.first, pair.second))
        if not set(first.documents) & set(second.documents):
            assert pair.counts == Counts() and not pair.by_document
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SpanagreeWarning)
            alone = agree([first, second]).pairs[0]
        assert pair.counts == alone.counts and pair.by_document == alone.by_document


def test_pairwise_jobs_give_identical_results():
    sets = round_robin(3, 40, 2, seed=5)
    one = agree(sets, documents="pairwise").to_dict(by_document=True)
    jobs = parallel.Processes(2, min_spans_per_job=1)
    two = agree(sets, documents="pairwise", jobs=jobs).to_dict(by_document=True)
    assert jobs.mapped == [8]  # forked: 2 processes x 4 shards
    assert one == two


def keep_round_robin(project, destination, per_document=2):
    """The bratiaa example's annotators, each document kept by ``per_document`` of the four (in turn)."""
    names = sorted(p.name for p in project.iterdir() if p.is_dir())
    documents = sorted(p.stem for p in (project / names[0]).glob("*.ann"))
    kept = {d: [names[(n + k) % len(names)] for k in range(per_document)] for n, d in enumerate(documents)}
    for name in names:
        (destination / name).mkdir()
        for d, holders in kept.items():
            if name in holders:
                for suffix in (".ann", ".txt"):
                    shutil.copy(project / name / (d + suffix), destination / name / (d + suffix))
    return names, kept


def test_a_round_robin_design_of_the_bratiaa_example(shared_corpora, tmp_path, capsys):
    """Each document of the bratiaa example kept by 2 of its 4 annotators: every pair gets its F1 on
    its own documents, equal to the full corpus's per-document counts summed over those documents."""
    project = shared_corpora / "bratiaa-example" / "example-project"
    names, kept = keep_round_robin(project, tmp_path)
    assert main(["agree", *(str(tmp_path / n) for n in names), "--documents", "pairwise", "--output", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert not validation_errors(data)
    assert main(["agree", *(str(project / n) for n in names), "--by", "document", "--output", "json"]) == 0
    whole = json.loads(capsys.readouterr().out)
    for entry in data["pairs"]:
        first, second = entry["annotators"]
        own = [d for d, holders in kept.items() if first in holders and second in holders]
        assert entry["documents"] == len(own)
        summed = Counts()
        for d in own:
            (counts,) = [p for p in whole["by_document"][d]["pairs"] if p["annotators"] == [first, second]]
            summed += Counts(counts["a"], counts["b"], counts["c"])
        assert (entry["a"], entry["b"], entry["c"]) == (summed.a, summed.b, summed.c)
        if own:
            assert entry["f1"] == pytest.approx(2 * summed.a / (2 * summed.a + summed.b + summed.c))
        else:
            assert entry["f1"] is None
    # neighbours in the rota share documents; opposite annotators share none
    assert [p["documents"] for p in data["pairs"]] == [2, 0, 1, 2, 0, 2]
    assert data["documents"] == 7 and "left_out" in data and not data["left_out"]


def validation_errors(document):
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema("agree"))
    return [e.message for e in validator.iter_errors(document)]


def test_errors_and_report_under_pairwise(tmp_path, capsys):
    """The listing holds each pair's disagreements on its own documents; the report's record of a
    document joins the pairs that compared it."""
    sets = design()
    result = agree(sets, documents="pairwise", errors=True, report=True)
    listed = [(first, second, item.document, item.kind) for first, second, item in result.errors()]
    assert listed == [("A", "B", "d1", "spurious"), ("A", "C", "d2", "missed"), ("B", "C", "d3", "missed")]
    record = result.spool.record("d2")
    assert sorted(record["spans"]) == ["0", "2"]                 # A and C hold d2
    assert sorted({item[0] for item in record["items"]}) == [1]  # pair (A, C) is pair 1
    assert result.spool.disagreements("d2") == 1


# -- merge --documents present ---------------------------------------------------------------------------

def test_merge_votes_among_the_annotators_who_have_the_document_by_hand():
    from spanagree import vote

    result = vote(design(), documents="present")
    # every document has 2 of the 3 annotators: a majority of them is 2 -> the spans both marked
    kept = sorted((s.doc, s.fragments, s.label) for s in result.gold)
    assert kept == [("d1", ((0, 3),), "PER"), ("d2", ((0, 2),), "PER"), ("d3", ((0, 2),), "PER")]
    assert result.min_votes is None and result.present == {"d1": (0, 1), "d2": (0, 2), "d3": (1, 2)}
    dropped = [(c.doc, c.span.fragments, c.votes, c.kinds) for c in result.adjudication()]
    assert dropped == [("d1", ((8, 10),), 1, ("dropped",)), ("d2", ((7, 9),), 1, ("dropped",)),
                       ("d3", ((6, 10),), 1, ("dropped",))]
    # "1/2 votes": the annotators who have the document, not all three
    assert [dict(c.span.attributes)["#:AnnotatorNotes"] for c in result.clusters if c.doc == "d1"] == [
        "2/2 votes: A, B", "1/2 votes: A"]
    entry = result.adjudication_rows()[0]
    assert entry["min_votes"] == 2 and sorted(entry["versions"]) == ["A", "B"]   # C does not have d1
    # a cluster both holders marked is unanimous among them
    assert result.counts()["not_unanimous"] == 3


def test_merge_min_votes_counts_and_the_default_design_refuses():
    from spanagree import vote

    one = vote(design(), 1, documents="present")
    assert len(one.gold) == 6          # every span has one vote
    with pytest.warns(SpanagreeWarning, match=r"3 document\(s\) have fewer annotators than min_votes=3"):
        three = vote(design(), 3, documents="present")
    assert not len(three.gold)
    with pytest.raises(SpanagreeError, match="no document is annotated by every annotator"):
        vote(design())


def test_merge_present_in_a_round_robin_equals_each_document_voted_alone():
    """Each document's clusters are those of a merge of only the annotators who have it."""
    from spanagree import vote

    sets = round_robin(4, 25, 3, seed=11)
    result = vote(sets, documents="present", match="overlap")
    for doc_id in result.documents:
        holders = [s for s in sets if doc_id in s.documents]
        alone = vote([SpanSet(s.name, {doc_id: s.documents[doc_id]}) for s in holders], match="overlap")
        mine = [(c.span.fragments, c.span.label, c.votes, c.kept, c.kinds) for c in result.clusters if c.doc == doc_id]
        theirs = [(c.span.fragments, c.span.label, c.votes, c.kept, c.kinds) for c in alone.clusters]
        assert mine == theirs


def test_merge_present_jobs_and_streams_give_identical_results():
    from spanagree import vote

    sets = round_robin(3, 40, 2, seed=2)
    one = vote(sets, documents="present")
    jobs = parallel.Processes(2, min_spans_per_job=1)
    two = vote(sets, documents="present", jobs=jobs)
    assert jobs.mapped == [8]  # forked: 2 processes x 4 shards
    streams = [DocumentStream(s.name, "", iter(reversed(list(s.documents.values())))) for s in sets]
    backwards = vote(streams, documents="present")
    assert one.to_dict() == two.to_dict()
    assert [(c.doc, c.span, c.kept) for c in one.clusters] == [(c.doc, c.span, c.kept) for c in two.clusters]
    assert sorted((s.doc, s.fragments, s.label) for s in backwards.gold) == \
        sorted((s.doc, s.fragments, s.label) for s in one.gold)


def test_merge_present_on_the_command_line(tmp_path, capsys, shared_corpora):
    import jsonschema

    project = shared_corpora / "bratiaa-example" / "example-project"
    names, kept = keep_round_robin(project, tmp_path, per_document=3)
    gold, listing = tmp_path / "gold", tmp_path / "adjudicate.json"
    assert main(["merge", *(str(tmp_path / n) for n in names), "--documents", "present", "--to", "brat",
                 "--out", str(gold), "--adjudicate", str(listing), "--output", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    jsonschema.Draft202012Validator(schema("merge")).validate(data)
    adjudication = json.loads(listing.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema("adjudication")).validate(adjudication)
    assert data["documents"] == 7 and data["min_votes"] is None and data["options"]["documents"] == "present"
    for cluster in adjudication["clusters"]:
        assert sorted(cluster["versions"]) == sorted(kept[cluster["document"]]) and cluster["min_votes"] == 2
    assert sorted(p.stem for p in gold.glob("*.ann")) == sorted(kept)


def test_the_token_level_treats_an_annotator_who_did_not_see_a_document_as_missing():
    """--chance under --documents pairwise: each pair's token table is the pair's alone; Krippendorff's
    alpha takes the unseen documents' tokens as missing ratings (the krippendorff package with NaN
    for them gives the same); Fleiss' kappa, which needs every rater on every item, is null."""
    import krippendorff
    import numpy as np

    from spanagree import read
    from spanagree.measures.tokens import token_agreement

    full = [read(f"corpora/demo/brat/ann{k}") for k in (1, 2, 3)]
    ids = list(full[0].documents)
    sets = [SpanSet(s.name, {d: s.documents[d] for n, d in enumerate(ids) if n % 3 != k}) for k, s in enumerate(full)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        chance = agree(sets, documents="pairwise", chance=True).extras["chance"]
        alone = [agree([sets[i], sets[j]], chance=True).extras["chance"]["pairs"][0] for i, j in ((0, 1), (0, 2), (1, 2))]
        tokens = token_agreement(sets, ids, present=[set(s.documents) for s in sets])
    assert [(p["tokens"], p["a"], p["b"], p["c"], p["d"], p["table"]) for p in chance["pairs"]] == \
        [(p["tokens"], p["a"], p["b"], p["c"], p["d"], p["table"]) for p in alone]
    assert chance["fleiss_kappa"] is None
    frame = tokens.token_frame()
    codes = {label: k for k, label in enumerate(tokens.categories)}
    data = np.array([[codes[x] if isinstance(x, str) else np.nan for x in frame[s.name]] for s in sets], dtype=float)
    assert np.isnan(data).sum() == sum(len(frame[frame.document == d]) for n, d in enumerate(ids))  # one absent per doc
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert chance["krippendorff_alpha"] == pytest.approx(expected, abs=1e-12)
    assert chance["krippendorff_alpha"] == pytest.approx(0.8683, abs=5e-5)
