"""Results in the user's terms: ``names(o, result)`` maps the 0-based indices of any
result to feature names; ``describe(o, xp)`` states one explanation with the instance's
values and the predicted class.

The explainers return sorted 0-based indices; the oracle knows the feature names when
:func:`fxai.oracles.for_model` found them (the model's ``feature_names_in_``, an XGBoost
booster's ``feature_names`` or a ``domains`` DataFrame's columns).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np

from fxai.explain.exact import AllXps
from fxai.oracles.base import Oracle
from fxai.values import plain


def names(o: Oracle, result):
    """``result`` with every feature index replaced by its name on ``o``.

    ``result``: an index, a list/tuple/set of indices, a list of explanations, an FFA
    dict (keys mapped), an ``(ffa, complete)`` pair or an :class:`AllXps` (its ``axps``
    and ``cxps`` mapped). Without names on ``o`` the indices become ``"x0"``, ``"x1"``...

    Parameters
    ----------
    o : Oracle
        The oracle whose ``feature_names`` name the indices.
    result : int, collection, dict, tuple or AllXps
        What an algorithm returned.

    Returns
    -------
    object
        ``result`` of the same shape, with names for indices.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from fxai import explain, oracles
    >>> X = pd.DataFrame({"age": [20, 30, 40, 50], "smoker": [0, 1, 0, 1]})
    >>> clf = DecisionTreeClassifier().fit(X, [0, 0, 0, 1])
    >>> o = oracles.for_model(clf, {"age": 50, "smoker": 1})
    >>> names(o, explain.find_axp(o)), names(o, explain.ffa(o))
    (['age'], ({'age': 1.0}, True))
    """
    label = list(o.feature_names) if o.feature_names is not None else [
        f"x{i}" for i in range(o.n_features)]

    def go(r):
        if r is None or isinstance(r, bool | float):
            return r
        if isinstance(r, int | np.integer):
            return label[index(o, r, "names")]
        if isinstance(r, AllXps):
            return dataclasses.replace(r, axps=go(r.axps), cxps=go(r.cxps))
        if isinstance(r, Mapping):
            return {label[index(o, k, "names")]: v for k, v in r.items()}
        if isinstance(r, str | bytes) or not hasattr(r, "__iter__"):
            raise TypeError(f"names: cannot map a {type(r).__name__} ({r!r}); pass feature "
                            "indices, lists of them, an FFA dict or an AllXps")
        if isinstance(r, set | frozenset):
            return {go(v) for v in r}
        return type(r)(go(v) for v in r) if isinstance(r, tuple) else [go(v) for v in r]

    return go(result)


def index(o: Oracle, f, what: str) -> int:
    """``f`` as a feature index of ``o``: TypeError for a non-integer, ValueError out of
    range (both naming ``what``)."""
    if isinstance(f, bool) or not isinstance(f, int | np.integer):
        raise TypeError(f"{what}: feature {f!r} is a {type(f).__name__}, not a feature index "
                        f"(an integer 0..{o.n_features - 1})")
    if not 0 <= f < o.n_features:
        raise ValueError(f"{what}: feature index {f} is out of range 0..{o.n_features - 1}")
    return int(f)


def indices(o: Oracle, xp, what: str) -> tuple[int, ...]:
    """The explanation ``xp`` as sorted feature indices of ``o`` (errors as :func:`index`)."""
    if isinstance(xp, str | bytes | Mapping) or not hasattr(xp, "__iter__"):
        raise TypeError(f"{what}: an explanation is a list of feature indices, not a "
                        f"{type(xp).__name__} ({xp!r})")
    return tuple(sorted({index(o, f, what) for f in xp}))


@dataclasses.dataclass(frozen=True)
class Explanation:
    """One explanation in the user's terms: ``kind`` ("axp" or "cxp"), the features (0-based
    indices) with their names and the instance's values, and the predicted class. ``str``
    states it: an AXp as the rule its values make, a CXp as the values whose change can
    change the class. ``minimal`` false: a weak one (reached at a time limit; it holds but
    may have features to spare), and ``str`` says so first.

    Attributes
    ----------
    kind : {"axp", "cxp"}
    features : tuple of int
        0-based feature indices.
    names : tuple of str
        Their names.
    values : tuple
        The instance's values of those features, as the user gave them.
    prediction : object
        The predicted class.
    minimal : bool
        False for a weak explanation.
    """

    kind: str
    features: tuple[int, ...]
    names: tuple[str, ...]
    values: tuple
    prediction: object
    minimal: bool = True

    def __str__(self) -> str:
        pairs = [f"{n} = {v!r}" for n, v in zip(self.names, self.values, strict=True)]
        weak = "" if self.minimal else (f"(weak {self.kind.upper()}, not minimal: the time "
                                        "limit was reached) ")
        if self.kind == "axp":
            return (f"{weak}IF {' AND '.join(pairs) or 'anything'} THEN class "
                    f"{self.prediction!r}")
        return (f"{weak}class {self.prediction!r} can change when only these change: "
                f"{', '.join(pairs)}")


def describe(o: Oracle, xp, kind: str = "axp", minimal: bool = True) -> Explanation:
    """The explanation ``xp`` (feature indices, e.g. of :func:`~fxai.explain.find_axp`) of
    ``o``'s instance as an :class:`Explanation`; ``kind``: "axp" or "cxp"; ``minimal``
    false for a weak one (the ``partial`` of a time limit), which it then says.

    What it states is asked of the oracle first (``1 + len(xp)`` questions with
    ``minimal``, else one): a set that is not what ``kind`` and ``minimal`` say is a
    ``ValueError`` naming the mistake, never a false rule.

    Parameters
    ----------
    o : Oracle
        The oracle of the model at the instance.
    xp : iterable of int
        The explanation's features.
    kind : {"axp", "cxp"}
    minimal : bool
        False for a weak explanation.

    Returns
    -------
    Explanation

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from fxai import explain, oracles
    >>> X = pd.DataFrame({"age": [20, 30, 40, 50], "smoker": [0, 1, 0, 1]})
    >>> clf = DecisionTreeClassifier().fit(X, ["no", "no", "no", "yes"])
    >>> o = oracles.for_model(clf, {"age": 50, "smoker": 1})
    >>> print(describe(o, explain.find_axp(o)))
    IF age = 50 THEN class 'yes'
    >>> print(describe(o, explain.find_cxp(o), "cxp"))
    class 'yes' can change when only these change: age = 50

    Categories of a ``domains`` frame show as their labels:

    >>> df = pd.DataFrame({"colour": pd.Categorical(["red", "blue", "red"]), "n": [1, 2, 3]})
    >>> from fxai.oracles.instance import encode
    >>> clf = DecisionTreeClassifier().fit(encode(df), [1, 0, 1])
    >>> o = oracles.for_model(clf, {"colour": "blue", "n": 2}, domains=df)
    >>> print(describe(o, explain.find_axp(o)))
    IF colour = 'blue' THEN class 0

    A set that is not what ``kind`` says is refused:

    >>> describe(o, [1])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: describe: fixing ['n'] does not keep class 0 (a point with the others free ...
    """
    if kind not in ("axp", "cxp"):
        raise ValueError(f"kind must be 'axp' or 'cxp', not {kind!r}")
    feats = indices(o, xp, "describe")
    _check(o, feats, kind, minimal)
    return explanation(o, feats, kind, minimal)


def _check(o: Oracle, feats: tuple[int, ...], kind: str, minimal: bool) -> None:
    """Raise ``ValueError`` unless ``feats`` is an AXp / CXp of ``o`` (a weak one unless
    ``minimal``): the rule :func:`describe` would print must hold."""
    every = set(range(o.n_features))
    # holds(S): the defining property (an AXp's S fixed keeps the class; a CXp's S freed
    # can change it)
    holds = (lambda s: o.entails(set(s))) if kind == "axp" else (
        lambda s: not o.entails(every - set(s)))
    shown, cls = names(o, list(feats)), plain(o.prediction)
    if not holds(feats):
        raise ValueError(
            f"describe: fixing {shown} does not keep class {cls!r} (a point with the others "
            "free is of another class): not an AXp" if kind == "axp" else
            f"describe: freeing {shown} cannot change class {cls!r}: not a CXp")
    if minimal:
        for f in feats:
            if holds(set(feats) - {f}):
                raise ValueError(
                    f"describe: {shown} is a weak {kind.upper()}, not minimal: without "
                    f"{names(o, f)!r} it still {'keeps' if kind == 'axp' else 'can change'} "
                    f"class {cls!r}; pass minimal=False to describe it as weak")


def explanation(o: Oracle, feats, kind: str, minimal: bool) -> Explanation:
    """The :class:`Explanation` of sorted feature indices ``feats``, unchecked (for the
    callers that computed them as ``kind``: :func:`fxai.explain.explain_rows`)."""
    shown = values(o)
    return Explanation(kind, feats, tuple(names(o, list(feats))),
                       tuple(shown[f] for f in feats), plain(o.prediction), bool(minimal))


def values(o: Oracle) -> list:
    """The instance's values as the user gave them: category labels (of a ``domains``
    frame) for coded features, plain numbers otherwise.

    Parameters
    ----------
    o : Oracle
        The oracle of the model at the instance.

    Returns
    -------
    list
        One value per feature.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from fxai import oracles
    >>> from fxai.oracles.instance import encode
    >>> df = pd.DataFrame({"colour": ["red", "blue", "red"], "n": [1, 2, 3]})
    >>> clf = DecisionTreeClassifier().fit(encode(df), [1, 0, 1])
    >>> values(oracles.for_model(clf, {"colour": "blue", "n": 2}, domains=df))
    ['blue', 2]
    """
    labels = o.value_labels or [None] * o.n_features
    return [plain(v) if labels[f] is None else labels[f][int(v)]
            for f, v in enumerate(o.instance)]
