"""Train an XGBoost boosted-tree classifier (binary:logistic) on a prepared dataset's split.

Writes the model as XGBoost JSON (``save_model``) and ``<stem>.meta.json`` beside it
(accuracies, sizes, trees, depth, seed, library versions; features used, distinct
(feature, threshold) splits and node counts, which set how hard the formal oracle is).
Training uses the de-duplicated training rows, as the authors' code does.
"""

from __future__ import annotations

import argparse
import logging

from fxai.argtypes import count, positive, positive_int
from fxai.errors import DataError

LOG = logging.getLogger("fxai.bt_train")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", required=True, help="prepared table data/prepared/<ds>.csv (or .npz)")
    p.add_argument("--split", required=True, help="split JSON (train/test row ids)")
    p.add_argument("--trees", type=positive_int, required=True,
                   help="boosting rounds (n_estimators)")
    p.add_argument("--depth", type=positive_int, required=True, help="max_depth")
    p.add_argument("--seed", type=count, required=True, help="the workflow's seed")
    p.add_argument("--learning-rate", type=positive, default=0.3)
    p.add_argument("--tree-method", default="exact", choices=["exact", "hist", "approx"])
    p.add_argument("--n-jobs", type=positive_int, default=1)
    p.add_argument("--out", required=True, help="results/<profile>/models/bt/<ds>.json")


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from fxai.data.prepared import load_train_test
    from fxai.models import boosted, n_classes

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    prep, (Xtr, ytr), (Xte, yte) = load_train_test(args.data, args.split)
    if not set(np.unique(prep.y).tolist()) <= {0, 1}:
        raise DataError(f"{args.data}: bt-train needs a binary target coded 0/1, not the "
                        f"classes {np.unique(prep.y).tolist()} (ensemble-train --family mbt "
                        "trains a multi-class XGBoost model)")
    model = boosted.train(Xtr, ytr, args.trees, args.depth, seed=args.seed,
                          n_jobs=args.n_jobs, tree_method=args.tree_method,
                          learning_rate=args.learning_rate)
    n_unique = len(boosted.dedup_rows(Xtr, ytr)[1])
    ens = boosted.from_booster(model)
    meta = {
        "family": "bt",
        "dataset": prep.name,
        "trees": args.trees,
        "depth": args.depth,
        "learning_rate": args.learning_rate,
        "tree_method": args.tree_method,
        "seed": args.seed,
        "n_classes": n_classes(model),
        "n_features": prep.n_features,
        "n_used_features": len(ens.used_features),
        "n_leaves": int(sum(int(np.sum(t.left < 0)) for t in ens.trees)),
        "n_nodes": int(sum(len(t.left) for t in ens.trees)),
        "thresholds": len({(int(f), float(v)) for t in ens.trees
                           for f, v in zip(t.feature[t.left >= 0], t.threshold[t.left >= 0],
                                           strict=True)}),
        "base_margin": ens.base_margin,
        "n_train": len(ytr),
        "n_train_unique": n_unique,
        "n_test": len(yte),
        "accuracy_train": boosted.accuracy(model, Xtr, ytr),
        "accuracy_test": boosted.accuracy(model, Xte, yte),
    }
    boosted.save(model, args.out, meta)
    LOG.info("%s: %d trees depth %d, %d/%d features used, accuracy train %.3f test %.3f",
             prep.name, args.trees, args.depth, meta["n_used_features"], prep.n_features,
             meta["accuracy_train"], meta["accuracy_test"])
    return 0
