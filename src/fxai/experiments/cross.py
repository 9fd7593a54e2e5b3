"""Every algorithm on every model family (beyond the papers): the per-instance driver (one
AXp, one CXp, MARCO-A/-C/-S, the exact FFA, ApproxPAXp where the oracle counts), the check of
everything it found, and the summary of run records into the tables' rows."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from fxai.experiments.driver import Outcome, Stopwatch, drive
from fxai.experiments.ffa import METHODS as TARGETS
from fxai.models import FAMILIES

if TYPE_CHECKING:
    import pandas as pd

    from fxai.oracles.base import Oracle

PIPELINE_NO_PAXP = ("a Pipeline's columns are explained over the intervals and categories "
                    "its model tells apart: no uniform measure over its raw values")
REAL_NO_PAXP = ("the model's features are real (explained over the intervals its splits tell "
                "apart): no uniform measure over their values")
REAL = [f.name for f in FAMILIES.values() if f.real]  # cross runs over real features


def counts(o: Oracle) -> bool:
    """Does the oracle answer precision questions?"""
    from fxai.oracles.base import Oracle

    return type(o).precision is not Oracle.precision


def run_instance(o: Oracle, model, x, domains, vote: str | None, time_limit: float,
                 delta: float, clock: str = "cpu", no_paxp: str | None = None) -> Outcome:
    """The part's driver (:func:`fxai.experiments.driver.drive`): one entailment call on the
    whole instance primes the oracle (e.g. compiled code) outside the clock, as the reference
    code's dummy call does; then :func:`explain_instance` and :func:`verify_record`."""
    return drive(lambda: explain_instance(o, time_limit, delta, clock, no_paxp), clock=clock,
                 prime=lambda: o.entails(o.features),
                 check=lambda res: verify_record(res, model, x, domains, vote))


def explain_instance(o: Oracle, time_limit: float, delta: float, clock: str = "cpu",
                     no_paxp: str | None = None) -> dict:
    """Run every algorithm on one oracle; the MARCO time limits and all times are seconds
    of ``clock`` (``"cpu"``: process CPU time, ``"wall"``). ``no_paxp``: why ApproxPAXp
    does not apply (recorded instead of running it).
    """
    from fxai import explain
    from fxai.explain import linear
    from fxai.explain.paxp import approx_paxp

    def timed(fn):
        with Stopwatch(clock) as sw:
            out = fn()
        return out, sw.took.seconds

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


def verify_record(res: dict, model, x, domains, vote: str | None = None) -> bool | None:
    """Every AXp and CXp any algorithm reported, checked by the family's own checker; the
    ApproxPAXp by :func:`fxai.verify.paxp.check_approx_paxp` (a subset of the AXp,
    precision ≥ δ and below δ after any single removal, counted exactly and independently;
    the algorithm's own precision, if any, must match). Adds to the ApproxPAXp record the
    checked ``precision`` (exact, or the midpoint of a bracket of half-width
    ``precision_err``) and its ``verified`` (None: too close to δ to decide)."""
    from fxai import verify
    from fxai.verify.paxp import check_approx_paxp, precision_counter

    axps, cxps = explained(res)
    ok = verify.verdict(*verify.check_all(model, x, axps, cxps, domains, vote=vote))
    if "approx_paxp" in res:
        p = res["approx_paxp"]
        counter = precision_counter(model, x, domains)
        p["verified"], (lo, hi) = check_approx_paxp(counter, res["axp"]["features"],
                                                    p["features"], p["delta"],
                                                    p["precision_algorithm"])
        p["precision"], p["precision_err"] = float((lo + hi) / 2), float((hi - lo) / 2)
        ok = verify.verdict([ok], [p["verified"]])
    return ok


def _mean(values) -> float:
    import numpy as np

    vals = [v for v in values if v is not None]
    return float(np.mean(vals)) if vals else float("nan")


def slim(rec: dict) -> dict:
    """The numbers of one cross-run record that the tables use (no explanation lists)."""
    out = {k: rec.get(k) for k in ("model", "dataset", "n_classes", "status", "verified")}
    if rec.get("status") == "error":
        return out
    x = rec["results"]
    out |= {"axp_len": len(x["axp"]["features"]), "axp_s": x["axp"]["time_s"],
            "cxp_s": x["cxp"]["time_s"], "ffa": "ffa" in x,
            "agree": x["ffa"]["methods_agree"] if "ffa" in x else None}
    for name in TARGETS:
        r = x[name]
        out[name] = {"complete": r["complete"], "time_s": r["time_s"],
                     "axps": len(r["axps"]), "cxps": len(r["cxps"])}
    if "approx_paxp" in x:
        p = x["approx_paxp"]
        out["paxp"] = {"len": len(p["features"]), "precision": p["precision"],
                       "time_s": p["time_s"]}
    return out


def summarise(records: Iterable[dict]) -> dict:
    """One table row from one (family, dataset) run file's records (full or slim)."""
    records = [r if "results" not in r else slim(r) for r in records]
    ok = [r for r in records if r.get("status") != "error"]
    row = {"family": records[0]["model"], "dataset": records[0]["dataset"],
           "classes": records[0].get("n_classes"), "instances": len(records),
           "errors": len(records) - len(ok),
           "verified_pct": 100 * _mean([bool(r.get("verified")) for r in records]),
           "axp_len": _mean([r["axp_len"] for r in ok]),
           "axp_ms": 1000 * _mean([r["axp_s"] for r in ok]),
           "cxp_ms": 1000 * _mean([r["cxp_s"] for r in ok])}
    for name in TARGETS:
        runs = [r[name] for r in ok]
        row[f"{name}_complete_pct"] = 100 * _mean([r["complete"] for r in runs])
        row[f"{name}_timeouts"] = sum(not r["complete"] for r in runs)
        row[f"{name}_s"] = _mean([r["time_s"] for r in runs])
        row[f"{name}_axps"] = _mean([r["axps"] for r in runs])
        row[f"{name}_cxps"] = _mean([r["cxps"] for r in runs])
    row["ffa_exact_pct"] = 100 * _mean([r["ffa"] for r in ok])
    row["ffa_methods_agree_pct"] = 100 * _mean([r["agree"] for r in ok if r["ffa"]] or [None])
    paxp = [r["paxp"] for r in ok if "paxp" in r]
    row["paxp_len"] = _mean([p["len"] for p in paxp]) if paxp else None
    row["paxp_precision"] = _mean([p["precision"] for p in paxp]) if paxp else None
    row["paxp_ms"] = 1000 * _mean([p["time_s"] for p in paxp]) if paxp else None
    return row


def _ms(v: float | None) -> str:
    """Milliseconds to 3 significant digits (whole numbers from 100 on)."""
    import pandas as pd

    if v is None or pd.isna(v):
        return ""
    return f"{v:.0f}" if abs(v) >= 100 else f"{v:.3g}"


def narrow(table: pd.DataFrame) -> pd.DataFrame:
    """The full table in 10 columns: mean times in ms (with the completion % of the
    enumerations in brackets), FFA agreement, verification."""
    out = table[["family", "dataset", "classes", "instances"]].copy()
    out["verified_pct"] = table["verified_pct"].round(0)
    out["axp_ms"] = table["axp_ms"].map(_ms)
    out["cxp_ms"] = table["cxp_ms"].map(_ms)
    for name in TARGETS:
        out[f"{name}_ms (complete %)"] = [
            f"{'≥' if n else ''}{_ms(1000 * s)} ({c:.0f})"
            for s, c, n in zip(table[f"{name}_s"], table[f"{name}_complete_pct"],
                               table[f"{name}_timeouts"], strict=True)]
    out["ffa_agree_pct"] = table["ffa_methods_agree_pct"].round(0)
    return out


def boosting(family: str, trees: int, depth: int, seed: int):
    """An unfitted HistGradientBoostingClassifier (hgb) or LGBMClassifier (lgbm), seeded,
    one thread (the workflow runs rules side by side)."""
    if family == "hgb":
        from sklearn.ensemble import HistGradientBoostingClassifier

        return HistGradientBoostingClassifier(max_iter=trees, max_depth=depth,
                                              early_stopping=False, random_state=seed)
    from lightgbm import LGBMClassifier

    return LGBMClassifier(n_estimators=trees, max_depth=depth, num_leaves=2 ** depth,
                          random_state=seed, n_jobs=1, verbose=-1)
