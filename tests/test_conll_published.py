"""The CoNLL family as published: header rows, CoNLL-U, comments that name documents,
``-DOCSTART- X``, CoNLL-2012 brackets, several tag columns, and runs cut along the gold's documents.

Real samples (tests/data/*/SOURCE.md): HIPE-2022 excerpts (gold, a run submitted flat, a run with
its comment lines), Universal NER's English-EWT, a CoNLL-2012 skeleton."""

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spanagree.cli import main
from spanagree.errors import FormatError, UsageError
from spanagree.formats import detect_format, read, write
from spanagree.formats.conll import read_conll

DATA = Path(__file__).parent / "data"
HIPE = DATA / "hipe2022"
GOLD = HIPE / "HIPE-2022-v2.1-hipe2020-test-en.excerpt.tsv"
FLAT = HIPE / "team2_bundle1_hipe2020_en_1.excerpt.tsv"
COMMENTED = HIPE / "neurbsl_bundle3_hipe2020_en_1.excerpt.tsv"
UNER = DATA / "uner" / "en_ewt-ud-test.excerpt.iob2"
ONTONOTES = DATA / "conll2012" / "cnr_0001.v4_gold_skel.sample.conll"
HIPE_IDS = ["sn83026170-1820-06-07-a-i0002", "sn88068010-1890-11-06-a-i0002"]


def write_file(folder, content: str, name: str = "f.conll") -> Path:
    path = folder / name
    path.write_text(content, encoding="utf-8")
    return path


def score_json(capsys, *argv) -> tuple[dict, str]:
    assert main(["score", *map(str, argv), "--output", "json"]) == 0
    captured = capsys.readouterr()
    return json.loads(captured.out), captured.err


# ---------------------------------------------------------------- HIPE-2022

def test_hipe_gold_reads_by_column_name_and_number():
    spans = read_conll(GOLD, conll_column="NE-COARSE-LIT")
    assert list(spans.documents) == HIPE_IDS
    assert len(spans) == 5  # the B- tags of the excerpt's NE-COARSE-LIT column (the official TP + FN)
    first = spans.documents[HIPE_IDS[0]]
    assert first.text.startswith("IRELAXD . The Cork")  # the header and the comment lines are no tokens
    assert read_conll(GOLD, conll_column=2) == spans
    assert read_conll(GOLD, conll_column=[2]) == spans


def test_hipe_named_columns_ask_for_the_tag_column(capsys):
    with pytest.raises(FormatError, match=r"its columns are named \(TOKEN, NE-COARSE-LIT, NE-COARSE-METO, .*MISC\) "
                                          r"and 2 look like tags \(NE-COARSE-LIT, NE-COARSE-METO\): name the tag "
                                          r"column\(s\) with conll_column"):
        read_conll(GOLD)
    with pytest.raises(FormatError, match=r"no column named 'NE-COARSE'; its columns are TOKEN, NE-COARSE-LIT"):
        read_conll(GOLD, conll_column="NE-COARSE")
    assert main(["score", str(GOLD), str(COMMENTED)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "name the tag column(s) with --conll-column" in err


@pytest.mark.parametrize("run, counts, note", [
    # the HIPE scorer's strict micro TP/FP/FN on the same excerpts (SOURCE.md)
    (FLAT, [4, 1, 1], "its 1 document(s) were cut along the gold's 2 by token position (the 160 tokens line up "
                      "one for one)"),
    (COMMENTED, [3, 2, 2], None),
])
def test_hipe_runs_as_submitted_give_the_official_strict_counts(capsys, run, counts, note):
    result, err = score_json(capsys, GOLD, run, "--conll-column", "NE-COARSE-LIT")
    assert [result[k] for k in "abc"] == counts
    assert result["options"]["conll_column"] == "NE-COARSE-LIT"
    assert result["documents"] == 2
    assert result["notes"] == ([f"{run.stem}: {note}"] if note else [])


def test_tokens_written_otherwise_are_counted_and_shown(tmp_path, capsys):
    lines = FLAT.read_text(encoding="utf-8").split("\n")
    quotes = [k for k, line in enumerate(lines) if line.split("\t")[0] == "."][:3]
    for k in quotes:
        lines[k] = "\u2024" + lines[k][1:]  # ONE DOT LEADER for the full stop
    run = write_file(tmp_path, "\n".join(lines), "run.tsv")
    result, _ = score_json(capsys, GOLD, run, "--conll-column", "NE-COARSE-LIT")
    assert [result[k] for k in "abc"] == [4, 1, 1]
    assert result["notes"] == ["run: its 1 document(s) were cut along the gold's 2 by token position (the 160 "
                               "tokens line up one for one); 3 token(s) written otherwise, taken as the gold's: "
                               "'\u2024' for '.' (3×)"]


def test_another_token_count_names_the_first_difference(tmp_path, capsys):
    lines = FLAT.read_text(encoding="utf-8").split("\n")
    del lines[40]  # the 40th token row
    run = write_file(tmp_path, "\n".join(lines), "run.tsv")
    assert main(["score", str(GOLD), str(run), "--conll-column", "NE-COARSE-LIT"]) == 1
    err = capsys.readouterr().err
    gold_line = GOLD.read_text(encoding="utf-8").split("\n")
    token_rows = [n for n, line in enumerate(gold_line, 1) if line and not line.startswith("#")][1:]
    assert err == (f"spanagree: error: {run}: its 159 tokens do not line up with the gold's 160: first "
                   f"difference in gold document '{HIPE_IDS[0]}': gold line {token_rows[39]} "
                   f"{gold_line[token_rows[39] - 1].split(chr(9))[0]!r}, run line 41 {lines[40].split(chr(9))[0]!r} "
                   "(texts that differ are compared with --align-text)\n")


def test_the_first_difference_passes_over_tokens_written_otherwise(tmp_path, capsys):
    """A token written otherwise before the row the run lacks: the error names where the two stop
    lining up (the row), not the token written otherwise (HIPE's team5 runs write four double
    quotes for one and lack the gold's rows whose token holds a '#')."""
    lines = FLAT.read_text(encoding="utf-8").split("\n")
    row = lines[10].split("\t")
    lines[10] = "\t".join([row[0] + "x", *row[1:]])  # the 10th token row, written otherwise
    del lines[40]
    run = write_file(tmp_path, "\n".join(lines), "run.tsv")
    assert main(["score", str(GOLD), str(run), "--conll-column", "NE-COARSE-LIT"]) == 1
    err = capsys.readouterr().err
    gold_line = GOLD.read_text(encoding="utf-8").split("\n")
    token_rows = [n for n, line in enumerate(gold_line, 1) if line and not line.startswith("#")][1:]
    assert f"gold line {token_rows[39]} {gold_line[token_rows[39] - 1].split(chr(9))[0]!r}, run line 41" in err
    assert repr(row[0] + "x") not in err


def test_tokens_written_otherwise_are_kept_where_they_are(capsys):
    """A cut document keeps where its file wrote a token otherwise (gold offsets, the run's token):
    what ``--pairing hipe`` compares an entity's text with."""
    from spanagree.formats.resegment import resegmented
    from spanagree.formats.stream import collect

    gold, run = HIPE / "HIPE-2022-v2.1-hipe2020-test-fr.excerpt.tsv", HIPE / "team2_bundle1_hipe2020_fr_1.excerpt.tsv"
    (stream,) = resegmented(str(gold), [str(run)], "conll", {"conll_column": "NE-COARSE-LIT"})
    documents = list(collect(stream).documents.values())
    assert [d.written_otherwise for d in documents] == [((64, 65, "O"),), ((21, 22, "O"),)]
    first = documents[0]
    assert [first.text[s:e] for s, e, _ in first.written_otherwise] == ["_"]
    (entity,) = [span for span in first.spans if span.start < 64 < span.end]
    assert first.written_text(entity) == "sieur Daniel Meuron , maïUe charpentier , O bourgeois de Neuchatel"


def test_rows_whose_token_holds_a_hash_left_out_on_request():
    """``conll_drop_hash_rows`` (``score --pairing hipe``): the HIPE scorer's reading, before the
    tags are decoded; the row ``Lu###schaun B-LOC`` gone, ``in Steiermark`` (I-LOC I-LOC) is an entity."""
    path = HIPE / "HIPE-2022-v2.1-newseye-test-de.excerpt.tsv"
    kept = read_conll(path, conll_column="NE-COARSE-LIT")
    dropped = read_conll(path, conll_column="NE-COARSE-LIT", conll_drop_hash_rows=True)
    entities = [[d.text[s.start:s.end] for s in d.spans] for d in (*kept.documents.values(), *dropped.documents.values())]
    assert entities == [["Schloß Wolfpassing", "Langenwang", "Lu###schaun in Steiermark"],
                        ["Schloß Wolfpassing", "Langenwang", "in Steiermark"]]
    assert kept.notes == [] and dropped.notes == [f"{path}: 1 row(s) whose token holds a '#' left out, as the "
                                                  "HIPE scorer reads its files (--pairing hipe)"]


def test_a_header_with_one_tag_like_column_needs_no_name(tmp_path):
    path = write_file(tmp_path, "TOKEN\tNE\tMISC\nAna\tB-PER\t_\nRuiz\tI-PER\tNoSpaceAfter\n.\t_\t_\n\n\t\t\n"
                                "Bo\tB-PER\t\n", "a.tsv")
    spans = read_conll(path)
    assert spans.texts() == {"1": "Ana Ruiz .\nBo"}  # a line of tabs is blank; '_' and empty cells no tag
    assert [(s.start, s.end, s.label) for s in spans] == [(0, 8, "PER"), (11, 13, "PER")]
    assert detect_format(path) == "conll"


def test_a_tagged_hash_row_under_a_header_is_left_out_without_breaking_the_entity(tmp_path):
    # as the HIPE scorer reads its gold: every row whose first cell begins with '#' is a comment
    path = write_file(tmp_path, "TOKEN\tNE\nNew\tB-LOC\n#\tI-LOC\nYork\tI-LOC\n", "a.tsv")
    spans = read_conll(path)
    assert spans.texts() == {"1": "New York"} and [(s.start, s.end, s.label) for s in spans] == [(0, 8, "LOC")]


def test_hash_token_lines_stay_tokens_without_a_header(tmp_path):
    path = write_file(tmp_path, "# sent_id = 1\n#\tO\n#hashtag\tB-X\n# text = x\n= \tO\n")
    spans = read_conll(path)
    assert spans.texts() == {"1": "# #hashtag ="} and [(s.start, s.end) for s in spans] == [(2, 10)]


def test_wnut17_hash_tokens_are_tokens(shared_corpora):
    path = shared_corpora / "wnut17" / "emerging.test.annotated"
    hash_rows = sum(1 for line in path.read_text(encoding="utf-8").split("\n") if line.startswith("#\t"))
    assert hash_rows == 247
    spans = read_conll(path)
    tokens = [token for document in spans.documents.values() for line in document.text.split("\n")
              for token in line.split(" ")]
    assert tokens.count("#") == 247


# ---------------------------------------------------------------- documents and their names

@pytest.mark.parametrize("line, ids", [
    ("-DOCSTART- clinic-01", ["clinic-01", "2"]),
    ("-DOCSTART-\tclinic-01", ["clinic-01", "2"]),
    ("-DOCSTART-\tO", ["1", "2"]),
    ("-DOCSTART- -X- -X- O", ["1", "2"]),
    ("-DOCSTART- B-PER", ["1", "2"]),
    ("-DOCSTART- a b", ["1", "2"]),
    ("# newdoc id = n01", ["n01", "2"]),
    ("# document_id = n01", ["n01", "2"]),
    ("# hipe2022:document_id = n01", ["n01", "2"]),
])
def test_lines_that_begin_and_name_documents(tmp_path, line, ids):
    spans = read_conll(write_file(tmp_path, f"{line}\nAna B-PER\n\n-DOCSTART- O\nBo B-PER\n"))
    assert list(spans.documents) == ids
    assert [s.doc for s in spans] == ids


def test_a_document_id_comment_without_a_value_is_only_a_comment(tmp_path):
    spans = read_conll(write_file(tmp_path, "# hipe2022:document_id = \nAna B-PER\n"))
    assert list(spans.documents) == ["1"]


@pytest.mark.parametrize("ids", [["d1", "d2"], ["bn/cnr_0001; part 000", "x y"], ["1", "2"]])
def test_the_writer_writes_the_names_it_has(tmp_path, ids):
    from spanagree.span import Span, SpanSet

    spans = SpanSet.from_spans("w", [Span(ids[0], ((0, 3),), "PER"), Span(ids[1], ((3, 7),), "LOC")],
                               {ids[0]: "Ana met\nBo", ids[1]: "in Rome"})
    path = tmp_path / "out.conll"
    write(spans, path, "conll")
    assert read_conll(path, name="w") == spans


# ---------------------------------------------------------------- CoNLL-U, CoNLL-2012

def test_universal_ner_reads_form_and_documents():
    spans = read_conll(UNER, conll_column=3)
    assert list(spans.documents) == ["answers-20080426140040AA4YiX5_ans", "answers-20081218053636AA9vV0u_ans",
                                     "answers-20090203211448AAoG2yX_ans"]
    first = spans.documents["answers-20080426140040AA4YiX5_ans"]
    assert first.text == "What is this Miramar ?\nIt is a place in Argentina lol"
    assert [(spans.documents[s.doc].text[s.start:s.end], s.label, s.source.line) for s in spans] == [
        ("Miramar", "LOC", 7), ("Argentina", "LOC", 17), ("Argentina", "LOC", 38), ("Argentina", "LOC", 67)]
    with pytest.raises(FormatError, match=r"en_ewt-ud-test.excerpt.iob2:4: bad tag '-'"):
        read_conll(UNER)  # the last column is the annotator's
    with pytest.raises(FormatError, match=r"its columns have no names .*: give conll_column=.NER. as one number"):
        read_conll(UNER, conll_column="NER")


def test_conllu_plus_names_columns_skips_multiword_and_empty_nodes_and_reads_two_tag_columns(tmp_path):
    path = write_file(tmp_path, (
        "# global.columns = ID FORM MISC NE NE-NESTED\n"
        "# newdoc id = d1\n# sent_id = 1\n# text = Ana's Bank of Rome\n"
        "1-2\tAna's\t_\t_\t_\n1\tAna\t_\tB-ORG\tB-PER\n2\t's\t_\tI-ORG\t_\n3\tBank\t_\tI-ORG\t_\n"
        "3.1\tof\t_\t_\t_\n4\tof\t_\tI-ORG\t_\n5\tRome\tSpaceAfter=No\tI-ORG\tB-LOC\n\n"), "a.conllu")
    spans = read_conll(path, conll_column="NE,NE-NESTED")
    assert spans.texts() == {"d1": "Ana 's Bank of Rome"}
    assert [(s.start, s.end, s.label) for s in spans] == [(0, 3, "PER"), (0, 19, "ORG"), (15, 19, "LOC")]
    with pytest.raises(FormatError, match=r"2 look like tags \(NE, NE-NESTED\)"):
        read_conll(path)
    assert [(s.label) for s in read_conll(path, conll_column="NE")] == ["ORG"]
    assert detect_format(path) == "conll"


def test_a_conllu_file_is_detected_and_read_by_form(tmp_path):
    path = write_file(tmp_path, "# newdoc id = d1\n1\tAna\tana\tPROPN\t_\t_\t0\troot\t_\tB-PER\n",
                      "a.conllu")
    spans = read(path)
    assert spans.texts() == {"d1": "Ana"} and [s.label for s in spans] == ["PER"]


def test_ontonotes_brackets_read_as_spans():
    spans = read_conll(ONTONOTES)
    assert list(spans.documents) == ["bn/cnr/00/cnr_0001; part 000"]
    labels = {}
    for span in spans:
        labels[span.label] = labels.get(span.label, 0) + 1
    # the '(LABEL' brackets of column 11, counted in the file
    assert labels == {"GPE": 9, "PERSON": 8, "ORG": 4, "DATE": 4, "NORP": 3, "CARDINAL": 2}
    first = [(s.start, s.end, s.label, s.source.line) for s in spans][:3]
    assert first == [(0, 6, "ORG", 2), (21, 34, "ORG", 5), (42, 48, "PERSON", 8)]  # (ORG) on one token; (ORG* .. *)


def test_ontonotes_round_trip(tmp_path):
    spans = read_conll(ONTONOTES, name="x")
    path = tmp_path / "back.conll"
    write(spans, path, "conll")
    assert path.read_text(encoding="utf-8").startswith("# newdoc id = bn/cnr/00/cnr_0001; part 000\n\n")
    assert read_conll(path, name="x") == spans


def test_hipe_and_uner_round_trip(tmp_path):
    for original in (read_conll(GOLD, conll_column="NE-COARSE-LIT", name="x"), read_conll(UNER, conll_column=3, name="x")):
        path = tmp_path / "back.conll"
        write(original, path, "conll")
        assert read_conll(path, name="x") == original


def test_bracket_errors_name_the_line(tmp_path):
    path = write_file(tmp_path, "#begin document (d); part 000\n"
                                + "".join(f"d 0 {k} w{k} NN * - - - - {tag}\n" for k, tag in
                                          enumerate(["(PERSON*", "*", "*"])) + "\n#end document\n")
    with pytest.raises(FormatError, match=r"f.conll:2: bracket 'PERSON' opened here is never closed"):
        read_conll(path)


# ---------------------------------------------------------------- options and messages

def test_conll_column_echoes_a_name_a_number_or_a_list(capsys):
    from jsonschema import Draft202012Validator

    from spanagree.report.schemas import schema

    validator = Draft202012Validator(schema("score"))
    for given, echoed in (("NE-COARSE-LIT", "NE-COARSE-LIT"), ("2", 2), ("NE-COARSE-LIT,NE-NESTED",
                                                                         ["NE-COARSE-LIT", "NE-NESTED"])):
        result, _ = score_json(capsys, GOLD, COMMENTED, "--conll-column", given)
        assert result["options"]["conll_column"] == echoed
        assert not list(validator.iter_errors(result))
        assert [result[k] for k in "abc"] == [3, 2, 2]  # NE-NESTED holds nothing in these documents


def test_names_need_a_file_that_names_its_columns(tmp_path):
    path = write_file(tmp_path, "Ana B-PER\n")
    with pytest.raises(FormatError, match=r"its columns have no names .*give conll_column=.NE. as one number"):
        read_conll(path, conll_column="NE")
    with pytest.raises(UsageError, match="conll_column"):
        read_conll(path, conll_column=[2, 1])


def test_a_bad_tag_of_lookalike_letters_names_their_code_points(tmp_path, capsys):
    path = write_file(tmp_path, "Ana B-PER\nBo \u041e\n")
    assert main(["score", str(path), str(path)]) == 1
    assert capsys.readouterr().err == (f"spanagree: error: {path}:2: bad tag '\u041e' (U+041E CYRILLIC CAPITAL LETTER O "
                                       "is not a Latin letter): unknown prefix; expected O or B-, I-, E-, S-, L-, U- "
                                       "and a type\n")


@pytest.mark.parametrize("block_bytes", [1, 7, 64, None])
def test_named_documents_read_alike_in_blocks_of_any_size(tmp_path, block_bytes):
    from spanagree.formats import collect
    from spanagree.formats.conll import stream_conll

    path = write_file(tmp_path, "Ann B-PER\n\n-DOCSTART- d1\n\nAna B-PER\nRuiz I-PER\n\n-DOCSTART-\tO\n\nBo B-LOC\n"
                                "\n-DOCSTART- d3\n# newdoc id = d4\nCy B-ORG\n")
    read = collect(stream_conll(path)) if block_bytes is None else collect(stream_conll(path, _block_bytes=block_bytes))
    assert list(read.documents) == ["1", "d1", "3", "d3", "d4"]
    assert [(s.doc, s.start, s.end, s.label, s.source.line) for s in read] == [
        ("1", 0, 3, "PER", 1), ("d1", 0, 8, "PER", 5), ("3", 0, 2, "LOC", 10), ("d4", 0, 2, "ORG", 14)]


def test_agree_cuts_the_other_inputs_along_the_first(capsys):
    assert main(["agree", str(GOLD), str(FLAT), "--conll-column", "NE-COARSE-LIT", "--output", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["notes"] == [f"{FLAT.stem}: its 1 document(s) were cut along the first input's 2 by token position "
                               "(the 160 tokens line up one for one)"]
    assert [result["pairs"][0][k] for k in "abc"] == [4, 1, 1]


def test_a_numbered_prediction_pairs_with_a_named_gold_by_position(tmp_path, capsys):
    gold = write_file(tmp_path, "-DOCSTART- d1\n\nAna B-PER\nRuiz I-PER\n\n-DOCSTART- d2\n\nBo B-LOC\n", "gold.conll")
    pred = write_file(tmp_path, "-DOCSTART- O\n\nAna B-PER\nRuiz O\n\n-DOCSTART- O\n\nBo B-LOC\n", "pred.conll")
    result, _ = score_json(capsys, gold, pred)
    assert [result[k] for k in "abc"] == [1, 1, 1]
    assert result["notes"] == ["pred: its 2 document(s) were cut along the gold's 2 by token position (the 3 tokens "
                               "line up one for one)"]


# --- the scans that look for document names find what a line-by-line pattern finds ------------

_LINES = st.sampled_from(["-DOCSTART- Emma", "-DOCSTART- O", "-DOCSTART-\tO", " -DOCSTART- X", "-DOCSTART- -X- -X- O",
                          "# newdoc id = d1", "# newdoc id =", "#begin document (a); part 0", "#\tO", "# text = x",
                          "# hipe2022:document_id = NZZ-1", "EU B-ORG", "x -DOCSTART- y", "", "#", "-DOCSTART-"])


@given(st.lists(_LINES, max_size=12), st.sampled_from(["\n", "\r\n"]))
def test_naming_scans_equal_the_multiline_patterns(lines, newline):
    """``_naming_lines`` and ``_names_a_document`` try their patterns only where a line begins with
    ``#`` or ``-DOCSTART-``: they find what scanning every line with the multiline pattern finds."""
    from spanagree.formats import conll, resegment

    data = newline.join(lines).encode()
    expected = sorted(m.group() for m in resegment._NAMING_LINE.finditer(data))
    assert sorted(m.group() for m in resegment._naming_lines(data)) == expected
    assert conll._names_a_document(data) == (conll._NAMED_DOCSTART.search(data) is not None)
