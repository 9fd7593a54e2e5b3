"""Figures of the attribution audit (``fxai audit-table``): the per-instance gap between
relevant and irrelevant features, and a heat map of disagreement rates."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd

from fxai.report.canvas import new_figure
from fxai.report.figures import MODEL_COLOURS, STYLE, WIDTH_IN, _save, empty_figure

HEURISTIC_FIRST = ("shap", "lime", "shapley", "shapley_background")


def score_order(names) -> list[str]:
    """Heuristic and Shapley scores first, then the formal ones, then user scores."""
    names = list(dict.fromkeys(names))
    first = [n for n in HEURISTIC_FIRST if n in names]
    formal = [n for n in ("ffa", "holler_packel", "deegan_packel", "responsibility")
              if n in names]
    return first + formal + sorted(n for n in names if n not in first + formal)


def audit_gap(tidy: pd.DataFrame, stem: str | Path) -> list[Path]:
    """Per dataset, each instance's gap (min relevant − max irrelevant |score|, divided by the
    largest |score|) per score, one colour per model family: below 0, an irrelevant feature
    outranks a relevant one."""
    title = "Gap between the worst-scored relevant and the best-scored irrelevant feature"
    data = tidy.dropna(subset=["gap"]) if "gap" in tidy else tidy.iloc[0:0]
    if not len(data):
        return empty_figure(stem, title, "no instance with relevant and irrelevant features")
    datasets = sorted(data["dataset"].unique())
    families = sorted(data["family"].unique())
    scores = score_order(data["score"])
    rng = np.random.default_rng(0)
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(len(datasets), 1, sharex=True, squeeze=False,
                                 figsize=(WIDTH_IN, 0.6 + 1.5 * len(datasets)))
        for ax, ds in zip(axes[:, 0], datasets, strict=True):
            d = data[data["dataset"] == ds]
            for k, fam in enumerate(families):
                f = d[d["family"] == fam]
                x = np.array([scores.index(s) for s in f["score"]], dtype=float)
                x += (k - (len(families) - 1) / 2) * 0.18 + rng.uniform(-0.05, 0.05, x.size)
                ax.scatter(x, f["gap"], s=4, alpha=0.5, color=MODEL_COLOURS[k % 5],
                           label=fam if ds == datasets[0] else None, linewidths=0)
            ax.axhline(0, color="grey", lw=0.6)
            ax.set_ylim(-1.05, 1.05)
            ax.set_ylabel(f"{ds}\ngap")
        axes[-1, 0].set_xticks(range(len(scores)), scores, rotation=30, ha="right")
        axes[0, 0].legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), markerscale=3)
        axes[0, 0].set_title(title)
        return _save(fig, Path(stem))


def audit_disagreement(summary: pd.DataFrame, stem: str | Path) -> list[Path]:
    """Heat maps over (family, dataset) x score: % of instances where an irrelevant feature
    scores strictly above a relevant one, and where an irrelevant one scores non-zero."""
    title = "Disagreement with formal relevancy (% of instances)"
    if summary is None or not len(summary):
        return empty_figure(stem, title, "no audit runs in this profile")
    scores = score_order(summary["score"])
    keys = sorted({(f, d) for f, d in zip(summary["family"], summary["dataset"], strict=True)})
    panels = (("irr_gt_pct", "irrelevant > relevant"), ("irr_nonzero_pct",
                                                         "irrelevant non-zero"))
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(1, 2, figsize=(WIDTH_IN, 1.9 + 0.28 * len(keys)))
        for ax, (col, label) in zip(axes, panels, strict=True):
            grid = np.full((len(keys), len(scores)), np.nan)
            for _, r in summary.iterrows():
                grid[keys.index((r["family"], r["dataset"])), scores.index(r["score"])] = r[col]
            im = ax.imshow(np.ma.masked_invalid(grid), cmap="Reds", vmin=0, vmax=100,
                           aspect="auto")
            for i in range(len(keys)):
                for j in range(len(scores)):
                    if not np.isnan(grid[i, j]):
                        ax.text(j, i, f"{grid[i, j]:.0f}", ha="center", va="center",
                                fontsize=5, color="white" if grid[i, j] > 60 else "black")
            ax.set_xticks(range(len(scores)), scores, rotation=60, ha="right", fontsize=6)
            ax.set_yticks(range(len(keys)), [f"{f} {d}" for f, d in keys], fontsize=6)
            ax.set_title(label)
        fig.colorbar(im, ax=axes, shrink=0.8, label="% of instances")
        fig.suptitle(title, fontsize=8)
        return _save(fig, Path(stem))
