"""Independent checks of decision-graph explanations.

Shares no code with the XpG (no path-to-zero, no DecisionGraph):

* trees: scikit-learn's own arrays. Each leaf is a box (per feature ``lo < x <= t``).
  With ``S`` fixed to ``v``, another-class leaf is reachable iff its box holds ``v`` on
  ``S`` and contains some domain value on every other feature it tests. ``S`` is a weak
  AXp iff no such leaf is reachable; the CXps are the minimal sets of features on which
  some other-class box excludes ``v``, computed here from the boxes.
* OBDDs: ``dd``'s restriction (``let``) of the BDD itself: ``S`` is a weak AXp iff
  ``f`` restricted to ``v_S`` is the constant of the prediction.

``check`` then tests every AXp for sufficiency and minimality, every CXp likewise, and,
for a complete enumeration, hitting-set duality: the minimal hitting sets of the AXps are
exactly the CXps and vice versa (Berge's algorithm). With every set sound, this proves
both lists complete (a missing CXp would contain a minimal hitting set of the AXps, i.e.
another listed CXp). For trees the CXps are also compared with the list from the boxes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

from fxai.verify.named import named

Box = dict[int, tuple[float, float]]  # feature -> (lo, hi]: the leaf's tests on it


def leaf_boxes(clf) -> list[tuple[object, Box]]:
    """``(class label, box)`` of every leaf of a fitted scikit-learn tree: the leaf's points
    are those with ``lo < v <= hi`` (float32 thresholds) on each feature of its box."""
    t = clf.tree_
    out: list[tuple[object, Box]] = []
    stack: list[tuple[int, Box]] = [(0, {})]
    while stack:
        k, box = stack.pop()
        if t.children_left[k] < 0:
            out.append((clf.classes_[int(np.argmax(t.value[k][0]))], box))
            continue
        f, thr = int(t.feature[k]), float(t.threshold[k])
        lo, hi = box.get(f, (-np.inf, np.inf))
        stack.append((int(t.children_left[k]), {**box, f: (lo, min(hi, thr))}))
        stack.append((int(t.children_right[k]), {**box, f: (max(lo, thr), hi)}))
    return out


class TreeChecker:
    """Explanations of a fitted scikit-learn ``DecisionTreeClassifier`` at ``x``."""

    def __init__(self, clf, x: Sequence[float], domains: Sequence | None = None):
        self.n = int(clf.n_features_in_)
        self.x = np.asarray(x, dtype=np.float32).astype(float)  # sklearn compares float32
        self.prediction = clf.predict(named(clf, self.x.reshape(1, -1)))[0]
        doms = list(domains) if domains is not None else [None] * self.n
        self.boxes = [box for label, box in leaf_boxes(clf) if label != self.prediction]
        self.boxes = [b for b in self.boxes if all(_nonempty(lo, hi, doms[f])
                                                   for f, (lo, hi) in b.items())]
        self.features = sorted({f for b in self.boxes for f in b})

    def _violated(self, box: dict[int, tuple[float, float]]) -> frozenset[int]:
        return frozenset(f for f, (lo, hi) in box.items() if not lo < self.x[f] <= hi)

    def weak_axp(self, fixed: Iterable[int]) -> bool:
        fixed = set(fixed)
        return not any(not (self._violated(b) & fixed) for b in self.boxes)

    def all_cxps(self) -> set[tuple[int, ...]]:
        cands = {self._violated(b) for b in self.boxes}
        return {tuple(sorted(c)) for c in cands if not any(d < c for d in cands)}


class BDDChecker:
    """Explanations of an fxai ``OBDD`` at ``x`` by ``dd`` restriction of its BDD."""

    def __init__(self, obdd, x: Sequence[int]):
        self.bdd, self.root, self.x = obdd.bdd, obdd.root, [int(v) for v in x]
        self.n = obdd.n_features
        full = self.bdd.let({f"x{i}": bool(v) for i, v in enumerate(self.x)}, self.root)
        self.target = full
        self.prediction = int(full == self.bdd.true)
        self.features = sorted(int(v[1:]) for v in self.bdd.support(self.root))

    def weak_axp(self, fixed: Iterable[int]) -> bool:
        return self.bdd.let({f"x{i}": bool(self.x[i]) for i in fixed}, self.root) == self.target


def _nonempty(lo: float, hi: float, domain) -> bool:
    if domain is None:
        return lo < hi
    return any(lo < float(v) <= hi for v in domain)


def minimal_hitting_sets(sets: Iterable[Iterable[int]], limit: int = 50_000):
    """Berge's algorithm; None when an intermediate family exceeds ``limit`` sets."""
    family: set[frozenset[int]] = {frozenset()}
    for s in sets:
        s = frozenset(s)
        grown: set[frozenset[int]] = set()
        for h in family:
            if h & s:
                grown.add(h)
            else:
                grown.update(h | {e} for e in s)
        family = {h for h in grown if not any(g < h for g in grown)}
        if len(family) > limit:
            return None
    return {tuple(sorted(h)) for h in family}


def check(
    weak_axp: Callable[[Iterable[int]], bool],
    features: Iterable[int],
    axps: Iterable[Iterable[int]],
    cxps: Iterable[Iterable[int]],
    all_cxps: set[tuple[int, ...]] | None = None,
    complete: bool = False,
) -> tuple[bool, str]:
    """(ok, reason): every AXp and CXp is one, they hit each other; with ``complete``,
    duality proves both lists complete; CXps equal ``all_cxps`` when given."""
    feats = set(features)
    axps = [tuple(sorted(a)) for a in axps]
    cxps = [tuple(sorted(c)) for c in cxps]
    if len(set(axps)) != len(axps) or len(set(cxps)) != len(cxps):
        return False, "duplicate explanations"
    everything = set(range(max(feats | {f for a in axps + cxps for f in a}, default=-1) + 1))
    for a in axps:
        if not weak_axp(a):
            return False, f"AXp {list(a)} does not entail the prediction"
        for f in a:
            if weak_axp(set(a) - {f}):
                return False, f"AXp {list(a)} is not minimal (drop {f})"
    for c in cxps:
        if weak_axp(everything - set(c)):
            return False, f"CXp {list(c)} does not change the prediction"
        for f in c:
            if not weak_axp(everything - set(c) | {f}):
                return False, f"CXp {list(c)} is not minimal (keep {f} fixed)"
    for a in axps:
        for c in cxps:
            if not set(a) & set(c):
                return False, f"AXp {list(a)} and CXp {list(c)} are disjoint"
    note = "ok"
    if complete:
        for name, sets, dual in (("AXps", axps, cxps), ("CXps", cxps, axps)):
            mhs = minimal_hitting_sets(sets)
            if mhs is None:
                note = f"ok (duality not checked: too many hitting sets of the {name})"
                continue
            if mhs != set(dual):
                return False, f"the minimal hitting sets of the {name} are not the listed duals"
    if all_cxps is not None and set(cxps) != all_cxps:
        return False, f"CXps differ from the complete list ({len(cxps)} vs {len(all_cxps)})"
    return True, note
