"""Writers announce what the target format cannot hold (span notes and attributes, relations and
events, CoNLL's document ids), with counts, instead of dropping it without a word."""

from __future__ import annotations

import warnings


from spanagree.cli import main
from spanagree.errors import SpanagreeWarning
from spanagree.formats import convert, read


def _announced(call) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in caught if w.category is SpanagreeWarning]


def test_quaero_notes_are_announced_when_jsonl_drops_them(shared_corpora, tmp_path):
    folder = shared_corpora / "quaero-french-medical" / "test" / "EMEA"
    notes = sum(1 for ann in folder.glob("*.ann") for line in ann.read_text(encoding="utf-8").splitlines()
                if line.startswith("#"))
    assert notes == 2203  # SOURCE.md's count
    source = read(folder)
    assert sum(1 for s in source for key, _ in s.attributes if key.startswith("#:")) == 2203
    messages = _announced(lambda: convert(folder, tmp_path / "q.jsonl", to="jsonl"))
    assert messages == ["JSONL output: not written: 2203 notes (BRAT #, e.g. AnnotatorNotes) on spans"]
    back = read(tmp_path / "q.jsonl")
    assert len(back) == len(source) == 2204 and all(not s.attributes for s in back)
    # BRAT keeps them: nothing to announce, and they come back.
    assert _announced(lambda: convert(folder, tmp_path / "q", to="brat")) == []
    assert sum(1 for s in read(tmp_path / "q") for key, _ in s.attributes if key.startswith("#:")) == 2203


def test_xml_drops_notes_too_and_says_so_on_the_command_line(shared_corpora, tmp_path, capsys):
    folder = shared_corpora / "quaero-french-medical" / "dev" / "EMEA"
    # Quaero's spans cross and are discontinuous: XML refuses them (an error naming one, not a drop).
    assert main(["convert", str(folder), "--to", "xml", "--out", str(tmp_path / "q.xml")]) == 2
    assert capsys.readouterr().err == (
        "spanagree: error: document '118_1': span ANAT 2166 2180 'lymphocytes T4' crosses PROC 2152 2177 "
        "'numération de lymphocytes' (they overlap, neither inside the other); inline XML cannot write that\n")
    assert main(["convert", str(folder), "--to", "jsonl", "--out", str(tmp_path / "q.jsonl")]) == 0
    assert "spanagree: warning: JSONL output: not written: 2260 notes (BRAT #, e.g. AnnotatorNotes) on spans" \
        in capsys.readouterr().err


def test_relations_events_and_attributes(tmp_path):
    folder = tmp_path / "b"
    folder.mkdir()
    (folder / "d.txt").write_text("Ana met Bo in Porto.", encoding="utf-8")
    (folder / "d.ann").write_text(
        "T1\tPER 0 3\tAna\nT2\tPER 8 10\tBo\nT3\tLOC 14 19\tPorto\nT4\tMeet 4 7\tmet\n"
        "R1\tKnows Arg1:T1 Arg2:T2\nR2\tIn Arg1:T2 Arg2:T3\nE1\tMeet:T4 Who:T1\n"
        "A1\tNegation T1\nN1\tReference T3 Wikipedia:1\n#1\tAnnotatorNotes T2\tfriend\n*\tAlias T1 T2\n",
        encoding="utf-8")
    # BRAT keeps the relations and the event (R and E lines, naming the T ids written, in offset order);
    # only the equivalence is not written
    assert _announced(lambda: convert(folder, tmp_path / "o", to="brat")) == [
        "BRAT output: not written: 1 equivalence"]
    assert "R2\tIn Arg1:T3 Arg2:T4\nE1\tMeet:T2 Who:T1\n" in (tmp_path / "o" / "d.ann").read_text(encoding="utf-8")
    # JSONL keeps the attribute, the normalisation, the relations and the event, not the note
    assert _announced(lambda: convert(folder, tmp_path / "o.jsonl", to="jsonl")) == [
        "JSONL output: not written: 1 note (BRAT #, e.g. AnnotatorNotes) on spans; 1 equivalence"]
    assert _announced(lambda: convert(folder, tmp_path / "o.xml", to="xml")) == [
        "XML output: not written: 1 note (BRAT #, e.g. AnnotatorNotes) on spans, 1 attribute (BRAT A) on spans, "
        "1 normalization (BRAT N) on spans; 2 relations, 1 event; 1 equivalence"]


def test_conll_writes_names_and_announces_the_ids_it_renumbers(demo, tmp_path, capsys):
    # names are written (-DOCSTART- clinic-01): nothing to say
    assert main(["convert", str(demo / "jsonl" / "ann1.jsonl"), "--to", "conll", "--out", str(tmp_path / "a.conll")]) == 0
    assert capsys.readouterr().err == ""
    assert (tmp_path / "a.conll").read_text(encoding="utf-8").startswith("-DOCSTART-\tclinic-01\n\n")
    # ids of digits out of their order come back as positions, and that is said
    lines = (tmp_path / "a.conll").read_text(encoding="utf-8").replace("-DOCSTART-\tclinic-", "# newdoc id = 1")
    (tmp_path / "b.conll").write_text(lines, encoding="utf-8")
    assert main(["convert", str(tmp_path / "b.conll"), "--to", "conll", "--out", str(tmp_path / "c.conll")]) == 0
    assert capsys.readouterr().err == ("spanagree: warning: CoNLL output: not written: the document ids of digits out "
                                       "of their order (101, 102, 103, ...): CoNLL numbers such documents by their "
                                       "position\n")


def test_merge_output_announces_only_what_it_drops(demo, tmp_path, capsys):
    paths = [str(demo / "jsonl" / f"ann{k}.jsonl") for k in (1, 2, 3)]
    out = tmp_path / "m.conll"
    assert main(["merge", *paths, "--to", "conll", "--out", str(out)]) == 0
    # The CoNLL writer writes the documents' names (-DOCSTART-<TAB>NAME): nothing is dropped, and
    # the merged spans' vote notes (merge's own record, not the inputs' notes) are not announced.
    err = capsys.readouterr().err
    assert err == ""
    assert [line for line in out.read_text().splitlines() if line.startswith("-DOCSTART-")][:2] == [
        "-DOCSTART-\tclinic-01", "-DOCSTART-\tclinic-02"]


def test_merge_of_conll_to_conll_says_nothing_of_notes(demo, tmp_path, capsys):
    """The inputs had no notes: merge's own vote notes are not announced as dropped (nor under --jobs)."""
    paths = [str(demo / "conll" / f"ann{k}.conll") for k in (1, 2, 3)]
    for jobs in ("1", "2"):
        out = tmp_path / f"m{jobs}.conll"
        assert main(["merge", *paths, "--to", "conll", "--out", str(out), "--jobs", jobs]) == 0
        err = capsys.readouterr().err
        assert "note" not in err and "warning" not in err, err
    # BRAT still writes them, one per merged span
    assert main(["merge", *paths, "--to", "brat", "--out", str(tmp_path / "b")]) == 0
    notes = [line for ann in (tmp_path / "b").glob("*.ann") for line in ann.read_text().splitlines()
             if line.startswith("#")]
    assert len(notes) == 74 and all("votes:" in note for note in notes)
