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

from fxai.errors import ModelError
from fxai.files import write_atomic
from fxai.models import FAMILIES, n_classes
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


def recorded_names(model) -> list[str] | None:
    """The feature names a model records (None: it records none)."""
    names = getattr(model, "feature_names_in_", None)
    if names is None and hasattr(model, "feature_names"):  # XGBoost Booster
        names = model.feature_names
    return None if names is None else [str(n) for n in names]


def n_inputs(model) -> int:
    if hasattr(model, "num_features"):
        return int(model.num_features())
    return int(model.n_features_in_)


def check(model, prep, path: str) -> None:
    """ModelError naming ``path`` when the model cannot read the prepared table as it is."""
    if n_inputs(model) != prep.n_features:
        raise ModelError(f"model file {path} takes {n_inputs(model)} features; the prepared "
                         f"table has {prep.n_features}: {prep.feature_names}.")
    names = recorded_names(model)
    if names is not None and names != prep.feature_names:
        raise ModelError(f"model file {path} was fitted on the features {names}; the prepared "
                         f"table has {prep.feature_names} (same names, same order).")
    from fxai.models.kinds import is_kind

    pipeline = is_kind(model, "pipeline")
    if pipeline:
        from fxai.oracles import check_model

        try:
            check_model(model)
        except TypeError as e:
            raise ModelError(f"model file {path}: {e}") from None
    for d in prep.domains:
        labels = d.get("labels")
        if not pipeline and d["type"] != "numeric" and labels != [str(v) for v in d["values"]]:
            raise ModelError(
                f"model file {path}: feature {d['name']!r} is {d['type']} with values {labels} "
                f"in the file, prepared as codes {d['values']}; a model of your own must see "
                "the values it was fitted on: code the column 0..k-1 in the file, or declare "
                "it numeric (no discretise).")
    classes = getattr(model, "classes_", None)
    labels = prep.class_labels or [str(c) for c in prep.classes]
    want = [str(c) for c in classes] if classes is not None else [str(i) for i in
                                                                    range(n_classes(model))]
    if want != labels:
        raise ModelError(f"model file {path} predicts the classes {want}; the target column "
                         f"holds {labels}.")


def raw_frame(pipe, prep, X):
    """The prepared rows ``X`` as the pipeline reads them: the file's values (text for a
    coded column, as :func:`fxai.data.prepared.shown` gives them), each of the type its
    column's step reads (a category of its encoder, a number)."""
    import pandas as pd

    from fxai.data.prepared import shown
    from fxai.oracles import prepare

    encoded = prepare(pipe)
    rows = [[encoded.read_value(i, v) for i, v in enumerate(r)] for r in shown(prep, X)]
    return pd.DataFrame(rows, columns=prep.feature_names)


def accuracy(model, X, y, prep=None) -> float:
    """The model's own prediction against the prepared class codes ``y`` (a Pipeline: on
    the rows as the file shows them, which needs ``prep``)."""
    import numpy as np

    from fxai.models.kinds import is_kind

    if len(y) == 0:
        return float("nan")
    if is_kind(model, "pipeline"):
        pred = model.predict(raw_frame(model, prep, X))
        return float(np.mean(np.searchsorted(model.classes_, pred) == y))
    if hasattr(model, "predict_proba"):  # scikit-learn: a class label, coded by its position
        if getattr(model, "feature_names_in_", None) is not None:
            import pandas as pd

            X = pd.DataFrame(X, columns=model.feature_names_in_)
        return float(np.mean(np.searchsorted(model.classes_, model.predict(X)) == y))
    import xgboost as xgb

    proba = model.predict(xgb.DMatrix(np.asarray(X, dtype=np.float32),
                                      feature_names=recorded_names(model)))
    pred = proba.argmax(axis=1) if proba.ndim == 2 else (proba > 0.5).astype(int)
    return float(np.mean(pred == y))


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
