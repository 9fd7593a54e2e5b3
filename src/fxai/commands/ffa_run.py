"""Anytime FFA runs on test instances: MARCO-A, MARCO-C or MARCO-S, with a time limit or none.

Instance K is the K-th row id of a seeded permutation of the split's test rows (so the first
N runs of a dataset are N distinct random test instances whatever N is). One run file holds
the instances of one (dataset, method), a record a line (:class:`fxai.runfile.RunWriter`):
a killed job keeps its finished instances, and the instance it was in restarts from zero (its
event times would not be comparable otherwise). An input that cannot be read stops it with
a non-zero exit. The explanations are checked afterwards by ``fxai ffa-verify`` (its own
job, so that re-checking never re-enumerates).
"""

from __future__ import annotations

import argparse
import functools
import logging
from pathlib import Path

from fxai.argtypes import count, nonnegative, or_none, positive, positive_int
from fxai.errors import DataError
from fxai.experiments.ffa import METHODS, run_instance, screen_picks
from fxai.experiments.process import in_own_process
from fxai.runfile import RunWriter
from fxai.version import code_version

LOG = logging.getLogger("fxai.ffa_run")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True, help="XGBoost JSON (.json/.ubj) or sklearn .joblib")
    p.add_argument("--data", required=True, help="prepared table data/prepared/<ds>.csv (or .npz)")
    p.add_argument("--split", required=True, help="split JSON with 'test' row ids")
    p.add_argument("--instance", type=count, nargs="+", required=True, metavar="K",
                   help="explain the K-th row of the seeded permutation of the test rows "
                        "(several: one record each, in this order); with --picks, its K-th "
                        "picked instance")
    p.add_argument("--picks", metavar="SCREEN",
                   help="a screen file of 'fxai ffa-screen': --instance K is its K-th pick")
    p.add_argument("--method", choices=sorted(METHODS), required=True)
    p.add_argument("--time-limit", type=or_none(positive), required=True,
                   help="seconds per instance, or none: every run to the exact FFA")
    p.add_argument("--out", required=True,
                   help="run file (JSON Lines, a record per instance; <out>.partial until done)")
    # no defaults: the workflow passes seed, config ffa.clock and ffa.switch.* (the schema
    # states them)
    p.add_argument("--seed", type=count, required=True, help="seed of the instance permutation")
    p.add_argument("--clock", choices=["cpu", "wall"], required=True,
                   help="time stamps: process CPU time (as the reference code) or wall clock")
    p.add_argument("--window", type=positive_int, required=True,
                   help="MARCO-S sliding window w")
    p.add_argument("--alpha", type=positive, required=True,
                   help="MARCO-S gap ratio, condition (6)")
    p.add_argument("--eps", type=nonnegative, required=True,
                   help="MARCO-S stability, condition (7)")
    p.add_argument("--switch-variant", choices=["paper", "code"], required=True)
    p.add_argument("--unit-cxps", action="store_true",
                   help="test every feature alone as a CXp first (the reference --unit-mcs)")


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from fxai import explain, oracles
    from fxai.data.fetch import sha256_of
    from fxai.data.prepared import load, load_split
    from fxai.data.split import pick_instance
    from fxai.models import check_features
    from fxai.models import load as load_model

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    data_path = Path(args.data)
    data = load(data_path.stem, data_path.parent)  # checked against its recorded checksum
    _, test = load_split(args.split)
    ks = args.instance
    if args.picks is not None:
        picked = screen_picks(args.picks)
        if max(ks) >= len(picked):
            raise DataError(f"--instance {max(ks)}: {args.picks} picks {len(picked)} instances "
                            f"(use 0..{len(picked) - 1})")
        ks = [picked[p] for p in ks]
    rows = {}
    for k in ks:
        try:
            rows[k] = pick_instance(test, k, args.seed)
        except ValueError as e:
            raise DataError(f"--instance {k} with split {args.split}: {e} "
                            f"(use 0..{len(test) - 1})") from None
    model = load_model(args.model, n_features=data.n_features)
    check_features(model, args.model, data.n_features, args.data)
    base = {"code_version": code_version(), "dataset": data_path.stem,
            "model": str(args.model), "model_sha256": sha256_of(args.model)}
    rule = explain.SwitchRule(w=args.window, alpha=args.alpha, eps=args.eps,
                              variant=args.switch_variant)
    settings = {"seed": args.seed, "method": args.method, "time_limit": args.time_limit,
                "clock": args.clock, "unit_cxps": args.unit_cxps,
                "switch": [args.window, args.alpha, args.eps, args.switch_variant]}
    by_row = {row: k for k, row in rows.items()}
    # (--picks only chooses the rows: the planned rows are in the header, a record is its row's)
    writer = RunWriter(args.out, "ffa-run", settings, {"model": args.model, "data": args.data},
                       list(rows.values()), label=f"ffa {base['dataset']} {args.method}",
                       log=LOG)
    with writer:
        if writer.todo:  # compiled code loaded once, for every instance's process
            oracles.warm_up()
        for row in writer.todo:
            k, x = by_row[row], data.X[row]
            try:
                o = oracles.for_model(model, x)
            except ValueError as e:  # e.g. a model trained on another dataset
                raise DataError(f"model {args.model} cannot explain row {row} of {args.data}: "
                                f"{e}") from None
            record = base | {"instance": row, "k": k, "x": x.tolist(),
                             "prediction": np.asarray(o.prediction).item()}
            LOG.info("k=%d: row %d, %d candidate features, limit %s", k, row,
                     len(o.features), "none" if args.time_limit is None
                     else f"{args.time_limit:g}s")

            record |= in_own_process(functools.partial(
                run_instance, o, args.method, args.time_limit, args.clock, rule, args.unit_cxps))
            writer.write(record, explanations=record["n_axps"] + record["n_cxps"])
            LOG.info("k=%d: %s, %s AXps, %s CXps, time %.2fs", k, record["status"],
                     record["n_axps"], record["n_cxps"], record["time_s"])
    return 0
