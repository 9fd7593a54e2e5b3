"""The oracle interface: the few questions every formal explainer asks of a model.

An oracle is bound to one model ``κ`` and one instance ``v`` with prediction ``c``.
Features are 0-based column indices. ``fixed`` is any iterable of feature indices
whose values are fixed to ``v``; all other features range over their domains.
"""

from __future__ import annotations

import contextlib
import math
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence


def valid_time_limit(seconds: float | None, name: str = "time_limit") -> float | None:
    """``seconds`` if None or a positive finite number, else ValueError naming ``name``.

    Examples
    --------
    >>> valid_time_limit(2), valid_time_limit(None)
    (2, None)
    >>> valid_time_limit(float("nan"))
    Traceback (most recent call last):
    ...
    ValueError: time_limit must be a positive finite number of seconds (or None for no \
limit), not nan
    """
    if seconds is None:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not (
            math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"{name} must be a positive finite number of seconds (or None for "
                         f"no limit), not {seconds!r}")
    return seconds


class TimeLimitExceeded(TimeoutError):
    """A time limit ran out before the answer. ``partial``: what was established by then
    (:func:`fxai.explain.find_axp`: a weak AXp, a superset of an AXp; ``find_cxp``: a
    weak CXp; :func:`fxai.verify.check_all`: the number of explanations checked), None
    when nothing was; ``seconds``: the limit.

    Parameters
    ----------
    message : str
        What ran out, and where.
    seconds : float
        The limit, in seconds.
    partial : list of int, int or None
        What was established by then (see above).
    """

    def __init__(self, message: str, seconds: float, partial: list[int] | int | None = None):
        super().__init__(message)
        self.seconds, self.partial = seconds, partial


class Oracle(ABC):
    """Entailment (and optionally counting) questions about one instance.

    Subclasses set ``n_features``, ``instance`` and ``prediction`` and implement
    :meth:`entails`. ``features`` lists the features an explanation may contain
    (default: all); a model that ignores a feature may leave it out, which is
    sound because such a feature is in no AXp and no CXp.

    Attributes
    ----------
    n_features : int
        The number of features (0-based column indices).
    instance : sequence
        The instance ``v``, one value per feature.
    prediction : object
        The model's class at ``v``.
    calls : int
        The entailment questions answered so far.
    deadline : float or None
        Process CPU time by which a question stops (set by the algorithms' time limits).
    remembers : bool
        Whether the cores and counterexample points it returns may depend on the questions
        asked before or on the clock (a SAT solver's learnt clauses, engines that share
        the time), not on the question alone. ``find_cxp`` then re-fixes the features a
        point agrees on one at a time, in order, so that its CXp is plain deletion's.

    Examples
    --------
    A hand-written oracle: majority of three binary votes at ``v = (1, 1, 0)``. Once it
    answers :meth:`entails`, every algorithm of :mod:`fxai.explain` runs on it:

    >>> class Majority(Oracle):
    ...     n_features, instance, prediction = 3, [1, 1, 0], 1
    ...     def entails(self, fixed):  # the fixed votes for 1 alone reach 2
    ...         return sum(self.instance[i] for i in fixed) >= 2
    >>> o = Majority()
    >>> o
    <Majority: prediction 1 at [1, 1, 0] (3 features)>
    >>> o.features, o.entails([0, 1]), o.entails([0, 2])
    ([0, 1, 2], True, False)
    >>> o.counterexample([0, 2])  # the default knows no witness point
    ()
    >>> from fxai import explain
    >>> explain.find_axp(o), explain.find_cxp(o)
    ([0, 1], [1])
    """

    n_features: int
    instance: Sequence
    prediction: object
    calls: int = 0
    remembers: bool = False
    deadline: float | None = None  # process CPU time (time.process_time) to stop a question by
    _started: float = 0.0  # when the deadline's limit was set
    feature_names: Sequence[str] | None = None  # set by ``for_model``; see ``explain.names``
    value_labels: Sequence | None = None  # per feature its category labels or None (for_model)

    def __repr__(self) -> str:
        names = self.feature_names
        shown = [f"{names[i]}={v!r}" if names else repr(v)
                 for i, v in enumerate(list(self.instance)[:6])]
        more = ", ..." if self.n_features > 6 else ""
        return (f"<{type(self).__name__}: prediction {self.prediction!r} at "
                f"[{', '.join(shown)}{more}] ({self.n_features} features)>")

    @property
    def features(self) -> list[int]:
        """Candidate features of an explanation, sorted (default: all)."""
        return list(range(self.n_features))

    @abstractmethod
    def entails(self, fixed: Iterable[int]) -> bool:
        """True iff every point agreeing with ``v`` on ``fixed`` is predicted ``c``.

        The :class:`Oracle` example implements it; with a naive Bayes oracle (the NBC
        paper's Example 4.1 model, ``ν(x) = -7 + Σ x_i`` at (3, 3, 3, 3)):

        Examples
        --------
        >>> from fxai.models.examples import nbc_example
        >>> from fxai.oracles.nbc import NBCOracle
        >>> xlc = nbc_example()
        >>> o = NBCOracle(xlc, [2, 2, 2, 2])
        >>> o.entails([0, 1]), o.entails([0])
        (True, False)
        """

    def sufficient_part(self, fixed: Iterable[int]) -> set[int] | None:
        """None if ``fixed`` does not entail the prediction, else a part of it that does
        (an oracle whose proof names the fixed features it used returns those; by default
        ``fixed`` itself). Deletion frees the rest without asking.

        Examples
        --------
        >>> from fxai.models.examples import nbc_example
        >>> from fxai.oracles.nbc import NBCOracle
        >>> xlc = nbc_example()
        >>> o = NBCOracle(xlc, [2, 2, 2, 2])
        >>> sorted(o.sufficient_part([0, 1, 2])), o.sufficient_part([0])
        ([0, 1, 2], None)
        """
        fixed = set(fixed)
        return fixed if self.entails(fixed) else None

    def also_necessary(self, freed: int, candidates: Iterable[int]) -> set[int]:
        """After :meth:`sufficient_part` answered None for a set ``fixed`` without
        ``freed`` (freeing it breaks entailment), the ``candidates`` (features of ``fixed``)
        that the same counterexample, with ``freed`` put back to the instance's value and
        the candidate moved, proves necessary: each stays in every subset of ``fixed``
        ∪ {``freed``} that entails. Oracles that keep their counterexample points test them
        on the model ("model rotation"); by default none."""
        return set()

    def axp_prefix(self, fixed: set[int], todo: list[int]) -> tuple[set[int], int]:
        """Deletion's first questions, decided in one call by an oracle that can (the
        compiled branch and bound of the boosted trees): from ``fixed``, which entails,
        each feature of ``todo`` in turn is freed, and fixed again if that breaks
        entailment, the answers :meth:`entails` gives. Returns (the features freed, how
        many of ``todo`` were decided: a prefix); by default none."""
        return set(), 0

    def cxp_prefix(self, free: set[int], order: list[int]) -> tuple[set[int], int]:
        """CXp extraction's first questions, decided in one call by an oracle that can:
        from the weak CXp ``free`` (as cut to the features a counterexample moves, for an
        oracle that does not :attr:`remembers`), each feature of ``order`` still free in
        turn is fixed, and freed again if the prediction can no longer change; a
        counterexample's :meth:`moves` cut ``free``, as in ``find_cxp``. Returns (``free``
        after the decided prefix, how many of ``order`` were decided); by default none."""
        return free, 0

    @contextlib.contextmanager
    def time_limit(self, seconds: float | None) -> Iterator[None]:
        """Within the block, questions stop with :class:`TimeLimitExceeded` once ``seconds``
        of process CPU time have passed (an earlier deadline of an outer block holds; None:
        no new limit). Oracles whose questions can take long (the tree ensembles' SAT and
        branch and bound) check it while they search; every oracle's questions are checked
        between calls by :func:`fxai.explain.find_axp` and ``find_cxp``."""
        before = self.deadline, self._started
        if valid_time_limit(seconds) is not None:
            now = time.process_time()
            if before[0] is None or now + seconds < before[0]:
                self.deadline, self._started = now + seconds, now
        try:
            yield
        finally:
            self.deadline, self._started = before

    def check_time(self, now: float | None = None) -> None:
        """Raise :class:`TimeLimitExceeded` if the deadline of :meth:`time_limit` passed
        (at ``now``, a process CPU time read just before, if given)."""
        if self.deadline is not None and (
                time.process_time() if now is None else now) >= self.deadline:
            raise TimeLimitExceeded(f"{type(self).__name__}: time limit reached",
                                    self.deadline - self._started)

    def counterexample(self, fixed: Iterable[int]) -> Sequence | None:
        """A point agreeing with ``v`` on ``fixed`` whose prediction differs, or None.

        The default answers through :meth:`entails` without a witness point; oracles
        that can produce one override this (CXp extraction then needs fewer calls).
        The Example 4.1 oracle of :meth:`entails` returns the worst point:

        Examples
        --------
        >>> from fxai.models.examples import nbc_example
        >>> from fxai.oracles.nbc import NBCOracle
        >>> xlc = nbc_example()
        >>> o = NBCOracle(xlc, [2, 2, 2, 2])
        >>> o.counterexample([0]), o.counterexample([0, 1])
        ([2, 0, 0, 0], None)
        """
        return None if self.entails(fixed) else ()

    def moves(self, fixed: Iterable[int], among: Iterable[int]) -> set[int] | None:
        """None if ``fixed`` entails the prediction, else the features of ``among`` on which
        a counterexample (:meth:`counterexample`) differs from the instance: all of them
        when the oracle gives no point. CXp extraction reads only these, so an oracle whose
        points hold many features may answer without building one.

        Parameters
        ----------
        fixed : iterable of int
            The features fixed to the instance's values.
        among : iterable of int
            The features asked about.

        Returns
        -------
        set of int or None
            The features of ``among`` the counterexample moves, or None.

        Examples
        --------
        >>> from fxai.models.examples import nbc_example
        >>> from fxai.oracles.nbc import NBCOracle
        >>> o = NBCOracle(nbc_example(), [2, 2, 2, 2])
        >>> sorted(o.moves([0], [1, 2, 3])), o.moves([0, 1], [2, 3])
        ([1, 2, 3], None)
        """
        point = self.counterexample(fixed)
        if point is None:
            return None
        if not point:  # no witness point: nothing known to stay
            return set(among)
        return {i for i in among if point[i] != self.instance[i]}

    def precision(self, fixed: Iterable[int]) -> float:
        """Fraction of points with ``x_S = v_S`` predicted ``c`` (uniform over domains).

        Only counting oracles answer (naive Bayes; trees and read-once graphs). The
        Example 4.1 oracle of :meth:`entails`: 50 of its 81 points are predicted 1.

        Examples
        --------
        >>> from fxai.models.examples import nbc_example
        >>> from fxai.oracles.nbc import NBCOracle
        >>> xlc = nbc_example()
        >>> NBCOracle(xlc, [2, 2, 2, 2], decimals=0).precision([]) * 81
        50.0
        """
        raise NotImplementedError(
            f"precision (and so approx_paxp) needs an oracle that counts the points of a "
            f"set, as naive Bayes, decision trees and read-once graphs have; the "
            f"{type(self).__name__} of a {type(getattr(self, 'ensemble', self)).__name__} "
            "answers entailment only: explain it with find_axp or all_xps")
