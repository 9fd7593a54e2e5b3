"""Benchmark: time to obtain and prepare each dataset (fetch from the mirror, prepare, split).

Default: the default-profile sets (embedded and generated). With a mirror (``--mirror`` or
``$FXAI_DATA_MIRROR``) also every tabular registry set the mirror holds. Each step is timed
``--repeat`` times in temp directories (minimum kept); writes ``results/bench/data_prepare.csv``
and ``.md``.

    .venv/bin/python -m benchmarks.data_prepare [--mirror ../shared/datasets] [--repeat 3]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import pandas as pd

from fxai.data.fetch import MIRROR_ENV, fetch, mirror_dir, mirror_has
from fxai.data.prepare import prepare, source_of
from fxai.data.prepared import load
from fxai.data.registry import load_registry
from fxai.data.split import make_split
from fxai.report.tables import to_markdown

DEFAULT_SETS = ["iris", "zoo", "wine", "breast-cancer", "breast-cancer-d", "iris-bin",
                "digits-1vs3", "digits-1vs7", "mux6", "parity5+5", "corral", "threeOf9", "xd6",
                "mofn_3_7_10"]


def timed(fn, *args, **kwargs) -> float:
    t = time.perf_counter()
    fn(*args, **kwargs)
    return time.perf_counter() - t


def bench(ds: str, order: tuple[str, ...], mirror: Path | None, repeat: int) -> dict:
    reg = load_registry()
    entry = reg.entry(ds)
    source = source_of(entry, order)
    best = {"fetch_s": float("inf"), "prepare_s": float("inf"), "split_s": float("inf")}
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            raw, out = Path(tmp) / "raw", Path(tmp) / "prep"
            root = reg.root(ds)
            t_fetch = timed(fetch, root, reg.entry(root), raw, mirror) \
                if source == "files" else 0.0
            t_prep = timed(prepare, ds, reg, raw, out, source_order=order)
            y = load(ds, out).y
            t_split = timed(make_split, y, 0.2, 0)
        for key, val in zip(best, (t_fetch, t_prep, t_split), strict=True):
            best[key] = min(best[key], val)
    return {"dataset": ds, "source": source, "rows": len(y),
            **{k: round(v, 3) for k, v in best.items()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", default=None, help=f"mirror directory (${MIRROR_ENV} wins)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default="results/bench")
    args = ap.parse_args()
    mirror = mirror_dir(args.mirror)
    rows = [bench(ds, ("embedded", "generated", "files"), None, args.repeat)
            for ds in DEFAULT_SETS]
    if mirror is not None:
        reg = load_registry()
        for ds in reg.preparable:
            e = reg.entry(ds)
            root = reg.root(ds)
            if "files" in e and e.get("kind", "tabular") == "tabular" \
                    and mirror_has(root, reg.entry(root), mirror):
                rows.append(bench(ds, ("files",), mirror, args.repeat))
                print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    df.to_csv(out / "data_prepare.csv", index=False)
    total = df[["fetch_s", "prepare_s", "split_s"]].sum()
    text = to_markdown(df, "Fetch / prepare / split time per dataset (min over repeats, s)")
    text += f"\nTotal: fetch {total['fetch_s']:.2f} s, prepare {total['prepare_s']:.2f} s, " \
            f"split {total['split_s']:.2f} s over {len(df)} datasets.\n"
    (out / "data_prepare.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
