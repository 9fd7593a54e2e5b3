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
    """A prepared table: ``X`` (rows x features; int64 unless a feature is numeric, int8
    from a sparse ``.npz`` table), ``y``;
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


TABLE_FORMATS = ("csv", "npz")


@dataclass(frozen=True)
class SparseTable:
    """A prepared table of binary features kept sparse, written as ``<ds>.npz`` (a text
    entry's ``table: npz``): ``X`` (rows x features, scipy CSR of 0/1) and the target ``y``.
    The file holds per row the sorted columns of its ones (``indptr``, ``indices``), the
    ``shape`` and the ``target``: Sarcasm's whole vocabulary is 0.44 MB there, 1.2 GB as
    CSV."""

    X: Any
    y: np.ndarray

    def __len__(self) -> int:
        return self.X.shape[0]

    def npz_bytes(self) -> bytes:
        X = self.X.tocsr()
        X.sort_indices()
        if X.nnz and (X.data != 1).any():
            raise DataError("a sparse prepared table holds binary features only (0/1)")
        out = io.BytesIO()
        np.savez_compressed(out, indptr=X.indptr.astype(np.int64),
                            indices=X.indices.astype(np.int32),
                            shape=np.array(X.shape, dtype=np.int64),
                            target=np.asarray(self.y, dtype=np.int64))
        return out.getvalue()


def _dense_npz(raw: bytes, path: Path, n_features: int) -> tuple[np.ndarray, np.ndarray]:
    """``(X, y)`` of a sparse table's bytes (:class:`SparseTable`): X dense int8."""
    try:
        with np.load(io.BytesIO(raw)) as z:
            indptr, indices, shape, y = (z[k] for k in ("indptr", "indices", "shape", "target"))
    except (ValueError, KeyError, OSError, EOFError) as e:  # (zipfile.BadZipFile: OSError)
        raise DataError(f"{path} is not a sparse prepared table ({type(e).__name__}: {e})") from e
    rows = len(y)
    if (list(shape) != [rows, n_features] or len(indptr) != rows + 1 or indptr[0] != 0
            or indptr[-1] != len(indices) or (np.diff(indptr) < 0).any()
            or (len(indices) and not 0 <= indices.min() <= indices.max() < n_features)):
        raise DataError(f"{path}: its rows, columns or shape {list(shape)} do not match "
                        f"{rows} rows of {n_features} features")
    X = np.zeros((rows, n_features), dtype=np.int8)
    X[np.repeat(np.arange(rows), np.diff(indptr)), indices] = 1
    return X, y.astype(np.int64)


def load(ds: str, root: str | Path = "data/prepared") -> Prepared:
    """Load ``<root>/<ds>.csv`` (or ``.npz``, a :class:`SparseTable`: X dense int8) and
    ``<ds>.domains.json``, checking the table against the format, row count and sha256 the
    domains file records; DataError naming the file if missing or inconsistent."""
    root = Path(root)
    dom_path = root / f"{ds}.domains.json"
    if not dom_path.is_file():
        raise DataError(f"prepared dataset {ds!r}: {dom_path} is missing; run `fxai prepare {ds}`.")
    try:
        doc = json.loads(dom_path.read_text())
        names = [f["name"] for f in doc["features"]]
    except (ValueError, KeyError, TypeError) as e:
        raise DataError(f"{dom_path} is not a valid domains file ({type(e).__name__}: {e}); "
                        + _fix(ds)) from e
    table = doc.get("table")
    if not isinstance(table, dict) or {"rows", "sha256"} - set(table):
        raise DataError(f"{dom_path} records no row count and checksum of {root / ds}.csv "
                        "(written by an older fxai or by hand); " + _fix(ds))
    fmt = table.get("format", "csv")
    if fmt not in TABLE_FORMATS:
        raise DataError(f"{dom_path}: table format {fmt!r} unknown (one of {TABLE_FORMATS}); "
                        + _fix(ds))
    path = root / f"{ds}.{fmt}"
    if not path.is_file():
        raise DataError(f"prepared dataset {ds!r}: {path} is missing; run `fxai prepare {ds}`.")
    rows, digest = table["rows"], table["sha256"]
    raw = path.read_bytes()
    if hashlib.sha256(raw).hexdigest() != digest:
        newlines = raw.count(b"\n") - 1  # minus the header
        lines = f"about {newlines} rows" if fmt == "csv" else f"{len(raw)} bytes"
        raise DataError(f"{path} was changed or cut after it was prepared: {dom_path} records "
                        f"{rows} rows and sha256 {digest[:12]}..., the file has {lines} "
                        "and another checksum; " + _fix(ds))
    if fmt == "npz":
        X, y = _dense_npz(raw, path, len(names))
    else:
        df = pd.read_csv(io.BytesIO(raw))
        if list(df.columns) != [*names, "target"]:
            raise DataError(f"{path}: columns do not match {dom_path}; " + _fix(ds))
        numeric = any(f["type"] == "numeric" for f in doc["features"])
        X = df[names].to_numpy(dtype=float if numeric else np.int64)
        y = df["target"].to_numpy(dtype=np.int64)
    if len(y) != rows:
        raise DataError(f"{path}: {len(y)} rows where {dom_path} records {rows}; " + _fix(ds))
    return Prepared(
        name=doc.get("name", ds),
        X=X,
        y=y,
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
    """``(prepared, (X_train, y_train), (X_test, y_test))`` of the prepared table ``data``
    (``.csv`` or ``.npz``) and its split file (what the trainers read); a DataError naming a
    bad file."""
    data = Path(data)
    if data.suffix[1:] not in TABLE_FORMATS:
        raise DataError(f"--data must be a prepared .csv or .npz table, got {data}")
    prep = load(data.stem, root=data.parent)
    train, test = load_split(split, n_rows=len(prep.y))
    return prep, (prep.X[train], prep.y[train]), (prep.X[test], prep.y[test])
