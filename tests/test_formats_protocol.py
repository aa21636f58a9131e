"""Every registry entry keeps its declarations, and nothing outside ``spanagree/formats/`` names a
format.

A format declares its capabilities on its entry (:class:`spanagree.formats.Format`'s flags) and
its module registers the functions they call for (:data:`spanagree.formats.FORMAT_FUNCTIONS`).
The loops below run over :data:`~spanagree.formats.FORMATS`, so a format added later is checked
the day it is added: each function is registered exactly when its capability is declared, and
each capability holds on the format's demo sample (``corpora/demo/<format>/``, as the fuzz test
takes it). The rest of spanagree asks the entries (``fmt.tokens``, ``fmt.document_counter()``);
the source scan at the end keeps it from comparing format names again.
"""

from __future__ import annotations

import ast
import filecmp
import os
import warnings
from pathlib import Path

import pytest

from spanagree.errors import SpanagreeWarning
from spanagree.formats import (FORMAT_FUNCTIONS, FORMATS, DocumentFiles, FileWriter, FolderListing, Format,
                               FormatOption, collect, declares, detect_format, listed_documents, open_annotators,
                               path_options, registered_options, write_documents)

from conftest import DEMO

ROOT = Path(__file__).resolve().parent.parent


def sample(fmt: Format) -> Path:
    """The format's demo sample: the first entry of ``corpora/demo/<format>/``."""
    return sorted((DEMO / fmt.name).iterdir())[0]


@pytest.mark.parametrize("fmt", list(FORMATS.values()), ids=list(FORMATS))
def test_each_function_is_registered_exactly_when_its_capability_is_declared(fmt):
    for kind, spec in FORMAT_FUNCTIONS.items():
        function = fmt.registered(kind)
        if spec.required:
            assert callable(function), kind
        if spec.capability is not None:
            assert (function is not None) == getattr(fmt, spec.capability), (kind, spec.capability)
        if spec.needs is not None and function is not None:
            assert getattr(fmt, spec.needs), (kind, spec.needs)
    assert fmt.module == f"spanagree.formats.{fmt.name}"


@pytest.mark.parametrize("fmt", list(FORMATS.values()), ids=list(FORMATS))
def test_the_declarations_hold_on_the_demo_sample(fmt, tmp_path):
    path = sample(fmt)
    # detection: by extension, by the folder's files, or by content (recognises)
    assert detect_format(path) == fmt.name
    if fmt.recognises:
        head = None if path.is_dir() else path.read_bytes()[:4096]
        assert fmt.recogniser()(path, head) is True
    streams = open_annotators(path, fmt.name)
    assert streams and all(stream.format == fmt.name for stream in streams)
    listings = [stream.listing for stream in streams]
    spansets = [collect(stream) for stream in streams]
    if not fmt.container:
        assert len(spansets) == 1
    else:
        # a container's span sets, whatever their role; the command takes its annotators'
        assert [s.name for s in fmt.annotators()(path) if s.role == "annotator"] == [s.name for s in spansets]
    documents = [document for spanset in spansets for document in spanset.documents.values()]
    assert len(documents) >= 10
    # tokens: every document comes with its tokens, or none does
    assert [document.tokens_from_text for document in documents] == [fmt.tokens] * len(documents)
    if fmt.numbered:
        for spanset in spansets:
            assert list(spanset.documents) == [str(n) for n in range(1, len(spanset.documents) + 1)]
    counter = fmt.document_counter()
    if counter is not None:
        assert counter(path) == len(spansets[0].documents) == 10
    if fmt.splits:
        starts = list(fmt.document_starts()(path))
        assert len(starts) == len(spansets[0].documents) and starts[0] == (0, 0)
        assert [offset for offset, _ in starts] == sorted({offset for offset, _ in starts})
    if fmt.folder_shards and path.is_dir():
        # the folder listed, nothing read; read whole, the listing gives the stream's documents
        listing = listings[0] if fmt.container else fmt.lister()(path)
        assert isinstance(listing, FolderListing) and listing.format == fmt.name and listing.units
        notes: list[str] = []
        assert [d.id for d in listed_documents(listing, notes)] == list(spansets[0].documents)
    if fmt.writable:
        written = tmp_path / "written"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SpanagreeWarning)
            fmt.writer()(spansets[0], written)
        assert written.is_dir() == fmt.writes_to_folder
        (again,) = [collect(s) for s in open_annotators(written, fmt.name)][:1]
        assert len(again.documents) == len(spansets[0].documents)
        assert len(again) == len(spansets[0])
        file_writer = fmt.file_writer()
        if file_writer is not None:
            assert isinstance(file_writer(), FileWriter)
            write_documents(file_writer(), spansets[0], tmp_path / "documents")
            assert (tmp_path / "documents").read_bytes() == written.read_bytes()
        files = fmt.document_files()
        if files is not None:
            assert isinstance(files, DocumentFiles)
            one_at_a_time = tmp_path / "one-at-a-time"
            one_at_a_time.mkdir()
            for doc_id, document in spansets[0].documents.items():
                files.write(str(one_at_a_time), doc_id, document)
                assert all(os.path.isfile(file) for file in files.paths(str(one_at_a_time), doc_id))
            comparison = filecmp.dircmp(written, one_at_a_time)
            assert not comparison.left_only and not comparison.right_only and not comparison.diff_files
    assert fmt.written_in_parts() == (fmt.file_writer() is not None or fmt.document_files() is not None)


def test_brat_announces_the_lines_no_span_keeps():
    """BRAT's notes count its equivalences, which no span set keeps (relations and events are kept);
    its unkept function turns them into what a writer announces."""
    brat = FORMATS["brat"]
    notes = ["3 relations, 1 event read (compared with --relations)", "2 equivalences, 139 notes read and not compared"]
    assert brat.unkept(notes) == {"equivalence": 2}
    assert FORMATS["conll"].unkept(notes) == {}


def test_the_capabilities_the_rest_of_spanagree_asks_for():
    """What each old special case by name now asks the registry, with the answers the names gave."""
    assert [name for name, fmt in FORMATS.items() if fmt.tokens] == ["conll"]
    assert [name for name, fmt in FORMATS.items() if fmt.numbered] == ["conll"]
    assert [name for name, fmt in FORMATS.items() if fmt.document_files() is not None] == ["brat"]
    assert [name for name, fmt in FORMATS.items() if fmt.written_in_parts()] == ["brat", "xml", "conll", "jsonl"]
    assert [name for name, fmt in FORMATS.items() if fmt.document_counter() is not None] == ["brat", "conll", "jsonl"]
    assert [name for name, fmt in FORMATS.items() if fmt.document_names() is not None] == ["conll"]
    assert path_options() == ("doccano_labels", "xmi_typesystem")
    assert [option.keyword for option, _ in registered_options() if option.path] == ["doccano_labels", "xmi_typesystem"]
    assert declares("conll", "tokens") and not declares("jsonl", "tokens") and not declares("nosuch", "tokens")


def test_a_format_registers_only_what_it_declares():
    toy = Format(name="toy", title="Toy", description="a test format", extensions=(".toy",))
    with pytest.raises(ValueError, match="^format 'toy' does not declare container: it registers no annotators$"):
        toy.provides("annotators")
    with pytest.raises(ValueError, match="^no format function 'reader'; the kinds are: streamer, writer, "):
        toy.provides("reader")
    with pytest.raises(ValueError, match="^no format function 'reader'"):
        toy.registered("reader")
    with pytest.raises(AttributeError, match="^format 'toy' has no annotators: it does not declare container$"):
        toy.annotators()
    with pytest.raises(AttributeError, match="^format 'toy' has no streamer: none is registered on it$"):
        toy.streamer()
    assert toy.file_writer() is None and toy.document_counter() is None and toy.unkept(["1 relation"]) == {}

    @toy.provides("streamer")
    def stream_toy(path, *, name=None):
        return None

    assert toy.streamer() is stream_toy and FORMATS.get("toy") is None
    container = Format(name="box", title="Box", description="a container", container=True,
                       options=(FormatOption("box_level", "how deep"),))
    lister = container.provides("annotators", lambda path, **options: [])
    assert container.annotators() is lister


# The source scan: no format name compared as a string outside spanagree/formats/.
FORMAT_NAMES = frozenset(FORMATS)

#: Comparisons with a format's name that are about something else: the tokenizer called "conll"
#: (token_agreement's ``tokens=``, the JSON's ``chance.tokenizer``), by the name it is compared with.
NOT_FORMATS = {("spanagree/measures/tokens.py", "tokens")}


def _names(node: ast.AST) -> set[str]:
    """The format names a comparison's operand spells: a string, or a tuple, list or set of them."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in FORMAT_NAMES:
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return set().union(*(_names(element) for element in node.elts)) if node.elts else set()
    return set()


def format_name_comparisons(source: str, where: str = "<source>") -> list[str]:
    """``where:line: comparison`` of every comparison in ``source`` with a format's name (``==``,
    ``!=``, ``in``, ``match`` cases), and every function looked up by a name it builds
    (``getattr(module, f"stream_{name}")``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(_names(operand) for operand in operands):
                others = {ast.unparse(operand) for operand in operands if not _names(operand)}
                if not any((where, other) in NOT_FORMATS for other in others):
                    found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.MatchValue) and _names(node.value):
            found.append(f"{where}:{node.lineno}: case {ast.unparse(node.value)}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
              and len(node.args) > 1 and isinstance(node.args[1], ast.JoinedStr)):
            found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_scan_finds_what_it_looks_for():
    source = ('if fmt == "brat" or "conll" != found or found in ("jsonl", "x") or fmt.name in {"xml"}:\n'
              '    f = getattr(module, f"stream_{name}")\n'
              'match fmt:\n'
              '    case "gate":\n'
              '        pass\n'
              'if tokens == "spacy" or kind == "relation":\n'
              '    pass\n')
    assert [line.split(": ", 1)[0] for line in format_name_comparisons(source)] == [
        "<source>:1", "<source>:1", "<source>:1", "<source>:1", "<source>:2", "<source>:4"]
    assert format_name_comparisons('if tokens == "conll":\n    pass\n', "spanagree/measures/tokens.py") == []
    assert format_name_comparisons('if tokens == "conll":\n    pass\n', "spanagree/cli.py") == [
        "spanagree/cli.py:1: tokens == 'conll'"]


def test_no_module_outside_formats_compares_a_format_name():
    package = ROOT / "spanagree"
    found = []
    for path in sorted(package.rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        if where.startswith("spanagree/formats/"):
            continue
        found += format_name_comparisons(path.read_text(encoding="utf-8"), where)
    assert found == [], "ask the format's registry entry (a capability, a registered function):\n" + "\n".join(found)


def test_nothing_looks_a_format_function_up_by_its_name():
    """Inside formats/ too: the entries hold their functions (registered), none is built from a name."""
    found = []
    for path in sorted((ROOT / "spanagree" / "formats").rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        found += [line for line in format_name_comparisons(path.read_text(encoding="utf-8"), where)
                  if "getattr(" in line or "hasattr(" in line]
    assert found == []
