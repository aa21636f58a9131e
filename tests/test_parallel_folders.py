"""--jobs on XML, WebAnno TSV and XMI folders: every process reads its own share of the document
files (:attr:`spanagree.formats.Format.folder_shards`), and the run is that of one process.

The same JSON (apart from ``options.jobs``) for agree, score and merge (the gold byte for byte),
the same one-line error whichever process meets the bad file, a document one folder lacks, and the
end-of-folder notes and warnings summed over the shards and given once.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from spanagree.formats import read
from spanagree.formats.webanno import write_webanno
from spanagree.formats.xml import write_xml
from spanagree.pipeline import parallel
from spanagree.span import SpanSet
from xmi_build import cassis_typesystem, cassis_xmi
from conftest import run, same_under

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "corpora" / "demo"
FORMATS = ("xml", "webanno", "xmi")


pytestmark = pytest.mark.usefixtures("small_shards")


def without(out: str, *keys):
    data = json.loads(out)
    for key in ("jobs", *keys):
        data.get("options", {}).pop(key, None)
    return data


def xml_folder(spanset: SpanSet, folder: Path) -> Path:
    """A folder of one-document XML files (``<id>.xml``, as write_xml writes them: marked, so read
    back without options, each document's id ``<id>#<id>``)."""
    folder.mkdir(parents=True)
    for doc_id, document in spanset.documents.items():
        write_xml(SpanSet(spanset.name, {doc_id: document}, [], spanset.format), folder / f"{doc_id}.xml")
    return folder


def corpus(tmp_path: Path, fmt: str) -> list[Path]:
    """The demo corpus's three annotators (ten documents each) as folders of ``fmt``."""
    if fmt == "xml":
        return [xml_folder(read(DEMO / "xml" / f"{name}.xml"), tmp_path / name) for name in ("ann1", "ann2", "ann3")]
    folders = []
    for name in ("ann1", "ann2", "ann3"):
        shutil.copytree(DEMO / fmt / name, tmp_path / name)
        folders.append(tmp_path / name)
    return folders


def first_and_last(folder: Path, fmt: str) -> tuple[Path, Path]:
    suffix = {"xml": ".xml", "webanno": ".tsv", "xmi": ".xmi"}[fmt]
    files = sorted(folder.glob(f"*{suffix}"))
    return files[0], files[-1]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.slow
def test_agree_score_and_merge_read_their_shards(tmp_path, capsys, small_shards, fmt):
    folders = corpus(tmp_path, fmt)
    code, out, _ = same_under(capsys, calls=small_shards, argv=["agree", *folders, "--by", "label,document",
                                                           "--output", "json"])
    assert code == 0 and json.loads(out)["documents"] == 10
    code, out, _ = same_under(capsys, calls=small_shards, argv=["score", *folders[:2], "--by", "document", "--output",
                                                           "json"])
    assert code == 0 and json.loads(out)["documents"] == 10
    golds = []
    for jobs in ("1", "2"):
        out = tmp_path / f"gold{jobs}.jsonl"
        code, summary, err = run(capsys, *["merge", *folders, "--to", "jsonl", "--out", out, "--output", "json",
                                          "--jobs", jobs])
        assert code == 0
        golds.append((without(summary, "out"), err, out.read_bytes()))
    assert golds[0] == golds[1] and golds[0][2].count(b"\n") == 10
    assert len(small_shards) == 3 and small_shards[0] == 8  # 2 jobs x 4 shards of the 10 documents


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.slow
def test_a_bad_file_in_a_later_shard_is_the_error_of_one_process(tmp_path, capsys, small_shards, fmt):
    folders = corpus(tmp_path, fmt)
    _, last = first_and_last(folders[1], fmt)
    if fmt == "webanno":
        last.write_bytes(last.read_bytes().replace(b"Shares", b"Sh\xffres"))  # not UTF-8
    else:
        last.write_bytes(last.read_bytes()[:60])  # cut short: no longer well-formed
    code, out, err = same_under(capsys, calls=small_shards, argv=["agree", *folders[:2], "--output", "json"])
    assert code == 1 and out == ""
    assert err.startswith(f"spanagree: error: {last}") and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.slow
def test_a_document_in_one_folder_only(tmp_path, capsys, small_shards, fmt):
    folders = corpus(tmp_path, fmt)
    first, last = first_and_last(folders[1], fmt)
    first.unlink()
    last.unlink()
    code, out, err = same_under(capsys, calls=small_shards, argv=["score", folders[0], folders[1], "--output", "json"])
    assert code == 0 and json.loads(out)["documents"] == 10
    assert "2 gold document(s) have no prediction and count as empty" in err
    code, out, err = same_under(capsys, calls=small_shards, argv=["agree", folders[0], folders[1], "--output", "json"])
    assert code == 0 and json.loads(out)["documents"] == 8


def xml_notes_corpus(tmp_path: Path) -> list[Path]:
    """Two folders of unmarked XML (every element a span) with empty elements and elements holding
    others, in the first, fourth and last of ten files: what the notes and warnings count lies in
    several shards."""
    folders = []
    for name in ("ann1", "ann2"):
        folder = tmp_path / name
        folder.mkdir()
        for k in range(1, 11):
            if k in (1, 4, 10):
                body = f"<S>Ana met <PER>Bo</PER>.</S> <X/>In <LOC>Porto</LOC> {k}.<Y></Y>"
            else:
                body = f"Ana met <PER>Bo</PER> in <LOC>Porto</LOC> {k}."
            (folder / f"d{k}.xml").write_text(f"<doc>\n{body}\n</doc>\n", encoding="utf-8")
        folders.append(folder)
    return folders


def test_xml_end_of_folder_notes_and_warnings_are_summed_over_the_shards(tmp_path, capsys, small_shards):
    folders = xml_notes_corpus(tmp_path)
    code, out, err = same_under(capsys, calls=small_shards, argv=["agree", *folders, "--output", "json"])
    assert code == 0
    notes = json.loads(out)["notes"]
    assert "ann1: 6 empty elements (no text) skipped: a span covers at least one character" in notes
    assert "ann2: every element was taken as a span (no --xml-span-tags, --xml-label-attr or spanagree marker): " \
           "LOC (10), PER (10), S (3); name the span elements with --xml-span-tags (and the label's attribute " \
           "with --xml-label-attr)" in notes
    assert f"{folders[0] / 'd1.xml'}:2: <X> has no text and cannot be a span: skipped (5 more like it)" in err
    assert f"{tmp_path}: every element was taken" not in err  # each folder's warning names its folder
    assert f"{folders[0]}: every element was taken as a span" in err and "<S> holds other elements" in err


@pytest.mark.slow
def test_webanno_notes_are_summed_over_the_shards(tmp_path, capsys, small_shards):
    """Files without the layer read, in three shards: one note counting the three, and one counting
    their annotations."""
    folders = corpus(tmp_path, "webanno")
    spans = {}
    for folder in folders[:2]:
        for stem in ("clinic-01", "clinic-05", "news-05"):
            document = read(folder / f"{stem}.tsv")
            spans[folder.name] = spans.get(folder.name, 0) + len(list(document))
            (folder / f"{stem}.tsv").unlink()
            write_webanno(document, folder / f"{stem}.tmp", webanno_layer="Other")
            (folder / f"{stem}.tmp" / "1.tsv").rename(folder / f"{stem}.tsv")
            (folder / f"{stem}.tmp").rmdir()
    code, out, _ = same_under(capsys, calls=small_shards, argv=["agree", *folders[:2], "--output", "json"])
    assert code == 0
    assert json.loads(out)["notes"] == [note for name in ("ann1", "ann2") for note in (
        f"{name}: 3 WebAnno file(s) without the layer NamedEntity (they hold span layer(s) Other; choose one with "
        "--webanno-layer)", f"{name}: {spans[name]} WebAnno annotation(s) of other span layers not read (Other: "
        f"{spans[name]}; choose a layer with --webanno-layer)")]


@pytest.mark.slow
def test_xmi_notes_are_summed_over_the_shards(tmp_path, capsys, small_shards):
    """Zero-length and unlabelled annotations in the first and the last file: one note each."""
    typesystem = cassis_typesystem()
    folders = []
    for name in ("ann1", "ann2"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "TypeSystem.xml").write_text(typesystem.to_xml(), encoding="utf-8")
        for k in range(1, 11):
            spans = [(0, 3, "PER"), (8, 10, "PER")] + ([(4, 4, "PER"), (11, 13, None)] if k in (1, 10) else [])
            (folder / f"d{k}.xmi").write_text(cassis_xmi(f"Ana met Bo in Porto {k}.", spans, typesystem),
                                              encoding="utf-8")
        folders.append(folder)
    code, out, _ = same_under(capsys, calls=small_shards, argv=["agree", *folders, "--output", "json"])
    assert code == 0
    assert json.loads(out)["notes"][:2] == ["ann1: 2 zero-length XMI annotation(s) left out (a span covers at "
                                            "least one character)", "ann1: 2 XMI annotation(s) without a 'value' "
                                            "labelled 'NamedEntity'"]


def test_one_id_from_files_of_two_shards_is_the_error_of_one_process(tmp_path, capsys, small_shards):
    """Document ids are the file's path and the element's id: ``a`` with id ``1#2`` and ``a#1``
    with id ``2`` are both ``a#1#2``. Read in two shards, neither sees the other: the run is done
    again in one process, which reports it."""
    folders = []
    for name in ("ann1", "ann2"):
        folder = tmp_path / name
        folder.mkdir()
        files = {"a": "1#2", "a#0": "x", "a#1": "2"} | {f"b{k}": "x" for k in range(7)}
        for stem, doc_id in files.items():
            (folder / f"{stem}.xml").write_text(f'<docs><doc id="{doc_id}">Ana met <PER>Bo</PER>.</doc></docs>\n',
                                                encoding="utf-8")
        folders.append(folder)
    code, _, err = same_under(capsys, calls=small_shards, argv=["agree", *folders, "--xml-doc-tag", "doc"])
    assert code == 1
    assert err.strip() == (f"spanagree: error: {folders[0] / 'a#1.xml'}: document id 'a#1#2' appears twice "
                           f"(also in {folders[0] / 'a.xml'})")


def test_every_folder_format_says_whether_it_is_read_in_shards():
    from spanagree.formats import FORMATS

    assert [name for name, fmt in FORMATS.items() if fmt.folder_shards] == ["brat", "xml", "gate", "webanno", "xmi"]
    for name in ("brat", "xml", "gate", "webanno", "xmi"):
        assert callable(FORMATS[name].lister())


def test_few_files_of_many_documents_are_read_here_then_compared_in_processes(tmp_path):
    """Two XML files of ten documents each (--xml-doc-tag): too few files to share out at two per
    process, so the parent reads them and the comparing is shared out by spans, as for any input
    read whole."""
    from spanagree import agree

    folders = []
    for name in ("ann1", "ann2"):
        folder = tmp_path / name
        folder.mkdir()
        for stem in ("a", "b"):
            shutil.copy(DEMO / "xml" / f"{name}.xml", folder / f"{stem}.xml")
        folders.append(folder)
    jobs = parallel.Processes(2, min_documents_per_job=2, min_spans_per_job=1)
    one, two = agree(folders).to_dict(), agree(folders, jobs=jobs).to_dict()
    assert one == two and one["documents"] == 20
    assert jobs.mapped == [8]  # the 20 documents compared in 2 x 4 shards
