"""CPU time of a finished workflow run per kind of job, from the usage lines of its job logs.

    .venv/bin/python -m benchmarks.rule_cpu [--results results/default] [--out results/bench]
        [--datasets DS ...]

Every fxai command of a workflow job ends its log (``results/<profile>/logs/<part>/<job>.log``)
with ``fxai usage: cpu_s=.. user_s=.. system_s=.. max_rss_mb=.. wall_s=..`` (``fxai.cli``: the
user + system seconds of the command's process and its children). A job's kind is its folder
and the first word of its name (``ffa/run_digits-5vs8_marco-a_0`` -> ``ffa/run``; a cross run
``cross/nbc_zoo`` -> ``cross/nbc``, the family). Prints and writes one row per kind: jobs,
CPU seconds in all, per job (mean) and the costliest job, the share of the run's CPU, the
largest peak memory (MB: what ``mem_mb`` must cover); then the total. The run's own CPU
outside the jobs (snakemake planning, the install) is not in these logs:
``/usr/bin/time make run`` gives the whole. With ``--datasets``, the kinds are per dataset (a
job is a dataset's when the dataset is one of the ``_``-separated words of its name:
``ffa/run_sarcasm-full_marco-c_4``, ``data/prepare_files_sarcasm-full``), with a total row
per dataset; the jobs of none of them are under ``other``.
"""

from __future__ import annotations

import argparse
import csv
from collections import defaultdict
from pathlib import Path

PREFIX = "fxai usage: "


def usage(path: Path) -> dict[str, float] | None:
    """The last usage line of a log as numbers, or None when it has none."""
    lines = [ln for ln in path.read_text(errors="replace").splitlines() if ln.startswith(PREFIX)]
    if not lines:
        return None
    try:
        return {k: float(v) for k, v in (kv.split("=") for kv in lines[-1][len(PREFIX):].split())}
    except ValueError:
        raise SystemExit(f"{path}: unreadable usage line {lines[-1]!r}") from None


def read(results: Path) -> list[dict]:
    """One row per job log with a usage line: kind, job, wall s, CPU s, peak MB."""
    rows = []
    for path in sorted((results / "logs").rglob("*.log")):
        u = usage(path)
        if u is None:  # a job that is not an fxai command, or still running
            continue
        job = path.relative_to(results / "logs").with_suffix("").as_posix()
        folder, _, stem = job.rpartition("/")
        rows.append({"kind": f"{folder}/{stem.split('_')[0]}" if folder else stem.split("_")[0],
                     "job": job, "wall_s": u["wall_s"], "cpu_s": u["cpu_s"],
                     "max_rss_mb": u["max_rss_mb"]})
    if not rows:
        raise SystemExit(f"no job logs with a usage line under {results / 'logs'}: run the "
                         "workflow first (make run)")
    return rows


def dataset_of(job: str, datasets: list[str]) -> str:
    """The dataset among ``datasets`` that is a word of the job's name, else ``other``."""
    words = job.rpartition("/")[2].split("_")
    return next((ds for ds in datasets if ds in words), "other")


def table(rows: list[dict], datasets: list[str] | None = None) -> list[dict]:
    total = sum(r["cpu_s"] for r in rows)
    if not datasets:
        return [*_kinds(rows, total), _row("all jobs", rows, total)]
    out = []
    for ds in [*datasets, "other"]:
        jobs = [r for r in rows if dataset_of(r["job"], datasets) == ds]
        if jobs:
            out += [*_kinds(jobs, total, f"{ds}: "), _row(f"{ds}: all", jobs, total)]
    return [*out, _row("all jobs", rows, total)]


def _kinds(rows: list[dict], total: float, prefix: str = "") -> list[dict]:
    by_kind: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_kind[r["kind"]].append(r)
    order = sorted(by_kind.items(), key=lambda kv: -sum(j["cpu_s"] for j in kv[1]))
    return [_row(prefix + kind, jobs, total, top=True) for kind, jobs in order]


def _row(kind: str, jobs: list[dict], total: float, top: bool = False) -> dict:
    cpu = sum(j["cpu_s"] for j in jobs)
    costliest = max(jobs, key=lambda j: j["cpu_s"])
    return {"kind": kind, "jobs": len(jobs), "cpu_s": round(cpu, 1),
            "cpu_per_job_s": round(cpu / len(jobs), 2),
            "costliest_job": f"{costliest['job']} ({costliest['cpu_s']:.1f} s)" if top else "",
            "cpu_share_pct": round(100 * cpu / total, 1),
            "max_rss_mb": max(j["max_rss_mb"] for j in jobs)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--results", default="results/default", help="a finished run's folder")
    p.add_argument("--out", default="results/bench", help="folder of rule_cpu.{csv,md}")
    p.add_argument("--datasets", nargs="+", metavar="DS", help="kinds per dataset")
    args = p.parse_args(argv)
    out = table(read(Path(args.results)), args.datasets)
    folder = Path(args.out)
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "rule_cpu.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(out[0]))
        w.writeheader()
        w.writerows(out)
    cols = list(out[0])
    md = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    md += ["| " + " | ".join(str(r[c]) for c in cols) + " |" for r in out]
    (folder / "rule_cpu.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
