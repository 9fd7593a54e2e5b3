"""The anytime-FFA report: Table 1 of the paper (mean time to the exact FFA per dataset and
method) and the run summary, from the run and check records (read by
:mod:`fxai.experiments.ffa_runs`), beside Figures 1-10 and the FFA pictures
(:mod:`fxai.report.ffa_figures`, :mod:`fxai.report.ffa_pictures`).

* Table 1 (``ffa_table1_runtime``): mean time to the exact FFA (the whole enumeration,
  complete runs only) per dataset and method, on the runs' clock (``ffa.clock``, also the
  clock of their time limit), with the paper's values beside ours; runs stopped by the time
  limit are censored: ``<method>_complete`` counts them out and ``<method>_time_mean_lb_s``,
  which counts each at its time limit, is a lower bound of the mean over all runs. Also the
  mean #AXps/#CXps of the complete runs and, given the models' meta, the hardness columns
  (features used, distinct thresholds, beside the paper's models).
* ``ffa_summary``: per dataset and method, runs, complete / timeout / error counts, the
  verified runs and explanations (check records of ``fxai ffa-verify``), mean numbers of
  AXps and CXps, switches, exact-FFA disagreements.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from fxai.experiments.ffa_runs import METHODS, collect, load_runs
from fxai.files import read_json
from fxai.metrics.censored import censored_mean
from fxai.version import stamped

LOG = logging.getLogger("fxai.ffa_report")


def significant(x: float, digits: int = 3) -> float:
    """``x`` to ``digits`` significant digits (times of any size stay distinguishable)."""
    return float(f"{x:.{digits}g}")


def _col(method: str, what: str) -> str:
    return f"{method.replace('-', '_')}_{what}"


def runtime_table(records: Sequence[Mapping], models: Mapping[str, Mapping] | None = None,
                  paper: pd.DataFrame | None = None,
                  published: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Mean time to exact FFA (complete runs) per dataset and method, with counts; the mean
    numbers of AXps and CXps at the end of the complete runs; and, given the models' meta
    (``{dataset: meta}``) and the paper's models (``data/reference/ffa_models.csv``, under
    the names ``published`` maps lower-cased dataset names to), what makes an instance hard:
    features used of all, distinct thresholds, and the paper's."""
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
            row |= _hardness((published or {}).get(ds.lower(), ds), models.get(ds), paper)
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
    from fxai.report.ffa_figures import plot_figures
    from fxai.report.ffa_pictures import PICTURES, image_shapes, plot_pictures
    from fxai.report.tables import alias_map, write_table

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
        runtime_table(agg.metas, models, _paper_models() if models is not None else None,
                      alias_map(registry) if registry else None),
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
