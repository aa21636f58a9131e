"""The output contract: every JSON document the command line writes validates against its schema.

The schemas (``spanagree/report/schemas/*.schema.json``, CHANGELOG.md) are checked four ways:

- they are valid draft 2020-12 schemas, every fixed-key object in them is closed
  (``additionalProperties: false``), and their enums are the registries' names;
- the command line's documents validate — agree, score (one prediction and several), merge, the
  ``--errors`` and ``--adjudicate`` listings — over the demo corpus in all four formats and with
  every option that changes a document's shape, and the figures in them are the demo's
  hand-computed ones (corpora/demo/README.md);
- the schemas reject what breaks the contract: a renamed key, a changed type, a missing key, an
  unannounced key, and 0.1.0's merge echo of ``only`` and ``map``;
- the real corpora (the bratiaa example project, WNUT-17 with seven systems), where present.
"""

from __future__ import annotations

import copy
import json
import math
import re
from functools import lru_cache
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from spanagree.cli import main
from spanagree.report.schemas import SCHEMAS, schema

ROOT = Path(__file__).resolve().parent.parent
FORMATS = ("brat", "conll", "jsonl", "xml")


@lru_cache(maxsize=None)
def validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(schema(name))


def problems(name: str, document) -> list[str]:
    """What the schema ``name`` finds wrong with ``document`` (empty: it conforms)."""
    return [f"{'/'.join(map(str, e.absolute_path)) or '$'}: {e.message[:300]}"
            for e in sorted(validator(name).iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))]


def conforms(name: str, document) -> None:
    found = problems(name, document)
    assert not found, f"{name}: " + "; ".join(found[:5])


def rejected(name: str, document) -> bool:
    return bool(problems(name, document))


def run(capsys, *argv) -> dict:
    """The JSON document a successful run of the command line prints."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def annotators(demo: Path, fmt: str) -> tuple[list[Path], list[str]]:
    """The demo's three annotators in ``fmt``, and the options that read them."""
    if fmt == "brat":
        return [demo / "brat" / name for name in ("ann1", "ann2", "ann3")], []
    paths = [demo / fmt / f"{name}.{fmt}" for name in ("ann1", "ann2", "ann3")]
    return paths, (["--xml-doc-tag", "doc"] if fmt == "xml" else [])


# a, b, c of the pairs ann1×ann2, ann1×ann3, ann2×ann3 (corpora/demo/README.md, "Pairs: a, b, c, F1"):
# BRAT has every span; the flat formats lack the discontinuous span and the nested one.
DEMO_PAIRS = {
    ("brat", "exact", "strict"): [(61, 16, 12), (67, 10, 8), (56, 17, 19)],
    ("brat", "exact", "ignore"): [(64, 13, 9), (69, 8, 6), (61, 12, 14)],
    ("brat", "partial", "strict"): [(64.5, 12.5, 8.5), (69, 8, 6), (59.5, 13.5, 15.5)],
    ("flat", "exact", "strict"): [(61, 14, 12), (65, 10, 8), (56, 17, 17)],
    ("flat", "exact", "ignore"): [(64, 11, 9), (67, 8, 6), (61, 12, 12)],
    ("flat", "partial", "strict"): [(64.5, 10.5, 8.5), (67, 8, 6), (59.5, 13.5, 13.5)],
}


def demo_pairs(fmt: str, match: str, labels: str) -> list[tuple]:
    return DEMO_PAIRS[("brat" if fmt == "brat" else "flat", match, labels)]


def option(options: list[str], name: str, default: str) -> str:
    return options[options.index(name) + 1] if name in options else default


# -- the schemas themselves ---------------------------------------------------------------------------------

def walk(node, where="$"):
    """Every dict in a schema, with its JSON path."""
    if isinstance(node, dict):
        yield where, node
        for key, value in node.items():
            yield from walk(value, f"{where}/{key}")
    elif isinstance(node, list):
        for k, value in enumerate(node):
            yield from walk(value, f"{where}/{k}")


def test_the_registry_names_one_shipped_schema_per_file():
    folder = ROOT / "spanagree" / "report" / "schemas"
    assert sorted(p.name for p in folder.glob("*.schema.json")) == sorted(f"{n}.schema.json" for n in SCHEMAS)
    assert set(SCHEMAS) == {"agree", "score", "merge", "errors", "disagreements", "adjudication", "report"}


@pytest.mark.parametrize("name", list(SCHEMAS))
def test_each_schema_is_draft_2020_12_with_every_fixed_key_object_closed(name):
    document = schema(name)
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(document)
    closed = 0
    for where, node in walk(document):
        if node.get("type") == "object" and "properties" in node:
            assert node.get("additionalProperties") is False, f"{name} {where}: a fixed-key object left open"
            closed += 1
        if "$ref" in node:  # every reference resolves within the file (each file stands alone)
            assert node["$ref"].removeprefix("#/$defs/") in document["$defs"], f"{name} {where}"
    assert closed >= 2
    assert schema(name) is not schema(name) and schema(name) == document  # a fresh copy each time


def test_an_unknown_schema_name_is_a_usage_error():
    from spanagree.errors import UsageError

    with pytest.raises(UsageError, match="no JSON schema called 'agreement'; choose one of: agree, score"):
        schema("agreement")


def test_the_schemas_enums_are_the_registries():
    """Registries are the single source of truth: a new format, rule, scheme or kind needs its schema."""
    from spanagree.formats import FORMATS as READERS, writable_formats
    from spanagree.formats.schemes import SCHEMES
    from spanagree.match import BOUNDARIES, LABEL_RULES, PAIRINGS
    from spanagree.scoring import KINDS as ERROR_KINDS
    from spanagree.relations import RELATION_KINDS
    from spanagree.voting import KINDS as VOTE_KINDS, SETTLED_KINDS, VOTE_RULES

    agree, score, merge = schema("agree"), schema("score"), schema("merge")
    errors, adjudication = schema("errors"), schema("adjudication")
    scheme_names = {name for s in SCHEMES.values() for name in (s.name, *s.aliases)}
    for document in (agree, score, merge, adjudication):
        assert document["$defs"]["format"]["anyOf"][0]["enum"] == list(READERS)
        assert set(document["$defs"]["scheme"]["anyOf"][0]["enum"]) == scheme_names
        assert document["$defs"]["label_rule"]["enum"] == list(LABEL_RULES)
    assert agree["properties"]["match"]["enum"] == list(BOUNDARIES)
    assert score["$defs"]["prediction"]["properties"]["match"]["enum"] == list(BOUNDARIES)
    assert score["$defs"]["options"]["properties"]["pairing"]["enum"] == list(PAIRINGS)
    assert merge["properties"]["match"]["enum"] == list(VOTE_RULES)
    assert merge["$defs"]["options"]["properties"]["to"]["enum"] == writable_formats()
    from spanagree.errorkinds import PAIRING_KINDS

    counted = score["$defs"]["prediction"]["properties"]["errors"]
    assert list(counted["properties"]) == [*ERROR_KINDS, *PAIRING_KINDS]
    assert counted["required"] == list(ERROR_KINDS)  # a pairing's kinds only where they occur
    relation_kinds = [k for k in RELATION_KINDS if k not in ERROR_KINDS]
    listed = [k for k in ERROR_KINDS if k != "correct"]
    assert errors["$defs"]["item"]["properties"]["kind"]["enum"] == listed + list(PAIRING_KINDS) + relation_kinds
    assert adjudication["$defs"]["cluster"]["properties"]["kind"]["items"]["enum"] == [*VOTE_KINDS, *SETTLED_KINDS]
    disagreements = schema("disagreements")  # agree: the optimal alignment only
    assert disagreements["$defs"]["item"]["properties"]["kind"]["enum"] == listed + relation_kinds
    assert [k for k in merge["$defs"]["tally"]["properties"] if k in VOTE_KINDS] == list(VOTE_KINDS)


def test_the_shared_definitions_are_the_same_in_every_file():
    """Each file stands alone, so the definitions they share are copies: they must not drift apart."""
    documents = [schema(name) for name in SCHEMAS]
    shared = {}
    for document in documents:
        for key, value in document.get("$defs", {}).items():
            shared.setdefault(key, []).append(value)
    for key in ("version", "rate", "count", "label_rule", "partial_credit", "only", "map", "left_out", "notes",
                "pair_names", "chance", "bootstrap", "interval", "whole_counts", "format", "scheme", "attributes"):
        assert len(shared[key]) >= 2 and all(v == shared[key][0] for v in shared[key]), key
    assert schema("merge")["$defs"]["options"] == schema("adjudication")["$defs"]["options"]
    agree_options = schema("agree")["$defs"]["options"]["properties"]
    score_options = schema("score")["$defs"]["options"]["properties"]
    score_only = ("command", "beta", "gold", "pairing", "strings", "strings_case", "strings_fuzzy")
    assert {k: v for k, v in score_options.items() if k not in score_only} \
        == {k: v for k, v in agree_options.items() if k not in ("command", "documents", "unitizing")
                                   and not k.startswith("gamma")}


def test_the_json_examples_in_docs_cli_md_conform():
    docs = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    examples = re.findall(r"— `spanagree (agree|score) [^`]*--output json`:\n\n```json\n(.*?)```", docs, re.S)
    assert [command for command, _ in examples] == ["agree", "score"]
    for command, shown in examples:
        conforms(command, json.loads(shown))


def test_the_changelog_and_docs_cli_md_point_to_every_schema():
    from spanagree import __version__

    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    docs = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for name in SCHEMAS:
        assert f"](spanagree/report/schemas/{name}.schema.json)" in changelog, name
        assert f"](../spanagree/report/schemas/{name}.schema.json)" in docs, name
    versions = re.findall(r"^## ([0-9]+\.[0-9]+\.[0-9]+)", changelog, flags=re.M)
    assert __version__ in versions  # the running version has its section
    assert versions == sorted(versions, key=lambda v: tuple(map(int, v.split("."))), reverse=True)
    assert "](../CHANGELOG.md)" in docs


# -- agree on the demo corpus ----------------------------------------------------------------------------------

AGREE_OPTIONS = [
    [],
    ["--by", "label"],
    ["--by", "document"],
    ["--chance"],
    ["--bootstrap", "50", "--seed", "1"],
    ["--match", "partial"],
    ["--labels", "ignore"],
    ["--match", "partial", "--partial-credit", "dice", "--by", "document", "--labels", "ignore"],
    ["--only", "ORG,PER", "--map", "LOC=ORG"],
    ["--jobs", "2"],
    ["--gamma", "--gamma-samples", "3", "--seed", "2", "--by", "document"],
    ["--match", "partial", "--attributes"],
    ["--match-attributes", "kb_id", "--link-top", "2", "--attributes", "kb_id"],
]


@pytest.mark.parametrize("options", AGREE_OPTIONS, ids=lambda o: " ".join(o) or "default")
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.slow
def test_agree_json_conforms(demo, capsys, fmt, options):
    paths, reading = annotators(demo, fmt)
    document = run(capsys, "agree", *paths, *reading, *options, "--output", "json")
    conforms("agree", document)
    assert ("chance" in document) == ("--chance" in options)
    assert ("bootstrap" in document) == ("--bootstrap" in options)
    assert ("gamma" in document) == ("--gamma" in options)
    assert all(("attributes" in pair) == ("--attributes" in options) for pair in document["pairs"])
    assert ("by_document" in document) == (option(options, "--by", "") == "document")
    assert document["annotators"] == ["ann1", "ann2", "ann3"] and document["documents"] == 10
    assert document["options"]["command"] == "agree" and document["options"]["xml_doc_tag"] == (
        "doc" if fmt == "xml" else None)
    match, labels = option(options, "--match", "exact"), option(options, "--labels", "strict")
    if "--only" not in options and "--partial-credit" not in options:
        assert [(p["a"], p["b"], p["c"]) for p in document["pairs"]] == demo_pairs(fmt, match, labels)
        assert [p["annotators"] for p in document["pairs"]] == [["ann1", "ann2"], ["ann1", "ann3"], ["ann2", "ann3"]]
    if "--only" in options:
        assert document["options"]["only"] == ["ORG", "PER"] and document["options"]["map"] == {"LOC": "ORG"}
        assert sorted(document["by_label"]) == ["ORG", "PER"]
    if "--chance" in options:
        chance = document["chance"]
        assert chance["tokenizer"] == ("conll" if fmt == "conll" else "spacy blank en")
        assert len(chance["pairs"]) == 3 and chance["categories"][-1] == "O"
    if "--bootstrap" in options:
        boot = document["bootstrap"]
        assert (boot["n"], boot["seed"], boot["documents"], len(boot["pairs"])) == (50, 1, 10, 3)
        low, high = boot["pairs"][0]["f1"]
        assert low <= document["pairs"][0]["f1"] <= high


def test_agree_exact_figures_are_integers_and_partial_ones_may_be_fractional(demo, capsys):
    paths, _ = annotators(demo, "brat")
    exact = run(capsys, "agree", *paths, "--output", "json")
    assert all(isinstance(p[k], int) for p in exact["pairs"] for k in "abc")
    assert (exact["pooled"]["a"], exact["pooled"]["b"], exact["pooled"]["c"]) == (184, 43, 39)
    assert round(exact["mean_f1"], 4) == 0.8172 and round(exact["pooled_f1"], 4) == 0.8178
    partial = run(capsys, "agree", *paths, "--match", "partial", "--output", "json")
    assert partial["pairs"][0]["a"] == 64.5
    # the same fraction under --match exact breaks the contract; under partial it is the contract
    broken = copy.deepcopy(exact)
    broken["pairs"][0]["a"] = 64.5
    assert rejected("agree", broken)
    conforms("agree", partial)


# -- score on the demo corpus ----------------------------------------------------------------------------------

SCORE_OPTIONS = [
    [],
    ["--by", "label"],
    ["--by", "document"],
    ["--chance"],
    ["--bootstrap", "50", "--seed", "1"],
    ["--match", "partial"],
    ["--beta", "2"],
    ["--beta", "inf"],
    ["--errors", "ERRORS.json"],
    ["--labels", "ignore"],
    ["--match", "partial", "--partial-credit", "dice", "--by", "document", "--errors", "ERRORS.json"],
    ["--match-attributes", "kb_id", "--pairing", "greedy", "--attributes"],
]


def with_errors_file(options: list[str], tmp_path: Path) -> tuple[list[str], Path | None]:
    if "ERRORS.json" not in options:
        return options, None
    path = tmp_path / "errors.json"
    return [str(path) if o == "ERRORS.json" else o for o in options], path


@pytest.mark.parametrize("options", SCORE_OPTIONS, ids=lambda o: " ".join(o) or "default")
@pytest.mark.parametrize("fmt", FORMATS)
def test_score_one_prediction_json_conforms(demo, capsys, tmp_path, fmt, options):
    (gold, pred, _), reading = annotators(demo, fmt)
    options, errors_path = with_errors_file(options, tmp_path)
    document = run(capsys, "score", gold, pred, *reading, *options, "--output", "json")
    conforms("score", document)
    assert "predictions" not in document and (document["gold"], document["prediction"]) == ("ann1", "ann2")
    assert ("chance" in document) == ("--chance" in options)
    assert ("bootstrap" in document) == ("--bootstrap" in options)
    assert ("attributes" in document) == ("--attributes" in options)
    assert ("by_document" in document) == (option(options, "--by", "") == "document")
    match, labels = option(options, "--match", "exact"), option(options, "--labels", "strict")
    if "--partial-credit" not in options and "--pairing" not in options:
        a, b, c = demo_pairs(fmt, match, labels)[0]
        assert (document["a"], document["b"], document["c"]) == (a, c, b)  # the prediction is the first side
    beta = option(options, "--beta", "1")
    if beta == "2":  # F2 = 5a / (5a + 4c + b)
        a, b, c = document["a"], document["b"], document["c"]
        assert document["f2"] == pytest.approx(5 * a / (5 * a + 4 * c + b))
    if beta == "inf":  # β = ∞ is recall; JSON has no infinity, so β is echoed as null
        assert document["beta"] is None and document["options"]["beta"] is None
        assert document["finf"] == document["recall"]
    if errors_path is not None:
        listing = json.loads(errors_path.read_text(encoding="utf-8"))
        conforms("errors", listing)
        kinds = [item["kind"] for item in listing["errors"]]
        assert {k: kinds.count(k) for k in set(kinds)} == {k: n for k, n in document["errors"].items()
                                                           if n and k != "correct"}
        assert {item["prediction"] for item in listing["errors"]} == {"ann2"}


@pytest.mark.parametrize("options", [[], ["--by", "document", "--chance"], ["--bootstrap", "50", "--seed", "1",
                                                                              "--beta", "0.5"],
                                     ["--match", "partial", "--errors", "ERRORS.json"]],
                         ids=lambda o: " ".join(o) or "default")
@pytest.mark.parametrize("fmt", FORMATS)
def test_score_three_predictions_against_a_merged_gold_conforms(demo, capsys, tmp_path, fmt, options):
    paths, reading = annotators(demo, fmt)
    gold = tmp_path / ("gold" if fmt == "brat" else f"gold.{fmt}")
    merged = run(capsys, "merge", *paths, *reading, "--to", fmt, "--out", gold, "--output", "json")
    options, errors_path = with_errors_file(options, tmp_path)
    document = run(capsys, "score", gold, *paths, *reading, *options, "--output", "json")
    conforms("score", document)
    assert set(document) == {"spanagree", "options", "gold", "predictions"}
    assert [p["prediction"] for p in document["predictions"]] == ["ann1", "ann2", "ann3"]
    assert document["gold"] == gold.stem
    # every kept cluster is a gold span: the gold side of each prediction (a + c) holds them all
    assert all(p["a"] + p["c"] == merged["spans"] for p in document["predictions"])
    for prediction in document["predictions"]:
        assert ("chance" in prediction) == ("--chance" in options)
        assert ("f0.5" in prediction) == ("--beta" in options)
    if errors_path is not None:
        listing = json.loads(errors_path.read_text(encoding="utf-8"))
        conforms("errors", listing)
        assert [item["prediction"] for item in listing["errors"]] == sorted(
            (item["prediction"] for item in listing["errors"]), key=["ann1", "ann2", "ann3"].index)


def test_score_errors_listing_against_hand_checked_items(demo, capsys, tmp_path):
    """docs/cli.md's two rows of the listing, as JSON."""
    (gold, pred, _), _ = annotators(demo, "brat")
    errors = tmp_path / "errors.json"
    run(capsys, "score", gold, pred, "--errors", errors, "--output", "json")
    listing = json.loads(errors.read_text(encoding="utf-8"))["errors"]
    first, second = listing[:2]
    assert (first["document"], first["kind"], first["aligned"], first["credit"]) == ("clinic-01", "partial", False, 0.0)
    assert (first["gold_start"], first["gold_end"], first["gold_text"]) == (0, 14, "Mr. Tomas Berg")
    assert (first["pred_start"], first["pred_end"], first["pred_fragments"]) == (4, 14, "4-14")
    assert (second["kind"], second["gold_label"], second["gold_text"], second["pred_label"]) == (
        "missed", "DRUG", "Metformin", None)
    conforms("errors", {"errors": listing})


# -- merge and the adjudication listing -------------------------------------------------------------------------

MERGE_OPTIONS = [
    [],
    ["--adjudicate", "ADJUDICATE.json"],
    ["--match", "overlap", "--adjudicate", "ADJUDICATE.json"],
    ["--labels", "ignore", "--adjudicate", "ADJUDICATE.json"],
    ["--only", "PER,ORG", "--map", "LOC=GPE", "--adjudicate", "ADJUDICATE.json"],
    ["--min-votes", "3", "--jobs", "2"],
]


@pytest.mark.parametrize("options", MERGE_OPTIONS, ids=lambda o: " ".join(o) or "default")
@pytest.mark.parametrize("fmt", FORMATS)
def test_merge_json_and_adjudication_conform(demo, capsys, tmp_path, fmt, options):
    paths, reading = annotators(demo, fmt)
    listing_path = tmp_path / "adjudicate.json"
    options = [str(listing_path) if o == "ADJUDICATE.json" else o for o in options]
    gold = tmp_path / ("gold" if fmt == "brat" else f"gold.{fmt}")
    document = run(capsys, "merge", *paths, *reading, *options, "--to", fmt, "--out", gold, "--output", "json")
    conforms("merge", document)
    assert document["annotators"] == ["ann1", "ann2", "ann3"] and document["documents"] == 10
    assert document["min_votes"] == int(option(options, "--min-votes", "2"))
    assert document["kept"] == document["spans"] == sum(d["kept"] for d in document["by_document"].values())
    assert sum(document["votes"].values()) == document["clusters"]
    if "--only" in options:  # 0.2.0: the values as understood, as agree echoes them
        assert document["options"]["only"] == ["ORG", "PER"] and document["options"]["map"] == {"LOC": "GPE"}
    else:
        assert document["options"]["only"] is None and document["options"]["map"] is None
    if "--adjudicate" in options:
        listing = json.loads(listing_path.read_text(encoding="utf-8"))
        conforms("adjudication", listing)
        assert listing["options"] == document["options"]
        assert len(listing["clusters"]) == document["to_adjudicate"]
        assert sum("dropped" in c["kind"] for c in listing["clusters"]) == document["dropped"]
        assert all(set(c["versions"]) == {"ann1", "ann2", "ann3"} for c in listing["clusters"])


def test_merge_figures_on_the_demo(demo, capsys, tmp_path):
    """Exact / strict, K = 2, flat part: the clusters by votes follow from agree's pairs.

    With n3 spans all three marked and a_ij those two marked (agree's a, exact / strict), the
    clusters with 3 votes are n3, with 2 votes a12 + a13 + a23 − 3·n3, with 1 vote
    |A| + |B| + |C| − 2·(2 votes) − 3·(3 votes).
    """
    paths, _ = annotators(demo, "jsonl")
    document = run(capsys, "merge", *paths, "--to", "jsonl", "--out", tmp_path / "gold.jsonl", "--output", "json")
    conforms("merge", document)
    assert document["votes"] == {"1": 19, "2": 20, "3": 54}
    (a12, b12, c12), (a13, _, c13), (a23, _, _) = demo_pairs("jsonl", "exact", "strict")
    assert 20 == a12 + a13 + a23 - 3 * 54
    assert 19 == (a12 + b12) + (a12 + c12) + (a13 + c13) - 2 * 20 - 3 * 54
    assert (document["kept"], document["dropped"], document["clusters"]) == (74, 19, 93)


# -- what breaks the contract is rejected ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def documents(tmp_path_factory):
    """One real document of every kind, from the demo corpus (BRAT)."""
    folder = tmp_path_factory.mktemp("documents")
    demo = ROOT / "corpora" / "demo" / "brat"
    paths = [str(demo / name) for name in ("ann1", "ann2", "ann3")]

    def run_quietly(*argv):
        import contextlib
        import io

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            assert main([str(a) for a in argv]) == 0, err.getvalue()
        return json.loads(out.getvalue())

    found = {
        "agree": run_quietly("agree", *paths, "--by", "document", "--chance", "--bootstrap", "20", "--seed", "1",
                             "--output", "json"),
        "score": run_quietly("score", *paths[:2], "--beta", "2", "--errors", folder / "errors.json", "--output", "json"),
        "score several": run_quietly("score", *paths, "--output", "json"),
        "merge": run_quietly("merge", *paths, "--only", "ORG,PER", "--map", "LOC=GPE", "--to", "jsonl", "--out",
                             folder / "gold.jsonl", "--adjudicate", folder / "adjudicate.json", "--output", "json"),
    }
    found["errors"] = json.loads((folder / "errors.json").read_text(encoding="utf-8"))
    found["adjudication"] = json.loads((folder / "adjudicate.json").read_text(encoding="utf-8"))
    return found


def kind_of(key: str) -> str:
    return "score" if key.startswith("score") else key


def renamed(document: dict, path: list, new: str) -> dict:
    changed = copy.deepcopy(document)
    *parents, key = path
    node = changed
    for step in parents:
        node = node[step]
    node[new] = node.pop(key)
    return changed


def replaced(document: dict, path: list, value) -> dict:
    changed = copy.deepcopy(document)
    *parents, key = path
    node = changed
    for step in parents:
        node = node[step]
    node[key] = value
    return changed


def removed(document: dict, path: list) -> dict:
    changed = copy.deepcopy(document)
    *parents, key = path
    node = changed
    for step in parents:
        node = node[step]
    del node[key]
    return changed


# (document, path to a key): every document kind, at the top and deep inside
BREAKS = [
    ("agree", ["pooled_f1"]), ("agree", ["pairs", 0, "f1"]), ("agree", ["by_document", "clinic-01", "mean_f1"]),
    ("agree", ["chance", "pairs", 0, "kappa_2x2"]), ("agree", ["bootstrap", "pairs", 0, "f1"]),
    ("agree", ["options", "only"]), ("agree", ["matrix", "f1"]),
    ("score", ["recall"]), ("score", ["by_label", "PER", "precision"]), ("score", ["errors", "missed"]),
    ("score", ["confusion", "labels"]), ("score", ["options", "beta"]),
    ("score several", ["predictions", 1, "jaccard"]), ("score several", ["gold"]),
    ("merge", ["to_adjudicate"]), ("merge", ["by_document", "news-01", "kept"]), ("merge", ["options", "map"]),
    ("errors", ["errors", 0, "gold_label"]), ("errors", ["errors", 3, "credit"]),
    ("adjudication", ["clusters", 0, "votes"]), ("adjudication", ["min_votes"]),
    ("adjudication", ["options", "min_votes"]),
]


@pytest.mark.parametrize("key,path", BREAKS, ids=lambda x: x if isinstance(x, str) else "/".join(map(str, x)))
@pytest.mark.slow
def test_a_renamed_key_is_rejected(documents, key, path):
    conforms(kind_of(key), documents[key])
    assert rejected(kind_of(key), renamed(documents[key], path, path[-1].upper() + "_renamed"))


@pytest.mark.parametrize("key,path", BREAKS, ids=lambda x: x if isinstance(x, str) else "/".join(map(str, x)))
def test_a_missing_key_is_rejected(documents, key, path):
    assert rejected(kind_of(key), removed(documents[key], path))


@pytest.mark.parametrize("key,path", BREAKS, ids=lambda x: x if isinstance(x, str) else "/".join(map(str, x)))
def test_a_changed_type_is_rejected(documents, key, path):
    document = documents[key]
    node = document
    for step in path:
        node = node[step]
    # a number becomes its string, a string or list an object, an object a list
    other = str(node) if isinstance(node, (int, float)) and not isinstance(node, bool) else (
        {"value": node} if isinstance(node, (str, list)) or node is None else [node])
    assert rejected(kind_of(key), replaced(document, path, other))


def objects(node, path=()):
    """Every object in a JSON document, with its path (a list of keys and indices)."""
    if isinstance(node, dict):
        yield list(path), node
        for key, value in node.items():
            yield from objects(value, (*path, key))
    elif isinstance(node, list):
        for k, value in enumerate(node):
            yield from objects(value, (*path, k))


MAPS = {"by_label", "by_document", "versions", "votes"}


@pytest.mark.parametrize("key", ["agree", "score", "score several", "merge", "errors", "adjudication"])
@pytest.mark.slow
def test_an_unannounced_key_is_rejected_anywhere(documents, key):
    """A new key in any object of a real document fails, but in a map whose entries it fits
    (``multiply_covered_tokens``: annotator → tokens)."""
    document = documents[key]
    tried, seen = 0, set()
    for path, node in objects(document):
        # one object per place in the schema: the first element of a list, the first entry of a map
        where = tuple("#" if isinstance(step, int) else "*" if before in MAPS else step
                      for before, step in zip([None, *path], path))
        if path[-1:] == ["multiply_covered_tokens"] or where in seen:
            continue
        seen.add(where)
        changed = copy.deepcopy(document)
        target = changed
        for step in path:
            target = target[step]
        target["an_unannounced_key"] = 1
        assert rejected(kind_of(key), changed), f"{key} {path} accepts a new key"
        tried += 1
    assert tried >= 2


def test_the_0_1_0_merge_echo_is_a_breaking_change(documents):
    """0.1.0 echoed merge's --only as the string given and --map as the list of OLD=NEW strings."""
    for key in ("merge", "adjudication"):
        document = documents[key]
        assert document["options"]["only"] == ["ORG", "PER"] and document["options"]["map"] == {"LOC": "GPE"}
        assert rejected(key, replaced(document, ["options", "only"], "ORG,PER"))
        assert rejected(key, replaced(document, ["options", "map"], ["LOC=GPE"]))


def test_conditional_parts_of_the_contract(documents):
    score = documents["score"]
    assert score["f2"] == pytest.approx(5 * 61 / (5 * 61 + 4 * 16 + 12))  # F2 of ann2 against ann1
    assert rejected("score", removed(score, ["f2"]))  # β = 2 without its F2
    assert rejected("score", replaced(score, ["beta"], 1.0))  # F2 with β = 1
    assert rejected("score", replaced(score, ["f1"], 1.5))  # a rate above 1
    assert rejected("score", replaced(score, ["f1"], "NaN"))  # undefined is null, never NaN
    conforms("score", replaced(score, ["f1"], None))
    agree = documents["agree"]
    assert rejected("agree", replaced(agree, ["pairs", 0, "annotators"], ["ann1", "ann2", "ann3"]))
    assert rejected("agree", replaced(agree, ["options", "match"], "fuzzy"))
    assert rejected("agree", replaced(agree, ["bootstrap", "pairs"], None))  # no reason given for no interval
    errors = documents["errors"]["errors"]
    missed = next(k for k, item in enumerate(errors) if item["kind"] == "missed")
    assert rejected("errors", replaced(documents["errors"], ["errors", missed, "pred_label"], "PER"))
    residual = next(k for k, item in enumerate(errors) if not item["aligned"] and item["kind"] == "partial")
    assert rejected("errors", replaced(documents["errors"], ["errors", residual, "credit"], 0.5))
    adjudication = documents["adjudication"]
    assert rejected("adjudication", replaced(adjudication, ["clusters", 0, "kind"], ["tied"]))
    assert rejected("adjudication", replaced(adjudication, ["clusters", 0, "kind"], []))
    several = documents["score several"]
    assert rejected("score", replaced(several, ["predictions", 0, "options"], several["options"]))


# -- the real corpora ----------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_bratiaa_example_project(shared_corpora, capsys, tmp_path):
    """4 annotators × 7 Spanish news documents; figures from bratiaa's regression tests."""
    folder = shared_corpora / "bratiaa-example" / "example-project"
    paths = [folder / name for name in ("Lisa", "Maria", "Max", "Peter")]
    document = run(capsys, "agree", *paths, "--by", "label", "--output", "json")
    conforms("agree", document)
    assert [(p["a"], p["b"], p["c"]) for p in document["pairs"]] == [
        (382, 22, 22), (333, 71, 25), (386, 18, 15), (311, 93, 47), (366, 38, 35), (318, 40, 83)]
    assert document["mean_f1"] == pytest.approx(0.8903501, abs=1e-7)
    assert document["sd_f1"] == pytest.approx(0.0526314, abs=1e-7)
    assert sorted(document["by_label"]) == ["LOC", "MISC", "ORG", "PER"]
    conforms("agree", run(capsys, "agree", *paths, "--chance", "--bootstrap", "50", "--seed", "1",
                          "--by", "document", "--match", "partial", "--output", "json"))
    adjudicate = tmp_path / "adjudicate.json"
    merged = run(capsys, "merge", *paths, "--to", "brat", "--out", tmp_path / "gold", "--adjudicate", adjudicate,
                 "--output", "json")
    conforms("merge", merged)
    assert (merged["annotators"], merged["min_votes"], merged["documents"]) == (["Lisa", "Maria", "Max", "Peter"], 3, 7)
    listing = json.loads(adjudicate.read_text(encoding="utf-8"))
    conforms("adjudication", listing)
    assert len(listing["clusters"]) == merged["to_adjudicate"] > 0
    errors = tmp_path / "errors.json"
    scored = run(capsys, "score", tmp_path / "gold", *paths, "--errors", errors, "--by", "label", "--output", "json")
    conforms("score", scored)
    conforms("errors", json.loads(errors.read_text(encoding="utf-8")))
    assert [p["prediction"] for p in scored["predictions"]] == ["Lisa", "Maria", "Max", "Peter"]


# correct spans of each WNUT-17 system against the gold (conlleval; wnut17/SOURCE.md)
WNUT_CORRECT = {"arcada": 373, "drexel_cci": 192, "flytxt": 345, "mic-cis": 365, "sjtu_adapt": 365,
                "spinningbytes": 388, "uh_ritual": 355}


@pytest.mark.slow
def test_wnut17_gold_and_seven_systems(shared_corpora, capsys, tmp_path):
    folder = shared_corpora / "wnut17"
    systems = sorted((folder / "submissions").iterdir())
    assert [p.stem for p in systems] == sorted(WNUT_CORRECT)
    errors = tmp_path / "errors.json"
    document = run(capsys, "score", folder / "emerging.test.annotated", *systems, "--format", "conll",
                   "--errors", errors, "--by", "label", "--beta", "2", "--output", "json")
    conforms("score", document)
    assert {p["prediction"]: p["a"] for p in document["predictions"]} == WNUT_CORRECT
    assert all(p["a"] + p["c"] == 1079 for p in document["predictions"])  # the gold's spans
    listing = json.loads(errors.read_text(encoding="utf-8"))["errors"]
    assert len(listing) == sum(n for p in document["predictions"] for k, n in p["errors"].items() if k != "correct")
    conforms("errors", {"errors": listing[::7]})  # every seventh of 6,252 items: validating is slow
    assert {item["kind"] for item in listing[::7]} == {"partial", "wrong_label", "wrong_label_and_boundary",
                                                        "missed", "spurious"}
    one = run(capsys, "score", folder / "emerging.test.annotated", systems[0], "--format", "conll",
              "--chance", "--bootstrap", "50", "--seed", "1", "--output", "json")
    conforms("score", one)
    assert one["chance"]["tokenizer"] == "conll" and one["chance"]["tokens"] == 23394
    assert math.isfinite(one["chance"]["pairs"][0]["cohen_kappa"])
    # WNUT-17 is one document: nothing to resample, so no interval and the reason why
    assert one["bootstrap"]["pairs"] is None and one["bootstrap"]["reason"] == "fewer than two documents"
