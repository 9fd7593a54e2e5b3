"""Check config files before snakemake reads them: YAML syntax (named by file and line) and a
mapping of keys at the top. Snakemake's own message for a YAML error names neither.

``make run``, ``make report`` and ``make unlock`` run it on ``CONFIG`` first; the keys and
values are checked by the workflow's schemas when snakemake starts.
"""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", help="config files (YAML), as given to --configfile")


def run(args: argparse.Namespace) -> int:
    from fxai.data.config import load_config

    for path in args.files:
        load_config(path)
    return 0
