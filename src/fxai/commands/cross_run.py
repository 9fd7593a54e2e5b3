"""Every algorithm on one model: AXp, CXp, MARCO-A/-C/-S, FFA, ApproxPAXp, all verified.

Goes beyond the papers: the same generic algorithms run on any model family whose oracle
supplies the question they need (ApproxPAXp only where the oracle counts). One JSON line
per explained instance, through :class:`fxai.runfile.RunWriter`, so a killed run resumes.
"""

from __future__ import annotations

import argparse
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING

from fxai.argtypes import count, positive, positive_int, probability
from fxai.models import FAMILIES
from fxai.runfile import RunWriter, load_input

if TYPE_CHECKING:
    from fxai.oracles.base import Oracle

LOG = logging.getLogger("fxai.cross_run")
TARGETS = {"marco-a": "axp", "marco-c": "cxp", "marco-s": "switch"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dataset", required=True)
    p.add_argument("--family", required=True,
                   choices=list(FAMILIES),
                   help="rf: random forest, soft vote (scikit-learn's predict); rfh: the same "
                        "forest file, hard vote (majority of the trees' votes); hgb, lgbm: "
                        "HistGradientBoosting, LightGBM over real features")
    p.add_argument("--model", required=True, help="model file the workflow saved")
    p.add_argument("--split", required=True, help="split JSON (test row ids)")
    p.add_argument("--prepared", required=True,
                   help="folder of the prepared table <ds>.csv (data/prepared/<source>)")
    # no defaults: the workflow passes config cross.* and seed, whose schema states them
    p.add_argument("--instances", type=positive_int, required=True,
                   help="test instances (seeded sample)")
    p.add_argument("--time-limit", type=positive, required=True, help="seconds per MARCO run")
    p.add_argument("--clock", choices=["cpu", "wall"], required=True,
                   help="the clock of the time limit and of every time recorded: process CPU "
                        "time or wall clock")
    p.add_argument("--delta", type=probability, required=True,
                   help="ApproxPAXp precision threshold")
    p.add_argument("--seed", type=count, required=True)
    p.add_argument("--out", required=True, help="JSON Lines run file")


PIPELINE_NO_PAXP = ("a Pipeline's columns are explained over the intervals and categories "
                    "its model tells apart: no uniform measure over its raw values")
REAL_NO_PAXP = ("the model's features are real (explained over the intervals its splits tell "
                "apart): no uniform measure over their values")
REAL = [f.name for f in FAMILIES.values() if f.real]  # cross runs over real features


def counts(o: Oracle) -> bool:
    """Does the oracle answer precision questions?"""
    from fxai.oracles.base import Oracle

    return type(o).precision is not Oracle.precision


def explain_instance(o: Oracle, time_limit: float, delta: float, clock: str = "cpu",
                     no_paxp: str | None = None) -> dict:
    """Run every algorithm on one oracle; the MARCO time limits and all times are seconds
    of ``clock`` (``"cpu"``: process CPU time, ``"wall"``). ``no_paxp``: why ApproxPAXp
    does not apply (recorded instead of running it).

    One entailment call on the whole instance first primes the oracle (e.g. compiled
    code) outside the clock, as the reference code's dummy call does.
    """
    from fxai import explain
    from fxai.explain import linear
    from fxai.explain.marco import CLOCKS
    from fxai.explain.paxp import approx_paxp

    now = CLOCKS[clock]

    def timed(fn):
        t0 = now()
        out = fn()
        return out, now() - t0

    o.entails(o.features)
    res: dict = {}
    axp, t = timed(lambda: explain.find_axp(o))
    res["axp"] = {"features": axp, "time_s": t}
    cxp, t = timed(lambda: explain.find_cxp(o))
    res["cxp"] = {"features": cxp, "time_s": t}
    for name, target in TARGETS.items():
        m = explain.Marco(o, target=target, time_limit=time_limit, clock=clock)
        calls0 = o.calls
        _, t = timed(lambda m=m: list(m))
        res[name] = {"complete": m.complete, "time_s": t, "oracle_calls": o.calls - calls0,
                     "switched_at": m.switched_at,
                     "axps": [list(a) for a in m.axps], "cxps": [list(c) for c in m.cxps]}
    full = [res[n] for n in TARGETS if res[n]["complete"]]
    route = None  # trees: duality; binary NBCs: the linear enumeration (both exact, fast)
    if explain.has_duality(o) or linear.applies(o):
        route = explain.all_xps(o, time_limit=time_limit, clock=clock)
        route = route if route.complete else None
    if route or full:
        axps = route.axps if route else full[0]["axps"]
        sets = {frozenset(map(tuple, r["axps"])) for r in full} | {frozenset(map(tuple, axps))}
        exact = explain.ffa_from_axps(axps)
        res["ffa"] = {"exact": {str(f): v for f, v in exact.items()},
                      "route": route.method if route else "marco",
                      "methods_agree": len(sets) == 1}
    if no_paxp is not None:
        res["approx_paxp_skipped"] = no_paxp
    elif counts(o):
        sound = hasattr(o, "precision_at_least")  # NBC: the scaled DP is not the model's count
        try:
            r, t = timed(lambda: approx_paxp(o, delta, seed=axp, sound=sound))
        except NotImplementedError as err:  # e.g. real-valued features: no uniform measure
            res["approx_paxp_skipped"] = str(err)
        else:
            res["approx_paxp"] = {"delta": delta, "features": r.features, "sound": sound,
                                  "precision_algorithm": r.precision, "time_s": t}
    return res


def explained(res: dict) -> tuple[list[tuple], list[tuple]]:
    """The distinct AXps and CXps any algorithm reported for one instance."""
    axps = {tuple(res["axp"]["features"])} | {tuple(a) for n in TARGETS for a in res[n]["axps"]}
    cxps = {tuple(c) for n in TARGETS for c in res[n]["cxps"]}
    if res["cxp"]["features"] is not None:
        cxps.add(tuple(res["cxp"]["features"]))
    return sorted(axps), sorted(cxps)


def verify_record(res: dict, model, x, domains, vote: str | None = None) -> bool:
    """Every AXp and CXp any algorithm reported, checked by the family's own checker; the
    ApproxPAXp by :func:`fxai.verify.paxp.check_approx_paxp` (a subset of the AXp,
    precision ≥ δ and below δ after any single removal, counted exactly and independently;
    the algorithm's own precision, if any, must match). Adds to the ApproxPAXp record the
    checked ``precision`` (exact, or the midpoint of a bracket of half-width
    ``precision_err``) and its ``verified`` (None: too close to δ to decide)."""
    from fxai import verify
    from fxai.verify.paxp import check_approx_paxp, precision_counter

    axps, cxps = explained(res)
    ok_a, ok_c = verify.check_all(model, x, axps, cxps, domains, vote=vote)
    ok = all(ok_a) and all(ok_c)
    if "approx_paxp" in res:
        p = res["approx_paxp"]
        counter = precision_counter(model, x, domains)
        p["verified"], (lo, hi) = check_approx_paxp(counter, res["axp"]["features"],
                                                    p["features"], p["delta"],
                                                    p["precision_algorithm"])
        p["precision"], p["precision_err"] = float((lo + hi) / 2), float((hi - lo) / 2)
        ok = ok and p["verified"] is True
    return bool(ok)


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from fxai import oracles
    from fxai.data.prepared import cleaning_note, finite_domains, load, load_split, shown
    from fxai.data.split import pick_instance
    from fxai.models import VOTES, check_features, n_classes
    from fxai.models import load as load_model
    from fxai.models.kinds import is_kind
    from fxai.values import plain

    from .user_model import raw_frame

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    data = load_input(lambda p: load(args.dataset, p), args.prepared,
                      f"prepared table of {args.dataset}")
    model = load_input(lambda p: load_model(p, data.n_features, family=args.family), args.model,
                       f"{args.family} model")
    check_features(model, args.model, data.n_features, Path(args.prepared) / f"{args.dataset}.csv")
    doms = finite_domains(data.domains)
    _, test = load_input(load_split, args.split, "split")
    rows = [pick_instance(test, k, args.seed) for k in range(min(args.instances, len(test)))]
    vote = VOTES.get(args.family)  # a forest's vote rule; None: not a forest
    pipeline = is_kind(model, "pipeline")
    frames = raw_frame(model, data, data.X[rows]) if pipeline else None  # (one reading)
    settings = {"dataset": args.dataset, "family": args.family, "time_limit": args.time_limit,
                "clock": args.clock, "delta": args.delta}
    inputs = {"data": Path(args.prepared) / f"{args.dataset}.csv", "model": args.model}
    note = cleaning_note(data.cleaning)
    if note:
        LOG.info("%s: preparation %s", args.dataset, note)
    with RunWriter(args.out, "cross-run", settings, inputs, rows,
                   f"cross {args.family} {args.dataset}", log=LOG,
                   about={"data_cleaning": data.cleaning} if data.cleaning else None) as run:
        for row in run.todo:
            x = [v.item() for v in data.X[row]]
            given, domains = x, None if args.family in REAL else doms
            if pipeline:  # the row as the file shows it, by column name
                frame = frames.iloc[[rows.index(row)]]
                x = [plain(v) for v in frame.iloc[0]]
                given, domains = dict(zip(data.feature_names, x, strict=True)), None
            rec = {"dataset": args.dataset, "model": args.family, "instance": row, "x": x,
                   "values": dict(zip(data.feature_names, shown(data, data.X[row])[0],
                                      strict=True)),
                   "n_classes": n_classes(model)}
            t0 = time.perf_counter()
            o = oracles.for_model(model, given, domains=domains, vote=vote)
            rec["prediction"] = (int(np.searchsorted(model.classes_, model.predict(frame)[0]))
                                 if pipeline else np.asarray(o.prediction).item())  # a code
            labels = data.class_labels
            rec["class"] = labels[rec["prediction"]] if labels else rec["prediction"]
            rec["results"] = explain_instance(
                o, args.time_limit, args.delta, args.clock,
                PIPELINE_NO_PAXP if pipeline else REAL_NO_PAXP if args.family in REAL else None)
            for key in ("axp", "cxp"):  # the single explanations by name too
                feats = rec["results"][key]["features"]
                rec["results"][key]["names"] = (None if feats is None else
                                                [data.feature_names[f] for f in feats])
            rec["verified"] = verify_record(rec["results"], model, given, domains, vote)
            complete = all(rec["results"][n]["complete"] for n in TARGETS)
            rec["status"] = "done" if complete else "timeout"
            rec["time_s"] = time.perf_counter() - t0
            run.write(rec, explanations=len(explained(rec["results"])[0]))
            LOG.info("%s/%s: row %d %s, verified=%s", args.family, args.dataset, row,
                     rec["status"], rec["verified"])
    return 0
