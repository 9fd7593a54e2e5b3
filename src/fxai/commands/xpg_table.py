"""Aggregate XpG run files into Table 1 (OBDDs) or Table 2 (DTs) of the XpG paper.

Columns follow ``data/reference/xpg_table{1_obdd,2_dt}.csv``: #F, #TI, model size and
test accuracy (plus, from the model's meta: the sized learner's target depth and #N, features
used, distinct thresholds of a tree, training accuracy), XPs per instance, AXp/CXp counts
per instance (max, min, avg) and their average length in % of #F (per-instance mean length,
averaged over instances), and the enumeration time per instance (total, max, min, avg,
seconds) on the clock the runs' time limit used (``xpg.clock``: process CPU time ``cpu_s``
or wall clock ``time_s``, from each run file's header). Extra columns: the verified
fraction, timeouts/errors, whether the instances were capped, and the clock.

Timed-out instances are censored: the counts and times above are over the finished
instances only, ``timeouts`` counts the others, and ``time_avg_lb_s`` is a lower bound of
the mean time over all instances (each timed-out one counted at the time limit).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from fxai.argtypes import positive_int
from fxai.experiments.xpg import TIME, build, missing_reasons
from fxai.files import read_json

if TYPE_CHECKING:
    pass


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--family", choices=("dt", "obdd"), required=True)
    p.add_argument("--runs", nargs="*", default=[], help="run files (JSON Lines)")
    p.add_argument("--metas", nargs="*", default=[], help="model meta JSON, same order")
    p.add_argument("--out-dir", required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--reference", default=None, help="published table in data/reference/")
    p.add_argument("--max-instances", type=positive_int, default=None, help="cap used by the runs")
    # no defaults: the workflow passes config xpg.missing_reason and xpg.clock
    p.add_argument("--missing-reason", required=True,
                   help="why a published dataset without a run is missing")
    p.add_argument("--clock", choices=sorted(TIME), required=True,
                   help="the clock the runs' time limit used (xpg.clock); a run file of "
                        "another clock is refused")


def run(args: argparse.Namespace) -> int:
    from fxai.report.reference import load
    from fxai.report.tables import write_table

    if args.reference:
        load(args.reference)  # a missing published table stops here, before anything is written
    df, versions = build(args.runs, args.metas, args.family, args.max_instances, args.clock)
    learners = sorted({read_json(m, "model meta file").get("learner", "?") for m in args.metas})
    what = "OBDDs (CN2 decision lists, dd)" if args.family == "obdd" else \
        f"DTs ({'; '.join(learners) or 'sklearn CART'})"
    caption = (f"All AXps and CXps of {what}: MARCO over the XpG, every explanation verified "
               f"independently (verified_pct). Times: {args.clock} seconds per instance, the "
               "clock of the time limit.")
    if len(df) and df["timeouts"].any():
        caption += (" Timed-out instances (timeouts) are left out of the counts and times "
                    "(censored); time_avg_lb_s, which counts each at the time limit, is a lower "
                    "bound of the mean time over all instances.")
    if args.max_instances is not None:
        caption += f" At most {args.max_instances} instances per dataset (capped = true)."
    reasons = None
    if args.reference:
        reasons = missing_reasons(args.reference, set(df["dataset"]) if len(df) else set(),
                           args.missing_reason)
    write_table(df, args.name, args.out_dir, reference=args.reference,
                missing_reason=reasons, caption=caption, code_versions=versions)
    print(df.to_string(index=False))
    return 0


