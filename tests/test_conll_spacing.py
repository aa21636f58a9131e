"""CoNLL-U's ``SpaceAfter=No`` and HIPE's ``NoSpaceAfter``: the text as written.

A CoNLL document's text stays its tokens joined by spaces (its whitespace-separated pieces are its
tokens); ``Document.unwritten_spaces`` says which of those spaces the text as written lacks, and
``as_written`` gives that text, which the writers of formats without tokens write and texts from
other formats are compared with.

Real samples (tests/data/*/SOURCE.md): three documents of Universal Dependencies' English-EWT
test set as published (CoNLL-U, no entity column) and the same documents in Universal NER
(entity tags, no MISC column), joined here into one CoNLL-U Plus file; a HIPE-2022 excerpt."""

import json
from pathlib import Path

import pytest

from spanagree.cli import main
from spanagree.errors import FormatError
from spanagree.formats import read
from spanagree.span import Document, Span, SpanSet, as_written
from spanagree.texts import reconcile

DATA = Path(__file__).parent / "data"
UD = DATA / "ud" / "en_ewt-ud-test.excerpt.conllu"
UNER = DATA / "uner" / "en_ewt-ud-test.excerpt.iob2"
HIPE_GOLD = DATA / "hipe2022" / "HIPE-2022-v2.1-hipe2020-test-en.excerpt.tsv"
DOCUMENTS = ["answers-20080426140040AA4YiX5_ans", "answers-20081218053636AA9vV0u_ans",
             "answers-20090203211448AAoG2yX_ans"]


@pytest.fixture
def ud_plus(tmp_path) -> Path:
    """The UD excerpt with Universal NER's tags of the same tokens as an eleventh column ``NE``
    (``_`` on the multiword token's range line): a CoNLL-U Plus file."""
    tags = iter(line.split("\t")[2] for line in UNER.read_text(encoding="utf-8").splitlines()
                if line and not line.startswith("#"))
    lines = ["# global.columns = ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC NE"]
    for line in UD.read_text(encoding="utf-8").splitlines():
        cells = line.split("\t")
        if len(cells) == 10:
            line += "\t" + (next(tags) if cells[0].isdigit() else "_")
        lines.append(line)
    assert next(tags, None) is None
    path = tmp_path / "ewt.conllu"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def ud_sentences() -> list[str]:
    return [line[len("# text = "):] for line in UD.read_text(encoding="utf-8").splitlines()
            if line.startswith("# text = ")]


def test_text_keeps_the_tokens_and_records_the_unwritten_spaces(ud_plus):
    spans = read(ud_plus, "conll")
    assert list(spans.documents) == DOCUMENTS
    first = spans.documents[DOCUMENTS[0]]
    assert first.text == "What is this Miramar ?\nIt is a place in Argentina lol"
    assert first.tokens_from_text and first.unwritten_spaces == (20,)  # "Miramar" SpaceAfter=No
    assert sum(len(d.unwritten_spaces) for d in spans.documents.values()) == 18 + 1  # and "do" of don't
    assert [(s.label, first.text[s.start:s.end]) for s in first.spans] == [("LOC", "Miramar"), ("LOC", "Argentina")]


def test_as_written_gives_every_sentence_as_its_text_comment(ud_plus):
    spans = read(ud_plus, "conll")
    written = [sentence for d in spans.documents.values() for sentence in as_written(d).text.split("\n")]
    assert written == ud_sentences()  # 17 sentences, "don't" and the quotes and commas included
    assert "Why certain slogans work and why some don't." in written
    document = as_written(spans.documents[DOCUMENTS[1]])
    assert not document.tokens_from_text and document.unwritten_spaces == ()
    assert [(s.label, document.text[s.start:s.end]) for s in document.spans] == [("LOC", "Argentina"),
                                                                                  ("LOC", "Argentina")]
    assert document.text.startswith('what is a good slogan for an Argentinian restaurant?\n"In Argentina, beef')


def test_multiword_words_written_together_only_where_they_make_its_form(tmp_path):
    # Spanish "del" is "de" + "el": written apart (their concatenation is not the form); "vámonos"
    # is "vamos" + "nos" likewise; an English "don't" is "do" + "n't": written together.
    path = tmp_path / "mw.conllu"
    path.write_text("# global.columns = ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC NE\n"
                    "# text = Voy del río don't.\n"
                    "1\tVoy\tir\tVERB\t_\t_\t0\troot\t_\t_\tO\n"
                    "2-3\tdel\t_\t_\t_\t_\t_\t_\t_\t_\t_\n"
                    "2\tde\tde\tADP\t_\t_\t4\tcase\t_\t_\tO\n"
                    "3\tel\tel\tDET\t_\t_\t4\tdet\t_\t_\tO\n"
                    "4\trío\trío\tNOUN\t_\t_\t1\tobl\t_\t_\tB-LOC\n"
                    "5-6\tdon't\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\t_\n"
                    "5\tdo\tdo\tAUX\t_\t_\t1\taux\t_\t_\tO\n"
                    "6\tn't\tnot\tPART\t_\t_\t1\tadvmod\t_\t_\tO\n"
                    "7\t.\t.\tPUNCT\t_\t_\t1\tpunct\t_\t_\tO\n\n", encoding="utf-8")
    document = read(path, "conll", conll_column="NE").documents["1"]
    assert document.text == "Voy de el río do n't ."
    written = as_written(document)
    assert written.text == "Voy de el río don't."
    assert [(s.label, written.text[s.start:s.end]) for s in written.spans] == [("LOC", "río")]


def test_hipe_no_space_after():
    spans = read(HIPE_GOLD, "conll", conll_column="NE-COARSE-LIT")
    first, second = spans.documents.values()
    assert first.text.startswith("IRELAXD . The Cork papers of the 23d of April state , that")
    assert (len(first.unwritten_spaces), len(second.unwritten_spaces)) == (13, 10)
    written = [as_written(first), as_written(second)]
    assert written[0].text.startswith("IRELAXD. The Cork papers of the 23d of April state, that")
    assert written[1].text.startswith("In England and other parts of Europe, horseshoes are now in use, made of")
    assert [[(s.label, d.text[s.start:s.end]) for s in d.spans] for d in written] == [
        [("loc", "IRELAXD"), ("prod", "Cork papers"), ("loc", "CharTevillc")], [("loc", "England"), ("loc", "Europe")]]


def test_as_written_moves_offsets_and_keeps_documents_without_spacing():
    plain = Document("d", "Ana met Bo", [Span("d", (8, 10), "PER")], tokens_from_text=True)
    assert as_written(plain) is plain
    glued = Document("d", "( Ana ) met Bo", [Span("d", (2, 5), "PER"), Span("d", (12, 14), "PER")],
                     tokens_from_text=True, unwritten_spaces=(1, 5))
    written = as_written(glued)
    assert written.text == "(Ana) met Bo"
    assert [(s.start, s.end) for s in written.spans] == [(1, 4), (10, 12)]


def test_convert_to_brat_and_jsonl_writes_the_text_as_written(ud_plus, tmp_path, capsys):
    brat = tmp_path / "brat"
    assert main(["convert", str(ud_plus), "--to", "brat", "--out", str(brat)]) == 0
    text = (brat / f"{DOCUMENTS[1]}.txt").read_text(encoding="utf-8")
    assert '"In Argentina, beef is revered, respected, and praised.' in text  # no space before a comma
    ann = (brat / f"{DOCUMENTS[1]}.ann").read_text(encoding="utf-8").splitlines()
    for line in ann:
        _, label_offsets, covered = line.split("\t")
        _, start, end = label_offsets.split()
        assert text[int(start):int(end)] == covered == "Argentina"
    jsonl = tmp_path / "u.jsonl"
    assert main(["convert", str(ud_plus), "--to", "jsonl", "--out", str(jsonl)]) == 0
    records = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    assert [r["text"].split("\n") for r in records] == [
        ["What is this Miramar?", "It is a place in Argentina lol"], ud_sentences()[2:13], ud_sentences()[13:]]
    assert records[1]["text"][records[1]["spans"][0]["start"]:records[1]["spans"][0]["end"]] == "Argentina"
    conll = tmp_path / "u.conll"  # CoNLL keeps its tokens: the text as the reader rebuilt it
    assert main(["convert", str(ud_plus), "--to", "conll", "--out", str(conll)]) == 0
    assert read(conll, "conll").documents[DOCUMENTS[0]].text == "What is this Miramar ?\nIt is a place in Argentina lol"
    capsys.readouterr()


def test_copies_compared_through_the_text_as_written(ud_plus, tmp_path, capsys):
    jsonl = tmp_path / "u.jsonl"
    assert main(["convert", str(ud_plus), "--to", "jsonl", "--out", str(jsonl)]) == 0
    for first, second in ((ud_plus, jsonl), (jsonl, ud_plus)):
        capsys.readouterr()
        assert main(["agree", str(first), str(second), "--output", "json"]) == 0
        result = json.loads(capsys.readouterr().out)
        assert (result["pooled"]["a"], result["pooled"]["b"], result["pooled"]["c"]) == (4, 0, 0)
        assert result["notes"] == ["3 document(s) compared through their non-whitespace characters "
                                   "(texts differ only in whitespace)"]
    # the same CoNLL-U without MISC column (Universal NER's file): its text is not the one written
    with pytest.raises(FormatError, match="has a different text"):
        reconcile([read(UNER, "conll", conll_column=3), read(jsonl)], DOCUMENTS)


def test_only_the_text_as_written_is_taken_for_the_same(ud_plus, tmp_path):
    spans = read(ud_plus, "conll")
    other = {doc_id: as_written(d) for doc_id, d in spans.documents.items()}
    changed = other[DOCUMENTS[0]]
    other[DOCUMENTS[0]] = Document(changed.id, changed.text.replace("this Miramar", "this  Miramar"), [])
    with pytest.raises(FormatError, match=f"document '{DOCUMENTS[0]}' has a different text in b than in a"):
        reconcile([SpanSet("a", dict(spans.documents)), SpanSet("b", other)], DOCUMENTS)
    assert reconcile([SpanSet("a", dict(spans.documents)), SpanSet("b", other)], DOCUMENTS,
                     align_whitespace=True).whitespace_aligned == DOCUMENTS


def test_round_trip_conllu_brat_conll(ud_plus, tmp_path, capsys):
    brat, back = tmp_path / "brat", tmp_path / "back.conll"
    assert main(["convert", str(ud_plus), "--to", "brat", "--out", str(brat)]) == 0
    assert main(["convert", str(brat), "--to", "conll", "--tokenize", "--out", str(back)]) == 0
    original, returned = read(ud_plus, "conll"), read(back, "conll")
    assert list(returned.documents) == DOCUMENTS

    def covered(spanset):
        return [(doc_id, s.label, d.text[s.start:s.end]) for doc_id, d in spanset.documents.items()
                for s in d.spans]

    assert covered(returned) == covered(original)
    capsys.readouterr()
    assert main(["agree", str(ud_plus), str(back), "--align-text", "--output", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["pooled"]["a"], result["pooled"]["b"], result["pooled"]["c"]) == (4, 0, 0)

