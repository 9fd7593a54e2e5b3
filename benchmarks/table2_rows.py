"""XpG Table 2, row by row: which tree learner's rows agree with the published explanations.

    .venv/bin/python -m benchmarks.table2_rows [--results results/paper] [--out DIR]

Reads the profile's Table 2 variants (``xpg_table2_dt``: CART, ``_sized``: CART of the
published size, ``_optimal``: STreeD's optimal tree of the published size; those present)
and counts the rows whose #AXp (``axp_avg``), #CXp (``cxp_avg``) and AXp %L
(``axp_len_pct``) all agree with the published values, two ways: within the project's
tolerance (10 %, ``fxai.report.tables.Tolerance``), and as printed (the paper prints these
as integers: ours rounded equals the published value). Prints a per-dataset table (each
variant's depth, #N and the three values, published first; for the optimal learner also
whether STreeD proved its tree optimal and whose tree was kept, from
``models/dt-optimal/<ds>.meta.json``) and writes it to ``<out>/table2_rows.csv``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

from fxai.report.tables import DEFAULT_TOLERANCE, MATCH, PUBLISHED

VARIANTS = {"cart": "xpg_table2_dt", "sized": "xpg_table2_dt_sized",
            "optimal": "xpg_table2_dt_optimal"}
COLUMNS = ("axp_avg", "cxp_avg", "axp_len_pct")


def agreement(table: pd.DataFrame) -> pd.DataFrame:
    """Per dataset of both sides: whether all of COLUMNS are within tolerance / as printed."""
    both = table[table[MATCH] == "both"].set_index("dataset")
    ours = both[list(COLUMNS)].apply(pd.to_numeric, errors="coerce").to_numpy(float)
    pub = both[[c + PUBLISHED for c in COLUMNS]].apply(pd.to_numeric,
                                                       errors="coerce").to_numpy(float)
    within = DEFAULT_TOLERANCE.within(ours, pub).all(axis=1)
    printed = (np.floor(ours + 0.5) == pub).all(axis=1)  # half up, as the paper prints
    return pd.DataFrame({"within": within, "printed": printed}, index=both.index)


def compare(results: Path) -> pd.DataFrame:
    tables = results / "tables"
    out: pd.DataFrame | None = None
    for learner, name in VARIANTS.items():
        path = tables / f"{name}.csv"
        if not path.is_file():
            continue
        t = pd.read_csv(path)
        agree = agreement(t)
        both = t[t[MATCH] == "both"].set_index("dataset")
        part = pd.DataFrame({
            f"{learner}_depth": both["depth"], f"{learner}_nodes": both["n_nodes"],
            **{f"{learner}_{c}": both[c] for c in COLUMNS},
            f"{learner}_within": agree["within"], f"{learner}_printed": agree["printed"]})
        if out is None:
            pub = {c: both[c + PUBLISHED] for c in ("depth", "n_nodes", *COLUMNS)}
            out = pd.DataFrame({f"published_{c}": v for c, v in pub.items()})
        out = out.join(part, how="outer")
    if out is None:
        raise SystemExit(f"no Table 2 variant in {tables} ({', '.join(VARIANTS.values())})")
    out = out.reset_index(names="dataset")
    if "optimal_nodes" in out:
        metas = [results / "models" / "dt-optimal" / f"{ds}.meta.json" for ds in out["dataset"]]
        facts = [json.loads(m.read_text()) if m.is_file() else {} for m in metas]
        out["optimal_proven"] = [f.get("optimal") for f in facts]
        out["optimal_tree_from"] = [f.get("tree_from") for f in facts]
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--results", default="results/paper", help="profile folder with tables/")
    p.add_argument("--out", default="results/bench")
    args = p.parse_args()
    df = compare(Path(args.results))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    df.to_csv(out / "table2_rows.csv", index=False)
    print(df.to_string(index=False))
    for learner in VARIANTS:
        if f"{learner}_within" in df:
            n = int(df[f"{learner}_within"].notna().sum())
            print(f"{learner}: rows whose {', '.join(COLUMNS)} all agree: "
                  f"{int(df[f'{learner}_within'].fillna(False).sum())} of {n} within 10 %, "
                  f"{int(df[f'{learner}_printed'].fillna(False).sum())} of {n} as printed")


if __name__ == "__main__":
    main()
