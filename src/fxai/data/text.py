"""Text datasets of the anytime-FFA paper (Sarcasm headlines, Disaster tweets) as binary
bag-of-words tables.

Cleaning, as the authors' code (shared notes §2): lower case; @handles, URLs and every
non-alphanumeric character removed; English stop words removed. Deviations, both forced by
the offline setting: the stop-word list is scikit-learn's ``ENGLISH_STOP_WORDS`` (NLTK's
list needs a corpus download; note that scikit-learn's list is longer and holds words such as
"fire", "call", "find" or "system" that NLTK keeps), and no WordNet lemmatisation is
applied (same reason).

The vocabulary is fitted on the *training rows only* (``CountVectorizer(binary=True)``,
tokens of 2+ characters). Preparation happens before the workflow's split, so it draws its
own split with the split rule's function (``fxai.data.split.make_split``: seeded, stratified
when the classes allow); ``seed`` and
``test_size`` come from the entry's ``split`` mapping (defaults 0 and 0.2) and are recorded in
the domains JSON (``vocabulary``), so the split rule can reproduce and check it.
``text.max_features`` (default 1000) keeps the most frequent training words: the authors
used the whole vocabulary, which for Sarcasm (~22,600 words x 26,709 rows) is a 1.2 GB CSV
table; ``null`` restores the full vocabulary, and the entry's ``table: npz`` writes it sparse
(:class:`fxai.data.prepared.SparseTable`). Features are ``w_<word>`` (binary 0/1).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, CountVectorizer

from fxai.data.images import _paths
from fxai.data.prepared import SparseTable
from fxai.data.split import make_split
from fxai.errors import DataError

_HANDLE = re.compile(r"@\w+")
_URL = re.compile(r"https?://\S+|www\.\S+")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")
DEFAULT_MAX_FEATURES = 1000


def clean(text: str) -> str:
    """Lower case, without @handles, URLs, non-alphanumerics and English stop words."""
    text = _URL.sub(" ", _HANDLE.sub(" ", str(text).lower()))
    words = _NON_ALNUM.sub(" ", text).split()
    return " ".join(w for w in words if w not in ENGLISH_STOP_WORDS)


def text_split(y: np.ndarray, seed: int, test_size: float) -> tuple[np.ndarray, np.ndarray]:
    """The split rule's split of the row ids (``fxai.data.split.make_split``): train, test."""
    doc = make_split(np.asarray(y), test_size, seed)
    return np.asarray(doc["train"]), np.asarray(doc["test"])


def _read(entry: Mapping, path: Path) -> pd.DataFrame:
    fmt = entry.get("format", "csv")
    try:
        if fmt in ("json-lines", "jsonl"):
            return pd.read_json(path, lines=True)
        if fmt == "csv":
            return pd.read_csv(path)
    except ValueError as err:
        raise DataError(f"{path}: cannot be read as {fmt}: {err}") from err
    raise DataError(f"{entry.get('name', '?')}: text format {fmt!r} unknown (json-lines, csv)")


def prepare_text(entry: Mapping, raw_paths) -> tuple[pd.DataFrame | SparseTable, dict]:
    """The prepared table (binary word features then ``target``; with ``table: npz`` a
    :class:`~fxai.data.prepared.SparseTable`) and domains of a text entry."""
    name = entry.get("name", "text")
    paths = _paths(raw_paths)
    if not paths:
        raise DataError(f"{name}: no raw file given")
    spec = entry.get("text") or {}
    col, label = spec.get("column", "text"), spec.get("label", entry.get("target", "target"))
    raw = _read(entry, paths[0])
    for c in (col, label):
        if c not in raw.columns:
            raise DataError(f"{paths[0]}: no column {c!r} (columns: {list(raw.columns)})")
    raw = raw.dropna(subset=[col, label])
    y = raw[label].astype(int).to_numpy()
    classes = sorted(np.unique(y).tolist())
    if len(classes) != 2:
        raise DataError(f"{paths[0]}: column {label!r} must have two classes, has {classes}")
    y = np.searchsorted(classes, y)
    split = entry.get("split") or {}
    seed, test_size = int(split.get("seed", 0)), float(split.get("test_size", 0.2))
    train, _ = text_split(y, seed, test_size)
    docs = [clean(t) for t in raw[col]]
    max_features = spec.get("max_features", DEFAULT_MAX_FEATURES)
    vec = CountVectorizer(binary=True, max_features=max_features)
    vec.fit([docs[i] for i in train])
    words = vec.get_feature_names_out().tolist()
    X = vec.transform(docs)
    if entry.get("table", "csv") == "npz":
        df = SparseTable(X, y)
    else:
        df = pd.DataFrame(X.toarray().astype(np.int8), columns=[f"w_{w}" for w in words])
        df["target"] = y
    domains = {
        "name": name,
        "features": [{"name": f"w_{w}", "type": "binary", "values": [0, 1],
                      "labels": ["absent", "present"]} for w in words],
        "target": {"name": "target", "classes": [0, 1], "labels": [str(c) for c in classes]},
        "vocabulary": {"fit_on": "train", "seed": seed, "test_size": test_size,
                       "n_train": int(train.size),
                       "max_features": max_features, "stop_words": "sklearn",
                       "lemmatised": False},
    }
    return df, domains
