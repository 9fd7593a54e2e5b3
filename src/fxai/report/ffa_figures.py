"""Figures 1-10 and Table 1 of the anytime-FFA paper from the run records of ``fxai ffa-run``
and their check records.

* The exact FFA of an instance comes from the AXps of its *complete* runs; when several
  methods completed, their AXp sets must agree (disagreements are counted in the summary
  and the first complete run in the order MARCO-A, -C, -S is used).
* Curves (:mod:`fxai.metrics.curves`) are averaged over the instances that have a run of
  every method without error and a known exact FFA, each instance weighted equally:
  figures 1-5 over all such instances, figures 6-10 one panel per dataset.
* Table 1: mean time to the exact FFA (the whole enumeration, complete runs only) per
  dataset and method, with the paper's values beside ours (``ffa_table1_runtime``), the
  mean #AXps/#CXps of the complete runs and, given the models' meta, the hardness columns
  (features used, distinct thresholds, beside the paper's models).
* ``ffa_summary.csv/.md``: per dataset and method, runs, complete / timeout / error counts,
  the verified runs and explanations (check records of ``fxai ffa-verify``), mean numbers
  of AXps and CXps, switches,
  exact-FFA disagreements.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from fxai.explain import ffa_from_axps  # noqa: E402
from fxai.metrics.curves import average_instances, instance_curves  # noqa: E402

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


def load_runs(paths: Iterable[str | Path], checks: Iterable[str | Path] = ()) -> list[dict]:
    """The run records (one JSON object per file), with the fields of their check records
    (``fxai ffa-verify``) merged in; a run without a check record has ``verified`` None."""
    found = {}
    for p in checks:
        c = json.loads(Path(p).read_text())
        found[c["dataset"], c["method"], c["instance"]] = c
    records = []
    for p in paths:
        r = json.loads(Path(p).read_text())
        c = found.get((r.get("dataset"), r.get("method"), r.get("instance")), {})
        records.append(r | {k: c.get(k) for k in CHECK_FIELDS})
    return records


def by_instance(records: Iterable[Mapping]) -> dict[tuple[str, int], dict[str, Mapping]]:
    """``{(dataset, row id): {method: record}}``."""
    out: dict[tuple[str, int], dict[str, Mapping]] = {}
    for r in records:
        out.setdefault((r["dataset"], int(r["instance"])), {})[r["method"]] = r
    return out


def exact_ffa(runs: Mapping[str, Mapping]) -> tuple[dict[int, float], int, bool] | None:
    """(exact FFA, number of AXps, complete runs agree) or None without a complete run."""
    done = [runs[m] for m in METHODS if m in runs and runs[m].get("complete")]
    if not done:
        return None
    sets = [frozenset(tuple(a) for a in r["axps"]) for r in done]
    agree = all(s == sets[0] for s in sets)
    return ffa_from_axps(sorted(sets[0])), len(sets[0]), agree


def collect(records: Sequence[Mapping], variant: str = "paper"):
    """Per-dataset lists of instance curves, and per-dataset counts of the exclusions."""
    curves: dict[str, list] = {}
    notes: dict[str, dict[str, int]] = {}
    for (ds, _), runs in sorted(by_instance(records).items()):
        n = notes.setdefault(
            ds, {"instances": 0, "used": 0, "no_exact": 0, "missing_or_error": 0, "disagree": 0}
        )
        n["instances"] += 1
        ok = {m: runs[m] for m in METHODS if m in runs and runs[m].get("status") != "error"}
        ex = exact_ffa(ok)
        if ex is None:
            n["no_exact"] += 1
            continue
        n["disagree"] += not ex[2]
        if len(ok) < len(METHODS):
            n["missing_or_error"] += 1
            continue
        events = {m: r["events"] for m, r in ok.items()}
        curves.setdefault(ds, []).append(instance_curves(events, ex[0], ex[1], variant))
        n["used"] += 1
    return curves, notes


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
    ax.set_xlim(0, 1)
    ax.set_xlabel("normalised time")
    ax.grid(alpha=0.3)


def _save(fig, png: Path) -> None:
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, dpi=150, bbox_inches="tight")
    fig.savefig(png.with_suffix(".pdf"), bbox_inches="tight")
    plt.close(fig)


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
        fig, ax = plt.subplots(figsize=(4.5, 3.4))
        _draw(ax, pooled.get(metric, {}), log_time)
        ax.set_ylabel(ylabel)
        ax.set_title(f"Figure {n_avg}: {ylabel} ({n_all} instances, {variant} metrics)", fontsize=8)
        if n_all:
            ax.legend(fontsize=7)
        path = fig_dir / f"ffa_fig{n_avg}_{metric}.png"
        _save(fig, path)
        written.append(path)
        names = sorted(curves) or ["(no data)"]
        fig, axes = plt.subplots(1, len(names), figsize=(3.6 * len(names), 3.2), squeeze=False)
        for i, (ax, ds) in enumerate(zip(axes[0], names, strict=True)):
            _draw(ax, per_ds.get(ds, {}).get(metric, {}), log_time)
            ax.set_title(
                f"({chr(97 + i)}) {DISPLAY.get(ds, ds)} ({len(curves.get(ds, []))})", fontsize=9
            )
            if i == 0:
                ax.set_ylabel(ylabel)
                ax.legend(fontsize=7)
        fig.suptitle(f"Figure {n_ds}: {ylabel} per dataset ({variant} metrics)", fontsize=9)
        path = fig_dir / f"ffa_fig{n_ds}_{metric}.png"
        _save(fig, path)
        written.append(path)
    return written


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
                "time_s": r.get("time_s"),
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
                round(float(done["time_s"].mean()), 2) if len(done) else np.nan
            )
            row[_col(m, "complete")] = f"{len(done)}/{len(gm)}"
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
    model_metas: Iterable[str | Path] | None = None,
) -> list[Path]:
    """Figures 1-10, Table 1 and the run summary from the run files; returns figure paths.
    ``model_metas`` (the ensembles' meta JSON) add the hardness columns to Table 1."""
    from fxai.report.tables import write_table

    records = load_runs(run_paths, check_paths)
    if not records:
        raise ValueError("no FFA run records given")
    curves, notes = collect(records, variant)
    for ds, n in notes.items():
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
    figs = plot_figures(curves, fig_dir, variant, log_time)
    models = None
    if model_metas is not None:
        models = {}
        for p in model_metas:
            meta = json.loads(Path(p).read_text())
            models[meta["dataset"]] = meta
    write_table(
        runtime_table(records, models, _paper_models() if models is not None else None),
        "ffa_table1_runtime",
        table_dir,
        reference=reference,
        caption="Average runtime (s) to the exact FFA per dataset (complete runs).",
    )
    write_table(
        summary_table(records, notes),
        "ffa_summary",
        table_dir,
        caption="Anytime FFA runs: status, verification and explanation counts.",
    )
    return figs
