"""Generic formal explanation algorithms, written once against the oracle interface."""

from fxai.explain.extract import find_axp, find_cxp
from fxai.explain.ffa import ffa, ffa_from_axps
from fxai.explain.marco import Event, Marco, enumerate_xps
from fxai.explain.switching import SwitchRule

enumerate = enumerate_xps  # the name DESIGN.md uses: explain.enumerate(o, target=...)

__all__ = [
    "Event", "Marco", "SwitchRule", "enumerate", "enumerate_xps",
    "ffa", "ffa_from_axps", "find_axp", "find_cxp",
]
