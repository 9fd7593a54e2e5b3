"""Tabulate the attribution audit: a tidy per-instance table and a summary, with figures.

``audit_instances.csv``: one row per (model family, dataset, instance, score) with the
measures of :func:`fxai.attribution.measures.disagreement` and the score's CPU time.
``audit_summary`` (csv/md): one row per (family, dataset, score): instances with verified,
complete ground truth, the percentage of them on which each disagreement holds, mean gap,
Kendall τ and RBO against exact FFA, and mean time. An instance whose enumeration did not
complete, or whose AXps/CXps failed their independent check, is counted in ``excluded``
and never in a rate. Figures (``--figures-dir``): ``audit_gap`` and ``audit_disagreement``
(:mod:`fxai.report.audit_figures`).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from fxai.experiments.audit import SHORT, rows_of, summarise
from fxai.files import write_atomic
from fxai.runfile import iter_records

if TYPE_CHECKING:
    pass


CAPTION = ("Attribution scores against formal ground truth (relevancy: a feature is in some "
           "AXp), one row per (model family, dataset, score). *instances*: with verified, "
           "complete enumeration; *excluded*: incomplete or unverified. Rates (% of the instances "
           "where defined: the comparisons need relevant and irrelevant features): "
           "an irrelevant feature scores >= / > a relevant one in |value| (*irr_ge*, *irr_gt*), "
           "ranks first (*top_irr*); a relevant one scores 0 (*rel_zero*); an irrelevant one "
           "scores non-zero (*irr_nonzero*). *gap*: mean of (min relevant - max irrelevant) / "
           "max |score|. *tau*, *rbo*: mean rank agreement of |score| with exact FFA. *ms*: "
           "mean CPU time per instance. No column is published.")
def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="+", help="audit-run JSON Lines files")
    p.add_argument("--out-dir", required=True)
    p.add_argument("--figures-dir", help="also draw audit_gap and audit_disagreement here")


def run(args: argparse.Namespace) -> int:
    import numpy as np
    import pandas as pd

    from fxai.report.tables import write_table

    rows = [row for path in args.runs for rec in iter_records(path) for row in rows_of(rec)]
    tidy = pd.DataFrame(rows)
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "audit_instances.csv", tidy.to_csv(index=False))
    summary = summarise(tidy) if len(tidy) else pd.DataFrame()
    table = summary.rename(columns={"kendall_tau": "tau"}).round(
        {"gap": 3, "tau": 3, "rbo": 3, "ms": 2, **dict.fromkeys(SHORT.values(), 1)})
    write_table(table, "audit_summary", out, key=("family", "dataset", "score"),
                caption=CAPTION)
    if args.figures_dir:
        from fxai.report.audit_figures import audit_disagreement, audit_gap

        audit_gap(tidy, Path(args.figures_dir) / "audit_gap")
        audit_disagreement(summary, Path(args.figures_dir) / "audit_disagreement")
    n = int(np.sum(tidy["ground_truth"])) if len(tidy) else 0
    print(f"audit: {len(tidy)} rows ({n} with ground truth) from {len(args.runs)} run files")
    return 0
