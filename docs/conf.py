"""Sphinx configuration of spanagree's documentation: the prose pages of docs/ (Markdown, read by
MyST) and the API reference made from the docstrings (numpydoc). ``tests/test_docs.py`` builds it
with warnings as errors; docs/api.md says why Sphinx and numpydoc."""

import os
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

# The prose pages link to files of the repository (tests, sources, corpora) and to one another;
# a page's own headings are its anchors.
myst_heading_anchors = 4
suppress_warnings = ["myst.xref_missing", "myst.header"]

autodoc_member_order = "bysource"
autodoc_typehints = "none"  # the numpydoc Parameters sections give the types
autosummary_generate = False
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

html_theme = "alabaster"
html_static_path = []
autodoc_default_options = {"no-value": True}
