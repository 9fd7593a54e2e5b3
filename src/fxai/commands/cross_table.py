"""Summarise the every-algorithm-on-every-model runs: the full table ``cross_algorithms``
(csv/md/tex), a narrow one ``cross_summary`` and the figure ``cross_times`` (a heat map of
time per model x algorithm with completion and agreement marked).

Run files are read line by line and each record is reduced to the numbers the tables need
before the next is read, so memory does not grow with the explanations a run found.

Times are on the clock of the runs (``cross.clock``, from the run headers). A MARCO run
stopped by the time limit is censored: ``<method>_timeouts`` counts them, and a mean time
over runs of which some timed out (each counted at its time, at least the limit) is a lower
bound, marked ``≥`` in the narrow table.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from fxai.commands.cross_run import TARGETS
from fxai.errors import DataError
from fxai.runfile import iter_run
from fxai.version import stamped

if TYPE_CHECKING:
    import pandas as pd


CLOCK_NAMES = {"cpu": "CPU", "wall": "wall-clock"}
CAPTION = ("Every algorithm on every model family (beyond the papers), one row per (model "
           "family, dataset) with the model's number of classes: mean times in {clock} "
           "ms/s per instance, explanation counts, "
           "completion and verification rates; ApproxPAXp only where the oracle counts. "
           "MARCO runs stopped by the time limit ({limit}) are counted in <method>_timeouts; "
           "a mean time over such runs (each at its time, at least the limit) is a lower "
           "bound. No column is published.")
SUMMARY_CAPTION = ("Every algorithm on every model family, narrow: one row per (model family, "
                   "dataset) with the model's number of classes; mean {clock} time per "
                   "instance (ms) of one AXp, one CXp and each "
                   "MARCO enumeration, the latter with the share of complete enumerations in "
                   "brackets (≥: some runs hit the time limit of {limit}, so the mean is a lower "
                   "bound), the share of instances whose complete runs agree on the exact "
                   "FFA, and the verified share. No column is published.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="+", help="cross-run JSON Lines files")
    p.add_argument("--out-dir", required=True)
    p.add_argument("--figures-dir", help="also draw the heat map cross_times.png/.pdf here")


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


def run(args: argparse.Namespace) -> int:
    import pandas as pd

    from fxai.report.tables import write_table

    rows, versions, clocks, limits = [], [], set(), set()
    for path in args.runs:
        head, records = iter_run(path, "cross-run")
        records = [slim(r) for r in records]
        if records:
            rows.append(summarise(records))
            versions.append({stamped(head)})
            settings = head.get("settings", {})
            clocks.add(settings.get("clock", "cpu"))  # before cross.clock: always CPU time
            limits.add(settings.get("time_limit"))
    if len(clocks) > 1:
        raise DataError(f"cross-run files of different clocks {sorted(clocks)}: rerun "
                        "cross_run under one cross.clock")
    clock = CLOCK_NAMES[clocks.pop() if clocks else "cpu"]
    limit = ", ".join(f"{v:g} s" for v in sorted(v for v in limits if v is not None)) or "?"
    table = pd.DataFrame(rows)  # unrounded for the narrow table (3 significant digits), figure
    write_table(table.round(3), "cross_algorithms", args.out_dir, key=("family", "dataset"),
                caption=CAPTION.format(clock=clock, limit=limit), code_versions=versions)
    write_table(narrow(table), "cross_summary", args.out_dir,
                caption=SUMMARY_CAPTION.format(clock=clock, limit=limit),
                code_versions=versions)
    if args.figures_dir:
        from fxai.report.figures import cross_algorithms

        cross_algorithms(table, Path(args.figures_dir) / "cross_times")
    return 0
