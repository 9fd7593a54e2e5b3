"""The design page stays true to the code: its layout names every module of ``src/fxai``,
and every link between the documentation pages resolves (file and heading)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _layout() -> dict[str, str]:
    """Per entry of the layout's ``src/fxai/`` block (``data/``, ``cli.py``, ...) its text."""
    text = (DOCS / "design.md").read_text()
    block = text.split("## Layout", 1)[1].split("```", 2)[1]
    lines = block.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("src/fxai/"))
    entries: dict[str, str] = {}
    name = None
    for ln in lines[start + 1:]:
        if not ln.startswith(" "):
            break  # the next top-level folder
        if ln.startswith("  ") and not ln.startswith("   "):
            name, _, rest = ln.strip().partition(" ")
            entries[name] = rest
        elif name:
            entries[name] += " " + ln.strip()
    return entries


def test_the_layout_names_every_module():
    entries = _layout()
    src = ROOT / "src" / "fxai"
    missing = []
    for path in sorted(src.rglob("*.py")):
        rel = path.relative_to(src)
        if path.name == "__init__.py" and len(rel.parts) == 2:
            continue  # the package's own entry
        if len(rel.parts) == 1:
            if path.name != "__init__.py" and path.name not in entries:
                missing.append(str(rel))
            continue
        package = f"{rel.parts[0]}/"
        if package not in entries or not re.search(rf"\b{re.escape(path.stem)}\b",
                                                   entries[package]):
            missing.append(str(rel))
    assert not missing, f"docs/design.md's layout does not name {missing}"


def _slug(heading: str) -> str:
    """The anchor mkdocs gives a heading (its toc extension's default)."""
    s = re.sub(r"[^\w\s-]", "", heading.strip().lower())
    return re.sub(r"[-\s]+", "-", s).strip("-")


def _anchors(page: Path) -> set[str]:
    """The page's headings' anchors, and mkdocstrings' (``::: module``: the module and its
    members by their dotted paths)."""
    text = page.read_text()
    out = {_slug(h) for h in re.findall(r"^#+\s+(.*)$", text, re.M)}
    for module in re.findall(r"^::: ([\w.]+)", text, re.M):
        out |= {module} | {f"{module}.{name}" for name in dir(importlib.import_module(module))}
    return out


def test_every_link_between_the_pages_resolves():
    anchors = {p.name: _anchors(p) for p in DOCS.glob("*.md")}
    broken = []
    for page in sorted(DOCS.glob("*.md")):
        text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue  # http:, https:, mailto:
            file, _, anchor = target.partition("#")
            name = file or page.name
            if file and not (DOCS / file).exists():
                broken.append(f"{page.name}: {target}")
            elif anchor and name.endswith(".md") and anchor not in anchors.get(name, set()):
                broken.append(f"{page.name}: {target}")
    assert not broken, f"links that do not resolve: {broken}"
