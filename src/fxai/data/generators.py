"""Synthetic Boolean benchmarks regenerated from their published definitions.

Every generator returns the full truth table of its concept (so each point of the Boolean cube
appears) followed by ``extra`` uniformly drawn rows, matching the row counts of the PMLB copies
(which come from the MLC++ train + test files of Kohavi et al.). Column names follow PMLB.
``noise`` flips each label with that probability (the PMLB copies are noise-free: every row
satisfies the concept, which ``tests/test_data_generators.py`` checks against the mirror).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd


def cube(n: int) -> np.ndarray:
    """All 2**n Boolean vectors, first column most significant."""
    idx = np.arange(2**n)[:, None]
    return ((idx >> np.arange(n - 1, -1, -1)) & 1).astype(np.int64)


def mux6(X: np.ndarray) -> np.ndarray:
    """6-multiplexer (Koza 1992; Wilson 1995): address bits a1 a2 select data bit 2*a1 + a2."""
    return X[np.arange(len(X)), 2 + 2 * X[:, 0] + X[:, 1]]


def parity5p5(X: np.ndarray) -> np.ndarray:
    """parity5+5 (John, Kohavi & Pfleger 1994): parity of 5 relevant bits among 10.

    The relevant bits of the PMLB/MLC++ copy are Bits 2, 3, 4, 6, 8 (1-based).
    """
    return X[:, [1, 2, 3, 5, 7]].sum(axis=1) % 2


def corral_concept(X: np.ndarray) -> np.ndarray:
    """CorrAL (John, Kohavi & Pfleger 1994): (A0 and A1) or (B0 and B1)."""
    return (X[:, 0] & X[:, 1]) | (X[:, 2] & X[:, 3])


def three_of_9(X: np.ndarray) -> np.ndarray:
    """threeOf9 (MLC++, Kohavi 1995): true iff three consecutive bits of the 9 are all 1."""
    return (X[:, :-2] & X[:, 1:-1] & X[:, 2:]).any(axis=1).astype(np.int64)


def xd6_concept(X: np.ndarray) -> np.ndarray:
    """xd6 (Buntine & Niblett 1992): (x1 x2 x3) or (x4 x5 x6) or (x7 x8 x9) over 9 bits."""
    return X.reshape(len(X), 3, 3).all(axis=2).any(axis=1).astype(np.int64)


def mofn_3_7_10_concept(X: np.ndarray) -> np.ndarray:
    """m-of-n 3-7-10 (Murphy & Pazzani 1991; MLC++): at least 3 of Bit-2..Bit-8 (of 10) are 1."""
    return (X[:, 2:9].sum(axis=1) >= 3).astype(np.int64)


@dataclass(frozen=True)
class Spec:
    """A concept on ``len(columns)`` bits with PMLB's row layout."""

    columns: list[str]
    concept: Callable[[np.ndarray], np.ndarray]
    copies: int = 1  # truth table repeated
    extra: int = 0  # uniformly drawn rows appended


def _bits(prefix: str, n: int, start: int = 1) -> list[str]:
    return [f"{prefix}{i}" for i in range(start, start + n)]


SPECS: dict[str, Spec] = {
    "mux6": Spec(["Address bit 1", "Address bit 2", *_bits("Bit ", 4, 0)], mux6, copies=2),
    "parity5+5": Spec(_bits("Bit ", 10), parity5p5, extra=100),
    "corral": Spec(["A0", "A1", "B0", "B1", "Irrelevant", "Correlated"], corral_concept),
    "threeOf9": Spec(_bits("F", 9), three_of_9),
    "xd6": Spec(_bits("Attribute ", 9), xd6_concept, extra=461),
    "mofn_3_7_10": Spec(_bits("Bit-", 10, 0), mofn_3_7_10_concept, extra=300),
}


def _corral(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """160 rows: the 32-point table of A0 A1 B0 B1 Irrelevant five times; Correlated equals
    the class on exactly 75% of the rows (flipped on a seeded 25%), as in the PMLB copy."""
    rng = np.random.default_rng(seed)
    base = np.tile(cube(5), (5, 1))
    y = corral_concept(base)
    corr = y.copy()
    flip = rng.choice(len(y), size=len(y) // 4, replace=False)
    corr[flip] ^= 1
    return np.column_stack([base, corr]), y


def generate(name: str, seed: int = 0, noise: float = 0.0) -> pd.DataFrame:
    """The benchmark ``name`` as a DataFrame of 0/1 features plus ``target``."""
    if name not in SPECS:
        raise ValueError(f"unknown generator {name!r}; known: {', '.join(SPECS)}")
    spec = SPECS[name]
    rng = np.random.default_rng(seed)
    if name == "corral":
        X, y = _corral(seed)
    else:
        n = len(spec.columns)
        X = np.vstack([np.tile(cube(n), (spec.copies, 1)), rng.integers(0, 2, (spec.extra, n))])
        y = spec.concept(X)
    if noise:
        y = np.where(rng.random(len(y)) < noise, 1 - y, y)
    df = pd.DataFrame(X, columns=spec.columns)
    df["target"] = y.astype(np.int64)
    return df
