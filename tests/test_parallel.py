"""--jobs: documents aligned in several processes give exactly the results of one process.

Exactly: per-document counts, per-label counts (also with dice credits, whose float sums depend
on their order unless kept exact), duplicates, the error-analysis items and their order, and the
command line's JSON apart from ``options.jobs``.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import signal

import pytest

from spanagree.pipeline import parallel
from spanagree.agreement import agree
from spanagree.cli import main
from spanagree.pipeline.compare import LabelTally, compare_pair
from spanagree.errors import SpanagreeError
from spanagree.formats import write
from spanagree.match import MatchRule
from spanagree.pipeline.analyses import PairsComparison
from spanagree.pipeline import Group
from spanagree.pipeline.parallel import Processes
from spanagree.pipeline.shards import shards
from spanagree.pipeline.sequential import accumulate, spanset_stream
from spanagree.scoring import score
from spanagree.span import Span, SpanSet

pytestmark = pytest.mark.filterwarnings("ignore::spanagree.errors.SpanagreeWarning")  # duplicates, by design

RULES = [("exact", "strict", 0.5), ("exact", "ignore", 0.5), ("overlap", "strict", 0.5),
         ("overlap", "ignore", 0.5), ("partial", "strict", 0.5), ("partial", "ignore", 0.5),
         ("partial", "strict", "dice"), ("partial", "ignore", "dice")]


def noisy_copy(rnd, doc, spans):
    """An annotator's version of ``spans``: misses, shifted ends, other labels, extras, a duplicate."""
    out = []
    for start, end, label in spans:
        if rnd.random() < 0.1:
            continue
        if rnd.random() < 0.2:
            end = max(start + 1, end + rnd.choice([-2, -1, 1, 3]))
        if rnd.random() < 0.1:
            label = rnd.choice("PLOM")
        out.append(Span(doc, ((start, end),), label))
    for _ in range(rnd.randint(0, 3)):
        start = rnd.randrange(300)
        out.append(Span(doc, ((start, start + rnd.randint(1, 9)),), rnd.choice("PLOM")))
    if out and rnd.random() < 0.1:
        out.append(out[0])  # a duplicate: counted once, and reported
    if rnd.random() < 0.1:
        start = rnd.randrange(280)
        out.append(Span(doc, ((start, start + 4), (start + 8, start + 12)), rnd.choice("PLOM")))
    return out


def corpus(k=3, documents=60, seed=1):
    """k annotators over the same documents (texts of 320 characters), spans nested and crossing."""
    rnd = random.Random(seed)
    texts = {f"doc{d:03d}": "".join(rnd.choice("abc d") for _ in range(320)) for d in range(documents)}
    truth = {}
    for doc in texts:
        spans = []
        for _ in range(rnd.randint(0, 25)):
            start = rnd.randrange(300)
            spans.append((start, start + rnd.randint(1, 15), rnd.choice("PLOM")))
        truth[doc] = spans
    return [SpanSet.from_spans(f"ann{a + 1}", [s for doc in texts for s in noisy_copy(rnd, doc, truth[doc])], texts)
            for a in range(k)]


# fork even for these small corpora (below the size where processes pay off)
pytestmark = pytest.mark.usefixtures("small_shards")


def without_jobs(data):
    data = json.loads(json.dumps(data, default=str))
    data.get("options", {}).pop("jobs", None)
    return data


def test_shards_are_contiguous_and_cover_everything():
    items = list(range(10))
    for parts in (1, 3, 4, 10, 25):
        pieces = shards(items, parts)
        assert [x for piece in pieces for x in piece] == items
        assert len(pieces) == min(parts, len(items))
        assert max(map(len, pieces)) - min(map(len, pieces)) <= 1


@pytest.mark.parametrize("mode", RULES, ids=lambda m: "-".join(map(str, m)))
@pytest.mark.slow
def test_agree_jobs_give_identical_results(mode):
    spansets = corpus()
    match, labels, credit = mode
    one = agree(spansets, match=match, labels=labels, partial_credit=credit, jobs=1)
    for jobs in (2, 3, 7):
        many = agree(spansets, match=match, labels=labels, partial_credit=credit, jobs=jobs)
        assert many.to_dict(by_document=True) == one.to_dict(by_document=True)
        for a, b in zip(one.pairs, many.pairs):
            assert (a.by_document, a.by_label, a.duplicates) == (b.by_document, b.by_label, b.duplicates)
            assert list(a.by_document) == list(b.by_document)  # document order kept


@pytest.mark.parametrize("mode", RULES, ids=lambda m: "-".join(map(str, m)))
@pytest.mark.slow
def test_score_jobs_give_identical_results_and_items(mode):
    gold, pred, _ = corpus()
    match, labels, credit = mode
    one = score(gold, pred, match=match, labels=labels, partial_credit=credit, errors=True)
    many = score(gold, pred, match=match, labels=labels, partial_credit=credit, jobs=2, errors=True)
    assert many.to_dict(by_document=True) == one.to_dict(by_document=True)
    assert [i.as_dict() for i in many.items] == [i.as_dict() for i in one.items]
    # the items of one process hold the caller's own spans; those made in the workers come back equal
    assert all(a.gold is gold.documents[a.document].spans[gold.documents[a.document].spans.index(a.gold)]
               for a in one.items if a.gold is not None)
    assert many.items and all(a.gold == b.gold and a.pred == b.pred for a, b in zip(one.items, many.items))
    assert many.error_counts() == one.error_counts() and many.confusion() == one.confusion()


def test_the_listing_agrees_with_the_tally():
    gold, pred, _ = corpus(seed=4)
    result = score(gold, pred, match="overlap", labels="strict", jobs=2, errors=True)
    kinds = {}
    for item in result.items:
        kinds[item.kind] = kinds.get(item.kind, 0) + 1
    assert {k: v for k, v in result.error_counts().items() if v} == kinds
    # every span the rule counted appears in exactly one item
    assert sum(1 for i in result.items if i.gold) == sum(len({(s.fragments, s.label) for s in d.spans})
                                                          for d in gold.documents.values())


def test_dice_credits_add_up_exactly_across_shards():
    # Per-label credit is an exact sum: the same floats in any grouping give the same total.
    credits = [2 * a / (a + b) for a, b in zip(range(1, 200), range(3, 400, 2))]
    whole = LabelTally()
    whole.first["L"] = whole.second["L"] = len(credits)
    whole.fractions["L"] = list(credits)
    for cut in (1, 7, 50, 198):
        left, right = LabelTally(), LabelTally()
        left.first["L"] = left.second["L"] = cut
        right.first["L"] = right.second["L"] = len(credits) - cut
        left.fractions["L"], right.fractions["L"] = credits[:cut], credits[cut:][::-1]
        left.add(right)
        assert left.counts() == whole.counts()


def test_small_corpora_stay_in_this_process():
    spansets = corpus(k=2, documents=20)
    jobs = Processes(4)  # 50,000 spans a process pay: these do not (not the small_shards of this module)
    assert agree(spansets, jobs=jobs).pooled == agree(spansets).pooled
    assert jobs.mapped == []
    jobs = Processes(4, min_spans_per_job=1)
    assert agree(spansets, jobs=jobs).pooled == agree(spansets).pooled
    assert len(jobs.mapped) == 1


def test_without_fork_the_work_stays_in_this_process(monkeypatch):
    spansets = corpus(k=2, documents=20)
    expected = agree(spansets, match="overlap", jobs=1)
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    jobs = Processes(2, min_spans_per_job=1)
    got = agree(spansets, match="overlap", jobs=jobs)
    assert jobs.mapped == []
    assert [(p.by_document, p.by_label) for p in got.pairs] == [(p.by_document, p.by_label) for p in expected.pairs]


def test_a_killed_worker_ends_the_run_with_an_error_instead_of_waiting_forever():
    def die_on_the_third(item):
        if item == 3:
            os.kill(os.getpid(), signal.SIGKILL)
        return item * 10

    assert parallel.Processes(2).map(die_on_the_third, [1, 2]) == [10, 20]
    with pytest.raises(SpanagreeError, match=r"worker process of jobs=2 ended abruptly") as raised:
        parallel.Processes(2).map(die_on_the_third, [1, 2, 3, 4])
    assert raised.value.command_line_message() == ("a worker process of --jobs 2 ended abruptly (killed, or out of "
                                                   "memory?); nothing was written; try fewer --jobs")


def test_the_accumulators_of_shards_add_up_to_the_whole_in_document_order():
    a, b, _ = corpus(documents=30)
    documents = list(a.documents)
    names, groups, rule = ["a", "b"], [Group((0, 1))], MatchRule("partial", partial_credit="dice")

    def accumulated(ids, shard):
        streams = [spanset_stream(SpanSet(s.name, {d: s.documents[d] for d in ids if d in s.documents})) for s in (a, b)]
        return accumulate(streams, names, groups, PairsComparison(rule, [([(0, 0, 0, 1)], [0, 1], 1)], []), shard=shard)

    whole = accumulated(documents, 0)
    first, second, third = accumulated(documents[:7], 0), accumulated(documents[7:19], 1), accumulated(documents[19:], 2)
    added = first + second + third  # + leaves its operands as they were
    assert first.orders == [documents[:7], [d for d in b.documents if d in documents[:7]]]
    parts = first
    parts += second
    parts += third
    assert added.orders == parts.orders
    assert added.groups[0].compared.pairs[0].by_document == parts.groups[0].compared.pairs[0].by_document
    assert parts.orders == whole.orders == [documents, list(b.documents)]
    (pair_of_parts,), (pair_of_whole,) = parts.groups[0].compared.pairs, whole.groups[0].compared.pairs
    assert list(pair_of_parts.by_document.items()) == list(pair_of_whole.by_document.items())
    assert pair_of_parts.labels.counts() == pair_of_whole.labels.counts()
    assert compare_pair(a, b, documents, MatchRule(), each=lambda doc, alignment: doc).each == documents


@pytest.mark.parametrize("command", ["agree", "score"])
@pytest.mark.slow
def test_cli_jobs_output_is_identical(tmp_path, capsys, command):
    spansets = corpus(k=2, documents=40, seed=9)
    paths = []
    for spanset in spansets:
        path = tmp_path / f"{spanset.name}.jsonl"
        write(spanset, path, "jsonl")
        paths.append(str(path))
    outputs = []
    for jobs in ("1", "2"):
        assert main([command, *paths, "--match", "partial", "--partial-credit", "dice", "--by", "document",
                     "--output", "json", "--jobs", jobs]) == 0
        outputs.append(without_jobs(json.loads(capsys.readouterr().out)))
    assert outputs[0] == outputs[1]
    errors = [tmp_path / f"errors{jobs}.csv" for jobs in ("1", "2")]
    if command == "score":
        for jobs, path in zip(("1", "2"), errors):
            assert main(["score", *paths, "--errors", str(path), "--jobs", jobs, "--output", "json"]) == 0
            capsys.readouterr()
        assert errors[0].read_text() == errors[1].read_text()


def test_a_format_error_travels_back_from_a_worker_whole():
    """A worker's FormatError is pickled with its parts (path, message, line), not its text alone."""
    import pickle

    from spanagree.errors import FormatError

    error = pickle.loads(pickle.dumps(FormatError("ann1/d.ann", "expected a span", 12)))
    assert (type(error), error.path, error.message, error.line, str(error)) == (
        FormatError, "ann1/d.ann", "expected a span", 12, "ann1/d.ann:12: expected a span")
