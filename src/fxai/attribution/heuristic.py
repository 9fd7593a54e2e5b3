"""Heuristic scores from the libraries people use (``shap``, ``lime``) and user scores.

Every score here has one signature, the one a user's own score implements too::

    score(model, background, x, feature_names) -> sequence of len(x) numbers

``model`` is the model object (as :func:`fxai.models.load` returns it: a scikit-learn
estimator, an XGBoost booster, an fxai OBDD or DecisionGraph, ...), ``background`` a 2-D
array of training rows, ``x`` the instance (1-D) and ``feature_names`` the column names.
The score explains the model's predicted class at ``x``; :func:`probabilities` gives any
supported model's class probabilities, so a user score needs no knowledge of the family.
A user names the function in the config as ``module:function`` (:func:`load_score`).

Both built-ins are seeded and deterministic: ``shap_score`` uses ``shap.TreeExplainer``
(path-dependent, no sampling) for scikit-learn trees and forests and XGBoost models, and
``shap.KernelExplainer`` over the background for the others (its default ``2n + 2048``
coalitions enumerate all of them up to 11 features, which makes it the exact
interventional Shapley value; beyond, it samples with numpy's global RNG seeded by
``seed``). shap's ``Exact`` and ``Permutation`` explainers are not used: their maskers
compile numba code in every process (minutes on a loaded 2-core machine);
``lime_score`` builds a ``LimeTabularExplainer`` with every feature declared categorical,
no feature selection (a weight for every feature) and ``random_state=seed``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence

import numpy as np

from fxai.errors import ScoreError
from fxai.models.kinds import is_xgboost

Score = Callable[..., Sequence[float]]


def _graph_model(model):
    """An fxai OBDD as its DecisionGraph (vectorised predict); other models unchanged."""
    return model.to_graph() if hasattr(model, "to_graph") else model


def probabilities(model) -> tuple[Callable[[np.ndarray], np.ndarray], list]:
    """``(f, classes)``: ``f(X)`` is the array of class probabilities of the rows of ``X``
    (columns in the order of ``classes``). Deterministic models (decision graphs, OBDDs)
    put probability 1 on their class; XGBoost boosters give the sigmoid of the margin.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> clf = DecisionTreeClassifier().fit([[0], [1]], [0, 1])
    >>> f, classes = probabilities(clf)
    >>> f(np.array([[1]])).tolist(), classes
    ([[0.0, 1.0]], [0, 1])
    """
    model = _graph_model(model)
    if hasattr(model, "predict_proba") and hasattr(model, "classes_"):
        return model.predict_proba, [c.item() if hasattr(c, "item") else c
                                     for c in model.classes_]
    if is_xgboost(model):  # a Booster (an XGBClassifier has predict_proba)
        import xgboost as xgb

        def booster(X):
            p = np.asarray(model.predict(xgb.DMatrix(np.asarray(X, dtype=float))))
            return np.column_stack([1 - p, p]) if p.ndim == 1 else p

        return booster, [0, 1]
    if hasattr(model, "margin"):  # fxai Ensemble (binary)
        return (lambda X: _two(1 / (1 + np.exp(-model.margin(X))))), [0, 1]
    if hasattr(model, "classes") and hasattr(model, "predict"):  # DecisionGraph
        classes = sorted(model.classes)
        return (lambda X: (np.asarray(model.predict(X))[:, None]
                           == np.asarray(classes)[None]).astype(float)), classes
    if hasattr(model, "predict") and hasattr(model, "nu"):  # fxai XLC
        return (lambda X: _two(model.predict(X).astype(float))), [0, 1]
    raise TypeError(f"no class probabilities for a model of type {type(model).__name__}")


def predictor(model, domains=None) -> Callable[[np.ndarray], np.ndarray]:
    """A vectorised class predictor (rows of a 2-D array -> classes) for any model
    :func:`fxai.oracles.for_model` accepts: the converted model's own ``predict``
    (:func:`fxai.oracles.prepare`; an OBDD through its decision graph).

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> clf = DecisionTreeClassifier().fit([[0], [1]], [0, 1])
    >>> predictor(clf, [[0, 1]])(np.array([[1], [0]])).tolist()
    [1, 0]
    """
    from fxai.oracles import prepare

    conv = _graph_model(prepare(model, domains))
    for m in (conv, model):  # the converted model's predict, else the model's own
        if hasattr(m, "predict"):
            return m.predict
    raise TypeError(f"a model of type {type(model).__name__} has no predict")


def _two(p1: np.ndarray) -> np.ndarray:
    return np.column_stack([1 - p1, p1])


def predicted_column(model, x) -> tuple[Callable[[np.ndarray], np.ndarray], int]:
    """``(f, k)``: the probability function and the column ``k`` of the class predicted at
    ``x`` (the column with the largest probability)."""
    f, _ = probabilities(model)
    return f, int(np.argmax(f(np.asarray([x], dtype=float))[0]))


def _is_tree_model(model) -> bool:
    from fxai.models.kinds import is_kind

    return is_kind(model, "tree", "forest", "xgboost")


def shap_score(model, background, x, feature_names, seed: int = 0) -> list[float]:
    """SHAP values of ``x`` for the predicted class (see the module for the explainers).

    For XGBoost, TreeExplainer explains the margin (log-odds of class 1); the sign is
    turned so that positive values push towards the predicted class.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X = np.array([[a, b] for a in (0, 1) for b in (0, 1)])
    >>> clf = DecisionTreeClassifier(random_state=0).fit(X, X[:, 0])  # class = x0
    >>> [round(v, 3) for v in shap_score(clf, X, [1, 0], ["a", "b"])]
    [0.5, 0.0]
    """
    x = np.asarray(x, dtype=float)
    f, k = predicted_column(model, x)
    explainer = _shap_explainer(model, background)
    if _is_tree_model(model):
        values = np.asarray(explainer.shap_values(x[None]))
    else:
        np.random.seed(seed)  # KernelExplainer samples coalitions with numpy's global RNG
        values = np.asarray(explainer.shap_values(x[None], silent=True))
    if values.ndim == 3 and values.shape[0] == 1:  # (1, features, classes)
        return values[0, :, k].tolist()
    if values.ndim == 3:  # a list per class: (classes, 1, features)
        return values[k, 0].tolist()
    return (values[0] if k == 1 else -values[0]).tolist()  # XGBoost margin (class 1)


_EXPLAINERS: dict = {}  # (id(model), id(background)) -> (model, background, explainer)


def _shap_explainer(model, background):
    """One shap explainer per (model, background) object pair, reused across instances."""
    import shap

    key = (id(model), id(background))
    hit = _EXPLAINERS.get(key)
    if hit is not None and hit[0] is model and hit[1] is background:
        return hit[2]
    if _is_tree_model(model):
        explainer = shap.TreeExplainer(model)
    else:
        f, _ = probabilities(model)
        explainer = shap.KernelExplainer(lambda X: f(np.asarray(X, dtype=float)),
                                         np.asarray(background, dtype=float))
    if len(_EXPLAINERS) >= 8:
        _EXPLAINERS.clear()
    _EXPLAINERS[key] = (model, background, explainer)
    return explainer


def lime_score(model, background, x, feature_names, seed: int = 0,
               samples: int = 1000) -> list[float]:
    """LIME weights of ``x`` for the predicted class, every feature categorical.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X = np.array([[a, b] for a in (0, 1) for b in (0, 1)] * 4)
    >>> clf = DecisionTreeClassifier(random_state=0).fit(X, X[:, 0])  # class = x0
    >>> w = lime_score(clf, X, [1, 0], ["a", "b"])
    >>> abs(w[0]) > 0.9 > 0.05 > abs(w[1])
    True
    """
    from lime.lime_tabular import LimeTabularExplainer

    x = np.asarray(x, dtype=float)
    bg = np.asarray(background, dtype=float)
    f, k = predicted_column(model, x)
    explainer = LimeTabularExplainer(
        bg, mode="classification", feature_names=list(feature_names),
        categorical_features=list(range(len(x))), discretize_continuous=False,
        feature_selection="none", random_state=seed)
    exp = explainer.explain_instance(x, lambda X: f(np.asarray(X, dtype=float)), labels=(k,),
                                     num_features=len(x), num_samples=samples)
    out = [0.0] * len(x)
    for feat, w in exp.as_map()[k]:
        out[int(feat)] = float(w)
    return out


def load_score(spec: str) -> Score:
    """The function named ``module:function`` (a user's score); :class:`ScoreError` naming
    ``spec`` when it cannot be imported or is not callable.

    Examples
    --------
    >>> load_score("fxai.attribution.heuristic:lime_score") is lime_score
    True
    >>> load_score("no_such_module_xyz:f")
    Traceback (most recent call last):
    ...
    fxai.errors.ScoreError: score 'no_such_module_xyz:f': cannot import ...
    """
    module, sep, name = spec.partition(":")
    if not sep or not module or not name:
        raise ScoreError(f"score {spec!r}: expected 'module:function'")
    try:
        mod = importlib.import_module(module)
    except ImportError as err:
        raise ScoreError(f"score {spec!r}: cannot import module {module!r} ({err})") from None
    fn = getattr(mod, name, None)
    if not callable(fn):
        raise ScoreError(f"score {spec!r}: module {module!r} has no function {name!r}")
    return fn


def check_scores(spec: str, values, n: int) -> list[float]:
    """``values`` as ``n`` finite floats, else :class:`ScoreError` naming the score ``spec``.

    Examples
    --------
    >>> check_scores("mine:f", [1, 2.5], 2)
    [1.0, 2.5]
    >>> check_scores("mine:f", [1.0], 2)
    Traceback (most recent call last):
    ...
    fxai.errors.ScoreError: score 'mine:f' returned 1 values for 2 features
    """
    try:
        arr = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ScoreError(f"score {spec!r} returned {type(values).__name__}, not numbers"
                         ) from None
    if arr.size != n:
        raise ScoreError(f"score {spec!r} returned {arr.size} values for {n} features")
    if not np.all(np.isfinite(arr)):
        raise ScoreError(f"score {spec!r} returned a value that is not finite")
    return arr.tolist()
