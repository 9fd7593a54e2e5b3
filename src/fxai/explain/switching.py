"""When MARCO-S flips from CXp to AXp targeting: conditions (6)-(7) of the FFA paper.

``variant="paper"`` follows the paper's formulas: (6) sum|A^w| / sum|C^w| >= alpha over
the last w AXps and CXps (both windows full); (7) | |Y_new| - mean|C^w| | <= eps.
``variant="code"`` follows the authors' code (see shared notes): unit explanations are
kept out of the windows, (6) uses the AXp mean alone once w/2 unit CXps exist, and (7)
requires *every* one of the previous w-1 CXp sizes within eps of the newest.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class SwitchRule:
    """MARCO-S's switch condition: window ``w``, ratio ``alpha`` (6), stability ``eps`` (7).

    Parameters
    ----------
    w : int
        The sliding window of explanation sizes.
    alpha : float
        The gap ratio of condition (6).
    eps : float
        The stability of condition (7).
    variant : {"paper", "code"}
        The paper's conditions, or the authors' code's reading of them.

    Examples
    --------
    Feed it the size of each explanation found (:meth:`record`) and ask :meth:`needed`.
    With a window of 3, three CXps of size 2 make condition (7) hold:

    >>> rule = SwitchRule(w=3)
    >>> for size in (2, 2):
    ...     rule.record("cxp", size)
    >>> rule.needed()
    False
    >>> rule.record("cxp", 2)
    >>> rule.needed()
    True
    """

    w: int = 50
    alpha: float = 2.0
    eps: float = 1.0
    variant: str = "paper"
    axps: list[int] = field(default_factory=list)  # sizes, in order found
    cxps: list[int] = field(default_factory=list)
    unit_cxps: int = 0

    def __post_init__(self):
        if self.variant not in ("paper", "code"):
            raise ValueError(f"switch variant must be 'paper' or 'code', not {self.variant!r}")

    def record(self, kind: str, size: int) -> None:
        """Note an explanation of ``kind`` (``"axp"`` or ``"cxp"``) with ``size`` features.

        The ``"code"`` variant keeps unit explanations out of the windows:

        Examples
        --------
        >>> rule = SwitchRule(variant="code")
        >>> rule.record("cxp", 1); rule.record("cxp", 3)
        >>> rule.unit_cxps, rule.cxps
        (1, [3])
        """
        if self.variant == "code" and size == 1:
            self.unit_cxps += kind == "cxp"
            return
        (self.axps if kind == "axp" else self.cxps).append(size)

    def needed(self) -> bool:
        """True when (6) or (7) holds for the explanations recorded so far.

        Condition (6): the last ``w`` AXps are ``alpha`` times as large as the last ``w``
        CXps (here 6 features against 2; sizes vary, so (7) does not hold):

        Examples
        --------
        >>> rule = SwitchRule(w=2, alpha=2.0, eps=0.5)
        >>> for kind, size in [("cxp", 1), ("axp", 6), ("cxp", 3), ("axp", 6)]:
        ...     rule.record(kind, size)
        >>> rule.needed()
        True
        """
        w, a, c = self.w, self.axps, self.cxps
        if self.variant == "paper":
            gap = len(a) >= w and len(c) >= w and sum(a[-w:]) >= self.alpha * sum(c[-w:])
            stable = len(c) >= w and abs(c[-1] - sum(c[-w:]) / w) <= self.eps
            return gap or stable
        gap = False
        if self.unit_cxps >= w / 2 and len(a) >= w:
            gap = sum(a[-w:]) / w >= self.alpha
        elif len(a) >= w and len(c) >= w:
            gap = sum(a[-w:]) / sum(c[-w:]) >= self.alpha
        stable = len(c) >= w and all(abs(s - c[-1]) <= self.eps for s in c[-w:-1])
        return gap or stable
