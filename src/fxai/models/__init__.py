"""Model families of the workflow and their files: one :class:`Family` record each in
:data:`FAMILIES`, read by the commands (their ``--family`` choices, a forest's vote) and by
the rule files (wildcards, training rules, the report's model tables).

nbc/dt/rf/hgb/lgbm/pipe/gbc are joblib files (hgb: scikit-learn HistGradientBoostingClassifier,
lgbm: LightGBM LGBMClassifier, pipe: a user's scikit-learn Pipeline, gbc: a user's
GradientBoostingClassifier), obdd an fxai JSON node
table, bt/mbt XGBoost JSON (mbt: multi-class). ``rfh`` is the ``rf`` forest read with the hard
vote (the majority of the trees' votes): the same file, another model semantics.

:func:`load` is the one way to read a model file back: a missing, truncated or foreign file
raises :class:`ModelError` naming the file and what to do, never a bare library error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fxai.errors import ModelError, ModelKindError


@dataclass(frozen=True)
class Family:
    """A workflow model family: its file ``suffix`` and ``folder`` under models/, what the
    file holds (``what``; ``kinds``: :mod:`fxai.models.kinds`), a forest's ``vote``, whether
    ``ensemble-train`` trains it (``ensemble``), whether a user may bring a fitted model of it
    (``user``) and whether its cross runs read real features (``real``: no finite domains)."""

    name: str
    suffix: str
    what: str
    kinds: tuple[str, ...]
    folder: str = ""
    vote: str | None = None
    ensemble: bool = False
    user: bool = False
    real: bool = False

    @property
    def directory(self) -> str:
        return self.folder or self.name


FAMILIES = {f.name: f for f in (
    Family("nbc", ".joblib", "naive Bayes (joblib)", ("nbc",), user=True),
    Family("dt", ".joblib", "decision tree (joblib)", ("tree",), user=True),
    Family("obdd", ".bdd.json", "OBDD (fxai-obdd JSON)", ()),
    Family("bt", ".json", "XGBoost (JSON)", ("xgboost",), user=True),
    Family("rf", ".joblib", "random forest (joblib)", ("forest",), vote="soft", ensemble=True,
           user=True),
    Family("rfh", ".joblib", "random forest (joblib)", ("forest",), folder="rf", vote="hard"),
    Family("mbt", ".json", "XGBoost (JSON)", ("xgboost",), ensemble=True, user=True),
    Family("hgb", ".joblib", "HistGradientBoostingClassifier (joblib)", ("hist_gradient",),
           ensemble=True, real=True),
    Family("lgbm", ".joblib", "LGBMClassifier (joblib)", ("lightgbm",), ensemble=True,
           real=True),
    Family("pipe", ".joblib", "scikit-learn Pipeline (joblib)", ("pipeline",), user=True),
    Family("gbc", ".joblib", "GradientBoostingClassifier (joblib)", ("gradient_boosting",),
           user=True),
)}
#: family -> a forest's vote rule (scikit-learn's predict is the soft vote)
VOTES = {f.name: f.vote for f in FAMILIES.values() if f.vote}
#: the families ensemble-train trains (cross.smk's cross_train_<family> rules)
ENSEMBLES = [f.name for f in FAMILIES.values() if f.ensemble]


def model_path(results: str | Path, family: str, ds: str) -> Path:
    """Where the workflow saves the ``family`` model of dataset ``ds``."""
    if family not in FAMILIES:
        raise ValueError(f"unknown model family {family!r}; known: {sorted(FAMILIES)}")
    f = FAMILIES[family]
    return Path(results) / "models" / f.directory / f"{ds}{f.suffix}"


def family_of(path: str | Path) -> str | None:
    """The family told by a model file's name (``.joblib``: by its folder, else None)."""
    path = Path(path)
    if path.name.endswith(".bdd.json"):
        return "obdd"
    if path.suffix in (".json", ".ubj"):
        return "bt"
    if path.suffix == ".joblib":
        folder = path.parent.name
        return folder if folder in FAMILIES and FAMILIES[folder].suffix == ".joblib" and (
            FAMILIES[folder].directory == folder) else None
    raise ModelError(f"{path}: unknown model format (.joblib, .bdd.json, .json or .ubj)")


def _unpickle(path: Path):
    """The joblib file's object; a ModelError when scikit-learn pickled it under another
    version (its unpickled model may predict otherwise: fxai would explain another model)."""
    import warnings

    import joblib
    from sklearn.exceptions import InconsistentVersionWarning

    with warnings.catch_warnings():
        warnings.simplefilter("error", InconsistentVersionWarning)
        try:
            return joblib.load(path)
        except ModuleNotFoundError as e:  # a module path of another version of a library
            import sklearn

            lib = (e.name or "").partition(".")[0]
            if not lib or lib not in ("sklearn", "xgboost", "lightgbm", "fxai"):
                raise
            here = f"scikit-learn {sklearn.__version__}" if lib == "sklearn" else lib
            raise ModelError(
                f"model file {path} names the module {e.name!r}, which {here} does not have: "
                "it was pickled under another version of the library. Fit and save it again "
                "under the version installed here, or run fxai where that version is "
                "installed.") from None
        except InconsistentVersionWarning as w:
            raise ModelError(
                f"model file {path} was saved with scikit-learn {w.original_sklearn_version}; "
                f"this is scikit-learn {w.current_sklearn_version}. A model unpickled under "
                "another version may predict otherwise, so fxai does not explain it: fit and "
                f"save it again under scikit-learn {w.current_sklearn_version}, or run fxai "
                f"where scikit-learn {w.original_sklearn_version} is installed.") from None


def _read(path: Path, family: str | None, n_features: int | None):
    if family == "obdd":
        from fxai.models.obdd import OBDD

        if n_features is None:
            raise ValueError(f"{path}: an OBDD needs n_features to load")
        return OBDD.load(path, n_features)
    if family in FAMILIES and "xgboost" in FAMILIES[family].kinds:
        from fxai.models import boosted

        return boosted.load(path)
    from fxai.models.kinds import is_kind

    model = _unpickle(path)
    fam = FAMILIES.get(family or "")
    # a user's joblib file: what people save with joblib, an XGBClassifier too
    wanted = fam.kinds if fam is not None else tuple(dict.fromkeys(
        k for f in FAMILIES.values() for k in f.kinds))
    if not is_kind(model, *wanted):
        from fxai.models.kinds import CLASSES

        names = [{"Booster": "XGBoost Booster", "XGBModel": "XGBClassifier"}.get(n, n)
                 if k == "xgboost" else n for k in dict.fromkeys(wanted) for n in CLASSES[k][1]
                 if k != "lightgbm" or n != "Booster"]
        listed = " or ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
        raise TypeError(f"it holds a {type(model).__name__}; fxai reads a {listed}")
    return model


def load(path: str | Path, n_features: int | None = None, family: str | None = None):
    """Load a model file the workflow wrote (family from ``family``, else the file name).

    ``n_features`` is needed for an OBDD. Raises :class:`ModelError` naming the file when it is
    missing or cannot be read as a model of its family.
    """
    path = Path(path)
    family = family or family_of(path)
    what = FAMILIES[family].what if family in FAMILIES else "joblib"
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
            if family is None:  # a user's model of a kind fxai does not read
                raise ModelKindError(f"model file {path}: {reason}: pass a model of one of "
                                     "those types.") from None
            raise ModelError(f"model file {path} is not a valid {what} model ({reason}). "
                             "Pass a model of one of those types.") from None
        # never advise deleting a file the workflow may not have made
        raise ModelError(f"model file {path} is not a valid {what} model "
                         f"({type(e).__name__}: {reason}). It is corrupt, cut short or of "
                         "another kind. If the workflow trained it (results/<profile>/"
                         "models/), delete it and rerun snakemake, which trains it again; a "
                         "model file of your own is not made by the workflow: save it again "
                         "from your code.") from e


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
