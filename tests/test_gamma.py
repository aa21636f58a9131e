"""γ (spanagree.measures.gamma) against pygamma-agreement 0.5.9 and a brute-force best alignment.

The reference figures were given by pygamma-agreement 0.5.9 (cvxpy and GLPK) on its own test
continua (tests/data/gamma, with their licence), after ``numpy.random.seed(4772)`` and with
``CombinedCategoricalDissimilarity(alpha=3, beta=1, delta_empty=1)`` as its tests use them; the
small three-annotator continuum and its figures are dkpro-statistics' pygamma fixture 4
(``fixture_04_three_annotators.json``, made with pygamma-agreement 0.5.9). The disorders and
the sampled continua are exact (pygamma computes in single precision; so does spanagree where
the figures come from); γ itself differs from pygamma's by its single-precision rounding.
"""

import csv
import itertools
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

from spanagree import agree
from spanagree.cli import main
from spanagree.errors import UsageError
from spanagree.measures.gamma import (Continuum, GammaSettings, LegacyDraws, StatisticalSampler, best_alignment,
                                      document_gamma, gamma_figures, tuple_disorders)
from spanagree.span import Span, SpanSet

DATA = Path(__file__).parent / "data" / "gamma"
ALPHA3 = GammaSettings(alpha=3.0, seed=4772)


def units_of(name: str) -> dict[str, list]:
    found: dict[str, list] = {}
    with open(DATA / f"{name}.csv", newline="") as handle:
        for annotator, category, start, end in csv.reader(handle):
            found.setdefault(annotator, []).append((float(start), float(end), category))
    return found


def continuum_of_csv(name: str) -> Continuum:
    found = units_of(name)
    return Continuum([found[a] for a in sorted(found)])


def spansets_of_csv(name: str) -> list[SpanSet]:
    return [SpanSet.from_spans(annotator, [Span(name, (int(s), int(e)), label) for s, e, label in units])
            for annotator, units in units_of(name).items()]


# pygamma-agreement 0.5.9: best_alignment.disorder, its unitary alignments (single units among
# them) and the first sampled continua's best-alignment disorders after numpy.random.seed(4772)
PYGAMMA = {
    "AlexPaulSuzan": (0.9606249332427979, 6, 0, [1.8211426734924316, 1.9746694564819336, 1.7897942066192627]),
    "3by100": (0.3435116708278656, 127, 3, [1.7791692018508911, 1.7118743658065796, 1.75673508644104]),
    "2by1000": (0.8844252824783325, 1085, 170, [1.516286015510559, 1.4668833017349243, 1.5102407932281494]),
}
SAMPLERS = {"AlexPaulSuzan": "shuffle", "3by100": "statistical", "2by1000": "statistical"}


#: How the components are solved: as by default; every one by dynamic programming along the axis;
#: every one by HiGHS; dynamic programming and HiGHS mixed (a component past 3 states goes to HiGHS).
SOLVERS = [dict(), dict(searched=0), dict(searched=0, states=0), dict(searched=0, states=3)]


@pytest.mark.parametrize("solvers", SOLVERS)
@pytest.mark.parametrize("name", sorted(PYGAMMA))
def test_the_best_alignment_is_pygammas(name, solvers):
    disorder, alignments, singles, _ = PYGAMMA[name]
    continuum = continuum_of_csv(name)
    best = best_alignment(continuum, ALPHA3, **solvers)
    assert best.disorder == disorder
    assert len(best.tuples) == alignments
    assert int(((best.tuples != continuum.sizes).sum(axis=1) == 1).sum()) == singles


@pytest.mark.parametrize("name", sorted(PYGAMMA))
def test_the_samples_are_pygammas_after_numpy_random_seed(name):
    sampled = PYGAMMA[name][3]
    settings_ = GammaSettings(alpha=3.0, seed=4772, samples=len(sampled), sampler=SAMPLERS[name])
    found = document_gamma(continuum_of_csv(name), settings_)
    assert found.sampled == sampled


def test_alex_paul_suzan_gives_pygammas_gamma():
    """The shuffle sampler, precision 0.05 (30 samples suffice), every figure of pygamma's test."""
    settings_ = GammaSettings(alpha=3.0, seed=4772, sampler="shuffle", precision=0.05)
    figures = gamma_figures([document_gamma(continuum_of_csv("AlexPaulSuzan"), settings_)], settings_)
    assert figures["samples"] == 30 and figures["alignments"] == 6 and figures["units"] == 16
    assert figures["disorder"] == 0.9606249332427979
    assert figures["expected_disorder"] == 1.7664706707000732
    assert figures["gamma"] == pytest.approx(0.45618969202041626, abs=1e-7)
    assert figures["gamma_cat"] == pytest.approx(0.3992484211921692, abs=1e-7)
    pygamma_k = {"1": 1.0, "2": -0.03448283672332764, "3": -0.07142853736877441, "4": -0.07142853736877441,
                 "5": 1.0, "6": 0.36977124214172363, "7": -0.03448283672332764}
    assert figures["gamma_k"] == pytest.approx(pygamma_k, abs=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("name, expected, gamma, gamma_cat", [
    ("3by100", 1.7240418195724487, 0.8007521033287048, 0.8943994641304016),
    ("2by1000", 1.4888055324554443, 0.40594977140426636, 0.387229323387146),
])
def test_thirty_samples_give_pygammas_gamma(name, expected, gamma, gamma_cat):
    result = agree(spansets_of_csv(name), gamma=True, gamma_alpha=3, seed=4772)
    figures = result.extras["gamma"]
    assert figures["samples"] == 30 and figures["expected_disorder"] == expected
    assert figures["gamma"] == pytest.approx(gamma, abs=1e-7)
    assert figures["gamma_cat"] == pytest.approx(gamma_cat, abs=1e-6)


DKPRO_FIXTURE_4 = [("Ann1", 1, 5, "a"), ("Ann1", 10, 14, "b"), ("Ann2", 2, 6, "a"), ("Ann2", 11, 15, "b"),
                   ("Ann3", 1, 4, "a"), ("Ann3", 9, 14, "c")]


def fixture_continuum() -> Continuum:
    found: dict[str, list] = {}
    for annotator, start, end, label in DKPRO_FIXTURE_4:
        found.setdefault(annotator, []).append((float(start), float(end), label))
    return Continuum([found[a] for a in sorted(found)])


def test_dkpro_statistics_fixture_of_three_annotators():
    continuum = fixture_continuum()
    assert best_alignment(continuum, GammaSettings()).disorder == 0.40875643491744995
    # its sampled continua: numpy.random.seed(4) after the sampler was set up
    sample = StatisticalSampler(continuum).sample(np.random.RandomState(4))
    assert sample.units[0] == [(3.739378792537379, 7.164390503074478, "c"),
                               (11.300820699564976, 16.138917134227825, "a")]
    assert best_alignment(sample, GammaSettings()).disorder == 0.8253426551818848
    # its gamma: numpy.random.seed(1004), then pygamma's 30 samples
    settings_ = GammaSettings(seed=1004)
    figures = gamma_figures([document_gamma(continuum, settings_)], settings_)
    assert figures["expected_disorder"] == 1.1979972124099731
    assert figures["gamma"] == pytest.approx(0.6588001847267151, abs=1e-7)


def test_pre_drawn_samples_are_taken_as_given():
    """dkpro-statistics' fixture 4 gives its sampled continua and their disorders: replayed."""
    continuum = fixture_continuum()
    second = Continuum([[(1.4699326906561878, 6.363081622694205, "b"), (9.151188796103702, 13.570419821472388, "a")],
                        [(0.23547566319096905, 5.519133282930137, "a"), (9.041876277995224, 12.38351464912028, "b")],
                        [(1.3790215600695561, 5.692205968998483, "a"), (12.47640755762505, 16.491958863470707, "a")]],
                       continuum.labels)
    first = StatisticalSampler(continuum).sample(np.random.RandomState(4))
    found = document_gamma(continuum, GammaSettings(), samples=[first, second])
    assert found.sampled == [0.8253426551818848, 0.9491496086120605]


# a brute-force best alignment: every unitary alignment, every exact cover of the units


def brute_force(continuum: Continuum, settings_: GammaSettings) -> tuple[float, int]:
    """The least total disorder of a partition of the units into unitary alignments, and the
    fewest unitary alignments among partitions of that disorder."""
    sizes = continuum.sizes
    tuples = np.array([t for t in itertools.product(*(range(size + 1) for size in sizes)) if t != tuple(sizes)],
                      dtype=np.int64).reshape(-1, len(sizes))
    costs = tuple_disorders(continuum, settings_, tuples).astype(np.float64)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    masks = [sum(1 << int(offsets[a] + unit) for a, unit in enumerate(row) if unit != sizes[a]) for row in tuples]
    full = (1 << continuum.total) - 1
    best = {full: (0.0, 0)}

    def cover(mask: int) -> tuple[float, int]:
        if mask in best:
            return best[mask]
        free = next(bit for bit in range(continuum.total) if not mask >> bit & 1)
        found = (math.inf, 0)
        for m, cost in zip(masks, costs):
            if m >> free & 1 and not m & mask:
                rest_cost, rest_count = cover(mask | m)
                candidate = (rest_cost + cost, rest_count + 1)
                if candidate[0] < found[0] - 1e-9 or (abs(candidate[0] - found[0]) <= 1e-9 and candidate[1] < found[1]):
                    found = candidate
        best[mask] = found
        return found

    return cover(0)


unit = st.tuples(st.integers(0, 24), st.integers(1, 8), st.sampled_from("AB"))


@settings(max_examples=60)
@given(st.lists(st.lists(unit, max_size=3), min_size=2, max_size=3), st.sampled_from([0.5, 1.0, 3.0]),
       st.sampled_from([0.0, 1.0, 2.0]))
# two partitions of one least disorder, 3 and 4 unitary alignments, that no split of one tuple relates
@example([[(16, 8, "B")], [(24, 8, "B")], [(10, 8, "A"), (16, 2, "A"), (23, 2, "A")]], 3.0, 2.0)
def test_the_best_alignment_is_the_least_disorder_of_every_partition(annotators, alpha, beta):
    continuum = Continuum([[(float(s), float(s + n), label) for s, n, label in own] for own in annotators])
    if continuum.total == 0:
        return
    settings_ = GammaSettings(alpha=alpha, beta=beta)
    least, fewest = brute_force(continuum, settings_)
    for solvers in SOLVERS:
        found = best_alignment(continuum, settings_, **solvers)
        assert float(found.disorders.astype(np.float64).sum()) == pytest.approx(least, abs=1e-6)
        assert len(found.tuples) == fewest
        covered = sorted((a, int(u)) for row in found.tuples for a, u in enumerate(row) if u != continuum.sizes[a])
        assert covered == [(a, u) for a, size in enumerate(continuum.sizes) for u in range(size)]


# through agree()


def spanset(name: str, documents: dict[str, list]) -> SpanSet:
    return SpanSet.from_spans(name, [Span(doc, (s, e), label) for doc, spans in documents.items()
                                     for s, e, label in spans])


def test_identical_annotations_have_gamma_one():
    spans = {"d1": [(0, 4, "PER"), (10, 16, "LOC")], "d2": [(3, 9, "PER")]}
    result = agree([spanset("a", spans), spanset("b", spans)], gamma=True, gamma_samples=3, seed=1)
    figures = result.extras["gamma"]
    assert figures["gamma"] == 1.0 and figures["gamma_cat"] == 1.0 and figures["disorder"] == 0.0
    assert figures["alignments"] == 3 and figures["units"] == 6 and figures["documents"] == 2
    assert figures["samples"] == 6 and figures["seed"] == 1 and figures["sampler"] == "statistical"


@pytest.mark.filterwarnings("ignore:a and b share no label")
def test_documents_add_up_weighted_by_their_units_and_never_align_across():
    first = {"d1": [(0, 4, "PER"), (10, 16, "LOC"), (20, 25, "PER")], "d2": [(0, 5, "PER")]}
    second = {"d1": [(1, 4, "PER"), (10, 16, "PER")], "d2": [(0, 5, "LOC")]}
    result = agree([spanset("a", first), spanset("b", second)], gamma=True, gamma_samples=4, seed=3)
    corpus = result.extras["gamma"]
    one = {d: agree([spanset("a", {d: first[d]}), spanset("b", {d: second[d]})], gamma=True, gamma_samples=4,
                    seed=3).extras["gamma"] for d in ("d1", "d2")}
    assert result.gamma_documents["d1"]["disorder"] == one["d1"]["disorder"]
    assert result.gamma_documents["d2"]["expected_disorder"] == one["d2"]["expected_disorder"]
    weights = {"d1": 5 / 2, "d2": 2 / 2}
    assert corpus["disorder"] == pytest.approx(sum(weights[d] * one[d]["disorder"] for d in one) / 3.5)
    assert corpus["expected_disorder"] == pytest.approx(sum(weights[d] * one[d]["expected_disorder"] for d in one) / 3.5)
    assert corpus["gamma"] == pytest.approx(1 - corpus["disorder"] / corpus["expected_disorder"])
    assert corpus["alignments"] == one["d1"]["alignments"] + one["d2"]["alignments"]
    # d2: a PER against a LOC on the same characters, aligned: d = β = 1 < 2 δ∅
    assert one["d2"]["alignments"] == 1 and one["d2"]["disorder"] == 1.0


def test_a_seed_is_drawn_and_reported_when_none_is_given():
    spans = {"d": [(0, 4, "PER"), (6, 9, "LOC")]}
    other = {"d": [(0, 5, "PER")]}
    first = agree([spanset("a", spans), spanset("b", other)], gamma=True, gamma_samples=2).extras["gamma"]
    again = agree([spanset("a", spans), spanset("b", other)], gamma=True, gamma_samples=2,
                  seed=first["seed"]).extras["gamma"]
    assert isinstance(first["seed"], int) and again == first


def test_gamma_needs_every_annotator_on_every_document():
    spans = {"d": [(0, 4, "PER")]}
    with pytest.raises(UsageError, match="gamma needs every annotator on every document"):
        agree([spanset("a", spans), spanset("b", spans)], gamma=True, documents="pairwise")


@pytest.mark.parametrize("keywords, message", [
    (dict(gamma_sampler="random"), "unknown γ sampler 'random'; choose one of: statistical, shuffle"),
    (dict(gamma_samples=0), "gamma_samples must be at least 1"),
    (dict(gamma_delta_empty=0), "gamma_delta_empty must be above 0"),
    (dict(gamma_precision=1.5), "gamma_precision is high, medium, low or a number between 0 and 1"),
    (dict(seed=-1), "seed must be between 0 and 2\\*\\*32"),
])
def test_bad_gamma_settings_are_refused_before_reading(keywords, message):
    spans = {"d": [(0, 4, "PER")]}
    with pytest.raises(UsageError, match=message):
        agree([spanset("a", spans), spanset("b", spans)], gamma=True, **keywords)


def annotator_files(folder, continuum: str, doc_id: str, length: int) -> list[str]:
    """A pygamma continuum's annotators as JSON-lines files in ``folder``, one document
    ``doc_id`` of ``length`` characters each: their paths."""
    paths = []
    for annotator, units in units_of(continuum).items():
        path = folder / f"{annotator}.jsonl"
        path.write_text(json.dumps({"id": doc_id, "text": "x" * length, "spans": [
            {"start": int(s), "end": int(e), "label": label} for s, e, label in units]}) + "\n")
        paths.append(str(path))
    return paths


def test_the_command_line_gives_gamma_per_document_and_echoes_its_options(tmp_path, capsys):
    paths = annotator_files(tmp_path, "AlexPaulSuzan", "APS", 60)
    assert main(["agree", *paths, "--gamma", "--gamma-alpha", "3", "--gamma-sampler", "shuffle",
                 "--gamma-precision", "0.05", "--seed", "4772", "--by", "document", "--output", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["gamma"]["disorder"] == 0.9606249332427979 and document["gamma"]["alignments"] == 6
    assert document["gamma"]["expected_disorder"] == 1.7664706707000732
    assert document["by_document"]["APS"]["gamma"]["gamma"] == document["gamma"]["gamma"]
    options = document["options"]
    assert list(options)[-12:] == ["gamma", "gamma_alpha", "gamma_beta", "gamma_delta_empty", "gamma_sampler",
                                   "gamma_samples", "gamma_precision", "attributes", "match_attributes", "link_top",
                                   "relations", "symmetric_relations"]
    assert options["gamma_sampler"] == "shuffle" and options["gamma_precision"] == 0.05


@pytest.mark.parametrize("argv, message", [
    (["--gamma", "--documents", "pairwise"], "--gamma needs every annotator on every document"),
    (["--gamma-samples", "5"], "--gamma-samples goes with --gamma"),
    (["--gamma", "--gamma-samples", "0"], "--gamma-samples must be at least 1"),
])
def test_the_command_line_refuses_in_one_line(tmp_path, capsys, argv, message):
    paths = []
    for name in ("a", "b"):
        path = tmp_path / f"{name}.jsonl"
        path.write_text(json.dumps({"id": "d", "text": "abcdef", "spans": [{"start": 0, "end": 3, "label": "X"}]}) + "\n")
        paths.append(str(path))
    assert main(["agree", *paths, *argv]) == 2
    error = capsys.readouterr().err
    assert message in error and len(error.strip().splitlines()) == 1


@pytest.mark.parametrize("chunk", [8192, 3, 5])
def test_legacy_draws_are_numpys_scalar_draws_and_leave_the_generator_where_they_would(chunk):
    """Normals and uniforms in turn, across chunks of doubles, a normal of scale 0 (still drawn),
    then numpy's own draws from the generator handed back."""
    random = np.random.RandomState(7)
    draws = LegacyDraws(random, chunk=chunk)
    mine = [draws.normal(0.5, 2.0) if k % 3 else draws.uniform() for k in range(3000)] + [draws.normal(0.0, 0.0)]
    draws.close()
    mine += [random.normal(1.0, 1.0) for _ in range(3)] + [random.random_sample()]
    numpys = np.random.RandomState(7)
    expected = [numpys.normal(0.5, 2.0) if k % 3 else numpys.random_sample() for k in range(3000)]
    expected += [numpys.normal(0.0, 0.0)] + [numpys.normal(1.0, 1.0) for _ in range(3)] + [numpys.random_sample()]
    assert mine == expected


def test_gamma_of_a_command_line_run_imports_neither_scipy_nor_pandas(tmp_path):
    """The whole process counts: the components are labelled and searched without scipy (HiGHS
    only for a component whose search would reach too many states)."""
    paths = annotator_files(tmp_path, "3by100", "d", 2000)
    code = ("import sys, io, contextlib\n"
            "from spanagree.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
            f"    assert main(['agree', *{paths!r}, '--gamma', '--gamma-alpha', '3', '--seed', '4772', "
            "'--output', 'json']) == 0\n"
            "assert '\"alignments\": 127' in out.getvalue()\n"
            "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('scipy', 'pandas', 'spacy', 'dask'))\n"
            "assert not loaded, loaded\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def pygammas_statistical_sample(sampler: StatisticalSampler, random: np.random.RandomState) -> list[list]:
    """What pygamma's ``StatisticalContinuumSampler`` draws: numpy's scalar calls, one by one."""
    units, anything = [], False
    for _ in range(sampler.annotators):
        own, last = [], 0.0
        count = abs(int(random.normal(*sampler.count)))
        count = count if anything else max(1, count)
        for _ in range(count):
            start = last + random.normal(*sampler.gap)
            end = start + abs(random.normal(*sampler.duration))
            while end - start < 1e-6:
                end = start + abs(random.normal(*sampler.duration))
            own.append((start, end, sampler.labels[int(sampler.cumulative.searchsorted(random.random_sample(),
                                                                                          side="right"))]))
            last = end
        anything = anything or bool(own)
        units.append(sorted(set(own)))
    return units


@pytest.mark.parametrize("units", [
    [list(units) for _, units in sorted(units_of("AlexPaulSuzan").items())],
    [[(0.0, 2e-6, "A"), (1.0, 1.0000001, "B")], [(0.5, 0.5000005, "A")]],  # durations near 1e-6: drawn again
    [[(0.0, 4.0, "A")], [(0.0, 4.0, "A")]],  # no spread at all
])
def test_the_statistical_samples_are_numpys_scalar_draws(units):
    continuum = Continuum(units)
    sampler = StatisticalSampler(continuum)
    mine, theirs = np.random.RandomState(5), np.random.RandomState(5)
    for _ in range(20):
        assert sampler.sample(mine).units == pygammas_statistical_sample(sampler, theirs)
    assert mine.random_sample() == theirs.random_sample()
