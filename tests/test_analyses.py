"""Analyses plug in (:mod:`spanagree.pipeline.analyses`): each is a per-document tally that adds
up under every executor, and a new one touches no command function.

A made-up analysis (the labels of every copy compared, counted) is registered here, run through
``agree`` and ``score`` in one process, under ``jobs=2`` (forked: asserted) and on a two-worker
``LocalCluster``, and checked against the labels counted straight from the files. Every built-in
analysis is run the same three ways over the registry: a new entry fails
:func:`test_every_registered_analysis_is_tested` until it is given options here.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from spanagree import agree, score
from spanagree.errors import UsageError
from spanagree.formats import read
from spanagree.pipeline import analyses
from spanagree.pipeline.analyses import ANALYSES, Analysis


class LabelsSeen(Analysis):
    """Every label of every copy compared, counted (the made-up analysis)."""

    key = "labels_seen"

    def new(self):
        return Counter()

    def observe(self, tally, batch) -> None:
        for spanset in batch.spansets:
            for doc_id in batch.documents:
                document = spanset.documents.get(doc_id)
                if document is not None:
                    tally.update(span.label for span in document.spans)

    def finish(self, tally, finished):
        return dict(sorted(tally.items()))


@pytest.fixture
def labels_seen(monkeypatch):
    monkeypatch.setitem(ANALYSES, "labels_seen", lambda options, plan: LabelsSeen())
    monkeypatch.setattr(analyses, "EXTRA", analyses.EXTRA | {"labels_seen"})
    return "labels_seen"


def demo_paths(demo, names=("ann1", "ann2", "ann3")):
    return [demo / "brat" / name for name in names]


def counted_from_the_files(paths) -> dict:
    found = Counter(span.label for path in paths for document in read(path).documents.values()
                    for span in document.spans)
    return dict(sorted(found.items()))


def test_a_made_up_analysis_runs_in_agree_and_score(demo, labels_seen):
    paths = demo_paths(demo)
    result = agree(paths, analyses=[labels_seen])
    assert result.extras["labels_seen"] == counted_from_the_files(paths)
    assert result.to_dict()["labels_seen"] == counted_from_the_files(paths)
    scored = score(paths[0], paths[1], analyses=[labels_seen])
    assert scored.extras["labels_seen"] == counted_from_the_files(paths[:2])
    assert sum(result.extras["labels_seen"].values()) == sum(
        len(document.spans) for path in paths for document in read(path).documents.values())


def test_a_made_up_analysis_is_the_same_under_jobs_and_forks(demo, labels_seen, small_shards):
    paths = demo_paths(demo)
    one = agree(paths, analyses=[labels_seen]).to_dict(by_document=True)
    two = agree(paths, analyses=[labels_seen], jobs=2).to_dict(by_document=True)
    assert small_shards, "the run with jobs=2 did not fork"
    assert two["labels_seen"] == one["labels_seen"] == counted_from_the_files(paths)
    assert two == one


def test_an_unregistered_analysis_is_refused_in_one_line(demo):
    with pytest.raises(UsageError, match=r"no registered analysis called 'nothing'"):
        agree(demo_paths(demo), analyses=["nothing"])


#: The options that turn each registered analysis on, and the command that runs it.
TURNED_ON = {
    "chance": ("agree", dict(chance=True)),
    "units": ("agree", dict(bootstrap=50, seed=1, unit="sentence")),
    "bootstrap": ("score", dict(bootstrap=50, seed=1)),
    "alpha_u": ("agree", dict(unitizing=True)),
    "comparisons": ("agree", dict(compare=True, resamples=200, seed=3)),
    "errors": ("agree", dict(errors=True)),
    "report": ("score", dict(report=True)),
    "error_kinds": ("score", dict()),
    "gamma": ("agree", dict(gamma=True, gamma_samples=2, seed=5)),
    "attributes": ("score", dict(attributes=True, match="overlap")),  # (on attributes: tests/test_attributes.py)
    "relations": ("score", dict(relations=True, match="overlap")),
    "attribute_comparisons": ("agree", dict(attributes=True, compare=True, resamples=200, seed=3)),
}


def test_every_registered_analysis_is_tested():
    assert sorted(name for name in ANALYSES if name not in analyses.EXTRA) == sorted(TURNED_ON)


def run_with(name: str, paths, **execution):
    command, options = TURNED_ON[name]
    if command == "agree":
        result = agree(paths, **options, **execution)
        figures = result.to_dict(by_document=True)
        figures["listed"] = [(a, b, item.as_pair_dict()) for a, b, item in result.errors()] if options.get("errors") else None
    else:
        result = score(paths[0], paths[1], **options, **execution)
        figures = result.to_dict(by_document=True)
        figures["error_counts"] = result.error_counts()
    if options.get("report"):
        figures["records"] = [result.spool.record(d) for d in result.documents]
    figures.pop("options", None)
    return json.loads(json.dumps(figures, default=str))


@pytest.mark.parametrize("name", sorted(TURNED_ON))
def test_every_analysis_adds_up_under_forked_jobs(demo, small_shards, name):
    paths = demo_paths(demo)
    one = run_with(name, paths)
    two = run_with(name, paths, jobs=2)
    assert small_shards, "the run with jobs=2 did not fork"
    assert two == one


@pytest.mark.parametrize("name", sorted(TURNED_ON))
def test_every_analysis_adds_up_on_a_cluster(demo, scheduler, name):
    paths = demo_paths(demo)
    assert run_with(name, paths, scheduler=scheduler) == run_with(name, paths)


def test_a_made_up_analysis_runs_on_a_cluster(demo, scheduler, labels_seen):
    paths = demo_paths(demo)
    result = agree(paths, analyses=[labels_seen], scheduler=scheduler)
    assert result.extras["labels_seen"] == counted_from_the_files(paths)
    scored = score(paths[0], paths[1], analyses=[labels_seen], scheduler=scheduler)
    assert scored.extras["labels_seen"] == counted_from_the_files(paths[:2])
