"""Sphinx configuration of spanagree's documentation: the prose pages of docs/ (Markdown, read by
MyST) and the API reference made from the docstrings (numpydoc). ``tests/test_docs.py`` builds it
with warnings as errors; docs/api.md says why Sphinx and numpydoc."""

import os
import re
import sys

sys.path.insert(0, os.path.abspath(".."))

from spanagree import __version__  # noqa: E402

project = "spanagree"
author = "The spanagree developers"
release = version = __version__

extensions = ["sphinx.ext.autodoc", "sphinx.ext.autosummary", "numpydoc", "myst_parser"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# The prose pages link to one another and to their headings (GitHub's anchors), which the build
# checks; their links to Markdown files of the repository outside docs/ (CHANGELOG.md,
# benchmarks/RESULTS.md, ...) are not pages of the site: there they show the file's path.
myst_heading_anchors = 4
OUTSIDE_LINK = re.compile(r"\[([^\]]+)\]\(\.\./([^)#\s]+\.md)(#[^)\s]*)?\)")


def outside_links_as_paths(app, docname, source):
    """``[text](../CHANGELOG.md)`` → ``text (`CHANGELOG.md`)`` in the site (the page is unchanged)."""
    source[0] = OUTSIDE_LINK.sub(lambda m: f"{m.group(1)} (`{m.group(2)}`)", source[0])


def setup(app):
    app.connect("source-read", outside_links_as_paths)

autodoc_member_order = "bysource"
autodoc_typehints = "none"  # the numpydoc Parameters sections give the types
autosummary_generate = False
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

html_theme = "alabaster"
html_static_path = []
autodoc_default_options = {"no-value": True}
