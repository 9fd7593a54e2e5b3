"""argparse value types shared by the commands (``type=``): a value out of range stops with a
message naming the option; infinite and NaN values are refused."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def number(
    cast: type = float,
    lo: float | None = None,
    hi: float | None = None,
    lo_open: bool = False,
    hi_open: bool = False,
) -> Callable[[str], int | float]:
    """An argparse ``type=``: a finite ``cast`` value in [lo, hi] (open ends where told)."""

    def parse(text: str) -> int | float:
        try:
            value = cast(text)
        except ValueError:
            kind = "an integer" if cast is int else "a number"
            raise argparse.ArgumentTypeError(f"{text!r} is not {kind}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
        if lo is not None and (value < lo or (lo_open and value == lo)):
            raise argparse.ArgumentTypeError(f"{text} must be {'>' if lo_open else '>='} {lo}")
        if hi is not None and (value > hi or (hi_open and value == hi)):
            raise argparse.ArgumentTypeError(f"{text} must be {'<' if hi_open else '<='} {hi}")
        return value

    return parse


positive_int = number(int, lo=1)  # counts that must be at least one (instances, trees)
count = number(int, lo=0)  # seeds, indices, decimals
positive = number(float, lo=0, lo_open=True)  # time limits, smoothing, ratios
nonnegative = number(float, lo=0)
probability = number(float, 0, 1)  # deltas: [0, 1]
fraction = number(float, 0, 1, lo_open=True, hi_open=True)  # test/validation sizes: (0, 1)
share = number(float, 0, 1, lo_open=True)  # a share of the rows: (0, 1]


def or_none(parse: Callable[[str], int | float]) -> Callable[[str], int | float | None]:
    """``parse``, or None for the word ``none`` (e.g. no time limit)."""

    def parse_or_none(text: str) -> int | float | None:
        return None if text.strip().lower() == "none" else parse(text)

    return parse_or_none
