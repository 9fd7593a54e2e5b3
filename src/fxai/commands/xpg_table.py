"""Aggregate XpG run files into Table 1 (OBDDs) or Table 2 (DTs) of the XpG paper.

Columns follow ``data/reference/xpg_table{1_obdd,2_dt}.csv``: #F, #TI, model size and
test accuracy (plus, from the model's meta: the sized learner's target depth and #N, features
used, distinct thresholds of a tree, training accuracy), XPs per instance, AXp/CXp counts
per instance (max, min, avg) and their average length in % of #F (per-instance mean length,
averaged over instances), and the enumeration time per instance (total, max, min, avg,
seconds; ``--clock cpu`` uses the process CPU time each run file records, robust to a loaded
machine). Extra columns: the verified fraction, timeouts/errors, whether the instances were
capped, and the clock.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from fxai.argtypes import positive_int
from fxai.errors import DataError
from fxai.files import read_json
from fxai.runfile import iter_records


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--family", choices=("dt", "obdd"), required=True)
    p.add_argument("--runs", nargs="*", default=[], help="run files (JSON Lines)")
    p.add_argument("--metas", nargs="*", default=[], help="model meta JSON, same order")
    p.add_argument("--out-dir", required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--reference", default=None, help="published table in data/reference/")
    p.add_argument("--max-instances", type=positive_int, default=None, help="cap used by the runs")
    p.add_argument("--missing-reason", default="not run in this profile")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="time columns from wall-clock (time_s) or CPU time (cpu_s)")


def slim(record: dict) -> dict:
    """The numbers of one run record the table uses: status, verified, times, and per kind of
    explanation its count and mean length (the explanations and events are dropped)."""
    out = {k: record[k] for k in ("status", "verified", "time_s", "cpu_s") if k in record}
    for key in ("axps", "cxps"):
        xs = record.get(key) or []
        out[f"n_{key}"] = len(xs)
        out[f"{key}_len"] = float(np.mean([len(e) for e in xs])) if xs else None
    return out


def summarise(records: list[dict], meta: dict, family: str, cap: int | None,
              clock: str = "wall") -> dict:
    """One table row from the (slim) run records of one dataset and its model's meta."""
    records = [r if "n_axps" in r else slim(r) for r in records]
    nf = meta["n_features"]
    ok = [r for r in records if r["status"] == "done"]
    na = np.array([r["n_axps"] for r in ok]) if ok else np.zeros(0)
    nc = np.array([r["n_cxps"] for r in ok]) if ok else np.zeros(0)
    if clock == "cpu" and any("cpu_s" not in r for r in ok):
        print(f"warning: {meta['dataset']}: run file has no cpu_s (older fxai); using "
              "wall-clock time_s; rerun xpg_explain for CPU times", file=sys.stderr)
        clock = "wall"
    times = np.array([r["cpu_s" if clock == "cpu" else "time_s"] for r in ok]) if ok \
        else np.zeros(0)

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
        "verified_pct": round(100 * sum(r["verified"] is True for r in records)
                              / max(len(records), 1), 1),
        "timeouts": sum(r["status"] == "timeout" for r in records),
        "errors": sum(r["status"] == "error" for r in records),
        "capped": cap is not None and len(records) >= cap,
        "time_clock": clock,
    }
    return row


def build(runs: list[str], metas: list[str], family: str, cap: int | None,
          clock: str = "wall") -> pd.DataFrame:
    if len(runs) != len(metas):
        raise SystemExit(f"{len(runs)} run files but {len(metas)} meta files")
    rows = []
    for run_path, meta_path in zip(runs, metas, strict=True):
        meta = read_json(meta_path, "model meta file")
        if not isinstance(meta, dict) or meta.get("family") != family or "n_features" not in meta:
            raise DataError(f"{meta_path}: not the meta file of a {family} model (family "
                            f"{meta.get('family') if isinstance(meta, dict) else None!r}); "
                            f"pass the <ds>.meta.json xpg-train --family {family} writes")
        records = []
        for r in iter_records(run_path, "xpg-explain"):  # one record in memory at a time
            if r.get("model") != family:
                raise DataError(f"{run_path}: a run of a {r.get('model')!r} model, not of a "
                                f"{family}; pass the runs of xpg-explain --family {family}")
            records.append(slim(r))
        rows.append(summarise(records, meta, family, cap, clock))
    return pd.DataFrame(rows)


def run(args: argparse.Namespace) -> int:
    from fxai.report.tables import write_table

    df = build(args.runs, args.metas, args.family, args.max_instances, args.clock)
    learners = sorted({read_json(m, "model meta file").get("learner", "?") for m in args.metas})
    what = "OBDDs (CN2 decision lists, dd)" if args.family == "obdd" else \
        f"DTs ({'; '.join(learners) or 'sklearn CART'})"
    caption = (f"All AXps and CXps of {what}: MARCO over the XpG, every explanation verified "
               f"independently (verified_pct). Times: {args.clock} seconds per instance.")
    if args.max_instances is not None:
        caption += f" At most {args.max_instances} instances per dataset (capped = true)."
    reasons = None
    if args.reference:
        reasons = _reasons(args.reference, set(df["dataset"]) if len(df) else set(),
                           args.missing_reason)
    write_table(df, args.name, args.out_dir, reference=args.reference,
                missing_reason=reasons, caption=caption)
    print(df.to_string(index=False))
    return 0


def _reasons(reference: str, have: set[str], why: str) -> dict[str, str]:
    from fxai.report.tables import alias_map

    path = Path("data/reference") / f"{reference}.csv"
    if not path.exists():
        return {}
    aliases = alias_map()
    ours = {aliases.get(d.lower(), d) for d in have}
    ref = pd.read_csv(path)["dataset"]
    return {d: why for d in ref if aliases.get(d.lower(), d) not in ours}
