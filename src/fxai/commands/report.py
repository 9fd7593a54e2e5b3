"""Report outputs: figures from run files, HTML pages of tables, the index of a results folder.

fxai report figure nbc_length_vs_delta --results results/default
fxai report table-html results/default/tables/xpg_dt.csv --out report/tables/xpg_dt.html
fxai report index --results results/default --out results/default/report/index.md FILE...
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import logging
import os
from pathlib import Path

from fxai.errors import DataError
from fxai.files import read_json

LOG = logging.getLogger("fxai.report")


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


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", required=True)
    f = sub.add_parser("figure", help="draw one figure from results/<profile>/runs")
    f.add_argument("name", choices=figure_names())
    f.add_argument("--results", required=True, help="results folder, e.g. results/default")
    f.add_argument("--out", help="output folder (default <results>/figures)")
    t = sub.add_parser("table-html", help="HTML page of a table (with fidelity, missing rows)")
    t.add_argument("table", help="tables/<name>.csv (or its .md/.tex twin)")
    t.add_argument("--out", required=True, help="HTML file to write")
    i = sub.add_parser("index", help="Markdown index of the report's tables and figures")
    i.add_argument("files", nargs="*", help="the files in the report")
    i.add_argument("--results", required=True)
    i.add_argument("--provenance", help="provenance JSON (fxai.report.provenance)")
    i.add_argument("--claims", help="tables/claims.csv: each file's claims beside it")
    i.add_argument("--out", required=True)


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


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    if args.action == "figure":
        from fxai.report import figures

        if not Path(args.results).is_dir():
            raise DataError(f"results folder {args.results} does not exist (--results)")
        paths = figures.make_figure(args.name, args.results, args.out)
        LOG.info("wrote %s", ", ".join(map(str, paths)))
    elif args.action == "table-html":
        from fxai.report import html

        LOG.info("wrote %s", html.table_page(args.table, args.out))
    else:
        write_index(args.files, args.results, args.out, args.provenance, args.claims)
        LOG.info("wrote %s", args.out)
    return 0
