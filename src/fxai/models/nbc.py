"""Binary categorical naive Bayes (NBC) and its extended linear classifier (XLC) form.

The NBC paper (Section 3) reduces a binary NBC over categorical features to an XLC
``ν(x) = w0 + Σ_i v_i[x_i]`` with ``κ(x) = 1`` iff ``ν(x) > 0``, where
``w0 = lPr(1) - lPr(0)`` and ``v_i[j] = lPr(x_i=j | 1) - lPr(x_i=j | 0)``. A tie
``ν(x) = 0`` goes to class 0, as ``argmax`` in scikit-learn does.

For an instance ``a`` with prediction ``c`` it is convenient to work with per-value
*losses* ``loss_i[j] = s (v_i[a_i] - v_i[j])`` (``s = +1`` for ``c = 1``, ``-1`` for
``c = 0``): they are 0 at ``a_i``, at most ``δ_i``, and the prediction stays ``c`` iff
``Σ_i loss_i[x_i] < Γ`` (``c = 1``) or ``≤ Γ`` (``c = 0``), with ``Γ = s ν(a)``.
"""

from __future__ import annotations

import json
import platform
from dataclasses import dataclass
from pathlib import Path

import joblib
import numpy as np
import sklearn
from sklearn.naive_bayes import CategoricalNB

from fxai.version import code_version


@dataclass(frozen=True)
class XLC:
    """Extended linear classifier: bias ``w0`` and one weight vector per feature."""

    w0: float
    weights: tuple[np.ndarray, ...]

    @classmethod
    def from_log_probs(cls, class_log_prior, feature_log_prob) -> XLC:
        """From log priors ``(2,)`` and per-feature log tables ``(2, d_i)`` (class 0, 1)."""
        prior = np.asarray(class_log_prior, dtype=float)
        if prior.shape != (2,):
            raise ValueError(f"binary classes only: got {prior.shape[0]} class priors")
        tabs = [np.asarray(t, dtype=float) for t in feature_log_prob]
        for i, t in enumerate(tabs):
            if t.ndim != 2 or t.shape[0] != 2:
                raise ValueError(f"feature {i}: expected a (2, d) log-probability table")
        return cls(float(prior[1] - prior[0]), tuple(t[1] - t[0] for t in tabs))

    @classmethod
    def from_categorical_nb(cls, model: CategoricalNB) -> XLC:
        """The XLC of a fitted two-class scikit-learn ``CategoricalNB``."""
        if len(model.classes_) != 2:
            raise ValueError(f"binary NBC only: the model has {len(model.classes_)} classes")
        return cls.from_log_probs(model.class_log_prior_, model.feature_log_prob_)

    @property
    def n_features(self) -> int:
        return len(self.weights)

    @property
    def domain_sizes(self) -> list[int]:
        return [len(w) for w in self.weights]

    def nu(self, X) -> np.ndarray:
        """``ν`` of each row of ``X`` (integer codes)."""
        X = np.atleast_2d(np.asarray(X, dtype=int))
        return self.w0 + sum(w[X[:, i]] for i, w in enumerate(self.weights))

    def predict(self, X) -> np.ndarray:
        """Class index (0/1) of each row of ``X``."""
        return (self.nu(X) > 0).astype(int)

    def scaled(self, decimals: int) -> XLC:
        """The integer XLC with every weight rounded to ``decimals`` places and scaled."""
        k = 10.0**decimals
        return XLC(float(np.rint(self.w0 * k)), tuple(np.rint(w * k) for w in self.weights))


@dataclass(frozen=True)
class Slack:
    """The quantities of Section 3.2 for one instance ``a``: prediction ``c``,
    ``Γ`` (margin towards ``c``), per-feature ``δ_i``, per-value losses, and ``Φ``."""

    prediction: int
    gamma: float
    deltas: np.ndarray
    losses: tuple[np.ndarray, ...]

    @property
    def phi(self) -> float:
        return float(self.deltas.sum() - self.gamma)

    def keeps(self, total_loss) -> np.ndarray | bool:
        """Whether a total loss keeps the prediction (strict for class 1, ties go to 0)."""
        return total_loss < self.gamma if self.prediction == 1 else total_loss <= self.gamma


def slack(xlc: XLC, a) -> Slack:
    """``Γ``, ``δ_i`` and the losses of ``xlc`` at instance ``a``."""
    a = [int(v) for v in a]
    if len(a) != xlc.n_features:
        raise ValueError(f"instance has {len(a)} values, the model {xlc.n_features} features")
    for i, (v, w) in enumerate(zip(a, xlc.weights, strict=True)):
        if not 0 <= v < len(w):
            raise ValueError(f"feature {i}: value {v} outside its domain 0..{len(w) - 1}")
    nu = float(xlc.nu([a])[0])
    c = int(nu > 0)
    s = 1.0 if c == 1 else -1.0
    losses = tuple(s * (w[v] - w) for v, w in zip(a, xlc.weights, strict=True))
    return Slack(c, s * nu, np.array([loss.max() for loss in losses]), losses)


def axp(sl: Slack) -> list[int]:
    """The polynomial AXp of Section 3.2: free features in increasing ``δ_i`` while the
    summed worst-case loss still keeps the prediction (equivalently, keep the largest
    ``δ_i`` until ``Σ_S δ_i > Φ``). Subset-minimal; sorted feature indices."""
    free_loss = 0.0
    fixed = set(range(len(sl.deltas)))
    for i in np.argsort(sl.deltas, kind="stable"):
        if sl.keeps(free_loss + sl.deltas[i]):
            free_loss += sl.deltas[i]
            fixed.discard(int(i))
    return sorted(fixed)


def min_cxp(sl: Slack) -> list[int] | None:
    """A minimum-size CXp: free the features of largest ``δ_i`` until the prediction can
    change; None when no set of features can change it."""
    total = 0.0
    for k, i in enumerate(np.argsort(-sl.deltas, kind="stable")):
        total += sl.deltas[i]
        if not sl.keeps(total):
            return sorted(int(j) for j in np.argsort(-sl.deltas, kind="stable")[: k + 1])
    return None


def train(X, y, domain_sizes: list[int], alpha: float = 1.0) -> CategoricalNB:
    """Fit a ``CategoricalNB`` that knows every domain value (``min_categories``)."""
    y = np.asarray(y)
    if len(np.unique(y)) != 2:
        raise ValueError(f"binary targets only: got classes {np.unique(y).tolist()}")
    model = CategoricalNB(alpha=alpha, min_categories=np.asarray(domain_sizes, dtype=int))
    return model.fit(np.asarray(X, dtype=int), y)


def save(model: CategoricalNB, path: str | Path, meta: dict) -> None:
    """Save ``model`` with joblib and ``<stem>.meta.json`` beside it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    joblib.dump(model, path)
    meta = {**meta, "code_version": code_version(),
            "versions": {"python": platform.python_version(),
                         "scikit-learn": sklearn.__version__, "numpy": np.__version__}}
    path.with_suffix(".meta.json").write_text(json.dumps(meta, indent=2) + "\n")


def load(path: str | Path) -> CategoricalNB:
    """The CategoricalNB saved at ``path`` (ModelError naming the file if unreadable)."""
    from fxai import models

    return models.load(path, family="nbc")
