"""docs/design.md's module map names every module of the package, and only those; nothing in the
repository cites a design file outside it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_module_map_matches_the_tree():
    page = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    section = page.split("## Module map", 1)[1].split("\n## ", 1)[0]
    mapped = set(re.findall(r"^\| `(spanagree/[\w/]+\.py)` \|", section, flags=re.M))
    tree = {path.relative_to(ROOT).as_posix() for path in (ROOT / "spanagree").rglob("*.py")}
    assert mapped == tree, (f"in the tree, not in the map: {sorted(tree - mapped)}; "
                            f"in the map, not in the tree: {sorted(mapped - tree)}")


def test_nothing_cites_a_design_file_outside_the_repository():
    cited = []
    for path in [*ROOT.glob("*.md"), *(ROOT / "docs").rglob("*.md"), *(ROOT / "spanagree").rglob("*.py"),
                 *(ROOT / "tests").rglob("*.py"), *(ROOT / "benchmarks").rglob("*.py")]:
        text = path.read_text(encoding="utf-8")
        if path.name == "CHANGELOG.md" or path == Path(__file__).resolve():
            continue
        if "DESIGN.md" in text or "shared/STYLE.md" in text:
            cited.append(path.relative_to(ROOT).as_posix())
    assert cited == []
