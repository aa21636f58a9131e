"""The documentation site: docs/ (the prose pages and the API reference made from the docstrings)
built by Sphinx with warnings as errors, every public name in it, and the docstrings that list the
formats or their options complete (made from the registry).

Sphinx, numpydoc and MyST come with the ``[test]`` extra; without them the build is skipped with
a reason, except under ``CI=true``, where it must run.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

import spanagree
from spanagree.formats import FORMATS, detect_format, registered_options

ROOT = Path(__file__).resolve().parent.parent

#: The modules the API reference documents whole (docs/api.md): each public name of theirs must be
#: in the site's inventory.
DOCUMENTED_MODULES = ["spanagree.formats", "spanagree.options", "spanagree.pipeline.analyses", "spanagree.relations",
                      "spanagree.measures.registry", "spanagree.measures.tokens", "spanagree.measures.tables",
                      "spanagree.measures.bootstrap", "spanagree.measures.significance",
                      "spanagree.measures.unitizing", "spanagree.measures.attributes", "spanagree.report.schemas"]


def public_names(module) -> list[str]:
    """A module's ``__all__``, else the functions and classes it defines whose names have no
    leading underscore."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [name for name, value in vars(module).items() if not name.startswith("_") and callable(value)
            and getattr(value, "__module__", None) == module.__name__]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """docs/ built to HTML with warnings as errors (``-W``); the build's folder."""
    for package in ("sphinx", "numpydoc", "myst_parser"):
        try:
            importlib.import_module(package)
        except ImportError:
            if os.environ.get("CI") == "true":
                pytest.fail(f"CI=true but {package} is missing: pip install -e '.[test]'")
            pytest.skip(f"{package} is not installed (pip install -e '.[test]')")
    out = tmp_path_factory.mktemp("site")
    build = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                            "-d", str(out / ".doctrees"), str(ROOT / "docs"), str(out / "html")],
                           capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert build.returncode == 0, build.stderr
    return out / "html"


def inventory(site: Path) -> set[str]:
    from sphinx.util.inventory import InventoryFile

    with open(site / "objects.inv", "rb") as file:
        found = InventoryFile.load(file, "", lambda base, uri: uri)
    return {name for kind in found for name in found[kind]} if isinstance(found, dict) else {
        item.name for item in found}


@pytest.mark.slow
def test_the_site_builds_with_every_page(site):
    pages = {path.stem for path in (ROOT / "docs").glob("*.md")}
    assert pages <= {path.stem for path in site.glob("*.html")}
    api = (site / "api.html").read_text(encoding="utf-8")
    assert "spanagree.agree" in api and "chance_categories" in api


@pytest.mark.slow
def test_every_public_name_is_documented(site):
    names = inventory(site)
    missing = [f"spanagree.{name}" for name in spanagree.__all__
               if name != "__version__" and f"spanagree.{name}" not in names]
    for module_name in DOCUMENTED_MODULES:
        module = importlib.import_module(module_name)
        for name in public_names(module):
            documented = f"{module_name}.{name}" in names or (  # or under the package's name
                getattr(spanagree, name, None) is getattr(module, name) and f"spanagree.{name}" in names)
            if not documented:
                missing.append(f"{module_name}.{name}")
    assert missing == []


def test_read_lists_every_format_and_reader_option():
    for fmt in FORMATS.values():
        assert f"``{fmt.name}`` ({fmt.title})" in spanagree.read.__doc__
    for option, _ in registered_options():
        assert (f"``{option.keyword}``" in spanagree.read.__doc__) == option.reader


def test_write_lists_the_formats_written_and_their_options():
    for fmt in FORMATS.values():
        assert (f"``{fmt.name}`` ({fmt.title})" in spanagree.write.__doc__) == fmt.writable
    for option, _ in registered_options():
        assert (f"``{option.keyword}``" in spanagree.write.__doc__) == option.writer


def test_commands_list_every_container():
    for function in (spanagree.agree, spanagree.score):
        for fmt in FORMATS.values():
            assert (f"``{fmt.name}`` ({fmt.title})" in function.__doc__) == fmt.container, (function, fmt.name)


def test_detection_lists_every_extension():
    for fmt in FORMATS.values():
        for suffix in fmt.extensions:
            assert (f"``{suffix}``" if suffix else "no extension") in detect_format.__doc__


def test_no_docstring_keeps_a_marker():
    """Every docstring with a registry marker is filled (:func:`spanagree.formats.registry.documented`)."""
    from spanagree.formats.registry import DOC_MARKERS

    for function in (spanagree.read, spanagree.write, spanagree.agree, spanagree.score, detect_format):
        assert not any(marker in function.__doc__ for marker in DOC_MARKERS), function


@pytest.mark.parametrize("function", [spanagree.agree, spanagree.score, spanagree.vote, spanagree.read],
                         ids=lambda function: function.__name__)
def test_every_option_of_the_commands_is_described(function):
    """The public functions that build a run's options describe every keyword they take in their
    numpydoc Parameters section (and :class:`~spanagree.options.RunOptions` names every field)."""
    import dataclasses
    import inspect

    from spanagree.options import RunOptions

    docscrape = pytest.importorskip("numpydoc.docscrape") if os.environ.get("CI") != "true" else importlib.import_module(
        "numpydoc.docscrape")
    described = {name.strip().lstrip("*") for parameter in docscrape.FunctionDoc(function)["Parameters"]
                 for name in parameter.name.split(",")}
    assert [name for name in inspect.signature(function).parameters if name not in described] == []
    assert [f.name for f in dataclasses.fields(RunOptions) if f.name not in RunOptions.__doc__] == []


def test_the_readme_links_to_the_reference():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/api.md" in readme and "python -m sphinx" in readme
