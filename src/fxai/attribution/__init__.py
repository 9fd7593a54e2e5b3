"""Attribution scores beside the formal ones: exact Shapley values, relevancy, power indices.

``shapley(o)`` is exact (a polynomial route for trees and read-once graphs, the model's
predictions over the feature space, or the oracle's counting); ``relevant(o)`` says which
features occur in some AXp and whether that is proven complete; ``holler_packel``,
``deegan_packel`` and ``responsibility`` aggregate an AXp (CXp) set, like
:func:`fxai.explain.ffa_from_axps`; :mod:`fxai.attribution.heuristic` wraps the ``shap``
and ``lime`` packages and loads user-defined scores; :mod:`fxai.attribution.measures`
says where a score disagrees with relevancy.
"""

from fxai.attribution.formal import (
    Relevancy,
    deegan_packel,
    holler_packel,
    indices,
    relevant,
    responsibility,
)
from fxai.attribution.shapley import from_game, shapley

__all__ = ["Relevancy", "deegan_packel", "from_game", "holler_packel", "indices", "relevant",
           "responsibility", "shapley"]
