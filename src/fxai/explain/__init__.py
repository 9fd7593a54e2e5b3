"""Generic formal explanation algorithms, written once against the oracle interface.

``explain.enumerate(o, target=...)`` is :func:`enumerate_xps`, the name to import bare
(``enumerate`` would shadow Python's).
"""

from fxai.explain.exact import (
    AllXps,
    all_xps,
    enumerate_xps,
    has_duality,
    minimal_hitting_sets,
)
from fxai.explain.extract import find_axp, find_cxp
from fxai.explain.ffa import ffa, ffa_from_axps, ffa_from_cxps
from fxai.explain.marco import Event, Marco
from fxai.explain.names import Explanation, describe, names, values
from fxai.explain.paxp import ApproxPAXp, approx_paxp
from fxai.explain.rows import explain_rows
from fxai.explain.switching import SwitchRule
from fxai.explain.tree_cxps import tree_cxps

enumerate = enumerate_xps  # noqa: A001 (explain.enumerate; not in __all__: no shadowing)

__all__ = [
    "AllXps", "ApproxPAXp", "Event", "Explanation", "Marco", "SwitchRule", "all_xps",
    "approx_paxp", "describe", "enumerate_xps", "explain_rows", "ffa", "ffa_from_axps",
    "ffa_from_cxps", "find_axp", "find_cxp", "has_duality", "minimal_hitting_sets", "names",
    "tree_cxps", "values",
]
