"""The format registry drives the command line, detection and the docs; documents say whether they
come with their tokens.

Every registered format and option is checked by the same loops, so a format added to
``FORMATS`` is tested the day it is added.
"""

from __future__ import annotations

import importlib
import inspect
import json
import warnings
from pathlib import Path

import pytest

from spanagree.cli import build_parser, format_options
from spanagree.errors import FormatError, SpanagreeWarning
from spanagree.formats.registry import conll_column_value
from spanagree.formats import (FORMATS, Format, FormatOption, detect_format, options_table, read,
                               registered_options)
from spanagree.formats.conll import DOCSTART
from spanagree.formats.schemes import SCHEME_NAMES, SCHEMES, get_scheme
from spanagree.measures.tokens import conll_tokens, document_tokens, tokenizer_for
from spanagree.span import Document
from conftest import run

ROOT = Path(__file__).resolve().parent.parent


def keyword_only(function) -> set[str]:
    """A function's keyword-only parameters, less ``name`` and private ones (``_block_bytes``)."""
    return {p.name for p in inspect.signature(function).parameters.values()
            if p.kind is p.KEYWORD_ONLY and p.name != "name" and not p.name.startswith("_")}


def test_names_and_order_are_kept():
    assert list(FORMATS)[:4] == ["brat", "xml", "conll", "jsonl"]
    assert [f.title for f in FORMATS.values()][:4] == ["BRAT", "XML", "CoNLL", "JSONL"]


@pytest.mark.parametrize("fmt", list(FORMATS.values()), ids=list(FORMATS))
def test_declared_options_are_the_reader_and_writer_keywords(fmt):
    """Declared once and true to the code: the reader's keywords (stream_ and read_) and the
    writer's are exactly the declared ones."""
    module = importlib.import_module(fmt.module)
    # and the record limit, which every reader takes (open_stream passes --max-record-bytes to all);
    # a container's reader also takes the annotator to read, and lists them with the same keywords
    chosen = {"annotator"} if fmt.container else set()
    # a format read in parts (--jobs) also takes the part to read, and says where documents begin
    if fmt.splits:
        chosen.add("part")
        assert callable(fmt.document_starts()) and callable(fmt.part_notes())
    assert keyword_only(fmt.streamer()) == fmt.reader_keywords | {"max_record_bytes"} | chosen
    assert keyword_only(getattr(module, f"read_{fmt.name}")) - {"max_record_bytes", "annotator"} == fmt.reader_keywords
    if fmt.container:
        # a container kept in a folder of document files may share out finding its span sets (--jobs)
        shared = {"share_out"} if fmt.folder_shards else set()
        assert keyword_only(fmt.annotators()) == fmt.reader_keywords | {"max_record_bytes"} | shared
    assert hasattr(module, f"write_{fmt.name}") == fmt.writable
    if fmt.writable:
        assert keyword_only(fmt.writer()) == fmt.writer_keywords
    assert all(o.reader or o.writer for o in fmt.options)
    assert hasattr(module, f"recognise_{fmt.name}") == fmt.recognises


def test_option_names_follow_the_rule_and_keep_their_flags():
    flags = []
    for option, formats in registered_options():
        assert option.flag == "--" + option.keyword.replace("_", "-")
        # a container may take the options of the formats it holds (INCEpTION: XMI's)
        # two keywords kept outside the rule: CoNLL's scheme (for its users) and JSONL's
        # doccano_labels (named after the tool whose exports it reads)
        assert option.keyword in ("scheme", "doccano_labels") or all(
            option.keyword.startswith(f"{f.name}_") or f.container and option.keyword.split("_")[0] in FORMATS
            for f in formats)
        flags.append(option.flag)
    assert flags[:6] == ["--brat-line-ends", "--xml-label-attr", "--xml-span-tags", "--xml-doc-tag", "--conll-column",
                         "--scheme"]


def input_format_group(command: str):
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]
    group = next(g for g in sub._action_groups if g.title == "input format")
    return {a.option_strings[0]: a for a in group._group_actions}


@pytest.mark.parametrize("command", ["agree", "score", "merge", "convert"])
def test_the_command_line_options_are_made_from_the_registry(command):
    actions = input_format_group(command)
    assert set(actions) == {"--format", "--max-record-bytes", "--annotators",
                            *(option.flag for option, _ in registered_options())}
    # The help texts, metavars and types of the options as they were typed by hand in cli.py.
    typed_by_hand = {
        "--format": ("format", None, None, "input format (default: detected per path)"),
        "--xml-label-attr": ("xml_label_attr", "ATTR", None, "XML: label from this attribute (e.g. TYPE, class)"),
        "--xml-span-tags": ("xml_span_tags", "A,B", None, "XML: only these elements are spans"),
        "--xml-doc-tag": ("xml_doc_tag", "TAG", None, "XML: every TAG element is a document (e.g. DOC)"),
        "--conll-column": ("conll_column", "N|NAME[,...]", conll_column_value,
                           "CoNLL: tag column, counted from 1, or named (default: last)"),
        "--scheme": ("scheme", None, str.lower,
                     "CoNLL: decode strictly in this tag scheme (default: conlleval's lenient decoding)"),
        "--max-record-bytes": ("max_record_bytes", "N", int, "largest record read: a JSONL line, a CoNLL or XML "
                               "document, a BRAT file (default: 64 MiB = 67108864)"),
    }
    assert {flag: (a.dest, a.metavar, a.type, a.help) for flag, a in actions.items() if flag in typed_by_hand} \
        == typed_by_hand
    assert actions["--format"].choices == list(FORMATS)
    assert actions["--format"].choices[:4] == ["brat", "xml", "conll", "jsonl"]
    assert list(actions["--scheme"].choices) == list(SCHEME_NAMES)


def test_format_options_of_the_parsed_arguments():
    args = build_parser().parse_args(["convert", "a.xml", "--to", "conll", "--out", "b.conll", "--xml-doc-tag", "doc",
                                      "--scheme", "BILOU", "--conll-column", "3"])
    given = {"xml_doc_tag": "doc", "conll_column": 3, "scheme": "bilou"}
    assert format_options(args) == {**{option.keyword: None for option, _ in registered_options()},
                                    **given, "max_record_bytes": None}
    assert {"xml_label_attr", "xml_span_tags"} <= set(format_options(args))


def test_scheme_choices_are_every_name_get_scheme_accepts():
    names = {name for s in SCHEMES.values() for name in (s.name, *s.aliases)}
    assert set(SCHEME_NAMES) == names and len(SCHEME_NAMES) == len(names)
    assert list(SCHEME_NAMES) == ["iob1", "iob2", "bio", "ioe1", "ioe2", "ioe", "bioes", "iobes", "bilou", "io"]
    for name in SCHEME_NAMES:
        assert get_scheme(name) is get_scheme(name.upper())
    assert {get_scheme(n).name for n in ("bio", "ioe", "iobes")} == {"iob2", "ioe2", "bioes"}


def test_a_new_format_gets_its_options_with_no_cli_edit(monkeypatch, tmp_path):
    toy = Format(name="toy", title="Toy", description="a test format", extensions=(".toy",),
                 folder_extensions=(".toy",), folder_precedence=5,
                 options=(FormatOption("toy_level", "how deep", metavar="N", type=int),))
    monkeypatch.setitem(FORMATS, "toy", toy)
    args = build_parser().parse_args(["agree", "a.toy", "b.toy", "--format", "toy", "--toy-level", "3"])
    assert args.format == "toy" and format_options(args)["toy_level"] == 3
    assert input_format_group("score")["--toy-level"].help == "Toy: how deep"
    assert options_table().endswith("| `--toy-level N` | Toy | how deep |\n")
    (tmp_path / "a.toy").write_text("x")
    assert detect_format(tmp_path / "a.toy") == "toy" and detect_format(tmp_path) == "toy"
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FormatError, match=r"empty folder: no \.ann, \.xml, \.jsonl, \.conll or \.toy file in it$"):
        detect_format(empty)


@pytest.mark.parametrize("doc", ["docs/formats.md", "docs/cli.md"])
def test_the_docs_hold_the_registry_options_table(doc):
    text = (ROOT / doc).read_text(encoding="utf-8")
    assert options_table() in text, (f"{doc}: regenerate its table of format options from "
                                     "spanagree.formats.options_table()")


# detect_format: every answer of the hand-typed tuples it replaces.
@pytest.mark.parametrize("name, expected", [
    *[(f"a{suffix}", "conll") for suffix in (".conll", ".bio", ".iob", ".tsv", ".txt", ".test", ".dev", ".train")],
    ("README", "conll"), ("A.TXT", "conll"), ("emerging.test.annotated", None), ("eng.testa", None),
    ("a.jsonl", "jsonl"), ("a.json", "jsonl"), ("a.NDJSON", "jsonl"), ("a.xml", "xml"),
    ("a.ann", None), ("a.csv", None),
])
def test_files_are_detected_by_their_extension(tmp_path, name, expected):
    path = tmp_path / name
    path.write_text("x")
    if expected is None:
        with pytest.raises(FormatError) as error:
            detect_format(path)
        suffix = path.suffix.lower()
        assert str(error.value) == f"{path}: cannot tell the format from the extension {suffix!r}; give format"
        assert error.value.command_line_message() == \
            f"{path}: cannot tell the format from the extension {suffix!r}; give --format"
    else:
        assert detect_format(path) == expected


def test_no_extension_belongs_to_two_formats():
    for attribute in ("extensions", "folder_extensions"):
        claimed = [s for f in FORMATS.values() for s in getattr(f, attribute)]
        assert len(claimed) == len(set(claimed)), attribute


def test_docs_formats_md_lists_every_extension():
    text = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    detection = text[text.index("## Choosing the format"):text.index("## BRAT standoff")]
    for fmt in FORMATS.values():
        for suffix in fmt.extensions:
            assert (f"`*{suffix}`" if suffix else "without extension") in detection, (fmt.name, suffix)
        for suffix in fmt.folder_extensions:
            assert f"`{suffix}`" in detection, (fmt.name, suffix)


def test_folder_precedence(tmp_path):
    # .ann before .xml before .jsonl before .conll, at any depth; none of them: empty folder
    folder = tmp_path / "corpus"
    (folder / "deep" / "er").mkdir(parents=True)
    files = {"brat": "deep/er/d.ann", "xml": "c.xml", "jsonl": "deep/b.jsonl", "conll": "a.conll"}
    for relative in files.values():
        (folder / relative).write_text("x")
    (folder / "notes.txt").write_text("x")
    for fmt, relative in files.items():
        assert detect_format(folder) == fmt
        (folder / relative).unlink()
    with pytest.raises(FormatError) as error:
        detect_format(folder)
    assert str(error.value) == f"{folder}: empty folder: no .ann, .xml, .jsonl or .conll file in it"


# --scheme bilou (and every other name) on the command line, on the demo corpus.
def figures(out: str) -> tuple:
    pair = json.loads(out)["pairs"][0]
    return pair["a"], pair["b"], pair["c"]


def in_scheme(capsys, source: Path, scheme: str, folder: Path) -> Path:
    """The demo CoNLL file ``source`` (IOB2) written in ``scheme``: through JSONL, as ``convert``'s
    reader and writer share ``--scheme`` (converting CoNLL to CoNLL reads in the scheme it writes)."""
    middle, out = folder / f"{source.stem}.jsonl", folder / f"{source.stem}.{scheme}.conll"
    assert run(capsys, "convert", source, "--to", "jsonl", "--out", middle)[0] == 0
    code, _, err = run(capsys, "convert", middle, "--to", "conll", "--scheme", scheme, "--out", out)
    assert code == 0, err
    return out


def test_agree_with_scheme_bilou_on_the_demo(demo, tmp_path, capsys):
    """The demo CoNLL files are IOB2: ann1 has 75 chunks (B- tags), ann2 73, and exact-strict
    ann1 × ann2 is a 61, b 14, c 12 (61 + 14 = 75, 61 + 12 = 73). Written in BILOU by the writer,
    they read back with --scheme bilou to the same figures."""
    conll = demo / "conll"
    code, out, _ = run(capsys, "agree", conll / "ann1.conll", conll / "ann2.conll", "--scheme", "iob2", "--output", "json")
    assert code == 0 and figures(out) == (61, 14, 12)
    bilou = {}
    for name, chunks in (("ann1", 75), ("ann2", 73)):
        bilou[name] = in_scheme(capsys, conll / f"{name}.conll", "bilou", tmp_path)
        prefixes = [line.split("\t")[1][:2] for line in bilou[name].read_text().splitlines()
                    if line and not line.startswith(DOCSTART)]
        # every chunk begins with B- (then ends with L-) or is a unit U-; BIOES's E- and S- are spelt L- and U-
        assert prefixes.count("B-") + prefixes.count("U-") == chunks
        assert prefixes.count("B-") == prefixes.count("L-") > 0 and prefixes.count("U-") > 0
        assert not {"E-", "S-"} & set(prefixes)
    code, out, err = run(capsys, "agree", bilou["ann1"], bilou["ann2"], "--scheme", "bilou", "--output", "json")
    assert code == 0 and figures(out) == (61, 14, 12) and "invalid" not in err


def test_strict_bilou_decoding_of_iob2_tags_drops_every_chunk(demo, capsys):
    """No IOB2 chunk ends as BILOU requires (on L- or U-): all 75 and 73 chunks are dropped."""
    conll = demo / "conll"
    code, out, err = run(capsys, "agree", conll / "ann1.conll", conll / "ann2.conll", "--scheme", "bilou",
                         "--output", "json")
    assert code == 0 and figures(out) == (0, 0, 0)
    assert f"{conll / 'ann1.conll'}: 75 invalid chunks dropped by strict bilou decoding" in err
    assert f"{conll / 'ann2.conll'}: 73 invalid chunks dropped by strict bilou decoding" in err


@pytest.mark.parametrize("scheme", SCHEME_NAMES)
def test_every_scheme_name_is_taken_by_the_command_line(demo, tmp_path, capsys, scheme):
    """Written in each scheme and read back in it: the demo's figures (IO cannot write touching
    chunks of one type, and the demo has none)."""
    paths = [in_scheme(capsys, demo / "conll" / f"{name}.conll", scheme, tmp_path) for name in ("ann1", "ann2")]
    code, out, err = run(capsys, "agree", *paths, "--scheme", scheme, "--output", "json")
    assert code == 0 and figures(out) == (61, 14, 12) and "invalid" not in err


# Documents that come with their tokens.
def test_conll_documents_come_with_their_tokens(demo):
    spanset = read(demo / "conll" / "ann1.conll")
    lines = (demo / "conll" / "ann1.conll").read_text(encoding="utf-8").splitlines()
    token_lines = [line for line in lines if line.strip() and not line.startswith(DOCSTART)]
    assert all(d.tokens_from_text for d in spanset.documents.values())
    tokens = [document_tokens(d) for d in spanset.documents.values()]
    assert sum(map(len, tokens)) == len(token_lines) == 565
    # each token's offsets give back the file's token, in file order
    texts = [d.text[s:e] for d in spanset.documents.values() for s, e in document_tokens(d)]
    assert texts == [line.split()[0] for line in token_lines]


@pytest.mark.parametrize("path", ["brat/ann1", "xml/ann1.xml", "jsonl/ann1.jsonl"])
def test_other_documents_do_not(demo, path):
    options = {"xml_doc_tag": "doc"} if path.startswith("xml") else {}
    spanset = read(demo / path, **options)
    assert len(spanset.documents) == 10
    assert not any(d.tokens_from_text for d in spanset.documents.values())
    assert all(document_tokens(d) is None for d in spanset.documents.values())


def test_document_stays_slotted_and_the_marker_defaults_to_false():
    document = Document("1", "EU rejects")
    assert not hasattr(document, "__dict__") and document.tokens_from_text is False
    assert document_tokens(Document("1", None, tokens_from_text=True)) is None
    assert document_tokens(Document("1", "St. Anne 's\nHospital", tokens_from_text=True)) == \
        conll_tokens("St. Anne 's\nHospital") == [(0, 3), (4, 8), (9, 11), (12, 20)]


def test_tokenizer_for_asks_the_documents(demo):
    conll = [read(demo / "conll" / f"ann{k}.conll") for k in (1, 2)]
    jsonl = read(demo / "jsonl" / "ann1.jsonl")
    assert tokenizer_for(conll) == "conll"
    assert tokenizer_for([conll[0], jsonl]) == "spacy"
    assert tokenizer_for([jsonl, jsonl]) == "spacy"


def spelt_differently(tmp_path):
    # gold  EU rejects German call     [EU]ORG [German]MISC [call]MISC-less
    # sys   EU rejected German call    the same tags; "rejected" moves German's offsets by one
    gold = tmp_path / "gold.conll"
    gold.write_text("EU\tB-ORG\nrejects\tO\nGerman\tB-MISC\ncall\tO\n", encoding="utf-8")
    pred = tmp_path / "sys.conll"
    pred.write_text("EU\tB-ORG\nrejected\tO\nGerman\tB-MISC\ncall\tO\n", encoding="utf-8")
    return gold, pred


@pytest.mark.parametrize("extra", [[], ["--jobs", "2"], ["--map", "ORG=GROUP"]])
def test_relabelled_conll_documents_are_still_compared_by_token(tmp_path, capsys, extra):
    """Regression: --only and --map make new documents (select_labels), which must keep the
    marker, or a token spelt differently would make the texts differ (an error)."""
    gold, pred = spelt_differently(tmp_path)
    code, out, err = run(capsys, "agree", gold, pred, "--only", "MISC", *extra, "--output", "json")
    assert code == 0, err
    assert figures(out) == (1, 0, 0)
    assert "1 token(s) are spelt differently across the CoNLL files" in err


def test_a_conll_document_and_a_jsonl_copy_are_compared_by_text(tmp_path, capsys):
    """Only when every copy comes with its tokens are they compared by token position."""
    gold, _ = spelt_differently(tmp_path)
    pred = tmp_path / "sys.jsonl"
    pred.write_text(json.dumps({"id": "1", "text": "EU rejected German call",
                                "spans": [{"start": 12, "end": 18, "label": "MISC"}]}) + "\n", encoding="utf-8")
    code, _, err = run(capsys, "agree", gold, pred)
    assert code == 1 and "document '1' has a different text in sys than in gold" in err
    pred.write_text(json.dumps({"id": "1", "text": "EU rejects German call",
                                "spans": [{"start": 11, "end": 17, "label": "MISC"}]}) + "\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        code, out, _ = run(capsys, "agree", gold, pred, "--output", "json")
    assert code == 0 and figures(out) == (1, 1, 0)
