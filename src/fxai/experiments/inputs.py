"""What the run commands read first: a prepared table and the model fitted on it."""

from __future__ import annotations

from pathlib import Path

from fxai.runfile import load_input


def prepared_and_model(dataset: str, prepared: str | Path, model_path: str | Path,
                       family: str | None = None):
    """``(data, model)``: the prepared table ``<prepared>/<dataset>.csv`` and the model of
    ``model_path`` (of ``family`` when given), each read by :func:`fxai.runfile.load_input`
    (a file that cannot be read is an error naming it), the model checked to take the
    table's features."""
    from fxai.data.prepared import load
    from fxai.models import check_features
    from fxai.models import load as load_model

    data = load_input(lambda p: load(dataset, p), prepared, f"prepared table of {dataset}")
    model = load_input(lambda p: load_model(p, data.n_features, family=family), model_path,
                       f"{family} model" if family else "model")
    check_features(model, model_path, data.n_features, Path(prepared) / f"{dataset}.csv")
    return data, model
