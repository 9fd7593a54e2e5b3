"""Enumerate all AXps and CXps (MARCO over the XpG) for the instances of a DT or OBDD.

Instances follow the XpG paper: the dataset's distinct rows, a seeded random 30 % of
them when there are more than 1000. One JSON line per instance goes to the run file through
:class:`fxai.runfile.RunWriter` (a killed run resumes); every explanation set is checked by
:mod:`fxai.verify.xpg`, which shares no code with the XpG.
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from fxai.argtypes import count, positive, positive_int, share
from fxai.experiments.xpg import explain_row, load_graph, select_instances
from fxai.runfile import RunWriter, load_input

if TYPE_CHECKING:
    pass

LOG = logging.getLogger("fxai.xpg")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--family", choices=("dt", "obdd"), required=True)
    p.add_argument("--dataset", required=True)
    p.add_argument("--model", required=True, help=".joblib (dt) or .bdd.json (obdd)")
    p.add_argument("--prepared", required=True,
                   help="folder of the prepared table <ds>.csv (data/prepared/<source>)")
    p.add_argument("--out", required=True, help="run file (JSON Lines)")
    # no defaults: the workflow passes config xpg.* and seed, whose schema states them
    p.add_argument("--time-limit", type=positive, required=True, help="seconds per instance")
    p.add_argument("--clock", choices=["cpu", "wall"], required=True,
                   help="the clock of the time limit and of the tables' time columns: process "
                        "CPU time (cpu_s, not slowed by a loaded machine) or wall clock (time_s)")
    p.add_argument("--max-rows-all", type=positive_int, required=True,
                   help="explain every distinct row up to this many, else a fraction")
    p.add_argument("--fraction", type=share, required=True)
    p.add_argument("--max-instances", type=positive_int, default=None, help="cap (default profile)")
    p.add_argument("--seed", type=count, required=True)


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from fxai.data.prepared import finite_domains, load

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    data = load_input(lambda p: load(args.dataset, p), args.prepared, "prepared table of "
                      f"{args.dataset}")
    doms = finite_domains(data.domains)
    X = data.X
    model, graph = load_input(lambda p: load_graph(args.family, p, data, doms), args.model,
                              f"{args.family} model")
    if args.family == "dt" and X.dtype.kind == "f":  # the values sklearn's tree compares
        X = X.astype(np.float32).astype(float)
    ids = select_instances(data.X, args.max_rows_all, args.fraction, args.seed,
                           args.max_instances)
    settings = {"family": args.family, "dataset": args.dataset, "time_limit": args.time_limit,
                "clock": args.clock}
    inputs = {"data": Path(args.prepared) / f"{args.dataset}.csv", "model": args.model}
    n_bad = 0
    with RunWriter(args.out, "xpg-explain", settings, inputs, ids,
                   f"xpg {args.family} {args.dataset}") as run:
        for row in run.todo:
            rec = {"dataset": args.dataset, "model": args.family, "instance": row,
                   "x": [v.item() for v in data.X[row]]}
            rec |= explain_row(args.family, model, graph, doms, [v.item() for v in X[row]],
                               args.time_limit, args.clock)
            n_bad += rec["verified"] is False
            run.write(rec, explanations=rec["checked"])
    LOG.info("%s (%s): %d runs failed their check", args.dataset, args.family, n_bad)
    return 0

