"""A user's own dataset (config ``user.datasets``): a CSV or parquet file prepared like a
registry dataset into ``<out>/<name>.csv`` + ``<name>.domains.json``, the user's column
names kept as the feature names.

An entry holds ``name``, ``path`` (relative to the workdir or absolute), ``target`` (the
class column), optionally ``sha256`` and the registry's preparation keys ``features``
(``default`` type and ``categorical`` / ``binary`` / ``numeric`` lists), ``drop``,
``missing``, ``discretise`` and ``classes`` (see :func:`fxai.data.prepare.build`).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from fxai.data.fetch import sha256_of
from fxai.data.prepare import build, feature_types, write_prepared
from fxai.errors import DataError

SUFFIXES = (".csv", ".parquet")
PREPARE_KEYS = ("features", "missing", "discretise", "classes")  # drop: by checked_table


def _where(spec: dict[str, Any], key: str) -> str:
    return f"config user.datasets entry {spec.get('name')!r}, key {key}"


def read_table(path: str | Path, what: str) -> pd.DataFrame:
    """The table of a ``.csv`` or ``.parquet`` file; a DataError naming ``what`` and the file
    when it is missing, of another format or unreadable."""
    path = Path(path)
    if path.suffix.lower() not in SUFFIXES:
        raise DataError(f"{what}: {path} is neither .csv nor .parquet.")
    if not path.is_file():
        raise DataError(f"{what}: file {path} does not exist (a relative path is read from "
                        "the workdir).")
    try:
        if path.suffix.lower() == ".csv":
            check_header(path, what)
            return pd.read_csv(path)
        return pd.read_parquet(path)
    except (ValueError, OSError, pd.errors.ParserError) as e:
        if isinstance(e, DataError):
            raise
        raise DataError(f"{what}: {path} is not a readable table ({type(e).__name__}: {e})") from e


def check_header(path: str | Path, what: str) -> None:
    """DataError naming the columns a CSV's header repeats (pandas would rename the second
    ``age`` to ``age.1`` without a word)."""
    import csv

    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        header = next(csv.reader(f), [])
    repeated = sorted({c for c in header if header.count(c) > 1})
    if repeated:
        raise DataError(f"{what}: {path} repeats the column name(s) {repeated} in its header; "
                        "give every column its own name.")


def checked_table(spec: dict[str, Any]) -> pd.DataFrame:
    """The entry's table, checked: its sha256 when given, the target column, the feature
    lists naming columns; without the ``drop`` columns, the target column renamed
    ``target``."""
    path = Path(spec["path"])
    df = read_table(path, _where(spec, "path"))
    if spec.get("sha256") and (digest := sha256_of(path)) != spec["sha256"]:
        raise DataError(f"{_where(spec, 'sha256')}: {path} has sha256 {digest}, "
                        f"not {spec['sha256']} (the file changed, or the checksum is wrong).")
    tcol = spec["target"]
    if tcol not in df.columns:
        raise DataError(f"{_where(spec, 'target')}: {path} has no column {tcol!r} (columns: "
                        f"{list(df.columns)[:20]}).")
    drop = set(spec.get("drop", []))
    for key in ("drop", *(f"features.{k}" for k in ("categorical", "binary", "numeric")),
                "discretise.features"):
        section, _, sub = key.partition(".")
        names = (spec.get(section) or {}).get(sub, []) if sub else spec.get(section, [])
        bad = [n for n in names if n not in df.columns or n == tcol or (sub and n in drop)]
        if bad:
            raise DataError(f"{_where(spec, key)}: {bad} are no feature columns of {path} "
                            f"(columns: {list(df.columns)[:20]}).")
    df = df.drop(columns=list(drop))
    if tcol != "target" and "target" in df.columns:
        raise DataError(f"{_where(spec, 'target')}: {path} has a column 'target' that is not "
                        f"the target {tcol!r}; rename it or list it under drop.")
    return df.rename(columns={tcol: "target"})


def check_entries(entries: Sequence[dict[str, Any]], taken: Iterable[str]) -> None:
    """Plan-time checks of ``user.datasets``: names unique and no registry dataset's
    or alias (``taken``), each table readable with its checksum, target and feature columns."""
    taken = {n.lower() for n in taken}  # registry names and aliases resolve case-blind
    seen: set[str] = set()
    for spec in entries:
        name = spec["name"]
        if name.lower() in taken:
            raise DataError(f"{_where(spec, 'name')}: {name!r} is a dataset of the registry; "
                            "give yours another name.")
        if name in seen:
            raise DataError(f"{_where(spec, 'name')}: two entries are named {name!r}.")
        seen.add(name)
        checked_table(spec)
        model = spec.get("model")
        if model:
            if model["family"] in spec.get("families", []):
                raise DataError(f"{_where(spec, 'model.family')}: family {model['family']!r} "
                                "is also in families; a dataset has one model per family.")
            if not Path(model["file"]).is_file():
                raise DataError(f"{_where(spec, 'model.file')}: file {model['file']} does not "
                                "exist (a relative path is read from the workdir).")


def prepare_user(spec: dict[str, Any], out_dir: str | Path) -> Path:
    """Prepare the entry's table into ``out_dir`` (``source: user``); returns the CSV path."""
    df = checked_table(spec)
    origin = f"{spec['path']} ({_where(spec, 'path')})"
    entry = {"name": spec["name"], **{k: spec[k] for k in PREPARE_KEYS if k in spec}}
    types = feature_types(entry, [c for c in df.columns if c != "target"], origin)
    table, doc = build(entry, df, types, origin)
    doc["target"]["name"] = spec["target"]
    doc["source"] = "user"
    doc["file"] = {"path": str(spec["path"]),
                   "sha256": spec.get("sha256") or sha256_of(spec["path"])}  # checked above
    return write_prepared(table, doc, out_dir)


FLOAT32_MAX = 3.4028234663852886e38  # numpy.finfo(numpy.float32).max


def read_rows(path: str | Path, target: str | None, must: bool) -> pd.DataFrame:
    """The CSV as a DataFrame (text columns categorical), ``target`` dropped (it ``must``
    be there, or may). UTF-8 text, a header first (spaces after the commas are dropped);
    a file in another encoding, a comment or an unnamed index column first, no feature
    column or a number beyond float32 is a DataError saying what to change."""
    try:
        text = _utf8(path)
        first = text.split("\n", 1)[0]
        if first.lstrip().startswith("#"):
            raise DataError(f"{path}: line 1 is a comment ({first[:40]!r}); the first line "
                            "must be the header (the feature names): remove the comment lines")
        if first.startswith(","):
            raise DataError(f"{path}: its first column has no name (an index, as pandas' "
                            "to_csv writes by default): write the file with index=False, or "
                            "name that column")
        check_header(path, "the CSV")
        df = pd.read_csv(io.StringIO(text), skipinitialspace=True)
    except DataError:
        raise
    except (OSError, ValueError) as e:
        raise DataError(f"cannot read the CSV {path}: {e}") from None
    df.columns = [str(c).strip() for c in df.columns]
    if target is not None and (must or target in df.columns):
        if target not in df.columns:
            raise DataError(f"{path}: no column {target!r} (columns: {list(df.columns)})")
        df = df.drop(columns=[target])
    if df.columns.empty:
        raise DataError(f"{path}: no feature columns"
                        + (f" (only the class column {target!r})" if target else "")
                        + ": nothing to explain")
    for col in df.columns:
        if df[col].dtype == object:
            _mostly_numbers(df[col], path)
            df[col] = df[col].astype("category")
        elif pd.api.types.is_float_dtype(df[col]):
            big = ~(df[col].abs() <= FLOAT32_MAX) & df[col].notna()
            if big.any():
                i = int(big.to_numpy().argmax())
                value = float(df[col].iloc[i])
                raise DataError(f"{path}: row {i + 1}, column {col!r}: {value!r} is beyond what "
                                "the models read (float32: at most 3.4e38 in magnitude, and "
                                "finite)")
    return df


def _utf8(path: str | Path) -> str:
    """The file's text (UTF-8, a byte-order mark dropped); a DataError naming the
    encoding to save it in otherwise."""
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        kind = "UTF-16 text" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else (
            f"not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start}; Latin-1 or "
            "Windows-1252?)")
        raise DataError(f"{path} is {kind}: save it as UTF-8 (in pandas: "
                        "to_csv(..., encoding='utf-8'))") from None


def _mostly_numbers(s, path: str) -> None:
    """DataError at the first cell that is not a number in a column whose cells are mostly
    numbers (a typo in a numeric column, which would otherwise make it text)."""
    given = s.notna()
    numbers = pd.to_numeric(s, errors="coerce").notna()
    bad = given & ~numbers
    if bad.any() and numbers.sum() > bad.sum():
        i = int(bad.to_numpy().argmax())
        raise DataError(f"{path}: row {i + 1}, column {s.name!r}: {s.iloc[i]!r} is not a number, "
                        f"as {int(numbers.sum())} of the column's {int(given.sum())} values are")
