"""Reading and aggregating the run records of ``fxai ffa-run`` (with the check records of
``fxai ffa-verify``) into the instances' anytime curves for Figures 1-10 and the runs' table
fields for Table 1 and the run summary (:mod:`fxai.experiments.ffa`).

* The exact FFA of an instance comes from the AXps of its *complete* runs; when several
  methods completed, their AXp sets must agree (disagreements are counted in the summary
  and the first complete run in the order MARCO-A, -C, -S is used).
* Curves (:mod:`fxai.metrics.curves`) are kept for the instances that have a run of every
  method without error and a known exact FFA, each instance weighted equally when averaged.

Memory: run files are read one at a time and streamed (:func:`read_runs`); each run is kept
only as its table fields and at most ``MAX_POINTS`` AXp steps until its instance is
complete, then as the instance's curves. The figures and tables are those of reading every
record whole.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fxai.errors import DataError
from fxai.experiments import ffa
from fxai.metrics.curves import METRICS, AxpSteps, StepsBuilder, steps_curves
from fxai.report.stream_json import parse_objects
from fxai.runfile import header_of, incomplete, iter_records

METHODS = tuple(ffa.METHODS)  # MARCO-A, -C, -S: the order the exact FFA is taken in
CHECK_FIELDS = ("verified", "n_checked", "n_failed", "check_time_s")
META_FIELDS = ("dataset", "method", "instance", "status", "complete", "time_s", "n_axps",
               "n_cxps", "switched_at", "time_limit", "clock", "code_version")
MAX_POINTS = 2000  # AXps per run at which the curves are evaluated (fxai.metrics.curves)


class AxpSet:
    """The distinct AXps of a run fed one at a time: their number, the exact FFA they give
    and an order-independent digest (sum of 128-bit BLAKE2 hashes), so that two runs' sets
    compare without being held."""

    def __init__(self) -> None:
        self.seen: set[bytes] = set()
        self.counts: Counter[int] = Counter()
        self.digest = 0

    def add(self, axp: Iterable[int]) -> None:
        a = tuple(axp)
        h = hashlib.blake2b(repr(a).encode(), digest_size=16).digest()
        if h in self.seen:
            return
        self.seen.add(h)
        self.digest = (self.digest + int.from_bytes(h, "big")) % (1 << 128)
        self.counts.update(a)

    def ffa(self) -> dict[int, float]:
        """As :func:`fxai.explain.ffa_from_axps` of the distinct AXps."""
        return {f: c / len(self.seen) for f, c in sorted(self.counts.items())}


@dataclass
class ReducedRun:
    """What the report needs of one run record: its table fields, its AXps reduced to
    ``MAX_POINTS`` steps, and for a complete run a digest of its AXp set and its FFA."""

    meta: dict
    steps: AxpSteps
    x: list
    axps_digest: int | None = None
    ffa: dict[int, float] | None = None
    n_axps: int = 0


class _Reducer:
    """Receives one run record's fields (AXps, then events) and reduces them."""

    def __init__(self, fields: Mapping, max_points: int | None) -> None:
        self.fields, self.max_points = fields, max_points
        self.axps = AxpSet()
        self.builder: StepsBuilder | None = None
        self.buffered: list | None = None

    def event(self, ev: Sequence) -> None:
        if self.builder is None and self.buffered is None:
            if "axps" in self.fields or not self.max_points:  # the number of AXps is known
                self.builder = StepsBuilder(self.fields.get("axps"), self.max_points)
            else:  # events before the AXps: hold them (older field order)
                self.buffered = []
        if self.builder is not None:
            self.builder.add(ev)
        else:
            self.buffered.append(ev)

    def result(self, check: Mapping | None, where: str) -> ReducedRun:
        rec = self.fields
        missing = [k for k in ("dataset", "method", "instance", "status") if k not in rec]
        if missing:
            raise DataError(f"{where}: not an FFA run record (missing {missing}); delete it "
                            "and rerun the rule that writes it (ffa_run)")
        error = rec["status"] == "error"
        if self.buffered is not None:
            self.builder = StepsBuilder(sum(e[1] == "axp" for e in self.buffered),
                                        self.max_points)
            for ev in self.buffered:
                self.builder.add(ev)
        builder = StepsBuilder() if error or self.builder is None else self.builder
        if not error and "axps" in rec and builder.n != rec["axps"]:
            raise ValueError(f"{where}: {rec['axps']} AXps but {builder.n} AXp events")
        meta = {k: rec[k] for k in META_FIELDS if k in rec}
        meta |= {k: (check or {}).get(k) for k in CHECK_FIELDS}
        out = ReducedRun(meta, builder.steps(), list(rec.get("x") or []))
        if rec.get("complete") and not error:
            out.axps_digest, out.ffa, out.n_axps = (self.axps.digest, self.axps.ffa(),
                                                    len(self.axps.seen))
        return out


def reduce_run(record: Mapping, check: Mapping | None = None,
               max_points: int | None = MAX_POINTS) -> ReducedRun:
    """Reduce a run record held in memory (with its check record's fields)."""
    fields = {k: v for k, v in record.items() if k not in ("axps", "events")}
    red = _Reducer(fields, max_points)
    for a in record.get("axps") or []:
        red.axps.add(a)
    fields["axps"] = len(record.get("axps") or [])
    for ev in record.get("events") or []:
        red.event(ev)
    return red.result(check, "run record")


def read_runs(path: str | Path, max_points: int | None = MAX_POINTS) -> Iterator[ReducedRun]:
    """Read and reduce the records of an ``fxai ffa-run`` run file one at a time, in one pass
    (the one place run files are read): the ``axps`` and ``events`` arrays are streamed,
    never held, so memory stays at a few MB whatever the run's size. A file cut short or
    half-written, or one of another command, is an error naming it."""
    path = Path(path)
    red = _Reducer({}, max_points)

    def start() -> tuple[dict, dict]:
        nonlocal red
        red = _Reducer({}, max_points)
        return {"axps": red.axps.add, "events": red.event, "cxps": _drop}, red.fields

    ids: list = []
    with path.open() as fh:
        head = header_of(path, fh.readline(), "ffa-run")
        try:
            for _ in parse_objects(fh, start):
                run = red.result(None, str(path))
                ids.append(run.meta["instance"])
                yield run
        except ValueError as err:
            raise DataError(f"{path}, line {len(ids) + 2}: cannot read an FFA run record: "
                            f"{err}; it is corrupt or cut short: delete the file and rerun "
                            "the rule that writes it (ffa_run)") from err
    missing = incomplete(head, [{"instance": i} for i in ids])
    if missing:
        raise DataError(f"{path}: incomplete run file, {missing}; rerun the rule that writes "
                        "it (ffa_run; it resumes from the .partial file)")


def _drop(_: object) -> None:
    """Elements the report does not use (CXps: counted by ``n_cxps``)."""


def read_checks(paths: Iterable[str | Path]) -> dict[tuple, dict]:
    """Check records of ``fxai ffa-verify`` (its run files) by ``(dataset, method,
    instance)``."""
    found = {}
    for p in paths:
        for c in iter_records(p, "ffa-verify"):
            if not isinstance(c, dict) or not {"dataset", "method", "instance"} <= c.keys():
                raise DataError(f"FFA check record in {p} lacks dataset, method or instance; "
                                "delete the file and rerun the rule that writes it (ffa_verify)")
            found[c["dataset"], c["method"], c["instance"]] = c
    return found


def load_runs(paths: Iterable[str | Path], checks: Iterable[str | Path] = (),
              max_points: int | None = MAX_POINTS) -> Iterator[ReducedRun]:
    """The records of the run files read and reduced one at a time."""
    found = read_checks(checks)
    for p in paths:
        for r in read_runs(p, max_points):
            key = (r.meta["dataset"], r.meta["method"], r.meta["instance"])
            r.meta |= {k: found.get(key, {}).get(k) for k in CHECK_FIELDS}
            yield r


def exact_ffa(runs: Mapping[str, ReducedRun]) -> tuple[dict[int, float], int, bool] | None:
    """(exact FFA, number of AXps, complete runs agree) or None without a complete run; the
    first complete run in the order MARCO-A, -C, -S gives the FFA."""
    done = [runs[m] for m in METHODS if m in runs and runs[m].ffa is not None]
    if not done:
        return None
    agree = all(r.axps_digest == done[0].axps_digest for r in done)
    return done[0].ffa, done[0].n_axps, agree


@dataclass
class Picture:
    """One instance of an image dataset: its pixels, exact FFA and its runs' steps."""

    instance: int
    x: list
    exact: dict[int, float]
    steps: dict[str, AxpSteps]


@dataclass
class Aggregate:
    """Instance curves, exclusion counts per dataset, the runs' table fields, and per dataset
    the instance with the smallest row id among those in the figures (for FFA pictures)."""

    variant: str = "paper"
    metrics: tuple[str, ...] = METRICS  # the curves computed per instance
    curves: dict[tuple[str, int], dict] = field(default_factory=dict)
    notes: dict[str, dict[str, int]] = field(default_factory=dict)
    metas: list[dict] = field(default_factory=list)
    pictures: dict[str, Picture] = field(default_factory=dict)

    def per_dataset(self) -> dict[str, list]:
        """``{dataset: [instance curves in instance order]}``, datasets sorted."""
        out: dict[str, list] = {}
        for (ds, _), c in sorted(self.curves.items()):
            out.setdefault(ds, []).append(c)
        return out

    def add_instance(self, key: tuple[str, int], runs: Mapping[str, ReducedRun]) -> None:
        ds, inst = key
        n = self.notes.setdefault(
            ds, {"instances": 0, "used": 0, "no_exact": 0, "missing_or_error": 0, "disagree": 0}
        )
        n["instances"] += 1
        ok = {m: runs[m] for m in METHODS if m in runs and runs[m].meta["status"] != "error"}
        ex = exact_ffa(ok)
        if ex is None:
            n["no_exact"] += 1
            return
        n["disagree"] += not ex[2]
        if len(ok) < len(METHODS):
            n["missing_or_error"] += 1
            return
        steps = {m: r.steps for m, r in ok.items()}
        self.curves[key] = steps_curves(steps, ex[0], ex[1], self.variant, self.metrics)
        n["used"] += 1
        if ds not in self.pictures or inst < self.pictures[ds].instance:
            self.pictures[ds] = Picture(inst, ok[METHODS[0]].x, ex[0], steps)


def collect(runs: Iterable[ReducedRun], variant: str = "paper",
            metrics: tuple[str, ...] = METRICS) -> Aggregate:
    """Group reduced runs by instance as they come and turn each instance into its curves as
    soon as it has all methods (the rest at the end): memory holds the pending instances'
    steps and every instance's curves (at most ``MAX_POINTS`` + 1 points each), never runs.
    ``metrics``: the curves to compute (e.g. only ``("error",)`` where nothing else is
    read)."""
    agg = Aggregate(variant, metrics)
    pending: dict[tuple[str, int], dict[str, ReducedRun]] = {}
    done: set[tuple[str, int, str]] = set()
    for r in runs:
        ds, method, inst = r.meta["dataset"], r.meta["method"], int(r.meta["instance"])
        if (ds, inst, method) in done:
            raise ValueError(f"two run records for {ds} instance {inst} {method}")
        done.add((ds, inst, method))
        agg.metas.append(r.meta)
        group = pending.setdefault((ds, inst), {})
        group[method] = r
        if all(m in group for m in METHODS):
            agg.add_instance((ds, inst), pending.pop((ds, inst)))
    for key in sorted(pending):
        agg.add_instance(key, pending.pop(key))
    return agg
