"""Benchmark: what the attribution audit adds to ``make run`` (default profile).

    .venv/bin/python -m benchmarks.audit [--cores 2] [--out results/bench/audit]

Reruns the audit rules alone (``audit_run`` for every configured model, then
``audit_table``) with snakemake, on the models ``make run`` trained (they are built first
when missing, outside the clock). Reports the wall time, the CPU time of all child
processes (robust to a loaded machine: what the same work costs on idle cores), the number
of audited instances and rows. Writes ``<out>.csv`` and ``<out>.md``.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")


def targets(results: str) -> list[str]:
    cfg = yaml.safe_load((ROOT / "config/config.yaml").read_text())["audit"]
    return [f"{results}/runs/audit/{fam}_{ds}.jsonl"
            for fam, names in cfg["families"].items() for ds in names]


def snakemake(cores: int, *args: str) -> None:
    subprocess.run([str(SNAKEMAKE), "--cores", str(cores), *args, "--quiet", "all"],
                   cwd=ROOT, check=True)


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cores", type=int, default=2)
    p.add_argument("--out", default="results/bench/audit")
    args = p.parse_args(argv)
    results = "results/default"
    runs = targets(results)
    table = f"{results}/tables/audit_summary.csv"
    snakemake(args.cores, *runs, "--omit-from", "audit_run")  # the models, unclocked
    cpu0, t0 = children_cpu(), time.perf_counter()
    snakemake(args.cores, table, "--forcerun", "audit_run", "audit_table")
    wall, cpu = time.perf_counter() - t0, children_cpu() - cpu0
    instances = sum(sum(1 for _ in open(ROOT / r)) - 1 for r in runs)
    rows = sum(1 for _ in open(ROOT / f"{results}/tables/audit_instances.csv")) - 1
    df = pd.DataFrame([{"models": len(runs), "instances": instances, "rows": rows,
                        "cores": args.cores, "wall_s": round(wall, 1),
                        "cpu_s": round(cpu, 1)}])
    out = ROOT / args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(out.with_suffix(".csv"), index=False)
    out.with_suffix(".md").write_text(df.to_markdown(index=False) + "\n")
    print(df.to_markdown(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
