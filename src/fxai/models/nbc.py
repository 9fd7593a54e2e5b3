"""Categorical naive Bayes (NBC): scikit-learn's scores, and the XLC form of a class pair.

:class:`NBCTables` holds the log prior and log-probability tables of any number of classes
and computes the joint log-likelihoods with scikit-learn's own float64 summation (features
in index order from 0, then the prior), so its ``predict`` (argmax, first index on ties) is
``CategoricalNB.predict`` bit for bit, exact ties included.

The NBC paper (Section 3) reduces a binary NBC over categorical features to an XLC
``ν(x) = w0 + Σ_i v_i[x_i]`` with ``κ(x) = 1`` iff ``ν(x) > 0``, where
``w0 = lPr(1) - lPr(0)`` and ``v_i[j] = lPr(x_i=j | 1) - lPr(x_i=j | 0)``. A tie
``ν(x) = 0`` goes to class 0, as ``argmax`` in scikit-learn does. With more classes, the
XLC of a class pair (:meth:`NBCTables.pair`) is ``score_c - score_j``: ``c`` beats ``j``
iff it is ``> 0`` (``j < c``) or ``≥ 0`` (``j > c``, the first index wins a tie).

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
class NBCTables:
    """Log prior ``(K,)`` and per-feature log-probability tables ``(K, d_i)`` of an NBC.

    Scores are summed as scikit-learn's ``CategoricalNB._joint_log_likelihood`` does, so
    :meth:`predict` is scikit-learn's ``predict`` (class indices), ties included. An
    :class:`XLC` is the two-class model with scores ``0`` and ``ν``.

    Examples
    --------
    >>> t = NBCTables(np.log([0.5, 0.5]), (np.log([[0.9, 0.1], [0.1, 0.9]]),) * 2)
    >>> t.predict([[0, 1], [1, 1]]).tolist()  # (0, 1) is a tie: the first class wins
    [0, 1]
    """

    prior: np.ndarray
    tables: tuple[np.ndarray, ...]
    order: tuple[int, ...] | None = None  # the order scores are summed in (None: 0, 1, ...)

    @property
    def summed(self) -> list[int]:
        """The features in the order their log-probabilities are added."""
        return list(range(len(self.tables))) if self.order is None else list(self.order)

    @classmethod
    def from_categorical_nb(cls, model: CategoricalNB) -> NBCTables:
        """The tables of a fitted scikit-learn ``CategoricalNB`` (two or more classes)."""
        return cls(np.asarray(model.class_log_prior_, dtype=float),
                   tuple(np.asarray(t, dtype=float) for t in model.feature_log_prob_))

    @classmethod
    def from_xlc(cls, xlc: XLC) -> NBCTables:
        """Class 0 scores 0, class 1 scores ``ν`` (summed in the order of ``XLC.nu``)."""
        return cls(np.array([0.0, xlc.w0]),
                   tuple(np.stack([np.zeros_like(w), w]) for w in xlc.weights))

    @property
    def n_classes(self) -> int:
        return len(self.prior)

    @property
    def n_features(self) -> int:
        return len(self.tables)

    @property
    def domain_sizes(self) -> list[int]:
        return [t.shape[1] for t in self.tables]

    def joint_log_likelihood(self, X) -> np.ndarray:
        """``(rows, K)`` scores, summed exactly as scikit-learn sums them."""
        X = np.atleast_2d(np.asarray(X, dtype=np.intp))
        jll = np.zeros((X.shape[0], self.n_classes))
        for i in self.summed:
            jll += self.tables[i][:, X[:, i]].T
        return jll + self.prior

    def predict(self, X) -> np.ndarray:
        """Class index of each row (argmax of the scores, the first on ties)."""
        return np.argmax(self.joint_log_likelihood(X), axis=1)

    def pair(self, c: int, j: int) -> XLC:
        """The XLC of ``score_c - score_j`` (real-valued: the float differences)."""
        return XLC(float(self.prior[c] - self.prior[j]),
                   tuple(t[c] - t[j] for t in self.tables))

    def pair_error(self, c: int, j: int) -> float:
        """A bound on every float rounding in ``score_c - score_j``: scikit-learn's two
        sums (recursive summation of ``n + 1`` terms, error ≤ ``γ_n Σ|terms|``) and the
        pair XLC's differences and sums, with a factor 8 to spare."""
        mags = sum(float(np.abs(t[[c, j]]).max()) for t in self.tables)
        scale = 2 * mags + abs(float(self.prior[c])) + abs(float(self.prior[j]))
        return 8 * (self.n_features + 2) * 2.0**-53 * scale


@dataclass(frozen=True)
class Slack:
    """The quantities of Section 3.2 for one instance ``a``: prediction ``c``,
    ``Γ`` (margin towards ``c``), per-feature ``δ_i``, per-value losses, and ``Φ``."""

    prediction: int
    gamma: float
    deltas: np.ndarray
    losses: tuple[np.ndarray, ...]
    strict: bool  # the loss must stay below Γ (else: at most Γ)

    @property
    def phi(self) -> float:
        return float(self.deltas.sum() - self.gamma)

    def keeps(self, total_loss) -> np.ndarray | bool:
        """Whether a total loss keeps the prediction (strict for class 1, ties go to 0)."""
        return total_loss < self.gamma if self.strict else total_loss <= self.gamma


def slack(xlc: XLC, a, prediction: int | None = None, strict: bool | None = None) -> Slack:
    """``Γ``, ``δ_i`` and the losses of ``xlc`` at instance ``a``, for the class
    ``prediction`` (default: the XLC's own, ``ν(a) > 0``); ``strict`` (default: class 1)
    says whether a tie ``ν = 0`` loses that class."""
    a = [int(v) for v in a]
    if len(a) != xlc.n_features:
        raise ValueError(f"instance has {len(a)} values, the model {xlc.n_features} features")
    for i, (v, w) in enumerate(zip(a, xlc.weights, strict=True)):
        if not 0 <= v < len(w):
            raise ValueError(f"feature {i}: value {v} outside its domain 0..{len(w) - 1}")
    nu = float(xlc.nu([a])[0])
    c = int(nu > 0) if prediction is None else prediction
    s = 1.0 if c == 1 else -1.0
    losses = tuple(s * (w[v] - w) for v, w in zip(a, xlc.weights, strict=True))
    return Slack(c, s * nu, np.array([loss.max() for loss in losses]), losses,
                 c == 1 if strict is None else strict)


def train(X, y, domain_sizes: list[int], alpha: float = 1.0) -> CategoricalNB:
    """Fit a ``CategoricalNB`` that knows every domain value (``min_categories``)."""
    y = np.asarray(y)
    if len(np.unique(y)) < 2:
        raise ValueError(f"two or more classes needed: got {np.unique(y).tolist()}")
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
