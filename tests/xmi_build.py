"""Building real UIMA CAS XMI with dkpro-cassis for the tests: span sets in, XMI and its type system out.

cassis writes ``begin``/``end`` in UTF-16 units (its own conversion from code points), so XMI made
here is what a Java UIMA tool would write; and an INCEpTION project export around it, in the
layout of ``corpora/demo/build_demo.py``'s :func:`inception_project`.
"""

from __future__ import annotations

import sys

import cassis

from conftest import DEMO

sys.path.insert(0, str(DEMO))
from build_demo import inception_project, stored_zip  # noqa: E402

NAMED_ENTITY = "de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity"

__all__ = ["NAMED_ENTITY", "cassis_typesystem", "cassis_xmi", "inception_zip", "stored_zip"]


def cassis_typesystem(type_name: str = NAMED_ENTITY, feature: str = "value") -> cassis.TypeSystem:
    typesystem = cassis.TypeSystem()
    kind = typesystem.create_type(type_name, supertypeName="uima.tcas.Annotation")
    typesystem.create_feature(kind, feature, "uima.cas.String")
    return typesystem


def cassis_xmi(text: str, spans, typesystem: cassis.TypeSystem | None = None, type_name: str = NAMED_ENTITY,
               feature: str = "value", views: dict | None = None) -> str:
    """An XMI document of ``text`` with an annotation per ``(start, end, label)`` (code points; a
    ``None`` label leaves the feature unset), written by cassis; ``views`` adds more views
    ``{name: (text, spans)}``."""
    typesystem = typesystem or cassis_typesystem(type_name, feature)
    kind = typesystem.get_type(type_name)
    cas = cassis.Cas(typesystem=typesystem)
    for name, (view_text, view_spans) in [("_InitialView", (text, spans))] + list((views or {}).items()):
        view = cas if name == "_InitialView" else cas.create_view(name)
        view.sofa_string = view_text
        for start, end, label in view_spans:
            view.add(kind(begin=start, end=end, **({feature: label} if label is not None else {})))
    return cas.to_xmi()


def inception_zip(dest, documents, users, curation=None) -> None:
    """An INCEpTION project export zip at ``dest`` (arguments as :func:`inception_project`), its
    XMI written by cassis."""
    typesystem = cassis_typesystem()
    members = inception_project(documents, users, curation, make_xmi=lambda text, spans: cassis_xmi(
        text, spans, typesystem), typesystem=typesystem.to_xml())
    with open(dest, "wb") as file:
        file.write(stored_zip(members))
