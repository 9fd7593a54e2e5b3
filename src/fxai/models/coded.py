"""Models over the user's original columns, one integer code per column.

A model whose splits test raw values in ways fxai's tree layout cannot state directly (a
one-hot group, a scaled number, a float64 threshold, a missing value routed by each node)
is read into an :class:`Encoded` model: every :class:`Column` gets integer codes (a
category's position, an interval between the raw values where some split changes side, a
code for "missing"), and :func:`recode` rewrites each tree onto them (``code < j + 0.5``,
exact in float32). :mod:`fxai.models.pipeline` (scikit-learn Pipelines) and
:mod:`fxai.models.hist_gradient` (HistGradientBoosting) read into it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from fxai.models.boosted import Tree
from fxai.models.schema import NO_MISSING, frame_domains, is_frame, mismatch, read_row
from fxai.values import plain

OTHER = "(other)"  # the label of the code for any value an encoder does not know
MISSING = "(missing)"  # the label of the code of a missing value (NaN)


@dataclass(frozen=True)
class Column:
    """One original column: ``kind`` "category" (``values``, then one code for any other
    value when ``other``), "number" (code i: ``bounds[i-1] <= x < bounds[i]``) or
    "unused"; then one code for a missing value when ``missing``."""

    name: str
    kind: str
    values: tuple = ()
    other: bool = False
    bounds: tuple[float, ...] = ()
    missing: bool = False

    @property
    def size(self) -> int:
        if self.kind == "category":
            return len(self.values) + self.other + self.missing
        return len(self.bounds) + 1 + self.missing if self.kind == "number" else 1

    def code(self, v) -> int:
        """The code of the raw value ``v`` (``ValueError`` when it has none)."""
        if self.kind != "unused" and self.missing and missing_value(v):
            return self.size - 1
        if self.kind == "category":
            for i, w in enumerate(self.values):
                if same_value(v, w):
                    return i
            if self.other and not missing_value(v):
                return len(self.values)
            raise ValueError(f"feature {self.name!r}: value {v!r} is not one of its "
                             f"categories {list(self.values)} (its encoder refuses others)")
        if self.kind == "unused":
            return 0
        if isinstance(v, bool | np.bool_) or not isinstance(v, int | float | np.number):
            raise ValueError(f"feature {self.name!r}: value {v!r} is not a number")
        if not math.isfinite(float(v)):
            raise ValueError(f"feature {self.name!r}: value {v!r} is not finite (missing "
                             "values are not modelled; see docs/semantics.md)")
        return int(np.searchsorted(np.asarray(self.bounds), float(v), side="right"))

    def labels(self, v) -> list:
        """Per code what it stands for; the code of ``v`` shows ``v`` itself."""
        if self.kind == "category":
            out = [plain(w) for w in self.values] + [OTHER] * self.other
        elif self.kind == "unused":
            out = [None]
        else:
            edges = [-math.inf, *self.bounds, math.inf]
            out = [f"[{edges[i]:.17g}, {edges[i + 1]:.17g})" for i in range(len(edges) - 1)]
        out += [MISSING] * (self.missing and self.kind != "unused")
        out[self.code(v)] = plain(v)
        return out


def missing_value(v) -> bool:
    return v is None or (isinstance(v, float | np.floating) and math.isnan(v))


def same_value(v, w) -> bool:
    if isinstance(v, str) or isinstance(w, str):
        return isinstance(v, str) and isinstance(w, str) and v == w
    try:
        return bool(v == w)
    except (TypeError, ValueError):
        return False




@dataclass(frozen=True)
class Encoded:
    """A model over its original columns: ``model`` reads one code per column; a missing
    value of a column without a code for it is refused with ``missing_hint``."""

    model: object
    columns: tuple[Column, ...]
    missing_hint: str = NO_MISSING
    alias: Callable[[str], str] | None = None  # the model's spelling of a user's name
    values: tuple | None = None  # per column its finite raw values, or None (any)
    named: bool = True  # False: fitted without feature names, rows read by position

    def by_position(self, columns=None) -> Encoded:
        """This model, fitted without feature names (its column names stand in): rows read
        by position, or with ``columns`` (the user's names of its columns, in order) as its
        names."""
        if columns is None:
            return dataclasses.replace(self, named=False)
        if len(columns) != len(self.columns):
            raise ValueError(f"columns has {len(columns)} names, the model {len(self.columns)} "
                             "columns")
        return dataclasses.replace(self, columns=tuple(
            dataclasses.replace(c, name=str(n)) for c, n in zip(self.columns, columns,
                                                                strict=True)), alias=None)

    @property
    def row_names(self) -> list[str] | None:
        """The names a row is read by (None: by position)."""
        return self.names if self.named else None

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    @property
    def domains(self) -> list[list[int]]:
        return [list(range(c.size)) for c in self.columns]

    def read_value(self, i: int, v):
        """Column ``i``'s value for ``v`` as a text file shows it: the category whose text
        is ``v`` (else ``v``, an unknown one), a number for a numeric column."""
        col = self.columns[i]
        if col.kind == "category":
            return next((w for w in col.values if same_value(v, w) or str(w) == str(v)), v)
        if col.kind == "number" and isinstance(v, str):
            try:
                return float(v)
            except ValueError:
                raise ValueError(f"feature {col.name!r}: value {v!r} is not a number") from None
        return v

    def restricted(self, domains=None, columns=None) -> Encoded:
        """This model with finite ``domains`` (per column a list of raw values, or None for
        any value; or a DataFrame, see :mod:`fxai.models.schema`) and checked ``columns``
        (the user's names of its columns, in order)."""
        if columns is not None:
            spelt = [self.alias(str(c)) if self.alias else str(c) for c in columns]
            if spelt != self.names:
                raise ValueError(f"columns {list(columns)} differ from the model's columns "
                                 f"{self.names}: {mismatch(spelt, self.names)}")
        if domains is None:
            return self
        if is_frame(domains):
            spelt = [self.alias(str(c)) if self.alias else str(c) for c in domains.columns]
            if spelt != self.names:
                raise ValueError(f"the domains frame's columns {list(domains.columns)} differ "
                                 f"from the model's columns {self.names}")
            coded, labels = frame_domains(domains)
            domains = [d if lab is None else lab for d, lab in zip(coded, labels, strict=True)]
        if isinstance(domains, str | bytes) or not isinstance(domains, Sequence):
            raise TypeError("domains must be a list (per column its values, or None) or a "
                            f"DataFrame, not {type(domains).__name__}")
        if len(domains) != len(self.columns):
            raise ValueError(f"domains has {len(domains)} entries, the model "
                             f"{len(self.columns)} columns {self.names}")
        values = tuple(None if d is None else tuple(d) for d in domains)
        for c, vals in zip(self.columns, values, strict=True):
            for v in vals or ():
                if not (missing_value(v) and c.missing):
                    try:
                        c.code(v)  # a ValueError for a value the column cannot take
                    except ValueError as err:
                        raise ValueError(f"the domain of {c.name!r} holds {v!r}: {err}") from None
        return dataclasses.replace(self, values=values)

    @property
    def code_domains(self) -> list | None:
        """Per column the codes its finite values take (None: every code), for the oracle."""
        if self.values is None:
            return None
        return [None if vals is None else sorted({c.code(v) for v in vals}
                                                  | ({c.size - 1} if c.missing else set()))
                for c, vals in zip(self.columns, self.values, strict=True)]

    def unseen(self, x) -> list[str]:
        """Per category of the raw instance ``x`` that its column does not know (a typo,
        another case, an extra space) and reads as any other value: what was read how."""
        values = read_row(x, self.row_names, alias=self.alias)
        return [f"{v!r} is not a category of {c.name!r}; read as any other value"
                for c, v in zip(self.columns, values, strict=True)
                if c.kind == "category" and c.other and not missing_value(v)
                and c.code(v) == len(c.values)]

    def read(self, x) -> tuple[list[int], list]:
        """(the codes of the raw instance ``x``: a Series or dict by column name, a 1-row
        DataFrame or a row in column order; per column its labels)."""
        values = read_row(x, self.row_names, n=len(self.columns), alias=self.alias)
        for i, (c, v) in enumerate(zip(self.columns, values, strict=True)):
            if missing_value(v) and not c.missing and c.kind != "unused":
                raise ValueError(f"feature {c.name!r} is missing (NaN): {self.missing_hint}")
            allowed = None if self.values is None else self.values[i]
            if allowed is not None and not missing_value(v) and not any(
                    same_value(v, w) for w in allowed):
                shown = list(allowed) if len(allowed) <= 20 else f"{len(allowed)} values"
                raise ValueError(f"feature {c.name!r}: value {v!r} is outside its domain "
                                 f"{shown}")
        codes = [c.code(v) for c, v in zip(self.columns, values, strict=True)]
        return codes, [c.labels(v) for c, v in zip(self.columns, values, strict=True)]


def runs(g: np.ndarray, lo: int, hi: int) -> list[tuple[int, int, bool]]:
    """Maximal runs (first, last, side) of equal sides of codes lo..hi."""
    part = g[lo:hi + 1]
    starts = [lo, *(lo + 1 + np.flatnonzero(part[1:] != part[:-1])).tolist()]
    ends = [s - 1 for s in starts[1:]] + [hi]
    return [(a, b, bool(g[a])) for a, b in zip(starts, ends, strict=True)]


def recode(tree: Tree, sizes: list[int], side_of: Callable[[int], tuple]) -> Tree:
    """``tree`` with every split on one column's codes (``code < j + 0.5``); a split whose
    sides are not two runs of codes becomes a chain, the subtrees copied per run, each
    pruned to the codes its path allows. ``side_of(node)``: (the column node splits on,
    per code whether it goes left), or (None, the side every input takes)."""
    feature: list[int] = []
    threshold: list[float] = []
    left: list[int] = []
    right: list[int] = []
    value: list = []
    sides: dict[int, tuple] = {}

    def new() -> int:
        for a, v in ((feature, 0), (threshold, 0.0), (left, -1), (right, -1),
                     (value, tree.value[0])):
            a.append(v)
        return len(feature) - 1

    def emit(node: int, ranges: dict[int, tuple[int, int]]) -> int:
        while tree.left[node] >= 0:
            if node not in sides:
                sides[node] = side_of(node)
            c, g = sides[node]
            if c is None:
                node = int(tree.left[node] if g else tree.right[node])
                continue
            lo, hi = ranges.get(c, (0, sizes[c] - 1))
            part = g[lo:hi + 1]
            if part.all() or not part.any():
                node = int(tree.left[node] if part.all() else tree.right[node])
                continue
            break
        else:
            i = new()
            value[i] = tree.value[node]
            return i
        parts = runs(g, lo, hi)
        first = new()
        at = first
        for r, (a, b, goes_left) in enumerate(parts[:-1]):
            feature[at], threshold[at] = c, float(np.float32(parts[r + 1][0] - 0.5))
            child = int(tree.left[node] if goes_left else tree.right[node])
            left[at] = emit(child, {**ranges, c: (a, b)})
            if r == len(parts) - 2:
                a2, b2, gl2 = parts[-1]
                right[at] = emit(int(tree.left[node] if gl2 else tree.right[node]),
                                 {**ranges, c: (a2, b2)})
            else:
                nxt = new()
                right[at] = nxt
                at = nxt
        return first

    emit(0, {})
    return Tree(feature=np.array(feature, dtype=np.int64),
                threshold=np.array(threshold, dtype=np.float32),
                left=np.array(left, dtype=np.int64), right=np.array(right, dtype=np.int64),
                value=np.array(value, dtype=tree.value.dtype))


