"""--jobs on CoNLL and JSON-lines files: every process reads its own byte ranges, and the run is
that of one process.

The same stdout (JSON apart from ``options.jobs``), the same warnings and notes, the same error,
whether the parts were trusted (``parts_added`` added them up) or the run was done again the
ordinary way (files in different orders, an id read twice).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spanagree.formats import FilePart
from spanagree.formats.conll import document_starts_conll, stream_conll
from spanagree.formats.jsonl import document_starts_jsonl
from spanagree.pipeline import parallel, shards
from conftest import generated, same_under



@pytest.fixture(autouse=True)
def verdicts(monkeypatch, small_shards):
    """Read even these small files in parts, and record whether each run's parts were trusted."""
    found = []
    added = shards.parts_added

    def recorded(*args):
        result = added(*args)
        found.append(result is not None)  # None: not what one process gives; read again here
        return result

    monkeypatch.setattr(shards, "parts_added", recorded)
    return found


def file_parts(files, pieces: int) -> list[list]:
    """Each file's parts (:func:`~spanagree.pipeline.shards.parts_as_found`), as lists: part
    ``p`` of every file holds the same documents when the files list them in the same order."""
    starts = [fmt.document_starts()(path) for path, fmt, _ in files]
    return [list(column) for column in zip(*shards.parts_as_found(files, starts, pieces))]


def conll_document(number: int, tags=("B-PER", "I-PER", "O")) -> str:
    """A document of two sentences: ``Ana Bo met .`` and ``Porto .``."""
    first, second, third = tags
    return (f"-DOCSTART-\tO\n\nAna\t{first}\nBo\t{second}\nmet\t{third}\n.\tO\n\n"
            f"Porto\t{'B-LOC' if number % 2 else 'O'}\n.\tO\n\n")


def conll_files(tmp_path: Path, documents: int = 12) -> list[Path]:
    paths = [tmp_path / "ann1.conll", tmp_path / "ann2.conll"]
    paths[0].write_text("".join(conll_document(d) for d in range(documents)))
    paths[1].write_text("".join(conll_document(d, ("B-PER", "O", "O") if d % 3 else ("B-PER", "I-PER", "O"))
                                for d in range(documents)))
    return paths


def jsonl_record(doc_id: str, number: int, **extra) -> str:
    spans = [{"start": 0, "end": 3, "label": "PER"}]
    if number % 2:
        spans.append({"start": 8, "end": 10, "label": "PER"})
    return json.dumps({"id": doc_id, "text": "Ana met Bo in Porto.", "spans": spans, **extra}) + "\n"


def jsonl_files(tmp_path: Path, documents: int = 12, order=None) -> list[Path]:
    paths = [tmp_path / "ann1.jsonl", tmp_path / "ann2.jsonl"]
    paths[0].write_text("".join(jsonl_record(f"d{d:02d}", d) for d in range(documents)))
    order = range(documents) if order is None else order
    paths[1].write_text("".join(jsonl_record(f"d{d:02d}", d + (d % 3 == 0)) for d in order))
    return paths


def test_offsets_and_a_part_read_as_the_whole_file_reads_it(tmp_path):
    path = conll_files(tmp_path, documents=3)[0]
    # each document: 10 lines, 57 bytes (61 when "Porto" is tagged B-LOC); "-DOCSTART-\tO\n\n" begins each
    assert list(document_starts_conll(path)) == [(0, 0), (57, 10), (118, 20)]
    whole = list(stream_conll(path).documents)
    part = FilePart(57, 118, lines_before=10, documents_before=1)
    (second,) = list(stream_conll(path, part=part).documents)
    assert second.id == "2" and second.text == whole[1].text == "Ana Bo met .\nPorto ."
    assert [(s.start, s.end, s.label, s.source.line) for s in second.spans] == [(0, 6, "PER", 13), (13, 18, "LOC", 18)]
    assert [(s.start, s.end, s.label, s.source.line) for s in whole[1].spans] == [(0, 6, "PER", 13), (13, 18, "LOC", 18)]
    jsonl = jsonl_files(tmp_path, documents=3)[0]
    jsonl.write_text("\n" + jsonl.read_text().replace("\n", "\n  \n", 1))
    assert [lines for _, lines in document_starts_jsonl(jsonl)] == [1, 3, 4]  # lines before each record: blank ones skipped


@pytest.mark.parametrize("command", ["agree", "score"])
@pytest.mark.parametrize("form", ["conll", "jsonl"])
@pytest.mark.slow
def test_generated_files(tmp_path, capsys, verdicts, command, form):
    generated(tmp_path, docs=40, annotators=2, formats=(form,))
    argv = [command, *(str(tmp_path / form / f"ann{k}.{form}") for k in (1, 2)), "--output", "json",
            "--by", "document"]
    assert same_under(capsys, argv)[0] == 0
    assert verdicts == [True]


@pytest.mark.parametrize("command", ["agree", "score"])
def test_conll_parts_give_the_one_process_figures(tmp_path, capsys, verdicts, command):
    paths = conll_files(tmp_path)
    code, out, err = same_under(capsys, [command, *map(str, paths), "--output", "json", "--by", "document"])
    assert code == 0 and verdicts == [True]
    data = json.loads(out)
    by_document = data["by_document"]
    assert list(by_document) == [str(d) for d in range(1, 13)]
    # ann1: "Ana Bo" PER in each of 12 documents, "Porto" LOC in the 6 odd ones (18 spans); ann2 the
    # same but "Ana" PER alone in the 8 documents d % 3 != 0: 4 + 6 spans in common, 8 on each side alone
    pooled = data["pooled"] if command == "agree" else data
    assert (pooled["a"], pooled["b"], pooled["c"]) == (10, 8, 8)


def test_strict_decoding_drops_are_counted_once_over_the_file(tmp_path, capsys, verdicts):
    paths = conll_files(tmp_path)
    # ann2's documents 1, 4, 7, 10 open with I-PER: an invalid chunk each in strict IOB2
    paths[1].write_text("".join(conll_document(d, ("I-PER", "O", "O") if d % 3 == 0 else ("B-PER", "O", "O"))
                                for d in range(12)))
    code, out, err = same_under(capsys, ["agree", *map(str, paths), "--scheme", "iob2", "--output", "json"])
    assert code == 0 and verdicts == [True]
    assert err.count("invalid chunk") == 1 and f"{paths[1]}: 4 invalid chunks dropped by strict iob2 decoding" in err
    assert json.loads(out)["notes"] == [f"ann2: {paths[1]}: 4 invalid chunks dropped by strict iob2 decoding"]


@pytest.mark.slow
def test_an_error_in_a_later_part_is_the_one_process_error(tmp_path, capsys, verdicts):
    paths = conll_files(tmp_path)
    lines = paths[1].read_text().split("\n")
    lines[102] = "Bo"  # document 11's third line: one column
    paths[1].write_text("\n".join(lines))
    code, out, err = same_under(capsys, ["agree", *map(str, paths)])
    assert code == 1 and err.strip().splitlines()[-1] == (
        f"spanagree: error: {paths[1]}:103: expected a token and a tag, got one column 'Bo'")
    assert verdicts == [False]  # CoNLL: done again in one process
    paths = jsonl_files(tmp_path)
    lines = paths[0].read_text().split("\n")
    lines[10] = lines[10][:-1]
    paths[0].write_text("\n".join(lines))
    code, out, err = same_under(capsys, ["score", *map(str, paths)])
    assert code == 1 and err.strip().splitlines()[-1].startswith(f"spanagree: error: {paths[0]}:11: invalid JSON")


@pytest.mark.slow
def test_jsonl_files_in_different_orders_are_read_the_ordinary_way(tmp_path, capsys, verdicts):
    paths = jsonl_files(tmp_path, order=list(range(11, -1, -1)))
    for command in ("agree", "score"):
        code, out, err = same_under(capsys, [command, *map(str, paths), "--output", "json", "--by", "document"])
        assert code == 0
    assert verdicts == [False, False]


def test_an_id_twice_in_two_parts_is_the_one_process_error(tmp_path, capsys, verdicts):
    paths = jsonl_files(tmp_path)
    with paths[1].open("a") as file:
        file.write(jsonl_record("d02", 2))
    code, out, err = same_under(capsys, ["agree", *map(str, paths)])
    assert code == 1 and "document id 'd02' appears twice (first at line 3)" in err and verdicts == [False]


@pytest.mark.parametrize("form", ["conll", "jsonl"])
@pytest.mark.slow
def test_a_document_in_one_file_only(tmp_path, capsys, verdicts, form):
    paths = conll_files(tmp_path) if form == "conll" else jsonl_files(tmp_path)
    with paths[1].open("a") as file:  # a 13th document, at the end of the second file only
        file.write(conll_document(12) if form == "conll" else jsonl_record("d12", 12))
    code, out, err = same_under(capsys, ["agree", *map(str, paths), "--output", "json"])
    assert code == 0 and json.loads(out)["left_out"] == {"not_annotated_by_everyone": ["13" if form == "conll" else "d12"]}
    code, out, err = same_under(capsys, ["score", *map(str, paths[::-1]), "--output", "json"])
    assert code == 0 and "1 gold document(s) have no prediction" in err
    assert verdicts == [True, True]


def test_jsonl_left_out_records_are_one_note(tmp_path, capsys, verdicts):
    paths = jsonl_files(tmp_path)
    with paths[0].open("a") as file:
        for d in (12, 13):
            file.write(jsonl_record(f"r{d}", d, answer="reject"))
    code, out, err = same_under(capsys, ["agree", *map(str, paths), "--output", "json"])
    assert code == 0 and verdicts == [True]
    assert json.loads(out)["notes"] == ["ann1: 2 records answered reject or ignore left out (Prodigy: not annotations)"]


def test_too_few_documents_stay_in_one_process(tmp_path, verdicts):
    from spanagree import agree

    paths = conll_files(tmp_path)
    jobs = parallel.Processes(2, min_documents_per_job=1000, min_spans_per_job=1)  # 12 documents
    assert agree(paths, jobs=jobs).to_dict() == agree(paths).to_dict()
    assert verdicts == [] and jobs.mapped == [8]  # read here, then compared in processes


def test_parts_are_cut_by_bytes_and_shrink_towards_the_end(tmp_path):
    # ann1: 16 records, the first 8 three times as long as the last 8 (300 and 100 bytes: 3200
    # bytes); ann2 the same 16 ids in records of 100 bytes (1600 bytes): 4800 bytes in all
    def record(doc_id: int, size: int) -> str:
        head = json.dumps({"id": f"d{doc_id:02d}", "text": "", "pad": ""})
        return head[:-2] + "x" * (size - len(head) - 1) + '"}\n'

    paths = [tmp_path / "ann1.jsonl", tmp_path / "ann2.jsonl"]
    paths[0].write_text("".join(record(d, 300 if d < 8 else 100) for d in range(16)))
    paths[1].write_text("".join(record(d, 100) for d in range(16)))
    files = shards.splittable_files(paths, None)
    parts = file_parts(files, 4)
    # shares of 7/16, 5/16, 3/16 and 1/16 of 4800 bytes end at bytes 2100, 3600 and 4500 of the
    # two files together, where document i begins at byte 300 i + 100 i = 400 i (i ≤ 8), then
    # 2400 + 100 (i - 8) + 100 i: the first to begin at or after 2100 is document 6 (2400;
    # document 5: 2000), at or after 3600 document 10 (3600), at or after 4500 document 15 (4600)
    assert [part.documents_before for part in parts[0]] == [0, 6, 10, 15]
    assert [(part.start, part.stop) for part in parts[0]] == [(0, 1800), (1800, 2600), (2600, 3100), (3100, 3200)]
    assert [(part.start, part.stop) for part in parts[1]] == [(0, 600), (600, 1000), (1000, 1500), (1500, 1600)]
    assert [part.lines_before for part in parts[1]] == [0, 6, 10, 15]
    # the parts' bytes, both files: 2400, 1200, 1000, 200 (half, a quarter, a fifth, a 24th)


def hundred_bytes(number: int) -> str:
    """A record of 100 bytes, its line end included."""
    record = {"id": f"d{number}", "text": "Ana", "spans": [{"start": 0, "end": 3, "label": "PER"}]}
    return json.dumps(record).ljust(99) + "\n"


def test_a_part_is_given_as_soon_as_the_scan_has_passed_its_end(tmp_path):
    # two files of ten 100-byte records (2000 bytes); four parts end at 7/16, 3/4 and 15/16 of
    # the bytes: 875, 1500 and 1875, reached by the documents beginning at 2 x 500, 2 x 800 and
    # 2 x 1000 bytes: documents 5 and 8 (and 10, which is not there: the last share is left out)
    paths = [tmp_path / "ann1.jsonl", tmp_path / "ann2.jsonl"]
    for path in paths:
        path.write_text("".join(hundred_bytes(d) for d in range(10)))
    files = shards.splittable_files(paths, None)
    scanned = [0, 0]

    def counting(k):
        for offset in range(0, 1000, 100):
            scanned[k] += 1
            yield offset, offset // 100

    parts = shards.parts_as_found(files, [counting(0), counting(1)], 4)
    first = next(parts)
    assert [(p.start, p.stop, p.lines_before, p.documents_before) for p in first] == [(0, 500, 0, 0)] * 2
    assert scanned == [6, 6]  # documents 0 to 5: the scan went no further than the part's end
    second, last = next(parts), next(parts)
    assert [(p.start, p.stop, p.documents_before) for p in second] == [(500, 800, 5)] * 2
    assert [(p.start, p.stop, p.documents_before) for p in last] == [(800, 1000, 8)] * 2
    assert next(parts, None) is None and scanned == [10, 10]
    # and the parts read as the whole files read them
    assert file_parts(files, 4) == [[first[k], second[k], last[k]] for k in range(2)]


def test_a_file_with_fewer_documents_has_empty_parts_at_its_end(tmp_path):
    # ann1: 8 documents of 100 bytes; ann2: 2 of them (200 bytes): 1000 bytes in all; shares of
    # four parts end at 437.5, 750 and 937.5; document i begins at 100 i + 100 min(i, 2)
    # (ann2's later documents at its end, 200): 437.5 is reached by document 3 (500), 750 by
    # document 6 (800), 937.5 by none (document 7: 900)
    paths = [tmp_path / "ann1.jsonl", tmp_path / "ann2.jsonl"]
    lines = [hundred_bytes(d) for d in range(8)]
    paths[0].write_text("".join(lines))
    paths[1].write_text("".join(lines[:2]))
    parts = file_parts(shards.splittable_files(paths, None), 4)
    assert [(p.start, p.stop, p.lines_before, p.documents_before) for p in parts[0]] == [
        (0, 300, 0, 0), (300, 600, 3, 3), (600, 800, 6, 6)]
    assert [(p.start, p.stop, p.lines_before, p.documents_before) for p in parts[1]] == [
        (0, 200, 0, 0), (200, 200, 0, 2), (200, 200, 0, 2)]
