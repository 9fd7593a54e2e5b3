"""Report outputs: figures from run files, HTML pages of tables, the index of a results folder.

fxai report figure nbc_length_vs_delta --results results/default
fxai report table-html results/default/tables/xpg_dt.csv --out report/tables/xpg_dt.html
fxai report index --results results/default --out results/default/report/index.md FILE...
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from fxai.errors import DataError
from fxai.report.index import figure_names, write_index

LOG = logging.getLogger("fxai.report")


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
