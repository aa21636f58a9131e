"""The BRAT sets in ../shared/corpora read without error and with the counts their SOURCE.md gives.

Every count below is copied from that folder's SOURCE.md ("Measured" tables and the notes under
them). Readers keep every span, duplicates included, so span counts equal the files' ``T`` lines.
Skipped without ../shared; a failure under CI=true (see conftest.py).
"""

from __future__ import annotations

import re
import time
import warnings
from collections import Counter

import pytest

from spanagree.errors import SpanagreeWarning
from spanagree.formats.brat import read_brat
from spanagree.formats import natural_key


def read_clean(folder):
    """Read, failing on any warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return read_brat(folder)


def labels(spanset) -> dict[str, int]:
    return dict(Counter(span.label for span in spanset))


def discontinuous(spanset) -> int:
    return sum(1 for span in spanset if span.is_discontinuous)


# ---------------------------------------------------------------------------------------------
# bratiaa-example/SOURCE.md: "T lines; no discontinuous spans; no other line types; every .txt is
# identical across annotators and the gold"

BRATIAA = {
    "example-project/Lisa": (7, 404, {"LOC": 84, "MISC": 51, "ORG": 140, "PER": 129}),
    "example-project/Maria": (7, 404, {"LOC": 84, "MISC": 51, "ORG": 140, "PER": 129}),
    "example-project/Max": (7, 358, {"LOC": 67, "MISC": 51, "ORG": 122, "PER": 118}),
    "example-project/Peter": (7, 401, {"LOC": 80, "MISC": 60, "ORG": 132, "PER": 129}),
    "agree-2/ann1": (2, 16, {"LOC": 3, "MISC": 1, "ORG": 4, "PER": 8}),
    "agree-2/ann2": (2, 17, {"LOC": 3, "MISC": 1, "ORG": 6, "PER": 7}),
    "conll2002-gold-brat": (10, 540, {"LOC": 100, "MISC": 62, "ORG": 200, "PER": 178}),
}


@pytest.mark.parametrize("folder", list(BRATIAA))
def test_bratiaa_counts(shared_corpora, folder):
    docs, spans, by_label = BRATIAA[folder]
    spanset = read_clean(shared_corpora / "bratiaa-example" / folder)
    assert spanset.name == folder.split("/")[-1]
    assert len(spanset.documents) == docs
    assert len(spanset) == spans
    assert labels(spanset) == by_label
    assert discontinuous(spanset) == 0
    assert spanset.notes == []  # no other line types


def test_bratiaa_texts_identical_across_annotators_and_gold(shared_corpora):
    root = shared_corpora / "bratiaa-example"
    gold = read_clean(root / "conll2002-gold-brat")
    annotators = [read_clean(root / "example-project" / name) for name in ("Lisa", "Maria", "Max", "Peter")]
    for spanset in annotators:
        assert set(spanset.documents) < set(gold.documents)
        for doc_id, document in spanset.documents.items():
            assert document.text == gold.documents[doc_id].text
    # "Lisa is byte-for-byte identical in spans to the CoNLL-2002 gold"
    lisa = annotators[0]
    for doc_id, document in lisa.documents.items():
        assert Counter(document.spans) == Counter(gold.documents[doc_id].spans)


# ---------------------------------------------------------------------------------------------
# brateval-chemu-sample/SOURCE.md: 50 documents, T lines only, no discontinuous spans;
# "In 5 system .ann lines the text column does not equal the text slice"

CHEMU_GT = {"EXAMPLE_LABEL": 49, "OTHER_COMPOUND": 176, "REACTION_PRODUCT": 110, "REAGENT_CATALYST": 58,
            "SOLVENT": 61, "STARTING_MATERIAL": 88, "TEMPERATURE": 74, "TIME": 47, "YIELD_OTHER": 57,
            "YIELD_PERCENT": 50}
CHEMU_SYSTEM = {**CHEMU_GT, "COMPOSITE": 1, "OTHER_COMPOUND": 174, "STARTING_MATERIAL": 87, "YIELD_PERCENT": 49}


def test_chemu_gold(shared_corpora):
    gold = read_clean(shared_corpora / "brateval-chemu-sample" / "gt")
    assert (len(gold.documents), len(gold)) == (50, 770)
    assert labels(gold) == CHEMU_GT
    assert discontinuous(gold) == 0 and gold.notes == []


def test_chemu_system_and_its_five_edited_text_columns(shared_corpora):
    folder = shared_corpora / "brateval-chemu-sample" / "system"
    with pytest.warns(SpanagreeWarning) as record:
        system = read_brat(folder)
    assert (len(system.documents), len(system)) == (50, 767)
    assert labels(system) == CHEMU_SYSTEM
    assert discontinuous(system) == 0 and system.notes == []
    # one warning per file, naming file:line, with the number of further lines like it
    mismatched_lines = 0
    for warning in record:
        message = str(warning.message)
        assert re.match(rf"{re.escape(str(folder))}/\d{{4}}\.ann:\d+: T\d+'s text column ", message)
        more = re.search(r"\((\d+) more lines? like it in this file\)$", message)
        mismatched_lines += 1 + (int(more.group(1)) if more else 0)
    assert mismatched_lines == 5


# ---------------------------------------------------------------------------------------------
# meddocan-sample/SOURCE.md: BRAT, 15 documents; the baseline has 8 offset pairs annotated twice
# (with different labels). A read without warnings means every text column agreed with its offsets.

MEDDOCAN_SYSTEMS = ["system/brat/subtrack1/sample/baseline", "system/brat/subtrack2/sample/baseline"]


def test_meddocan_gold(shared_corpora):
    gold = read_clean(shared_corpora / "meddocan-sample" / "gold" / "brat" / "sample")
    assert (len(gold.documents), len(gold)) == (15, 347)
    counts = labels(gold)
    assert len(counts) == 14  # "14 PHI types"
    assert {k: counts[k] for k in ("TERRITORIO", "FECHAS", "NOMBRE_PERSONAL_SANITARIO", "CALLE", "PAIS")} == {
        "TERRITORIO": 65, "FECHAS": 39, "NOMBRE_PERSONAL_SANITARIO": 31, "CALLE": 27, "PAIS": 26}


@pytest.mark.parametrize("folder", MEDDOCAN_SYSTEMS)
def test_meddocan_baseline(shared_corpora, folder):
    system = read_clean(shared_corpora / "meddocan-sample" / folder)
    assert (len(system.documents), len(system)) == (15, 137)
    assert labels(system) == {"NOMBRE_SUJETO_ASISTENCIA": 76, "TERRITORIO": 54, "HOSPITAL": 7}
    twice = Counter((span.doc, span.fragments) for span in system)
    assert sum(1 for n in twice.values() if n == 2) == 8 and max(twice.values()) == 2
    assert len({(span.doc, span.fragments, span.label) for span in system}) == 137  # different labels


def test_meddocan_subtracks_identical(shared_corpora):
    one, two = (read_clean(shared_corpora / "meddocan-sample" / f) for f in MEDDOCAN_SYSTEMS)
    assert one == two


# ---------------------------------------------------------------------------------------------
# quaero-french-medical/SOURCE.md: nested and discontinuous spans (up to 3 fragments), `#` notes;
# "For a discontinuous span the .ann text column is the fragments joined by one space ... 0 mismatches"

QUAERO = {  # split/part: docs, spans, discontinuous, max fragments, `#` notes
    "train/MEDLINE": (833, 2994, 13, 2, 2994),
    "train/EMEA": (11, 2695, 27, 3, 2695),
    "dev/MEDLINE": (832, 2977, 21, 2, 2975),
    "dev/EMEA": (12, 2260, 15, 2, 2260),
    "test/MEDLINE": (833, 3103, 23, 3, 3096),
    "test/EMEA": (15, 2204, 42, 2, 2203),
}


@pytest.mark.parametrize("part", list(QUAERO))
@pytest.mark.slow
def test_quaero_parts(shared_corpora, part):
    docs, spans, disc, max_fragments, notes = QUAERO[part]
    spanset = read_clean(shared_corpora / "quaero-french-medical" / part)
    assert len(spanset.documents) == docs
    assert len(spanset) == spans
    assert discontinuous(spanset) == disc
    assert max(len(span.fragments) for span in spanset) == max_fragments
    assert spanset.notes == [f"{notes} notes read and not compared"]
    # the notes (UMLS CUIs, mostly) are kept on their spans
    assert sum(len(span.attributes) for span in spanset) == notes
    assert {key for span in spanset for key, _ in span.attributes} == {"#:AnnotatorNotes"}


def test_quaero_whole_corpus(shared_corpora):
    folder = shared_corpora / "quaero-french-medical"
    started = time.perf_counter()
    spanset = read_clean(folder)
    elapsed = time.perf_counter() - started
    assert len(spanset.documents) == 2536
    assert len(spanset) == 16233
    assert discontinuous(spanset) == 141
    assert max(len(span.fragments) for span in spanset) == 3
    assert spanset.notes == [
        "16223 notes read and not compared",
        "1 .txt file without .ann in a folder with no annotations passed over (not documents): README.quaero.txt",
    ]
    # ids are paths below the folder, in natural order (dev/MEDLINE/2787 before dev/MEDLINE/10028548)
    assert list(spanset.documents) == sorted(spanset.documents, key=natural_key)
    assert all(re.fullmatch(r"(train|dev|test)/(MEDLINE|EMEA)/[^/]+", doc_id) for doc_id in spanset.documents)
    # nested entities: some span lies inside another of the same document
    assert any(a is not b and b.start <= a.start and a.end <= b.end
               for document in spanset.documents.values() for a in document.spans for b in document.spans)
    # French text, typographic apostrophes, code-point offsets
    assert any("’" in span.text(spanset.documents[span.doc].text) for span in spanset)
    print(f"QUAERO: {len(spanset.documents)} documents, {len(spanset)} spans read in {elapsed:.3f} s")


def test_quaero_test_medline_labels(shared_corpora):
    spanset = read_clean(shared_corpora / "quaero-french-medical" / "test" / "MEDLINE")
    assert labels(spanset) == {"DISO": 988, "PROC": 608, "ANAT": 510, "CHEM": 342, "LIVB": 324, "PHYS": 158,
                               "GEOG": 51, "PHEN": 49, "OBJC": 38, "DEVI": 35}
