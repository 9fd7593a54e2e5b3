"""Prepare a registry dataset: ``data/prepared/<ds>.csv`` + ``<ds>.domains.json``.

Steps, each set per registry entry: choose the source (``files`` / ``embedded`` /
``generated``), drop columns, apply the missing-value policy (``drop`` rows, ``most_frequent``
value, or a ``category`` of its own; numeric gaps get the median under the last two), type the
features (categorical / binary / numeric), keep a subset of classes or make one-vs-rest,
integer-code categorical values and the class, discretise numeric features (``quantile`` or
``uniform`` bins; edges computed on the whole table before the split; quantile bins that ties
collapse give each frequent value a bin of its own, see :func:`_quantile_edges`), optionally drop
duplicate rows, and write both files atomically. Image and text entries are handed to
:mod:`fxai.data.images` / :mod:`fxai.data.text`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fxai.data.embedded import load_embedded
from fxai.data.fetch import read_manifest, sha256_of
from fxai.data.generators import generate
from fxai.data.prepared import SparseTable
from fxai.data.readers import read_table
from fxai.data.registry import Registry
from fxai.errors import DataError
from fxai.files import open_atomic, write_atomic
from fxai.values import plain

log = logging.getLogger(__name__)

SOURCES = ("files", "embedded", "generated")
DEFAULT_ORDER = ("embedded", "generated", "files")
DEFAULT_MISSING = ("?", "")
_SOURCE_KEY = {"files": "files", "embedded": "embedded", "generated": "generator"}


def source_of(entry: dict[str, Any], order: Sequence[str] = DEFAULT_ORDER) -> str:
    """The source an entry is built from: its pinned ``source``, else the first of ``order``."""
    if "source" in entry:
        if _SOURCE_KEY[entry["source"]] not in entry:
            raise DataError(f"dataset {entry['name']}: pinned source {entry['source']} is absent.")
        return entry["source"]
    for src in order:
        if src not in _SOURCE_KEY:
            raise DataError(f"unknown data source {src!r} in data.source_order; use {SOURCES}.")
        if _SOURCE_KEY[src] in entry:
            return src
    raise DataError(
        f"dataset {entry['name']} has none of the sources {list(order)} "
        f"(it has {[s for s in SOURCES if _SOURCE_KEY[s] in entry]}); "
        "change data.source_order in the config."
    )


def source_dir(
    root: str | Path, entry: dict[str, Any], order: Sequence[str] = DEFAULT_ORDER
) -> Path:
    """``<root>/<source>``: where the workflow keeps an entry's prepared table, so tables built
    from different sources (e.g. iris embedded vs from the published file) never share a path."""
    return Path(root) / source_of(entry, order)


def _num_key(values: Sequence[str]) -> list[str]:
    """Sort numerically when every value is a number, else as text."""
    try:
        return sorted(values, key=float)
    except ValueError:
        return sorted(values)


def _same(label: str, wanted: Any) -> bool:
    if str(wanted) == label:
        return True
    try:
        return float(label) == float(wanted)
    except (TypeError, ValueError):
        return False


def feature_types(entry: dict[str, Any], columns: Sequence[str], origin: str) -> dict[str, str]:
    """Types from the entry's ``features`` spec: ``default`` plus per-type name lists."""
    spec = entry.get("features") or {}
    types = dict.fromkeys(columns, spec.get("default", "categorical"))
    for kind in ("categorical", "binary", "numeric"):
        for name in spec.get(kind, []):
            if name in types:
                types[name] = kind
            elif name not in entry.get("drop", []):
                raise DataError(f"{origin}: features.{kind} names {name!r}, which is no column.")
    return types


def _missing_mask(col: pd.Series, values: Sequence[str]) -> pd.Series:
    return col.isna() | col.astype(str).str.strip().isin(list(values))


def _as_written(col: pd.Series) -> pd.Series:
    """A coded column's values as its file writes them: pandas reads whole numbers with an
    empty cell among them as floats (``2`` as ``2.0``); they become ``"2"`` again."""
    if col.dtype.kind != "f":
        return col
    known = col.dropna()
    if not (known == np.floor(known)).all() or not np.isfinite(known).all():
        return col
    return col.map(lambda v: v if pd.isna(v) else str(int(v)))


def _fill(col: pd.Series, miss: pd.Series, kind: str, policy: str) -> pd.Series:
    if not miss.any() or policy == "drop":
        return col
    if kind == "numeric":
        return col.where(~miss, pd.to_numeric(col[~miss], errors="coerce").median())
    if policy == "category":
        return col.where(~miss, "?")
    return col.where(~miss, col[~miss].astype(str).mode().iloc[0])


def _numeric(col: pd.Series, name: str, origin: str) -> np.ndarray:
    vals = pd.to_numeric(col, errors="coerce")
    bad = vals.isna() & col.notna()
    if bad.any():
        rows = list(col.index[bad][:3])
        examples = [str(v) for v in col[bad].iloc[:3]]
        raise DataError(
            f"{origin}: column {name!r} is numeric but holds non-numeric values {examples} "
            f"(data rows {rows}); declare it categorical or add the token to missing.values."
        )
    return vals.to_numpy(dtype=float)


def _discretise(x: np.ndarray, method: str, bins: int) -> np.ndarray:
    """Bin edges (a value equal to an edge goes to the upper bin)."""
    if method == "quantile":
        return _quantile_edges(x, bins)
    return _inside(x, np.linspace(x.min(), x.max(), bins + 1)[1:-1])


def _inside(x: np.ndarray, edges: np.ndarray) -> np.ndarray:
    return np.unique(edges[(edges > x.min()) & (edges <= x.max())])


def _quantile_edges(x: np.ndarray, bins: int) -> np.ndarray:
    """Quantile edges; where ties collapse them (fewer than ``bins - 1`` distinct edges, e.g.
    a feature that is 0 in 90 % of the rows), every value holding at least ``1 / bins`` of
    the rows gets a bin of its own and the other rows are cut into quantiles of what is left,
    so a feature is constant only when it has a single value."""
    edges = _inside(x, np.quantile(x, np.linspace(0, 1, bins + 1)[1:-1]))
    if len(edges) >= bins - 1:
        return edges
    vals, counts = np.unique(x, return_counts=True)
    heavy = counts * bins >= len(x)
    cut = list(vals[heavy])  # each heavy value starts a bin ...
    cut += [vals[i + 1] for i in np.flatnonzero(heavy) if i + 1 < len(vals)]  # ... and ends one
    rest = x[~np.isin(x, vals[heavy])]
    left = bins - int(heavy.sum())
    if rest.size and left > 1:
        cut += list(np.quantile(rest, np.linspace(0, 1, left + 1)[1:-1]))
    return _inside(x, np.asarray(cut, dtype=float))


def _bin_labels(edges: np.ndarray) -> list[str]:
    e = [f"{v:g}" for v in edges]
    if not e:
        return ["all"]
    return [f"< {e[0]}"] + [f"[{a}, {b})" for a, b in zip(e, e[1:], strict=False)] + [f">= {e[-1]}"]


def build(
    entry: dict[str, Any], df: pd.DataFrame, types: dict[str, str], origin: str
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Apply the entry's settings to a raw table (``target`` column last or anywhere).

    Returns the prepared table (features then ``target``) and its domains document.
    """
    if "target" not in df.columns:
        raise DataError(f"{origin}: no target column {entry.get('target', 'target')!r} "
                        f"(columns: {list(df.columns)[:20]}).")
    df = df.drop(columns=[c for c in entry.get("drop", []) if c in df.columns])
    feats = [c for c in df.columns if c != "target"]
    if not feats:
        raise DataError(f"{origin}: no feature columns.")
    df = df.assign(**{c: _as_written(df[c]) for c in [*feats, "target"]
                      if c == "target" or types[c] != "numeric"})
    miss_cfg = entry.get("missing") or {}
    miss_values = miss_cfg.get("values", DEFAULT_MISSING)
    policy = miss_cfg.get("policy", "drop")
    n_raw = len(df)
    df = df[~_missing_mask(df["target"], miss_values)]
    cleaning: dict[str, Any] = {"rows": n_raw, "policy": policy,
                                "dropped_no_target": n_raw - len(df)}
    if len(df) < n_raw:
        log.info("%s: dropped %d of %d rows without a target value", origin, n_raw - len(df),
                 n_raw)
    masks = {c: _missing_mask(df[c], miss_values) for c in feats}
    if policy == "drop":
        keep = ~np.logical_or.reduce([m.to_numpy() for m in masks.values()])
        if not keep.any():
            raise DataError(f"{origin}: every row has a missing value (missing.policy drop).")
        if not keep.all():
            log.info("%s: dropped %d of %d rows with a missing feature value (missing.policy "
                     "drop)", origin, int((~keep).sum()), len(df))
        cleaning["dropped_missing"] = int((~keep).sum())
        df = df[keep]
    else:
        df = df.assign(**{c: _fill(df[c], masks[c], types[c], policy) for c in feats})
        filled = {c: int(masks[c].sum()) for c in feats if masks[c].any()}
        cleaning["filled"] = {c: {"count": n, "value": plain(df[c][masks[c]].iloc[0])}
                              for c, n in filled.items()}
        if filled:
            log.info("%s: filled %d missing values (missing.policy %s): %s", origin,
                     sum(filled.values()), policy, ", ".join(
                         f"{c} {n} of {len(df)} with {df[c][masks[c]].iloc[0]!r}"
                         for c, n in filled.items()))
    df = df.reset_index(drop=True)

    # classes: filter / one-vs-rest, then integer codes in sorted label order
    y = df["target"].astype(str).str.strip()
    cls = entry.get("classes") or {}
    if "keep" in cls:
        sel = y.map(lambda v: any(_same(v, k) for k in cls["keep"]))
        df, y = df[sel.to_numpy()].reset_index(drop=True), y[sel.to_numpy()].reset_index(drop=True)
    if "positive" in cls:
        pos = y.map(lambda v: any(_same(v, k) for k in cls["positive"]))
        if not pos.any():
            raise DataError(f"{origin}: no row has a positive class {cls['positive']} "
                            f"(labels: {_num_key(list(y.unique()))[:20]}).")
        y = pos.map({True: "+".join(map(str, cls["positive"])), False: "rest"})
        labels = ["rest", "+".join(map(str, cls["positive"]))]
    else:
        labels = _num_key(list(y.unique()))
    if len(set(y)) < 2:
        raise DataError(f"{origin}: a single class {sorted(set(y))} after filtering; "
                        "a classifier needs at least two.")
    target = y.map({lab: i for i, lab in enumerate(labels)}).to_numpy(dtype=np.int64)

    disc = entry.get("discretise")
    to_bin = set((disc.get("features") or feats) if disc else [])
    out: dict[str, np.ndarray] = {}
    domains: list[dict[str, Any]] = []
    for c in feats:
        kind = types[c]
        if kind == "numeric":
            x = _numeric(df[c], c, origin)
            if c in to_bin:
                edges = _discretise(x, disc["method"], disc["bins"])
                out[c] = np.searchsorted(edges, x, side="right").astype(np.int64)
                domains.append({"name": c, "type": "discretised",
                                "values": list(range(len(edges) + 1)),
                                "labels": _bin_labels(edges), "edges": edges.tolist()})
            else:
                out[c] = x
                domains.append({"name": c, "type": "numeric"})
            continue
        col = df[c].astype(str).str.strip()
        seen = _num_key(list(col.unique()))
        if kind == "binary":
            if len(seen) > 2:
                raise DataError(f"{origin}: column {c!r} is declared binary but has "
                                f"{len(seen)} values {seen[:5]}.")
            if all(_same(v, 0) or _same(v, 1) for v in seen):
                code = {v: int(float(v)) for v in col.unique()}
                labels_c = ["0", "1"]
            else:
                code = {v: i for i, v in enumerate(seen)}
                labels_c = seen + ["<unseen>"] * (2 - len(seen))
            out[c] = col.map(code).to_numpy(dtype=np.int64)
            domains.append({"name": c, "type": "binary", "values": [0, 1], "labels": labels_c})
        elif kind == "categorical":
            out[c] = col.map({v: i for i, v in enumerate(seen)}).to_numpy(dtype=np.int64)
            domains.append({"name": c, "type": "categorical",
                            "values": list(range(len(seen))), "labels": seen})
        else:
            raise DataError(f"{origin}: unknown feature type {kind!r} for column {c!r}.")
    table = pd.DataFrame(out)
    table["target"] = target
    if entry.get("dedup"):
        n_rows = len(table)
        table = table.drop_duplicates(ignore_index=True)
        log.info("%s: dropped %d duplicate rows of %d (dedup)", origin, n_rows - len(table),
                 n_rows)
        cleaning["dropped_duplicates"] = n_rows - len(table)
    doc = {"name": entry["name"], "features": domains,
           "target": {"name": "target", "classes": list(range(len(labels))), "labels": labels},
           "cleaning": cleaning}
    return table, doc


def raw_table(
    entry: dict[str, Any], source: str, raw_dir: Path | None, seed: int = 0
) -> tuple[pd.DataFrame, dict[str, str], str]:
    """``(table with a 'target' column, feature types, origin)`` from the chosen source."""
    name = entry["name"]
    if source == "embedded":
        emb = entry["embedded"]
        df, types = load_embedded(emb["loader"], emb["name"])
        return df, types, f"embedded {emb['loader']}:{emb['name']} (dataset {name})"
    if source == "generated":
        gen = entry["generator"]
        df = generate(gen["name"], seed=seed, noise=gen.get("noise", 0.0))
        cols = [c for c in df.columns if c != "target"]
        return df, dict.fromkeys(cols, "binary"), f"generator {gen['name']} (dataset {name})"
    paths = raw_paths(raw_dir, name)
    df = read_table(entry, paths)
    origin = f"{paths[entry['files'][0]['name']]} (dataset {name})"
    tcol = entry.get("target", "target")
    if tcol not in df.columns:
        raise DataError(f"{origin}: no target column {tcol!r} (columns: {list(df.columns)[:20]}).")
    if tcol != "target":
        if "target" in df.columns:
            df = df.drop(columns="target")
        df = df.rename(columns={tcol: "target"})
    feats = [c for c in df.columns if c != "target"]
    return df, feature_types(entry, feats, origin), origin


def raw_paths(raw_dir: Path | None, name: str) -> dict[str, Path]:
    """File name -> path of the files fetched into ``raw_dir`` (per its manifest)."""
    if raw_dir is None or not (raw_dir / "manifest.json").is_file():
        raise DataError(f"dataset {name}: raw files not fetched ({raw_dir}/manifest.json "
                        "missing); run `fxai fetch` or the snakemake rule fetch first.")
    return {f["name"]: raw_dir / f["name"] for f in read_manifest(raw_dir)["files"]}


def _from_plugin(entry: dict[str, Any], raw_dir: Path | None
                 ) -> tuple[pd.DataFrame | SparseTable, dict]:
    paths = raw_paths(raw_dir, entry["name"])
    if entry["kind"] == "image":
        from fxai.data.images import prepare_image

        df, dom = prepare_image(entry, paths)
    else:
        from fxai.data.text import prepare_text

        df, dom = prepare_text(entry, paths)
    if isinstance(dom, list):
        classes = sorted(int(v) for v in df["target"].unique())
        dom = {"name": entry["name"], "features": dom,
               "target": {"name": "target", "classes": classes}}
    if entry.get("dedup"):
        if isinstance(df, SparseTable):
            raise DataError(f"dataset {entry['name']}: dedup is not available with table npz.")
        df = df.drop_duplicates(ignore_index=True)
    return df, dom


def write_prepared(table: pd.DataFrame | SparseTable, domains: dict[str, Any],
                   out_dir: str | Path) -> Path:
    """Write ``<name>.csv`` (a :class:`~fxai.data.prepared.SparseTable`: ``<name>.npz``) and
    ``<name>.domains.json`` atomically; return the table's path.

    The domains file records the table's row count, sha256 and format (unless csv) as
    ``table``, which :func:`fxai.data.prepared.load` checks.
    """
    out_dir = Path(out_dir)
    name = domains["name"]
    names = [f["name"] for f in domains["features"]]
    if isinstance(table, SparseTable):
        fmt = "npz"
        if table.X.shape[1] != len(names):
            raise DataError(f"prepared table of {name}: {table.X.shape[1]} columns, its "
                            f"domains {len(names)} features.")
        path = out_dir / f"{name}.npz"
        with open_atomic(path, "wb") as f:
            f.write(table.npz_bytes())
    else:
        fmt = "csv"
        if list(table.columns) != [*names, "target"]:
            raise DataError(f"prepared table of {name}: columns do not match its domains.")
        path = out_dir / f"{name}.csv"
        write_atomic(path, table.to_csv(index=False))
    # the domains file, written last, records what a reader must find in the table
    table_doc = {"rows": len(table), "sha256": sha256_of(path)}
    domains = {**domains, "table": table_doc if fmt == "csv" else {"format": fmt, **table_doc}}
    write_atomic(out_dir / f"{name}.domains.json", json.dumps(domains, indent=1) + "\n")
    return path


def prepare(
    ds: str,
    registry: Registry,
    raw_root: str | Path = "data/raw",
    out_dir: str | Path = "data/prepared",
    source_order: Sequence[str] = DEFAULT_ORDER,
    seed: int = 0,
    test_size: float = 0.2,
) -> Path:
    """Prepare dataset ``ds`` (name or alias) and write it; returns the CSV path.

    ``seed`` seeds the generators; text entries also get ``split: {seed, test_size}`` (their
    vocabulary is fitted on the training rows of the split the split rule will draw).
    """
    entry = registry.entry(ds)
    if entry.get("base_only"):
        derived = [n for n in registry.names if registry.raw[n].get("base") == entry["name"]]
        raise DataError(f"dataset {entry['name']} only provides raw files for {derived}; "
                        "prepare one of those instead.")
    source = source_of(entry, source_order)
    raw_dir = Path(raw_root) / registry.root(ds) if source == "files" else None
    if entry.get("table", "csv") != "csv" and entry.get("kind") != "text":
        raise DataError(f"dataset {entry['name']}: table {entry['table']!r} is for text entries "
                        "(binary word features); other kinds are written as csv.")
    if entry.get("kind", "tabular") != "tabular":
        if entry["kind"] == "text":
            entry = {**entry, "split": {"seed": seed, "test_size": test_size}}
        table, doc = _from_plugin(entry, raw_dir)
    else:
        df, types, origin = raw_table(entry, source, raw_dir, seed)
        table, doc = build(entry, df, types, origin)
    doc["source"] = source
    path = write_prepared(table, doc, out_dir)
    log.info("%s: %d rows, %d features (%s) -> %s", entry["name"], len(table),
             len(doc["features"]), source, path)
    return path
