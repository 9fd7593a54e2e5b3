"""The Markdown index of a results folder's report, and the names of the figures it can
draw (read without importing matplotlib)."""

from __future__ import annotations

import ast
import importlib.util
import os
from pathlib import Path

from fxai.files import read_json


def figure_names() -> list[str]:
    """The keys of :data:`fxai.report.figures.FIGURES`, read from its source without importing
    it (drawing needs matplotlib; parsing the command line does not)."""
    spec = importlib.util.find_spec("fxai.report.figures")
    for node in ast.parse(Path(spec.origin).read_text()).body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(getattr(t, "id", None) == "FIGURES" for t in targets):
                return sorted(ast.literal_eval(k) for k in node.value.keys)
    raise RuntimeError(f"{spec.origin}: no FIGURES dict")


def claims_by_name(claims: str | None) -> dict[str, list[str]]:
    """Table or figure name -> the verdicts of the claims it shows (``tables/claims.csv``)."""
    if not claims:
        return {}
    import pandas as pd

    out: dict[str, list[str]] = {}
    for c in pd.read_csv(claims).itertuples():
        for name in str(c.shown_in).split():
            out.setdefault(name, []).append(f"claim `{c.id}` {c.verdict}: {c.numbers}")
    return out


def write_index(files: list[str], results: str, out: str, provenance: str | None,
                claims: str | None = None) -> None:
    """The Markdown index ``out`` of the report's ``files`` under ``results``, by section,
    with the run's provenance and each file's claims."""
    from fxai.report.results import SECTIONS, natural_key, section_of

    root = Path(results)
    verdicts = claims_by_name(claims)
    lines = [f"# Results index: `{root}`", ""]
    if provenance:
        prov = read_json(provenance, "provenance file")
        lines += [
            f"Profile `{prov.get('profile')}`, seed {prov.get('seed')}, commit "
            f"`{prov.get('commit')}`, {prov.get('platform')}.",
            "",
            "Versions: " + ", ".join(f"{k} {v}" for k, v in prov.get("versions", {}).items()),
            "",
        ]
        code = prov.get("code_versions") or {}
        if code:
            lines += ["fxai code versions in the results: "
                      + ", ".join(f"`{v}`" for v in code)
                      + (" (**more than one**: see the provenance page)" if len(code) > 1 else "")
                      + ".", ""]
    by_section: dict[str, list[str]] = {}
    for f in files:
        by_section.setdefault(section_of(f), []).append(f)
    order = [*SECTIONS, "other"]
    for section in sorted(by_section, key=order.index):
        lines += [f"## {section}", ""]
        for f in sorted(by_section[section], key=natural_key):
            p = Path(f)
            shown = p.relative_to(root) if p.is_relative_to(root) else p
            link = os.path.relpath(p, Path(out).parent)  # links work from the index's folder
            lines.append(f"- [`{shown}`]({link})")
            lines += [f"  - {v}" for v in verdicts.get(p.stem, ())]
        lines.append("")
    lines.append(f"Open the full report: `snakemake --report {root}/report.html`.")
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text("\n".join(lines) + "\n")
