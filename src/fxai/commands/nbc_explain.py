"""Explain test instances of an NBC: AXp (XLC per class pair), ApproxPAXp per δ and target,
verified."""

from __future__ import annotations

import argparse
import logging
import time
from typing import TYPE_CHECKING

from fxai.argtypes import count, positive_int, probability
from fxai.commands.nbc_train import read_prepared, read_split
from fxai.runfile import RunWriter, load_input

if TYPE_CHECKING:
    from fxai.verify.nbc import PrecisionChecker

log = logging.getLogger("fxai.nbc")


def pick_instances(test_ids: list[int], n: int, seed: int) -> list[int]:
    """The first ``n`` test rows of a permutation seeded by ``seed`` (all when fewer); a
    larger ``n`` extends a smaller one's choice."""
    import numpy as np

    perm = np.random.default_rng(seed).permutation(len(test_ids))
    return [int(test_ids[i]) for i in perm[:n]]


def _combine(flags: list[bool | None]) -> bool | None:
    if any(f is False for f in flags):
        return False
    return None if any(f is None for f in flags) else True


def paxp_record(model, checker: PrecisionChecker, x, axp: list[int], delta: float,
                target: int, decimals: int) -> dict:
    """One ApproxPAXp setting: trimmed only when ``|AXp| > target`` (paper, Section 5.1).

    The paper's decision uses the scaled DP. The result is then checked independently on
    the real-valued model; if the scaled DP made it accept a set of true precision < δ
    (``dp_unsound``) or reject a removal that keeps precision ≥ δ (``dp_nonminimal``),
    the set is recomputed with the oracle's
    sound decision (error-bounded counting) and the DP's set is kept as ``features_dp``.
    ``precision`` is the real model's, counted by :mod:`fxai.verify.paxp` (exact, or the
    midpoint of a bracket of half-width ``precision_err``); an untrimmed AXp is verified by
    counting its precision 1.
    """
    from fxai.explain.paxp import approx_paxp
    from fxai.oracles.nbc import NBCOracle
    from fxai.verify.paxp import check_approx_paxp

    rec: dict = {"delta": delta, "target": target, "trimmed": len(axp) > target}
    if not rec["trimmed"]:
        o = NBCOracle(model, x, decimals)
        lo, hi = checker.interval(axp)  # an AXp: precision 1, counted independently
        rec.update(features=list(axp), precision=float((lo + hi) / 2),
                   precision_err=float((hi - lo) / 2), precision_dp=o.precision(axp),
                   time_s=0.0, cpu_s=0.0, verified=checker.at_least(axp, 1.0),
                   dp_unsound=False, dp_nonminimal=False, repaired=False)
        return rec
    t0, c0 = time.perf_counter(), time.process_time()
    o = NBCOracle(model, x, decimals)
    order = sorted(axp, key=lambda i: (o.deltas[i], i))
    res = approx_paxp(o, delta, seed=axp, order=order)
    t_dp, c_dp = time.perf_counter() - t0, time.process_time() - c0
    ok, (lo, hi) = check_approx_paxp(checker, axp, res.features, delta)
    rec.update(features=res.features, precision=float((lo + hi) / 2),
               precision_err=float((hi - lo) / 2),
               precision_dp=res.precision, passes=res.passes, time_s=t_dp, cpu_s=c_dp,
               dp_unsound=False, dp_nonminimal=False, repaired=False, verified=ok)
    if ok is False:  # the scaled DP decided wrongly somewhere (the set is a subset of the AXp)
        unsound = checker.at_least(res.features, delta) is False
        rec.update(dp_unsound=unsound, dp_nonminimal=not unsound)
        t0, c0 = time.perf_counter(), time.process_time()
        sound = approx_paxp(o, delta, seed=axp, order=order, sound=True)
        t_sound, c_sound = time.perf_counter() - t0, time.process_time() - c0
        ok2, (lo2, hi2) = check_approx_paxp(checker, axp, sound.features, delta)
        rec.update(features_dp=res.features, features=sound.features,
                   precision=float((lo2 + hi2) / 2), precision_err=float((hi2 - lo2) / 2),
                   precision_dp=o.precision(sound.features), time_s=t_dp + t_sound,
                   cpu_s=c_dp + c_sound,
                   repaired=True, verified=ok2)
    return rec


def explain_instance(model, ds: str, row: int, x, deltas, targets, decimals: int) -> dict:
    from fxai.oracles.nbc import NBCOracle
    from fxai.verify.nbc import PrecisionChecker, check_axp

    t0 = time.perf_counter()
    o = NBCOracle(model, x, decimals)
    axp = o.axp()
    t_axp = time.perf_counter() - t0
    axp_ok = check_axp(model, x, axp)
    checker = PrecisionChecker(model, x)
    settings = [paxp_record(model, checker, x, axp, d, t, decimals)
                for d in deltas for t in targets]
    return {
        "dataset": ds, "model": "nbc", "classes": o.n_classes, "instance": int(row),
        "x": [int(v) for v in x], "prediction": int(model.classes_[o.prediction]),
        "status": "done",
        "time_s": t_axp + sum(s["time_s"] for s in settings), "axp_time_s": t_axp,
        "axps": [axp], "axp_verified": axp_ok, "approx_paxp": settings,
        "verified": _combine([axp_ok] + [s["verified"] for s in settings]),
    }


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", required=True, help="prepared table data/prepared/<ds>.csv")
    p.add_argument("--split", required=True, help="split file")
    p.add_argument("--model", required=True, help="NBC <ds>.joblib")
    p.add_argument("--out", required=True,
                   help="run file runs/nbc/<ds>.jsonl (written via <out>.partial)")
    # no defaults: the workflow passes config nbc.* and seed, whose schema states them
    p.add_argument("--deltas", type=probability, nargs="+", required=True)
    p.add_argument("--targets", type=positive_int, nargs="+", required=True)
    p.add_argument("--decimals", type=count, required=True)
    p.add_argument("--instances", type=positive_int, required=True,
                   help="test instances (all if fewer)")
    p.add_argument("--seed", type=count, required=True)


def run(args: argparse.Namespace) -> int:
    from fxai.models import nbc

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    X, _, _, name = load_input(read_prepared, args.data, "prepared table")
    _, test_ids = load_input(lambda p: read_split(p, len(X)), args.split, "split")
    model = load_input(nbc.load, args.model, "NBC model")
    rows = pick_instances(test_ids, args.instances, args.seed)
    settings = {"deltas": args.deltas, "targets": args.targets, "decimals": args.decimals}
    inputs = {"data": args.data, "model": args.model}
    with RunWriter(args.out, "nbc-explain", settings, inputs, rows, f"nbc {name}") as run:
        for row in run.todo:
            rec = explain_instance(model, name, row, X[row], args.deltas, args.targets,
                                   args.decimals)
            run.write(rec, explanations=1 + len(rec["approx_paxp"]))
    return 0
