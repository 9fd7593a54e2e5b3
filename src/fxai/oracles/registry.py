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
from collections.abc import Callable, Sequence

from fxai.models import convert as conversion
from fxai.models.convert import paired
from fxai.models.schema import Schema
from fxai.oracles.base import Oracle

SUPPORTED = ("fitted scikit-learn DecisionTreeClassifier, RandomForestClassifier, "
             "ExtraTreesClassifier or CategoricalNB, XGBoost Booster or XGBClassifier "
             "(binary:logistic, multi:softmax, multi:softprob), scikit-learn "
             "HistGradientBoostingClassifier, GradientBoostingClassifier or LightGBM, a "
             "scikit-learn "
             "Pipeline of encoders and scalers ending in one of those, fxai DecisionGraph, "
             "OBDD, Ensemble, ScoreEnsemble, NBCTables or XLC")

_BUILDERS: list[tuple[Callable[[object], bool], Callable[..., Oracle]]] = []
_LOADED = False


def register(accepts: Callable[[object], bool], build: Callable[..., Oracle]) -> None:
    """Register an oracle builder for models for which ``accepts(model)`` is true.

    Parameters
    ----------
    accepts : callable
        ``accepts(model) -> bool``: whether the builder explains ``model``.
    build : callable
        ``build(model, x, **kwargs) -> Oracle``, called by :func:`for_model`.

    Returns
    -------
    None
    """
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


def prepare(model: object, domains: Sequence | None = None, vote: str | None = None,
            missing: bool = False) -> object:
    """``model`` converted (afresh, no cache) to the form the oracles read.

    Returns a DecisionGraph for a scikit-learn tree (``domains[i]``: the values of a
    finite feature i, or None for a real one), an Ensemble for a binary XGBoost model, a
    ScoreEnsemble for a multi-class one and for a random forest (``vote``: "soft", the
    default and scikit-learn's ``predict``, or "hard", the majority of the trees' votes),
    an :class:`~fxai.models.coded.Encoded` model for a Pipeline, a
    HistGradientBoostingClassifier or a LightGBM model (``missing``: with a code for NaN in
    every feature; ``domains``: per column its raw values), and any other model unchanged.
    Raises ValueError (sklearn's ``NotFittedError``) for an unfitted scikit-learn or XGBoost
    model.

    Parameters
    ----------
    model : object
        A fitted model of a supported kind.
    domains : sequence or None
        Per feature its finite values, or None for a real feature (trees, Pipelines,
        HistGradientBoosting, LightGBM).
    vote : {"soft", "hard"} or None
        A random forest's vote rule (default "soft").
    missing : bool
        NaN a value of every feature (HistGradientBoosting, LightGBM).

    Returns
    -------
    object
        The converted model, which :func:`for_model` takes without converting again.

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
    model = paired(model)
    conv = conversion.converter(model)
    options = {"domains": domains, "vote": vote, "missing": missing}
    conversion.check_keywords(conv, model, options, "prepare")
    if conv is None:
        return model
    if conv.codes(missing):  # its domains restrict its columns' codes
        return conv.convert(model, None, vote, missing).restricted(domains)
    domains = Schema.of(model, domains).domain_list
    return conv.convert(model, domains, vote, missing)


def check_model(model: object, vote: str | None = None) -> None:
    """Raise ``TypeError`` (naming the step, for a Pipeline) when ``model`` is of a kind no
    oracle explains, before any row is read; the conversion is kept for :func:`for_model`.

    Parameters
    ----------
    model : object
        The fitted model to check.
    vote : {"soft", "hard"} or None
        A random forest's vote rule, as :func:`for_model` takes it.

    Returns
    -------
    None
        Raises TypeError (ValueError for a vote that does not apply) instead.
    """
    model = paired(model)
    conv = conversion.converter(model)
    conversion.check_keywords(conv, model, {"vote": vote}, "check_model")
    _load_builtin()
    if conv is None:
        _builder(model, model)
    else:
        conversion.convert(conv, model, None, vote)


def _builder(converted: object, model: object) -> Callable[..., Oracle]:
    for accepts, build in _BUILDERS:
        if accepts(converted):
            return build
    raise TypeError(f"no oracle for a model of type {type(model).__name__}; "
                    f"supported: {SUPPORTED}")


def for_model(model: object, x, **kwargs) -> Oracle:
    """The oracle for ``model`` at instance ``x`` (one row of feature values).

    The way in has three steps, in this order: the model is converted (once per fitted
    model object, :mod:`fxai.models.convert`), the row is read by the converted model's
    input schema (:mod:`fxai.models.schema`), and the oracle of its type is built.

    A scikit-learn ``Pipeline`` (or a fitted ``(ColumnTransformer, model)`` pair), a
    HistGradientBoostingClassifier and a LightGBM model are explained over their original
    columns (one feature per column, a one-hot group included; see
    :mod:`fxai.models.pipeline`): ``x`` is a raw row (text values as in the data), and the
    oracle's instance holds each column's code.

    ``model``: see ``SUPPORTED``. ``x``: a Series or dict by feature name, a 1-row
    DataFrame or a row of values. Keywords, the same for every model that takes them:
    ``domains`` (per feature a list of values, or None for a real one; or a DataFrame whose
    categorical, boolean and integer columns give finite domains), ``vote`` ("soft" or
    "hard": a random forest's vote rule, see :func:`prepare`), ``missing`` (NaN a value of
    every feature of a HistGradientBoosting or LightGBM model), ``columns`` (the model's
    feature names in order, for a model fitted without: a row given by name is then read
    by name); a keyword that does not apply raises TypeError saying why. Other keywords go
    to the oracle: ``ties`` for binary boosted trees, ``decimals`` for naive Bayes. The
    oracle's ``feature_names`` are the row's (or the model's, or the frame's). The first
    boosted oracle of a process loads compiled code (0.3-1.7 s; 9 s the first time after
    installation); :func:`fxai.oracles.warm_up` does that up front.

    Parameters
    ----------
    model : object
        A fitted model of a supported kind (``SUPPORTED``) or an fxai model.
    x : sequence, dict, pandas.Series or 1-row pandas.DataFrame
        The instance: its values in feature order, or by feature name.
    **kwargs
        ``domains``, ``vote``, ``missing``, ``columns`` (see above) and the oracle's own
        keywords (``ties``, ``decimals``).

    Returns
    -------
    Oracle
        The oracle of the converted model at ``x``; its ``prediction`` is the model's.

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
scikit-learn HistGradientBoostingClassifier, GradientBoostingClassifier or LightGBM, a \
scikit-learn Pipeline of encoders and scalers ending in one of those, fxai DecisionGraph, OBDD, \
Ensemble, ScoreEnsemble, NBCTables or XLC
    """
    options = {k: kwargs.pop(k, None) for k in conversion.KEYWORDS}
    columns = kwargs.pop("columns", None)
    _load_builtin()
    entry = conversion.way_in(model, x, options["domains"], options["vote"],
                              bool(options["missing"]), columns, "for_model",
                              refuse=lambda m: _builder(m, m))
    build = _builder(entry.converted, entry.model)
    _check_keywords(build, kwargs, entry.model, entry.kind)
    if entry.domains is not None:
        kwargs["domains"] = entry.domains
    oracle = build(entry.converted, entry.values, **kwargs)
    oracle.feature_names = entry.names
    oracle.value_labels = entry.labels if any(v is not None for v in entry.labels) else None
    return oracle


def _check_keywords(build: Callable[..., Oracle], kwargs: dict, model: object,
                    kind: str | None) -> None:
    """TypeError naming the keywords neither the model's conversion nor its oracle takes
    (and the nearest ones they do), before anything is built."""
    params = list(inspect.signature(build).parameters.values())[2:]
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return
    known = sorted({p.name for p in params if p.name not in conversion.KEYWORDS}
                   | set(conversion.takes(conversion.CONVERTERS.get(kind), model))
                   | {"columns"})
    unknown = sorted(set(kwargs) - set(known))
    if unknown:
        near = {k: difflib.get_close_matches(k, known, n=1) for k in unknown}
        hints = "".join(f"; did you mean {m[0]!r} for {k!r}?" for k, m in near.items() if m)
        raise TypeError(f"for_model: a {type(model).__name__} takes no keyword "
                        f"{', '.join(map(repr, unknown))} (it takes {known})"
                        f"{hints}")
