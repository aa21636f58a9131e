"""Agreement on the spans' attributes (``--attributes``, :mod:`spanagree.measures.attributes`).

The main check runs on a real BRAT corpus with attributes (a sample of the NCBI disease corpus,
``tests/data/brat-ncbi-disease``: every mention has a ``Category``) turned into a second
annotator by known perturbations — changed, dropped and added attributes, normalisations added
with equal and other ids, spans shifted and dropped — and compares the counts, overall and by
name, with a computation on sets written out here, under exact and overlap matching, through
``agree`` and ``score``, on the command line and through the API; each name's kappa with
scikit-learn's ``cohen_kappa_score`` over the aligned mentions.
"""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spanagree import agree, score
from spanagree.errors import UsageError
from spanagree.match import align
from spanagree.measures.attributes import AttributeCounts, attribute_counts, attribute_figures
from spanagree.span import Document, Span, SpanSet

from conftest import run

CORPUS = Path(__file__).parent / "data" / "brat-ncbi-disease"
CATEGORIES = ["SpecificDisease", "Modifier", "DiseaseClass", "CompositeMention"]
MISSING = "(missing)"


# --- the corpus and its perturbed copy ------------------------------------------------------------

def mentions(path: Path) -> list[dict]:
    """The T lines of one .ann file with their attributes (public names), read plainly."""
    found, by_id = [], {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("T"):
            tid, middle, _ = line.split("\t")
            label, offsets = middle.split(" ", 1)
            pieces = offsets.replace(";", " ").split(" ")
            start, end = int(pieces[0]), int(pieces[-1])
            mention = {"id": tid, "label": label, "offsets": offsets, "start": start, "end": end, "attributes": {}}
            found.append(mention)
            by_id[tid] = mention
        elif line.startswith("A"):
            name, target, *value = line.split("\t")[1].split(" ")
            by_id[target]["attributes"][name] = value[0] if value else "True"
    return found


def perturbed(mention: dict, k: int, text_length: int) -> dict | None:
    """The second annotator's version of the first's mention number ``k`` (``None``: dropped)."""
    if k % 10 == 5:
        return None
    copy = {**mention, "attributes": dict(mention["attributes"])}
    if k % 6 == 1:  # a changed value
        value = copy["attributes"]["Category"]
        copy["attributes"]["Category"] = CATEGORIES[(CATEGORIES.index(value) + 1) % len(CATEGORIES)]
    elif k % 6 == 2:  # a dropped attribute
        del copy["attributes"]["Category"]
    elif k % 6 == 3:  # an added binary attribute
        copy["attributes"]["Negated"] = "True"
    elif k % 6 == 4 and ";" not in copy["offsets"] and copy["end"] < text_length:  # a shifted end
        copy["end"] += 1
        copy["offsets"] = f"{copy['start']} {copy['end']}"
    if k % 4 == 0:  # a normalisation, the same id or another
        copy["attributes"]["Reference"] = f"MESH:X{k}" if k % 8 == 0 else f"MESH:D{k}"
    return copy


def first_version(mention: dict, k: int) -> dict:
    """The first annotator's mention: the corpus's, with a normalisation on every fourth and a
    binary attribute on every twelfth (so some added ones match)."""
    copy = {**mention, "attributes": dict(mention["attributes"])}
    if k % 4 == 0:
        copy["attributes"]["Reference"] = f"MESH:D{k}"
    if k % 12 == 3:
        copy["attributes"]["Negated"] = "True"
    return copy


def write_ann(path: Path, versions: list[dict], text: str) -> None:
    lines, a, n = [], 0, 0
    for t, mention in enumerate(versions, 1):
        start, end = mention["start"], mention["end"]
        covered = " ".join(text[int(s):int(e)] for s, e in
                           (piece.split(" ") for piece in mention["offsets"].split(";")))
        lines.append(f"T{t}\t{mention['label']} {mention['offsets']}\t{covered}")
        for name, value in mention["attributes"].items():
            if name == "Reference":
                n += 1
                lines.append(f"N{n}\tReference T{t} {value}\t{covered}")
            else:
                a += 1
                lines.append(f"A{a}\t{name} T{t}" + ("" if value == "True" else f" {value}"))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def annotators(tmp_path_factory):
    """Two BRAT folders (the corpus with normalisations added, and its perturbed copy) and,
    per document, both annotators' mentions keyed by their number in the corpus."""
    root = tmp_path_factory.mktemp("ncbi")
    first, second = root / "first", root / "second"
    first.mkdir()
    second.mkdir()
    versions = {}
    for ann in sorted(CORPUS.glob("*.ann")):
        text = ann.with_suffix(".txt").read_text(encoding="utf-8")
        original = mentions(ann)
        ones = {k: first_version(m, k) for k, m in enumerate(original)}
        twos = {k: v for k, m in enumerate(original) if (v := perturbed(m, k, len(text))) is not None}
        for folder, kept in ((first, ones), (second, twos)):
            shutil.copy(ann.with_suffix(".txt"), folder / ann.with_suffix(".txt").name)
            write_ann(folder / ann.name, list(kept.values()), text)
        versions[ann.stem] = (ones, twos)
        hulls = sorted((m["start"], m["end"]) for m in ones.values())
        assert all(e1 <= s2 for (_, e1), (s2, _) in zip(hulls, hulls[1:])), "overlapping mentions: pairs not known"
    return first, second, versions


def by_sets(versions: dict, boundary: str, first_side: int = 0) -> tuple[dict, dict]:
    """The attribute counts computed on sets: the (mention, name, value) triples of each side,
    a mention of one side being the same as the other's when they are aligned (exact: the same
    offsets; overlap: both present, shifted ends still overlapping); and, per name, the values
    of the aligned mentions (for kappa)."""
    sides = ([], [])
    values: dict[str, tuple[list, list]] = {}
    for doc, (ones, twos) in versions.items():
        if first_side:
            ones, twos = twos, ones
        aligned = {k for k in ones if k in twos and (boundary == "overlap" or ones[k]["offsets"] == twos[k]["offsets"])}
        for side, kept, tag in ((0, ones, "first"), (1, twos, "second")):
            for k, mention in kept.items():
                identity = (doc, k) if k in aligned else (doc, k, tag)
                sides[side].extend((identity, name, value) for name, value in mention["attributes"].items())
        for k in sorted(aligned):
            for name in {*ones[k]["attributes"], *twos[k]["attributes"], "Category", "Negated", "Reference"}:
                x, y = values.setdefault(name, ([], []))
                x.append(ones[k]["attributes"].get(name, MISSING))
                y.append(twos[k]["attributes"].get(name, MISSING))
    first, second = set(sides[0]), set(sides[1])
    assert len(first) == len(sides[0]) and len(second) == len(sides[1])

    def counts(of_name=None):
        keep = (lambda triples: {t for t in triples if t[1] == of_name}) if of_name else (lambda triples: triples)
        x, y = keep(first), keep(second)
        return {"a": len(x & y), "b": len(x - y), "c": len(y - x)}

    names = sorted({t[1] for t in first | second})
    return {"all": counts(), **{name: counts(name) for name in names}}, values


def as_counts(figures: dict) -> dict:
    found = {"all": {key: figures[key] for key in "abc"}}
    found.update({name: {key: entry[key] for key in "abc"} for name, entry in figures["by_name"].items()})
    return found


def sklearn_kappas(values: dict, names) -> dict:
    from sklearn.metrics import cohen_kappa_score

    found = {}
    for name in names:
        x, y = values[name]
        found[name] = math.nan if len(set(x) | set(y)) == 1 else cohen_kappa_score(x, y)
    return found


@pytest.mark.parametrize("boundary", ["exact", "overlap"])
def test_attribute_counts_equal_the_set_computation_through_agree(annotators, boundary):
    first, second, versions = annotators
    expected, values = by_sets(versions, boundary)
    assert expected["all"]["a"] and expected["all"]["b"] and expected["all"]["c"]
    result = agree([first, second], match=boundary, attributes=True)
    (figures,) = result.attributes
    assert as_counts(figures) == expected
    assert set(figures["by_name"]) == {"Category", "Negated", "Reference"}
    kappas = sklearn_kappas(values, figures["by_name"])
    for name, entry in figures["by_name"].items():
        assert entry["kappa"] == pytest.approx(kappas[name], nan_ok=True)
    assert figures["f1"] == pytest.approx(2 * expected["all"]["a"] / (2 * expected["all"]["a"] + expected["all"]["b"]
                                                                       + expected["all"]["c"]))
    assert result.to_dict()["pairs"][0]["attributes"] == figures


@pytest.mark.parametrize("boundary", ["exact", "overlap"])
def test_attribute_counts_equal_the_set_computation_through_score(annotators, boundary):
    first, second, versions = annotators
    expected, _ = by_sets(versions, boundary, first_side=1)  # score: the prediction is the first side
    result = score(first, second, match=boundary, attributes=["Category", "Reference"])
    figures = result.extras["attributes"]
    assert set(figures["by_name"]) == {"Category", "Reference"}
    kept = {name: counts for name, counts in expected.items() if name != "Negated"}
    kept["all"] = {key: sum(counts[key] for name, counts in kept.items() if name != "all") for key in "abc"}
    assert as_counts(figures) == kept
    assert result.to_dict()["attributes"] == json.loads(json.dumps(figures))


@pytest.mark.parametrize("boundary", ["exact", "overlap"])
def test_the_command_line_gives_the_same_counts(capsys, annotators, boundary):
    first, second, versions = annotators
    code, out, _ = run(capsys, "agree", first, second, "--match", boundary, "--attributes", "--output", "json")
    assert code == 0
    document = json.loads(out)
    assert document["options"]["attributes"] is True
    assert as_counts(document["pairs"][0]["attributes"]) == by_sets(versions, boundary)[0]
    code, out, _ = run(capsys, "score", first, second, "--match", boundary, "--attributes", "Negated",
                       "--output", "json")
    assert code == 0
    document = json.loads(out)
    assert document["options"]["attributes"] == ["Negated"]
    expected = by_sets(versions, boundary, first_side=1)[0]["Negated"]
    assert as_counts(document["attributes"]) == {"all": expected, "Negated": expected}
    code, out, _ = run(capsys, "score", first, second, first, "--match", boundary, "--attributes", "--output", "json")
    entries = json.loads(out)["predictions"]
    assert as_counts(entries[0]["attributes"]) == by_sets(versions, boundary, first_side=1)[0]
    assert entries[1]["attributes"]["f1"] == 1.0


def test_the_table_shows_the_attributes(capsys, annotators):
    first, second, _ = annotators
    code, out, _ = run(capsys, "agree", first, second, "--attributes")
    assert code == 0
    assert "attributes (a: same value on aligned spans" in out
    assert re.search(r"first × second\s+Category\s+\d+\s+\d+\s+\d+", out)


def test_the_json_conforms_to_the_schemas(capsys, annotators):
    import jsonschema

    from spanagree.report.schemas import schema

    first, second, _ = annotators
    for command, name in (("agree", "agree"), ("score", "score")):
        code, out, _ = run(capsys, command, first, second, "--attributes", "--match-attributes", "Category",
                           "--link-top", "2", "--bootstrap", "20", "--seed", "2", "--output", "json")
        assert code == 0
        document = json.loads(out)
        jsonschema.validate(document, schema(name))
        assert document["options"]["match_attributes"] == ["Category"] and document["options"]["link_top"] == 2


def test_the_options_without_attributes_echo_the_defaults(capsys, annotators):
    """Every option is echoed as understood: without them, no attributes, none in the identity, 1."""
    first, second, _ = annotators
    for command in ("agree", "score"):
        _, out, _ = run(capsys, command, first, second, "--output", "json")
        document = json.loads(out)
        options = document["options"]
        assert (options["attributes"], options["match_attributes"], options["link_top"]) == (False, [], 1)
        assert "attributes" not in (document["pairs"][0] if command == "agree" else document)
    _, out, _ = run(capsys, "agree", first, second, "--attributes", "Negation", "--output", "json")
    assert json.loads(out)["options"]["attributes"] == ["Negation"]


def test_bad_attribute_options_are_one_line(capsys, annotators):
    first, second, _ = annotators
    code, _, err = run(capsys, "score", first, second, "--link-top", "2")
    assert code != 0 and "--link-top goes with --match-attributes" in err and "Traceback" not in err
    code, _, err = run(capsys, "score", first, second, "--match-attributes", "kb_id", "--link-top", "0")
    assert code != 0 and "must be a whole number, 1 or more" in err and "Traceback" not in err
    with pytest.raises(UsageError, match="attributes"):
        agree([first, second], attributes=[""])


def test_attributes_add_up_under_forked_jobs(annotators, small_shards):
    first, second, _ = annotators
    one = agree([first, second], match="overlap", attributes=True).to_dict()
    two = agree([first, second], match="overlap", attributes=True, jobs=2).to_dict()
    assert small_shards, "the run with jobs=2 did not fork"
    assert two == one
    assert score(first, second, attributes=True, jobs=2).to_dict() == score(first, second, attributes=True).to_dict()


def test_attributes_add_up_on_a_cluster(annotators, scheduler):
    first, second, _ = annotators
    assert (agree([first, second], attributes=True, scheduler=scheduler).to_dict()
            == agree([first, second], attributes=True).to_dict())
    on_cluster = agree([first, second, first], attributes=True, compare=True, resamples=50, seed=1,
                       scheduler=scheduler).to_dict()
    assert on_cluster == agree([first, second, first], attributes=True, compare=True, resamples=50, seed=1).to_dict()
    assert len(on_cluster["attribute_comparisons"]) == 9
    assert (score(first, second, match="overlap", attributes=True, scheduler=scheduler).to_dict()
            == score(first, second, match="overlap", attributes=True).to_dict())


def test_attributes_with_bootstrap_and_compare_are_the_corpus_figures(annotators):
    first, second, _ = annotators
    plain = agree([first, second, first], attributes=True)
    with_both = agree([first, second, first], attributes=True, bootstrap=200, compare=True, resamples=50, seed=1)
    intervals = [figures.pop("bootstrap") for figures in with_both.attributes]
    assert with_both.attributes == plain.attributes
    for interval, figures in zip(intervals, plain.attributes):
        assert interval["seed"] == 1 and interval["n"] == 200 and interval["documents"] == 4
        assert interval["f1"][0] <= figures["f1"] <= interval["f1"][1]
    assert intervals[1]["f1"] == [1.0, 1.0]
    results = score(first, [second, first], attributes=True, compare=True, resamples=50, seed=1)
    assert [r.extras["attributes"] for r in results] == [score(first, p, attributes=True).extras["attributes"]
                                                         for p in (second, first)]


def document_rows(versions: dict, documents: list, sides: list[tuple]) -> list[list[tuple]]:
    """Per document, each compared pair's attribute (a, b, c) from the set computation on that
    document alone (``sides``: per pair, ``(first_side, same)``: which annotator is the first
    side, and whether the pair is an annotator against the same folder)."""
    rows = []
    for doc in documents:
        row = []
        for first_side, same in sides:
            ones, twos = versions[doc]
            kept = {doc: (ones, ones)} if same else {doc: (ones, twos)}
            counts = by_sets(kept, "exact", first_side=first_side)[0]["all"]
            row.append((counts["a"], counts["b"], counts["c"]))
        rows.append(row)
    return rows


def test_attributes_under_compare_are_the_paired_tests_of_the_documents_counts(capsys, annotators):
    """``compare``: the pairs (and predictions) tested on their attributes, each document's
    attribute a, b, c (the set computation on that document) a unit, with the run's seed."""
    import jsonschema

    from spanagree.measures.significance import paired_comparisons
    from spanagree.report.schemas import schema

    first, second, versions = annotators
    result = agree([first, second, first], match="exact", attributes=True, compare=True, resamples=200, seed=3)
    names = [f"{p.first} × {p.second}" for p in result.pairs]
    rows = document_rows(versions, result.documents, [(0, False), (0, True), (1, False)])
    expected = paired_comparisons(rows, names, test="randomization", unit="document", resamples=200, seed=3)
    found = result.extras["attribute_comparisons"]
    assert found == expected
    assert len(found) == 9 and {e["units"] for e in found} == {4}
    by_name = dict(zip(names, result.attributes))
    best = next(e for e in found if e["measure"] == "f1" and e["second"] == names[0] and e["first"] == names[1])
    assert best["difference"] == pytest.approx(by_name[names[1]]["f1"] - by_name[names[0]]["f1"])
    assert result.to_dict()["attribute_comparisons"] == expected
    # the spans' comparisons are not the attributes'
    assert result.extras["comparisons"] != found

    results = score(first, [second, first], match="exact", attributes=True, compare=True, resamples=200, seed=3)
    rows = document_rows(versions, results[0].documents, [(1, False), (0, True)])
    expected = paired_comparisons(rows, [r.prediction for r in results], test="randomization", unit="document",
                                  resamples=200, seed=3)
    assert results.attribute_comparisons == expected

    for command, inputs in (("agree", (first, second, first)), ("score", (first, second, first))):
        code, out, _ = run(capsys, command, *inputs, "--attributes", "--compare", "--resamples", "200", "--seed", "3",
                           "--output", "json")
        assert code == 0
        document = json.loads(out)
        jsonschema.validate(document, schema(command))
        assert document["attribute_comparisons"] == json.loads(json.dumps(
            result.extras["attribute_comparisons"] if command == "agree" else results.attribute_comparisons))
        assert list(document)[-1] == "attribute_comparisons"
        code, out, _ = run(capsys, command, *inputs, "--attributes", "--compare", "--resamples", "200", "--seed", "3")
        assert code == 0 and "on their attributes (approximate randomization, 200 rounds over 4 documents" in out


def test_attributes_under_compare_are_the_same_under_jobs(annotators, small_shards):
    first, second, _ = annotators
    one = agree([first, second, first], attributes=True, compare=True, resamples=50, seed=1)
    two = agree([first, second, first], attributes=True, compare=True, resamples=50, seed=1, jobs=2)
    assert small_shards, "the run with jobs=2 did not fork"
    assert two.extras["attribute_comparisons"] == one.extras["attribute_comparisons"]
    assert two.to_dict() == one.to_dict()


# --- hand-counted ---------------------------------------------------------------------------------

def finding(start, end, *attributes, label="Finding"):
    return Span("d", start, end, label, attributes=tuple(attributes))


def test_the_worked_example_of_the_docs():
    """docs/measures.md's example::

        first    [Finding Negation=True Certainty=Low]   [Finding Negation=True]   [Finding]
        second   [Finding Negation=True Certainty=High]                            [Finding Negation=True]

    Aligned: the first and third mentions. Negation: a = 1 (first mention), b = 1 (the unaligned
    mention's), c = 1 (third mention's, its partner lacks it). Certainty: b = 1, c = 1. Overall
    a = 1, b = 2, c = 2, F1 = 2/6 = 1/3. Negation over the two aligned pairs: (True, True), (missing,
    True): p_o = 1/2, p_e = (1/2)(1) + (1/2)(0) = 1/2, kappa = 0. Certainty: (Low, High),
    (missing, missing): p_o = 1/2, p_e = (1/2)(1/2) (missing) = 1/4, kappa = (1/4)/(3/4) = 1/3."""
    first = SpanSet.from_spans("first", [finding(0, 5, ("A:Negation", "True"), ("A:Certainty", "Low")),
                                         finding(10, 15, ("A:Negation", "True")), finding(20, 25)])
    second = SpanSet.from_spans("second", [finding(0, 5, ("A:Negation", "True"), ("A:Certainty", "High")),
                                           finding(20, 25, ("A:Negation", "True"))])
    figures = agree([first, second], attributes=True).attributes[0]
    assert (figures["a"], figures["b"], figures["c"]) == (1, 2, 2)
    assert figures["f1"] == pytest.approx(1 / 3)
    negation = figures["by_name"]["Negation"]
    assert (negation["a"], negation["b"], negation["c"], negation["kappa"]) == (1, 1, 1, 0.0)
    certainty = figures["by_name"]["Certainty"]
    assert (certainty["a"], certainty["b"], certainty["c"]) == (0, 1, 1)
    assert certainty["kappa"] == pytest.approx(1 / 3)


def test_attribute_credit_follows_the_span_credit():
    """Under ``--match partial`` a pair earning 0.5 gives its matching attributes 0.5 in a and
    0.5 in b and c each: a + b stays the first side's attributes."""
    first = SpanSet.from_spans("first", [finding(0, 10, ("A:Negation", "True"))])
    second = SpanSet.from_spans("second", [finding(5, 10, ("A:Negation", "True"))])
    with pytest.warns(Warning, match="kappa undefined"):
        figures = agree([first, second], match="partial", attributes=True).attributes[0]
    assert (figures["a"], figures["b"], figures["c"]) == (0.5, 0.5, 0.5)
    with pytest.warns(Warning, match="kappa undefined"):
        overlap = agree([first, second], match="overlap", attributes=True).attributes[0]
    assert (overlap["a"], overlap["b"], overlap["c"]) == (1, 0, 0)


def test_names_asked_for_are_reported_when_absent():
    first = SpanSet.from_spans("first", [finding(0, 5, ("A:Negation", "True"))])
    with pytest.warns(Warning, match="kappa undefined"):
        figures = agree([first, first], attributes=["Negation", "Severity"]).attributes[0]
    assert figures["by_name"]["Severity"]["a"] == 0 and math.isnan(figures["by_name"]["Severity"]["f1"])
    assert figures["by_name"]["Negation"]["f1"] == 1.0


def test_notes_and_text_are_never_compared():
    span = finding(0, 5, ("#:AnnotatorNotes", "a note"), ("text", "abcde"), ("N:Reference", "UMLS:C1"))
    other = finding(0, 5, ("#:AnnotatorNotes", "another"), ("N:Reference", "UMLS:C1"))
    figures = attribute_figures(attribute_counts(align([span], [other])))
    assert (figures["a"], figures["b"], figures["c"]) == (1, 0, 0) and list(figures["by_name"]) == ["Reference"]


# --- properties -------------------------------------------------------------------------------------

VALUES = st.sampled_from(["x", "y", "z"])
ATTRIBUTES = st.lists(st.tuples(st.sampled_from(["A:Negation", "N:Reference", "kb_id"]), VALUES),
                      max_size=3, unique_by=lambda kv: kv[0])


@st.composite
def span_lists(draw, doc="d"):
    spans = []
    for start in sorted(draw(st.sets(st.integers(0, 40), max_size=6))):
        spans.append(Span(doc, start, start + draw(st.integers(1, 6)), draw(st.sampled_from(["A", "B"])),
                          attributes=tuple(draw(ATTRIBUTES))))
    return spans


@settings(max_examples=60, deadline=None)
@given(span_lists(), st.sampled_from(["exact", "overlap", "partial"]))
def test_a_set_against_itself_agrees_fully(spans, boundary):
    from spanagree.match import MatchRule

    counts = attribute_counts(align(spans, spans, MatchRule(boundary)))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        figures = attribute_figures(counts)
    assert figures["b"] == figures["c"] == 0
    if figures["a"]:
        assert figures["f1"] == 1.0
    for entry in figures["by_name"].values():
        assert math.isnan(entry["kappa"]) or entry["kappa"] == pytest.approx(1.0)


@settings(max_examples=60, deadline=None)
@given(span_lists("d1"), span_lists("d1"), span_lists("d2"), span_lists("d2"), st.sampled_from(["exact", "overlap"]))
def test_counts_add_over_documents_and_swap_with_the_sides(x1, y1, x2, y2, boundary):
    from spanagree.match import MatchRule

    rule = MatchRule(boundary)
    one, two = attribute_counts(align(x1, y1, rule)), attribute_counts(align(x2, y2, rule))
    first = SpanSet.from_documents("first", [Document("d1", None, x1), Document("d2", None, x2)])
    second = SpanSet.from_documents("second", [Document("d1", None, y1), Document("d2", None, y2)])
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run_figures = agree([first, second], match=boundary, attributes=True).attributes[0]
        swapped = agree([second, first], match=boundary, attributes=True).attributes[0]
        summed = attribute_figures(one + two)
    total = one + two
    assert (run_figures["a"], run_figures["b"], run_figures["c"]) == pytest.approx(
        (total.counts().a, total.counts().b, total.counts().c))
    assert {k: v for k, v in run_figures.items() if k != "by_name"} == pytest.approx(
        {k: v for k, v in summed.items() if k != "by_name"}, nan_ok=True)
    assert (swapped["a"], swapped["b"], swapped["c"]) == (run_figures["a"], run_figures["c"], run_figures["b"])
    for name, entry in run_figures["by_name"].items():
        other = swapped["by_name"][name]
        assert (other["b"], other["c"]) == (entry["c"], entry["b"])
        assert other["kappa"] == pytest.approx(entry["kappa"], nan_ok=True)


def test_attribute_counts_pickle_and_add():
    import pickle

    counts = attribute_counts(align([finding(0, 5, ("A:Negation", "True"))], [finding(0, 5, ("A:Negation", "True"))]))
    assert pickle.loads(pickle.dumps(counts)) == counts
    total = AttributeCounts()
    total += counts
    total += counts
    assert total.counts("Negation").a == 2 and total.pairs == 2 and counts.pairs == 1


# --- what leaves the attributes out says so ----------------------------------------------------------

def test_merge_says_it_leaves_the_attributes_out(annotators):
    from spanagree import vote

    first, second, versions = annotators
    result = vote([first, second], min_votes=1)
    spans = sum(len([m for m in kept.values() if m["attributes"]]) for pair in versions.values() for kept in pair)
    assert (f"merge votes on spans and leaves the annotators' attributes, relations and events out: {spans} span(s) "
            "with attributes (the merged gold holds the vote's own notes only)") in result.notes
    plain = vote([SpanSet.from_spans("x", [finding(0, 5)]), SpanSet.from_spans("y", [finding(0, 5)])])
    assert not any("attributes out" in note for note in plain.notes)


def test_the_report_says_it_leaves_the_attributes_out(annotators, tmp_path):
    """One note on the page, with the relations when both were compared."""
    first, second, _ = annotators
    agree([first, second], attributes=True, report=True).write_report(tmp_path / "report.html")
    assert "the report leaves the attributes out: their figures (--attributes)" in \
        (tmp_path / "report.html").read_text(encoding="utf-8")
    agree([first, second], attributes=True, relations=True, report=True).write_report(tmp_path / "both.html")
    assert "the report leaves the relations and the attributes out: their figures (--relations, --attributes)" in \
        (tmp_path / "both.html").read_text(encoding="utf-8")
    agree([first, second], report=True).write_report(tmp_path / "plain.html")
    assert "the report leaves" not in (tmp_path / "plain.html").read_text(encoding="utf-8")
