"""Seeded train/test split of a prepared table (stratified whenever every class allows it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from fxai.errors import DataError
from fxai.files import write_atomic


def make_split(y: np.ndarray, test_size: float = 0.2, seed: int = 0,
               what: str = "the table") -> dict[str, Any]:
    """Row ids of train and test (sorted); stratified when each class has >= 2 rows and the
    test set can hold one row per class, else a plain seeded shuffle. A DataError naming
    ``what`` when the training rows would not hold two classes (too few rows)."""
    if not 0 < test_size < 1:
        raise DataError(f"test_size must be in (0, 1), got {test_size}.")
    n = len(y)
    ids = np.arange(n)
    _, counts = np.unique(y, return_counts=True)
    n_test = int(np.ceil(test_size * n))
    stratify = y if counts.min() >= 2 and len(counts) <= min(n_test, n - n_test) else None
    train = ids[:0]
    if 0 < n_test < n:
        from sklearn.model_selection import train_test_split  # (only to split: 1.3 s import)

        train, test = train_test_split(ids, test_size=test_size, random_state=seed,
                                       stratify=stratify)
    if len(np.unique(np.asarray(y)[train])) < 2:
        raise DataError(
            f"{what} has too few rows to split: {n} rows (class sizes {counts.tolist()}), so "
            f"the training rows of a split with test_size {test_size} would not hold two "
            "classes. A dataset needs at least 2 rows of each of two classes (more when "
            "test_size is large); add rows or drop the dataset from the config.")
    return {"seed": seed, "test_size": test_size, "stratified": stratify is not None,
            "train": sorted(int(i) for i in train), "test": sorted(int(i) for i in test)}


def pick_instance(test_ids, k: int, seed: int) -> int:
    """Row id of the K-th element of a seeded permutation of the test row ids."""
    ids = np.sort(np.asarray(test_ids, dtype=int))
    if not 0 <= k < ids.size:
        raise DataError(f"instance index {k} out of range: the test split has {ids.size} rows")
    return int(np.random.default_rng(seed).permutation(ids)[k])


def write_split(ds: str, y: np.ndarray, out: str | Path, test_size: float, seed: int) -> Path:
    """Write ``{"dataset", "rows", "seed", "test_size", "stratified", "train", "test"}``
    atomically (``rows``: the prepared table's row count, checked by readers)."""
    out = Path(out)
    doc = make_split(y, test_size, seed, f"dataset {ds!r}")
    write_atomic(out, json.dumps({"dataset": ds, "rows": len(y), **doc}))
    return out
