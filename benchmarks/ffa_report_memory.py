"""Peak memory of the FFA aggregation (``fxai ffa-report``) on a synthetic full-size profile.

    .venv/bin/python -m benchmarks.ffa_report_memory [--runs 225] [--axps 1336060]
        [--cxps 891780] [--src DIR] [--cache DIR]

Builds run files shaped like ``fxai ffa-run``'s (a header line, then a record with
``events``, ``axps``, ``cxps``, ``ffa`` and the table fields) for ``--runs`` runs (3 methods
per instance, dataset ``pneumoniamnist``, 100 pixels, AXps of ~20 and CXps of ~9 of 42 used
pixels) and runs
``fxai.experiments.ffa_report.make_report`` on them in a child process, printing that process's
peak RSS and time. The defaults are the full paper profile at 600 s: 225 runs (15 instances
x 5 datasets x 3 methods), each with the events of a PneumoniaMNIST MARCO-S run extrapolated
from 30 s to 600 s (a measured 30-s run: 66,803 AXps and 44,589 CXps, 16 MB; x 20), i.e.
a ~330 MB record per run, ~75 GB in all. So that this fits on any disk, each run file is a
named pipe the benchmark writes while the aggregation reads it (every byte still goes
through the aggregation's JSON parser). The peak is the child's ``VmHWM`` (Linux). Every
run is complete and the three methods of an instance find the same AXps (in different
orders), so every instance is drawn.
``--src`` runs another checkout's ``src`` (e.g. the code before streaming).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

METHODS = ("marco-a", "marco-c", "marco-s")
# The peak is VmHWM of the child's own address space: getrusage's ru_maxrss would also count
# the parent's memory at the fork (Linux keeps the larger of the two across exec).
CHILD = """
import json, re, sys, time
from pathlib import Path
from fxai.experiments.ffa_report import make_report
paths, out, registry = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
t = time.perf_counter()
kw = {"registry": registry} if registry else {}
make_report(paths, [], out + "/fig", out + "/tab", reference=None, **kw)
hwm = re.search(r"VmHWM:\\s+(\\d+) kB", Path("/proc/self/status").read_text()).group(1)
print(json.dumps({"peak_rss_mb": int(hwm) / 1024, "seconds": time.perf_counter() - t}))
"""


def _sets(rng: np.random.Generator, n: int, pool: np.ndarray, mean_len: int) -> list[str]:
    """``n`` random feature sets (sorted, JSON text) of about ``mean_len`` pool features."""
    out = []
    for start in range(0, n, 100_000):
        m = min(100_000, n - start)
        order = rng.random((m, pool.size)).argsort(axis=1)
        lens = rng.integers(mean_len - 5, mean_len + 6, m)
        out += [json.dumps(sorted(pool[order[i, :lens[i]]].tolist())) for i in range(m)]
    return out


def run_texts(n_axps: int, n_cxps: int, seed: int = 0) -> tuple[str, dict[str, str]]:
    """The shared fields (axps, cxps, ffa) and each method's events, as JSON text."""
    rng = np.random.default_rng(seed)
    pool = np.sort(rng.choice(100, 42, replace=False))
    axps, cxps = _sets(rng, n_axps, pool, 20), _sets(rng, n_cxps, pool, 9)
    counts: dict[int, int] = {}
    for a in axps:
        for f in json.loads(a):
            counts[f] = counts.get(f, 0) + 1
    ffa = {str(f): c / n_axps for f, c in sorted(counts.items())}
    shared = (f'"n_axps": {n_axps}, "n_cxps": {n_cxps}, "axps": [{", ".join(axps)}], '
              f'"cxps": [{", ".join(cxps)}], "ffa": {json.dumps(ffa)}')
    events = {}
    for j, m in enumerate(METHODS):
        kinds = ["axp"] * n_axps + ["cxp"] * n_cxps
        order = rng.permutation(len(kinds)) if j else np.arange(len(kinds))
        times = np.sort(rng.uniform(0, 600, len(kinds)))
        ia = ic = 0
        parts = []
        for t, k in zip(times, order, strict=True):
            if k < n_axps:
                parts.append(f'[{t:.6f}, "axp", {axps[ia]}]')
                ia += 1
            else:
                parts.append(f'[{t:.6f}, "cxp", {cxps[ic]}]')
                ic += 1
        events[m] = ", ".join(parts)
    return shared, events


def cached_texts(n_axps: int, n_cxps: int, cache: str | None) -> tuple[str, dict[str, str]]:
    """:func:`run_texts`, kept in ``cache`` (a folder) when given."""
    if not cache:
        return run_texts(n_axps, n_cxps)
    files = [Path(cache) / f"{n_axps}_{n_cxps}_{name}.json" for name in ("shared", *METHODS)]
    if not all(f.is_file() for f in files):
        shared, events = run_texts(n_axps, n_cxps)
        Path(cache).mkdir(parents=True, exist_ok=True)
        for f, text in zip(files, [shared, *events.values()], strict=True):
            f.write_text(text)
    texts = [f.read_text() for f in files]
    return texts[0], dict(zip(METHODS, texts[1:], strict=True))


def write_runs(paths: list[Path], shared: str, events: dict[str, str]) -> None:
    """Write the run records into ``paths`` (named pipes), in order."""
    x = json.dumps(np.linspace(0, 1, 100).round(3).tolist())
    for i, p in enumerate(paths):
        inst, m = divmod(i, len(METHODS))
        head = (f'{{"dataset": "pneumoniamnist", "model": "bt.json", "instance": {inst}, '
                f'"k": {inst}, "x": {x}, "prediction": 1, "method": "{METHODS[m]}", '
                f'"status": "done", "time_s": 600.0, "complete": true, "switched_at": null, ')
        with p.open("w") as fh:
            fh.write(json.dumps({"fxai_run": 1, "command": "ffa-run", "instances": [inst]})
                     + "\n")
            fh.write(head + shared + ', "events": [')
            fh.write(events[METHODS[m]])
            fh.write("]}\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=225, help="run files (3 per instance)")
    ap.add_argument("--axps", type=int, default=66_803 * 20, help="AXps per run")
    ap.add_argument("--cxps", type=int, default=44_589 * 20, help="CXps per run")
    ap.add_argument("--src", help="the src folder to import fxai from (default: this one)")
    ap.add_argument("--cache", help="folder keeping the generated records for the next call")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    shared, events = cached_texts(args.axps, args.cxps, args.cache)
    size = len(shared) + max(len(e) for e in events.values())
    print(f"{args.runs} runs, {args.axps:,} AXps + {args.cxps:,} CXps each, "
          f"~{size / 1e6:.0f} MB per run record ({time.perf_counter() - t0:.0f} s to build)")
    src = Path(args.src or Path(__file__).resolve().parents[1] / "src").resolve()
    registry = "" if args.src else str(src.parent / "config" / "datasets.yaml")
    with tempfile.TemporaryDirectory(prefix="fxai-ffa-mem-") as tmp:
        paths = [Path(tmp) / f"run{i}.json" for i in range(args.runs)]
        for p in paths:
            os.mkfifo(p)
        (Path(tmp) / "paths.json").write_text(json.dumps([str(p) for p in paths]))
        writer = threading.Thread(target=write_runs, args=(paths, shared, events), daemon=True)
        writer.start()
        env = os.environ | {"PYTHONPATH": str(src), "MPLBACKEND": "Agg"}
        proc = subprocess.run([sys.executable, "-c", CHILD, str(Path(tmp) / "paths.json"),
                               tmp, registry], env=env, capture_output=True, text=True)
        if proc.returncode:
            print(proc.stderr, file=sys.stderr)
            return proc.returncode
        res = json.loads(proc.stdout.strip().splitlines()[-1])
    print(f"aggregation ({src}): peak RSS {res['peak_rss_mb']:.0f} MB, "
          f"{res['seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
