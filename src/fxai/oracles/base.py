"""The oracle interface: the few questions every formal explainer asks of a model.

An oracle is bound to one model ``κ`` and one instance ``v`` with prediction ``c``.
Features are 0-based column indices. ``fixed`` is any iterable of feature indices
whose values are fixed to ``v``; all other features range over their domains.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence


class Oracle(ABC):
    """Entailment (and optionally counting) questions about one instance.

    Subclasses set ``n_features``, ``instance`` and ``prediction`` and implement
    :meth:`entails`. ``features`` lists the features an explanation may contain
    (default: all); a model that ignores a feature may leave it out, which is
    sound because such a feature is in no AXp and no CXp.
    """

    n_features: int
    instance: Sequence
    prediction: object
    calls: int = 0

    @property
    def features(self) -> list[int]:
        return list(range(self.n_features))

    @abstractmethod
    def entails(self, fixed: Iterable[int]) -> bool:
        """True iff every point agreeing with ``v`` on ``fixed`` is predicted ``c``."""

    def counterexample(self, fixed: Iterable[int]) -> Sequence | None:
        """A point agreeing with ``v`` on ``fixed`` whose prediction differs, or None.

        The default answers through :meth:`entails` without a witness point; oracles
        that can produce one override this (CXp extraction then needs fewer calls).
        """
        return None if self.entails(fixed) else ()

    def precision(self, fixed: Iterable[int]) -> float:
        """Fraction of points with ``x_S = v_S`` predicted ``c`` (uniform over domains)."""
        raise NotImplementedError(f"{type(self).__name__} does not count")
