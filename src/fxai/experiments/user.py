"""The your-data part of the workflow: a user's fitted model checked against its prepared
table, the rows as a Pipeline reads them, and the model's own accuracy."""

from __future__ import annotations

from fxai.errors import ModelError
from fxai.models import n_classes


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
