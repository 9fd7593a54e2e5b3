"""Train a categorical naive Bayes (CategoricalNB, two or more classes) on a train split."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from fxai.argtypes import count, positive
from fxai.errors import DataError

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger("fxai.nbc")


def read_prepared(csv: str | Path) -> tuple[np.ndarray, np.ndarray, list[int], str]:
    """``(X, y, domain sizes, dataset name)`` of ``data/prepared/<ds>.csv``.

    The NBC needs every feature categorical, binary or discretised, and two or more classes.
    """
    from fxai.data import prepared

    csv = Path(csv)
    p = prepared.load(csv.stem, csv.parent)
    numeric = [f["name"] for f in p.domains if f["type"] == "numeric"]
    if numeric:
        raise DataError(f"{csv}: the NBC needs categorical/discretised features; numeric: "
                         f"{numeric[:5]} (use a discretised variant of the dataset)")
    if len(p.classes) < 2:
        raise DataError(f"{csv}: the NBC needs two or more classes; {len(p.classes)} found")
    return p.X, p.y, [len(f["values"]) for f in p.domains], p.name


def read_split(path: str | Path, n_rows: int | None = None) -> tuple[list[int], list[int]]:
    """``(train, test)`` row ids of a split file (checked against ``n_rows`` when given)."""
    from fxai.data import prepared

    train, test = prepared.load_split(path, n_rows)
    return [int(i) for i in train], [int(i) for i in test]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", required=True, help="prepared table data/prepared/<ds>.csv")
    p.add_argument("--split", required=True, help="split file results/<profile>/splits/<ds>.json")
    p.add_argument("--out", required=True, help="model path <ds>.joblib (meta.json beside it)")
    # no defaults: the workflow passes config nbc.alpha and nbc.decimals (the schema states them)
    p.add_argument("--alpha", type=positive, required=True, help="Laplace/Lidstone smoothing")
    p.add_argument("--decimals", type=count, required=True,
                   help="decimal places of the scaled model whose accuracy is also recorded "
                        "(binary models: the paper's counting DP)")


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from fxai.models import nbc

    X, y, sizes, name = read_prepared(args.data)
    train_ids, test_ids = read_split(args.split, len(y))
    model = nbc.train(X[train_ids], y[train_ids], sizes, alpha=args.alpha)
    binary = len(model.classes_) == 2
    scaled = nbc.XLC.from_categorical_nb(model).scaled(args.decimals) if binary else None

    def acc(pred, ids):
        if pred is None or not ids:
            return None
        return float(np.mean(pred(X[ids]) == y[ids]))

    meta = {
        "dataset": name, "family": "nbc", "model": "sklearn CategoricalNB",
        "alpha": args.alpha, "classes": len(model.classes_), "n_features": len(sizes),
        "domain_sizes": sizes,
        "features_used": sum(s > 1 for s in sizes),  # a one-value feature is a constant
        "n_train": len(train_ids), "n_test": len(test_ids),
        "accuracy_train": acc(model.predict, train_ids),
        "accuracy_test": acc(model.predict, test_ids),
        "scaled_decimals": args.decimals,
        "scaled_accuracy_train": acc(scaled and scaled.predict, train_ids),
        "scaled_accuracy_test": acc(scaled and scaled.predict, test_ids),
    }
    nbc.save(model, args.out, meta)
    log.info("%s: NBC train acc %.4f, test acc %s", name, meta["accuracy_train"],
             meta["accuracy_test"])
    return 0
