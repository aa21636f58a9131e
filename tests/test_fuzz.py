"""Fuzzing every registered format through the real command line (issue 12).

For each format of :data:`spanagree.formats.FORMATS` — so that a format added later is fuzzed the
day it is added — the first annotator of the demo corpus (``corpora/demo/<format>/``) is copied,
one of its files mutated with seeded mutations (byte flips, truncation, duplicated, deleted and
swapped lines, huge numbers, deep nesting, lone surrogates, NUL bytes, CRLF, a byte-order mark,
odd digits; issue 32: a JSON field given a value of another type, an XML prolog padded with 70,000
newlines, comments or a DOCTYPE, an XML file in UTF-16, a DocBin's message with a field of another
type or a byte array flipped or cut), and the copy run through ``convert`` (to every format in turn), ``agree`` and
``score --errors``. The contract, for every case:

* exit 0, or exit 1 (bad input) / 2 (bad usage) with exactly one ``spanagree: error:`` line on
  stderr, naming the mutated input (exit 1) — never a traceback (an exception out of ``main``
  fails the test);
* nothing left behind in the output's folder: the output when the run succeeded, else nothing
  (no hidden temporary folder);
* no input changed (SHA-256 of every input file before and after).

A failure names the format, the case number and the mutations, so it can be replayed with
:func:`mutated_case`.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import zlib
from pathlib import Path

import pytest

from spanagree.cli import main
from spanagree.formats import FORMATS, writable_formats

from conftest import DEMO
from json_swaps import swap_one

pytestmark = pytest.mark.slow  # every format mutated hundreds of times: the full suite only

CASES = 250  # per format: about 15 s of CPU for the four formats

# Bytes a hostile file holds: what broke readers before (issue 12) and what parsers trip on.
HOSTILE = [
    b"\x00", b"\r\n", b"\r", b"\xef\xbb\xbf", b"\xff", b"\xc3", b"\xed\xa0\x80", b"\t", b" ", b"\n\n", b";",
    b"\\ud800", b"\\udfff", b'"\\ud83d"', b"1" * 5000, b"-1", b"+0", b"1_0", "\u0663".encode(), b"0x1f",
    b"99999999999999999999", b"[" * 20000, b"{" * 20000, b"<a>" * 2000, b"<", b"&x;", b"&#0;", b"]]>", b'"',
    b"-DOCSTART- O\n", b"B-", b"I-PER", b"T1\tPER 0 3\tx\n", b"T99\t \n", b"R1\tRel Arg1:T1 Arg2:T9\n",
    b'{"id": 1}', b"null", b"NaN", b"1e999", b"\\", b"\xe2\x80\xa8",
]


def sample(fmt: str) -> Path:
    """The format's demo sample: the first entry (annotator) of ``corpora/demo/<format>/``."""
    folder = DEMO / fmt
    entries = sorted(p for p in folder.iterdir()) if folder.is_dir() else []
    assert entries, f"format {fmt!r} is registered but has no demo sample in {folder} to fuzz"
    return entries[0]


def files_of(path: Path) -> list[Path]:
    return [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())


def digest(path: Path) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in files_of(path)}


# -- mutations: (bytes, rng) -> bytes ---------------------------------------------------------


def flip(data: bytes, rng: random.Random) -> bytes:
    data = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if data:
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    return bytes(data)


def truncate(data: bytes, rng: random.Random) -> bytes:
    return data[:rng.randrange(len(data) + 1)]


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True) or [b""]


def duplicate_line(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i = rng.randrange(len(lines))
    return b"".join(lines[:i + 1] + [lines[i]] + lines[i + 1:])


def delete_line(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    del lines[rng.randrange(len(lines))]
    return b"".join(lines)


def swap_lines(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return b"".join(lines)


def insert_hostile(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + rng.choice(HOSTILE) + data[at:]


def replace_digits(data: bytes, rng: random.Random) -> bytes:
    """A run of ASCII digits (an offset, a number) replaced by something a parser may take for one."""
    runs = [i for i in range(len(data)) if 48 <= data[i] <= 57 and (i == 0 or not 48 <= data[i - 1] <= 57)]
    if not runs:
        return insert_hostile(data, rng)
    at = rng.choice(runs)
    end = at
    while end < len(data) and 48 <= data[end] <= 57:
        end += 1
    return data[:at] + rng.choice([b"1" * 5000, b"-7", b"+3", b"1_0", "\u0663".encode(), b"", b"4294967296",
                                   b"9" * 30, b"0.5", b"1e3"]) + data[end:]


def crlf(data: bytes, rng: random.Random) -> bytes:
    return data.replace(b"\n", b"\r\n")


def bom(data: bytes, rng: random.Random) -> bytes:
    return b"\xef\xbb\xbf" + data


def nul(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + b"\x00" * rng.randint(1, 3) + data[at:]


def swap_json_type(data: bytes, rng: random.Random) -> bytes:
    """A JSON file's (or one JSON line's) field given a value of another type (issue 32: a list for a
    string, an object for a number, ...); other files get a hostile insertion."""
    try:
        document = json.loads(data)
    except ValueError:
        lines = data.split(b"\n")
        filled = [i for i, line in enumerate(lines) if line.strip()]
        if not filled:
            return insert_hostile(data, rng)
        at = rng.choice(filled)
        try:
            record = json.loads(lines[at])
        except ValueError:
            return insert_hostile(data, rng)
        if swap_one(record, rng) is None:
            return insert_hostile(data, rng)
        lines[at] = json.dumps(record).encode()  # (escaped: a lone surrogate stays one)
        return b"\n".join(lines)
    if swap_one(document, rng) is None:
        return insert_hostile(data, rng)
    return json.dumps(document).encode()


def swap_packed_type(data: bytes, rng: random.Random) -> bytes:
    """Inside a zlib-compressed msgpack message (a spaCy DocBin), one field given a value of another
    type or one of its byte arrays (lengths, tokens, ...) flipped, the message packed again; other
    files get a JSON type swap."""
    import srsly

    try:
        message = srsly.msgpack_loads(zlib.decompress(data))
    except Exception:
        return swap_json_type(data, rng)
    arrays = [key for key, value in message.items() if isinstance(value, bytes)] if isinstance(message, dict) else []
    if arrays and rng.random() < 0.5:
        key = rng.choice(arrays)
        message[key] = flip(message[key], rng) if rng.random() < 0.5 else truncate(message[key], rng)
    elif swap_one(message, rng) is None:
        return insert_hostile(data, rng)
    return zlib.compress(srsly.msgpack_dumps(message))


# What may stand before an XML file's root (issue 32): what a byte search for a DOCTYPE missed.
PROLOGS = [b"\n" * 70_000, b"<!-- a comment -->\n", b"<?pi x?>\n", b"<!DOCTYPE x>\n",
           b'<!DOCTYPE x [<!ENTITY e "PER">]>\n', b"\n" * 70_000 + b'<!DOCTYPE x [<!ENTITY e "&#60;x/&#62;">]>']


def _declaration_end(data: bytes) -> int | None:
    """Where an XML file's prolog may take more (after its declaration); ``None`` when it is not XML."""
    head = data.lstrip()
    if not head.startswith(b"<"):
        return None
    if data.startswith(b"<?xml"):
        return data.find(b"?>") + 2
    return 0


def pad_prolog(data: bytes, rng: random.Random) -> bytes:
    """An XML file's prolog padded (newlines, comments, a processing instruction, a DOCTYPE)."""
    at = _declaration_end(data)
    if at is None or at < 0:
        return insert_hostile(data, rng)
    return data[:at] + rng.choice(PROLOGS) + data[at:]


def reencode(data: bytes, rng: random.Random) -> bytes:
    """An XML file written in UTF-16 (little or big endian, with a byte-order mark) and declared so."""
    at = _declaration_end(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return insert_hostile(data, rng)
    if at is None or at < 0:
        return insert_hostile(data, rng)
    encoding = rng.choice(["utf-16", "utf-16-le", "utf-16-be"])
    declaration = '<?xml version="1.0" encoding="UTF-16"?>'
    body = text[at:] if text.startswith("<?xml") else text
    encoded = (declaration + body).encode(encoding)
    return encoded if encoding == "utf-16" else ("\ufeff" + declaration + body).encode(encoding)


MUTATIONS = [flip, truncate, duplicate_line, delete_line, swap_lines, insert_hostile, insert_hostile,
             replace_digits, replace_digits, crlf, bom, nul, swap_json_type, swap_packed_type, pad_prolog, reencode]


def mutated_case(fmt: str, case: int, where: Path) -> tuple[Path, str]:
    """Case ``case`` of format ``fmt``: the sample copied into ``where`` with one of its files mutated.

    Returns the copy and a description of what was done (for a failure's message). Seeded by the
    format's name and the case number, so every run mutates the same way.
    """
    rng = random.Random(f"{fmt}:{case}")
    original = sample(fmt)
    copy = where / original.name
    if original.is_dir():
        shutil.copytree(original, copy)
    else:
        shutil.copy(original, copy)
    target = rng.choice(files_of(copy))
    data = target.read_bytes()
    chosen = [rng.choice(MUTATIONS) for _ in range(rng.randint(1, 3))]
    for mutation in chosen:
        data = mutation(data, rng)
    target.write_bytes(data)
    return copy, f"{fmt} case {case}: {target.relative_to(where)} mutated by {[m.__name__ for m in chosen]}"


def commands(fmt: str, case: int, copy: Path, out: Path) -> list[list[str]]:
    """What the case runs: a conversion (to every format in turn) and, every third case, agree and score."""
    targets = writable_formats()
    to = targets[case % len(targets)]
    dest = out / ("converted" if FORMATS[to].writes_to_folder else f"converted.{to}")
    runs = [["convert", str(copy), "--from", fmt, "--to", to, "--out", str(dest)]]
    if FORMATS[fmt].strings:  # string predictions: only scored, against a gold with texts (convert refuses them)
        gold = str(DEMO / "jsonl" / "ann1.jsonl")
        return runs + [["score", gold, str(copy), "--errors", str(out / "errors.csv")]]
    if case % 3 == 0:
        original = str(sample(fmt))
        runs.append(["agree", str(copy), original, "--format", fmt])
        runs.append(["score", original, str(copy), "--format", fmt, "--errors", str(out / "errors.csv")])
    return runs


def check_contract(argv: list[str], code: int, err: str, copy: Path, original: Path, out: Path, what: str) -> None:
    where = f"{what}: spanagree {' '.join(argv)}\n{err}"
    assert "Traceback" not in err, where
    lines = err.splitlines()
    assert all(line.startswith(("spanagree: warning: ", "spanagree: error: ")) for line in lines), where
    errors = [line for line in lines if line.startswith("spanagree: error: ")]
    if code == 0:
        assert errors == [], where
        return
    assert code in (1, 2), where
    assert len(errors) == 1 and errors == lines[-1:], where
    if code == 1:  # bad input: the message names an input's file (the mutated one; for agree and
        # score, a document whose text differs may be named in the other input's file)
        inputs = [str(copy)] if argv[0] == "convert" else [str(copy), str(original)]
        assert any(name in errors[0] for name in inputs), where
    else:  # a writer's refusal names the document it cannot write
        assert "document " in errors[0] or str(copy) in errors[0], where
    hidden = [p.name for p in out.iterdir() if p.name.startswith(".")]
    assert hidden == [], where


def test_every_registered_format_has_a_demo_sample():
    for fmt in FORMATS:
        assert files_of(sample(fmt)), f"{fmt}: the demo sample holds no file"


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_mutated_inputs_keep_the_contract(tmp_path, capsys, fmt):
    outcomes = {0: 0, 1: 0, 2: 0}
    for case in range(CASES):
        where = tmp_path / str(case)
        where.mkdir()
        copy, what = mutated_case(fmt, case, where)
        before = digest(copy)
        out = tmp_path / f"{case}-out"
        out.mkdir()
        for argv in commands(fmt, case, copy, out):
            code = main(argv)
            _, err = capsys.readouterr()
            check_contract(argv, code, err, copy, sample(fmt), out, what)
            outcomes[code] = outcomes.get(code, 0) + 1
            written = sorted(p.name for p in out.iterdir())
            if argv[0] == "convert":
                expected = [Path(argv[-1]).name] if code == 0 else []
                assert written == expected, f"{what}: {written}"
                if code == 0:
                    shutil.rmtree(argv[-1]) if Path(argv[-1]).is_dir() else Path(argv[-1]).unlink()
        assert digest(copy) == before, f"{what}: an input changed"
        shutil.rmtree(where)
        shutil.rmtree(out)
    # the mutations reach both sides of the contract: some files still read, some are refused
    assert outcomes[0] and outcomes[1], outcomes
