"""Model families and their files: nbc/dt/rf/hgb/lgbm (joblib; hgb: scikit-learn
HistGradientBoostingClassifier, lgbm: LightGBM LGBMClassifier), obdd (fxai JSON node table),
bt/mbt (XGBoost JSON; mbt: multi-class). ``rfh`` is the ``rf`` forest read with the hard vote (the
majority of the trees' votes, :data:`VOTES`): the same file, another model semantics.

:func:`load` is the one way to read a model file back: a missing, truncated or foreign file
raises :class:`ModelError` naming the file and what to do, never a bare library error.
"""

from __future__ import annotations

from pathlib import Path

from fxai.errors import ModelError

FAMILIES = {"nbc": ".joblib", "dt": ".joblib", "obdd": ".bdd.json", "bt": ".json",
            "rf": ".joblib", "rfh": ".joblib", "mbt": ".json", "hgb": ".joblib",
            "lgbm": ".joblib"}
#: family -> a forest's vote rule (scikit-learn's predict is the soft vote)
VOTES = {"rf": "soft", "rfh": "hard"}
_FOLDER = {"rfh": "rf"}  # the hard-vote family reads the rf forest
_WHAT = {"nbc": "naive Bayes (joblib)", "dt": "decision tree (joblib)",
         "obdd": "OBDD (fxai-obdd JSON)", "bt": "XGBoost (JSON)",
         "rf": "random forest (joblib)", "rfh": "random forest (joblib)",
         "mbt": "XGBoost (JSON)", "pipe": "scikit-learn Pipeline (joblib)",
         "hgb": "HistGradientBoostingClassifier (joblib)", "lgbm": "LGBMClassifier (joblib)"}


def model_path(results: str | Path, family: str, ds: str) -> Path:
    """Where the workflow saves the ``family`` model of dataset ``ds``."""
    if family not in FAMILIES:
        raise ValueError(f"unknown model family {family!r}; known: {sorted(FAMILIES)}")
    return Path(results) / "models" / _FOLDER.get(family, family) / f"{ds}{FAMILIES[family]}"


def family_of(path: str | Path) -> str | None:
    """The family told by a model file's name (``.joblib``: by its folder, else None)."""
    path = Path(path)
    if path.name.endswith(".bdd.json"):
        return "obdd"
    if path.suffix in (".json", ".ubj"):
        return "bt"
    if path.suffix == ".joblib":
        return path.parent.name if path.parent.name in ("nbc", "dt", "rf", "hgb",
                                                        "lgbm") else None
    raise ModelError(f"{path}: unknown model format (.joblib, .bdd.json, .json or .ubj)")


def _read(path: Path, family: str | None, n_features: int | None):
    if family == "obdd":
        from fxai.models.obdd import OBDD

        if n_features is None:
            raise ValueError(f"{path}: an OBDD needs n_features to load")
        return OBDD.load(path, n_features)
    if family in ("bt", "mbt"):
        from fxai.models import boosted

        return boosted.load(path)
    import joblib
    from sklearn.ensemble import (
        ExtraTreesClassifier,
        HistGradientBoostingClassifier,
        RandomForestClassifier,
    )
    from sklearn.naive_bayes import CategoricalNB
    from sklearn.pipeline import Pipeline
    from sklearn.tree import DecisionTreeClassifier

    model = joblib.load(path)
    forests = (RandomForestClassifier, ExtraTreesClassifier)
    from lightgbm import LGBMClassifier

    anything = (CategoricalNB, DecisionTreeClassifier, *forests, Pipeline,
                HistGradientBoostingClassifier, LGBMClassifier)
    wanted = {"nbc": (CategoricalNB,), "dt": (DecisionTreeClassifier,), "rf": forests,
              "rfh": forests, "pipe": (Pipeline,), "hgb": (HistGradientBoostingClassifier,),
              "lgbm": (LGBMClassifier,)}.get(family, anything)
    if not isinstance(model, wanted):
        raise TypeError(f"it holds a {type(model).__name__}, not a "
                        + " or ".join(w.__name__ for w in wanted))
    return model


def load(path: str | Path, n_features: int | None = None, family: str | None = None):
    """Load a model file the workflow wrote (family from ``family``, else the file name).

    ``n_features`` is needed for an OBDD. Raises :class:`ModelError` naming the file when it is
    missing or cannot be read as a model of its family.
    """
    path = Path(path)
    family = family or family_of(path)
    what = _WHAT.get(family or "", "joblib")
    if not path.is_file():
        raise ModelError(f"model file {path} does not exist: train it first (the workflow's "
                         "training rule writes it).")
    try:
        return _read(path, family, n_features)
    except ModelError:  # the reader's own message already names the file and what to do
        raise
    except Exception as e:  # any library's error on a bad file: say which file and what to do
        reason = (str(e).strip().splitlines() or [""])[0][:300]
        if isinstance(e, TypeError) and reason.startswith("it holds a"):  # a readable model
            advice = "Pass a model of one of those types."
        else:  # never advise deleting a file the workflow may not have made
            advice = ("It is corrupt, cut short or of another kind. If the workflow trained "
                      "it (results/<profile>/models/), delete it and rerun snakemake, which "
                      "trains it again; a model file of your own is not made by the workflow: "
                      "save it again from your code.")
        raise ModelError(f"model file {path} is not a valid {what} model "
                         f"({type(e).__name__}: {reason}). {advice}") from e


def check_features(model, path: str | Path, n_features: int, data: str | Path) -> None:
    """A ModelError when the loaded ``model`` (from ``path``) was trained on another number of
    features than the table ``data`` has (a model of another dataset); models that do not
    record it (OBDDs) pass."""
    if hasattr(model, "n_features_in_"):
        n = int(model.n_features_in_)
    elif hasattr(model, "num_features"):  # an XGBoost Booster
        n = int(model.num_features())
    else:
        return
    if n != n_features:
        raise ModelError(f"model file {path} takes {n} features, the table {data} has "
                         f"{n_features}: a model of another dataset?")


def n_classes(model) -> int:
    """How many classes a loaded model tells apart (an OBDD, a binary XGBoost model: 2)."""
    if hasattr(model, "classes_"):
        return len(model.classes_)
    if hasattr(model, "save_config"):  # an XGBoost Booster
        import json

        k = int(json.loads(model.save_config())["learner"]["learner_model_param"]["num_class"])
        return max(k, 2)
    return 2
