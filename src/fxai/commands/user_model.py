"""Check a user's fitted model file against its prepared dataset and copy it for the workflow.

The model (scikit-learn joblib: CategoricalNB, DecisionTreeClassifier, RandomForest /
ExtraTrees; or XGBoost JSON) must read the prepared columns as they are: the same number of
features, the same names where the model records them (``feature_names_in_``, XGBoost's
feature names), every categorical feature coded 0..k-1 in the user's file (the prepared
codes are the values the model saw) and the classes 0..k-1 (or, for scikit-learn, the
labels of the file). A scikit-learn Pipeline (family ``pipe``) reads the values as the
file shows them instead (:func:`raw_frame`): the same column names, and steps fxai
follows exactly. Writes a meta JSON (accuracies on the split) that the models table lists.
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
from pathlib import Path

from fxai.experiments.user import accuracy, check
from fxai.files import write_atomic
from fxai.models import FAMILIES
from fxai.models import load as load_model
from fxai.version import code_version

LOG = logging.getLogger("fxai.user_model")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True, help="the user's model file (config model.file)")
    p.add_argument("--family", required=True, choices=[f.name for f in FAMILIES.values() if f.user])
    p.add_argument("--data", required=True, help="the prepared table <name>.csv")
    p.add_argument("--split", required=True, help="split JSON (test accuracy)")
    p.add_argument("--out", required=True, help="where the workflow keeps the checked copy")
    p.add_argument("--meta", required=True, help="the meta JSON (dataset, accuracies)")


def run(args: argparse.Namespace) -> int:
    from fxai.data.prepared import load_train_test

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    prep, (Xtr, ytr), (Xte, yte) = load_train_test(args.data, args.split)
    model = load_model(args.model, prep.n_features, family=args.family)
    check(model, prep, args.model)
    out = Path(args.out)
    meta = {"dataset": prep.name, "learner": f"your {args.family} model {args.model}",
            "n_features": prep.n_features, "n_train": len(ytr), "n_test": len(yte),
            "accuracy_train": accuracy(model, Xtr, ytr, prep),
            "accuracy_test": accuracy(model, Xte, yte, prep), "code_version": code_version()}
    write_atomic(args.meta, json.dumps(meta, indent=1) + "\n")
    tmp = out.with_name(f".{out.name}.tmp")
    shutil.copyfile(args.model, tmp)
    tmp.replace(out)
    LOG.info("%s: %s model %s checked, accuracy train %.3f test %.3f -> %s", prep.name,
             args.family, args.model, meta["accuracy_train"], meta["accuracy_test"], out)
    return 0
