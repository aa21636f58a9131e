"""Copies whose texts differ (``--align-text``) and where texts first differ (every texts-differ
error and warning)."""

from __future__ import annotations

import json
import re
import os
import shutil
import subprocess
import warnings
from pathlib import Path

import pytest

from spanagree import SpanagreeWarning, agree
from spanagree.cli import main
from spanagree.pipeline import parallel
from spanagree.report.schemas import schema
from spanagree.span import Document, Span, SpanSet
from spanagree.textalign import onto_text

REFERENCE = "Ana Ruiz met Bo Li in Porto.\nThen she left."
COPY = "Ana  Ruiz met Bo-Li in Oporto.\r\nThen she left ."


def test_spans_move_with_the_alignment_and_changed_ones_are_counted():
    document = Document("d", COPY, [Span("d", (0, 9), "PER"), Span("d", (14, 19), "PER"), Span("d", (23, 29), "LOC"),
                                    Span("d", (41, 45), "X")])
    mapped, differing, affected = onto_text(document, REFERENCE)
    assert [REFERENCE[s.start:s.end] for s in mapped.spans] == ["Ana Ruiz", "Bo Li", "Porto", "left"]
    # inserted or deleted: " " (Ana  Ruiz), "-"/" " (Bo-Li), "O"/"P" and "p" (Oporto), "\r", " " (left .)
    assert differing == 8
    # Bo-Li and Oporto touch changed characters that are not whitespace: (in the copy, label, on the reference)
    assert affected == [(((14, 19),), "PER", ((13, 18),)), (((23, 29),), "LOC", ((22, 27),))]


def write_brat(folder: Path, text: str, spans) -> None:
    folder.mkdir()
    (folder / "d1.txt").write_bytes(text.encode("utf-8"))
    (folder / "d1.ann").write_text("".join(f"T{k}\t{label} {s} {e}\t{text[s:e]}\n"
                                           for k, (s, e, label) in enumerate(spans, 1)), encoding="utf-8")


def test_texts_that_differ_on_the_command_line(tmp_path, capsys):
    import jsonschema

    write_brat(tmp_path / "a", REFERENCE, [(0, 8, "PER"), (13, 18, "PER"), (22, 27, "LOC")])
    write_brat(tmp_path / "b", COPY, [(0, 9, "PER"), (14, 19, "PER"), (23, 29, "LOC")])
    assert main(["agree", str(tmp_path / "a"), str(tmp_path / "b")]) == 1
    err = capsys.readouterr().err
    assert ("document 'd1' has a different text in b than in a (use --align-whitespace if only whitespace differs, "
            "--align-text otherwise): character 4 (line 1, column 5): a 'Ana Ruiz met Bo Li in Po…' vs "
            "b 'Ana  Ruiz met Bo-Li in O…'") in err
    assert main(["agree", str(tmp_path / "a"), str(tmp_path / "b"), "--align-text", "--output", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    jsonschema.Draft202012Validator(schema("agree")).validate(data)
    assert (data["pairs"][0]["a"], data["pairs"][0]["f1"]) == (3, 1.0)
    assert data["aligned_texts"] == {"documents": 1, "differing_characters": {"d1": 8}, "affected_spans": 2,
                                     "affected": [
                                         {"document": "d1", "annotator": "b", "fragments": [[14, 19]], "label": "PER",
                                          "mapped": [[13, 18]]},
                                         {"document": "d1", "annotator": "b", "fragments": [[23, 29]], "label": "LOC",
                                          "mapped": [[22, 27]]}]}
    assert data["options"]["align_text"] is True
    # --align-whitespace leaves it out, saying where the texts first differ
    assert main(["agree", str(tmp_path / "a"), str(tmp_path / "b"), "--align-whitespace"]) == 1
    assert "left out because their texts differ beyond whitespace: d1 (d1: character 4 (line 1, column 5)" in capsys.readouterr().err


def test_crlf_and_lf_copies(tmp_path, capsys):
    lf = "Ana met Bo.\nThen Rome.\nEnd."
    crlf = lf.replace("\n", "\r\n")
    write_brat(tmp_path / "lf", lf, [(0, 3, "PER"), (17, 21, "LOC"), (23, 26, "X")])
    write_brat(tmp_path / "crlf", crlf, [(0, 3, "PER"), (18, 22, "LOC"), (25, 28, "X")])
    for flag in ("--align-text", "--align-whitespace"):
        assert main(["agree", str(tmp_path / "lf"), str(tmp_path / "crlf"), flag, "--output", "json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert (data["pairs"][0]["a"], data["pairs"][0]["b"], data["pairs"][0]["c"]) == (3, 0, 0), flag


def test_align_text_holds_under_jobs():
    texts_a = {f"d{k}": f"Doc {k}: Ana Ruiz met Bo Li in Porto." for k in range(30)}
    texts_b = {d: t.replace("Porto", "Oporto").replace("met", "met  ") for d, t in texts_a.items()}
    a = SpanSet.from_spans("a", [Span(d, (t.index("Ana"), t.index("Ana") + 8), "PER") for d, t in texts_a.items()]
                           + [Span(d, (t.index("Porto"), t.index("Porto") + 5), "LOC") for d, t in texts_a.items()],
                           texts_a)
    b = SpanSet.from_spans("b", [Span(d, (t.index("Ana"), t.index("Ana") + 8), "PER") for d, t in texts_b.items()]
                           + [Span(d, (t.index("Oporto"), t.index("Oporto") + 6), "LOC") for d, t in texts_b.items()],
                           texts_b)
    one = agree([a, b], align_text=True).to_dict()
    jobs = parallel.Processes(2, min_spans_per_job=1)
    two = agree([a, b], align_text=True, jobs=jobs).to_dict()
    assert jobs.mapped == [8] and one == two
    assert one["pairs"][0]["a"] == 60 and one["aligned_texts"]["affected_spans"] == 30


# -- the CoNLL-2003 versions and ACL RD-TEC (../shared) ---------------------------------------------

def common_breaks(first: list[list], second: list[list]) -> list[list[int]]:
    """Sentences of the same tokens, broken only where both versions break (the coarser sentences)."""
    def ends(sentences):
        found, total = set(), 0
        for sentence in sentences:
            total += len(sentence)
            found.add(total)
        return found
    shared = sorted(ends(first) & ends(second))
    return shared


def conll_documents(path: Path) -> list[list[list[tuple[str, str]]]]:
    """Documents → sentences → (token, tag), the last column (plain Python, not spanagree's reader)."""
    documents, sentence = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if not parts:
            if sentence:
                documents[-1].append(sentence)
            sentence = []
        elif parts[0] == "-DOCSTART-":
            documents.append([])
        else:
            sentence.append((parts[0], parts[-1]))
    if sentence:
        documents[-1].append(sentence)
    return documents


def write_on_breaks(path: Path, documents, breaks_per_document) -> None:
    lines = []
    for sentences, breaks in zip(documents, breaks_per_document):
        lines += ["-DOCSTART- O", ""]
        tokens = [token for sentence in sentences for token in sentence]
        start = 0
        for end in breaks:
            lines += [f"{t} {tag}" for t, tag in tokens[start:end]] + [""]
            start = end
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_conll2003_and_reconll_compared_directly_equal_the_common_sentences(shared_corpora, tmp_path, capsys):
    folder = shared_corpora / "conll2003-test-reannotations"
    original, reconll = folder / "conll2003_test.txt", folder / "reconll_test.txt"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["agree", str(original), str(reconll), "--align-text", "--output", "json"]) == 0
    direct = json.loads(capsys.readouterr().out)
    assert direct["documents"] == 231
    # by hand: both versions re-expressed on the sentences where both break (same tokens), compared plainly
    first, second = conll_documents(original), conll_documents(reconll)
    assert [sum(map(len, d)) for d in first] == [sum(map(len, d)) for d in second]   # the same tokens
    breaks = [common_breaks(a, b) for a, b in zip(first, second)]
    write_on_breaks(tmp_path / "original.conll", first, breaks)
    write_on_breaks(tmp_path / "reconll.conll", second, breaks)
    assert main(["agree", str(tmp_path / "original.conll"), str(tmp_path / "reconll.conll"), "--output", "json"]) == 0
    by_hand = json.loads(capsys.readouterr().out)
    pair = lambda d: (d["pairs"][0]["a"], d["pairs"][0]["b"], d["pairs"][0]["c"])  # noqa: E731
    assert pair(direct) == pair(by_hand) == (5592, 56, 59)   # SOURCE.md: a = 5592, F1 98.98


def test_cleanconll_retokenised_compared_directly(shared_corpora, tmp_path, capsys):
    """CleanCoNLL after its own token patch (SOURCE.md's recipe, in a temporary folder) against the
    original: all 231 documents, and SOURCE.md's alignment-free figure (a = 5111, F1 89.88)."""
    if shutil.which("patch") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true but the patch command is not installed (apt-get install patch)")
        pytest.skip("the patch command is not installed (apt-get install patch)")
    folder = shared_corpora / "conll2003-test-reannotations"
    original = folder / "conll2003_test.txt"
    tokens = tmp_path / "tokens"
    tokens.write_text("".join((line.split()[0] if line.split() else "") + "\n"
                              for line in original.read_text(encoding="utf-8").splitlines()), encoding="utf-8")
    subprocess.run(["patch", "-s", str(tokens), str(folder / "cleanconll_test_tokens.patch"), "-o",
                    str(tmp_path / "patched")], check=True)
    annotations = (folder / "cleanconll_annotations.test").read_text(encoding="utf-8").splitlines()
    patched = (tmp_path / "patched").read_text(encoding="utf-8").splitlines()
    assert len(patched) == len(annotations)
    lines = []
    for token, columns in zip(patched, annotations):
        fields = columns.split("\t")
        lines.append("" if not token and not columns.strip() else f"{token}\t{fields[-1]}")
    clean = tmp_path / "cleanconll.conll"
    clean.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["agree", str(original), str(clean), "--align-text", "--output", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["documents"] == 231 and data["aligned_texts"]["documents"] > 0
    assert data["pairs"][0]["a"] == 5111 and round(data["pairs"][0]["f1"], 4) == 0.8988


def test_acl_rd_tec_all_171_documents_with_align_text(shared_corpora, capsys):
    folder = shared_corpora / "acl-rd-tec-2.0" / "double_annotated"
    argv = ["agree", str(folder / "annotator1"), str(folder / "annotator2"), "--xml-label-attr", "class", "--output",
            "json"]
    assert main(argv + ["--align-whitespace"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["documents"] == 166 and "5 document(s) left out because their texts differ beyond whitespace" in captured.err
    assert main(argv + ["--align-text"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["documents"] == 171 and data["left_out"] == {}
    assert data["aligned_texts"]["documents"] == 123
    assert sum(data["aligned_texts"]["differing_characters"].values()) == 2838


def test_a_conll_prediction_scored_against_the_brat_gold_of_the_same_text(demo, tmp_path, capsys):
    """A system that writes CoNLL tokens (here ann2 tokenised by spaCy: convert --tokenize) scored
    against ann1's BRAT gold: its documents pair with the gold's by the names its -DOCSTART- lines
    carry (in order, with a warning, once those lines name nothing), its tokens are found in the
    raw text, and the figures are those of ann2's BRAT files."""
    prediction = tmp_path / "ann2.conll"
    assert main(["convert", str(demo / "brat" / "ann2"), "--to", "conll", "--tokenize", "--out", str(prediction)]) == 0
    assert prediction.read_text(encoding="utf-8").startswith("-DOCSTART-\tclinic-01\n")
    capsys.readouterr()
    assert main(["score", str(demo / "brat" / "ann1"), str(prediction), "--align-text", "--output", "json"]) == 0
    captured = capsys.readouterr()
    scored = json.loads(captured.out)
    assert "paired with the gold's" not in captured.err
    unnamed = tmp_path / "unnamed.conll"
    unnamed.write_text(re.sub(r"(?m)^-DOCSTART-\t.*$", "-DOCSTART-\tO", prediction.read_text(encoding="utf-8")),
                       encoding="utf-8")
    assert main(["score", str(demo / "brat" / "ann1"), str(unnamed), "--align-text", "--output", "json"]) == 0
    captured = capsys.readouterr()
    assert ("its -DOCSTART- lines name none of the gold's documents; its 10 document(s) are paired with the gold's "
            "10 in order") in captured.err
    assert [json.loads(captured.out)[k] for k in ("a", "b", "c")] == [scored[k] for k in ("a", "b", "c")]
    assert main(["score", str(demo / "brat" / "ann1"), str(demo / "brat" / "ann2"), "--output", "json"]) == 0
    direct = json.loads(capsys.readouterr().out)
    assert [scored[k] for k in ("a", "b", "c")] == [direct[k] for k in ("a", "b", "c")] == [61, 12, 16]
    assert scored["aligned_texts"]["documents"] == 6   # CoNLL's text is its tokens: 6 of the 10 texts differ (spacing)


def test_brat_offsets_counted_on_lf_while_the_text_has_crlf(tmp_path, capsys, monkeypatch):
    """Recognised from the text columns (the warning says so and names the flag); remapped on request,
    also when the folders are read in shards (--jobs)."""
    lf_text = "Ana met Bo.\nThen Rome.\nEnd."
    annotations = "T1\tPER 0 3\tAna\nT2\tLOC 17 21\tRome\nT3\tX 23 26\tEnd\n"
    for name, text in (("lf", lf_text), ("crlf", lf_text.replace("\n", "\r\n"))):
        (tmp_path / name).mkdir()
        (tmp_path / name / "d1.txt").write_bytes(text.encode("utf-8"))
        (tmp_path / name / "d1.ann").write_text(annotations, encoding="utf-8")
    folders = [str(tmp_path / "lf"), str(tmp_path / "crlf")]
    assert main(["agree", *folders, "--align-whitespace", "--output", "json"]) == 0
    captured = capsys.readouterr()
    assert ("crlf/d1.ann:2: T2's text column 'Rome' differs from the text ' Rom' (1 more line like it in this "
            "file); the offsets match the text with LF line ends while the .txt has CRLF") in captured.err
    assert "--brat-line-ends lf maps them onto the text as stored" in captured.err
    assert json.loads(captured.out)["pairs"][0]["a"] == 1          # only "Ana", before the first line end
    for jobs in ("1", "2"):
        assert main(["agree", *folders, "--align-whitespace", "--brat-line-ends", "lf", "--jobs", jobs,
                     "--output", "json"]) == 0
        captured = capsys.readouterr()
        data = json.loads(captured.out)
        assert (data["pairs"][0]["a"], data["pairs"][0]["b"], data["pairs"][0]["c"]) == (3, 0, 0)
        assert "differs from the text" not in captured.err
        assert data["options"]["brat_line_ends"] == "lf"
        assert "crlf: 1 document with CRLF line ends: offsets counted on LF line ends mapped onto the text as " \
               "stored (--brat-line-ends lf)" in data["notes"]


def test_chance_under_align_text_uses_the_first_copys_tokens(demo):
    from spanagree import read

    conll = read(demo / "conll" / "ann1.conll")
    brat = read(demo / "brat" / "ann2")
    # the BRAT copy's sentences on one line (same length: the spans keep their offsets), ids as CoNLL's
    renamed = SpanSet("ann2", {doc_id: Document(doc_id, d.text.replace("\n", " "),
                                                [Span(doc_id, s.fragments, s.label) for s in d.spans])
                               for doc_id, d in zip(conll.documents, brat.documents.values())})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        result = agree([conll, renamed], align_text=True, chance=True)
        plain = agree([conll, read(demo / "conll" / "ann2.conll")], chance=True)
    chance = result.extras["chance"]
    assert chance["tokenizer"] == "conll"                       # the CoNLL copy's tokens, not spaCy's
    assert chance["tokens"] == plain.extras["chance"]["tokens"]  # the same tokens as two CoNLL copies
    assert result.extras["aligned_texts"]["documents"] > 0


def test_a_conll_prediction_whose_docstart_lines_name_the_documents_pairs_by_id(demo, tmp_path, capsys):
    """The same prediction with its documents in reverse order and their ids on the -DOCSTART-
    lines: paired by id (no warning), the same figures; paired in order they would be wrong."""
    prediction = tmp_path / "ann2.conll"
    assert main(["convert", str(demo / "brat" / "ann2"), "--to", "conll", "--tokenize", "--out", str(prediction)]) == 0
    blocks = prediction.read_text(encoding="utf-8").split("-DOCSTART-")[1:]
    ids = sorted(p.stem for p in (demo / "brat" / "ann1").glob("*.ann"))
    named = "".join(f"-DOCSTART- {doc_id}\n" + block.split("\n", 1)[1] for doc_id, block in reversed(list(zip(ids, blocks))))
    shuffled = tmp_path / "named.conll"
    shuffled.write_text(named, encoding="utf-8")
    capsys.readouterr()
    assert main(["score", str(demo / "brat" / "ann1"), str(shuffled), "--align-text", "--output", "json"]) == 0
    captured = capsys.readouterr()
    assert "paired with the gold's" not in captured.err
    scored = json.loads(captured.out)
    assert [scored[k] for k in ("a", "b", "c")] == [61, 12, 16]


def test_the_listings_flag_the_spans_that_touch_changed_characters(tmp_path, capsys):
    write_brat(tmp_path / "a", REFERENCE, [(0, 8, "PER"), (13, 18, "PER"), (22, 27, "ORG")])
    write_brat(tmp_path / "b", COPY, [(0, 9, "PER"), (14, 19, "PER"), (23, 29, "LOC")])
    listing = tmp_path / "errors.json"
    assert main(["score", str(tmp_path / "a"), str(tmp_path / "b"), "--align-text", "--errors", str(listing),
                 "--output", "json"]) == 0
    capsys.readouterr()
    rows = json.loads(listing.read_text(encoding="utf-8"))["errors"]
    # Porto (ORG) against Oporto (LOC, changed characters): a wrong label, flagged
    assert [(r["kind"], r["gold_fragments"], r["pred_fragments"], r["text_changed"]) for r in rows] == \
        [("wrong_label", "22-27", "22-27", True)]
    pair_listing = tmp_path / "pairs.csv"
    assert main(["agree", str(tmp_path / "a"), str(tmp_path / "b"), "--align-text", "--errors", str(pair_listing)]) == 0
    capsys.readouterr()
    import csv

    table = list(csv.reader(pair_listing.open(encoding="utf-8", newline="")))
    assert table[0][-3:] == ["context_before", "context_after", "text_changed"]
    assert [row[-1] for row in table[1:]] == ["True"]
