"""Benchmark: time of ``fxai COMMAND --help`` for every command (a fresh interpreter each).

Each command's help is shown ``--repeat`` times in a new process (``python -m fxai.cli``,
this checkout's ``src``); the wall time (min and median) and the process's CPU time (min) are
kept, beside ``python -c pass`` (the interpreter's own start) and ``fxai --help``. Writes
``results/bench/cli_help.csv`` and ``.md``. ``--src`` measures another checkout's package
(e.g. an older commit's ``src``), with the command list of that checkout.

    .venv/bin/python -m benchmarks.cli_help [--repeat 5] [--src OTHER/src]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

from fxai.report.tables import to_markdown

SRC = Path(__file__).resolve().parents[1] / "src"


def timed(argv: list[str], repeat: int, src: Path = SRC) -> dict:
    """Wall (min, median) and CPU (min) seconds of ``python argv`` (``src`` first on the
    path) over ``repeat`` runs."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        r = subprocess.run([sys.executable, *argv], env=env, capture_output=True, text=True)
        walls.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if r.returncode != 0:
            raise SystemExit(f"python {' '.join(argv)} failed: {r.stderr[-500:]}")
    return {"wall_min_s": round(min(walls), 3), "wall_median_s": round(statistics.median(walls), 3),
            "cpu_min_s": round(min(cpus), 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", default="results/bench")
    ap.add_argument("--src", type=Path, default=SRC, help="the package's folder (its src/)")
    args = ap.parse_args()
    names = sorted(p.stem.replace("_", "-") for p in (args.src / "fxai/commands").glob("*.py")
                   if p.stem != "__init__")
    cases = {"python -c pass": ["-c", "pass"], "fxai --help": ["-m", "fxai.cli", "--help"]}
    cases |= {f"fxai {c} --help": ["-m", "fxai.cli", c, "--help"] for c in names}
    cases |= {f"fxai report {a} --help": ["-m", "fxai.cli", "report", a, "--help"]
              for a in ("figure", "table-html", "index")}
    rows = []
    for name, argv in cases.items():
        rows.append({"command": name, **timed(argv, args.repeat, args.src)})
        print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    df.to_csv(out / "cli_help.csv", index=False)
    helps = df[df["command"].str.endswith(" --help") & (df["command"] != "fxai --help")]
    text = to_markdown(df, f"Time of `fxai COMMAND --help`, a new process each (best and median "
                       f"of {args.repeat}, s)")
    text += (f"\nSlowest command help: {helps['wall_min_s'].max():.3f} s wall (best of "
             f"{args.repeat}), {helps['wall_median_s'].max():.3f} s median; interpreter start "
             f"{df['wall_min_s'].iloc[0]:.3f} s.\n")
    (out / "cli_help.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
