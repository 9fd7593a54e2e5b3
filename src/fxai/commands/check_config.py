"""Check config files before snakemake reads them: YAML syntax (named by file and line), a
mapping of keys at the top, and no unknown key (each named with the nearest valid one).
Snakemake's own messages name neither the line nor the key.

``make run``, ``make report`` and ``make unlock`` run it on ``CONFIG`` first; the keys and
values are checked by the workflow's schemas when snakemake starts.
"""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", help="config files (YAML), as given to --configfile")


def run(args: argparse.Namespace) -> int:
    from fxai.data.config import check_keys, load_config

    for path in args.files:
        check_keys(load_config(path), where=f"config file {path}")
    return 0
