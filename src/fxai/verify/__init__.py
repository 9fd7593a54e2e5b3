"""Independent checkers: they share no code with the algorithms they check.

``weak_axp_fn(model, x, domains)`` returns the family's own test "does fixing S to x
force the prediction?" for a batch of sets S (scikit-learn's predict on worst completions
for NBCs, leaf boxes for trees, ``dd`` restriction for OBDDs, a MILP for boosted trees);
``is_axp`` and ``is_cxp`` check sufficiency and subset-minimality with one batch each
(entailment is monotone, so single removals suffice).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

WeakAXps = Callable[[list[set[int]]], list[bool]]


def _each(weak_axp: Callable[[set[int]], bool]) -> WeakAXps:
    return lambda sets: [bool(weak_axp(s)) for s in sets]


def weak_axp_fn(model, x, domains=None) -> tuple[WeakAXps, list[int]]:
    """(batched weak-AXp test, the features it ranges over) for ``model`` at ``x``."""
    kind = type(model).__name__
    if kind == "CategoricalNB":
        from fxai.verify.nbc import weak_axp_fn as nbc_fn

        return nbc_fn(model, x), list(range(model.n_features_in_))
    if kind == "DecisionTreeClassifier":
        from fxai.verify.xpg import TreeChecker

        chk = TreeChecker(model, x, domains)
        return _each(chk.weak_axp), list(range(chk.n))
    if kind == "OBDD":
        from fxai.verify.xpg import BDDChecker

        chk = BDDChecker(model, x)
        return _each(chk.weak_axp), list(range(chk.n))
    from fxai.verify.boosted import BoostedChecker

    chk = BoostedChecker(model, domains=domains)
    return _each(lambda fixed: chk.entails(x, fixed)), list(range(chk.n_features))


def is_axp(weak_axps: WeakAXps, xp: Iterable[int]) -> bool:
    """Sufficient, and no single feature can be dropped."""
    s = set(xp)
    ok = weak_axps([s] + [s - {i} for i in sorted(s)])
    return ok[0] and not any(ok[1:])


def is_cxp(weak_axps: WeakAXps, features: Iterable[int], xp: Iterable[int]) -> bool:
    """Freeing it changes the prediction; re-fixing any single feature of it does not."""
    y = set(xp)
    rest = set(features) - y
    ok = weak_axps([rest] + [rest | {i} for i in sorted(y)])
    return (not ok[0]) and all(ok[1:])
