"""The one shape of every part's per-instance driver: **prime** the oracle outside the clock
(compiled code, caches: the reference code's dummy call), **time** and **explain**, **check**
the explanations independently (timed apart), and give the part what it **records**.

Each part keeps its own record fields; what they share is this order and these clocks:
the explanation's seconds on the run's clock (``"cpu"``: process CPU time, ``"wall"``), and
on both clocks, so a part records the one its paper reports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from fxai import clocks

R = TypeVar("R")
V = TypeVar("V")


@dataclass(frozen=True)
class Seconds:
    """How long a step took: on the run's ``clock``, and on the wall and CPU clocks."""

    clock: str
    seconds: float
    wall_s: float
    cpu_s: float


class Stopwatch:
    """Times the block it guards; ``.took`` is its :class:`Seconds` once the block ends.

    Examples
    --------
    >>> with Stopwatch("cpu") as sw:
    ...     _ = sum(range(1000))
    >>> sw.took.clock, sw.took.seconds == sw.took.cpu_s
    ('cpu', True)
    """

    def __init__(self, clock: str = "cpu") -> None:
        clocks.clock(clock)  # a known clock
        self.clock = clock
        self.took: Seconds | None = None

    def __enter__(self) -> Stopwatch:
        self._start = {name: now() for name, now in clocks.CLOCKS.items()}
        return self

    def __exit__(self, *exc: object) -> None:
        took = {name: now() - self._start[name] for name, now in clocks.CLOCKS.items()}
        self.took = Seconds(self.clock, took[self.clock], took["wall"], took["cpu"])


@dataclass(frozen=True)
class Outcome(Generic[R, V]):
    """What a driver records: the explainer's ``result``, the checker's ``verdict`` (None
    when nothing checked it) and the seconds of both steps."""

    result: R
    explained: Seconds
    verdict: V | None = None
    checked: Seconds | None = None


def drive(explain: Callable[[], R], *, clock: str = "cpu",
          prime: Callable[[], object] | None = None,
          check: Callable[[R], V] | None = None) -> Outcome[R, V]:
    """Prime (untimed), then explain and check, each timed on ``clock``.

    Examples
    --------
    >>> from fxai.explain import find_axp
    >>> from fxai.models.examples import or_and_tree
    >>> from fxai.oracles import for_model
    >>> o = for_model(or_and_tree(3), [1, 1, 1])
    >>> out = drive(lambda: find_axp(o), prime=lambda: o.entails(o.features),
    ...             check=lambda axp: o.entails(axp))
    >>> out.result, out.verdict
    ([1, 2], True)
    """
    if prime is not None:
        prime()
    with Stopwatch(clock) as sw:
        result = explain()
    if check is None:
        return Outcome(result, sw.took)
    with Stopwatch(clock) as cw:
        verdict = check(result)
    return Outcome(result, sw.took, verdict, cw.took)
