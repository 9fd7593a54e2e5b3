"""Rerun a finished workflow's FFA enumerations and checks with the code here, beside the
times and oracle calls its run and check files recorded: a speed-up of MARCO, the oracle or
the checker must list the same events (kind, set, in order) in less CPU time.

    .venv/bin/python -m benchmarks.ffa_rerun --results results/default [--out results/bench]
        [--datasets breast-cancer ...] [--methods marco-a ...]

Per (dataset, method, instance): the recorded and the new enumeration CPU s and oracle
calls, whether the events are the same, and the recorded and new CPU s of checking every
AXp and CXp (``fxai.verify.check_all``, as ``fxai ffa-verify`` does). Only complete runs
are compared (a run stopped by its time limit lists what its pace allowed), each under
the run's own settings (time limit, switch rule). Writes
``<out>/ffa_rerun.{csv,md}``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd

from fxai import explain, oracles, verify
from fxai.experiments.ffa import run_instance
from fxai.models import load as load_model
from fxai.runfile import read_run, run_records


def rerun(results: Path, datasets, methods) -> pd.DataFrame:
    rows = []
    for run in sorted(results.glob("runs/ffa/*/*/*.jsonl")):
        ds, method = run.parts[-3], run.parts[-2]
        if (datasets and ds not in datasets) or (methods and method not in methods):
            continue
        checks = {c["k"]: c for c in run_records(results / "checks" / run.relative_to(
            results / "runs"))}
        head, records = read_run(run)
        settings = head["settings"]  # the run's own limit and switch rule, as it ran
        records = [r for r in records if r["complete"]]
        model = load_model(results / "models" / "bt" / f"{ds}.json",
                           n_features=len(records[0]["x"])) if records else None
        for r in records:
            o = oracles.for_model(model, r["x"])
            w, alpha, eps, variant = settings["switch"]  # a rule keeps state: one per run
            switch = explain.SwitchRule(w=w, alpha=alpha, eps=eps, variant=variant)
            out = run_instance(o, method, settings["time_limit"], r["clock"], switch,
                               settings["unit_cxps"])
            t0 = time.process_time()
            ok = verify.check_all(model, r["x"], r["axps"], r["cxps"])
            check_s = time.process_time() - t0
            rows.append({
                "dataset": ds, "method": method, "k": r["k"],
                "explanations": r["n_axps"] + r["n_cxps"],
                "recorded_s": r["time_s"], "now_s": round(out["time_s"], 3),
                "recorded_calls": r["oracle_calls"], "now_calls": out["oracle_calls"],
                "same_events": [e[1:] for e in out["events"]] == [e[1:] for e in r["events"]],
                "recorded_check_s": checks.get(r["k"], {}).get("check_time_s"),
                "now_check_s": round(check_s, 3),
                "verified": verify.verdict(*ok),
            })
            print(rows[-1], flush=True)
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--results", type=Path, default=Path("results/default"))
    p.add_argument("--out", type=Path, default=Path("results/bench"))
    p.add_argument("--datasets", nargs="*", default=[])
    p.add_argument("--methods", nargs="*", default=[])
    args = p.parse_args(argv)
    df = rerun(args.results, args.datasets, args.methods)
    if df.empty:
        raise SystemExit(f"no complete FFA runs under {args.results}/runs/ffa")
    args.out.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out / "ffa_rerun.csv", index=False)
    total = df[["recorded_s", "now_s", "recorded_calls", "now_calls", "recorded_check_s",
                "now_check_s"]].sum().round(2)
    md = df.to_markdown(index=False) + "\n\nTotals: " + ", ".join(
        f"{k} {v:g}" for k, v in total.items()) + "\n"
    (args.out / "ffa_rerun.md").write_text(md)
    print(md)


if __name__ == "__main__":
    main()
