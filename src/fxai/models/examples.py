"""Two small models that the docstring examples share (and that anyone can use to try an
algorithm by hand): the decision tree of ``x0 or (x1 and x2)`` and the NBC paper's Example
4.1.

Examples
--------
>>> or_and_tree().predict([[0, 1, 1], [0, 1, 0]]).tolist()
[1, 0]
>>> nbc_example().w0
-7.0
"""

from __future__ import annotations

import numpy as np

from fxai.models.dgraph import DecisionGraph, Node, ValueSet
from fxai.models.nbc import XLC


def or_and_tree(n_features: int = 3) -> DecisionGraph:
    """The decision tree of ``x0 or (x1 and x2)`` over ``n_features`` (at least 3) binary
    features: x0 at the root, then x1, then x2; the features after x2 are never tested."""
    no, yes = ValueSet(frozenset({0})), ValueSet(frozenset({1}))
    return DecisionGraph([Node(0, ((no, 1), (yes, 2))), Node(1, ((no, 3), (yes, 4))),
                          Node(label=1), Node(label=0), Node(2, ((no, 5), (yes, 6))),
                          Node(label=0), Node(label=1)], n_features,
                         domains=[[0, 1]] * n_features)


def nbc_example() -> XLC:
    """The NBC paper's Example 4.1 in XLC form: ``ν(x) = -7 + Σ x_i`` over four features,
    each of values 0, 1, 2 with weights 1, 2, 3 (at (2, 2, 2, 2), i.e. (3, 3, 3, 3) in the
    paper, ν = 5 and the prediction is 1)."""
    return XLC(-7.0, tuple(np.array([1.0, 2.0, 3.0]) for _ in range(4)))
