"""Independent checkers: they share no code with the algorithms they check.

``weak_axp_fn(model, x, domains)`` returns the family's own test "does fixing S to x
force the prediction?" for a batch of sets S (scikit-learn's predict on worst completions
for NBCs, leaf boxes for trees, ``dd`` restriction for OBDDs, a compiled leaf search backed by
a MILP for boosted trees); ``check_all`` checks that AXps are sufficient and subset-minimal
and CXps the converse, many explanations per batch (entailment is monotone, so single
removals suffice).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

WeakAXps = Callable[[list[set[int]]], list[bool]]
_BATCHED = ("CategoricalNB", "DecisionTreeClassifier", "OBDD")  # all other models: XGBoost


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
    feats = list(range(chk.n_features))
    if domains is None:
        from fxai.verify.boosted_leaves import LeafProver

        prover = LeafProver(chk)
        return (lambda sets: prover.weak_axps(x, sets)), feats
    return _each(lambda fixed: chk.entails(x, fixed)), feats


def check_all(model, x, axps: Sequence[Iterable[int]], cxps: Sequence[Iterable[int]],
              domains=None, batch: int = 2000) -> tuple[list[bool], list[bool]]:
    """(is each AXp an AXp, is each CXp a CXp) of ``model`` at ``x``; for XGBoost (no
    domains) the compiled leaf search checks all of them in a few calls."""
    if type(model).__name__ not in _BATCHED and domains is None:
        from fxai.verify.boosted import BoostedChecker
        from fxai.verify.boosted_leaves import LeafProver

        return LeafProver(BoostedChecker(model)).check(x, [list(a) for a in axps],
                                                       [list(c) for c in cxps])
    weak_axps, features = weak_axp_fn(model, x, domains)
    features = set(features)
    items = [("axp", set(a)) for a in axps] + [("cxp", set(c)) for c in cxps]
    ok: list[bool] = []
    for start in range(0, len(items), batch):
        sets: list[set[int]] = []
        spans = []
        for kind, xp in items[start:start + batch]:
            base = xp if kind == "axp" else features - xp
            sets += [base] + [base - {i} if kind == "axp" else base | {i} for i in sorted(xp)]
            spans.append((kind, len(sets) - len(xp) - 1, len(sets)))
        res = weak_axps(sets)
        for kind, a, b in spans:
            head, rest = res[a], res[a + 1:b]
            ok.append(head and not any(rest) if kind == "axp" else (not head) and all(rest))
    return ok[:len(axps)], ok[len(axps):]
