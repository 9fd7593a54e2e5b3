"""Oracles: one per model type, answering entails(S) (and precision(S) where possible).

``for_model(model, x)`` picks and builds the oracle (converting each model once);
``prepare(model)`` is the explicit conversion; ``check_model(model)`` refuses a model no
oracle explains before any row is read; ``warm_up()`` loads compiled code early.
"""

from fxai.oracles.base import Oracle, TimeLimitExceeded
from fxai.oracles.registry import SUPPORTED, check_model, for_model, prepare, register
from fxai.oracles.warmup import warm_up

__all__ = ["SUPPORTED", "Oracle", "TimeLimitExceeded", "check_model", "for_model", "prepare",
           "register", "warm_up"]
