"""Anytime-FFA figures 1-10, FFA pictures, Table 1 (runtime to exact FFA) and a run summary
from run files (read one at a time, so memory does not grow with the runs' size)."""

from __future__ import annotations

import argparse
import logging


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--runs", nargs="+", required=True, help="run records of fxai ffa-run")
    p.add_argument("--checks", nargs="*", default=[], help="their check records (ffa-verify)")
    p.add_argument("--figures-dir", required=True)
    p.add_argument("--tables-dir", required=True)
    # no defaults: the workflow passes config ffa.metric_variant and data.registry
    p.add_argument("--variant", choices=["paper", "code"], required=True,
                   help="metric definitions: the paper's or the authors' code's")
    p.add_argument("--log-time", action="store_true", help="symlog time axis")
    p.add_argument("--reference", default="ffa_table1_runtime",
                   help="published table in data/reference ('' for none)")
    p.add_argument("--registry", required=True,
                   help="dataset registry: which datasets are images (FFA pictures)")
    p.add_argument("--models", nargs="*", default=None,
                   help="the ensembles' meta JSON (models/bt/<ds>.meta.json): hardness columns")


def run(args: argparse.Namespace) -> int:
    from fxai.experiments.ffa_report import make_report

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    figs = make_report(args.runs, args.checks, args.figures_dir, args.tables_dir, args.variant,
                       args.log_time, args.reference or None, args.registry, args.models)
    logging.getLogger("fxai.ffa_report").info("wrote %d figures", len(figs))
    return 0
