"""The XpG paper's experiment (Tables 1 and 2): training the decision trees and OBDDs, the
choice of instances, the per-instance driver (MARCO over the XpG, every explanation checked
independently) and the summary of run records into the tables' rows."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import TYPE_CHECKING

from fxai.errors import DataError
from fxai.experiments.driver import drive
from fxai.files import read_json
from fxai.runfile import iter_run
from fxai.version import code_version, stamped

if TYPE_CHECKING:
    import argparse

    import numpy as np
    import pandas as pd


#: (family, learner) -> the options it needs (the workflow passes them from config xpg.*)
NEEDS = {("dt", "cart"): ("depths", "val_size"),
         ("dt", "sized"): ("size_reference", "size_method"),
         ("dt", "optimal"): ("size_reference", "time_limit", "max_thresholds"),
         ("obdd", None): ("beam_width", "min_covered", "max_rule_length")}


TIME = {"cpu": "cpu_s", "wall": "time_s"}  # the record field of each clock


def train(args: argparse.Namespace) -> dict:
    """Train the model of ``args`` (the options of ``fxai xpg-train``, checked by its
    command) into ``args.out_dir``: the model files and ``<ds>.meta.json``; the meta."""
    import joblib
    import numpy as np

    from fxai.data.prepared import finite_domains, load, load_split
    from fxai.models.dlist import learn_cn2
    from fxai.models.dtree import train_dt, train_dt_sized, tree_stats
    from fxai.models.obdd import OBDD
    from fxai.models.optimal_tree import train_dt_optimal

    data = load(args.dataset, args.prepared)
    train_ids, test_ids = load_split(args.split, n_rows=len(data.y))
    Xtr, ytr, Xte, yte = data.X[train_ids], data.y[train_ids], data.X[test_ids], data.y[test_ids]
    out = Path(args.out_dir)  # made once the model is trained: nothing left on an error
    doms = finite_domains(data.domains)
    t0 = time.perf_counter()
    meta: dict = {"dataset": args.dataset, "family": args.family, "seed": args.seed,
                  "n_features": data.n_features, "n_train": len(train_ids),
                  "n_test": len(test_ids)}
    if args.family == "dt":
        if args.learner == "sized":
            depth, nodes = published_size(args.dataset, args.size_reference)
            clf, info = train_dt_sized(Xtr, ytr, depth, nodes, args.size_method, args.seed)
            meta |= {"learner": f"sklearn CART sized to the published tree ({args.size_method})",
                     "size_reference": args.size_reference, **info}
        elif args.learner == "optimal":
            depth, nodes = published_size(args.dataset, args.size_reference)
            clf, info = train_dt_optimal(Xtr, ytr, depth, nodes, args.time_limit,
                                         args.max_thresholds, args.seed)
            learner = {(True, "streed"): "STreeD optimal tree (pystreed)",
                       (False, "streed"): "STreeD (pystreed), best tree within its time limit",
                       (False, "cart"): "sklearn CART sized (more accurate than STreeD's best "
                                        "tree within its time limit)"}[info["optimal"],
                                                                        info["tree_from"]]
            meta |= {"learner": f"{learner} of the published depth and #N",
                     "size_reference": args.size_reference, **info}
        else:
            clf, info = train_dt(Xtr, ytr, args.depths, args.val_size, args.seed)
            meta |= {"learner": "sklearn DecisionTreeClassifier (CART), depth tuned on validation",
                     "depths_tried": list(args.depths), **info}
        out.mkdir(parents=True, exist_ok=True)
        joblib.dump(clf, out / f"{args.dataset}.joblib")
        meta |= {**tree_stats(clf),
                 "n_classes": len(clf.classes_),
                 "accuracy_train": float(clf.score(Xtr, ytr)),
                 "accuracy_test": float(clf.score(Xte, yte)),
                 "versions": _versions("scikit-learn", "numpy",
                                       *(["pystreed"] if args.learner == "optimal" else []))}
    else:
        bad = [d["name"] for d in data.domains if sorted(d.get("values") or []) != [0, 1]]
        if bad or sorted(set(data.y.tolist())) != [0, 1]:
            raise SystemExit(f"{args.dataset}: OBDDs need binary features and a 0/1 target; "
                             f"non-binary features: {bad[:5]}")
        dl = learn_cn2(Xtr, ytr, doms, args.beam_width, args.min_covered, args.max_rule_length)
        obdd = OBDD.from_decision_list(dl)
        if not np.array_equal(obdd.predict(data.X), dl.predict(data.X)):
            raise RuntimeError(f"{args.dataset}: the OBDD disagrees with its decision list")
        out.mkdir(parents=True, exist_ok=True)
        dl.to_json(out / f"{args.dataset}.dlist.json")
        obdd.dump(out / f"{args.dataset}.bdd.json")
        meta |= {"learner": "Orange3 CN2Learner (ordered), compiled with dd.autoref, y=1",
                 "cn2": {"beam_width": args.beam_width, "min_covered_examples": args.min_covered,
                         "max_rule_length": args.max_rule_length},
                 "n_classes": 2, "n_rules": len(dl.rules), "n_nodes": obdd.n_nodes,
                 "features_used": len(obdd.to_graph().used_features),
                 "accuracy_train": float(np.mean(dl.predict(Xtr) == ytr)),
                 "accuracy_test": float(np.mean(dl.predict(Xte) == yte)),
                 "versions": _versions("Orange3", "dd", "numpy")}
    meta["train_time_s"] = time.perf_counter() - t0
    meta["code_version"] = code_version()
    (out / f"{args.dataset}.meta.json").write_text(json.dumps(meta, indent=1))
    return meta


def published_size(dataset: str, reference: str) -> tuple[int, int]:
    """(depth, n_nodes) of ``dataset``'s row in a published table (aliases resolved)."""
    from fxai.report.reference import load
    from fxai.report.tables import alias_map

    table = load(reference)
    for col in ("dataset", "depth", "n_nodes"):
        if col not in table.columns:
            raise SystemExit(f"published table {reference}: no column {col!r}")
    aliases = alias_map()

    def canon(name: str) -> str:
        return aliases.get(name.lower(), name).lower()

    rows = table[[canon(str(d)) == canon(dataset) for d in table["dataset"]]]
    if len(rows) != 1:
        raise SystemExit(f"published table {reference} has {len(rows)} rows for dataset "
                         f"{dataset!r}; the sized learner needs exactly one (depth, n_nodes)")
    return int(rows["depth"].iloc[0]), int(rows["n_nodes"].iloc[0])


def _versions(*pkgs: str) -> dict[str, str]:
    from importlib.metadata import version

    return {p: version(p) for p in pkgs}


def select_instances(X: np.ndarray, max_rows_all: int, fraction: float, seed: int,
                     cap: int | None = None) -> list[int]:
    """Row ids of the distinct rows (first occurrence); a seeded ``fraction`` of them, rounded
    up, when more than ``max_rows_all`` (the reading of the XpG paper's rule that reproduces
    most published #TI, docs/fidelity.md); then at most ``cap`` of those (seeded), sorted."""
    import numpy as np

    _, first = np.unique(X, axis=0, return_index=True)
    ids = np.sort(first)
    rng = np.random.default_rng(seed)
    if len(ids) > max_rows_all:
        ids = np.sort(rng.choice(ids, size=math.ceil(fraction * len(ids)), replace=False))
    if cap is not None and len(ids) > cap:
        ids = np.sort(rng.choice(ids, size=cap, replace=False))
    return [int(i) for i in ids]


def load_graph(family: str, path: str, data, doms):
    """``(model, graph)``: the sklearn tree and its XpG, or the OBDD and its XpG."""
    from fxai.models import load as load_model
    from fxai.models.dtree import from_sklearn

    model = load_model(path, data.n_features, family=family)
    if family == "dt":
        return model, from_sklearn(model, domains=doms)
    return model, model.to_graph()


def explain_row(family: str, model, graph, doms, x: list, time_limit: float,
                clock: str = "cpu") -> dict:
    """All AXps and CXps of one instance (MARCO over the XpG, ``time_limit`` seconds of
    ``clock``) and their independent check.

    ``verified`` is None when nothing was found to check (e.g. a time limit hit before the
    first explanation); ``checked`` counts the explanations checked.
    """
    from fxai.explain.marco import Marco
    from fxai.oracles.xpg import XpGOracle
    from fxai.verify.xpg import BDDChecker, TreeChecker, check

    def enumerate_():
        o = XpGOracle(graph, x)
        m = Marco(o, target="axp", time_limit=time_limit, clock=clock)
        return o, m, [[round(e.t, 6), e.kind, list(e.features)] for e in m]

    def check_(found) -> tuple[bool, str]:
        o, m, _ = found
        if family == "dt":
            chk = TreeChecker(model, x, doms)
            ok, why = check(chk.weak_axp, chk.features, m.axps, m.cxps,
                            chk.all_cxps() if m.complete else None, m.complete)
        else:
            chk = BDDChecker(model, x)
            ok, why = check(chk.weak_axp, chk.features, m.axps, m.cxps, complete=m.complete)
        if chk.prediction != o.prediction:
            return False, f"checker predicts {chk.prediction}, XpG {o.prediction}"
        return ok, why

    out = drive(enumerate_, clock=clock, check=check_)
    (o, m, events), (ok, why) = out.result, out.verdict
    checked = len(m.axps) + len(m.cxps)
    rec = {"prediction": _plain(o.prediction), "status": "done" if m.complete else "timeout",
           "time_s": out.explained.wall_s, "cpu_s": out.explained.cpu_s, "clock": clock,
           "verified": ok if checked or not ok else None, "checked": checked,
           "axps": [list(a) for a in m.axps], "cxps": [list(c) for c in m.cxps],
           "events": events, "oracle_calls": o.calls}
    if why != "ok":
        rec["verify_note"] = why
    return rec


def _plain(v):
    return v.item() if hasattr(v, "item") else v


def slim(record: dict) -> dict:
    """The numbers of one run record the table uses: status, verified, times, and per kind of
    explanation its count and mean length (the explanations and events are dropped)."""
    import numpy as np

    out = {k: record[k] for k in ("status", "verified", "time_s", "cpu_s") if k in record}
    for key in ("axps", "cxps"):
        xs = record.get(key) or []
        out[f"n_{key}"] = len(xs)
        out[f"{key}_len"] = float(np.mean([len(e) for e in xs])) if xs else None
    return out


def summarise(records: list[dict], meta: dict, family: str, cap: int | None,
              clock: str = "cpu", time_limit: float | None = None) -> dict:
    """One table row from the (slim) run records of one dataset and its model's meta; times
    on ``clock``, timed-out instances censored at ``time_limit`` (``time_avg_lb_s``)."""
    import numpy as np

    records = [r if "n_axps" in r else slim(r) for r in records]
    nf = meta["n_features"]
    ok = [r for r in records if r["status"] == "done"]
    na = np.array([r["n_axps"] for r in ok]) if ok else np.zeros(0)
    nc = np.array([r["n_cxps"] for r in ok]) if ok else np.zeros(0)
    times = np.array([r[TIME[clock]] for r in ok]) if ok else np.zeros(0)
    n_out = sum(r["status"] == "timeout" for r in records)

    def len_pct(key: str) -> float:
        per = [r[f"{key}_len"] for r in ok if r[f"{key}_len"] is not None]
        return round(100 * float(np.mean(per)) / nf, 1) if per else float("nan")

    def stat(a: np.ndarray, f, nd: int = 2) -> float:
        return round(float(f(a)), nd) if a.size else float("nan")

    def lower_bound() -> float:
        from fxai.metrics.censored import censored_mean

        ran = [r for r in records if r["status"] in ("done", "timeout")]
        mean = censored_mean([r.get(TIME[clock], np.nan) for r in ran],
                             [r["status"] == "timeout" for r in ran], time_limit)
        return round(mean, 4) if ran else float("nan")

    row = {"dataset": meta["dataset"], "n_features": nf, "n_instances": len(records)}
    if family == "dt":
        row["depth"] = meta["depth"]
    row["n_nodes"] = meta["n_nodes"]
    if family == "dt":
        row["target_depth"] = meta.get("target_depth")  # the sized learner's targets
        row["target_nodes"] = meta.get("target_nodes")
        if "optimal" in meta:  # the optimal learner: proven optimal, or whose tree it kept
            row["optimal"], row["tree_from"] = meta["optimal"], meta["tree_from"]
    row["features_used"] = meta.get("features_used")
    if family == "dt":
        row["thresholds"] = meta.get("thresholds")
    row |= {
        "train_acc_pct": round(100 * meta["accuracy_train"], 1),
        "test_acc_pct": round(100 * meta["accuracy_test"], 1),
        "xps_avg": stat(na + nc, np.mean),
        "axp_max": stat(na, np.max, 0), "axp_min": stat(na, np.min, 0),
        "axp_avg": stat(na, np.mean), "axp_len_pct": len_pct("axps"),
        "cxp_max": stat(nc, np.max, 0), "cxp_min": stat(nc, np.min, 0),
        "cxp_avg": stat(nc, np.mean), "cxp_len_pct": len_pct("cxps"),
        "time_total_s": stat(times, np.sum, 3), "time_max_s": stat(times, np.max, 4),
        "time_min_s": stat(times, np.min, 4), "time_avg_s": stat(times, np.mean, 4),
        "time_avg_lb_s": lower_bound(),
        "verified_pct": round(100 * sum(r["verified"] is True for r in records)
                              / max(len(records), 1), 1),
        "timeouts": n_out,
        "errors": sum(r["status"] == "error" for r in records),
        "capped": cap is not None and len(records) >= cap,
        "time_clock": clock,
    }
    return row


def run_clock(path: str, head: dict, clock: str | None) -> str:
    """The clock of a run file's time limit (files written before ``clock`` was a setting
    ran on the wall clock); one other than ``clock`` is an error naming the file."""
    used = head.get("settings", {}).get("clock", "wall")
    if clock is not None and used != clock:
        raise DataError(f"{path}: its time limit ran on the {used} clock, the table is on the "
                        f"{clock} clock (xpg.clock); rerun xpg_explain")
    return used


def build(runs: list[str], metas: list[str], family: str, cap: int | None,
          clock: str | None = None) -> tuple[pd.DataFrame, list[set[str]]]:
    """The table (times on ``clock``; None: the runs' own) and, per row, the code versions
    of its run file and model."""
    import pandas as pd

    if len(runs) != len(metas):
        raise SystemExit(f"{len(runs)} run files but {len(metas)} meta files")
    rows, versions = [], []
    for run_path, meta_path in zip(runs, metas, strict=True):
        meta = read_json(meta_path, "model meta file")
        if not isinstance(meta, dict) or meta.get("family") != family or "n_features" not in meta:
            raise DataError(f"{meta_path}: not the meta file of a {family} model (family "
                            f"{meta.get('family') if isinstance(meta, dict) else None!r}); "
                            f"pass the <ds>.meta.json xpg-train --family {family} writes")
        head, records = iter_run(run_path, "xpg-explain")
        used = run_clock(run_path, head, clock)
        kept = []
        for r in records:  # one record in memory at a time
            if r.get("model") != family:
                raise DataError(f"{run_path}: a run of a {r.get('model')!r} model, not of a "
                                f"{family}; pass the runs of xpg-explain --family {family}")
            kept.append(slim(r))
        rows.append(summarise(kept, meta, family, cap, used,
                              head.get("settings", {}).get("time_limit")))
        versions.append({stamped(head), stamped(meta)})
    return pd.DataFrame(rows), versions


def missing_reasons(reference: str, have: set[str], why: str) -> dict[str, str]:
    """``why`` for each dataset of the published table ``reference`` without a row of ours
    (aliases resolved); none when the table is absent."""
    import pandas as pd

    from fxai.report.reference import reference_dir
    from fxai.report.tables import alias_map

    path = reference_dir() / f"{reference}.csv"  # where write_table reads it too
    if not path.exists():
        return {}
    aliases = alias_map()
    ours = {aliases.get(d.lower(), d) for d in have}
    ref = pd.read_csv(path)["dataset"]
    return {d: why for d in ref if aliases.get(d.lower(), d) not in ours}


def sample_size(n: int, max_rows_all: int, fraction: float, up: bool) -> int:
    """Instances the paper's rule explains out of ``n`` rows (30 % above ``max_rows_all``)."""
    if n <= max_rows_all:
        return n
    return math.ceil(fraction * n - 1e-9) if up else int(round(fraction * n))


COUNTS = ("rows", "distinct_rows", "distinct_x", "raw_distinct_x")  # #TI candidates


def counts(ds: str, prepared: Path, raw_root: Path, registry,
           order: tuple[str, ...]) -> dict[str, int | None]:
    """Row counts of a dataset under each reading of "rows" (None: raw table unavailable)."""
    import pandas as pd

    from fxai.data.prepare import raw_table, source_of

    table = pd.read_csv(prepared / f"{ds}.csv")
    feats = table.drop(columns="target")
    out: dict[str, int | None] = {"rows": len(table),
                                  "distinct_rows": len(table.drop_duplicates()),
                                  "distinct_x": len(feats.drop_duplicates())}
    entry = registry.entry(ds)
    try:
        source = source_of(entry, order)
        raw_dir = raw_root / registry.root(ds) if source == "files" else None
        raw, _, _ = raw_table(entry, source, raw_dir)
        kept = [c for c in raw.columns if c != "target" and c not in entry.get("drop", [])]
        out["raw_distinct_x"] = len(raw[kept].drop_duplicates())
    except (DataError, KeyError):  # image/text entries have no raw table of features
        out["raw_distinct_x"] = None
    return out


def instance_rules(references: list[str], datasets: list[str] | None, prepared: str | Path,
                   raw_root: str | Path, source_order: tuple[str, ...], registry_path: str,
                   max_rows_all: int, fraction: float) -> pd.DataFrame:
    """Per published dataset with a prepared table (of ``datasets``, default all): its
    published #TI, the candidate counts (``COUNTS``) and the #TI each candidate rule gives
    (the sample size rounded or rounded up), and the rules that hit the published one."""
    import pandas as pd

    from fxai.data.prepare import source_dir
    from fxai.data.registry import load_registry
    from fxai.report.reference import load

    registry = load_registry(registry_path)
    aliases = registry.aliases
    order = source_order
    rows = []
    for ref in references:
        for _, pub in load(ref).iterrows():
            ds = aliases.get(str(pub["dataset"]).lower(), str(pub["dataset"]))
            if datasets is not None and ds not in datasets:
                continue
            try:
                folder = source_dir(prepared, registry.entry(ds), order)
            except DataError:  # not in the registry, or none of the sources in order
                folder = Path(prepared, "-")
            if not (folder / f"{ds}.csv").is_file():
                if datasets is not None:
                    raise DataError(f"{ds}: no prepared table {folder}/{ds}.csv")
                continue
            row = {"table": ref, "dataset": ds, "published": int(pub["n_instances"])}
            row |= counts(ds, folder, Path(raw_root), registry, order)
            hits = []
            for c in COUNTS:
                for up in (False, True):
                    n = row[c]
                    pred = None if n is None else sample_size(n, max_rows_all,
                                                              fraction, up)
                    rule = f"{c}_{'ceil' if up else 'round'}"
                    row[rule] = pred
                    if pred == row["published"]:
                        hits.append(rule)
            row["rules_hitting"] = " ".join(hits)
            rows.append(row)
    return pd.DataFrame(rows)
