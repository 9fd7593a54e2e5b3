"""Figures 1-10 and Table 1 of the anytime-FFA paper from the run records of ``fxai ffa-run``
and their check records.

* The exact FFA of an instance comes from the AXps of its *complete* runs; when several
  methods completed, their AXp sets must agree (disagreements are counted in the summary
  and the first complete run in the order MARCO-A, -C, -S is used).
* Curves (:mod:`fxai.metrics.curves`) are averaged over the instances that have a run of
  every method without error and a known exact FFA, each instance weighted equally:
  figures 1-5 over all such instances, figures 6-10 one panel per dataset.
* Table 1: mean time to the exact FFA (the whole enumeration, complete runs only) per
  dataset and method, on the runs' clock (``ffa.clock``, also the clock of their time limit),
  with the paper's values beside ours (``ffa_table1_runtime``); runs stopped by the time
  limit are censored: ``<method>_complete`` counts them out and
  ``<method>_time_mean_lb_s``, which counts each at its time limit, is a lower bound of the
  mean over all runs. Also the
  mean #AXps/#CXps of the complete runs and, given the models' meta, the hardness columns
  (features used, distinct thresholds, beside the paper's models).
* ``ffa_summary.csv/.md``: per dataset and method, runs, complete / timeout / error counts,
  the verified runs and explanations (check records of ``fxai ffa-verify``), mean numbers
  of AXps and CXps, switches, exact-FFA disagreements.
* FFA pictures of the image datasets (:mod:`fxai.report.ffa_pictures`).

Memory: run files are read one at a time and streamed (:func:`read_runs`); each run is kept
only as its table fields and at most ``MAX_POINTS`` AXp steps until its instance is
complete, then as the instance's curves. The figures and tables are those of reading every
record whole.
"""

from __future__ import annotations

import hashlib
import logging
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from fxai.errors import DataError
from fxai.files import read_json
from fxai.metrics.censored import censored_mean
from fxai.metrics.curves import (
    AxpSteps,
    StepsBuilder,
    average_instances,
    steps_curves,
)
from fxai.report.canvas import new_figure
from fxai.report.stream_json import parse_objects
from fxai.runfile import header_of, incomplete, iter_records
from fxai.version import stamped

LOG = logging.getLogger("fxai.ffa_figures")
METHODS = ("marco-a", "marco-c", "marco-s")
LABELS = {"marco-a": "MARCO-A", "marco-c": "MARCO-C", "marco-s": "MARCO-S"}
STYLE = {
    "marco-a": ("tab:blue", "-"),
    "marco-c": ("tab:orange", "--"),
    "marco-s": ("tab:green", "-."),
}
FIGURES = {  # metric -> (figure over all instances, per-dataset figure, y label)
    "error": (1, 6, "FFA error (normalised)"),
    "tau": (2, 7, "Kendall's tau"),
    "rbo": (3, 8, "RBO"),
    "kl": (4, 9, "KL divergence"),
    "naxp": (5, 10, "number of AXps (normalised)"),
}
DISPLAY = {
    "mnist-1vs3": "MNIST-1vs3",
    "mnist-1vs7": "MNIST-1vs7",
    "pneumoniamnist": "PneumoniaMNIST",
    "sarcasm": "Sarcasm",
    "disaster": "Disaster",
}


def figure_paths(fig_dir: str | Path) -> list[Path]:
    """The PNG files of figures 1-10 (each also written as PDF)."""
    return [
        Path(fig_dir) / f"ffa_fig{n}_{metric}.png"
        for metric, nums in FIGURES.items()
        for n in nums[:2]
    ]


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
        self.curves[key] = steps_curves(steps, ex[0], ex[1], self.variant)
        n["used"] += 1
        if ds not in self.pictures or inst < self.pictures[ds].instance:
            self.pictures[ds] = Picture(inst, ok[METHODS[0]].x, ex[0], steps)


def collect(runs: Iterable[ReducedRun], variant: str = "paper") -> Aggregate:
    """Group reduced runs by instance as they come and turn each instance into its curves as
    soon as it has all methods (the rest at the end): memory holds the pending instances'
    steps and every instance's curves (at most ``MAX_POINTS`` + 1 points each), never runs."""
    agg = Aggregate(variant)
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


def _draw(ax, avg: Mapping[str, tuple[np.ndarray, np.ndarray]], log_time: bool) -> None:
    for m in METHODS:
        if m not in avg or avg[m][0].size == 0:
            continue
        t, v = avg[m]
        t, v = np.append(t, max(1.0, t[-1])), np.append(v, v[-1])  # hold the last value
        color, ls = STYLE[m]
        ax.step(t, v, where="post", color=color, linestyle=ls, label=LABELS[m])
    if log_time:
        ax.set_xscale("symlog", linthresh=1e-3)
    ax.set_xlim(0, 1.04)  # room right of 1.0: a method's last step there stays visible
    ax.set_xlabel("normalised time")
    ax.grid(alpha=0.3)


def _save(fig, png: Path) -> None:
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, dpi=150, bbox_inches="tight")
    fig.savefig(png.with_suffix(".pdf"), bbox_inches="tight")


def plot_figures(
    curves: Mapping[str, list], fig_dir: str | Path, variant: str = "paper", log_time: bool = False
) -> list[Path]:
    """Write figures 1-10 (PNG + PDF); an empty panel says that no instance was usable."""
    fig_dir = Path(fig_dir)
    pooled = average_instances([c for lst in curves.values() for c in lst], variant)
    per_ds = {ds: average_instances(lst, variant) for ds, lst in curves.items()}
    n_all = sum(len(v) for v in curves.values())
    written = []
    for metric, (n_avg, n_ds, ylabel) in FIGURES.items():
        fig, ax = new_figure(figsize=(4.5, 3.4))
        _draw(ax, pooled.get(metric, {}), log_time)
        ax.set_ylabel(ylabel)
        ax.set_title(f"Figure {n_avg}: {ylabel} ({n_all} instances, {variant} metrics)", fontsize=8)
        if n_all:
            ax.legend(fontsize=7)
        path = fig_dir / f"ffa_fig{n_avg}_{metric}.png"
        _save(fig, path)
        written.append(path)
        names = sorted(curves) or ["(no data)"]
        fig, axes = new_figure(1, len(names), figsize=(3.6 * len(names), 3.2), squeeze=False)
        for i, (ax, ds) in enumerate(zip(axes[0], names, strict=True)):
            _draw(ax, per_ds.get(ds, {}).get(metric, {}), log_time)
            ax.set_title(
                f"({chr(97 + i)}) {DISPLAY.get(ds, ds)} ({len(curves.get(ds, []))})", fontsize=9
            )
            if i == 0:
                ax.set_ylabel(ylabel)
                ax.legend(fontsize=7)
        fig.subplots_adjust(top=0.8)  # the figure title clear of the panel titles
        fig.suptitle(f"Figure {n_ds}: {ylabel} per dataset ({variant} metrics)", fontsize=9)
        path = fig_dir / f"ffa_fig{n_ds}_{metric}.png"
        _save(fig, path)
        written.append(path)
    return written


def significant(x: float, digits: int = 3) -> float:
    """``x`` to ``digits`` significant digits (times of any size stay distinguishable)."""
    return float(f"{x:.{digits}g}")


def _col(method: str, what: str) -> str:
    return f"{method.replace('-', '_')}_{what}"


def runtime_table(records: Sequence[Mapping], models: Mapping[str, Mapping] | None = None,
                  paper: pd.DataFrame | None = None) -> pd.DataFrame:
    """Mean time to exact FFA (complete runs) per dataset and method, with counts; the mean
    numbers of AXps and CXps at the end of the complete runs; and, given the models' meta
    (``{dataset: meta}``) and the paper's models (``data/reference/ffa_models.csv``), what
    makes an instance hard: features used of all, distinct thresholds, and the paper's."""
    df = pd.DataFrame(
        [
            {
                "dataset": r["dataset"],
                "method": r["method"],
                "complete": bool(r.get("complete")),
                "censored": r.get("status") == "timeout",
                "time_s": r.get("time_s"),
                "time_limit": r.get("time_limit"),
                "n_axps": r.get("n_axps", len(r.get("axps") or ())),
                "n_cxps": r.get("n_cxps", len(r.get("cxps") or ())),
            }
            for r in records
        ]
    )
    rows = []
    for ds, g in df.groupby("dataset", sort=True):
        row: dict[str, object] = {"dataset": ds}
        for m in METHODS:
            gm = g[g["method"] == m]
            done = gm[gm["complete"]]
            row[_col(m, "time_mean_s")] = (
                significant(float(done["time_s"].mean())) if len(done) else np.nan
            )
            row[_col(m, "complete")] = f"{len(done)}/{len(gm)}"
            ran = gm[gm["complete"] | gm["censored"]]
            row[_col(m, "time_mean_lb_s")] = (
                round(censored_mean(ran["time_s"], ran["censored"], ran["time_limit"]), 2)
                if len(ran) else np.nan)
        done = g[g["complete"]]
        for what in ("n_axps", "n_cxps"):
            row[f"{what[2:]}_mean"] = round(float(done[what].mean()), 1) if len(done) else np.nan
        if models is not None:
            row |= _hardness(ds, models.get(ds), paper)
        rows.append(row)
    return pd.DataFrame(rows)


def _hardness(ds: str, meta: Mapping | None, paper: pd.DataFrame | None) -> dict:
    """Model columns of the runtime table and one sentence comparing them with the paper's."""
    if meta is None:
        return {"hardness": "model meta not given"}
    used, nf, thr = meta.get("n_used_features"), meta["n_features"], meta.get("thresholds")
    text = (f"ours: {used} of {nf} features used, {thr} distinct thresholds, "
            f"{meta['trees']} trees of depth {meta['depth']}")
    pub = paper[paper["dataset"] == ds] if paper is not None else paper
    if pub is not None and len(pub):
        p = pub.iloc[0]
        feats = f"{int(p['n_features'])} features" if pd.notna(p["n_features"]) \
            else "features not published"
        bound = int(p["trees"]) * (2 ** int(p["depth"]) - 1)
        text += (f"; paper: {feats}, {int(p['trees'])} trees of depth {int(p['depth'])} "
                 f"(at most {bound} thresholds; used features and thresholds not published)")
    return {"features_used": used, "n_features": nf, "thresholds": thr, "hardness": text}


def summary_table(records: Sequence[Mapping], notes: Mapping[str, Mapping[str, int]]):
    """Per dataset and method: run counts by status, verification, explanation counts."""
    rows = []
    df = pd.DataFrame(records)
    for (ds, m), g in df.groupby(["dataset", "method"], sort=True):
        ver = g["verified"].dropna()
        rows.append(
            {
                "dataset": ds,
                "method": m,
                "runs": len(g),
                "complete": int((g["status"] == "done").sum()),
                "timeout": int((g["status"] == "timeout").sum()),
                "error": int((g["status"] == "error").sum()),
                "verified": f"{int(ver.astype(bool).sum())}/{len(ver)}",
                "explanations_checked": int(g.get("n_checked", pd.Series(dtype=float)).sum()),
                "explanations_failed": int(g.get("n_failed", pd.Series(dtype=float)).sum()),
                "axps_mean": round(float(g.get("n_axps", pd.Series(dtype=float)).mean()), 1),
                "cxps_mean": round(float(g.get("n_cxps", pd.Series(dtype=float)).mean()), 1),
                "switched": int(g.get("switched_at", pd.Series(dtype=float)).notna().sum()),
                "instances_in_figures": notes.get(ds, {}).get("used", 0),
                "exact_disagreements": notes.get(ds, {}).get("disagree", 0),
            }
        )
    return pd.DataFrame(rows)


def _paper_models() -> pd.DataFrame | None:
    from fxai.report import reference as ref

    return ref.load("ffa_models") if "ffa_models" in ref.names() else None


def make_report(
    run_paths: Iterable[str | Path],
    check_paths: Iterable[str | Path],
    fig_dir: str | Path,
    table_dir: str | Path,
    variant: str = "paper",
    log_time: bool = False,
    reference: str | None = "ffa_table1_runtime",
    registry: str | Path | None = None,
    model_metas: Iterable[str | Path] | None = None,
) -> list[Path]:
    """Figures 1-10, the FFA pictures, Table 1 and the run summary from the run files, read
    one at a time; returns the figure paths. The dataset ``registry`` says which datasets
    are images (none without it); ``model_metas`` (the ensembles' meta JSON) add the hardness
    columns to Table 1."""
    from fxai.report.ffa_pictures import PICTURES, image_shapes, plot_pictures
    from fxai.report.tables import write_table

    agg = collect(load_runs(run_paths, check_paths), variant)
    shapes = image_shapes(agg.pictures, registry) if registry else {}
    if not agg.metas:
        raise ValueError("no FFA run records given")
    for ds, n in agg.notes.items():
        LOG.info(
            "%s: %d instances, %d in figures, %d without exact FFA, %d incomplete, "
            "%d exact-FFA disagreements",
            ds,
            n["instances"],
            n["used"],
            n["no_exact"],
            n["missing_or_error"],
            n["disagree"],
        )
    figs = plot_figures(agg.per_dataset(), fig_dir, variant, log_time)
    figs.append(plot_pictures(agg.pictures, shapes, Path(fig_dir) / PICTURES))
    models = None
    if model_metas is not None:
        models = {}
        for p in model_metas:
            meta = read_json(p, "model meta file")
            models[meta["dataset"]] = meta
    clocks = sorted({str(r.get("clock", "cpu")) for r in agg.metas})
    write_table(
        runtime_table(agg.metas, models, _paper_models() if models is not None else None),
        "ffa_table1_runtime",
        table_dir,
        reference=reference,
        caption=f"One row per dataset: mean time ({' / '.join(clocks)} s, the clock of the time "
        "limit) to the exact FFA of MARCO-A, -C and -S over the complete runs (published: the "
        "marco_*_time_mean_s columns). Runs stopped by the time limit are censored: "
        "marco_*_complete counts them out, and marco_*_time_mean_lb_s, which counts each at "
        "its time limit, is a lower bound of the mean over all runs.",
        code_versions=_code_versions(agg.metas, ["dataset"], models),
    )
    write_table(
        summary_table(agg.metas, agg.notes),
        "ffa_summary",
        table_dir,
        caption="One row per (dataset, method): anytime FFA runs by status, verification and "
        "explanation counts (nothing published).",
        code_versions=_code_versions(agg.metas, ["dataset", "method"], models),
    )
    return figs


def _code_versions(records: Sequence[Mapping], keys: list[str],
                   models: Mapping[str, Mapping] | None) -> list[set[str]]:
    """Per group of ``keys`` (in the tables' sorted order), the code versions of its run
    records and of its dataset's model."""
    groups: dict[tuple, set[str]] = {}
    for r in records:
        found = groups.setdefault(tuple(r[k] for k in keys), set())
        found.add(stamped(r))
        if models is not None and r["dataset"] in models:
            found.add(stamped(models[r["dataset"]]))
    return [groups[k] for k in sorted(groups)]
