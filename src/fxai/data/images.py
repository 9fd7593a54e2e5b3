"""Image datasets of the anytime-FFA paper: MNIST digit pairs and PneumoniaMNIST, downscaled.

Images are downscaled from 28x28 to ``image.size`` x ``image.size`` (10 in the paper) by
area averaging: each output pixel is the mean of the input area it covers, with fractional
overlaps weighted (28/10 = 2.8 input pixels per output pixel), computed as ``W @ img @ W.T``
with a row-stochastic overlap matrix ``W``. Pixels are numeric features ``p<row>_<col>``
(grey levels 0..255, rounded to 3 decimals), or with ``image.binarize`` binary ones (1 where
the downscaled grey level is above 127.5): the FFA paper's MNIST models were trained on
categorical pixels (the authors' ``-c``, whose prediction code reads any category above 0 as
"pixel on"), and one-hot columns of a two-valued pixel split a tree as the pixel itself does.
The paper does not say how it downscaled; the authors' archive with the processed images is
unreadable (shared notes §2).

* MNIST (``image.digits: [a, b]``): the mirror holds only the 10k test set (IDX files), so
  the two digits' test images form the whole table and the workflow's 80/20 split is taken
  from them; target code 0 = digit a, 1 = digit b.
* PneumoniaMNIST (npz with ``{train,val,test}_{images,labels}``): all splits pooled (the
  workflow splits 80/20, as the paper did). When the registry lists a second file with
  ``role: alternative`` (the mirror's class-balanced copy), its training images are added
  and exact duplicates dropped: the mirror's main copy lacks 826 normal training images
  that the balanced copy holds. Target 0 = normal, 1 = pneumonia.
"""

from __future__ import annotations

import gzip
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from fxai.errors import DataError

BINARY_THRESHOLD = 127.5  # image.binarize: a pixel is 1 above the middle of the grey levels


def area_matrix(n_in: int, n_out: int) -> np.ndarray:
    """``(n_out, n_in)`` row-stochastic matrix of the overlap of output with input cells."""
    if not 0 < n_out <= n_in:
        raise ValueError(f"cannot downscale {n_in} pixels to {n_out}")
    edges_out = np.linspace(0, n_in, n_out + 1)
    lo = np.maximum(edges_out[:-1, None], np.arange(n_in)[None, :])
    hi = np.minimum(edges_out[1:, None], np.arange(1, n_in + 1)[None, :])
    w = np.clip(hi - lo, 0, None)
    return w / w.sum(axis=1, keepdims=True)


def downscale(images: np.ndarray, size: int) -> np.ndarray:
    """Area-average a stack ``(n, h, w)`` of images to ``(n, size, size)``."""
    if images.ndim != 3:
        raise ValueError(f"expected a stack of 2-D images, got shape {images.shape}")
    wr, wc = area_matrix(images.shape[1], size), area_matrix(images.shape[2], size)
    return np.einsum("ij,njk,lk->nil", wr, images.astype(np.float64), wc)


def read_idx(path: str | Path) -> np.ndarray:
    """An IDX file (MNIST format, optionally gzipped) as a numpy array."""
    path = Path(path)
    raw = (gzip.open if path.suffix == ".gz" else open)(path, "rb").read()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] != 0x08:
        raise DataError(f"{path}: not an unsigned-byte IDX file (bad magic number)")
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
    data = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim)
    if data.size != int(np.prod(dims)):
        raise DataError(f"{path}: IDX header says {dims} but holds {data.size} values")
    return data.reshape(dims)


def _paths(raw_paths) -> list[Path]:
    if isinstance(raw_paths, (str, Path)):
        return [Path(raw_paths)]
    if isinstance(raw_paths, Mapping):
        return [Path(p) for p in raw_paths.values()]
    return [Path(p) for p in raw_paths]


def _find(paths: Sequence[Path], word: str, what: str) -> Path:
    hits = [p for p in paths if word in p.name]
    if not hits:
        raise DataError(f"{what}: no raw file with {word!r} in its name among "
                        f"{[str(p) for p in paths]}")
    return hits[0]


def _table(pixels: np.ndarray, y: np.ndarray, classes: list, labels: list, name: str,
           binarize: bool = False):
    size = pixels.shape[1]
    names = [f"p{r}_{c}" for r in range(size) for c in range(pixels.shape[2])]
    flat = pixels.reshape(len(pixels), -1)
    if binarize:
        df = pd.DataFrame((flat > BINARY_THRESHOLD).astype(int), columns=names)
        features = [{"name": n, "type": "binary", "values": [0, 1]} for n in names]
    else:
        df = pd.DataFrame(np.round(flat, 3), columns=names)
        features = [{"name": n, "type": "numeric"} for n in names]
    df["target"] = y.astype(int)
    domains = {"name": name, "features": features,
               "target": {"name": "target", "classes": classes, "labels": labels}}
    return df, domains


def _mnist(entry: Mapping, paths: Sequence[Path], size: int, binarize: bool):
    name = entry.get("name", "mnist")
    digits = list((entry.get("image") or {}).get("digits")
                  or (entry.get("classes") or {}).get("keep") or [])
    if len(digits) != 2:
        raise DataError(f"{name}: image.digits must name two digits, got {digits}")
    images = read_idx(_find(paths, "images", name))
    labels = read_idx(_find(paths, "labels", name))
    if len(images) != len(labels):
        raise DataError(f"{name}: {len(images)} images but {len(labels)} labels")
    keep = np.isin(labels, digits)
    y = (labels[keep] == digits[1]).astype(int)
    return _table(downscale(images[keep], size), y, [0, 1], [str(d) for d in digits], name,
                  binarize)


def _npz_pool(path: Path, parts=("train", "val", "test")):
    with np.load(path) as z:
        imgs = [z[f"{p}_images"] for p in parts if f"{p}_images" in z]
        labs = [z[f"{p}_labels"].reshape(-1) for p in parts if f"{p}_labels" in z]
    if not imgs:
        raise DataError(f"{path}: no '<split>_images' arrays (keys train/val/test expected)")
    return np.concatenate(imgs), np.concatenate(labs)


def _pneumonia(entry: Mapping, paths: Sequence[Path], size: int, binarize: bool):
    name = entry.get("name", "pneumoniamnist")
    alt_names = {f["name"] for f in entry.get("files", []) if f.get("role") == "alternative"}
    main = [p for p in paths if p.suffix == ".npz" and p.name not in alt_names]
    if not main:
        raise DataError(f"{name}: no .npz file among {[str(p) for p in paths]}")
    images, labels = _npz_pool(main[0])
    alt = [p for p in paths if p.name in alt_names]
    if alt:
        extra_x, extra_y = _npz_pool(alt[0], parts=("train",))
        images, labels = np.concatenate([images, extra_x]), np.concatenate([labels, extra_y])
        flat = np.concatenate([images.reshape(len(images), -1), labels[:, None]], axis=1)
        _, first = np.unique(flat, axis=0, return_index=True)
        keep = np.sort(first)
        images, labels = images[keep], labels[keep]
    return _table(downscale(images, size), labels, [0, 1], ["normal", "pneumonia"], name,
                  binarize)


def prepare_image(entry: Mapping, raw_paths) -> tuple[pd.DataFrame, dict]:
    """The prepared table (pixels then ``target``) and domains of an image registry entry."""
    paths = _paths(raw_paths)
    spec = entry.get("image") or {}
    size, binarize = int(spec.get("size", 10)), bool(spec.get("binarize", False))
    if any(p.suffix == ".npz" for p in paths):
        return _pneumonia(entry, paths, size, binarize)
    if any("idx" in p.name for p in paths):
        return _mnist(entry, paths, size, binarize)
    raise DataError(f"{entry.get('name', '?')}: no image files recognised (IDX or npz) among "
                    f"{[str(p) for p in paths]}")
