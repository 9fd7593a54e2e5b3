"""Model families and their files: nbc/dt (joblib), obdd (dd JSON dump), bt (XGBoost JSON)."""

from __future__ import annotations

from pathlib import Path

FAMILIES = {"nbc": ".joblib", "dt": ".joblib", "obdd": ".bdd.json", "bt": ".json"}


def model_path(results: str | Path, family: str, ds: str) -> Path:
    """Where the workflow saves the ``family`` model of dataset ``ds``."""
    if family not in FAMILIES:
        raise ValueError(f"unknown model family {family!r}; known: {sorted(FAMILIES)}")
    return Path(results) / "models" / family / f"{ds}{FAMILIES[family]}"


def load(path: str | Path, n_features: int | None = None):
    """Load a model file the workflow wrote (family told by the file name)."""
    path = Path(path)
    if path.name.endswith(".bdd.json"):
        from fxai.models.obdd import OBDD

        if n_features is None:
            raise ValueError(f"{path}: an OBDD needs n_features to load")
        return OBDD.load(path, n_features)
    if path.suffix in (".json", ".ubj"):
        from fxai.models import boosted

        return boosted.load(path)
    if path.suffix == ".joblib":
        import joblib

        return joblib.load(path)
    raise ValueError(f"{path}: unknown model format (.joblib, .bdd.json, .json or .ubj)")
