"""Token kappa as papers report it: ``chance_categories="tag"`` (each token's IOB tag: CoNLL's tag
column as written, IOB2 from the spans elsewhere) and ``"bio"`` (the tag's letter), per run and per
document (``by_document.<id>.chance``).

The reference is scikit-learn's ``cohen_kappa_score`` over tag sequences read straight from the
files' last column, apart from spanagree.
"""

from __future__ import annotations

import json

import pytest

from spanagree import Span, SpanagreeWarning, SpanSet, agree, score
from spanagree.measures.tokens import token_agreement
from conftest import run, same_under

CONLL = ["conll/ann1.conll", "conll/ann2.conll", "conll/ann3.conll"]


def column_tags(path) -> list[str]:
    """Every token's tag as written in the last column (``-DOCSTART-`` and blank lines left out)."""
    rows = (line.split() for line in open(path, encoding="utf-8"))
    return [row[-1] for row in rows if row and row[0] != "-DOCSTART-"]


def letters(tags: list[str]) -> list[str]:
    return [tag.split("-", 1)[0] for tag in tags]


def kappas(paths, categories: str) -> list[float]:
    """Each pair's kappa from scikit-learn over the tags (``"tag"``) or their letters (``"bio"``)."""
    from sklearn.metrics import cohen_kappa_score

    tags = [column_tags(path) for path in paths]
    if categories == "bio":
        tags = [letters(own) for own in tags]
    return [cohen_kappa_score(tags[i], tags[j]) for i in range(len(tags)) for j in range(i + 1, len(tags))]


# -- real CoNLL files: four annotations of the CoNLL-2003 test set ----------------------------------

@pytest.mark.parametrize("categories", ["tag", "bio"])
def test_equals_scikit_learn_on_conll2003_reannotations(shared_corpora, categories):
    """The original CoNLL-2003 test labels, ReCoNLL (10 sentences merged, one ``I-PER`` after ``O``
    as written) and CoNLL++: each pair's kappa is scikit-learn's over the tag columns, to the last
    digit, and the categories are the tags (or letters) the files hold."""
    folder = shared_corpora / "conll2003-test-reannotations"
    paths = [folder / name for name in ("conll2003_test.txt", "reconll_test.txt", "conllpp_test.txt")]
    result = agree([str(p) for p in paths], chance=True, chance_categories=categories, align_text=True)
    chance = result.extras["chance"]
    assert chance["tokens"] == 46435
    assert [pair["cohen_kappa"] for pair in chance["pairs"]] == pytest.approx(kappas(paths, categories), abs=1e-12)
    written = sorted(set(column_tags(paths[0])) | set(column_tags(paths[1])))
    assert chance["categories"] == (sorted(set(letters(written)) - {"O"}) + ["O"] if categories == "bio"
                                    else [t for t in written if t != "O"] + ["O"])
    assert result.options["chance_categories"] == categories


def test_tags_as_written_not_repaired(shared_corpora):
    """ReCoNLL's ``Yen I-PER`` after ``O`` counts as ``I-PER``, as written: IOB2 tags made from the
    spans (``B-PER`` there) would give another kappa."""
    from sklearn.metrics import cohen_kappa_score

    folder = shared_corpora / "conll2003-test-reannotations"
    original, recoded = column_tags(folder / "conll2003_test.txt"), column_tags(folder / "reconll_test.txt")
    repaired = [("B" + tag[1:] if tag.startswith("I-") and (k == 0 or recoded[k - 1][2:] != tag[2:]) else tag)
                for k, tag in enumerate(recoded)]
    assert repaired != recoded
    result = agree([str(folder / "conll2003_test.txt"), str(folder / "reconll_test.txt")], chance=True,
                   chance_categories="tag", align_text=True)
    kappa = result.extras["chance"]["pairs"][0]["cohen_kappa"]
    assert kappa == pytest.approx(cohen_kappa_score(original, recoded), abs=1e-12)
    assert kappa != pytest.approx(cohen_kappa_score(original, repaired), abs=1e-9)


# -- the demo's CoNLL files, the command line, documents -------------------------------------------

@pytest.mark.parametrize("categories", ["tag", "bio"])
def test_command_line_demo(capsys, demo, categories):
    paths = [demo / p for p in CONLL]
    code, out, _ = run(capsys, "agree", *paths, "--chance", "--chance-categories", categories, "--output", "json")
    assert code == 0
    document = json.loads(out)
    assert document["options"]["chance_categories"] == categories
    assert [p["cohen_kappa"] for p in document["chance"]["pairs"]] == pytest.approx(kappas(paths, categories),
                                                                                    abs=1e-12)


def test_default_is_label(capsys, demo):
    code, out, _ = run(capsys, "agree", *(demo / p for p in CONLL[:2]), "--chance", "--output", "json")
    document = json.loads(out)
    assert document["options"]["chance_categories"] == "label"
    assert not any("-" in category for category in document["chance"]["categories"])


def test_categories_go_with_chance(capsys, demo):
    code, _, err = run(capsys, "agree", *(demo / p for p in CONLL[:2]), "--chance-categories", "tag")
    assert code == 2 and "--chance-categories goes with --chance" in err


def test_unknown_categories_in_the_api(demo):
    from spanagree.errors import UsageError

    with pytest.raises(UsageError, match="chance_categories must be one of label, tag, bio, got 'iob'"):
        agree([str(demo / p) for p in CONLL[:2]], chance=True, chance_categories="iob")


def test_same_under_jobs(capsys, demo, small_shards):
    same_under(capsys, ["agree", *(demo / p for p in CONLL), "--chance", "--chance-categories", "tag",
                        "--by", "document", "--output", "json"], calls=small_shards)


def test_by_document(capsys, demo):
    """``--by document``: each document's token figures are those of its tokens alone."""
    import jsonschema
    from spanagree import read
    from spanagree.report.schemas import schema

    paths = [demo / p for p in CONLL[:2]]
    code, out, _ = run(capsys, "agree", *paths, "--chance", "--chance-categories", "tag", "--by", "document",
                       "--output", "json")
    document = json.loads(out)
    jsonschema.Draft202012Validator(schema("agree")).validate(document)
    spansets = [read(p, "conll") for p in paths]
    for doc_id, entry in document["by_document"].items():
        alone = token_agreement(spansets, [doc_id], tokens="conll", categories="tag")
        assert entry["chance"]["tokens"] == alone.tokens
        assert entry["chance"]["pairs"][0]["cohen_kappa"] == alone.to_dict()["pairs"][0]["cohen_kappa"]
    assert sum(e["chance"]["tokens"] for e in document["by_document"].values()) == document["chance"]["tokens"]


def test_score_by_document(capsys, demo):
    import jsonschema
    from spanagree.report.schemas import schema

    gold, pred = demo / CONLL[0], demo / CONLL[1]
    code, out, _ = run(capsys, "score", gold, pred, "--chance", "--chance-categories", "bio", "--by", "document",
                       "--output", "json")
    document = json.loads(out)
    jsonschema.Draft202012Validator(schema("score")).validate(document)
    assert document["chance"]["categories"] == ["B", "I", "O"]
    assert all(set(entry["chance"]["categories"]) <= {"B", "I", "O"} for entry in document["by_document"].values())
    assert document["chance"]["pairs"][0]["cohen_kappa"] == pytest.approx(kappas([pred, gold], "bio")[0], abs=1e-12)


# -- spans from other formats: IOB2 tags made from the spans on the tokens -------------------------

def test_iob2_from_spans():
    """``[University of [Lisbon]LOC]ORG said`` against ``[University of Lisbon]ORG said``: B-ORG
    I-ORG B-LOC O and B-ORG I-ORG I-ORG O."""
    from sklearn.metrics import cohen_kappa_score

    text = "University of Lisbon said . Ana met Bo"
    first = SpanSet.from_spans("a", [Span("d", (0, 20), "ORG"), Span("d", (14, 20), "LOC"),
                                     Span("d", (27, 30), "PER"), Span("d", (35, 38), "PER")], {"d": text})
    second = SpanSet.from_spans("b", [Span("d", (0, 20), "ORG"), Span("d", (27, 38), "PER")], {"d": text})
    tags = [["B-ORG", "I-ORG", "B-LOC", "O", "O", "B-PER", "O", "B-PER"],
            ["B-ORG", "I-ORG", "I-ORG", "O", "O", "B-PER", "I-PER", "I-PER"]]
    for categories, expected in (("tag", tags), ("bio", [letters(own) for own in tags])):
        with pytest.warns(SpanagreeWarning, match="a: 1 token"):
            result = token_agreement([first, second], tokens="conll", categories=categories)
        frame = result.token_frame()
        assert [frame[name].tolist() for name in ("a", "b")] == expected
        assert result.pairs[0].figures()["cohen_kappa"] == pytest.approx(cohen_kappa_score(*expected), abs=1e-12)


def test_conll_tags_as_written(tmp_path):
    """An IOB1 file (``I-PER`` begins a chunk, ``B-PER`` only after another PER) counts its tags as
    written; relabelled spans (``label_map``) have no written tags, so IOB2 from the spans."""
    from sklearn.metrics import cohen_kappa_score

    iob1 = tmp_path / "iob1.conll"
    iob1.write_text("-DOCSTART-\tO\n\nAna\tI-PER\nRuiz\tI-PER\nBo\tB-PER\nmet\tO\nEU\tI-ORG\n")
    iob2 = tmp_path / "iob2.conll"
    iob2.write_text("-DOCSTART-\tO\n\nAna\tB-PER\nRuiz\tI-PER\nBo\tB-PER\nmet\tO\nEU\tO\n")
    result = score(str(iob2), str(iob1), chance=True, chance_categories="tag")
    written = column_tags(iob1), column_tags(iob2)
    assert result.extras["chance"]["pairs"][0]["cohen_kappa"] == pytest.approx(cohen_kappa_score(*written))
    mapped = score(str(iob2), str(iob1), chance=True, chance_categories="tag", label_map={"ORG": "ORG"})
    assert mapped.extras["chance"]["categories"] == ["B-ORG", "B-PER", "I-PER", "O"]


def test_the_report_embeds_the_document_figures_too(demo, tmp_path, capsys):
    """The HTML report embeds the JSON output as ``--output json --by document`` gives it: each
    document's token figures included."""
    page = tmp_path / "agree.html"
    code, out, _ = run(capsys, "agree", *(demo / p for p in CONLL[:2]), "--chance", "--chance-categories", "tag",
                       "--by", "document", "--output", "json", "--report", page)
    assert code == 0
    shown = json.loads(out)
    assert all("chance" in entry for entry in shown["by_document"].values())
    text = page.read_text(encoding="utf-8")
    assert text.count('"chance":') >= len(shown["by_document"]) + 1
