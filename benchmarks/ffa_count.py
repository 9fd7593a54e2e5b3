"""Benchmark: the exact FFA by counting (:func:`fxai.explain.ffa_from_cxps`) beside listing.

For every complete enumeration of the given ``fxai ffa-run`` run files, the FFA is counted
from the run's CXps in a BDD (process CPU s) and compared, feature by feature, with the FFA of
its listed AXps; the enumeration's own time is the run's. Writes ``ffa_count.csv`` and
``.md`` under ``--out``.

    .venv/bin/python -m benchmarks.ffa_count RUN.jsonl [RUN.jsonl ...] [--out results/bench]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd

from fxai.explain import ffa_from_cxps
from fxai.report.tables import to_markdown
from fxai.runfile import read_run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", type=Path, help="run files of fxai ffa-run")
    ap.add_argument("--out", default="results/bench")
    args = ap.parse_args()
    rows = []
    for path in args.runs:
        for r in read_run(path)[1]:
            if not r.get("complete"):
                continue
            t = time.process_time()
            counted = ffa_from_cxps(r["cxps"])
            rows.append({"run": path.name, "instance": r["instance"], "method": r["method"],
                         "axps": r["n_axps"], "cxps": r["n_cxps"],
                         "enumeration_s": round(r["time_s"], 3),
                         "counting_s": round(time.process_time() - t, 3),
                         "same_ffa": {str(f): v for f, v in counted.items()} == r["ffa"]})
    if not rows:
        raise SystemExit("no complete enumeration in the run files given")
    table = pd.DataFrame(rows)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "ffa_count.csv", index=False)
    (out / "ffa_count.md").write_text(to_markdown(table) + "\n")
    print(to_markdown(table))


if __name__ == "__main__":
    main()
