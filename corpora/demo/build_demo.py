"""Build the demo corpus from the table of documents and annotations in this file.

Run from anywhere (only the standard library is used)::

    python corpora/demo/build_demo.py

It rewrites, next to this script:

* ``brat/ann1/``, ``brat/ann2/``, ``brat/ann3/`` — one ``.txt`` + ``.ann`` per document, every span
  (including the one nested span and the one discontinuous span);
* ``xml/annN.xml``, ``conll/annN.conll``, ``jsonl/annN.jsonl`` — the *flat* spans only: the same
  annotations minus discontinuous spans and spans nested inside another span of the same annotator.

The files are written here directly, following the formats in the project's design notes, and
not through spanagree's own writers, so that the corpus is an independent reference for testing
spanagree's readers (``tests/test_demo.py`` checks that all four versions agree).

The table
---------
``DOCUMENTS`` lists ``(doc_id, text, spans)``. Each text is already tokenised CoNLL-style: tokens
separated by single spaces, one sentence per line. Each span is ``(phrase, label, annotators)``:

* ``phrase`` is a string of whole tokens, found in the text by token matching; ``"Respivane#2"``
  means the second occurrence. A tuple of phrases is one discontinuous span, its fragments found in
  order (each after the previous one).
* ``annotators`` is a string of annotator numbers: ``"13"`` means ann1 and ann3 marked this span.

So every row shows at a glance who agrees with whom. The script checks that every span begins and
ends on token boundaries, that each ``.ann`` text column equals its slice of the text, and that the
flat spans of each annotator neither overlap nor nest.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

HERE = Path(__file__).resolve().parent
ANNOTATORS = ("ann1", "ann2", "ann3")
LABELS = ("PER", "ORG", "LOC", "DRUG", "DISEASE")

DOCUMENTS = [
    ("news-01",
     "Norvik Systems said on Tuesday it will open a research centre in Porto , creating about 200 jobs over three years .\n"
     "Chief executive Marta Keller told reporters in Oslo that the company had chosen Portugal for its engineering talent .\n"
     "Shares of Norvik rose 4 % in early trading , while rival Helmark Group fell slightly .\n"
     "The announcement follows a similar move by Brightwell Labs in Lisbon last spring .",
     [
         ("Norvik Systems", "ORG", "123"),
         ("Porto", "LOC", "123"),
         ("Marta Keller", "PER", "123"),
         ("Oslo", "LOC", "123"),
         ("Portugal", "LOC", "123"),
         ("Norvik#2", "ORG", "123"),
         ("Helmark Group", "ORG", "13"),
         ("Helmark", "ORG", "2"),            # boundary: ann2 leaves out "Group"
         ("Brightwell Labs", "ORG", "123"),
         ("Lisbon", "LOC", "123"),
     ]),
    ("news-02",
     "Sporting Ribeira beat Atlético Vale 2 - 1 on Saturday at the Estádio Municipal in Braga .\n"
     "Striker João Almeida scored twice before half-time , and goalkeeper Luís Maia saved a late penalty .\n"
     "Coach Helena Duarte said the team would rest Almeida for the cup match against FC Tondela on Wednesday .",
     [
         ("Sporting Ribeira", "ORG", "123"),
         ("Atlético Vale", "ORG", "123"),
         ("Estádio Municipal", "LOC", "13"),
         ("the Estádio Municipal", "LOC", "2"),   # boundary: ann2 includes the article
         ("Braga", "LOC", "123"),
         ("João Almeida", "PER", "123"),
         ("Luís Maia", "PER", "123"),
         ("Helena Duarte", "PER", "123"),
         ("Almeida#2", "PER", "123"),
         ("FC Tondela", "ORG", "123"),
     ]),
    ("news-03",
     "The city council of Valmora approved a plan on Monday to extend the tram network to the northern suburbs .\n"
     "Mayor Rui Fontes said the European Investment Bank would lend 40 million euros for the project .\n"
     "Opposition leader Clara Neves criticised the timetable , saying residents of Castelo Alto had waited a decade for a line .",
     [
         ("Valmora", "LOC", "13"),
         ("city council of Valmora", "ORG", "2"),  # ann2 marks the council (ORG) instead of the city
         ("Rui Fontes", "PER", "123"),
         ("European Investment Bank", "ORG", "123"),
         ("Clara Neves", "PER", "123"),
         ("Castelo Alto", "LOC", "12"),            # ann3 misses it
     ]),
    ("news-04",
     "Researchers at the University of Lisbon have identified a protein that slows the growth of pancreatic tumours in mice .\n"
     "The study , led by Professor Inês Carvalho , was published on Thursday in the journal Cell Reports .\n"
     "The team now plans a trial with Hospital Santa Maria , with funding from the Gulbenkian Foundation .",
     [
         ("University of Lisbon", "ORG", "123"),
         ("Lisbon", "LOC", "13"),                  # THE nested span: inside the ORG, ann1 and ann3
         ("pancreatic tumours", "DISEASE", "12"),  # ann3 misses it
         ("Professor Inês Carvalho", "PER", "1"),  # boundary: ann1 includes the title
         ("Inês Carvalho", "PER", "23"),
         ("Cell Reports", "ORG", "123"),
         ("Hospital Santa Maria", "ORG", "13"),
         ("Hospital Santa Maria", "LOC", "2"),     # label: a hospital as a place
         ("Gulbenkian Foundation", "ORG", "123"),
     ]),
    ("news-05",
     "Shares in Calder Pharma jumped after regulators in Brussels approved its asthma inhaler Respivane .\n"
     "The company said Respivane , which combines budesonide and formoterol , would reach pharmacies in Germany and Spain by June .\n"
     "Analysts at Kestrel Partners expect sales of 300 million dollars a year .",
     [
         ("Calder Pharma", "ORG", "123"),
         ("regulators", "ORG", "3"),               # spurious: ann3 marks a common noun
         ("Brussels", "LOC", "123"),
         ("asthma", "DISEASE", "123"),
         ("Respivane#1", "DRUG", "123"),
         ("Respivane#2", "DRUG", "123"),
         ("budesonide", "DRUG", "123"),
         ("formoterol", "DRUG", "13"),             # ann2 misses it
         ("Germany", "LOC", "123"),
         ("Spain", "LOC", "123"),
         ("Kestrel Partners", "ORG", "123"),
     ]),
    ("clinic-01",
     "Mr. Tomas Berg , 67 , was admitted to St. Anne 's Hospital with community-acquired pneumonia .\n"
     "He has a history of type 2 diabetes and chronic kidney disease .\n"
     "He was treated with intravenous ceftriaxone and oral azithromycin for five days .\n"
     "Metformin was held on admission and restarted at discharge .",
     [
         ("Mr. Tomas Berg", "PER", "1"),           # boundary: ann1 includes the title
         ("Tomas Berg", "PER", "23"),
         ("St. Anne 's Hospital", "ORG", "12"),
         ("St. Anne 's Hospital", "LOC", "3"),     # label: a hospital as a place
         ("community-acquired pneumonia", "DISEASE", "123"),
         ("type 2 diabetes", "DISEASE", "12"),
         ("diabetes", "DISEASE", "3"),             # boundary: ann3 marks the head only
         ("chronic kidney disease", "DISEASE", "123"),
         ("ceftriaxone", "DRUG", "123"),
         ("azithromycin", "DRUG", "123"),
         ("Metformin", "DRUG", "13"),              # ann2 misses it
     ]),
    ("clinic-02",
     "Ms. Rosa Lindqvist , 48 , was seen in the oncology clinic at Mercy Hospital for follow-up .\n"
     "She carries a BRCA1 mutation and has a family history of breast and ovarian cancer .\n"
     "Her mother was treated for breast cancer at the same hospital .\n"
     "Tamoxifen was discussed , and she was referred to Dr. Peter Olsen for genetic counselling .",
     [
         ("Rosa Lindqvist", "PER", "123"),
         ("Mercy Hospital", "ORG", "13"),
         ("Mercy Hospital", "LOC", "2"),           # label: a hospital as a place
         ("BRCA1 mutation", "DISEASE", "2"),       # spurious: a gene variant is not a disease
         (("breast#1", "cancer"), "DISEASE", "13"),  # THE discontinuous span: "breast ... cancer"
         ("ovarian cancer", "DISEASE", "13"),
         ("breast and ovarian cancer", "DISEASE", "2"),  # ann2: one span for the coordination
         ("breast cancer", "DISEASE", "123"),
         ("Tamoxifen", "DRUG", "123"),
         ("Dr. Peter Olsen", "PER", "123"),
     ]),
    ("clinic-03",
     "The patient is a 34-year-old woman with a two-day history of fever , headache and neck stiffness .\n"
     "Lumbar puncture confirmed bacterial meningitis , and she was started on ceftriaxone and dexamethasone .\n"
     "She was transferred from Hillcrest Medical Centre in Leeds to our intensive care unit .\n"
     "She was discharged on day 12 with no neurological deficit .",
     [
         ("fever", "DISEASE", "3"),                # a symptom: only ann3 marks it
         ("bacterial meningitis", "DISEASE", "123"),
         ("ceftriaxone", "DRUG", "123"),
         ("dexamethasone", "DRUG", "123"),
         ("Hillcrest Medical Centre", "ORG", "13"),
         ("Hillcrest Medical Centre", "LOC", "2"),  # label: a hospital as a place
         ("Leeds", "LOC", "123"),
         ("neurological deficit", "DISEASE", "1"),  # a negated finding: only ann1 marks it
     ]),
    ("clinic-04",
     "Mrs. Eva Moretti , 72 , presented with palpitations and was found to have atrial fibrillation .\n"
     "Apixaban 5 mg twice daily was started , and bisoprolol was increased to 5 mg .\n"
     "Her hypertension is controlled on amlodipine .\n"
     "Follow-up is arranged with Dr. Samuel Okafor at the Riverside Cardiology Clinic in Dublin .",
     [
         ("Eva Moretti", "PER", "123"),
         ("atrial fibrillation", "DISEASE", "123"),
         ("Apixaban", "DRUG", "13"),
         ("Apixaban 5 mg", "DRUG", "2"),           # boundary: ann2 includes the dose
         ("bisoprolol", "DRUG", "123"),
         ("hypertension", "DISEASE", "123"),
         ("amlodipine", "DRUG", "123"),
         ("Dr. Samuel Okafor", "PER", "12"),
         ("Samuel Okafor", "PER", "3"),            # boundary: ann3 leaves out the title
         ("Riverside Cardiology Clinic", "ORG", "123"),
         ("Dublin", "LOC", "123"),
     ]),
    ("clinic-05",
     "Mr. Karim Haddad , 59 , was admitted with an exacerbation of chronic obstructive pulmonary disease .\n"
     "He received nebulised salbutamol , ipratropium and a five-day course of prednisolone .\n"
     "A chest radiograph showed no pneumonia .\n"
     "He will attend pulmonary rehabilitation at Northgate Community Hospital .",
     [
         ("Karim Haddad", "PER", "123"),
         ("chronic obstructive pulmonary disease", "DISEASE", "13"),
         ("exacerbation of chronic obstructive pulmonary disease", "DISEASE", "2"),  # boundary
         ("salbutamol", "DRUG", "123"),
         ("ipratropium", "DRUG", "123"),
         ("prednisolone", "DRUG", "123"),
         ("pneumonia", "DISEASE", "12"),           # negated: ann3 leaves it out
         ("Northgate Community Hospital", "ORG", "12"),
         ("Northgate Community Hospital", "LOC", "3"),  # label: a hospital as a place
     ]),
]


def token_ranges(text: str) -> list[tuple[int, int]]:
    """Half-open character ranges of the whitespace-separated tokens of a CoNLL-shaped text."""
    ranges, position = [], 0
    for line in text.split("\n"):
        for token in line.split(" "):
            ranges.append((position, position + len(token)))
            position += len(token) + 1
    return ranges


def find_phrase(text: str, tokens: list[tuple[int, int]], phrase: str, after: int, where: str) -> tuple[int, int]:
    """Character range of the ``n``-th occurrence (``phrase#n``, default 1) of a token sequence,
    counting only occurrences whose first token starts at or after the character ``after``."""
    words, _, nth = phrase.partition("#")
    wanted = words.split(" ")
    n = int(nth) if nth else 1
    words_of = [text[s:e] for s, e in tokens]
    hits = [i for i in range(len(tokens) - len(wanted) + 1)
            if tokens[i][0] >= after and words_of[i:i + len(wanted)] == wanted]
    if len(hits) < n:
        raise SystemExit(f"{where}: {phrase!r} not found as whole tokens")
    if not nth and len(hits) > 1 and after == 0:
        raise SystemExit(f"{where}: {phrase!r} occurs {len(hits)} times; say which with #n")
    first = hits[n - 1]
    return tokens[first][0], tokens[first + len(wanted) - 1][1]


def build_spans(doc_id: str, text: str, rows) -> dict[str, list[tuple[tuple[tuple[int, int], ...], str]]]:
    """Each annotator's spans as ``(fragments, label)``, sorted by offsets."""
    tokens = token_ranges(text)
    spans = {name: [] for name in ANNOTATORS}
    for phrase, label, who in rows:
        if label not in LABELS:
            raise SystemExit(f"{doc_id}: unknown label {label!r}")
        fragments, after = [], 0
        for part in (phrase if isinstance(phrase, tuple) else (phrase,)):
            start, end = find_phrase(text, tokens, part, after, doc_id)
            fragments.append((start, end))
            after = end
        for digit in who:
            spans[f"ann{digit}"].append((tuple(fragments), label))
    for name in ANNOTATORS:
        spans[name].sort(key=lambda span: (span[0][0][0], span[0][-1][1], span[0], span[1]))
        if len(set(spans[name])) != len(spans[name]):
            raise SystemExit(f"{doc_id}: {name} has a duplicate span")
    return spans


def is_flat(span, others) -> bool:
    """True unless the span is discontinuous or lies inside another (continuous, longer) span of
    the same annotator."""
    fragments, _ = span
    if len(fragments) > 1:
        return False
    (start, end), = fragments
    return not any(len(other[0]) == 1 and other[0][0][0] <= start and end <= other[0][0][1]
                   and other[0][0] != (start, end) for other in others)


def check_text(doc_id: str, text: str) -> None:
    """The text must be in CoNLL shape: single spaces, one sentence per line, 40-120 tokens."""
    if "\t" in text or "\r" in text or "  " in text or text != text.strip() or "\n\n" in text:
        raise SystemExit(f"{doc_id}: the text is not in CoNLL shape")
    n_tokens = len(token_ranges(text))
    n_sentences = text.count("\n") + 1
    if not (40 <= n_tokens <= 120 and 2 <= n_sentences <= 6):
        raise SystemExit(f"{doc_id}: {n_tokens} tokens in {n_sentences} sentences")


def brat_text_column(text: str, fragments) -> str:
    return " ".join(text[s:e] for s, e in fragments)


def write_brat(corpus) -> None:
    for name in ANNOTATORS:
        folder = HERE / "brat" / name
        folder.mkdir(parents=True, exist_ok=True)
        for doc_id, text, spans in corpus:
            (folder / f"{doc_id}.txt").write_text(text, encoding="utf-8", newline="")
            lines = []
            for number, (fragments, label) in enumerate(spans[name], start=1):
                offsets = ";".join(f"{s} {e}" for s, e in fragments)
                lines.append(f"T{number}\t{label} {offsets}\t{brat_text_column(text, fragments)}\n")
            (folder / f"{doc_id}.ann").write_text("".join(lines), encoding="utf-8", newline="")


def verify_brat(corpus) -> None:
    """Re-read every .ann and check its text column against the .txt slice."""
    for name in ANNOTATORS:
        for doc_id, _, _ in corpus:
            folder = HERE / "brat" / name
            with open(folder / f"{doc_id}.txt", encoding="utf-8", newline="") as handle:
                text = handle.read()
            with open(folder / f"{doc_id}.ann", encoding="utf-8", newline="") as handle:
                ann_lines = handle.read().split("\n")[:-1]
            for line in ann_lines:
                _, middle, shown = line.split("\t")
                fragments = [tuple(map(int, part.split())) for part in middle.split(" ", 1)[1].split(";")]
                if brat_text_column(text, fragments) != shown:
                    raise SystemExit(f"brat/{name}/{doc_id}.ann: {line!r} does not match the text")


def write_xml(corpus, name: str) -> None:
    parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<?spanagree xml_doc_tag="doc"?>\n<corpus>\n']
    for doc_id, text, flat in corpus:
        body, position = [], 0
        for ((start, end),), label in flat[name]:
            body.append(escape(text[position:start]))
            body.append(f"<{label}>{escape(text[start:end])}</{label}>")
            position = end
        body.append(escape(text[position:]))
        parts.append(f"<doc id={quoteattr(doc_id)}>{''.join(body)}</doc>\n")
    parts.append("</corpus>\n")
    (HERE / "xml").mkdir(exist_ok=True)
    (HERE / "xml" / f"{name}.xml").write_text("".join(parts), encoding="utf-8", newline="")


def write_conll(corpus, name: str) -> None:
    lines = []
    for _, text, flat in corpus:
        lines += ["-DOCSTART-\tO", ""]
        starts = {s: label for ((s, _),), label in flat[name]}
        inside = {}
        for ((s, e),), label in flat[name]:
            for ts, te in token_ranges(text):
                if s < ts and te <= e:
                    inside[ts] = label
        position = 0
        for sentence in text.split("\n"):
            for token in sentence.split(" "):
                if position in starts:
                    tag = f"B-{starts[position]}"
                elif position in inside:
                    tag = f"I-{inside[position]}"
                else:
                    tag = "O"
                lines.append(f"{token}\t{tag}")
                position += len(token) + 1
            lines.append("")
    (HERE / "conll").mkdir(exist_ok=True)
    (HERE / "conll" / f"{name}.conll").write_text("\n".join(lines) + "\n", encoding="utf-8", newline="")


def write_jsonl(corpus, name: str) -> None:
    lines = []
    for doc_id, text, flat in corpus:
        spans = [{"start": s, "end": e, "label": label} for ((s, e),), label in flat[name]]
        lines.append(json.dumps({"id": doc_id, "text": text, "spans": spans}, ensure_ascii=False))
    (HERE / "jsonl").mkdir(exist_ok=True)
    (HERE / "jsonl" / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8", newline="")


def write_strings(corpus, name: str) -> None:
    """``strings/annN.jsonl``: annotator ``name``'s flat spans as a prompted model answers, each
    span's text and label, no offsets and no text (spanagree's strings format)."""
    lines = []
    for doc_id, text, flat in corpus:
        entities = [{"text": text[s:e], "label": label} for ((s, e),), label in flat[name]]
        lines.append(json.dumps({"id": doc_id, "entities": entities}, ensure_ascii=False))
    (HERE / "strings").mkdir(exist_ok=True)
    (HERE / "strings" / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8", newline="")


def utf16_offset(text: str, offset: int) -> int:
    """A code-point offset as Java (and GATE) count it: in UTF-16 units."""
    return offset + sum(1 for ch in text[:offset] if ord(ch) > 0xFFFF)


def gate_xml(text: str, sets: dict) -> str:
    """A GATE XML document (as GATE's ``DocumentStaxUtils`` writes it): ``text`` with a node at
    every annotation boundary (node id = the offset in UTF-16 units, as GATE counts), and one
    named annotation set per entry of ``sets`` (``{name: [(start, end, type), ...]}``, code points)."""
    points = sorted({p for spans in sets.values() for start, end, _ in spans for p in (start, end)})
    body, position = [], 0
    for point in points:
        body.append(escape(text[position:point]))
        body.append(f'<Node id="{utf16_offset(text, point)}"/>')
        position = point
    body.append(escape(text[position:]))
    parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<GateDocument version="3">\n',
             "<GateDocumentFeatures>\n</GateDocumentFeatures>\n",
             f"<TextWithNodes>{''.join(body)}</TextWithNodes>\n", "<AnnotationSet>\n</AnnotationSet>\n"]
    number = 0
    for name, spans in sets.items():
        parts.append(f"<AnnotationSet Name={quoteattr(name)}>\n")
        for start, end, label in spans:
            number += 1
            parts.append(f'<Annotation Id="{number}" Type={quoteattr(label)} StartNode="{utf16_offset(text, start)}" '
                         f'EndNode="{utf16_offset(text, end)}">\n</Annotation>\n')
        parts.append("</AnnotationSet>\n")
    parts.append("</GateDocument>\n")
    return "".join(parts)


def write_gate(corpus) -> None:
    """One GATE XML file per document, the three annotators' sets in it (every contiguous span:
    a GATE annotation cannot be discontinuous)."""
    (HERE / "gate" / "demo").mkdir(parents=True, exist_ok=True)
    for doc_id, text, spans in corpus:
        sets = {name: [(f[0][0], f[0][1], label) for f, label in spans[name] if len(f) == 1] for name in ANNOTATORS}
        (HERE / "gate" / "demo" / f"{doc_id}.xml").write_text(gate_xml(text, sets), encoding="utf-8", newline="")


def labelstudio_tasks(documents, user_ids=None) -> list:
    """A Label Studio JSON export (as Label Studio 1.x writes one): a task per document
    ``(doc_id, text, {annotator: [(start, end, label), ...]})`` with one annotation per annotator,
    ``completed_by`` an object with the user's id and email (``<annotator>@example.org``)."""
    tasks, ids = [], {}
    for number, (doc_id, text, sets) in enumerate(documents, 1):
        annotations = []
        for name, spans in sets.items():
            user = ids.setdefault(name, len(ids) + 1)
            result = [{"id": f"{doc_id}-{name}-{k}", "type": "labels", "from_name": "label", "to_name": "text",
                       "origin": "manual",
                       "value": {"start": start, "end": end, "text": text[start:end], "labels": [label]}}
                      for k, (start, end, label) in enumerate(spans, 1)]
            annotations.append({"id": number * 100 + user, "completed_by": {"id": user, "email": f"{name}@example.org"},
                                "was_cancelled": False, "ground_truth": False, "result": result})
        tasks.append({"id": number, "data": {"text": text, "doc": doc_id}, "annotations": annotations,
                      "predictions": []})
    return tasks


def write_labelstudio(corpus) -> None:
    """One Label Studio export holding the three annotators (every contiguous span)."""
    documents = [(doc_id, text, {name: [(f[0][0], f[0][1], label) for f, label in spans[name] if len(f) == 1]
                                 for name in ANNOTATORS}) for doc_id, text, spans in corpus]
    (HERE / "labelstudio").mkdir(exist_ok=True)
    (HERE / "labelstudio" / "demo.json").write_text(json.dumps(labelstudio_tasks(documents), ensure_ascii=False,
                                                               indent=1) + "\n", encoding="utf-8", newline="")


def write_doccano(corpus) -> None:
    """``doccano/project.zip``: the three annotators as doccano 1.8's JSONL export of a project
    without collaborative annotation writes them (one ``<user>.jsonl`` per member, records
    ``{"id", "text", "label", "Comments"}`` with doccano's example ids; the administrator's file
    beside them, empty, as doccano writes it for every member; every contiguous span)."""
    members = []
    for user in ("admin", *ANNOTATORS):
        lines = []
        for number, (doc_id, text, spans) in enumerate(corpus, 1):
            label = [] if user == "admin" else [[f[0][0], f[0][1], name] for f, name in spans[user] if len(f) == 1]
            lines.append(json.dumps({"id": number, "text": text, "label": label, "Comments": []},
                                    ensure_ascii=False, separators=(",", ":")))
        members.append((f"{user}.jsonl", ("\n".join(lines) + "\n").encode("utf-8")))
    (HERE / "doccano").mkdir(exist_ok=True)
    (HERE / "doccano" / "project.zip").write_bytes(stored_zip(members))


NAMED_ENTITY = "de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity"

#: A UIMA type system describing DKPro's NamedEntity (what an INCEpTION export's TypeSystem.xml
#: holds for its Named entity layer, less the other layers).
TYPESYSTEM_XML = f"""<?xml version="1.0" encoding="UTF-8"?>
<typeSystemDescription xmlns="http://uima.apache.org/resourceSpecifier">
  <types>
    <typeDescription>
      <name>{NAMED_ENTITY}</name>
      <description/>
      <supertypeName>uima.tcas.Annotation</supertypeName>
      <features>
        <featureDescription>
          <name>value</name>
          <description/>
          <rangeTypeName>uima.cas.String</rangeTypeName>
        </featureDescription>
        <featureDescription>
          <name>identifier</name>
          <description/>
          <rangeTypeName>uima.cas.String</rangeTypeName>
        </featureDescription>
      </features>
    </typeDescription>
  </types>
</typeSystemDescription>
"""


def xmi(text: str, spans) -> str:
    """A UIMA CAS XMI document (as UIMA's XmiCasSerializer writes one): ``text`` as the
    ``_InitialView``'s sofa and a DKPro NamedEntity per ``(start, end, label)`` (code points),
    with ``begin``/``end`` in UTF-16 units, as Java counts."""
    parts = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<xmi:XMI xmlns:xmi="http://www.omg.org/XMI" xmlns:cas="http:///uima/cas.ecore" '
             'xmlns:type="http:///de/tudarmstadt/ukp/dkpro/core/api/ner/type.ecore" xmi:version="2.0">',
             '<cas:NULL xmi:id="0"/>']
    members = []
    for number, (start, end, label) in enumerate(spans, 2):
        members.append(str(number))
        parts.append(f'<type:NamedEntity xmi:id="{number}" sofa="1" begin="{utf16_offset(text, start)}" '
                     f'end="{utf16_offset(text, end)}" value={quoteattr(label)}/>')
    parts.append(f'<cas:Sofa xmi:id="1" sofaNum="1" sofaID="_InitialView" mimeType="text" '
                 f'sofaString={quoteattr(text)}/>')
    parts.append(f'<cas:View sofa="1" members="{" ".join(members)}"/>')
    parts.append("</xmi:XMI>")
    return "\n".join(parts) + "\n"


def write_xmi(corpus) -> None:
    """A folder of XMI files per annotator (every contiguous span), with its TypeSystem.xml."""
    for name in ANNOTATORS:
        folder = HERE / "xmi" / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "TypeSystem.xml").write_text(TYPESYSTEM_XML, encoding="utf-8", newline="")
        for doc_id, text, spans in corpus:
            contiguous = [(f[0][0], f[0][1], label) for f, label in spans[name] if len(f) == 1]
            (folder / f"{doc_id}.xmi").write_text(xmi(text, contiguous), encoding="utf-8", newline="")


def stored_zip(members) -> bytes:
    """A zip of ``(name, bytes)`` members, stored (not compressed) with a fixed date, so that the
    same members always give the same bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for name, data in members:
            archive.writestr(zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0)), data)
    return buffer.getvalue()


def inception_project(documents, users, curation=None, make_xmi=None, typesystem=None) -> list:
    """An INCEpTION project export with the secondary format UIMA CAS XMI, as ``(name, bytes)``
    members in the layout INCEpTION's exporters write: ``exportedproject.json``, ``source/<doc>``,
    ``annotation/<doc>/INITIAL_CAS.zip`` and ``annotation/<doc>/<user>.zip`` (each holding
    ``<doc>.xmi`` and ``TypeSystem.xml``), ``curation/<doc>/CURATION_USER.zip``. ``documents`` is
    ``[(doc, text)]``, ``users`` ``{user: {doc: [(start, end, label)]}}`` (a document a user
    lacks is one they did not open), ``curation`` ``{doc: spans}``. ``make_xmi(text, spans)`` makes
    the XMI text (default :func:`xmi`) and ``typesystem`` the TypeSystem.xml (default
    :data:`TYPESYSTEM_XML`). INCEpTION's binary ``.ser`` copies are left out: spanagree never
    reads them."""
    make_xmi = make_xmi or xmi
    typesystem = (typesystem or TYPESYSTEM_XML).encode("utf-8")
    project = {"name": "spanagree-demo", "source_documents": [{"name": doc, "format": "text"} for doc, _ in documents],
               "annotation_documents": [{"name": doc, "user": user, "state": "FINISHED"}
                                        for user, own in users.items() for doc in own]}
    members = [("exportedproject.json", json.dumps(project, indent=1).encode("utf-8"))]
    for doc, text in documents:
        members.append((f"source/{doc}", text.encode("utf-8")))
    for doc, text in documents:
        stem = doc.rsplit(".", 1)[0]
        for user, spans in [("INITIAL_CAS", [])] + [(u, own[doc]) for u, own in users.items() if doc in own]:
            inner = stored_zip([(f"{doc}.xmi", make_xmi(text, spans).encode("utf-8")), ("TypeSystem.xml", typesystem)])
            members.append((f"annotation/{doc}/{user}.zip", inner))
        if curation and doc in curation:
            inner = stored_zip([(f"{stem}.xmi", make_xmi(text, curation[doc]).encode("utf-8")),
                                ("TypeSystem.xml", typesystem)])
            members.append((f"curation/{doc}/CURATION_USER.zip", inner))
    return members


def write_inception(corpus) -> None:
    """The three annotators in one INCEpTION project export, unpacked into a folder (documents
    named ``<doc_id>.txt``, as INCEpTION names them by their source file); ann1's spans as the
    curation."""
    documents = [(f"{doc_id}.txt", text) for doc_id, text, _ in corpus]
    users = {name: {f"{doc_id}.txt": [(f[0][0], f[0][1], label) for f, label in spans[name] if len(f) == 1]
                    for doc_id, _, spans in corpus} for name in ANNOTATORS}
    folder = HERE / "inception" / "demo"
    for name, data in inception_project(documents, users, curation=users[ANNOTATORS[0]]):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
def write_webanno(corpus) -> None:
    """One folder of WebAnno TSV 3.3 files per annotator (``webanno/ann1/clinic-01.tsv`` …),
    written by spanagree's own TSV writer: every contiguous span (a WebAnno span is one range)."""
    import shutil

    from spanagree.formats.webanno import write_webanno as write_tsv
    from spanagree.span import Span, SpanSet

    texts = {doc_id: text for doc_id, text, _ in corpus}
    for name in ANNOTATORS:
        spans = [Span(doc_id, f, label) for doc_id, _, table in corpus for f, label in table[name] if len(f) == 1]
        folder = HERE / "webanno" / name
        shutil.rmtree(folder, ignore_errors=True)
        write_tsv(SpanSet.from_spans(name, spans, texts), folder)
def write_docbin(flat) -> None:
    """One spaCy DocBin per annotator (``docbin/ann1.spacy`` ...): the flat spans as ``doc.ents``,
    tokens from spaCy's blank English tokenizer, the document id in ``user_data["id"]``."""
    import spacy
    from spacy.tokens import DocBin

    nlp = spacy.blank("en")
    (HERE / "docbin").mkdir(exist_ok=True)
    for name in ANNOTATORS:
        doc_bin = DocBin(attrs=["ORTH", "ENT_IOB", "ENT_TYPE"], store_user_data=True)
        for doc_id, text, spans in flat:
            doc = nlp.make_doc(text)
            ents = [doc.char_span(f[0][0], f[0][1], label=label, alignment_mode="strict") for f, label in spans[name]]
            if None in ents:
                raise SystemExit(f"{doc_id}: a span of {name} does not fall on spaCy's token boundaries")
            doc.ents = ents
            doc.user_data["id"] = doc_id
            doc_bin.add(doc)
        (HERE / "docbin" / f"{name}.spacy").write_bytes(doc_bin.to_bytes())


def corpus_table():
    """``[(doc_id, text, {annotator: spans})]`` in document-id order, all spans (BRAT)."""
    corpus = []
    for doc_id, text, rows in sorted(DOCUMENTS, key=lambda d: d[0]):
        check_text(doc_id, text)
        corpus.append((doc_id, text, build_spans(doc_id, text, rows)))
    return corpus


def flat_table(corpus):
    """The same, keeping only flat spans (no discontinuous span, no span nested in another)."""
    flat = []
    for doc_id, text, spans in corpus:
        kept = {name: [s for s in spans[name] if is_flat(s, spans[name])] for name in ANNOTATORS}
        for name, own in kept.items():
            for left, right in zip(own, own[1:]):
                if right[0][0][0] < left[0][0][1]:
                    raise SystemExit(f"{doc_id}: {name}'s flat spans {left} and {right} overlap")
        flat.append((doc_id, text, kept))
    return flat


def main() -> None:
    corpus = corpus_table()
    write_brat(corpus)
    verify_brat(corpus)
    write_gate(corpus)
    write_labelstudio(corpus)
    write_doccano(corpus)
    write_xmi(corpus)
    write_inception(corpus)
    write_webanno(corpus)
    flat = flat_table(corpus)
    for name in ANNOTATORS:
        write_xml(flat, name)
        write_conll(flat, name)
        write_jsonl(flat, name)
    write_strings(flat, "ann2")
    write_docbin(flat)
    for name in ANNOTATORS:
        n_all = sum(len(spans[name]) for _, _, spans in corpus)
        n_flat = sum(len(spans[name]) for _, _, spans in flat)
        print(f"{name}: {n_all} spans in BRAT, {n_flat} flat")


if __name__ == "__main__":
    main()
