"""Write result tables as CSV, Markdown and LaTeX, with the papers' values beside ours.

``write_table(ours, name, out_dir, reference="xpg_table2_dt")`` writes ``<name>.csv/.md/.tex``.
For every column of ``ours`` that the reference CSV also has, ``<col> (published)`` and
``<col> (diff)`` (ours minus published) follow it. Rows are matched on the ``key`` columns after
resolving dataset aliases; published rows we lack are appended (our cells shown as "missing").
A fidelity summary ``<name>.fidelity.csv/.md`` says per column how many cells agree within a
tolerance, and ``<name>.missing.csv`` lists the published rows we lack and why.

A table built from results of more than one fxai code version (``code_versions``: the
versions behind each row, from run headers and model metas) gets a ``code_version`` column
naming each row's and a note line after its caption (docs/results.md); a table of one
version has neither.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from fxai.data.registry import load_registry
from fxai.report import reference as ref

PUBLISHED = " (published)"
DIFF = " (diff)"
MATCH = "match"  # column saying where a row comes from: "both", "ours only", "published only"
DEFAULT_REGISTRY = Path("config") / "datasets.yaml"
_CHECKOUT_REGISTRY = Path(__file__).resolve().parents[3] / DEFAULT_REGISTRY
DEFAULT_REASON = "not run in this profile"
CODE_VERSION = "code_version"  # column of a table built from results of several code versions


@dataclass(frozen=True)
class Tolerance:
    """A cell agrees when ``|ours - published| <= max(abs, rel * |published|)``."""

    rel: float = 0.10
    abs: float = 0.0

    def within(self, ours: np.ndarray, published: np.ndarray) -> np.ndarray:
        bound = np.maximum(self.abs, self.rel * np.abs(published))
        return np.abs(ours - published) <= bound + 1e-12


DEFAULT_TOLERANCE = Tolerance()


def alias_map(registry: str | Path | None = None) -> dict[str, str]:
    """Lower-cased alias (and canonical name) -> the dataset name of the published tables
    (the canonical name, or the entry's ``published_as``), from the dataset registry (read by
    :func:`fxai.data.load_registry`): by default ``./config/datasets.yaml``, else (another
    working directory) the source checkout's. An absent registry gives an empty map."""
    if registry is None:
        registry = DEFAULT_REGISTRY if DEFAULT_REGISTRY.is_file() else _CHECKOUT_REGISTRY
    path = Path(registry)
    if not path.is_file():
        return {}
    reg = load_registry(path)
    published = reg.published_names  # built once, not per alias
    return {a: published.get(n.lower(), n) for a, n in reg.aliases.items()}


def _canonical(names: pd.Series, aliases: Mapping[str, str]) -> pd.Series:
    return names.map(lambda n: aliases.get(str(n).lower(), n))


def _key_frame(df: pd.DataFrame, key: Sequence[str]) -> pd.DataFrame:
    """Key columns made comparable: floats rounded so 0.9 and 0.90 from two sources agree."""
    out = df[list(key)].copy()
    for k in key:
        if pd.api.types.is_float_dtype(out[k]):
            out[k] = out[k].round(9)
    return out


def combine(
    ours: pd.DataFrame,
    published: pd.DataFrame,
    key: Sequence[str] = ("dataset",),
    aliases: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Our table with ``<col> (published)`` / ``<col> (diff)`` beside each shared column, the
    published rows we lack appended, and a ``match`` column saying where each row comes from."""
    key = list(key)
    for side, df in (("our table", ours), ("reference", published)):
        absent = [k for k in key if k not in df.columns]
        if absent:
            raise ValueError(f"key column(s) {absent} missing from {side}: {list(df.columns)}")
    aliases = aliases or {}
    ours = ours.reset_index(drop=True)
    pub = published.copy()
    if "dataset" in key:
        pub["dataset"] = _canonical(pub["dataset"], aliases)
        ours = ours.assign(dataset=_canonical(ours["dataset"], aliases))
    if _key_frame(pub, key).duplicated().any():
        raise ValueError(f"reference has duplicate rows for key {key}")
    shared = [c for c in ours.columns if c not in key and c in pub.columns]
    left = pd.concat([_key_frame(ours, key), ours.drop(columns=key)], axis=1)
    right = pd.concat(
        [_key_frame(pub, key), pub[shared].rename(columns=lambda c: c + PUBLISHED)], axis=1
    )
    left["_ours"] = np.arange(len(left))
    right["_pub"] = np.arange(len(right))
    merged = left.merge(right, on=key, how="outer", indicator=True)
    # our row order first, then the published-only rows in the reference's order
    merged = merged.sort_values(["_ours", "_pub"], na_position="last", ignore_index=True)
    merged[MATCH] = merged.pop("_merge").map(
        {"both": "both", "left_only": "ours only", "right_only": "published only"}
    )
    columns = list(key)
    for c in ours.columns:
        if c in key:
            continue
        columns.append(c)
        if c in shared:
            columns.append(c + PUBLISHED)
            a = pd.to_numeric(merged[c], errors="coerce")
            b = pd.to_numeric(merged[c + PUBLISHED], errors="coerce")
            if pd.api.types.is_numeric_dtype(ours[c]) and b.notna().any():
                merged[c + DIFF] = a - b
                columns.append(c + DIFF)
    return merged[columns + [MATCH]]


def _tolerance_for(col: str, tolerance: Tolerance | Mapping[str, Tolerance]) -> Tolerance:
    if isinstance(tolerance, Tolerance):
        return tolerance
    return tolerance.get(col, tolerance.get("*", DEFAULT_TOLERANCE))


def fidelity(
    combined: pd.DataFrame,
    tolerance: Tolerance | Mapping[str, Tolerance] = DEFAULT_TOLERANCE,
) -> pd.DataFrame:
    """Per shared numeric column: cells compared, how many agree within the tolerance, and the
    median relative difference (rows present on both sides only)."""
    both = combined[combined[MATCH] == "both"]
    rows = []
    for col in combined.columns:
        if not col.endswith(PUBLISHED):
            continue
        base = col[: -len(PUBLISHED)]
        if base + DIFF not in combined.columns:
            continue
        a = pd.to_numeric(both[base], errors="coerce").to_numpy(float)
        b = pd.to_numeric(both[col], errors="coerce").to_numpy(float)
        ok = ~(np.isnan(a) | np.isnan(b))
        tol = _tolerance_for(base, tolerance)
        within = tol.within(a[ok], b[ok])
        rel = np.abs(a[ok] - b[ok]) / np.maximum(np.abs(b[ok]), 1e-12)
        rows.append(
            {
                "column": base,
                "compared": int(ok.sum()),
                "within": int(within.sum()),
                "within_pct": round(100 * within.mean(), 1) if ok.any() else np.nan,
                "median_rel_diff": round(float(np.median(rel)), 4) if ok.any() else np.nan,
                "tolerance_rel": tol.rel,
                "tolerance_abs": tol.abs,
            }
        )
    cols = ["column", "compared", "within", "within_pct", "median_rel_diff"]
    return pd.DataFrame(rows, columns=cols + ["tolerance_rel", "tolerance_abs"])


def missing_rows(
    combined: pd.DataFrame,
    key: Sequence[str],
    missing_reason: Mapping[object, str] | None = None,
) -> pd.DataFrame:
    """Published rows we lack, with a reason looked up by the full key tuple, then by the first
    key value (usually the dataset), else ``"not run in this profile"``."""
    reasons = dict(missing_reason or {})
    miss = combined.loc[combined[MATCH] == "published only", list(key)].reset_index(drop=True)

    def reason(row: pd.Series) -> str:
        values = tuple(row[k] for k in key)
        return reasons.get(values, reasons.get(values[0], DEFAULT_REASON))

    miss["reason"] = [reason(r) for _, r in miss.iterrows()] if len(miss) else []
    return miss


def _cell(value: object, missing: str) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return missing
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value)).lower()
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        if float(value).is_integer():
            return str(int(value))
        if abs(value) >= 1000:
            return f"{value:.2f}".rstrip("0").rstrip(".")
        return f"{value:.4g}"
    return str(value)


def display_cells(df: pd.DataFrame) -> pd.DataFrame:
    """Cells as strings; our empty cells of published-only rows read "missing"."""
    out = pd.DataFrame(index=df.index)
    pub_only = df[MATCH].eq("published only") if MATCH in df.columns else None
    for c in df.columns:
        texts = [_cell(v, "") for v in df[c]]
        if pub_only is not None and not c.endswith((PUBLISHED, DIFF)) and c != MATCH:
            texts = [
                "missing" if (p and t == "") else t for t, p in zip(texts, pub_only, strict=True)
            ]
        out[c] = texts
    return out


def to_markdown(df: pd.DataFrame, caption: str | None = None) -> str:
    """A GitHub-style Markdown table (with an optional caption line above it)."""
    shown = display_cells(df)  # already formatted: keep the strings as they are
    text = shown.to_markdown(index=False, tablefmt="github", disable_numparse=True) + "\n"
    return (f"{caption}\n\n" if caption else "") + text


def to_latex(df: pd.DataFrame, caption: str | None = None, label: str | None = None) -> str:
    """A booktabs ``table`` environment (needs ``\\usepackage{booktabs}``)."""
    align = "".join("r" if pd.api.types.is_numeric_dtype(df[c]) else "l" for c in df.columns)
    styler = (
        display_cells(df).style.hide(axis="index")
        .format(escape="latex").format_index(escape="latex", axis=1)
    )
    return styler.to_latex(column_format=align, hrules=True, position="ht",
                           caption=caption and " ".join(caption.split()).translate(_TEX_ESCAPE),
                           label=label,
                           position_float="centering")


_TEX_ESCAPE = str.maketrans({c: "\\" + c for c in "&%$#_{}"})


def _write_all(df: pd.DataFrame, stem: Path, caption: str | None, tex: bool = True) -> None:
    df.to_csv(stem.with_suffix(stem.suffix + ".csv"), index=False)
    stem.with_suffix(stem.suffix + ".md").write_text(to_markdown(df, caption))
    if tex:
        label = "tab:" + stem.name.replace("_", "-")
        stem.with_suffix(stem.suffix + ".tex").write_text(to_latex(df, caption, label))


def mark_code_versions(df: pd.DataFrame, per_row: Sequence[Iterable[str]],
                       caption: str | None = None) -> tuple[pd.DataFrame, str | None]:
    """``(df, caption)``, with a ``code_version`` column and a note after the caption when the
    rows' results come from more than one code version (else unchanged)."""
    rows = [sorted(set(v)) for v in per_row]
    if len(rows) != len(df):
        raise ValueError(f"{len(rows)} rows of code versions for a table of {len(df)} rows")
    found = sorted({v for r in rows for v in r})
    if len(found) <= 1:
        return df, caption
    df = df.assign(**{CODE_VERSION: [" + ".join(r) for r in rows]})
    note = (f"Note: built from results of {len(found)} fxai code versions ({', '.join(found)}); "
            f"column {CODE_VERSION} names each row's. Rerun the rules to make them one.")
    return df, f"{caption}\n\n{note}" if caption else note


def write_table(
    ours: pd.DataFrame,
    name: str,
    out_dir: str | Path,
    reference: str | None = None,
    key: Iterable[str] = ("dataset",),
    tolerance: Tolerance | Mapping[str, Tolerance] = DEFAULT_TOLERANCE,
    missing_reason: Mapping[object, str] | None = None,
    caption: str | None = None,
    registry: str | Path | None = None,
    reference_root: str | Path | None = None,
    code_versions: Sequence[Iterable[str]] | None = None,
) -> pd.DataFrame:
    """Write ``<out_dir>/<name>.csv/.md/.tex`` and return the table written.

    With ``reference`` (a stem in ``data/reference/`` or a CSV path), published values sit
    beside ours and ``<name>.fidelity.csv/.md`` and ``<name>.missing.csv`` are written too.
    ``tolerance`` is one ``Tolerance`` or a mapping column -> ``Tolerance`` (key ``"*"`` is
    the default for other columns). ``missing_reason`` maps a dataset (or a full key tuple) to
    why we lack it. ``registry`` is the dataset registry used for aliases (default: see
    :func:`alias_map`). ``code_versions`` lists, per row of ``ours``, the code versions of
    the results behind it (see the module docstring).
    """
    if code_versions is not None:
        ours, caption = mark_code_versions(ours, code_versions, caption)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / name
    if reference is None:
        _write_all(ours, stem, caption)
        return ours
    key = list(key)
    table = combine(ours, ref.load(reference, reference_root), key, alias_map(registry))
    _write_all(table, stem, caption)
    fid = fidelity(table, tolerance)
    miss = missing_rows(table, key, missing_reason)
    fid.to_csv(out / f"{name}.fidelity.csv", index=False)
    miss.to_csv(out / f"{name}.missing.csv", index=False)
    n_both = int((table[MATCH] == "both").sum())
    text = [
        f"# Fidelity of `{name}` against `{reference}` (published)\n",
        f"Rows matched: {n_both}; ours only: {int((table[MATCH] == 'ours only').sum())}; "
        f"published only (missing): {len(miss)}.\n",
        "A cell agrees when |ours - published| <= max(abs, rel * |published|).\n",
        to_markdown(fid) if len(fid) else "No shared numeric columns.\n",
        "## Missing published rows\n",
        to_markdown(miss) if len(miss) else "None.\n",
    ]
    (out / f"{name}.fidelity.md").write_text("\n".join(text))
    return table
