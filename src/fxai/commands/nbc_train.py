"""Train a categorical naive Bayes (CategoricalNB, two or more classes) on a train split."""

from __future__ import annotations

import argparse
import logging

from fxai.argtypes import count, positive
from fxai.experiments.nbc import read_prepared, read_split

log = logging.getLogger("fxai.nbc")


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
