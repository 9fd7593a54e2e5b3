"""Pick the oracle for a model object: ``for_model(model, x)``."""

from __future__ import annotations

from collections.abc import Callable

from fxai.oracles.base import Oracle

_BUILDERS: list[tuple[Callable[[object], bool], Callable[..., Oracle]]] = []
_LOADED = False


def register(accepts: Callable[[object], bool], build: Callable[..., Oracle]) -> None:
    """Register an oracle builder for models for which ``accepts(model)`` is true."""
    _BUILDERS.append((accepts, build))


def _load_builtin() -> None:
    """Import the oracle modules so that they register themselves."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    import importlib

    for name in ("nbc", "xpg", "boosted"):
        importlib.import_module(f"fxai.oracles.{name}")


def for_model(model: object, x, **kwargs) -> Oracle:
    """The oracle for ``model`` at instance ``x`` (one row of feature values)."""
    _load_builtin()
    for accepts, build in _BUILDERS:
        if accepts(model):
            return build(model, x, **kwargs)
    raise TypeError(
        f"no oracle for a model of type {type(model).__name__}; supported: sklearn "
        "DecisionTreeClassifier and CategoricalNB, xgboost models, fxai DecisionGraph/OBDD"
    )
