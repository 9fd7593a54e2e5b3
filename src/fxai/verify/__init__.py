"""Independent checkers: they share no code with the algorithms they check.

``weak_axp_fn(model, x, domains)`` returns the family's own test "does fixing S to x
force the prediction?" for a batch of sets S (scikit-learn's predict on worst completions
for NBCs, leaf boxes for trees, ``dd`` restriction for OBDDs, a compiled leaf search backed by
a MILP for binary boosted trees, a MILP per rival class confirmed by the library for
multi-class boosted trees and random forests), found by the model's type in a registry
(:func:`register`, as the oracles are); ``check_all`` checks that AXps are sufficient and
subset-minimal and CXps the converse, many explanations per batch (entailment is monotone,
so single removals suffice).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

from fxai.models.kinds import is_kind, is_xgboost, xgboost_objective

__all__ = ["check_all", "joint_weak_axp_fn", "register", "weak_axp_fn"]

log = logging.getLogger(__name__)

WeakAXps = Callable[[list[set[int]]], list[bool]]
Builder = Callable[..., tuple[WeakAXps, list[int]]]
_CHECKERS: list[tuple[str, Callable[[object], bool], Builder]] = []


def register(name: str, accepts: Callable[[object], bool], build: Builder) -> None:
    """Register the checker ``build(model, x, domains, vote) -> (batched weak-AXp test,
    features)`` for models with ``accepts(model)`` (as :func:`fxai.oracles.register`).

    Parameters
    ----------
    name : str
        The checker's name (in messages).
    accepts : callable
        ``accepts(model) -> bool``.
    build : callable
        ``build(model, x, domains, vote) -> (weak-AXp test, features)``.

    Returns
    -------
    None
    """
    _CHECKERS.append((name, accepts, build))


def _each(weak_axp: Callable[[set[int]], bool]) -> WeakAXps:
    return lambda sets: [bool(weak_axp(s)) for s in sets]


def _is_binary_xgboost(model) -> bool:
    """A binary XGBoost model, its saved file, or its checker (:mod:`fxai.verify.boosted`)."""
    from fxai.verify.boosted import BoostedChecker

    if isinstance(model, str | Path | BoostedChecker):
        return True
    return is_xgboost(model) and xgboost_objective(model) == "binary:logistic"


def _is_score_model(model) -> bool:
    """A multi-class XGBoost model or a scikit-learn random forest."""
    if is_xgboost(model):
        return xgboost_objective(model).startswith("multi:")
    return is_kind(model, "forest")


def _of_kind(kind: str) -> Callable[[object], bool]:
    return lambda model: is_kind(model, kind)


def _nbc(model, x, domains, vote):
    from fxai.verify.nbc import weak_axp_fn as nbc_fn

    return nbc_fn(model, x), list(range(model.n_features_in_))


def _tree(model, x, domains, vote):
    from fxai.verify.xpg import TreeChecker

    chk = TreeChecker(model, x, domains)
    return _each(chk.weak_axp), list(range(chk.n))


def _obdd(model, x, domains, vote):
    from fxai.verify.xpg import BDDChecker

    chk = BDDChecker(model, x)
    return _each(chk.weak_axp), list(range(chk.n))


def _boosted(model, x, domains, vote):
    from fxai.verify.boosted import BoostedChecker

    chk = BoostedChecker(model, domains=domains)
    feats = list(range(chk.n_features))
    if domains is None:
        from fxai.verify.boosted_leaves import LeafProver

        prover = LeafProver(chk)
        return (lambda sets: prover.weak_axps(x, sets)), feats
    return _each(lambda fixed: chk.entails(x, fixed)), feats


def _scores(model, x, domains, vote, groups=None):
    from fxai.verify.scores import ScoreChecker
    from fxai.verify.votes import VoteChecker, pure_leaves

    if not is_xgboost(model) and (vote == "hard" or pure_leaves(model)):
        chk = VoteChecker(model, x, domains, vote or "soft", groups=groups)
        return chk.weak_axps, list(range(chk.n_features))
    chk = ScoreChecker(model, x, domains, vote, groups=groups)
    return chk.weak_axps, list(range(chk.n_features))


def joint_weak_axp_fn(model, x, groups, vote: str | None = None):
    """As :func:`weak_axp_fn`, with ``groups`` of features that take one of their rows of
    values jointly (:class:`fxai.verify.scores.ScoreChecker`), for a random forest or a
    multi-class XGBoost model; None for another model.

    Parameters
    ----------
    model : object
        A random forest or a multi-class XGBoost model.
    x : sequence
        The instance, one value per feature.
    groups : sequence
        The groups of features and their joint rows of values.
    vote : {"soft", "hard"} or None
        A random forest's vote rule.

    Returns
    -------
    tuple of (callable, list of int) or None
    """
    return _scores(model, x, None, vote, groups) if _is_score_model(model) else None


register("scikit-learn CategoricalNB", _of_kind("nbc"), _nbc)
register("scikit-learn DecisionTreeClassifier (and ExtraTreeClassifier)", _of_kind("tree"), _tree)
register("fxai OBDD",
         lambda model: "fxai.models.obdd" in {c.__module__ for c in type(model).__mro__}, _obdd)
register("XGBoost binary:logistic (Booster, XGBClassifier, saved file)", _is_binary_xgboost,
         _boosted)
register("XGBoost multi:softmax / multi:softprob, scikit-learn RandomForestClassifier / "
         "ExtraTreesClassifier", _is_score_model, _scores)


def _pipeline(model, x, domains, vote, limit=None):
    from fxai.verify.pipeline import PipelineChecker

    if domains is not None:
        raise TypeError("a Pipeline's checker takes no domains (its encoders give them)")
    chk = PipelineChecker(model, x, weak_axp_fn, vote, limit, joint_weak_axp_fn)
    return chk.weak_axps, list(range(chk.n))


register("scikit-learn Pipeline of encoders and scalers (by its last step's checker)",
         _of_kind("pipeline"), _pipeline)


def _grid(model, x, domains, vote, missing: bool = False):
    from fxai.verify import scores
    from fxai.verify.grid import GridChecker

    if scores.reads(model):  # one MILP per rival class
        milp = scores.ScoreChecker(model, x, domains, missing=missing)
        return milp.weak_axps, list(range(milp.n_features))
    chk = GridChecker(model, x, missing, domains)
    return chk.weak_axps, list(range(chk.n))


register("scikit-learn HistGradientBoostingClassifier, LightGBM LGBMClassifier / Booster "
         "(MILP; brute force over their thresholds with LightGBM's zero-as-missing)",
         lambda model: is_kind(model, "hist_gradient", "lightgbm"), _grid)


def weak_axp_fn(model, x, domains=None, vote: str | None = None) -> tuple[WeakAXps, list[int]]:
    """(batched weak-AXp test, the features it ranges over) for ``model`` at ``x``, by the
    checker registered for the model's type (``vote``: a random forest's vote rule).

    Parameters
    ----------
    model : object
        The fitted model.
    x : sequence
        The instance, one value per feature.
    domains : sequence or None
        The features' finite domains.
    vote : {"soft", "hard"} or None
        A random forest's vote rule.

    Returns
    -------
    tuple of (callable, list of int)
        ``test(sets) -> list of bool`` (does fixing each set to ``x`` force the prediction?)
        and the features it ranges over.
    """
    for _, accepts, build in _CHECKERS:
        if accepts(model):
            return build(model, x, domains, vote)
    raise TypeError(f"no checker for a model of type {type(model).__name__}; supported: "
                    + "; ".join(name for name, _, _ in _CHECKERS))


def check_all(model, x, axps: Sequence[Iterable[int]], cxps: Sequence[Iterable[int]],
              domains=None, batch: int = 2000, vote: str | None = None,
              time_limit: float | None = None, missing: bool = False,
              columns: Sequence[str] | None = None) -> tuple[list[bool], list[bool]]:
    """(is each AXp an AXp, is each CXp a CXp) of ``model`` at ``x``; for binary XGBoost
    (no domains) the compiled leaf search checks all of them in a few calls.

    ``x`` and ``domains`` as :func:`fxai.oracles.for_model` takes them (a row, a Series or
    dict by feature name, a DataFrame of domains). ``time_limit``: CPU seconds, checked
    between batches of ``batch`` explanations (:class:`~fxai.oracles.TimeLimitExceeded`,
    ``partial`` the number of explanations checked, None for binary XGBoost without
    domains, whose compiled checker stops between batches of its own); progress is logged
    (INFO of ``fxai.verify``) after each batch once 5 CPU s have passed. ``missing``: the
    features of a HistGradientBoostingClassifier or LightGBM model also range over NaN (as
    ``for_model(..., missing=True)``); ``columns``: the model's feature names in order, for a
    model fitted without (as ``for_model`` takes them).

    Parameters
    ----------
    model : object
        The fitted model, as :func:`fxai.oracles.for_model` takes it.
    x : sequence, dict or pandas.Series
        The instance.
    axps, cxps : sequence of iterable of int
        The explanations to check.
    domains : sequence, pandas.DataFrame or None
        The features' finite domains, as for :func:`fxai.oracles.for_model`.
    batch : int
        Explanations per checker call.
    vote : {"soft", "hard"} or None
        A random forest's vote rule.
    time_limit : float or None
        CPU seconds.
    missing : bool
        NaN a value of every feature (HistGradientBoosting, LightGBM).
    columns : sequence of str or None
        The model's feature names in order, for a model fitted without.

    Returns
    -------
    tuple of (list of bool, list of bool)
        Per AXp whether it is one (sufficient and subset-minimal), per CXp likewise.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> clf = DecisionTreeClassifier().fit([[0, 0], [0, 1], [1, 0], [1, 1]], [0, 0, 0, 1])
    >>> check_all(clf, [1, 1], axps=[[0, 1], [0]], cxps=[[0]], domains=[[0, 1], [0, 1]])
    ([True, False], [True])
    """
    from fxai.models import convert as conversion
    from fxai.models.schema import Schema, read_row
    from fxai.oracles.base import TimeLimitExceeded, valid_time_limit
    from fxai.oracles.registry import paired

    valid_time_limit(time_limit)
    axps, cxps = _explanations(axps, "axps"), _explanations(cxps, "cxps")
    t0 = time.process_time()
    model = paired(model)  # the way in of fxai.oracles.for_model: conversion, then schema
    conv = conversion.converter(model)
    conversion.check_keywords(conv, model, {"domains": domains, "vote": vote,
                                            "missing": missing}, "check_all")
    if conv is not None and conv.coded:  # raw values, in the model's column order
        schema = conversion.convert(conv, model, None, vote, missing).restricted(domains,
                                                                               columns)
        schema.read(x)  # a value the model cannot take is refused as for_model refuses it
        row = read_row(x, schema.names, alias=schema.alias)
        if conv.kind == "pipeline":  # checked column by column
            weak_axps, features = _pipeline(model, row, None, vote,
                                            None if time_limit is None else (t0, time_limit))
        else:  # NaN may be a value
            weak_axps, features = _grid(model, row, schema.values, vote, missing)
        return _check(weak_axps, features, axps, cxps, t0, batch, time_limit)
    schema = Schema.of(model, domains, columns)
    domains = schema.domain_list
    x = schema.read(x)[0]
    if domains is None and _is_binary_xgboost(model):
        from fxai.verify.boosted import BoostedChecker
        from fxai.verify.boosted_leaves import LeafProver

        deadline = None if time_limit is None else t0 + time_limit
        try:
            return LeafProver(BoostedChecker(model)).check(
                x, [list(a) for a in axps], [list(c) for c in cxps], deadline=deadline)
        except TimeoutError as e:
            raise TimeLimitExceeded(f"check_all: time limit of {time_limit} CPU s reached "
                                    f"({e})", time_limit, None) from e
    weak_axps, features = weak_axp_fn(model, x, domains, vote)
    return _check(weak_axps, features, axps, cxps, t0, batch, time_limit)


def _within(weak_axps: WeakAXps, sets: list[set[int]], t0: float, time_limit: float | None,
            out_of_time) -> list[bool]:
    """``weak_axps(sets)``; under a time limit in chunks of sets that grow while they take
    little of the time left, the limit checked between them (``out_of_time()`` raised)."""
    if time_limit is None:
        return weak_axps(sets)
    res: list[bool] = []
    size = 1
    while len(res) < len(sets):
        now = time.process_time()
        left = t0 + time_limit - now
        if left <= 0:
            raise out_of_time()
        res += weak_axps(sets[len(res):len(res) + size])
        if 4 * (time.process_time() - now) < left:
            size *= 2
    return res


def _explanations(xps, what: str) -> list[list[int]]:
    """``xps`` as lists of feature indices: TypeError naming ``what`` for anything else (a
    string, one flat list of numbers, a non-integer feature)."""
    def bad(got) -> TypeError:
        return TypeError(f"check_all: {what} must be a list of explanations, each a list of "
                         f"feature indices (e.g. [[0, 2], [1]]), not {got!r}")

    if isinstance(xps, str | bytes | dict) or not hasattr(xps, "__iter__"):
        raise bad(xps)
    out = []
    for xp in xps:
        if isinstance(xp, str | bytes | dict) or not hasattr(xp, "__iter__"):
            raise bad(xps)
        xp = list(xp)
        if any(isinstance(f, bool) or not isinstance(f, int | np.integer) or f < 0
               for f in xp):
            raise bad(xps)
        out.append([int(f) for f in xp])
    return out


def _check(weak_axps: WeakAXps, features: list[int], axps, cxps, t0: float, batch: int,
           time_limit: float | None) -> tuple[list[bool], list[bool]]:
    """check_all's batches: each explanation and its single-feature changes."""
    from fxai.oracles.base import TimeLimitExceeded

    features = set(features)
    outside = sorted({f for xp in [*axps, *cxps] for f in xp} - features)
    if outside:
        raise ValueError(f"check_all: features {outside} are not feature indices of the model "
                         f"(0..{max(features, default=-1)})")
    items = [("axp", set(a)) for a in axps] + [("cxp", set(c)) for c in cxps]
    ok: list[bool] = []

    def out_of_time(start: int) -> TimeLimitExceeded:
        return TimeLimitExceeded(f"check_all: time limit of {time_limit} CPU s reached after "
                                 f"{start} of {len(items)} explanations", time_limit, start)

    for start in range(0, len(items), batch):
        spent = time.process_time() - t0
        if time_limit is not None and spent >= time_limit:
            raise out_of_time(start)
        if start and spent >= 5.0:
            log.info("check_all: %d of %d explanations checked, %.1f CPU s", start,
                     len(items), spent)
        sets: list[set[int]] = []
        spans = []
        for kind, xp in items[start:start + batch]:
            base = xp if kind == "axp" else features - xp
            sets += [base] + [base - {i} if kind == "axp" else base | {i} for i in sorted(xp)]
            spans.append((kind, len(sets) - len(xp) - 1, len(sets)))
        res = _within(weak_axps, sets, t0, time_limit, lambda s=start: out_of_time(s))
        for kind, a, b in spans:
            head, rest = res[a], res[a + 1:b]
            ok.append(_verdict(head, rest) if kind == "axp" else
                      _verdict(_not(head), [_not(r) for r in rest]))
    return ok[:len(axps)], ok[len(axps):]


def _not(answer: bool | None) -> bool | None:
    return None if answer is None else not answer


def _verdict(head: bool | None, rest: list[bool | None]) -> bool | None:
    """An AXp's verdict from "its set keeps the class" and "each set with one feature less
    keeps it" (a CXp's from their negations on the complements): False when one answer
    refutes it, None when an undecided answer (None) leaves it open, else True."""
    if head is False or any(r is True for r in rest):
        return False
    if head is None or any(r is None for r in rest):
        return None
    return True
