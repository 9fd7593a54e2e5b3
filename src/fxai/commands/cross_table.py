"""Summarise the every-algorithm-on-every-model runs into ``cross_algorithms`` (csv/md/tex)."""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from fxai.commands.cross_run import TARGETS
from fxai.report.tables import write_table
from fxai.runfile import run_records


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="+", help="cross-run JSON Lines files")
    p.add_argument("--out-dir", required=True)


def _mean(values) -> float:
    vals = [v for v in values if v is not None]
    return float(np.mean(vals)) if vals else float("nan")


def summarise(records: list[dict]) -> dict:
    """One table row from one (family, dataset) run file."""
    ok = [r for r in records if r.get("status") != "error"]
    res = [r["results"] for r in ok]
    row = {"family": records[0]["model"], "dataset": records[0]["dataset"],
           "instances": len(records), "errors": len(records) - len(ok),
           "verified_pct": 100 * _mean([bool(r.get("verified")) for r in records]),
           "axp_len": _mean([len(x["axp"]["features"]) for x in res]),
           "axp_ms": 1000 * _mean([x["axp"]["time_s"] for x in res]),
           "cxp_ms": 1000 * _mean([x["cxp"]["time_s"] for x in res])}
    for name in TARGETS:
        runs = [x[name] for x in res]
        row[f"{name}_complete_pct"] = 100 * _mean([r["complete"] for r in runs])
        row[f"{name}_s"] = _mean([r["time_s"] for r in runs])
        row[f"{name}_axps"] = _mean([len(r["axps"]) for r in runs])
        row[f"{name}_cxps"] = _mean([len(r["cxps"]) for r in runs])
    row["ffa_exact_pct"] = 100 * _mean(["ffa" in x for x in res])
    row["ffa_methods_agree_pct"] = 100 * _mean(
        [x["ffa"]["methods_agree"] for x in res if "ffa" in x] or [None])
    paxp = [x["approx_paxp"] for x in res if "approx_paxp" in x]
    row["paxp_len"] = _mean([len(p["features"]) for p in paxp]) if paxp else None
    row["paxp_precision"] = _mean([p["precision"] for p in paxp]) if paxp else None
    row["paxp_ms"] = 1000 * _mean([p["time_s"] for p in paxp]) if paxp else None
    return row


def run(args: argparse.Namespace) -> int:
    rows = []
    for path in args.runs:
        records = run_records(path)
        if records:
            rows.append(summarise(records))
    table = pd.DataFrame(rows).round(3)
    write_table(table, "cross_algorithms", args.out_dir, key=("family", "dataset"),
                caption="Every algorithm on every model family (beyond the papers): mean "
                "times in CPU ms/s per instance, explanation counts, completion and "
                "verification rates; ApproxPAXp only where the oracle counts.")
    return 0
