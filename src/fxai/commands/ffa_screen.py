"""Pick the FFA instances as the authors' scripts appear to have: in the seeded order of
the test rows, the first N whose MARCO-A reaches the exact FFA within a time limit.

The paper says its 15 instances per dataset were "randomly selected"; the authors' scripts
explain fixed low test-row indices with gaps (PneumoniaMNIST 17, 19, 28, ... 78), the rows
that finished (docs/ffa.md, "Which instances"). This command tries the seeded instances
K = 0, 1, 2, ... in turn (MARCO-A, each in its own process, as ``fxai ffa-run``) and stops
when N of them are exact, or fails after ``--tries`` instances. The output is a run file, a
record per instance tried (``k``, row, status, time, counts); ``fxai ffa-run --picks`` reads
its picked instances. A killed screen resumes after the instances it has tried.
"""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path

from fxai.argtypes import count, positive, positive_int
from fxai.errors import DataError
from fxai.experiments.ffa import SCREEN_COMMAND
from fxai.runfile import Partial, make_header

LOG = logging.getLogger("fxai.ffa_screen")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True, help="XGBoost JSON (.json/.ubj) or sklearn .joblib")
    p.add_argument("--data", required=True, help="prepared table data/prepared/<ds>.csv (or .npz)")
    p.add_argument("--split", required=True, help="split JSON with 'test' row ids")
    p.add_argument("--instances", type=positive_int, required=True, metavar="N",
                   help="instances to pick")
    p.add_argument("--time-limit", type=positive, required=True,
                   help="MARCO-A's seconds (of --clock) for an instance to count as finishing")
    p.add_argument("--tries", type=positive_int, required=True,
                   help="instances tried at most (K = 0 .. tries-1) before giving up")
    p.add_argument("--seed", type=count, required=True, help="seed of the instance permutation")
    p.add_argument("--clock", choices=["cpu", "wall"], required=True,
                   help="the time limit's clock: process CPU time or wall clock")
    p.add_argument("--out", required=True,
                   help="screen file (JSON Lines, a record per instance tried; <out>.partial "
                        "until done)")


def run(args: argparse.Namespace) -> int:
    from fxai import oracles
    from fxai.data.prepared import load, load_split
    from fxai.data.split import pick_instance
    from fxai.experiments.ffa import run_instance
    from fxai.experiments.process import in_own_process
    from fxai.models import check_features
    from fxai.models import load as load_model

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    data_path = Path(args.data)
    data = load(data_path.stem, data_path.parent)
    _, test = load_split(args.split)
    model = load_model(args.model, n_features=data.n_features)
    check_features(model, args.model, data.n_features, args.data)
    tries = min(args.tries, len(test))
    # a record depends on these; how many to pick and try does not (a rerun with more keeps
    # the instances tried)
    settings = {"seed": args.seed, "time_limit": args.time_limit, "clock": args.clock,
                "method": "marco-a"}
    inputs = {"model": args.model, "data": args.data, "split": args.split}
    about = {"instances": args.instances, "tries": args.tries}
    partial = Partial(args.out, make_header(SCREEN_COMMAND, settings, inputs, about=about), LOG)
    tried, keep = {}, []
    for line, rec in partial.previous():
        if isinstance(rec, dict) and rec.get("k") == len(tried):  # in order, as written
            tried[rec["k"]] = rec
            keep.append(line)
    if tried:
        LOG.info("%s: resuming after %d instances tried", args.out, len(tried))
    partial.open(keep)
    label = f"ffa-screen {data_path.stem}"
    try:
        oracles.warm_up()
        for k in range(len(tried), tries):
            if sum(r["status"] == "done" for r in tried.values()) >= args.instances:
                break
            row = pick_instance(test, k, args.seed)
            try:
                o = oracles.for_model(model, data.X[row])
            except ValueError as e:  # e.g. a model trained on another dataset
                raise DataError(f"model {args.model} cannot explain row {row} of {args.data}: "
                                f"{e}") from None
            res = in_own_process(lambda o=o: _summary(run_instance(
                o, "marco-a", args.time_limit, args.clock)))
            tried[k] = {"dataset": data_path.stem, "k": k, "instance": row, **res}
            partial.append(tried[k])
            LOG.info("%s: k=%d (row %d) %s, %d AXps, %d CXps, %.2f s; %d of %d picked", label,
                     k, row, res["status"], res["n_axps"], res["n_cxps"], res["time_s"],
                     sum(r["status"] == "done" for r in tried.values()), args.instances)
    finally:
        partial.close()
    n = sum(r["status"] == "done" for r in tried.values())
    if n < args.instances:
        raise DataError(f"{args.out}: only {n} of the {len(tried)} instances tried reach the "
                        f"exact FFA within {args.time_limit:g} s; raise --tries or --time-limit")
    os.replace(partial.path, partial.out)
    LOG.info("%s: complete, picked %s, wrote %s", label,
             [k for k, r in tried.items() if r["status"] == "done"], partial.out)
    return 0


def _summary(record: dict) -> dict:
    keys = ("status", "time_s", "n_axps", "n_cxps", "oracle_calls")
    return {key: record[key] for key in keys}
