"""The clocks runs are timed on: ``"cpu"`` (process CPU time, the reference code's) and
``"wall"`` (elapsed time)."""

from __future__ import annotations

import time
from collections.abc import Callable

CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}


def clock(name: str) -> Callable[[], float]:
    """The clock called ``name``.

    Examples
    --------
    >>> clock("cpu") is time.process_time
    True
    >>> clock("gpu")
    Traceback (most recent call last):
    ...
    ValueError: clock must be one of ['cpu', 'wall'], not 'gpu'
    """
    if name not in CLOCKS:
        raise ValueError(f"clock must be one of {sorted(CLOCKS)}, not {name!r}")
    return CLOCKS[name]
