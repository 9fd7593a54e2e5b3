"""Train a tree ensemble on a prepared dataset's split: a random forest (rf), a multi-class
XGBoost model (mbt), a HistGradientBoostingClassifier (hgb) or a LightGBM model (lgbm).

``rf``: scikit-learn ``RandomForestClassifier`` (joblib); ``mbt``: ``XGBClassifier`` with
``multi:softprob`` on the de-duplicated training rows (XGBoost JSON); ``hgb``:
``HistGradientBoostingClassifier(max_iter=trees, max_depth=depth)`` and ``lgbm``:
``LGBMClassifier(n_estimators=trees, max_depth=depth, num_leaves=2**depth)`` on the
features as numbers (joblib). ``<stem>.meta.json`` beside the model gives the classes,
trees, depth, sizes, accuracies (of the prediction the oracle explains,
:mod:`fxai.models.scores`; hgb, lgbm: the library's ``predict``, which fxai reads exactly)
and library versions.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
from pathlib import Path

from fxai.argtypes import count, positive_int
from fxai.errors import DataError
from fxai.experiments.cross import boosting
from fxai.files import temp_beside, write_atomic
from fxai.models import ENSEMBLES
from fxai.version import code_version

LOG = logging.getLogger("fxai.ensemble_train")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--family", required=True, choices=ENSEMBLES)
    p.add_argument("--data", required=True, help="prepared table data/prepared/<ds>.csv")
    p.add_argument("--split", required=True, help="split JSON (train/test row ids)")
    p.add_argument("--trees", type=positive_int, required=True,
                   help="trees (rf) or boosting rounds, one tree per class each (mbt, hgb, "
                        "lgbm)")
    p.add_argument("--depth", type=positive_int, required=True, help="max_depth")
    p.add_argument("--seed", type=count, required=True, help="the workflow's seed")
    p.add_argument("--out", required=True,
                   help="results/<profile>/models/<family>/<ds>.joblib (mbt: .json)")


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from fxai import oracles
    from fxai.data.prepared import load_train_test
    from fxai.models import boosted, forest, scores

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    prep, (Xtr, ytr), (Xte, yte) = load_train_test(args.data, args.split)
    if args.family == "mbt" and len(np.unique(prep.y)) < 3:
        raise DataError(f"{args.data}: --family mbt (multi:softprob) needs three or more "
                        f"classes, not {np.unique(prep.y).tolist()} (bt-train trains a binary "
                        "XGBoost model)")
    predict = None  # the library's predict on the features, when the oracle reads codes
    if args.family == "rf":
        model = forest.train(Xtr, ytr, args.trees, args.depth, seed=args.seed)
        ens = forest.from_sklearn(model)
    elif args.family == "mbt":
        model = boosted.train(Xtr, ytr, args.trees, args.depth, seed=args.seed,
                              objective="multi:softprob")
        ens = scores.convert(model)
    else:
        model = boosting(args.family, args.trees, args.depth, args.seed).fit(Xtr, ytr)
        ens = oracles.prepare(model).model  # the ScoreEnsemble over interval codes
        predict = model.predict
    meta = {
        "family": args.family, "dataset": prep.name, "kind": ens.kind,
        "n_classes": ens.n_classes, "trees": args.trees, "depth": args.depth,
        "seed": args.seed, "n_features": prep.n_features,
        "n_used_features": len(ens.used_features),
        "n_leaves": int(sum(int(np.sum(t.left < 0)) for t in ens.trees)),
        "n_train": len(ytr), "n_test": len(yte),
        "accuracy_train": float(np.mean((predict or ens.predict)(Xtr) == ytr)),
        "accuracy_test": (float(np.mean((predict or ens.predict)(Xte) == yte)) if len(yte)
                          else None),
    }
    if args.family == "mbt":
        boosted.save(model, args.out, meta)
    else:
        import joblib
        import sklearn

        out = Path(args.out)
        f, tmp = temp_beside(out, "wb")
        try:
            with f:
                joblib.dump(model, f)
            os.replace(tmp, out)
        finally:
            tmp.unlink(missing_ok=True)
        meta["versions"] = {"scikit-learn": sklearn.__version__, "numpy": np.__version__,
                            "python": platform.python_version()}
        if args.family == "lgbm":
            import lightgbm

            meta["versions"]["lightgbm"] = lightgbm.__version__
        meta["code_version"] = code_version()  # as every model meta (the models table)
        write_atomic(out.with_name(out.stem + ".meta.json"), json.dumps(meta, indent=2) + "\n")
    LOG.info("%s %s: %d classes, %d trees depth %d, accuracy train %.3f test %s",
             args.family, prep.name, ens.n_classes, args.trees, args.depth,
             meta["accuracy_train"], meta["accuracy_test"])
    return 0
