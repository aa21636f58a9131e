"""Relations and events compared (:mod:`spanagree.relations`, ``agree``/``score`` ``relations=True``).

The real corpus is ChEMU 2020's reaction sample as brateval ships it (``tests/data/chemu-brateval``,
SOURCE.md): its gold is the first annotator, and a second one is made from it by known
perturbations — relations dropped, retyped and given another argument, argument spans shortened —
written as plain text here. The expected counts come from a plain set computation over the two
folders' lines (no spanagree code), under exact and overlap matching, through ``agree`` and
``score``, the API and the command line; brateval's own recorded comparisons are reproduced.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import run, same_under
from spanagree import agree, score
from spanagree.match import MatchRule, align
from spanagree.relations import RelationTally, compared_relations
from spanagree.span import Relation, Span, SpanSet

CHEMU = Path(__file__).parent / "data" / "chemu-brateval"
GOLD = CHEMU / "gt"


# ---------------------------------------------------------------------------------------------
# A hand-counted example (the one docs/measures.md counts)
#
#   text     Ana met Bo in Porto .
#   first    [Ana]PER ─Knows→ [Bo]PER   [Ana] ─Lives→ [Porto]LOC   [Bo] ─Sibling→ [Ana]
#   second   [Ana]PER ─Knows→ [Bo]PER   [Ana] ─Visits→ [Porto]     [Ana] ─Sibling→ [Bo]   [Bo] ─Lives→ [Porto]


def example() -> tuple[SpanSet, SpanSet]:
    text = "Ana met Bo in Porto."
    ana, bo, porto = Span("d", 0, 3, "PER"), Span("d", 8, 10, "PER"), Span("d", 14, 19, "LOC")
    first = SpanSet.from_spans("first", [ana, bo, porto], {"d": text})
    second = SpanSet.from_spans("second", [ana, bo, porto], {"d": text})
    first.documents["d"].relations = [
        Relation("Knows", (("Arg1", ana), ("Arg2", bo))),
        Relation("Lives", (("Arg1", ana), ("Arg2", porto))),
        Relation("Sibling", (("Arg1", bo), ("Arg2", ana))),
    ]
    second.documents["d"].relations = [
        Relation("Knows", (("Arg1", ana), ("Arg2", bo))),
        Relation("Visits", (("Arg1", ana), ("Arg2", porto))),
        Relation("Sibling", (("Arg1", ana), ("Arg2", bo))),
        Relation("Lives", (("Arg1", bo), ("Arg2", porto))),
    ]
    return first, second


def test_the_hand_counted_example():
    first, second = example()
    found = agree([first, second], relations=True).to_dict()
    pair = found["pairs"][0]["relations"]
    assert (pair["a"], pair["b"], pair["c"]) == (1, 2, 3)  # Knows; Lives, Sibling; Visits, Sibling, Lives
    assert {t: (c["a"], c["b"], c["c"]) for t, c in pair["by_type"].items()} == {
        "Knows": (1, 0, 0), "Lives": (0, 1, 1), "Sibling": (0, 1, 1), "Visits": (0, 0, 1)}
    assert pair["f1"] == pytest.approx(2 * 1 / (2 * 1 + 2 + 3))
    symmetric = agree([first, second], relations=True, symmetric_relations=["Sibling"]).to_dict()["relations"]
    assert (symmetric["a"], symmetric["b"], symmetric["c"]) == (2, 1, 2)
    assert symmetric["mean_f1"] == symmetric["f1"] == pytest.approx(4 / 7)
    assert symmetric["by_type"]["Sibling"]["f1"] == 1.0


def test_the_kinds_of_the_hand_counted_example():
    first, second = example()
    rule = MatchRule()
    alignment = align(first.documents["d"].spans, second.documents["d"].spans, rule)
    records = compared_relations(first.documents["d"].relations, second.documents["d"].relations, alignment, rule)
    kinds = sorted((r.kind, r.second.type if r.second else None, r.first.type if r.first else None) for r in records)
    assert kinds == [("correct", "Knows", "Knows"), ("missed", "Lives", None), ("missed", "Sibling", None),
                     ("spurious", None, "Sibling"), ("wrong_type", "Visits", "Lives")]


def test_an_event_matches_when_its_trigger_is_aligned_and_its_roles_match():
    text = "Ana bound Bo and Cy."
    ana, bound, bo, cy = (Span("d", 0, 3, "P"), Span("d", 4, 9, "EV"), Span("d", 10, 12, "P"),
                          Span("d", 17, 19, "P"))
    spans = [ana, bound, bo, cy]
    first = SpanSet.from_spans("first", spans, {"d": text})
    second = SpanSet.from_spans("second", spans, {"d": text})
    first.documents["d"].relations = [Relation("Binding", (("Theme", bo), ("Theme", cy), ("Agent", ana)), bound)]
    second.documents["d"].relations = [Relation("Binding", (("Agent", ana), ("Theme", cy), ("Theme", bo)), bound)]
    assert score(second, first, relations=True).extras["relations"]["f1"] == 1.0  # roles as multisets
    second.documents["d"].relations = [Relation("Binding", (("Agent", ana), ("Theme", cy)), bound)]
    found = score(second, first, relations=True)
    assert (found.relation_tally.kinds, found.extras["relations"]["a"]) == (
        Counter({("spurious", None, "Binding"): 1, ("missed", "Binding", None): 1}), 0)


def test_arguments_that_overlap_but_are_not_aligned_are_an_argument_boundary_error():
    text = "Ana Ruiz lives in Porto."
    ana, ana_ruiz, porto = Span("d", 0, 3, "PER"), Span("d", 0, 8, "PER"), Span("d", 18, 23, "LOC")
    gold = SpanSet.from_spans("gold", [ana_ruiz, porto], {"d": text})
    pred = SpanSet.from_spans("pred", [ana, porto], {"d": text})
    gold.documents["d"].relations = [Relation("Lives", (("Arg1", ana_ruiz), ("Arg2", porto)))]
    pred.documents["d"].relations = [Relation("Lives", (("Arg1", ana), ("Arg2", porto)))]
    exact = score(gold, pred, relations=True)
    assert exact.relation_tally.kinds == Counter({("argument_boundary", "Lives", "Lives"): 1})
    assert (exact.extras["relations"]["a"], exact.extras["relations"]["b"], exact.extras["relations"]["c"]) == (0, 1, 1)
    overlap = score(gold, pred, relations=True, match="overlap")
    assert overlap.relation_tally.kinds == Counter({("correct", "Lives", "Lives"): 1})


def test_without_relations_the_output_has_none():
    first, second = example()
    assert "relations" not in agree([first, second]).to_dict()
    assert "relations" not in agree([first, second]).to_dict()["pairs"][0]


# ---------------------------------------------------------------------------------------------
# The ChEMU sample and a second annotator made from it by known perturbations


def read_lines(folder: Path) -> dict[str, tuple[str, dict, list]]:
    """Each document's text, its T lines (id → (label, start, end)) and its R lines
    (id, type, arg1 id, arg2 id), read plainly."""
    found = {}
    for ann in sorted(folder.glob("*.ann")):
        text = ann.with_suffix(".txt").read_text(encoding="utf-8")
        spans, relations = {}, []
        for line in ann.read_text(encoding="utf-8").splitlines():
            fields = line.split("\t")
            if line.startswith("T"):
                label, start, end = fields[1].split(" ")
                spans[fields[0]] = (label, int(start), int(end))
            elif line.startswith("R"):
                kind, arg1, arg2 = fields[1].split(" ")[:3]
                relations.append((fields[0], kind, arg1.split(":")[1], arg2.split(":")[1]))
        found[ann.stem] = (text, spans, relations)
    return found


def perturbed(tmp_path: Path) -> tuple[Path, dict]:
    """The second annotator, written as BRAT files: relation n (counting over the corpus in order)
    dropped when n % 9 == 1, retyped (ARG1 ↔ ARGM) when n % 9 == 3, its second argument changed to
    the document's next T line when n % 9 == 5; entity m shortened by its last character when
    m % 6 == 2, it is longer than one character and overlaps no other entity of its document.
    Returns the folder and the map of each shortened span to the gold span it came from."""
    out = tmp_path / "perturbed"
    out.mkdir()
    n = m = 0
    came_from = {}
    for doc, (text, spans, relations) in read_lines(GOLD).items():
        lines = []
        ids = list(spans)
        for tid, (label, start, end) in spans.items():
            alone = not any(other != tid and s < end and start < e for other, (_, s, e) in spans.items())
            if m % 6 == 2 and end - start > 1 and alone:
                came_from[(doc, label, start, end - 1)] = (doc, label, start, end)
                end -= 1
            m += 1
            lines.append(f"{tid}\t{label} {start} {end}\t{text[start:end]}")
        for rid, kind, arg1, arg2 in relations:
            if n % 9 == 1:
                n += 1
                continue
            if n % 9 == 3:
                kind = {"ARG1": "ARGM", "ARGM": "ARG1"}[kind]
            if n % 9 == 5:
                arg2 = ids[(ids.index(arg2) + 1) % len(ids)]
            n += 1
            lines.append(f"{rid}\t{kind} Arg1:{arg1} Arg2:{arg2}")
        (out / f"{doc}.txt").write_text(text, encoding="utf-8")
        (out / f"{doc}.ann").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out, came_from


def relation_multiset(folder: Path, moved: dict | None = None) -> Counter:
    """Every relation of a folder as (type, arg1 span, arg2 span), a span being (document, label,
    start, end) — carried through ``moved`` (a shortened span → the gold span it came from)."""
    moved = moved or {}
    found = Counter()
    for doc, (_, spans, relations) in read_lines(folder).items():
        for _, kind, arg1, arg2 in relations:
            one, two = ((doc, *spans[arg1]), (doc, *spans[arg2]))
            found[(kind, moved.get(one, one), moved.get(two, two))] += 1
    return found


def expected_counts(first: Counter, second: Counter) -> dict[str, tuple[int, int, int]]:
    """a, b, c per type of two relation multisets: a = the multiset intersection."""
    counts: dict[str, list[int]] = {}
    for key in first.keys() | second.keys():
        shared = min(first[key], second[key])
        entry = counts.setdefault(key[0], [0, 0, 0])
        entry[0] += shared
        entry[1] += first[key] - shared
        entry[2] += second[key] - shared
    return {kind: tuple(entry) for kind, entry in sorted(counts.items())}


@pytest.fixture(scope="module")
def chemu_pair(tmp_path_factory):
    folder, came_from = perturbed(tmp_path_factory.mktemp("chemu"))
    gold = relation_multiset(GOLD)
    return folder, {"exact": (gold, relation_multiset(folder)),
                    "overlap": (gold, relation_multiset(folder, came_from))}, came_from


def by_type(figures: dict) -> dict[str, tuple[int, int, int]]:
    return {kind: (c["a"], c["b"], c["c"]) for kind, c in figures["by_type"].items()}


def test_the_perturbations_are_what_the_test_says(chemu_pair):
    folder, sets, came_from = chemu_pair
    gold, second = sets["exact"]
    assert sum(gold.values()) == 658 and sum(second.values()) == 658 - 73
    assert len(came_from) > 40
    exact, overlap = expected_counts(second, gold), expected_counts(*reversed(sets["overlap"]))
    assert sum(a for a, _, _ in exact.values()) < sum(a for a, _, _ in overlap.values()) < 658 - 73


@pytest.mark.parametrize("match", ["exact", "overlap"])
def test_chemu_counts_equal_the_set_computation_through_the_api(chemu_pair, match):
    folder, sets, _ = chemu_pair
    gold, second = sets[match]
    expected = expected_counts(second, gold)  # score: the prediction first
    scored = score(GOLD, folder, match=match, relations=True).extras["relations"]
    assert by_type(scored) == expected
    assert (scored["a"], scored["b"], scored["c"]) == tuple(map(sum, zip(*expected.values())))
    agreed = agree([GOLD, folder], match=match, relations=True).to_dict()
    swapped = {kind: (a, c, b) for kind, (a, b, c) in expected.items()}  # agree: the gold is the first
    assert by_type(agreed["pairs"][0]["relations"]) == by_type(agreed["relations"]) == swapped


@pytest.mark.parametrize("match", ["exact", "overlap"])
def test_chemu_counts_equal_the_set_computation_on_the_command_line(capsys, chemu_pair, match):
    folder, sets, _ = chemu_pair
    gold, second = sets[match]
    expected = expected_counts(second, gold)
    code, out, _ = run(capsys, "score", GOLD, folder, "--match", match, "--relations", "--output", "json")
    assert code == 0 and by_type(json.loads(out)["relations"]) == expected
    code, out, _ = run(capsys, "agree", folder, GOLD, "--match", match, "--relations", "--output", "json")
    assert code == 0 and by_type(json.loads(out)["pairs"][0]["relations"]) == expected
    code, out, _ = run(capsys, "score", GOLD, folder, "--match", match, "--relations")
    total = tuple(map(sum, zip(*expected.values())))
    assert re.search(rf"^all types +{total[0]} +{total[1]} +{total[2]} ", out, re.M)


def test_chemu_counts_are_the_same_under_jobs(capsys, chemu_pair, small_shards):
    folder, _, _ = chemu_pair
    for command in (["score", GOLD, folder], ["agree", GOLD, folder, GOLD]):
        same_under(capsys, [*command, "--relations", "--match", "overlap", "--output", "json"], calls=small_shards)


def test_chemu_counts_are_the_same_on_a_cluster(capsys, chemu_pair, scheduler):
    folder, _, _ = chemu_pair
    same_under(capsys, ["score", GOLD, folder, "--relations", "--output", "json"], ("--scheduler", scheduler))


# ---------------------------------------------------------------------------------------------
# brateval's recorded relation comparisons of the sample


def brateval_rows(name: str) -> dict[str, tuple[int, int, int]]:
    """brateval's ``type|arg1 type|arg2 type`` rows and ``all``: (tp, fp, fn)."""
    rows = {}
    for line in (CHEMU / "bratevals" / f"ee-gt-test-{name}.txt").read_text(encoding="utf-8").splitlines():
        found = re.match(r"^(.*)\|tp:(\d+)\|fp:(\d+)\|fn:(\d+)\|", line)
        if found:
            rows[found[1]] = (int(found[2]), int(found[3]), int(found[4]))
    return rows


@pytest.mark.parametrize("spans, match", [("exact", "exact"), ("overlap", "overlap"), ("approx0.8", "overlap")])
@pytest.mark.parametrize("types, labels", [("exact", "strict"), ("inexact", "ignore")])
def test_brateval_relation_comparisons_are_reproduced(spans, match, types, labels):
    """brateval compares the system folder (byte-identical to the gold: SOURCE.md) against the
    gold; its rows group relations by type and the types of their two arguments. Grouping the
    prediction's relations so from each relation's record gives its figures (its approximate
    match, 0.8 of the characters, agrees with overlap here: every argument is found)."""
    found = score(GOLD, GOLD, match=match, labels=labels, relations=True, errors=True)
    rows: dict[str, list[int]] = {}
    for item in found.relation_items():
        record = item.record
        relation = record.first or record.second
        row = rows.setdefault("|".join([relation.type, *(span.label for _, span in relation.arguments)]), [0, 0, 0])
        row[{"correct": 0, "spurious": 1}.get(record.kind, 2)] += 1
    rows["all"] = [sum(column) for column in zip(*rows.values())]
    assert {key: tuple(value) for key, value in rows.items()} == brateval_rows(f"{spans}-{types}")


# ---------------------------------------------------------------------------------------------
# Properties


SPANS = st.lists(st.tuples(st.integers(0, 30), st.integers(1, 6), st.sampled_from("XY")), min_size=1, max_size=8)


@st.composite
def documents(draw):
    spans = [Span("d", start, start + length, label) for start, length, label in draw(SPANS)]
    relation = st.tuples(st.sampled_from(["R", "S"]), st.sampled_from(spans), st.sampled_from(spans))
    found = draw(st.lists(relation, max_size=8))
    return spans, [Relation(kind, (("Arg1", one), ("Arg2", two))) for kind, one, two in found]


RULES = st.builds(MatchRule, st.sampled_from(["exact", "overlap", "partial"]), st.sampled_from(["strict", "ignore"]))


def counted(first, second, rule, symmetric=frozenset()) -> tuple:
    tally = RelationTally()
    tally.add("d", compared_relations(first[1], second[1], align(first[0], second[0], rule), rule, symmetric))
    counts = tally.counts()
    return counts.a, counts.b, counts.c


@settings(max_examples=150, deadline=None)
@given(documents(), RULES)
def test_a_relation_set_against_itself_has_f1_one(document, rule):
    spans, relations = document
    assert counted(document, document, rule) == (len(relations), 0, 0)


@settings(max_examples=150, deadline=None)
@given(documents(), documents(), RULES)
def test_swapping_the_sides_swaps_b_and_c(one, two, rule):
    a, b, c = counted(one, two, rule)
    assert counted(two, one, rule) == (a, c, b)
    assert a + b == len(one[1]) and a + c == len(two[1])


@settings(max_examples=150, deadline=None)
@given(documents(), documents(), RULES)
def test_symmetric_relations_match_in_either_argument_order(one, two, rule):
    flipped = (two[0], [Relation(r.type, r.arguments[::-1]) for r in two[1]])
    assert counted(one, flipped, rule, frozenset("RS")) == counted(one, two, rule, frozenset("RS"))
    assert counted(one, two, rule) [0] <= counted(one, two, rule, frozenset("RS"))[0]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(documents(), documents()), min_size=1, max_size=4), RULES)
def test_counts_add_over_documents(pairs, rule):
    total = RelationTally()
    for k, (one, two) in enumerate(pairs):
        shard = RelationTally()
        shard.add(str(k), compared_relations(one[1], two[1], align(one[0], two[0], rule), rule))
        total += shard
    counts = total.counts()
    assert (counts.a, counts.b, counts.c) == tuple(map(sum, zip(*(counted(one, two, rule) for one, two in pairs))))


# ---------------------------------------------------------------------------------------------
# The listings


def test_the_listings_hold_the_relations_after_the_spans(capsys, tmp_path):
    first, second = example()
    from spanagree.formats import write

    for spanset, name in ((first, "first"), (second, "second")):
        write(spanset, tmp_path / name, "brat")
    code, _, _ = run(capsys, "score", tmp_path / "second", tmp_path / "first", "--relations", "--errors",
                     tmp_path / "errors.csv")
    import csv

    rows = list(csv.DictReader((tmp_path / "errors.csv").open(encoding="utf-8")))
    assert code == 0 and list(rows[0])[-2:] == ["gold_relation", "pred_relation"]
    assert [(r["kind"], r["gold_relation"], r["pred_relation"]) for r in rows] == [  # in the canonical order
        ("missed", 'Sibling Arg1=PER 0-3 "Ana" Arg2=PER 8-10 "Bo"', ""),
        ("wrong_type", 'Visits Arg1=PER 0-3 "Ana" Arg2=LOC 14-19 "Porto"',
         'Lives Arg1=PER 0-3 "Ana" Arg2=LOC 14-19 "Porto"'),
        ("spurious", "", 'Sibling Arg1=PER 8-10 "Bo" Arg2=PER 0-3 "Ana"'),
        ("missed", 'Lives Arg1=PER 8-10 "Bo" Arg2=LOC 14-19 "Porto"', ""),
    ]
    assert (rows[3]["context_before"], rows[3]["context_after"], rows[3]["gold_label"]) == ("Ana met ", ".", "")
    code, _, _ = run(capsys, "agree", tmp_path / "first", tmp_path / "second", "--relations", "--errors",
                     tmp_path / "disagreements.json")
    listed = json.loads((tmp_path / "disagreements.json").read_text(encoding="utf-8"))["errors"]
    assert code == 0 and [(r["kind"], r["first_relation"] is None, r["second_relation"] is None) for r in listed] == [
        ("missed", True, False), ("wrong_type", False, False), ("spurious", False, True), ("missed", True, False)]
    assert list(listed[0])[-2:] == ["first_relation", "second_relation"]
    from jsonschema import validate
    from spanagree.report.schemas import schema

    validate({"errors": listed}, schema("disagreements"))
    code, out, _ = run(capsys, "score", tmp_path / "second", tmp_path / "first", "--relations", "--errors",
                       tmp_path / "errors.json", "--force", "--output", "json")
    validate(json.loads((tmp_path / "errors.json").read_text(encoding="utf-8")), schema("errors"))
    validate(json.loads(out), schema("score"))
    code, out, _ = run(capsys, "agree", tmp_path / "first", tmp_path / "second", tmp_path / "first", "--relations",
                       "--output", "json")
    validate(json.loads(out), schema("agree"))


def test_a_listing_of_relations_needs_relations_and_errors():
    from spanagree.errors import UsageError

    first, second = example()
    with pytest.raises(UsageError, match="relations=True and errors=True"):
        score(second, first, relations=True).relation_items()
    with pytest.raises(UsageError, match="relations=True and errors=True"):
        agree([first, second], errors=True).relation_errors()
    found = agree([first, second], relations=True, errors=True).relation_errors()
    assert [(a, b, item.kind) for a, b, item in found] == [
        ("first", "second", "missed"), ("first", "second", "wrong_type"), ("first", "second", "spurious"),
        ("first", "second", "missed")]


def test_bootstrap_and_compare_give_the_relations_figures_the_same_under_jobs(capsys, chemu_pair, small_shards):
    from jsonschema import validate
    from spanagree.report.schemas import schema

    folder, _, _ = chemu_pair
    _, out, _ = same_under(capsys, ["score", GOLD, folder, GOLD, "--relations", "--bootstrap", "200", "--seed", "3",
                                    "--compare", "--resamples", "200", "--output", "json"], calls=small_shards)
    found = json.loads(out)
    validate(found, schema("score"))
    perturbed_entry, identity = found["predictions"]
    low, high = perturbed_entry["relations"]["bootstrap"]["pairs"][0]["f1"]
    assert low < perturbed_entry["relations"]["f1"] < high and identity["relations"]["bootstrap"]["pairs"][0]["f1"] == [1, 1]
    (f1,) = [c for c in found["relation_comparisons"] if c["measure"] == "f1"]
    assert (f1["first"], f1["second"], f1["units"]) == ("gt", "perturbed", 50)
    assert f1["difference"] == pytest.approx(1 - perturbed_entry["relations"]["f1"])
    _, out, _ = same_under(capsys, ["agree", GOLD, folder, GOLD, "--relations", "--bootstrap", "100", "--seed", "3",
                                    "--compare", "--resamples", "100", "--output", "json"], calls=small_shards)
    found = json.loads(out)
    validate(found, schema("agree"))
    assert len(found["relations"]["comparisons"]) == 3 * 3 and found["relations"]["bootstrap"]["mean_f1"] is not None


def test_the_sample_configuration_declares_no_symmetric_type():
    from spanagree.formats.brat import symmetric_relation_types

    assert symmetric_relation_types(GOLD) == frozenset()
    assert agree([GOLD, GOLD], relations=True).options["symmetric_relations"] is None


def test_merge_and_the_report_say_they_leave_the_relations_out(capsys, tmp_path):
    from spanagree import vote

    voted = vote([GOLD, GOLD])
    assert ("merge votes on spans and leaves the annotators' attributes, relations and events out: 1316 relation(s) "
            "and event(s) (the merged gold holds the vote's own notes only)") in voted.notes  # each's: 2 × 658
    code, _, _ = run(capsys, "score", GOLD, GOLD, "--relations", "--report", tmp_path / "report.html")
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert code == 0 and page.count("the report leaves the relations out") >= 1
    from jsonschema import validate
    from spanagree.report.schemas import schema
    from test_report import blocks

    data, documents = blocks(tmp_path / "report.html")
    validate(data, schema("score"))
    validate(documents, schema("report"))
    assert data["relations"]["a"] == 658
    code, _, _ = run(capsys, "score", GOLD, GOLD, "--report", tmp_path / "plain.html")
    assert "the report leaves the relations out" not in (tmp_path / "plain.html").read_text(encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# The docs' worked example stays true


def test_the_worked_example_of_docs_measures_md(capsys, tmp_path):
    """measures.md's two .ann files, written as the page gives them, and its command print the
    page's table; concepts.md states the same counts."""
    root = Path(__file__).resolve().parent.parent / "docs"
    page = (root / "measures.md").read_text(encoding="utf-8")
    section = page[page.index("## Relations and events (`--relations`)"):page.index("## Adding a measure")]
    blocks = re.findall(r"```\n(.*?)```", section, re.S)
    for block in blocks[:2]:
        name, _, lines = block.partition("\n")
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(lines, encoding="utf-8")
        (tmp_path / name).with_suffix(".txt").write_text("Ana met Bo in Porto.", encoding="utf-8")
    assert "`Ana met Bo in Porto.`" in section
    code, out, _ = run(capsys, "agree", tmp_path / "first", tmp_path / "second", "--relations")
    shown = blocks[2]
    assert code == 0 and shown in out
    first, second = example()  # the same relations, in memory
    found = agree([first, second], relations=True, symmetric_relations="Sibling").to_dict()["relations"]
    assert "a = 2, b = 1, c = 2, F1 = 4/7 =\n0.5714" in section and (found["a"], found["b"], found["c"]) == (2, 1, 2)
    concepts = (root / "concepts.md").read_text(encoding="utf-8")
    assert "a = 1, b = 2, c = 3, F1 = 2/7 = 0.2857" in concepts and "a = 2, b = 1, c = 2, F1 = 4/7 = 0.5714" in concepts


def test_csv_rows_end_with_the_relations_figures(capsys, chemu_pair):
    import csv
    import io

    folder, sets, _ = chemu_pair
    expected = expected_counts(*reversed(sets["exact"]))
    total = tuple(map(sum, zip(*expected.values())))
    code, out, _ = run(capsys, "score", GOLD, folder, GOLD, "--relations", "--output", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and list(rows[0])[-7:] == ["rank", "relations_a", "relations_b", "relations_c",
                                               "relations_precision", "relations_recall", "relations_f1"]
    assert [(int(r["relations_a"]), int(r["relations_b"]), int(r["relations_c"])) for r in rows] == [total, (658, 0, 0)]
    code, out, _ = run(capsys, "agree", folder, GOLD, "--relations", "--output", "csv")
    (row,) = csv.DictReader(io.StringIO(out))
    assert (int(row["relations_a"]), int(row["relations_b"]), int(row["relations_c"])) == total
    code, plain, _ = run(capsys, "agree", folder, GOLD, "--output", "csv")
    assert "relations" not in plain


def brute_force_matches(first: list, second: list, alignment, rule, symmetric=frozenset()) -> int:
    """The most relations matched one to one, by augmenting paths over every candidate pair (a
    relation of the first side and one of the second with equal types whose arguments, role by
    role — either order for a symmetric type — are pairs of the span alignment with credit)."""
    key = rule.key

    def same_span(x, y):
        # spans equal on the rule's key were aligned once, as one of them: compare through the key
        return any(p.credit > 0 and key(p.first) == key(x) and key(p.second) == key(y) for p in alignment.pairs)

    def arguments_match(f, s):
        if len(f.arguments) != len(s.arguments):
            return False
        import itertools

        for order in itertools.permutations(range(len(s.arguments))):
            if all((f.type in symmetric or f.arguments[k][0] == s.arguments[order[k]][0])
                   and same_span(f.arguments[k][1], s.arguments[order[k]][1]) for k in range(len(f.arguments))):
                return True
        return False

    edges = {i: [j for j, s in enumerate(second) if f.type == s.type and arguments_match(f, s)]
             for i, f in enumerate(first)}
    owner: dict[int, int] = {}

    def augment(i, seen):
        for j in edges[i]:
            if j not in seen:
                seen.add(j)
                if j not in owner or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return sum(augment(i, set()) for i in range(len(first)))



@settings(max_examples=100, deadline=None)
@given(documents(), documents(), RULES, st.booleans())
def test_the_matching_is_the_maximum_one_to_one_matching(one, two, rule, symmetric):
    """Against a brute-force maximum bipartite matching over every candidate pair."""
    # both sides on one set of spans, some relations shared, so that matches happen
    two = (two[0] + one[0], two[1] + one[1][: len(one[1]) // 2])
    types = frozenset("RS") if symmetric else frozenset()
    alignment = align(one[0], two[0], rule)
    records = compared_relations(one[1], two[1], alignment, rule, types)
    assert sum(r.kind == "correct" for r in records) == brute_force_matches(one[1], two[1], alignment, rule, types)


def test_the_relations_listing_is_the_same_under_jobs(capsys, chemu_pair, small_shards, tmp_path):
    folder, _, _ = chemu_pair
    for jobs, name in (("1", "one.csv"), ("2", "two.csv")):
        code, _, _ = run(capsys, "score", GOLD, folder, "--relations", "--match", "overlap", "--errors",
                         tmp_path / name, "--jobs", jobs)
        assert code == 0
    assert small_shards, "the run with --jobs 2 did not fork"
    one = (tmp_path / "one.csv").read_text(encoding="utf-8")
    assert one == (tmp_path / "two.csv").read_text(encoding="utf-8")
    import csv
    import io

    relation_rows = [row for row in csv.DictReader(io.StringIO(one)) if row["gold_relation"] or row["pred_relation"]]
    scored = score(GOLD, folder, relations=True, match="overlap").extras["relations"]
    assert len(relation_rows) == scored["b"] + scored["c"] - sum(r["kind"] in ("wrong_type", "argument_boundary")
                                                                 for r in relation_rows)
    assert {row["kind"] for row in relation_rows} == {"wrong_type", "missed", "spurious"}
    exact = score(GOLD, folder, relations=True, errors=True).relation_items()
    assert {item.kind for item in exact} == {"correct", "argument_boundary", "wrong_type", "missed", "spurious"}


def test_symmetric_relations_go_with_relations(capsys):
    from spanagree.errors import UsageError

    first, second = example()
    with pytest.raises(UsageError, match=r"^symmetric_relations goes with relations=True$"):
        agree([first, second], symmetric_relations="Sibling")
    with pytest.raises(UsageError, match=r"^symmetric_relations goes with relations=True$"):
        score(first, second, symmetric_relations=["Sibling"])
    code, _, err = run(capsys, "score", GOLD, GOLD, "--symmetric-relations", "ARG1")
    assert code == 2 and err == "spanagree: error: --symmetric-relations goes with --relations\n"
