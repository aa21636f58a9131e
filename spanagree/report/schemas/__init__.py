"""The output contract written down: one JSON Schema (draft 2020-12) per kind of JSON document.

This package owns the schemas of what users' scripts parse: ``agree``, ``score`` and ``merge``
with ``--output json``, the ``score --errors FILE.json`` listing and the ``merge --adjudicate
FILE.json`` listing (and its ``--adjudicate-all`` twin), the ``agree --errors FILE.json``
listing, and the document records embedded in the ``--report FILE.html`` page (``report``).
Each is a file ``<name>.schema.json`` next to this module, shipped as
package data. Every fixed-key object in them has ``additionalProperties: false``, so a renamed,
removed or unannounced key fails validation; maps (``by_label``, ``by_document``, ``versions``)
give the schema of their entries. The contract's history, and how it may change, is in
CHANGELOG.md: fields are added in minor versions; a renamed or removed field, or a changed type
or order, is a version bump recorded there, and every change updates the schema in the same
commit.

Validating needs a JSON Schema validator, which spanagree does not depend on (the tests use
``jsonschema``)::

    import jsonschema
    jsonschema.Draft202012Validator(schema("agree")).validate(document)
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from ...errors import UsageError

#: The kinds of JSON document, each with its schema ``<name>.schema.json``: what writes it.
SCHEMAS = {
    "agree": "spanagree agree --output json",
    "score": "spanagree score --output json (one prediction, or several)",
    "merge": "spanagree merge --output json",
    "errors": "spanagree score --errors FILE.json",
    "disagreements": "spanagree agree --errors FILE.json",
    "adjudication": "spanagree merge --adjudicate FILE.json",
    "report": "the spanagree-documents block of agree, score or merge --report FILE.html",
}


def schema(name: str) -> dict:
    """The JSON Schema of the document kind ``name`` (a new dict on each call).

    Parameters
    ----------
    name : str
        One of :data:`SCHEMAS`: ``"agree"``, ``"score"``, ``"merge"``, ``"errors"``,
        ``"adjudication"``.

    Returns
    -------
    dict
        The schema, draft 2020-12.

    Raises
    ------
    UsageError
        ``name`` is not a kind of document.

    Examples
    --------
    >>> schema("agree")["title"]
    'spanagree agree --output json'
    >>> sorted(schema("errors")["$defs"]["item"]["properties"]["kind"]["enum"])  # doctest: +NORMALIZE_WHITESPACE
    ['argument_boundary', 'missed', 'partial', 'spurious', 'written_otherwise', 'wrong_label',
     'wrong_label_and_boundary', 'wrong_type']
    """
    if name not in SCHEMAS:
        raise UsageError(f"no JSON schema called {name!r}; choose one of: {', '.join(SCHEMAS)}")
    document = json.loads(_text(name))
    options = document.get("$defs", {}).get("options")
    if options is not None:
        with_format_options(options)
    return document


def with_format_options(options: dict) -> None:
    """Complete the schema of a command's ``options`` with every registered format option (the
    format registry is their one source: :func:`spanagree.formats.registered_options`), each
    echoed as understood — its value, or ``null`` when not given — and required."""
    from ...formats import registered_options

    for option, _ in registered_options():
        if option.keyword in options["properties"]:
            continue
        if option.choices:
            value = {"enum": [*option.choices, None]}
        elif option.type is int:
            value = {"type": ["integer", "null"]}
        elif option.type is float:
            value = {"type": ["number", "null"]}
        elif option.type is bool or option.flag_only:
            value = {"type": ["boolean", "null"]}
        else:
            value = {"type": ["string", "null"]}
        options["properties"][option.keyword] = {**value, "description": option.help}
        options["required"].append(option.keyword)


@lru_cache(maxsize=None)
def _text(name: str) -> str:
    return resources.files(__name__).joinpath(f"{name}.schema.json").read_text(encoding="utf-8")
