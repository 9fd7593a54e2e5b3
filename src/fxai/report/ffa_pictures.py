"""FFA pictures: the exact FFA and the approximate FFA of MARCO-A, -C and -S at a few
normalised times, as heat maps over the explained image, next to the image itself.

One instance per image dataset (the smallest row id among the instances in figures 1-10) is
drawn: a block of three rows (one per method) and the columns *image*, *exact FFA*, then the
approximate FFA at each time of ``TIMES``. Time is normalised as in figures 1-10 (by the
instance's largest AXp-discovery time among the methods), and the approximate FFA at time
τ is the one after the last AXp found at or before τ among the steps the curves use.
A dataset draws when the registry says it is an image (``kind: image`` with ``image.size``,
or derived from scikit-learn's 8x8 ``digits``); see :func:`image_shapes`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from fxai.metrics.curves import AxpSteps, steps_scale
from fxai.report.canvas import new_figure
from fxai.report.ffa_figures import LABELS

PICTURES = "ffa_pictures.png"
TIMES = (0.1, 0.25, 0.5, 0.75)
CMAP = "viridis"


def image_shapes(datasets: Iterable[str], registry_path: str | Path) -> dict[str, tuple[int, int]]:
    """``{dataset: (height, width)}`` of the datasets the registry marks as images (names it
    does not know are not images)."""
    from fxai.data.registry import load_registry

    reg = load_registry(registry_path)
    out = {}
    for ds in datasets:
        if ds.lower() not in reg.aliases:
            continue
        entry = reg.entry(ds)
        if entry.get("kind") == "image":
            side = int((entry.get("image") or {}).get("size", 10))
            out[ds] = (side, side)
        elif entry.get("base_name", entry["name"]) == "digits":
            out[ds] = (8, 8)
    return out


def approx_at(steps: AxpSteps, scale: float, tau: float) -> dict[int, float]:
    """The approximate FFA at normalised time ``tau`` (empty before the first AXp)."""
    i = int(np.searchsorted(steps.t / scale, tau, side="right")) - 1
    return steps.ffa(i) if i >= 0 else {}


def as_image(ffa: Mapping[int, float], shape: tuple[int, int]) -> np.ndarray:
    """An FFA (feature -> value) as an array of the image's shape (row-major pixels)."""
    img = np.zeros(shape[0] * shape[1])
    for f, v in ffa.items():
        img[int(f)] = v
    return img.reshape(shape)


def panels(picture, shape: tuple[int, int]) -> dict[tuple[str, str], np.ndarray]:
    """The arrays drawn for one instance: ``("image"|"exact", "")`` and ``(method, tau)``."""
    scale = steps_scale(picture.steps)
    out = {("image", ""): np.asarray(picture.x, dtype=float).reshape(shape),
           ("exact", ""): as_image(picture.exact, shape)}
    for m, st in picture.steps.items():
        for tau in TIMES:
            out[m, f"{tau:g}"] = as_image(approx_at(st, scale, tau), shape)
    return out


def plot_pictures(pictures: Mapping, shapes: Mapping[str, tuple[int, int]],
                  png: str | Path) -> Path:
    """Write the pictures of every image dataset (PNG + PDF); an empty-state figure when the
    profile has no image dataset with a usable instance."""
    png = Path(png)
    png.parent.mkdir(parents=True, exist_ok=True)
    names = sorted(ds for ds in pictures if ds in shapes)
    if not names:
        fig, ax = new_figure(figsize=(6, 1.2))
        ax.set_axis_off()
        ax.text(0.5, 0.5, "FFA pictures: no image dataset with an exact FFA and all three "
                "runs in this profile", ha="center", va="center", fontsize=8)
    else:
        ncol = 2 + len(TIMES)
        nrow = len(LABELS) * len(names)
        fig, axes = new_figure(nrow, ncol, figsize=(1.4 * ncol + 0.8, 1.3 * nrow),
                                 squeeze=False, gridspec_kw={"wspace": 0.3})
        heat = None
        for b, ds in enumerate(names):
            pic, shape = pictures[ds], shapes[ds]
            if len(pic.x) != shape[0] * shape[1]:
                raise ValueError(f"{ds}: {len(pic.x)} features, not a {shape[0]}x{shape[1]} "
                                 "image as the registry says")
            arrays = panels(pic, shape)
            for r, m in enumerate(LABELS):
                row = axes[b * len(LABELS) + r]
                for ax in row:
                    ax.set_xticks([])
                    ax.set_yticks([])
                if r == 0:
                    row[0].imshow(arrays["image", ""], cmap="gray")
                    row[0].set_title(f"{ds} row {pic.instance}", fontsize=7)
                    heat = _heat(row[1], arrays["image", ""], arrays["exact", ""])
                    row[1].set_title("exact FFA", fontsize=7)
                else:
                    row[0].set_axis_off()
                    row[1].set_axis_off()
                row[2].set_ylabel(LABELS[m], fontsize=7)
                for j, tau in enumerate(TIMES):
                    ax = row[2 + j]
                    if m in pic.steps:
                        _heat(ax, arrays["image", ""], arrays[m, f"{tau:g}"])
                    if r == 0:
                        ax.set_title(f"t = {tau:g}", fontsize=7)
        if heat is not None:
            fig.colorbar(heat, ax=axes, shrink=0.6, label="FFA")
        fig.suptitle("FFA over the image: exact and approximate at normalised times "
                     "(FFA 0: the image in pale grey)", fontsize=8)
    fig.savefig(png, dpi=150, bbox_inches="tight")
    fig.savefig(png.with_suffix(".pdf"), bbox_inches="tight")
    return png


def _heat(ax, image: np.ndarray, ffa: np.ndarray):
    """The FFA as a heat map over the image in pale grey (features with FFA 0 show the pale
    image), so that even the darkest colour, the lowest non-zero FFA, stands out from it."""
    ink = float(np.max(image)) or 1.0
    ax.imshow(image, cmap="Greys", vmin=0.0, vmax=4 * ink)  # at most a quarter grey
    return ax.imshow(np.ma.masked_equal(ffa, 0.0), cmap=CMAP, vmin=0.0, vmax=1.0, alpha=0.85)

