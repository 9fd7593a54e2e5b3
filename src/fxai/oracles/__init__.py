"""Oracles: one per model type, answering entails(S) (and precision(S) where possible)."""

from fxai.oracles.base import Oracle
from fxai.oracles.registry import for_model, register

__all__ = ["Oracle", "for_model", "register"]
