"""Comparing while reading (spanagree.pipeline.sequential) gives what reading everything first gives.

The property tests build annotators' document streams in memory — documents in any order, some
missing, texts that differ (in whitespace or beyond), warnings given while reading and at the
end, reading errors anywhere — and check that agree / score on the streams return the same
result (every figure, to the last bit), give the same warnings in the same order and raise the
same error as agree / score on the collected span sets. Batches of 1-3 documents make every
batch boundary occur.
"""

from __future__ import annotations

import json
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spanagree.pipeline import analyses, sequential as streaming
from spanagree.pipeline.analyses import ANALYSES, Analysis
from spanagree.agreement import agree
from spanagree.errors import FormatError, SpanagreeError, SpanagreeWarning
from spanagree.formats import DocumentStream, collect, open_stream
from spanagree.scoring import score
from spanagree.span import Document, Span

TEXTS = ["Ana met Bo in Porto", "Ana  met Bo in Porto", "Ana met Bo in Porto.", "Bo met Ana"]
LABELS = ["PER", "LOC"]


@st.composite
def documents(draw, pool: list[str]):
    """Most of the pool's documents, in any order; each document's text mostly its own, sometimes
    a copy differing in whitespace or beyond."""
    ids = [d for d in draw(st.permutations(pool)) if draw(st.integers(0, 6))]
    result = []
    for doc_id in ids:
        base = 0 if int(doc_id[1:]) % 2 == 0 else 3
        variant = draw(st.integers(0, 9))
        text = TEXTS[1] if variant == 0 and base == 0 else TEXTS[2] if variant == 1 else TEXTS[base]
        spans = []
        for _ in range(draw(st.integers(0, 5))):
            start = draw(st.integers(0, len(text) - 1))
            end = draw(st.integers(start + 1, min(len(text), start + 8)))
            spans.append(Span(doc_id, ((start, end),), draw(st.sampled_from(LABELS))))
        result.append(Document(doc_id, text, spans, f"{doc_id}.src"))
    return result


@st.composite
def annotator(draw, pool: list[str], index: int):
    """(name, documents, warn at positions, error at position or None, warn at end)."""
    docs = draw(documents(pool))
    warn_at = draw(st.sets(st.integers(0, max(len(docs) - 1, 0)), max_size=2)) if docs else set()
    error_at = draw(st.one_of(st.none(), st.integers(0, len(docs)))) if draw(st.integers(0, 5)) == 0 else None
    return (f"ann{index}" if draw(st.integers(0, 4)) else "same", docs, warn_at, error_at, draw(st.booleans()))


def stream_of(spec) -> DocumentStream:
    name, docs, warn_at, error_at, warn_at_end = spec
    stream = DocumentStream(name, "jsonl", iter(()))

    def generate():
        for position, document in enumerate(docs):
            if position in warn_at:
                warnings.warn(f"{name}: note at {position}", SpanagreeWarning)
            if position == error_at:
                raise FormatError(f"{name}.jsonl", "bad record", position + 1)
            yield Document(document.id, document.text, list(document.spans), document.source)
        if error_at == len(docs):
            raise FormatError(f"{name}.jsonl", "bad end", len(docs) + 1)
        if warn_at_end:
            warnings.warn(f"{name}: ended", SpanagreeWarning)
        stream.notes.append(f"{len(docs)} read")
    stream.documents = generate()
    return stream


def outcome(function):
    """(result as comparable data or None, the warnings' messages in order, the error or None)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result, error = function(), None
        except SpanagreeError as exc:
            result, error = None, (type(exc).__name__, str(exc))
    return result, [str(w.message) for w in caught], error


def comparable(value) -> str:
    """JSON with NaN spelt out, so that two results compare equal to the last bit."""
    return json.dumps(value, sort_keys=True, default=str, allow_nan=True)


def collected(specs):
    return [collect(stream_of(spec)) for spec in specs]


MATCHING = st.fixed_dictionaries({
    "match": st.sampled_from(["exact", "overlap", "partial"]),
    "labels": st.sampled_from(["strict", "ignore"]),
    "partial_credit": st.sampled_from([0.5, "dice"]),
    "align_whitespace": st.booleans(),
})


@st.composite
def corpora(draw, least: int, most: int):
    pool = [f"d{i}" for i in range(draw(st.integers(1, 7)))]
    k = draw(st.integers(least, most))
    return [draw(annotator(pool, i)) for i in range(k)]


@settings(max_examples=300)
@given(corpora(2, 3), MATCHING, st.integers(1, 3))
@pytest.mark.slow
def test_agree_streams_is_agree_on_what_was_read(specs, matching, batch):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(streaming, "BATCH_DOCUMENTS", batch)
        expected = outcome(lambda: comparable(agree(collected(specs), **matching).to_dict(by_document=True)))
        got = outcome(lambda: comparable(agree([stream_of(s) for s in specs], **matching)
                                         .to_dict(by_document=True)))
    assert got == expected


@settings(max_examples=300)
@given(corpora(2, 4), MATCHING, st.integers(1, 3), st.sampled_from([1.0, 2.0]))
@pytest.mark.slow
def test_score_streams_is_score_on_what_was_read(specs, matching, batch, beta):
    def read_first():
        gold, *preds = collected(specs)
        results = score(gold, preds, beta=beta, errors=True, **matching)
        return comparable([[r.to_dict(by_document=True), [i.as_dict() for i in r.errors()]] for r in results])

    def streamed():
        gold, *preds = [stream_of(s) for s in specs]
        results = score(gold, preds, beta=beta, errors=True, **matching)
        return comparable([[r.to_dict(by_document=True), [i.as_dict() for i in r.errors()]] for r in results])

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(streaming, "BATCH_DOCUMENTS", batch)
        assert outcome(streamed) == outcome(read_first)


class DocumentsCompared(Analysis):
    """How many documents have been compared so far (a made-up analysis, seen from outside)."""

    key = "documents_compared"

    def __init__(self, seen: list[int]):
        self.seen = seen

    def observe(self, tally, batch) -> None:
        self.seen[0] += len(batch.documents)


@pytest.fixture
def held(monkeypatch):
    """``(watched, held)``: ``watched(stream)`` is ``stream`` recording in ``held``, as each
    document is read, how many documents read so far (by every watched stream) have not been
    compared yet (two copies each; a run's analyses must name ``"documents_compared"``)."""
    read, compared, held = [0], [0], []
    monkeypatch.setitem(ANALYSES, "documents_compared", lambda options, plan: DocumentsCompared(compared))
    monkeypatch.setattr(analyses, "EXTRA", analyses.EXTRA | {"documents_compared"})

    def watched(stream: DocumentStream) -> DocumentStream:
        def documents():
            for document in stream.documents:
                read[0] += 1
                held.append(read[0] - 2 * compared[0])
                yield document

        return DocumentStream(stream.name, stream.format, documents(), stream.notes)

    return watched, held


def test_one_document_at_a_time_when_the_orders_agree(tmp_path, held):
    """Same order in both files: no more than a batch is ever held (documents are compared as
    soon as a batch's copies are read, not after the files are read)."""
    lines = [json.dumps({"id": f"d{i}", "text": "Ana met Bo", "spans": [{"start": 0, "end": 3, "label": "PER"}]})
             for i in range(500)]
    (tmp_path / "a.jsonl").write_text("\n".join(lines) + "\n")
    (tmp_path / "b.jsonl").write_text("\n".join(lines[:250] + lines[251:]) + "\n")  # d250 missing
    watched, held = held
    with pytest.warns(SpanagreeWarning, match="1 document.s. not annotated by every annotator.*d250"):
        result = agree([watched(open_stream(tmp_path / name)) for name in ("a.jsonl", "b.jsonl")],
                       analyses=["documents_compared"])
    assert result.pooled.a == 499 and len(result.documents) == 499 and len(held) == 999
    # a batch of each stream, the document given up (d250) and the one being read: never the files
    assert max(held) <= streaming.BATCH_DOCUMENTS * 2 + 4
    assert held[-1] >= streaming.BATCH_DOCUMENTS  # compared in batches: the last waits for the files' ends


def test_a_folder_of_xml_files_leaves_no_parser_behind(tmp_path):
    """lxml's iterparse, filtering a tag in any namespace, keeps the parser and the file's tree in
    a reference cycle; the reader filters the tags itself, so each file's parser dies with it."""
    import gc

    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        for i in range(300):
            (tmp_path / name / f"d{i:03}.xml").write_text(  # as spanagree convert --to xml writes them
                f'<?xml version="1.0"?>\n<?spanagree xml_doc_tag="doc"?>\n<corpus>\n'
                f'<doc id="d{i:03}"><PER>Ana</PER> met Bo</doc>\n</corpus>\n')
    parsers = []

    def counted(compare):
        def compare_counting(*args, **kwargs):
            parsers.append(sum(type(o).__name__ == "XMLPullParser" for o in gc.get_objects()))
            return compare(*args, **kwargs)
        return compare_counting

    gc.collect()
    with pytest.MonkeyPatch.context() as patch:
        from spanagree.agreement import PairsComparison

        patch.setattr(PairsComparison, "compare", counted(PairsComparison.compare))
        result = agree([open_stream(tmp_path / "a"), open_stream(tmp_path / "b")])
    assert result.pooled.a == 300 and len(result.documents) == 300
    assert len(parsers) == 5  # 300 documents in batches of 64
    assert max(parsers) <= 2  # at most each stream's open file's, not a batch's (128) or every file's (600)


def test_reference_cycles_a_reader_leaves_are_freed_batch_by_batch():
    """The collector is paused while a run streams; the cycles each document's reading leaves
    behind are freed after each batch (spanagree.collector.collect_young), not at the end."""
    import weakref

    class Parser:  # what a reader holds in a cycle, as lxml's iterparse did
        pass

    alive = []

    def documents(name):
        for i in range(300):
            parser = Parser()
            parser.itself = parser
            weakref.finalize(parser, alive.append, -1)
            alive.append(1)
            yield Document(f"d{i:03}", "Ana met Bo", [Span(f"d{i:03}", (0, 3), "PER")], name)

    most = []

    def counted(compare):
        def compare_counting(*args, **kwargs):
            most.append(sum(alive))
            return compare(*args, **kwargs)
        return compare_counting

    with pytest.MonkeyPatch.context() as patch:
        from spanagree.agreement import PairsComparison

        patch.setattr(PairsComparison, "compare", counted(PairsComparison.compare))
        result = agree([DocumentStream("a", "jsonl", documents("a")), DocumentStream("b", "jsonl", documents("b"))])
    assert result.pooled.a == 300
    # before each batch is compared: its own 128 parsers, and those of the document each stream was
    # reading when the batch before was collected (promoted out of reach: 2 per batch)
    assert most[0] == 128 and max(most) <= 128 + 2 * len(most)


def test_a_prediction_lacking_a_document_does_not_hold_the_rest(tmp_path, held):
    """The gold's d3 waits for the prediction to end; the documents after it are compared meanwhile."""
    gold = [json.dumps({"id": f"d{i}", "text": "Ana met Bo", "spans": [{"start": 0, "end": 3, "label": "PER"}]})
            for i in range(300)]
    (tmp_path / "gold.jsonl").write_text("\n".join(gold) + "\n")
    (tmp_path / "sys.jsonl").write_text("\n".join(gold[:3] + gold[4:]) + "\n")
    watched, held = held
    with pytest.warns(SpanagreeWarning, match="sys: 1 gold document.s. have no prediction.*d3"):
        (result,) = score(watched(open_stream(tmp_path / "gold.jsonl")), [watched(open_stream(tmp_path / "sys.jsonl"))],
                          analyses=["documents_compared"])
    assert (result.counts.a, result.counts.b, result.counts.c) == (299, 0, 1)
    assert list(result.pair.by_document)[:5] == ["d0", "d1", "d2", "d3", "d4"]
    assert result.pair.by_document["d3"].c == 1
    assert max(held) <= streaming.BATCH_DOCUMENTS * 2 + 4


def test_the_first_file_error_is_reported_as_reading_everything_first_would(tmp_path):
    """ann2 fails on its first record, ann1 on its last: reading ann1 whole first meets ann1's error."""
    good = json.dumps({"id": "d1", "text": "Ana", "spans": []})
    (tmp_path / "ann1.jsonl").write_text("\n".join([good] + [json.dumps({"id": f"x{i}", "text": "Ana", "spans": []})
                                                             for i in range(50)] + ["{broken"]) + "\n")
    (tmp_path / "ann2.jsonl").write_text("{broken\n")
    with pytest.raises(FormatError, match=r"ann1.jsonl:52: invalid JSON"):
        agree([open_stream(tmp_path / "ann1.jsonl"), open_stream(tmp_path / "ann2.jsonl")])


def run_cli(args, capsys):
    from spanagree.cli import main

    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("fmt, ext", [("brat", ""), ("conll", ".conll"), ("jsonl", ".jsonl"), ("xml", ".xml")])
@pytest.mark.parametrize("command", ["agree", "score"])
def test_the_command_line_streams_and_reports_what_reading_whole_reports(fmt, ext, command, tmp_path, capsys):
    """One process compares while reading; --jobs 2 reads every file whole first. Same report (JSON
    and table), same warnings, same --errors listing."""
    from conftest import DEMO

    paths = [str(DEMO / fmt / f"ann{k}{ext}") for k in (1, 2, 3)]
    extra = ["--match", "overlap", "--by", "document"] + (["--xml-doc-tag", "doc"] if fmt == "xml" else [])
    outputs = []
    for jobs in ("1", "2"):
        args = [command, *paths, *extra, "--jobs", jobs, "--output", "json"]
        if command == "score":
            args += ["--errors", str(tmp_path / f"errors{jobs}.csv")]
        code, out, err = run_cli(args, capsys)
        assert code == 0, err
        report = json.loads(out)
        assert report["options"].pop("jobs") == int(jobs)
        report["options"].pop("errors", None)
        outputs.append((report, err))
    assert outputs[0] == outputs[1]
    if command == "score":
        assert (tmp_path / "errors1.csv").read_text() == (tmp_path / "errors2.csv").read_text()
        assert len((tmp_path / "errors1.csv").read_text().splitlines()) > 10
