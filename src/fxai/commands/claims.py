"""Check the papers' qualitative claims on a results folder: tables/claims.csv/.md.

fxai claims --results results/default --out-dir results/default/tables

One row per claim of :mod:`fxai.experiments.claims` (docs/claims.md): the paper, the figures and
tables that show it, the statement, the verdict on this run (holds, does not hold, no data)
and the numbers it was decided on. A claim that does not hold is a finding, not an error: the
command still exits 0.
"""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--results", required=True, help="results folder, e.g. results/default")
    p.add_argument("--out-dir", required=True, help="folder of tables/claims.csv/.md/.tex")


def run(args: argparse.Namespace) -> int:
    from fxai.experiments.claims import check_all
    from fxai.report.tables import write_table

    try:
        df = check_all(args.results)
    except FileNotFoundError as err:
        raise SystemExit(str(err)) from None
    write_table(df, "claims", args.out_dir, key=("id",),
                caption="The papers' qualitative claims (docs/claims.md), checked on this run.")
    print(df[["id", "verdict", "numbers"]].to_string(index=False))
    return 0
