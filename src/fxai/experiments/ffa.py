"""The anytime-FFA paper's experiment (Figures 1-10, Table 1): the per-instance driver, an
enumeration by MARCO-A, MARCO-C or MARCO-S with its events as they are found, and the check
of a run record, in its own job (``fxai ffa-verify``) so that re-checking never
re-enumerates."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from fxai.errors import DataError
from fxai.experiments.driver import Stopwatch, drive
from fxai.runfile import iter_run

if TYPE_CHECKING:
    from fxai import explain
    from fxai.oracles.base import Oracle

METHODS = {"marco-a": "axp", "marco-c": "cxp", "marco-s": "switch"}
SCREEN_COMMAND = "ffa-screen"  # picks the instances that reach the exact FFA (fxai ffa-screen)
LOG = logging.getLogger("fxai.ffa")
PROGRESS_S = 30.0  # seconds of the run's clock between two progress lines of one enumeration


def run_instance(o: Oracle, method: str, time_limit: float | None, clock: str = "cpu",
                 switch: explain.SwitchRule | None = None, unit_cxps: bool = False,
                 on_event: Callable[[list], None] | None = None,
                 progress_s: float = PROGRESS_S) -> dict:
    """Enumerate with ``method``, passing each event ``[t, kind, features]`` to ``on_event``
    as it is found; return the result fields. Every ``progress_s`` seconds of the run's
    clock, at the next event, the counts so far go to the ``fxai.ffa`` log (INFO): a run
    without a time limit can take hours."""
    from fxai import explain

    if method not in METHODS:
        raise ValueError(f"method must be one of {sorted(METHODS)}, not {method!r}")
    events: list[list] = []

    def prime() -> None:  # compilation, caches: outside the clock, as the reference code does
        o.counterexample(set(o.features))
        o.counterexample(set())

    def enumerate_() -> tuple[explain.Marco, int]:
        calls0 = getattr(o, "calls", 0)
        m = explain.Marco(o, target=METHODS[method], time_limit=time_limit, clock=clock,
                          switch=switch, unit_cxps=unit_cxps)
        shown = 0.0
        for ev in m:
            row = [round(ev.t, 6), ev.kind, [int(f) for f in ev.features]]
            events.append(row)
            if on_event is not None:
                on_event(row)
            if ev.t - shown >= progress_s:
                shown = ev.t
                LOG.info("%s: %d AXps, %d CXps after %.0f s", method, len(m.axps),
                         len(m.cxps), ev.t)
        return m, getattr(o, "calls", 0) - calls0

    out = drive(enumerate_, clock=clock, prime=prime)
    (m, calls), elapsed, wall = out.result, out.explained.seconds, out.explained.wall_s
    axps = [list(a) for a in m.axps]
    cxps = [list(c) for c in m.cxps]
    return {
        "method": method,
        "status": "done" if m.complete else "timeout",
        "time_s": round(elapsed, 6),
        "wall_s": round(wall, 6),
        "clock": clock,
        "unit_cxps": unit_cxps,
        "time_limit": time_limit,
        "complete": m.complete,
        "switched_at": m.switched_at,
        "oracle_calls": calls,
        "n_axps": len(axps),
        "n_cxps": len(cxps),
        "axps": axps,
        "cxps": cxps,
        "ffa": ({str(f): v for f, v in explain.ffa_from_axps(axps).items()}
                if m.complete else None),
        "events": events,
    }


def screen_picks(path: str | Path) -> list[int]:
    """The instances a complete ``fxai ffa-screen`` file picked (seeded indices K, in order);
    a file that is not one, or one short of its instances, is an error naming it."""
    head, recs = iter_run(path, SCREEN_COMMAND)
    n = head.get("about", {}).get("instances")
    done = [r["k"] for r in recs if r.get("status") == "done"][:n]
    if not isinstance(n, int) or len(done) < n:
        raise DataError(f"{path}: {len(done)} of {n} instances picked; rerun the rule that "
                        "makes it")
    return done


def check_record(record: dict, model) -> dict:
    """The check fields of one run record: every AXp and CXp checked by the model family's
    independent checker; verified (None when there was nothing to check or an explanation
    is undecided), counts, time."""
    from fxai import verify

    out = {k: record.get(k) for k in ("dataset", "method", "instance", "k")}
    axps, cxps = record["axps"], record["cxps"]
    with Stopwatch("cpu") as sw:
        ok_a, ok_c = verify.check_all(model, record["x"], axps, cxps)
    bad_a = [a for a, ok in zip(axps, ok_a, strict=True) if ok is False]
    bad_c = [c for c, ok in zip(cxps, ok_c, strict=True) if ok is False]
    return out | {
        "verified": verify.verdict(ok_a, ok_c) if axps or cxps else None,
        "n_checked": len(axps) + len(cxps),
        "failed_axps": bad_a[:20],
        "failed_cxps": bad_c[:20],
        "n_failed": len(bad_a) + len(bad_c),
        "check_time_s": round(sw.took.cpu_s, 3),
        "check_wall_s": round(sw.took.wall_s, 3),
    }
