"""XML parsed safely, the one way every XML reader parses (inline XML, GATE, UIMA XMI and its type
systems, INCEpTION's XMI).

Safety comes from the parser's own settings, not from searching the bytes: lxml never loads a DTD,
never resolves an entity, never touches the network, and keeps libxml2's size limits (no
``huge_tree``). What a DTD's internal subset declares is then read from the parsed tree
(``docinfo``), whatever the file's encoding (UTF-16, UTF-7, ...) or however long its prolog:

* formats that never use a DTD (GATE, XMI, type systems) refuse any DOCTYPE
  (:func:`refuse_doctype`);
* inline XML keeps a DOCTYPE but refuses the entities it declares (:func:`declared_entities`),
  since libxml2 expands an internal entity in an attribute's value even when told not to resolve
  entities (the text's references stay unexpanded and are refused where they stand).
"""

from __future__ import annotations

import io

from ..errors import FormatError

__all__ = ["SAFE", "declared_entities", "has_doctype", "may_be_xml", "refuse_doctype", "root_tag", "root_tag_in",
           "root_without_doctype", "safe_root"]

#: The parser options: no DTD, no network, no entity expansion, libxml2's size limits kept.
SAFE = dict(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
            remove_comments=False, remove_pis=False, strip_cdata=True, remove_blank_text=False)


def safe_root(data: bytes):
    """The root element of ``data`` parsed with :data:`SAFE` (lxml's ``XMLSyntaxError`` as it comes)."""
    from lxml import etree  # (imported when XML is read: a run without XML never loads lxml)
    return etree.fromstring(data, etree.XMLParser(**SAFE))


def may_be_xml(head: bytes) -> bool:
    """Whether the first bytes of a file may begin an XML document in some encoding: after UTF-8's
    byte-order mark and whitespace, ``<``, or a byte no ASCII-compatible text file begins with here
    (a UTF-16 or UTF-32 byte-order mark or NUL, UTF-7's ``+``, EBCDIC's ``<`` and space ``L`` and
    ``@``, any byte above 127). What is not is told without parsing (and without loading lxml:
    a CoNLL or JSON-lines file is recognised without it).

    Examples
    --------
    >>> may_be_xml(b"\\xef\\xbb\\xbf  <?xml version='1.0'?>"), may_be_xml("<a/>".encode("utf-16"))
    (True, True)
    >>> may_be_xml(b"-DOCSTART- O\\n"), may_be_xml(b'{"id": 1}'), may_be_xml(b"")
    (False, False, True)
    """
    body = head[3:] if head.startswith(b"\xef\xbb\xbf") else head
    body = body.lstrip(b" \t\r\n")
    return not body or body[:1] in (b"<", b"+", b"L", b"@") or not 32 <= body[0] < 127


def root_tag(head: bytes) -> str | None:
    """The root element's local name, from the first bytes of a file (parsed with :data:`SAFE` up to
    the root's start, past any declaration, comment or DOCTYPE, in any encoding the declaration or
    byte-order mark names); ``None`` when the head does not reach it or is not XML.

    Examples
    --------
    >>> root_tag(b'<?xml version="1.0"?>\\n<!DOCTYPE g [<!ENTITY e "x">]><!-- c --><g:Doc xmlns:g="u"><a>')
    'Doc'
    >>> root_tag(b"not xml"), root_tag(b"<!-- unfinished")
    (None, None)
    """
    if not may_be_xml(head):
        return None
    return root_tag_in(io.BytesIO(head), len(head))


def root_tag_in(file, limit: int, chunk: int = 1 << 16) -> str | None:
    """:func:`root_tag` of a binary ``file``, reading at most ``limit`` bytes of it (a chunk at a time,
    stopping at the root's start)."""
    first = file.read(min(chunk, limit))
    if not may_be_xml(first):
        return None
    from lxml import etree  # (imported when XML is read: a run without XML never loads lxml)
    parser = etree.XMLPullParser(events=("start",), **SAFE)
    read = 0
    while read < limit:
        data = first if not read else file.read(min(chunk, limit - read))
        if not data:
            break
        read += len(data)
        try:
            parser.feed(data)
        except etree.XMLSyntaxError:
            failed = True
        else:
            failed = False
        for _, element in parser.read_events():
            return element.tag.rpartition("}")[2]
        if failed:
            return None
    return None


def has_doctype(tree) -> bool:
    """Whether the parsed document (an element of it, or its tree) has a DOCTYPE: a declaration
    with an internal subset, a system or a public identifier.

    Examples
    --------
    >>> has_doctype(safe_root(b"<?xml version='1.0'?><!-- c --><a/>"))
    False
    >>> has_doctype(safe_root('<!DOCTYPE a [<!ENTITY e "x">]><a/>'.encode("utf-16")))
    True
    """
    info = (tree.getroottree() if hasattr(tree, "getroottree") else tree).docinfo
    return bool(info.doctype) or info.internalDTD is not None or bool(info.system_url) or bool(info.public_id)


def root_without_doctype(data: bytes, path: str, what: str):
    """The root element of ``data`` parsed with :data:`SAFE`, a DOCTYPE refused (:func:`refuse_doctype`)
    even when the document is not well formed after it (an entity it declares used in an
    attribute); lxml's ``XMLSyntaxError`` otherwise, as it comes.

    Raises
    ------
    FormatError
        A DOCTYPE, naming ``path``.
    """
    from lxml import etree  # (imported when XML is read: a run without XML never loads lxml)
    try:
        root = safe_root(data)
    except etree.XMLSyntaxError:
        if _doctype_before_root(data):
            refuse_doctype(None, path, what)
        raise
    refuse_doctype(root, path, what)
    return root


def _doctype_before_root(data: bytes, chunk: int = 1 << 16) -> bool:
    """Whether the prolog of ``data`` (parsed with :data:`SAFE` up to the root's start) holds a DOCTYPE."""
    from lxml import etree  # (imported when XML is read: a run without XML never loads lxml)
    parser = etree.XMLPullParser(events=("start",), **SAFE)
    for at in range(0, len(data), chunk):
        try:
            parser.feed(data[at:at + chunk])
        except etree.XMLSyntaxError:
            failed = True
        else:
            failed = False
        for _, element in parser.read_events():  # the events before an error are kept
            return has_doctype(element)
        if failed:
            return False
    return False


def refuse_doctype(tree, path: str, what: str) -> None:
    """Raise when the parsed document holds a DOCTYPE (or, ``tree`` ``None``, was found to), which
    ``what`` (``"UIMA XMI never uses"``) explains.

    Raises
    ------
    FormatError
        Naming ``path``: ``holds a DOCTYPE (a DTD), which <what>: not read, ...``.
    """
    if tree is None or has_doctype(tree):
        raise FormatError(path, f"holds a DOCTYPE (a DTD), which {what}: not read, so that no entity is expanded "
                          "or fetched")


def declared_entities(tree) -> list[str]:
    """The general entities the document's internal DTD subset declares, in order.

    Examples
    --------
    >>> declared_entities(safe_root(b'<!DOCTYPE a [<!ENTITY who "Ana"><!ENTITY x "y">]><a/>'))
    ['who', 'x']
    >>> declared_entities(safe_root(b'<!DOCTYPE a SYSTEM "a.dtd"><a/>'))
    []
    """
    dtd = (tree.getroottree() if hasattr(tree, "getroottree") else tree).docinfo.internalDTD
    return [] if dtd is None else [entity.name for entity in dtd.iterentities()]
