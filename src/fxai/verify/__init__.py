"""Independent checkers: they share no code with the algorithms they check.

``check_all(model, x, axps, cxps)`` checks that AXps are sufficient and subset-minimal and
CXps the converse (entailment is monotone, so single removals suffice; removals that other
explanations' checked answers settle are not asked: :mod:`fxai.verify.settled`), many
explanations per batch, answering True, False or None (undecided, never a wrong True). The
model comes in by the oracles' own way in and its checker is the one of its kind
(:data:`fxai.verify.check.CHECKERS`): scikit-learn's predict on worst completions for naive
Bayes, leaf boxes for trees, ``dd`` restriction for OBDDs, a compiled leaf search backed by
a MILP for binary XGBoost, a MILP per rival class confirmed by the library for multi-class
XGBoost, random forests, HistGradientBoosting and LightGBM (SAT for vote counts).
``weak_axp_fn(model, x, domains)`` is a family's own test "does fixing S to x force the
prediction?" for a batch of sets S; ``register`` adds the checker of a new model type.
"""

from fxai.verify.check import (
    check_all,
    joint_weak_axp_fn,
    register,
    verdict,
    weak_axp_fn,
)

__all__ = ["check_all", "joint_weak_axp_fn", "register", "verdict", "weak_axp_fn"]
