"""Kill an explaining command in the middle of its run, rerun it, and count what was kept.

    python -m benchmarks.resume --at 230 -- fxai xpg-explain --family dt --dataset cancer \\
        --model results/paper/models/dt/cancer.joblib --out /tmp/dt_cancer.jsonl \\
        --prepared data/prepared/files --time-limit 60 --clock cpu --max-rows-all 1000 \\
        --fraction 0.3 --seed 0

Runs the command, sends ``--signal`` (default KILL: nothing in the command can react) once its
partial holds ``--at`` records (or after ``--after`` seconds), then reruns it to completion
and prints the instances the partial kept, the instances the rerun explained, and the wall
times. The command's ``--out`` must not exist.
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import time
from pathlib import Path

from fxai.runfile import partial_path, read_run, run_records


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    when = ap.add_mutually_exclusive_group(required=True)
    when.add_argument("--after", type=float, help="seconds before the kill")
    when.add_argument("--at", type=int, help="kill once the partial holds this many records")
    ap.add_argument("--signal", default="KILL", choices=["KILL", "TERM", "INT"])
    ap.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command")
    args = ap.parse_args(argv)
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    out = Path(cmd[cmd.index("--out") + 1])
    if out.exists() or partial_path(out).exists():
        raise SystemExit(f"{out} (or its .partial) exists: remove it first")
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while proc.poll() is None and not _due(args, partial_path(out), time.perf_counter() - t0):
        time.sleep(0.01)
    if proc.poll() is not None:
        raise SystemExit(f"the command ended (exit {proc.returncode}) before the kill")
    proc.send_signal(getattr(signal, f"SIG{args.signal}"))
    proc.wait()
    first = time.perf_counter() - t0
    _, kept = read_run(partial_path(out), complete=False)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    second = time.perf_counter() - t0
    total = len(run_records(out))
    print(f"killed (SIG{args.signal}) after {first:.1f} s: {len(kept)} of {total} instances "
          f"written and kept; the rerun explained {total - len(kept)} in {second:.1f} s")
    return 0


def _due(args: argparse.Namespace, part: Path, elapsed: float) -> bool:
    if args.after is not None:
        return elapsed >= args.after
    return part.exists() and part.read_bytes().count(b"\n") > args.at  # header + records


if __name__ == "__main__":
    raise SystemExit(main())
