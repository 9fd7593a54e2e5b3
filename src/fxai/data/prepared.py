"""Read prepared datasets and splits (the contracts of DESIGN.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fxai.data.errors import DataError


@dataclass(frozen=True)
class Prepared:
    """A prepared table: ``X`` (rows x features; int64 unless a feature is numeric), ``y``."""

    name: str
    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]
    domains: list[dict[str, Any]]
    classes: list[int]
    class_labels: list[str] | None = None

    @property
    def n_features(self) -> int:
        return len(self.feature_names)


def finite_domains(domains: list[dict]) -> list[list | None]:
    """Per feature of a domains list: its list of codes, or None for a numeric feature."""
    return [None if d["type"] == "numeric" else list(d["values"]) for d in domains]


def load(ds: str, root: str | Path = "data/prepared") -> Prepared:
    """Load ``<root>/<ds>.csv`` and ``<ds>.domains.json``; DataError if missing or inconsistent."""
    root = Path(root)
    csv_path, dom_path = root / f"{ds}.csv", root / f"{ds}.domains.json"
    for p in (csv_path, dom_path):
        if not p.is_file():
            raise DataError(f"prepared dataset {ds!r}: {p} is missing; run `fxai prepare {ds}`.")
    doc = json.loads(dom_path.read_text())
    df = pd.read_csv(csv_path)
    names = [f["name"] for f in doc["features"]]
    if list(df.columns) != [*names, "target"]:
        raise DataError(f"{csv_path}: columns do not match {dom_path}.")
    numeric = any(f["type"] == "numeric" for f in doc["features"])
    X = df[names].to_numpy(dtype=float if numeric else np.int64)
    return Prepared(
        name=doc.get("name", ds),
        X=X,
        y=df["target"].to_numpy(dtype=np.int64),
        feature_names=names,
        domains=doc["features"],
        classes=list(doc["target"]["classes"]),
        class_labels=doc["target"].get("labels"),
    )


def load_split(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """``(train_ids, test_ids)`` (row ids of the prepared table) from a split JSON file."""
    try:
        doc = json.loads(Path(path).read_text())
    except FileNotFoundError as e:
        raise DataError(f"split file {path} does not exist; run the rule split.") from e
    return np.asarray(doc["train"], dtype=np.int64), np.asarray(doc["test"], dtype=np.int64)
