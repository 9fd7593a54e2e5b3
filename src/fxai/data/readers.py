"""Parse raw tabular files into string tables (values exactly as written in the file).

Formats: ``pmlb-tsv`` (tab-separated, header), ``csv`` (header), ``orange-csv`` (Orange's
three header rows: names, types, flags), ``arff`` (Weka), ``mat`` (MATLAB arrays, optionally
inside a zip). Gzip is detected from the content, not the name. Every problem is a DataError
naming the file.
"""

from __future__ import annotations

import csv
import gzip
import io
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fxai.errors import DataError


def read_bytes(path: Path) -> bytes:
    """File content, gunzipped when it starts with the gzip magic."""
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as e:
            raise DataError(f"{path}: corrupt gzip data ({e}).") from e
    return data


def _text(path: Path) -> str:
    data = read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _from_rows(
    path: Path, header: list[str], rows: list[list[str]], first_line: int
) -> pd.DataFrame:
    """A string DataFrame; DataError on an empty table, duplicate names or ragged rows."""
    header = [h.strip() for h in header]
    if not header or header == [""]:
        raise DataError(f"{path}: empty file (no header row).")
    if len(set(header)) != len(header):
        dup = sorted({h for h in header if header.count(h) > 1})
        raise DataError(f"{path}: duplicate column names {dup}.")
    rows = [r for r in rows if any(c.strip() for c in r)]
    if not rows:
        raise DataError(f"{path}: no data rows after the header.")
    for i, r in enumerate(rows):
        if len(r) != len(header):
            raise DataError(
                f"{path}: ragged row: data row {i} (about line {first_line + i}) has {len(r)} "
                f"fields, the header has {len(header)}."
            )
    return pd.DataFrame(rows, columns=header).apply(lambda c: c.str.strip())


def read_delimited(path: Path, sep: str, header_rows: int = 1) -> pd.DataFrame:
    text = _text(path)
    if not text.strip():
        raise DataError(f"{path}: empty file.")
    rows = list(csv.reader(io.StringIO(text), delimiter=sep))
    return _from_rows(path, rows[0], rows[header_rows:], header_rows + 1)


def read_arff(path: Path) -> pd.DataFrame:
    """Weka ARFF (dense data only); values keep their text, quotes removed."""
    names: list[str] = []
    lines = _text(path).splitlines()
    if not any(line.strip() for line in lines):
        raise DataError(f"{path}: empty file.")
    for n, line in enumerate(lines):
        s = line.strip()
        low = s.lower()
        if low.startswith("@attribute"):
            rest = s[len("@attribute"):].strip()
            if rest[:1] in "'\"":
                q = rest[0]
                names.append(rest[1:rest.index(q, 1)])
            else:
                names.append(rest.split()[0])
        elif low.startswith("@data"):
            body = [x for x in lines[n + 1:] if x.strip() and not x.lstrip().startswith("%")]
            if any(x.lstrip().startswith("{") for x in body[:1]):
                raise DataError(f"{path}: sparse ARFF data is not supported.")
            rows = list(csv.reader(body, quotechar="'", skipinitialspace=True))
            return _from_rows(path, names, rows, n + 2)
    raise DataError(f"{path}: no @data section (is it an ARFF file?).")


def read_mat(path: Path, member: str | None, features: str, target: str) -> pd.DataFrame:
    """MATLAB arrays ``features`` (rows x columns) and ``target`` from a .mat (or zip member)."""
    from scipy.io import loadmat

    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as z:
                names = [n for n in z.namelist() if Path(n).name == member]
                if not names:
                    raise DataError(f"{path}: zip has no member {member!r} ({z.namelist()}).")
                mat = loadmat(io.BytesIO(z.read(names[0])))
        else:
            mat = loadmat(path)
    except (ValueError, OSError) as e:
        raise DataError(f"{path}: not a readable MATLAB file ({e}).") from e
    for key in (features, target):
        if key not in mat:
            raise DataError(f"{path}: MATLAB file has no variable {key!r}.")
    X = np.asarray(mat[features])
    y = np.asarray(mat[target]).ravel()
    if X.ndim != 2 or len(X) != len(y):
        raise DataError(f"{path}: {features} is {X.shape}, {target} has {len(y)} values.")
    df = pd.DataFrame(X.astype(str), columns=[f"x{i}" for i in range(X.shape[1])])
    df["target"] = y.astype(str)
    return df


def main_file(entry: dict[str, Any], raw_paths: dict[str, Path]) -> Path:
    """The file an entry is prepared from: its first file not marked ``alternative``."""
    for spec in entry["files"]:
        if spec.get("role", "main") == "main":
            if spec["name"] not in raw_paths:
                raise DataError(f"dataset {entry['name']}: raw file {spec['name']} not fetched.")
            return raw_paths[spec["name"]]
    raise DataError(f"dataset {entry['name']}: the registry names no main file.")


def read_table(entry: dict[str, Any], raw_paths: dict[str, Path]) -> pd.DataFrame:
    """The entry's main raw file as a string DataFrame (all columns, target included)."""
    path = main_file(entry, raw_paths)
    fmt = entry.get("format")
    if fmt == "pmlb-tsv":
        return read_delimited(path, "\t")
    if fmt == "csv":
        return read_delimited(path, ",")
    if fmt == "orange-csv":
        return read_delimited(path, ",", header_rows=3)
    if fmt == "arff":
        return read_arff(path)
    if fmt == "mat":
        m = entry["mat"]
        return read_mat(path, m["member"], m["features"], m["target"])
    raise DataError(f"dataset {entry['name']}: format {fmt!r} is not a tabular format.")
