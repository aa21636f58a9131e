"""Folders are read in natural order (``doc2`` before ``doc10``): BRAT and XML folders, in one
process and under ``--jobs``, so that CoNLL → BRAT → CoNLL keeps the documents' order."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from spanagree.cli import main
from spanagree.formats import convert, natural_key, read


def _conll(documents: int) -> str:
    """``documents`` one-sentence documents; document k says ``wordk`` tagged B-L<k>."""
    return "".join(f"-DOCSTART-\tO\n\nword{k}\tB-L{k}\nend\tO\n\n" for k in range(1, documents + 1))


def test_natural_key_orders_numbers_as_numbers():
    names = ["doc10", "doc2", "doc1", "sub/doc10", "sub/doc9", "doc02", "a"]
    assert sorted(names, key=natural_key) == ["a", "doc1", "doc02", "doc2", "doc10", "sub/doc9", "sub/doc10"]


@given(st.lists(st.text(alphabet="ab09/-", max_size=6), unique=True, max_size=12))
def test_natural_key_is_a_total_order_independent_of_input_order(names):
    ordered = sorted(names, key=natural_key)
    assert sorted(reversed(names), key=natural_key) == ordered
    keys = [natural_key(n) for n in ordered]
    assert len(set(keys)) == len(names)  # distinct names, distinct keys
    assert all(a < b for a, b in zip(keys, keys[1:]))


def test_conll_to_brat_to_conll_keeps_the_order(tmp_path):
    source = tmp_path / "in.conll"
    source.write_text(_conll(12), encoding="utf-8")
    convert(source, tmp_path / "brat", to="brat")
    brat = read(tmp_path / "brat")
    assert list(brat.documents) == [str(k) for k in range(1, 13)]  # 2 before 10
    convert(tmp_path / "brat", tmp_path / "back.conll", to="conll")
    assert (tmp_path / "back.conll").read_text(encoding="utf-8") == source.read_text(encoding="utf-8")
    labels = [s.label for s in read(tmp_path / "back.conll")]
    assert labels == [f"L{k}" for k in range(1, 13)]


def test_xml_folder_in_natural_order(tmp_path):
    folder = tmp_path / "xml"
    (folder / "sub").mkdir(parents=True)
    for stem in ("doc10", "doc2", "doc1", "sub/doc11", "sub/doc3"):
        (folder / f"{stem}.xml").write_text(f"<doc><X>{stem}</X></doc>", encoding="utf-8")
    assert list(read(folder).documents) == ["doc1", "doc2", "doc10", "sub/doc3", "sub/doc11"]


@pytest.mark.slow
def test_agree_under_jobs_keeps_the_natural_order(tmp_path, capsys):
    """The forked BRAT shards list documents in the same order as one process."""
    source = tmp_path / "in.conll"
    source.write_text(_conll(2_100), encoding="utf-8")  # enough documents for two processes
    for name in ("a", "b"):
        convert(source, tmp_path / name, to="brat")
    orders = []
    for jobs in ("1", "2"):
        assert main(["agree", str(tmp_path / "a"), str(tmp_path / "b"), "--by", "document", "--output", "csv",
                     "--jobs", jobs]) == 0
        rows = capsys.readouterr().out.splitlines()
        orders.append([row.split(",")[0] for row in rows[1:]])
    assert orders[0] == orders[1]
    assert orders[0][:3] == ["1", "2", "3"] and orders[0][-1] == "2100"
