"""Figures the papers lack, drawn from the run files: NBC δ-relevant sets and XpG enumeration.

Each figure function takes run records (dicts as in docs/design.md) and an output stem and writes
``<stem>.png`` and ``<stem>.pdf``; with no usable records it writes an empty-state figure
saying so. ``make_figure(name, results_root, out_dir)`` draws one named figure of a profile.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

import matplotlib
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator

from fxai.report.canvas import new_figure
from fxai.report.results import Results

WIDTH_IN = 6.75  # a two-column paper's text width
STYLE = {
    "font.size": 8,
    "axes.titlesize": 8,
    "axes.labelsize": 8,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "legend.fontsize": 7,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "figure.constrained_layout.use": True,
}
MODEL_COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple")


def _save(fig: Figure, stem: Path) -> list[Path]:
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_name(stem.name + ".png"), stem.with_name(stem.name + ".pdf")]
    fig.savefig(paths[0], dpi=200, bbox_inches="tight")
    fig.savefig(paths[1], bbox_inches="tight")
    return paths


def empty_figure(stem: str | Path, title: str, reason: str) -> list[Path]:
    """A small figure that says why there is nothing to show."""
    with matplotlib.rc_context(STYLE):
        fig, ax = new_figure(figsize=(WIDTH_IN, 1.6))
        ax.set_axis_off()
        ax.set_title(title)
        ax.text(0.5, 0.5, reason, ha="center", va="center", transform=ax.transAxes)
        return _save(fig, Path(stem))


def _done(records: Iterable[dict]) -> list[dict]:
    return [r for r in records if r.get("status") == "done"]


def paxp_rows(records: Iterable[dict]) -> list[dict]:
    """One row per (record, δ, target) ApproxPAXp result."""
    rows = []
    for rec in _done(records):
        results = rec.get("approx_paxp") or []
        for res in results if isinstance(results, list) else [results]:
            if res.get("features") is None or res.get("delta") is None:
                continue
            precision = res.get("precision")
            rows.append(
                {
                    "dataset": rec.get("dataset"),
                    "delta": float(res["delta"]),
                    "target": res.get("target"),
                    "length": len(res["features"]),
                    "precision": None if precision is None else float(precision),
                }
            )
    return rows


def _targets(rows: list[dict]) -> list:
    return sorted({r["target"] for r in rows}, key=lambda t: (t is None, t if t else 0))[::-1]


def nbc_length_vs_delta(records: Iterable[dict], stem: str | Path) -> list[Path]:
    """Mean ApproxPAXp length (± sd) against δ, one panel per target size, one line per
    dataset; the dotted line is the target size."""
    rows = paxp_rows(records)
    title = "NBC: ApproxPAXp length vs δ"
    if not rows:
        return empty_figure(stem, title, "no NBC runs with approx_paxp results in this profile")
    targets = _targets(rows)
    datasets = sorted({r["dataset"] for r in rows})
    all_deltas = sorted({r["delta"] for r in rows})
    step = min(np.diff(all_deltas), default=0.02) / (len(datasets) + 1)
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(
            1, len(targets), figsize=(WIDTH_IN, 2.4), sharey=True, squeeze=False
        )
        for ax, target in zip(axes[0], targets, strict=True):
            for i, ds in enumerate(datasets):
                by_delta: dict[float, list[int]] = defaultdict(list)
                for r in rows:
                    if r["dataset"] == ds and r["target"] == target:
                        by_delta[r["delta"]].append(r["length"])
                if not by_delta:
                    continue
                deltas = sorted(by_delta)
                mean = [np.mean(by_delta[d]) for d in deltas]
                sd = [np.std(by_delta[d]) for d in deltas]
                # datasets side by side around each δ so that error bars stay readable
                dodge = (i - (len(datasets) - 1) / 2) * 0.8 * step
                ax.errorbar(
                    [d + dodge for d in deltas],
                    mean,
                    yerr=sd,
                    marker="o",
                    ms=3,
                    capsize=2,
                    lw=1,
                    label=ds,
                    color=matplotlib.colormaps["tab10"](i % 10),
                )
            if target is not None:
                ax.axhline(target, ls=":", color="grey", lw=1, label="target size")
            ax.set_title(f"target ≤ {target}" if target is not None else "no target")
            ax.set_xticks(all_deltas, [f"{d:g}" for d in all_deltas])
            ax.set_xlabel("δ")
        axes[0][0].set_ylabel("explanation length (features)")
        handles, labels = axes[0][0].get_legend_handles_labels()
        for ax in axes[0][1:]:
            for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
                if lab not in labels:
                    handles.append(h)
                    labels.append(lab)
        fig.legend(handles, labels, loc="outside right upper", frameon=False)
        fig.suptitle(title)
        return _save(fig, Path(stem))


def nbc_precision(records: Iterable[dict], stem: str | Path) -> list[Path]:
    """Precision (%) of every ApproxPAXp per δ (jittered points over all datasets and
    instances, with a box of the trimmed ones, i.e. precision < 100 %), one panel per target
    size; red bars mark δ, the number on top is the share of explanations at 100 %."""
    rows = [r for r in paxp_rows(records) if r["precision"] is not None]
    title = "NBC: ApproxPAXp precision per δ"
    if not rows:
        return empty_figure(stem, title, "no NBC runs with ApproxPAXp precision in this profile")
    scale = 100.0 if max(r["precision"] for r in rows) <= 1.0 else 1.0
    targets = _targets(rows)
    deltas = sorted({r["delta"] for r in rows})
    rng = np.random.default_rng(0)  # jitter only
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(
            1, len(targets), figsize=(WIDTH_IN, 2.6), sharey=True, squeeze=False
        )
        for ax, target in zip(axes[0], targets, strict=True):
            for j, d in enumerate(deltas):
                vals = np.array(
                    [
                        scale * r["precision"]
                        for r in rows
                        if r["target"] == target and r["delta"] == d
                    ]
                )
                if not vals.size:
                    continue
                ax.scatter(
                    j + rng.uniform(-0.25, 0.25, vals.size),
                    vals,
                    s=3,
                    alpha=0.35,
                    color="tab:blue",
                    linewidths=0,
                    label="one ApproxPAXp" if j == 0 else None,
                )
                trimmed = vals[vals < 100.0 - 1e-9]
                if trimmed.size:
                    ax.boxplot(
                        trimmed,
                        positions=[j],
                        widths=0.6,
                        showfliers=False,
                        medianprops={"color": "black"},
                    )
                ax.text(
                    j,
                    100.4,
                    f"{np.mean(vals >= 100.0 - 1e-9):.0%}",
                    ha="center",
                    va="bottom",
                    fontsize=6,
                    color="grey",
                )
            ax.scatter(
                range(len(deltas)),
                [100 * d for d in deltas],
                marker="_",
                s=200,
                color="tab:red",
                zorder=3,
                label="δ (least precision asked)",
            )
            ax.set_xticks(range(len(deltas)), [f"{d:g}" for d in deltas])
            ax.set_xlabel("δ")
            ax.set_title(f"target ≤ {target}" if target is not None else "no target", pad=10)
        axes[0][0].set_ylabel("precision (%)")
        fig.legend(
            *axes[0][0].get_legend_handles_labels(), loc="outside right upper", frameon=False
        )
        fig.text(0.01, 0.0, "grey numbers: share of the ApproxPAXps at 100 % precision; "
                 "boxes: those below 100 %", fontsize=6, color="grey", va="top")
        fig.suptitle(title)
        return _save(fig, Path(stem))


def slim(record: dict) -> dict:
    """A run record without its explanation lists, events and instance values: ``axps`` /
    ``cxps`` become their counts ``n_axps``/``n_cxps`` (what the figures need), so a
    section's records fit in memory whatever the runs found."""
    out = {k: v for k, v in record.items() if k not in ("axps", "cxps", "events", "x")}
    for key in ("axps", "cxps"):
        if key in record:
            out[f"n_{key}"] = len(record[key] or [])
    return out


def _has(record: dict, field: str) -> bool:
    return field in record or f"n_{field}" in record


def _count(record: dict, field: str) -> int:
    """Number of explanations of a kind in a full or slim record."""
    if f"n_{field}" in record:
        return int(record[f"n_{field}"])
    return len(record.get(field) or [])


def _xpg_groups(records: Iterable[dict]) -> dict[str, list[dict]]:
    """Finished records by "dataset (model)", ordered by model then dataset."""
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for rec in _done(records):
        groups[(str(rec.get("model")), str(rec.get("dataset")))].append(rec)
    return {f"{ds} ({model})": groups[(model, ds)] for model, ds in sorted(groups)}


def _model_colour(label: str, models: list[str]) -> str:
    model = label.rsplit("(", 1)[-1].rstrip(")")
    return MODEL_COLOURS[models.index(model) % len(MODEL_COLOURS)]


def _hbox(ax, data: list[list[float]], labels: list[str], models: list[str]) -> None:
    """Horizontal box plots, first label on top, boxes coloured by model."""
    parts = ax.boxplot(
        data,
        orientation="horizontal",
        widths=0.6,
        patch_artist=True,
        flierprops={"markersize": 2},
        medianprops={"color": "black"},
    )
    for patch, label in zip(parts["boxes"], labels, strict=True):
        patch.set_facecolor(_model_colour(label, models))
        patch.set_alpha(0.6)
    ax.set_yticks(np.arange(1, len(labels) + 1), labels)
    if not ax.yaxis_inverted():  # axes sharing y are inverted once
        ax.invert_yaxis()


def xpg_xp_counts(records: Iterable[dict], stem: str | Path) -> list[Path]:
    """Number of AXps and of CXps per instance, per dataset and model (box plots)."""
    groups = _xpg_groups(records)
    groups = {k: v for k, v in groups.items() if any(_has(r, "axps") for r in v)}
    title = "XpG: explanations per instance"
    if not groups:
        return empty_figure(stem, title, "no XpG runs with enumerated AXps/CXps in this profile")
    labels = list(groups)
    models = sorted({lab.rsplit("(", 1)[-1].rstrip(")") for lab in labels})
    height = 1.0 + 0.22 * len(labels)
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(1, 2, figsize=(WIDTH_IN, height), sharey=True)
        for ax, field, name in zip(axes, ("axps", "cxps"), ("AXps", "CXps"), strict=True):
            data = [[_count(r, field) for r in groups[lab]] for lab in labels]
            _hbox(ax, data, labels, models)
            ax.set_xlabel(f"{name} per instance")
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_xlim(left=0)
        fig.suptitle(title)
        return _save(fig, Path(stem))


def _xpg_time(record: dict) -> float | None:
    """An XpG record's time on the clock of its time limit (``clock``; records without one
    ran on the wall clock, ``time_s``)."""
    return record.get("cpu_s" if record.get("clock") == "cpu" else "time_s")


def xpg_runtime(records: Iterable[dict], stem: str | Path) -> list[Path]:
    """Time to enumerate all XPs of an instance (log scale), per dataset and model, on the
    runs' clock (``xpg.clock``)."""
    groups = {
        k: [r for r in v if _xpg_time(r) is not None] for k, v in _xpg_groups(records).items()
    }
    groups = {k: v for k, v in groups.items() if v}
    title = "XpG: enumeration time per instance"
    if not groups:
        return empty_figure(stem, title, "no XpG runs with a time_s in this profile")
    labels = list(groups)
    models = sorted({lab.rsplit("(", 1)[-1].rstrip(")") for lab in labels})
    with matplotlib.rc_context(STYLE):
        fig, ax = new_figure(figsize=(WIDTH_IN / 1.6, 1.0 + 0.22 * len(labels)))
        data = [[max(float(_xpg_time(r)), 1e-6) for r in groups[lab]] for lab in labels]
        clocks = sorted({r.get("clock", "wall") for v in groups.values() for r in v})
        _hbox(ax, data, labels, models)
        ax.set_xscale("log")
        ax.set_xlabel(f"{' / '.join(clocks)} time (s, log scale)")
        ax.set_title(title)
        return _save(fig, Path(stem))


FIGURES: dict[str, tuple[str, Callable[[Iterable[dict], str | Path], list[Path]]]] = {
    "nbc_length_vs_delta": ("nbc", nbc_length_vs_delta),
    "nbc_precision": ("nbc", nbc_precision),
    "xpg_xp_counts": ("xpg", xpg_xp_counts),
    "xpg_runtime": ("xpg", xpg_runtime),
}


def make_figure(
    name: str, results_root: str | Path, out_dir: str | Path | None = None
) -> list[Path]:
    """Draw figure ``name`` (a key of ``FIGURES``) from ``<results_root>/runs/<section>/``
    into ``out_dir`` (default ``<results_root>/figures``)."""
    if name not in FIGURES:
        raise ValueError(f"unknown figure {name!r}; known: {sorted(FIGURES)}")
    section, draw = FIGURES[name]
    root = Path(results_root)
    root.mkdir(parents=True, exist_ok=True)
    records = [slim(r) for r in Results(root).iter_records(section)]
    return draw(records, Path(out_dir or root / "figures") / name)


CROSS_ALGORITHMS = (  # (column label, time column, scale to seconds, completion column)
    ("one AXp", "axp_ms", 1e-3, None),
    ("one CXp", "cxp_ms", 1e-3, None),
    ("MARCO-A", "marco-a_s", 1.0, "marco-a_complete_pct"),
    ("MARCO-C", "marco-c_s", 1.0, "marco-c_complete_pct"),
    ("MARCO-S", "marco-s_s", 1.0, "marco-s_complete_pct"),
    ("ApproxPAXp", "paxp_ms", 1e-3, None),
)


def cross_matrix(table) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Row labels, mean CPU seconds per instance ``[row, algorithm]`` (NaN: not run) and the
    completion % of the enumerations (NaN for the single-explanation algorithms)."""
    labels = [f"{f}: {d}" for f, d in zip(table["family"], table["dataset"], strict=True)]
    secs = np.full((len(table), len(CROSS_ALGORITHMS)), np.nan)
    done = np.full_like(secs, np.nan)
    for j, (_, col, scale, comp) in enumerate(CROSS_ALGORITHMS):
        if col in table:
            secs[:, j] = table[col].astype(float).to_numpy() * scale
        if comp and comp in table:
            done[:, j] = table[comp].astype(float).to_numpy()
    return labels, secs, done


def cross_algorithms(table, stem: str | Path) -> list[Path]:
    """Heat map of the mean CPU time per instance, one row per (model family, dataset) and one
    column per algorithm (log colour scale, the time written in each cell); an enumeration
    that did not complete on every instance has a dashed red frame and its completion %; the last
    column marks whether the complete runs agree on the exact FFA (✓ all, else the %)."""
    title = "Every algorithm on every model: mean CPU time per instance"
    if table is None or not len(table):
        return empty_figure(stem, title, "no cross-algorithm runs in this profile")
    labels, secs, done = cross_matrix(table)
    agree = table["ffa_methods_agree_pct"].astype(float).to_numpy()
    with matplotlib.rc_context(STYLE):
        fig, ax = new_figure(figsize=(WIDTH_IN, 0.9 + 0.3 * len(labels)))
        logt = np.log10(np.clip(secs, 1e-6, None))
        im = ax.imshow(np.ma.masked_invalid(logt), cmap="viridis_r", aspect="auto")
        for i in range(len(labels)):
            for j in range(len(CROSS_ALGORITHMS)):
                if np.isnan(secs[i, j]):
                    ax.text(j, i, "–", ha="center", va="center", fontsize=6, color="grey")
                    continue
                text = _seconds(secs[i, j])
                if not np.isnan(done[i, j]) and done[i, j] < 100:
                    text += f"\n{done[i, j]:.0f}% complete"
                    ax.add_patch(Rectangle((j - 0.45, i - 0.42), 0.9, 0.84, fill=False,
                                               edgecolor="tab:red", lw=1.2, ls="--"))
                ax.text(j, i, text, ha="center", va="center", fontsize=6,
                        color="white" if im.norm(logt[i, j]) > 0.5 else "black")
            mark = "" if np.isnan(agree[i]) else ("✓" if agree[i] >= 100 else f"✗ {agree[i]:.0f}%")
            ax.text(len(CROSS_ALGORITHMS) - 0.3, i, mark, ha="left", va="center", fontsize=6,
                    color="tab:green" if mark == "✓" else "tab:red")
        ax.set_xticks(range(len(CROSS_ALGORITHMS)), [c[0] for c in CROSS_ALGORITHMS])
        ax.set_yticks(range(len(labels)), labels)
        ax.set_xlim(-0.5, len(CROSS_ALGORITHMS) + 0.3)
        ax.text(len(CROSS_ALGORITHMS) - 0.3, -0.8, "FFA agree", fontsize=6, ha="left")
        ax.tick_params(axis="x", top=True, bottom=False, labeltop=True, labelbottom=False)
        fig.colorbar(im, ax=ax, label="log10 CPU s per instance", shrink=0.8)
        ax.set_title(title)
        return _save(fig, Path(stem))


def _seconds(s: float) -> str:
    return f"{s * 1000:.3g} ms" if s < 1 else f"{s:.3g} s"


def user_features(table, stem: str | Path) -> list[Path]:
    """One panel per (model family, dataset) of the user's datasets: per feature (the user's
    column names) the mean exact FFA over the explained instances, and the share of
    instances whose first AXp holds the feature."""
    title = "Your datasets: feature attribution (FFA) and AXp membership"
    if table is None or not len(table):
        return empty_figure(stem, title, "no user dataset in this profile")
    groups = list(table.groupby(["family", "dataset"], sort=True))
    with matplotlib.rc_context(STYLE):
        height = sum(0.6 + 0.22 * len(g) for _, g in groups)
        fig, axes = new_figure(len(groups), 1, figsize=(WIDTH_IN, height), squeeze=False)
        for ax, ((family, ds), g) in zip(axes[:, 0], groups, strict=True):
            y = np.arange(len(g))
            ax.barh(y - 0.2, g["ffa_mean"].astype(float).fillna(0), 0.4, label="mean FFA")
            ax.barh(y + 0.2, g["in_axp_pct"].astype(float) / 100, 0.4,
                    label="share in AXp", color="tab:orange")
            ax.set_yticks(y, g["feature"])
            ax.invert_yaxis()
            ax.set_xlim(0, 1)
            ax.set_title(f"{family} / {ds}", fontsize=8)
        axes[0, 0].legend(fontsize=6, loc="lower right")
        fig.suptitle(title)
        return _save(fig, Path(stem))


def ffa_bars(rows: list[dict], folder: str | Path) -> None:
    """Per explained row of ``fxai explain`` (``row``, ``prediction``, ``ffa``, ``complete``),
    horizontal bars of its FFA (features by decreasing attribution) in
    ``folder/row_<row>.png``, each written atomically."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for rec in rows:
        items = sorted(rec["ffa"].items(), key=lambda kv: (-kv[1], kv[0]))
        names = [k for k, _ in items] or ["(no feature)"]
        values = [v for _, v in items] or [0.0]
        fig = Figure(figsize=(5, 0.4 * len(names) + 1.2))
        ax = fig.add_subplot()
        ax.barh(names[::-1], values[::-1], color="#4c72b0")
        ax.set_xlim(0, 1)
        ax.set_xlabel("FFA: share of the AXps containing the feature"
                      + ("" if rec["complete"] else " (incomplete)"))
        ax.set_title(f"row {rec['row']}: predicted {rec['prediction']}")
        fig.tight_layout()
        path = folder / f"row_{rec['row']}.png"
        tmp = path.with_name(f".{path.name}.tmp.png")
        fig.savefig(tmp, dpi=100)
        os.replace(tmp, path)
