"""Read prepared datasets and splits (the contracts of docs/design.md)."""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fxai.errors import DataError


@dataclass(frozen=True)
class Prepared:
    """A prepared table: ``X`` (rows x features; int64 unless a feature is numeric), ``y``;
    ``cleaning``: what preparation dropped and filled (:func:`cleaning_note`)."""

    name: str
    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]
    domains: list[dict[str, Any]]
    classes: list[int]
    class_labels: list[str] | None = None
    cleaning: dict[str, Any] | None = None

    @property
    def n_features(self) -> int:
        return len(self.feature_names)


def finite_domains(domains: list[dict]) -> list[list | None]:
    """Per feature of a domains list: its list of codes, or None for a numeric feature."""
    return [None if d["type"] == "numeric" else list(d["values"]) for d in domains]


def _fix(ds: str) -> str:
    return (f"prepare it again: delete it and rerun snakemake (the rule prepare writes it), "
            f"or run `fxai prepare {ds}`.")


def load(ds: str, root: str | Path = "data/prepared") -> Prepared:
    """Load ``<root>/<ds>.csv`` and ``<ds>.domains.json``, checking the CSV against the row count
    and sha256 the domains file records; DataError naming the file if missing or inconsistent."""
    root = Path(root)
    csv_path, dom_path = root / f"{ds}.csv", root / f"{ds}.domains.json"
    for p in (csv_path, dom_path):
        if not p.is_file():
            raise DataError(f"prepared dataset {ds!r}: {p} is missing; run `fxai prepare {ds}`.")
    try:
        doc = json.loads(dom_path.read_text())
        names = [f["name"] for f in doc["features"]]
    except (ValueError, KeyError, TypeError) as e:
        raise DataError(f"{dom_path} is not a valid domains file ({type(e).__name__}: {e}); "
                        + _fix(ds)) from e
    if not isinstance(doc.get("table"), dict) or {"rows", "sha256"} - set(doc["table"]):
        raise DataError(f"{dom_path} records no row count and checksum of {csv_path} (written "
                        "by an older fxai or by hand); " + _fix(ds))
    rows, digest = doc["table"]["rows"], doc["table"]["sha256"]
    raw = csv_path.read_bytes()
    if hashlib.sha256(raw).hexdigest() != digest:
        lines = raw.count(b"\n") - 1  # minus the header
        raise DataError(f"{csv_path} was changed or cut after it was prepared: {dom_path} records "
                        f"{rows} rows and sha256 {digest[:12]}..., the file has about {lines} "
                        "rows and another checksum; " + _fix(ds))
    df = pd.read_csv(io.BytesIO(raw))
    if list(df.columns) != [*names, "target"]:
        raise DataError(f"{csv_path}: columns do not match {dom_path}; " + _fix(ds))
    if len(df) != rows:
        raise DataError(f"{csv_path}: {len(df)} rows where {dom_path} records {rows}; " + _fix(ds))
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
        cleaning=doc.get("cleaning"),
    )


def cleaning_note(cleaning: dict[str, Any] | None) -> str:
    """What preparation changed, in words ("" when nothing): rows dropped, values filled per
    column (count, share of the rows, the value).

    Examples
    --------
    >>> cleaning_note({"rows": 400, "policy": "most_frequent", "dropped_no_target": 0,
    ...                "filled": {"age": {"count": 28, "value": 26.0}}})
    'filled 28 missing values (most_frequent): age 28 of 400 (7.0 %) with 26.0'
    """
    if not cleaning:
        return ""
    rows, parts = cleaning["rows"], []
    for key, what in (("dropped_no_target", "without a target value"),
                      ("dropped_missing", "with a missing feature value"),
                      ("dropped_duplicates", "duplicated (dedup)")):
        if cleaning.get(key):
            parts.append(f"dropped {cleaning[key]} of {rows} rows {what}")
    filled = cleaning.get("filled") or {}
    if filled:
        parts.append(f"filled {sum(f['count'] for f in filled.values())} missing values "
                     f"({cleaning['policy']}): " + ", ".join(
                         f"{c} {f['count']} of {rows} ({100 * f['count'] / rows:.1f} %) with "
                         f"{f['value']!r}" for c, f in filled.items()))
    return "; ".join(parts)


def shown(prep: Prepared, X: np.ndarray) -> list[list]:
    """The rows ``X`` of ``prep`` as the user's file shows them: a coded feature's label
    (text), a numeric feature's number."""
    out = []
    for row in np.atleast_2d(X):
        vals = []
        for d, v in zip(prep.domains, row, strict=True):
            labels = d.get("labels")
            if d["type"] != "numeric" and labels is not None:
                vals.append(labels[int(v)])
            else:
                vals.append(v.item() if hasattr(v, "item") else v)
        out.append(vals)
    return out


def load_split(path: str | Path, n_rows: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(train_ids, test_ids)`` (row ids of the prepared table) from a split JSON file, checked:
    disjoint non-negative integers (below ``n_rows``, the prepared table's size, when given)."""
    path = Path(path)
    fix = "delete it and rerun snakemake (the rule split writes it)."
    if not path.is_file():
        raise DataError(f"split file {path} does not exist; run the rule split.")
    try:
        doc = json.loads(path.read_text())
        train, test = (np.asarray(doc[k], dtype=np.int64) for k in ("train", "test"))
    except (ValueError, KeyError, TypeError) as e:
        raise DataError(f"split file {path} is not a valid split ({type(e).__name__}: {e}); "
                        + fix) from e
    ids = np.concatenate([train, test])
    if train.ndim != 1 or test.ndim != 1 or (ids < 0).any() or len(np.unique(ids)) < len(ids):
        raise DataError(f"split file {path}: train and test must be disjoint lists of row ids; "
                        + fix)
    if n_rows is not None and ((ids >= n_rows).any() or doc.get("rows", n_rows) != n_rows):
        raise DataError(f"split file {path} does not match its prepared table ({n_rows} rows); "
                        + fix)
    return train, test


def load_train_test(data: str | Path, split: str | Path):
    """``(prepared, (X_train, y_train), (X_test, y_test))`` of the prepared ``.csv`` table
    ``data`` and its split file (what the trainers read); a DataError naming a bad file."""
    data = Path(data)
    if data.suffix != ".csv":
        raise DataError(f"--data must be a prepared .csv table, got {data}")
    prep = load(data.stem, root=data.parent)
    train, test = load_split(split, n_rows=len(prep.y))
    return prep, (prep.X[train], prep.y[train]), (prep.X[test], prep.y[test])
