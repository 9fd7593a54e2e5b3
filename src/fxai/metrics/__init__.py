"""Metrics: FFA distances (error, Kendall's tau, RBO, KL) and their curves over time; the
mean over runs that a time limit censored."""

from fxai.metrics.censored import censored_mean
from fxai.metrics.curves import METRICS, average_instances, instance_curves, merge, sample
from fxai.metrics.ffa import (
    dense_ranks,
    ffa_error,
    kendall_tau,
    kl_divergence,
    rbo,
    rbo_ext,
    rbo_ext_code,
)

__all__ = [
    "METRICS", "average_instances", "censored_mean", "dense_ranks", "ffa_error", "instance_curves",
    "kendall_tau", "kl_divergence", "merge", "rbo", "rbo_ext", "rbo_ext_code", "sample",
]
