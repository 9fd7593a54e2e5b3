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
from fxai.errors import DataError
from fxai.files import read_json
from fxai.runfile import iter_run
from fxai.version import stamped

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd


TIME = {"cpu": "cpu_s", "wall": "time_s"}  # the record field of each clock


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


def slim(record: dict) -> dict:
    """The numbers of one run record the table uses: status, verified, times, and per kind of
    explanation its count and mean length (the explanations and events are dropped)."""
    import numpy as np

    out = {k: record[k] for k in ("status", "verified", "time_s", "cpu_s") if k in record}
    for key in ("axps", "cxps"):
        xs = record.get(key) or []
        out[f"n_{key}"] = len(xs)
        out[f"{key}_len"] = float(np.mean([len(e) for e in xs])) if xs else None
    return out


def summarise(records: list[dict], meta: dict, family: str, cap: int | None,
              clock: str = "cpu", time_limit: float | None = None) -> dict:
    """One table row from the (slim) run records of one dataset and its model's meta; times
    on ``clock``, timed-out instances censored at ``time_limit`` (``time_avg_lb_s``)."""
    import numpy as np

    records = [r if "n_axps" in r else slim(r) for r in records]
    nf = meta["n_features"]
    ok = [r for r in records if r["status"] == "done"]
    na = np.array([r["n_axps"] for r in ok]) if ok else np.zeros(0)
    nc = np.array([r["n_cxps"] for r in ok]) if ok else np.zeros(0)
    times = np.array([r[TIME[clock]] for r in ok]) if ok else np.zeros(0)
    n_out = sum(r["status"] == "timeout" for r in records)

    def len_pct(key: str) -> float:
        per = [r[f"{key}_len"] for r in ok if r[f"{key}_len"] is not None]
        return round(100 * float(np.mean(per)) / nf, 1) if per else float("nan")

    def stat(a: np.ndarray, f, nd: int = 2) -> float:
        return round(float(f(a)), nd) if a.size else float("nan")

    row = {"dataset": meta["dataset"], "n_features": nf, "n_instances": len(records)}
    if family == "dt":
        row["depth"] = meta["depth"]
    row["n_nodes"] = meta["n_nodes"]
    if family == "dt":
        row["target_depth"] = meta.get("target_depth")  # the sized learner's targets
        row["target_nodes"] = meta.get("target_nodes")
        if "optimal" in meta:  # the optimal learner: proven optimal, or whose tree it kept
            row["optimal"], row["tree_from"] = meta["optimal"], meta["tree_from"]
    row["features_used"] = meta.get("features_used")
    if family == "dt":
        row["thresholds"] = meta.get("thresholds")
    row |= {
        "train_acc_pct": round(100 * meta["accuracy_train"], 1),
        "test_acc_pct": round(100 * meta["accuracy_test"], 1),
        "xps_avg": stat(na + nc, np.mean),
        "axp_max": stat(na, np.max, 0), "axp_min": stat(na, np.min, 0),
        "axp_avg": stat(na, np.mean), "axp_len_pct": len_pct("axps"),
        "cxp_max": stat(nc, np.max, 0), "cxp_min": stat(nc, np.min, 0),
        "cxp_avg": stat(nc, np.mean), "cxp_len_pct": len_pct("cxps"),
        "time_total_s": stat(times, np.sum, 3), "time_max_s": stat(times, np.max, 4),
        "time_min_s": stat(times, np.min, 4), "time_avg_s": stat(times, np.mean, 4),
        "time_avg_lb_s": censored_mean(times, n_out, time_limit),
        "verified_pct": round(100 * sum(r["verified"] is True for r in records)
                              / max(len(records), 1), 1),
        "timeouts": n_out,
        "errors": sum(r["status"] == "error" for r in records),
        "capped": cap is not None and len(records) >= cap,
        "time_clock": clock,
    }
    return row


def censored_mean(times: np.ndarray, n_censored: int, limit: float | None) -> float:
    """A lower bound of the mean time over all instances: the finished ones at their time,
    the ``n_censored`` timed-out ones at the ``limit`` (they ran at least that long)."""
    n = times.size + n_censored
    if not n or (n_censored and limit is None):
        return float("nan")
    return round((float(times.sum()) + n_censored * (limit or 0.0)) / n, 4)


def run_clock(path: str, head: dict, clock: str | None) -> str:
    """The clock of a run file's time limit (files written before ``clock`` was a setting
    ran on the wall clock); one other than ``clock`` is an error naming the file."""
    used = head.get("settings", {}).get("clock", "wall")
    if clock is not None and used != clock:
        raise DataError(f"{path}: its time limit ran on the {used} clock, the table is on the "
                        f"{clock} clock (xpg.clock); rerun xpg_explain")
    return used


def build(runs: list[str], metas: list[str], family: str, cap: int | None,
          clock: str | None = None) -> tuple[pd.DataFrame, list[set[str]]]:
    """The table (times on ``clock``; None: the runs' own) and, per row, the code versions
    of its run file and model."""
    import pandas as pd

    if len(runs) != len(metas):
        raise SystemExit(f"{len(runs)} run files but {len(metas)} meta files")
    rows, versions = [], []
    for run_path, meta_path in zip(runs, metas, strict=True):
        meta = read_json(meta_path, "model meta file")
        if not isinstance(meta, dict) or meta.get("family") != family or "n_features" not in meta:
            raise DataError(f"{meta_path}: not the meta file of a {family} model (family "
                            f"{meta.get('family') if isinstance(meta, dict) else None!r}); "
                            f"pass the <ds>.meta.json xpg-train --family {family} writes")
        head, records = iter_run(run_path, "xpg-explain")
        used = run_clock(run_path, head, clock)
        kept = []
        for r in records:  # one record in memory at a time
            if r.get("model") != family:
                raise DataError(f"{run_path}: a run of a {r.get('model')!r} model, not of a "
                                f"{family}; pass the runs of xpg-explain --family {family}")
            kept.append(slim(r))
        rows.append(summarise(kept, meta, family, cap, used,
                              head.get("settings", {}).get("time_limit")))
        versions.append({stamped(head), stamped(meta)})
    return pd.DataFrame(rows), versions


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
        reasons = _reasons(args.reference, set(df["dataset"]) if len(df) else set(),
                           args.missing_reason)
    write_table(df, args.name, args.out_dir, reference=args.reference,
                missing_reason=reasons, caption=caption, code_versions=versions)
    print(df.to_string(index=False))
    return 0


def _reasons(reference: str, have: set[str], why: str) -> dict[str, str]:
    import pandas as pd

    from fxai.report.reference import reference_dir
    from fxai.report.tables import alias_map

    path = reference_dir() / f"{reference}.csv"  # where write_table reads it too
    if not path.exists():
        return {}
    aliases = alias_map()
    ours = {aliases.get(d.lower(), d) for d in have}
    ref = pd.read_csv(path)["dataset"]
    return {d: why for d in ref if aliases.get(d.lower(), d) not in ours}
