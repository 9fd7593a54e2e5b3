"""Decision lists learned with Orange3's CN2 (ordered rules, the last one the default).

A :class:`DecisionList` is a list of rules ``IF c_1 AND ... THEN class``; the first rule
whose conditions hold decides. Conditions are ``(feature, op, value)`` with op one of
``==``, ``!=``, ``<=``, ``>=``. Saved as plain JSON (``to_json`` / ``from_json``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fxai.files import write_atomic

OPS = {
    "==": np.equal,
    "!=": np.not_equal,
    "<=": np.less_equal,
    ">=": np.greater_equal,
}


@dataclass(frozen=True)
class Rule:
    conditions: tuple[tuple[int, str, float], ...]
    prediction: int

    def covers(self, X: np.ndarray) -> np.ndarray:
        m = np.ones(len(X), dtype=bool)
        for f, op, val in self.conditions:
            m &= OPS[op](X[:, f], val)
        return m


@dataclass
class DecisionList:
    rules: list[Rule]
    n_features: int
    classes: list[int]

    def __post_init__(self):
        if not self.rules or self.rules[-1].conditions:
            raise ValueError("a decision list must end with a default rule (no conditions)")
        for r in self.rules:
            for f, op, _ in r.conditions:
                if op not in OPS or not 0 <= f < self.n_features:
                    raise ValueError(f"bad condition ({f}, {op!r}) in rule {r}")

    def predict(self, X) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        out = np.full(len(X), -1, dtype=int)
        todo = np.ones(len(X), dtype=bool)
        for r in self.rules:
            m = todo & r.covers(X)
            out[m] = r.prediction
            todo &= ~m
        return out

    def to_json(self, path: str | Path) -> None:
        doc = {
            "n_features": self.n_features,
            "classes": self.classes,
            "rules": [{"if": [list(c) for c in r.conditions], "then": r.prediction}
                      for r in self.rules],
        }
        write_atomic(path, json.dumps(doc, indent=1))

    @classmethod
    def from_json(cls, path: str | Path) -> DecisionList:
        doc = json.loads(Path(path).read_text())
        rules = [Rule(tuple((int(f), op, float(v)) for f, op, v in r["if"]), int(r["then"]))
                 for r in doc["rules"]]
        return cls(rules, int(doc["n_features"]), [int(c) for c in doc["classes"]])

    def __str__(self) -> str:
        lines = []
        for r in self.rules:
            cond = " AND ".join(f"x{f} {op} {v:g}" for f, op, v in r.conditions) or "TRUE"
            lines.append(f"IF {cond} THEN {r.prediction}")
        return "\n".join(lines)


def learn_cn2(
    X: np.ndarray,
    y: np.ndarray,
    domains: Sequence[Sequence[int]],
    beam_width: int = 10,
    min_covered_examples: int = 1,
    max_rule_length: int = 5,
) -> DecisionList:
    """Ordered CN2 (Orange3 ``CN2Learner``) over integer-coded finite features.

    The defaults are Orange3's. Rule conditions are mapped back from Orange's value
    indices to the feature codes of ``domains``.
    """
    from Orange.classification.rules import CN2Learner
    from Orange.data import DiscreteVariable, Domain, Table

    X = np.asarray(X)
    y = np.asarray(y).astype(int)
    classes = sorted({int(c) for c in y})
    codes = [sorted(int(v) for v in d) for d in domains]
    attrs = [DiscreteVariable(f"x{i}", values=tuple(str(v) for v in c))
             for i, c in enumerate(codes)]
    dom = Domain(attrs, DiscreteVariable("y", values=tuple(str(c) for c in classes)))
    Xi = np.column_stack([np.searchsorted(c, X[:, i].astype(int)) for i, c in enumerate(codes)])
    yi = np.searchsorted(classes, y)
    table = Table.from_numpy(dom, Xi.astype(float), yi.astype(float))
    learner = CN2Learner()
    learner.rule_finder.search_algorithm.beam_width = beam_width
    learner.rule_finder.general_validator.min_covered_examples = min_covered_examples
    learner.rule_finder.general_validator.max_rule_length = max_rule_length
    model = learner(table)
    rules = []
    for r in model.rule_list:
        conds = []
        for s in r.selectors:
            if s.op not in ("==", "!="):
                raise ValueError(f"unexpected CN2 selector {s} on a discrete feature")
            conds.append((int(s.column), s.op, float(codes[s.column][int(s.value)])))
        # Orange's classifier answers argmax(probabilities) of the first rule that fires
        # (first class on a tie), which can differ from ``r.prediction``
        rules.append(Rule(tuple(conds), classes[int(np.argmax(r.probabilities))]))
    dl = DecisionList(rules, X.shape[1], classes)
    orange = np.asarray(model(table)).astype(int)
    ours = np.searchsorted(classes, dl.predict(X))
    if not np.array_equal(orange, ours):
        raise RuntimeError("decision list disagrees with Orange's CN2 classifier on the data")
    return dl
