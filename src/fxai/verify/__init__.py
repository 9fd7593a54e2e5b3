"""Independent checkers: they share no code with the algorithms they check.

``weak_axp_fn(model, x, domains)`` returns the family's own test "does fixing S to x
force the prediction?" (scikit-learn's predict on worst completions for NBCs, leaf boxes
for trees, ``dd`` restriction for OBDDs, a MILP for boosted trees); ``is_axp`` and
``is_cxp`` check sufficiency and subset-minimality with it (entailment is monotone, so
single removals suffice).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

WeakAXp = Callable[[Iterable[int]], bool]


def weak_axp_fn(model, x, domains=None) -> tuple[WeakAXp, list[int]]:
    """(weak-AXp test, the features it ranges over) for ``model`` at instance ``x``."""
    kind = type(model).__name__
    if kind == "CategoricalNB":
        from fxai.verify.nbc import weak_axp_fn as nbc_fn

        return nbc_fn(model, x), list(range(model.n_features_in_))
    if kind == "DecisionTreeClassifier":
        from fxai.verify.xpg import TreeChecker

        chk = TreeChecker(model, x, domains)
        return chk.weak_axp, list(range(chk.n))
    if kind == "OBDD":
        from fxai.verify.xpg import BDDChecker

        chk = BDDChecker(model, x)
        return chk.weak_axp, list(range(chk.n))
    from fxai.verify.boosted import BoostedChecker

    chk = BoostedChecker(model, domains=domains)
    return (lambda fixed: chk.entails(x, fixed)), list(range(chk.n_features))


def is_axp(weak_axp: WeakAXp, xp: Iterable[int]) -> bool:
    """Sufficient, and no single feature can be dropped."""
    s = set(xp)
    return weak_axp(s) and all(not weak_axp(s - {i}) for i in s)


def is_cxp(weak_axp: WeakAXp, features: Iterable[int], xp: Iterable[int]) -> bool:
    """Freeing it changes the prediction; re-fixing any single feature of it does not."""
    y = set(xp)
    rest = set(features) - y
    return (not weak_axp(rest)) and all(weak_axp(rest | {i}) for i in y)
