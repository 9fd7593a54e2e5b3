"""What kind of library model an object is: the one place fxai recognises model types.

:func:`kind` names the kind of a model object ("pipeline", "tree", "forest", "nbc",
"hist_gradient", "gradient_boosting", "lightgbm", "xgboost"), or None for anything else
(fxai's own models included). The probes are cheap: a library is imported only when the
object's class (or one of its base classes) comes from it, so asking never loads XGBoost or
LightGBM for a scikit-learn model. Subclasses count as their base class. Models, oracles,
checkers and commands all ask here.
"""

from __future__ import annotations

import importlib
import json

#: kind -> (module, class names): the library classes of each kind
CLASSES = {
    "pipeline": ("sklearn.pipeline", ("Pipeline",)),
    "tree": ("sklearn.tree", ("DecisionTreeClassifier",)),
    "forest": ("sklearn.ensemble", ("RandomForestClassifier", "ExtraTreesClassifier")),
    "nbc": ("sklearn.naive_bayes", ("CategoricalNB",)),
    "hist_gradient": ("sklearn.ensemble", ("HistGradientBoostingClassifier",)),
    "gradient_boosting": ("sklearn.ensemble", ("GradientBoostingClassifier",)),
    "lightgbm": ("lightgbm", ("Booster", "LGBMClassifier")),
    "xgboost": ("xgboost", ("Booster", "XGBModel")),
}


def _libraries(model: object) -> set[str]:
    """The top-level packages of the object's class and its base classes."""
    return {c.__module__.partition(".")[0] for c in type(model).__mro__}


def _is(model: object, kind: str) -> bool:
    module, names = CLASSES[kind]
    if module.partition(".")[0] not in _libraries(model):
        return False
    try:
        lib = importlib.import_module(module)
    except ModuleNotFoundError:
        return False
    return isinstance(model, tuple(getattr(lib, n) for n in names))


def kind(model: object) -> str | None:
    """The kind of ``model`` (see the module), or None.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> kind(DecisionTreeClassifier()), kind("a model")
    ('tree', None)
    """
    return next((k for k in CLASSES if _is(model, k)), None)


def is_kind(model: object, *kinds: str) -> bool:
    """Whether ``model`` is of one of ``kinds``."""
    return any(_is(model, k) for k in kinds)


def is_xgboost(model: object) -> bool:
    return _is(model, "xgboost")


def xgboost_objective(model) -> str:
    """The objective of an XGBoost model ("binary:logistic", "multi:softprob", ...)."""
    from fxai.models.boosted import booster

    return json.loads(booster(model).save_config())["learner"]["objective"]["name"]


def is_sklearn(model: object) -> bool:
    """A scikit-learn estimator (or an object of a subclass of one)."""
    return "sklearn" in _libraries(model)
