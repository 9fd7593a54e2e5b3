"""The models table of every part: one row per trained model, from its meta JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from fxai.version import stamped

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = ("model", "dataset", "learner", "n_classes", "n_features", "features_used",
           "thresholds", "depth", "n_nodes", "n_leaves", "trees", "n_rules", "train_acc_pct",
           "test_acc_pct")


def row(meta_path: str | Path) -> dict:
    """The table row of one model meta file (its folder names the model)."""
    path = Path(meta_path)
    try:
        meta = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise SystemExit(f"{path}: cannot read the model meta ({err})") from None
    if "dataset" not in meta or "n_features" not in meta:
        raise SystemExit(f"{path}: not a model meta file (no dataset / n_features)")
    learner = meta.get("learner") or meta.get("model") or meta.get("kind")
    if meta.get("family") in ("rf", "mbt"):
        learner = f"{learner}, {meta['trees']} trees of depth " \
                  f"{meta['depth']}" + (" per class" if meta["family"] == "mbt" else "")
    if meta.get("family") == "bt":
        learner = f"XGBoost, {meta['trees']} trees of depth {meta['depth']}"
    out = {"model": path.parent.name, "dataset": meta["dataset"], "learner": learner,
           "code_version": stamped(meta),
           "n_classes": meta.get("n_classes", meta.get("classes")),  # NBC metas: classes
           "features_used": meta.get("features_used", meta.get("n_used_features"))}
    out |= {k: meta.get(k) for k in COLUMNS if k not in out and k in meta}
    for split in ("train", "test"):
        acc = meta.get(f"accuracy_{split}")
        out[f"{split}_acc_pct"] = None if acc is None else round(100 * acc, 1)
    return out


def build(metas: list[str]) -> pd.DataFrame:
    """The models table: a row per meta file, sorted by model and dataset."""
    import pandas as pd

    df = pd.DataFrame([row(m) for m in metas], columns=[*COLUMNS, "code_version"])
    return df.sort_values(["model", "dataset"], ignore_index=True)
