"""``check_all`` and the checkers' table: a model comes in by the one way in of the oracles
(:func:`fxai.models.convert.way_in`: its kind asked once, its keywords checked, its row read
by its schema) and its checker is the table's entry for that kind (:data:`CHECKERS`), or
for fxai's own models one registered by :func:`register`.

A checker is built as ``build(model, x, domains, options)`` and gives a :class:`Checker`:
the batched test "does fixing S to x force the prediction?" (True, False, or None where it
cannot decide exactly) over its features, and for binary XGBoost a whole-batch check of
explanations.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from fxai.models.kinds import is_kind, kind, xgboost_objective

log = logging.getLogger("fxai.verify")

WeakAXps = Callable[[list[set[int]]], list[bool | None]]


class Checker(NamedTuple):
    """A family's checker at one instance: ``weak_axps(sets)`` over ``features``; ``check``:
    ``check(axps, cxps, deadline)``, a whole-batch check where the family has one."""

    weak_axps: WeakAXps
    features: list[int]
    check: Callable | None = None


@dataclass(frozen=True)
class Options:
    """The keywords a checker may read: a forest's ``vote``, a binary XGBoost model's
    ``ties``, ``missing`` (NaN a value), ``limit`` ((start, CPU s) of a Pipeline's
    enumeration) and ``groups`` (features that take rows of values jointly)."""

    vote: str | None = None
    ties: str = "change"
    missing: bool = False
    limit: tuple[float, float] | None = None
    groups: Sequence | None = None


def _each(weak_axp: Callable[[set[int]], bool]) -> WeakAXps:
    return lambda sets: [bool(weak_axp(s)) for s in sets]


def _nbc(model, x, domains, opt: Options) -> Checker:
    from fxai.verify.nbc import weak_axp_fn as nbc_fn

    return Checker(nbc_fn(model, x), list(range(model.n_features_in_)))


def _tree(model, x, domains, opt: Options) -> Checker:
    from fxai.verify.xpg import TreeChecker

    chk = TreeChecker(model, x, domains)
    return Checker(_each(chk.weak_axp), list(range(chk.n)))


def _scores(model, x, domains, opt: Options) -> Checker:
    """The MILP per rival class (multi-class XGBoost, forests, HistGradientBoosting,
    GradientBoosting and LightGBM)."""
    from fxai.verify.scores import ScoreChecker

    chk = ScoreChecker(model, x, domains, opt.vote, groups=opt.groups, missing=opt.missing)
    return Checker(chk.weak_axps, list(range(chk.n_features)))


def _forest(model, x, domains, opt: Options) -> Checker:
    """A random forest: its vote count by SAT (a hard vote, or a soft one of pure leaves),
    else the MILP."""
    from fxai.verify.votes import VoteChecker, pure_leaves

    if opt.vote == "hard" or pure_leaves(model):
        chk = VoteChecker(model, x, domains, opt.vote or "soft", groups=opt.groups,
                          missing=opt.missing)
        return Checker(chk.weak_axps, list(range(chk.n_features)))
    return _scores(model, x, domains, opt)


def _binary(model, x, domains, opt: Options) -> Checker:
    """A binary XGBoost model (or its saved file, or its checker): the compiled leaf search
    without domains, the MILP with them."""
    from fxai.verify.boosted import BoostedChecker
    from fxai.verify.boosted_leaves import LeafProver

    chk = model if isinstance(model, BoostedChecker) else BoostedChecker(
        model, ties=opt.ties, domains=domains)
    feats = list(range(chk.n_features))
    if domains is not None:
        return Checker(_each(lambda fixed: chk.entails(x, fixed)), feats)
    prover = LeafProver(chk)
    return Checker(lambda sets: prover.weak_axps(x, sets), feats,
                   lambda axps, cxps, deadline: prover.check(x, axps, cxps, deadline=deadline))


def _xgboost(model, x, domains, opt: Options) -> Checker:
    build = _binary if xgboost_objective(model) == "binary:logistic" else _scores
    return build(model, x, domains, opt)


def _grid(model, x, domains, opt: Options) -> Checker:
    """HistGradientBoosting, LightGBM: the MILP where it reads the model, else brute force
    over their thresholds (LightGBM's zero-as-missing)."""
    from fxai.verify import scores
    from fxai.verify.grid import GridChecker

    if scores.reads(model):
        return _scores(model, x, domains, opt)
    chk = GridChecker(model, x, opt.missing, domains)
    return Checker(chk.weak_axps, list(range(chk.n)))


def _pipeline(model, x, domains, opt: Options) -> Checker:
    from fxai.verify.pipeline import PipelineChecker

    def last(step, z, doms, vote):  # the last step's checker, by the table
        return weak_axp_fn(step, z, doms, vote, ties=opt.ties)

    chk = PipelineChecker(model, x, last, opt.vote, opt.limit, joint_weak_axp_fn)
    return Checker(chk.weak_axps, list(range(chk.n)))


#: kind (:mod:`fxai.models.kinds`) -> its checker
CHECKERS: dict[str, Callable[..., Checker]] = {
    "nbc": _nbc, "tree": _tree, "forest": _forest, "xgboost": _xgboost,
    "hist_gradient": _grid, "lightgbm": _grid, "pipeline": _pipeline,
    "gradient_boosting": _scores,
}
#: what each kind's checker is, for messages
NAMES = {
    "nbc": "scikit-learn CategoricalNB",
    "tree": "scikit-learn DecisionTreeClassifier (and ExtraTreeClassifier)",
    "forest": "scikit-learn RandomForestClassifier / ExtraTreesClassifier",
    "xgboost": "XGBoost binary:logistic, multi:softmax, multi:softprob",
    "hist_gradient": "scikit-learn HistGradientBoostingClassifier",
    "gradient_boosting": "scikit-learn GradientBoostingClassifier",
    "lightgbm": "LightGBM LGBMClassifier / Booster",
    "pipeline": "scikit-learn Pipeline of encoders and scalers (by its last step's checker)",
}
_OWN: list[tuple[str, Callable[[object], bool], Callable[..., Checker]]] = []


def register(name: str, accepts: Callable[[object], bool], build: Callable[..., Checker]
             ) -> None:
    """Register the checker ``build(model, x, domains, options) -> Checker`` of a model type
    of no library kind (fxai's own models, a new family), for models with
    ``accepts(model)``.

    Parameters
    ----------
    name : str
        The checker's name (in messages).
    accepts : callable
        ``accepts(model) -> bool``.
    build : callable
        ``build(model, x, domains, options) -> Checker``.

    Returns
    -------
    None
    """
    _OWN.append((name, accepts, build))


def _obdd(model, x, domains, opt: Options) -> Checker:
    from fxai.verify.xpg import BDDChecker

    chk = BDDChecker(model, x)
    return Checker(_each(chk.weak_axp), list(range(chk.n)))


def _is_obdd(model) -> bool:
    from fxai.models.obdd import OBDD

    return isinstance(model, OBDD)


def _is_boosted_checker(model) -> bool:
    from fxai.verify.boosted import BoostedChecker

    return isinstance(model, str | Path | BoostedChecker)


register("fxai OBDD", _is_obdd, _obdd)
register("a saved binary XGBoost model or its BoostedChecker", _is_boosted_checker, _binary)


def _builder(model, k: str | None) -> Callable[..., Checker]:
    """The checker of ``model`` of kind ``k``: the kind's, else a registered one; TypeError
    naming the supported ones."""
    if k is not None:
        return CHECKERS[k]
    for _, accepts, build in _OWN:
        if accepts(model):
            return build
    raise TypeError(f"no checker for a model of type {type(model).__name__}; supported: "
                    + "; ".join([*NAMES.values(), *(name for name, _, _ in _OWN)]))


def weak_axp_fn(model, x, domains=None, vote: str | None = None, ties: str = "change",
                missing: bool = False) -> tuple[WeakAXps, list[int]]:
    """(batched weak-AXp test, the features it ranges over) for ``model`` at ``x`` (raw
    values in the model's column order), by the checker of the model's kind.

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
    ties : {"change", "keep"}
        A binary XGBoost model's tie rule, as :func:`fxai.oracles.for_model` takes it.
    missing : bool
        NaN a value of every feature (HistGradientBoosting, LightGBM).

    Returns
    -------
    tuple of (callable, list of int)
        ``test(sets) -> list of bool or None`` (does fixing each set to ``x`` force the
        prediction? None: undecided) and the features it ranges over.
    """
    chk = _builder(model, kind(model))(model, x, domains, Options(vote, ties, missing))
    return chk.weak_axps, chk.features


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
    k = kind(model)
    if k == "forest":
        build = _forest
    elif k == "xgboost" and xgboost_objective(model).startswith("multi:"):
        build = _scores
    else:
        return None
    chk = build(model, x, None, Options(vote, groups=groups))
    return chk.weak_axps, chk.features


def _takes_ties(model, k: str | None) -> bool:
    """Does the oracle of ``model`` (of kind ``k``) take ``ties`` (a binary XGBoost model,
    bare or a Pipeline's last step)?"""
    last = model.steps[-1][1] if k == "pipeline" else model
    return _is_boosted_checker(last) or (
        is_kind(last, "xgboost") and xgboost_objective(last) == "binary:logistic")


def check_all(model, x, axps: Sequence[Iterable[int]], cxps: Sequence[Iterable[int]],
              domains=None, batch: int = 2000, vote: str | None = None,
              time_limit: float | None = None, missing: bool = False,
              columns: Sequence[str] | None = None, ties: str | None = None
              ) -> tuple[list[bool | None], list[bool | None]]:
    """(is each AXp an AXp, is each CXp a CXp) of ``model`` at ``x``: True, False, or None
    where the checker cannot decide exactly (a WARNING of ``fxai.verify`` says why); never
    True for an explanation that is not one.

    ``model``, ``x``, ``domains``, ``vote``, ``missing``, ``columns`` and ``ties`` as
    :func:`fxai.oracles.for_model` takes them, through the same way in (a keyword that does
    not apply raises TypeError). ``time_limit``: CPU seconds, checked between batches of
    ``batch`` explanations (:class:`~fxai.oracles.TimeLimitExceeded`, ``partial`` the
    number of explanations checked, None for binary XGBoost without domains, whose
    compiled checker stops between batches of its own); progress is logged (INFO of
    ``fxai.verify``) after each batch once 5 CPU s have passed.

    Parameters
    ----------
    model : object
        The fitted model, as :func:`fxai.oracles.for_model` takes it.
    x : sequence, dict or pandas.Series
        The instance.
    axps, cxps : sequence of iterable of int
        The explanations to check, each a set of feature indices (a repeated index is
        refused).
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
    ties : {"change", "keep"} or None
        A binary XGBoost model's tie rule (default "change"), as for
        :func:`fxai.oracles.for_model`.

    Returns
    -------
    tuple of (list, list)
        Per AXp whether it is one (sufficient and subset-minimal), per CXp likewise: True,
        False or None (undecided).

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> clf = DecisionTreeClassifier().fit([[0, 0], [0, 1], [1, 0], [1, 1]], [0, 0, 0, 1])
    >>> check_all(clf, [1, 1], axps=[[0, 1], [0]], cxps=[[0]], domains=[[0, 1], [0, 1]])
    ([True, False], [True])
    """
    from fxai.models.convert import way_in
    from fxai.oracles.base import TimeLimitExceeded, valid_time_limit

    valid_time_limit(time_limit)
    axps, cxps = _explanations(axps, "axps"), _explanations(cxps, "cxps")
    t0 = time.process_time()
    entry = way_in(model, x, domains, vote, missing, columns, "check_all",
                   refuse=lambda m: _builder(m, None), need_converted=False)
    if ties is not None and not _takes_ties(entry.model, entry.kind):
        raise TypeError(f"check_all: a {type(entry.model).__name__} takes no keyword 'ties' "
                        "(it applies to binary XGBoost models)")
    if ties not in (None, "change", "keep"):
        raise ValueError(f"ties must be 'change' or 'keep', not {ties!r}")
    limit = None if time_limit is None else (t0, time_limit)
    chk = _builder(entry.model, entry.kind)(entry.model, entry.raw, entry.raw_domains,
                                            Options(vote, ties or "change", missing, limit))
    if chk.check is not None:
        try:
            return chk.check(axps, cxps, None if limit is None else sum(limit))
        except TimeoutError as e:
            raise TimeLimitExceeded(f"check_all: time limit of {time_limit} CPU s reached "
                                    f"({e})", time_limit, None) from e
    return _check(chk.weak_axps, chk.features, axps, cxps, t0, batch, time_limit)


def verdict(ok_axps: Sequence[bool | None], ok_cxps: Sequence[bool | None]) -> bool | None:
    """One verdict of :func:`check_all`'s answers: False if one is False, else None if one
    is undecided, else True.

    Parameters
    ----------
    ok_axps, ok_cxps : sequence of bool or None
        :func:`check_all`'s answers.

    Returns
    -------
    bool or None

    Examples
    --------
    >>> verdict([True, None], [True]), verdict([True, None], [False]), verdict([True], [])
    (None, False, True)
    """
    answers = [*ok_axps, *ok_cxps]
    if any(a is False for a in answers):
        return False
    return None if any(a is None for a in answers) else True


def _within(weak_axps: WeakAXps, sets: list[set[int]], t0: float, time_limit: float | None,
            out_of_time) -> list[bool | None]:
    """``weak_axps(sets)``; under a time limit in chunks of sets that grow while they take
    little of the time left, the limit checked between them (``out_of_time()`` raised)."""
    if time_limit is None:
        return weak_axps(sets)
    res: list[bool | None] = []
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
    string, one flat list of numbers, a non-integer feature), ValueError naming the set for
    a repeated feature."""
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
        xp = [int(f) for f in xp]
        if len(set(xp)) != len(xp):
            raise ValueError(f"check_all: {what} entry {xp} repeats a feature (an explanation "
                             "is a set of feature indices)")
        out.append(xp)
    return out


def _check(weak_axps: WeakAXps, features: list[int], axps, cxps, t0: float, batch: int,
           time_limit: float | None) -> tuple[list[bool | None], list[bool | None]]:
    """check_all's batches: each explanation's own question first (is its set, or for a CXp
    the other features, enough to force the class?), then the single-feature changes those
    answers do not settle (:mod:`fxai.verify.settled`)."""
    from fxai.oracles.base import TimeLimitExceeded
    from fxai.verify.settled import removals

    features = set(features)
    outside = sorted({f for xp in [*axps, *cxps] for f in xp} - features)
    if outside:
        raise ValueError(f"check_all: features {outside} are not feature indices of the model "
                         f"(0..{max(features, default=-1)})")
    items = [("axp", a) for a in axps] + [("cxp", c) for c in cxps]

    def out_of_time(start: int) -> TimeLimitExceeded:
        return TimeLimitExceeded(f"check_all: time limit of {time_limit} CPU s reached after "
                                 f"{start} of {len(items)} explanations", time_limit, start)

    def ask(sets: list[set[int]], start: int) -> list[bool | None]:
        spent = time.process_time() - t0
        if time_limit is not None and spent >= time_limit:
            raise out_of_time(start)
        if start and spent >= 5.0:
            log.info("check_all: %d of %d explanations checked, %.1f CPU s", start,
                     len(items), spent)
        return _within(weak_axps, sets, t0, time_limit, lambda: out_of_time(start))

    bases = [set(xp) if kind_ == "axp" else features - set(xp) for kind_, xp in items]
    heads = [a for i in range(0, len(bases), batch) for a in ask(bases[i:i + batch], 0)]
    sure = iter(removals(axps, cxps, heads[:len(axps)], heads[len(axps):],
                         max(features, default=-1) + 1).tolist())
    ok: list[bool | None] = []
    for start in range(0, len(items), batch):
        part = range(start, min(start + batch, len(items)))
        sets: list[set[int]] = []  # the removals not settled, asked together
        where = []  # per explanation, each removal's place in sets (-1: settled)
        for e in part:
            kind_, base = items[e][0], bases[e]
            where.append([])
            for i in items[e][1]:
                where[-1].append(-1 if next(sure) else len(sets))
                if where[-1][-1] >= 0:
                    sets.append(base - {i} if kind_ == "axp" else base | {i})
        res = ask(sets, start) if sets else []
        for e, places in zip(part, where, strict=True):
            cxp = items[e][0] == "cxp"  # a settled removal: an AXp's not forced, a CXp's forced
            rest = [cxp if w < 0 else res[w] for w in places]
            ok.append(_verdict(_not(heads[e]), [_not(r) for r in rest]) if cxp else
                      _verdict(heads[e], rest))
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
