"""Peak memory of the other aggregations (``fxai nbc-table``, ``xpg-table``, ``cross-table``
and the report figures) on run files scaled to the size of the paper profile.

    .venv/bin/python -m benchmarks.table_memory [--results results/default] [--factor F]

Takes the run files of a finished run (``make run`` first) and writes, in a scratch folder
laid out like ``results/<profile>/``, copies whose records are repeated (instances numbered
anew, the header's plan with them) until each section holds as many records as the paper
profile would: XpG the instances Tables 1 and 2 publish (``data/reference``), NBC and cross
the instances and datasets of ``config/paper.yaml``; ``--factor`` scales those totals. Each
aggregation then runs in a child process as the workflow calls it, and the benchmark prints
the child's peak RSS (``VmHWM``), its time and the records it read.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
# run a command's main() and print the process's peak RSS (its own address space: VmHWM)
CHILD = """
import json, re, runpy, sys, time
from pathlib import Path
t = time.perf_counter()
sys.argv = sys.argv[1:]
try:
    runpy.run_module(sys.argv[0], run_name="__main__")
except SystemExit as e:
    if e.code:
        raise
hwm = re.search(r"VmHWM:\\s+(\\d+) kB", Path("/proc/self/status").read_text()).group(1)
print(json.dumps({"peak_rss_mb": int(hwm) / 1024, "seconds": time.perf_counter() - t}))
"""


def paper_records() -> dict[str, int]:
    """Records per section in the paper profile."""
    cfg = yaml.safe_load((ROOT / "config/paper.yaml").read_text())
    published = {}
    for fam, table in (("obdd", "xpg_table1_obdd"), ("dt", "xpg_table2_dt")):
        with (ROOT / "data/reference" / f"{table}.csv").open() as fh:
            published[fam] = sum(int(float(r["n_instances"])) for r in csv.DictReader(fh)
                                 if r["n_instances"])
    models = (len(cfg["nbc"]["datasets"]) + len(cfg["xpg"]["dt_datasets"])
              + len(cfg["xpg"]["obdd_datasets"]) + len(cfg["ffa"]["datasets"]))
    return {"nbc": len(cfg["nbc"]["datasets"]) * cfg["nbc"]["instances"],
            "xpg/dt": published["dt"], "xpg/obdd": published["obdd"],
            "cross": cfg["cross"]["instances"] * models}


def scale_file(src: Path, out: Path, times: int) -> int:
    """Write ``src`` with its records repeated ``times`` times (instances renumbered)."""
    lines = src.read_text().splitlines()
    head, recs = json.loads(lines[0]), [json.loads(x) for x in lines[1:] if x.strip()]
    n = len(recs) * times
    head["instances"] = list(range(n))
    with out.open("w") as fh:
        fh.write(json.dumps(head) + "\n")
        for i in range(n):
            fh.write(json.dumps(recs[i % len(recs)] | {"instance": i}) + "\n")
    return n


def build(results: Path, scratch: Path, factor: float) -> dict[str, int]:
    """The scaled copy of ``results`` (runs and model metas); records written per section."""
    target = {k: v * factor for k, v in paper_records().items()}
    written = {}
    for section, glob in (("nbc", "runs/nbc/*.jsonl"), ("xpg/dt", "runs/xpg/dt_*.jsonl"),
                          ("xpg/obdd", "runs/xpg/obdd_*.jsonl"),
                          ("cross", "runs/cross/*.jsonl")):
        files = sorted(results.glob(glob))
        if not files:
            raise SystemExit(f"no {glob} in {results}: run the workflow first (make run)")
        have = sum(1 for f in files for _ in f.open()) - len(files)
        times = max(1, math.ceil(target[section] / have))
        written[section] = 0
        for f in files:
            out = scratch / f.relative_to(results)
            out.parent.mkdir(parents=True, exist_ok=True)
            written[section] += scale_file(f, out, times)
    for meta in results.glob("models/*/*.meta.json"):
        (scratch / meta.relative_to(results)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(meta, scratch / meta.relative_to(results))
    return written


def commands(scratch: Path) -> dict[str, list[str]]:
    """The aggregations, as the workflow's rules call them."""
    def runs(glob: str) -> list[str]:
        return sorted(str(p) for p in scratch.glob(glob))

    def metas(fam: str, run_files: list[str]) -> list[str]:  # runs/<part>/[<fam>_]<ds>.jsonl
        return [str(scratch / "models" / fam / f"{Path(r).stem.split('_', 1)[-1]}.meta.json")
                for r in run_files]

    tables, figs = str(scratch / "tables"), str(scratch / "figures")
    cmds = {"nbc-table": ["fxai.cli", "nbc-table", "--runs", *runs("runs/nbc/*.jsonl"),
                          "--models", *metas("nbc", runs("runs/nbc/*.jsonl")),
                          "--out-dir", tables]}
    for fam, name in (("dt", "xpg_table2_dt"), ("obdd", "xpg_table1_obdd")):
        rs = runs(f"runs/xpg/{fam}_*.jsonl")
        cmds[f"xpg-table {fam}"] = ["fxai.cli", "xpg-table", "--family", fam, "--runs", *rs,
                                    "--metas", *metas(fam, rs), "--out-dir", tables,
                                    "--name", name, "--reference", name, "--clock", "cpu",
                                    "--missing-reason", "not run in this profile"]
    cmds["cross-table"] = ["fxai.cli", "cross-table", *runs("runs/cross/*.jsonl"),
                           "--out-dir", tables, "--figures-dir", figs]
    for fig in ("nbc_length_vs_delta", "nbc_precision", "xpg_xp_counts", "xpg_runtime"):
        cmds[f"figure {fig}"] = ["fxai.cli", "report", "figure", fig, "--results",
                                 str(scratch)]
    return cmds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=Path, default=ROOT / "results/default",
                    help="a finished run's results folder (default: results/default)")
    ap.add_argument("--factor", type=float, default=1.0, help="times the paper's records")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="fxai-table-mem-") as tmp:
        scratch = Path(tmp)
        t0 = time.perf_counter()
        written = build(args.results.resolve(), scratch, args.factor)
        print("records: " + ", ".join(f"{k} {v:,}" for k, v in written.items())
              + f" ({time.perf_counter() - t0:.0f} s to write)")
        for name, cmd in commands(scratch).items():
            proc = subprocess.run([sys.executable, "-c", CHILD, *cmd], capture_output=True,
                                  text=True, cwd=ROOT)
            if proc.returncode:
                print(proc.stderr[-2000:], file=sys.stderr)
                raise SystemExit(f"{name} failed")
            res = json.loads(proc.stdout.strip().splitlines()[-1])
            print(f"{name}: peak RSS {res['peak_rss_mb']:.0f} MB, {res['seconds']:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
