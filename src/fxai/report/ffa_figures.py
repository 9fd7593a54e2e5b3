"""Figures 1-10 of the anytime-FFA paper: the instances' curves (averaged by
:func:`fxai.metrics.curves.average_instances`) over all instances and per dataset, one line
per method. The curves come from :mod:`fxai.experiments.ffa_runs`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from fxai.metrics.curves import average_instances
from fxai.report.canvas import new_figure

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



def _draw(ax, avg: Mapping[str, tuple[np.ndarray, np.ndarray]], log_time: bool) -> None:
    for m in LABELS:
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
