"""Pick the oracle for a model object: ``for_model(model, x)``; ``prepare(model)`` converts.

Models are recognised by type (``isinstance``, so subclasses work), checked to be fitted,
and converted to the form the oracles read: a scikit-learn tree to a
:class:`~fxai.models.dgraph.DecisionGraph`, an XGBoost ``Booster`` or ``XGBClassifier``
to a :class:`~fxai.models.boosted.Ensemble`. Converting costs 1-2 ms for a tree and
35-75 ms for a 25-tree booster, so ``for_model`` converts each model once and keeps the
result while the model object lives (keyed by the object's identity; an XGBoost booster
also by its number of boosting rounds, a tree by its fitted ``tree_`` and the domains).
A model changed in place in another way (``Booster.load_model`` into the same object,
``set_param``) is not noticed: call :func:`prepare` yourself and pass its result.
"""

from __future__ import annotations

import difflib
import inspect
import weakref
from collections.abc import Callable, Sequence

from fxai.models.coded import missing_value, raw_row
from fxai.oracles.base import Oracle
from fxai.oracles.instance import resolve

SUPPORTED = ("fitted scikit-learn DecisionTreeClassifier, RandomForestClassifier, "
             "ExtraTreesClassifier or CategoricalNB, XGBoost Booster or XGBClassifier "
             "(binary:logistic, multi:softmax, multi:softprob), scikit-learn "
             "HistGradientBoostingClassifier or LightGBM, a scikit-learn "
             "Pipeline of encoders and scalers ending in one of those, fxai DecisionGraph, "
             "OBDD, Ensemble, ScoreEnsemble, NBCTables or XLC")

_BUILDERS: list[tuple[Callable[[object], bool], Callable[..., Oracle]]] = []
_LOADED = False
_CACHE: dict[int, tuple[weakref.ref, object, object]] = {}  # id -> (ref, stamp, converted)


def register(accepts: Callable[[object], bool], build: Callable[..., Oracle]) -> None:
    """Register an oracle builder for models for which ``accepts(model)`` is true."""
    _BUILDERS.append((accepts, build))


def _load_builtin() -> None:
    """Import the oracle modules so that they register themselves."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    import importlib

    for name in ("nbc", "xpg", "boosted", "scores", "votes", "soft_votes"):
        importlib.import_module(f"fxai.oracles.{name}")


def _paired(model: object) -> object:
    """A ``(transformer, model)`` pair as the Pipeline of the two (its conversion is cached
    by the model object, as a Pipeline's); anything else unchanged."""
    if not (isinstance(model, tuple) and len(model) == 2 and _is_sklearn(model[0])
            and hasattr(model[0], "transform")):
        return model
    from fxai.models.pipeline import make

    return make(*model)


def prepare(model: object, domains: Sequence | None = None, vote: str | None = None,
            missing: bool = False) -> object:
    """``model`` converted (afresh, no cache) to the form the oracles read.

    Returns a DecisionGraph for a scikit-learn tree (``domains[i]``: the values of a
    finite feature i, or None for a real one), an Ensemble for a binary XGBoost model, a
    ScoreEnsemble for a multi-class one and for a random forest (``vote``: "soft", the
    default and scikit-learn's ``predict``, or "hard", the majority of the trees' votes),
    an :class:`~fxai.models.coded.Encoded` model for a Pipeline, a
    HistGradientBoostingClassifier or a LightGBM model (``missing``: with a code for NaN in
    every feature), and any other model unchanged. Raises ValueError (sklearn's
    ``NotFittedError``) for an unfitted scikit-learn or XGBoost model.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> clf = DecisionTreeClassifier().fit([[0, 0], [0, 1], [1, 0], [1, 1]], [0, 0, 0, 1])
    >>> g = prepare(clf, domains=[[0, 1], [0, 1]])  # convert once ...
    >>> [for_model(g, x).prediction for x in ([1, 1], [0, 1])]  # ... explain many
    [1, 0]
    >>> prepare(DecisionTreeClassifier())
    Traceback (most recent call last):
    ...
    sklearn.exceptions.NotFittedError: This DecisionTreeClassifier instance is not fitted \
yet. Call 'fit' with appropriate arguments before using this estimator.
    """
    model = _paired(model)
    kind, owner = _kind(model)
    if vote is not None and kind != "forest" and not (kind == "pipeline"
                                                      and _is_forest_kind(model.steps[-1][1])):
        raise TypeError(f"vote applies to random forests only, not to a {type(model).__name__}")
    if kind == "pipeline":
        from fxai.models import pipeline

        return pipeline.read(model, vote=vote or "soft")
    if kind == "hist_gradient":
        from fxai.models import hist_gradient

        return hist_gradient.from_sklearn(model, missing)
    if kind == "lightgbm":
        from fxai.models import lgbm

        return lgbm.from_lightgbm(model, missing)
    if kind == "tree":
        from fxai.models.dtree import from_sklearn

        return from_sklearn(model, domains=domains)
    if kind == "forest":
        from fxai.models import forest

        return forest.from_sklearn(model, vote=vote or "soft")
    if kind == "xgboost":
        from fxai.models.scores import convert

        return convert(owner)
    return model


def _kind(model: object) -> tuple[str, object]:
    """("tree" | "forest" | "xgboost" | "pipeline" | "hist_gradient" | "other", the object
    whose identity keys the cache)."""
    if _is_sklearn(model):
        from fxai.models.pipeline import is_pipeline

        if is_pipeline(model):  # cached by its last step (a pair's new Pipeline hits)
            return "pipeline", model.steps[-1][1]
        from sklearn.tree import DecisionTreeClassifier
        from sklearn.utils.validation import check_is_fitted

        from fxai.models.forest import is_forest

        check_is_fitted(model)
        if isinstance(model, DecisionTreeClassifier):
            return "tree", model
        if is_forest(model):
            return "forest", model
        from fxai.models.hist_gradient import is_hist_gradient

        if is_hist_gradient(model):
            return "hist_gradient", model
    from fxai.models.lgbm import is_lightgbm

    if is_lightgbm(model):  # (an LGBMClassifier was checked to be fitted above)
        from fxai.models.lgbm import booster

        return "lightgbm", booster(model)
    if _is_xgboost(model):
        import xgboost as xgb

        return "xgboost", model if isinstance(model, xgb.Booster) else model.get_booster()
    return "other", model


def _is_sklearn(model: object) -> bool:
    try:
        from sklearn.base import BaseEstimator
    except ModuleNotFoundError:
        return False
    return isinstance(model, BaseEstimator)


def _is_xgboost(model: object) -> bool:
    try:
        import xgboost as xgb
    except ModuleNotFoundError:
        return False
    return isinstance(model, xgb.Booster | xgb.XGBModel)


def _converted(model: object, domains: Sequence | None, vote: str | None,
               missing: bool = False) -> object:
    """:func:`prepare`'s result, computed once per live model object (see the module)."""
    kind, owner = _kind(model)
    if kind == "other":
        return prepare(model, domains, vote)
    if kind == "tree":
        dkey = None if domains is None else tuple(None if d is None else tuple(d)
                                                   for d in domains)
        stamp: object = (model.tree_, dkey, vote)
    elif kind == "forest":
        # the trees themselves (not their ids, which a refit's new trees may reuse)
        stamp = (tuple(e.tree_ for e in model.estimators_), vote)
    elif kind == "pipeline":  # every step's fitted attributes (a refit makes new ones)
        stamp = (vote, *(v for _, s in model.steps
                         for k, v in sorted(getattr(s, "__dict__", {}).items())
                         if k.endswith("_") and not k.startswith("__")))
    elif kind == "hist_gradient":
        stamp = (model._predictors, missing)  # a refit makes a new list
    elif kind == "lightgbm":
        stamp = (owner.current_iteration(), owner.best_iteration, missing)
    else:
        stamp = (owner.num_boosted_rounds(), vote)
    key = id(owner)
    hit = _CACHE.get(key)
    if hit is not None and hit[0]() is owner and _same(hit[1], stamp):
        return hit[2]
    value = prepare(owner if kind == "xgboost" else model, domains, vote, missing)
    _CACHE[key] = (weakref.ref(owner, lambda _, k=key, c=_CACHE: c.pop(k, None)), stamp, value)
    return value


def check_model(model: object, vote: str | None = None) -> None:
    """Raise ``TypeError`` (naming the step, for a Pipeline) when ``model`` is of a kind no
    oracle explains, before any row is read; the conversion is kept for :func:`for_model`."""
    model = _paired(model)
    _load_builtin()
    kind = _kind(model)[0]
    if kind == "other" and not any(accepts(model) for accepts, _ in _BUILDERS):
        raise TypeError(f"no oracle for a model of type {type(model).__name__}; "
                        f"supported: {SUPPORTED}")
    if kind in ("forest", "xgboost", "pipeline", "hist_gradient", "lightgbm"):
        _converted(model, None, vote)


def _same(a, b) -> bool:
    """Stamps equal: the same objects (numbers and strings: equal values)."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(u, v) for u, v in zip(a, b, strict=True))
    if isinstance(a, int | float | str | type(None)) and type(a) is type(b):
        return a == b
    return a is b


def for_model(model: object, x, **kwargs) -> Oracle:
    """The oracle for ``model`` at instance ``x`` (one row of feature values).

    A scikit-learn ``Pipeline`` (or a fitted ``(ColumnTransformer, model)`` pair) is
    explained over its original columns (one feature per
    column, a one-hot group included; see :mod:`fxai.models.pipeline`): ``x`` is a raw row
    (text values as in the data), and the oracle's instance holds each column's code.

    ``model``: see ``SUPPORTED``; each is converted once (:func:`prepare`, cached while
    the object lives). ``x``: a Series or dict by feature name, a 1-row DataFrame or a
    row of values; ``domains`` may be a DataFrame (its categorical, boolean and integer
    columns give finite domains); the oracle's ``feature_names`` are the model's (or the
    frame's), see :mod:`fxai.oracles.instance`. Keywords go to the oracle: ``domains``
    (per feature a list of values, or None for a real one) for trees and tree ensembles,
    ``ties`` for binary boosted trees, ``decimals`` for naive Bayes; ``vote`` ("soft" or
    "hard") chooses a random forest's vote rule (see :func:`prepare`). The first boosted
    oracle of a process loads compiled code (0.3-1.7 s; 9 s the first time after
    installation); :func:`fxai.oracles.warm_up` does
    that up front.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> clf = DecisionTreeClassifier().fit([[0, 0], [0, 1], [1, 0], [1, 1]], [0, 0, 0, 1])
    >>> o = for_model(clf, [1, 1], domains=[[0, 1], [0, 1]])
    >>> o.prediction, o.entails([0, 1]), o.entails([0])
    (1, True, False)
    >>> for_model("a model", [1, 1])
    Traceback (most recent call last):
    ...
    TypeError: no oracle for a model of type str; supported: fitted scikit-learn \
DecisionTreeClassifier, RandomForestClassifier, ExtraTreesClassifier or CategoricalNB, \
XGBoost Booster or XGBClassifier (binary:logistic, multi:softmax, multi:softprob), \
scikit-learn HistGradientBoostingClassifier or LightGBM, a scikit-learn \
Pipeline of encoders and scalers ending in one of those, fxai DecisionGraph, OBDD, \
Ensemble, ScoreEnsemble, NBCTables or XLC
    """
    model = _paired(model)
    vote = kwargs.pop("vote", None)
    check_model(model, vote)  # an unsupported model or variant before the row is read
    kind = _kind(model)[0]
    if kind == "pipeline":
        if kwargs.pop("domains", None) is not None:
            raise TypeError("for_model: a Pipeline takes no keyword 'domains' (its encoders "
                            "and the model's splits give every column's domain)")
        encoded = _converted(model, None, vote)
        x, labels = encoded.row(x)
        names, converted = encoded.names, encoded.model
    elif kind in ("hist_gradient", "lightgbm"):
        x, labels, kwargs, encoded = _with_missing(model, x, kwargs, vote)
        names, converted = encoded.names, encoded.model
    else:
        x, kwargs, names, labels = resolve(model, x, kwargs)
        converted = _converted(model, kwargs.get("domains"), vote)
    for accepts, build in _BUILDERS:
        if accepts(converted):
            _check_keywords(build, kwargs, model)
            oracle = build(converted, x, **kwargs)
            oracle.feature_names = names
            oracle.value_labels = labels if any(v is not None for v in labels) else None
            return oracle
    raise TypeError(f"no oracle for a model of type {type(model).__name__}; "
                    f"supported: {SUPPORTED}")


def _with_missing(model, x, kwargs: dict, vote) -> tuple:
    """(codes, labels, oracle keywords, the Encoded model) of a HistGradientBoosting or
    LightGBM instance: with ``missing=True`` a missing value (NaN) is a value of every
    feature, routed as the model routes it; by default the features are real and a NaN
    instance is refused."""
    kwargs = dict(kwargs)
    missing = bool(kwargs.pop("missing", False))
    if kwargs.pop("domains", None) is not None:
        raise TypeError(f"for_model: a {type(model).__name__} takes no keyword 'domains' (its "
                        "features are real; missing=True adds NaN)")
    encoded = _converted(model, None, vote, missing)
    if not missing:
        for name, v in zip(encoded.names, raw_row(x, encoded.names), strict=True):
            if missing_value(v):
                raise ValueError(f"feature {name!r} is missing (NaN): pass missing=True "
                                 "(fxai explain: --missing) to explain it as a value of its "
                                 "own, routed as the model routes it (docs/semantics.md)")
    codes, labels = encoded.row(x)
    return codes, labels, kwargs, encoded


def _check_keywords(build: Callable[..., Oracle], kwargs: dict, model: object) -> None:
    """TypeError naming the keywords the model's oracle does not take (and the nearest
    ones it does), before anything is built."""
    params = list(inspect.signature(build).parameters.values())[2:]
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return
    known = [p.name for p in params] + ["vote"] * _is_forest_kind(model)
    unknown = sorted(set(kwargs) - set(known))
    if unknown:
        near = {k: difflib.get_close_matches(k, known, n=1) for k in unknown}
        hints = "".join(f"; did you mean {m[0]!r} for {k!r}?" for k, m in near.items() if m)
        raise TypeError(f"for_model: a {type(model).__name__} takes no keyword "
                        f"{', '.join(map(repr, unknown))} (it takes {known}){hints}")


def _is_forest_kind(model: object) -> bool:
    return _kind(model)[0] == "forest"
