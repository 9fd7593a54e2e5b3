"""The attribution audit (beyond the papers): the choice of points (the whole feature space
or test rows), the scores' background, the per-instance driver (every AXp and CXp, then each
score with its CPU time and its disagreement with the formal ground truth) and the summary of
run records into the tables' rows."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from functools import partial
from typing import TYPE_CHECKING

from fxai.experiments.driver import Stopwatch, drive
from fxai.runfile import load_input

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

FORMAL = ("ffa", "holler_packel", "deegan_packel", "responsibility")
BUILTIN = ("shapley", "shapley_background", "shap", "lime") + FORMAL
SHORT = {"irrelevant_ge": "irr_ge_pct", "irrelevant_gt": "irr_gt_pct",
         "top_irrelevant": "top_irr_pct", "relevant_zero": "rel_zero_pct",
         "irrelevant_nonzero": "irr_nonzero_pct"}


def feature_space(domains: list) -> list[tuple] | None:
    """Every point of a finite feature space in lexicographic order (None if a feature is
    real-valued)."""
    if any(d is None for d in domains):
        return None
    return list(itertools.product(*domains))


def plan(args, data, domains) -> tuple[str, list[int], list[list]]:
    """(``"all"`` or ``"test"``, instance ids, their feature values)."""
    from fxai.data.prepared import load_split
    from fxai.data.split import pick_instance

    space = feature_space(domains) if args.points == "all" else None
    if space is not None and len(space) <= args.max_points:
        return "all", list(range(len(space))), [list(p) for p in space]
    _, test = load_input(load_split, args.split, "split")
    rows = [pick_instance(test, k, args.seed) for k in range(min(args.instances, len(test)))]
    return "test", rows, [[v.item() for v in data.X[r]] for r in rows]


def background(args, data) -> np.ndarray:
    import numpy as np

    from fxai.data.prepared import load_split

    train, _ = load_input(load_split, args.split, "split")
    rng = np.random.default_rng(args.seed)
    ids = np.sort(np.asarray(train, dtype=int))
    pick = rng.choice(ids, size=min(args.background, ids.size), replace=False)
    return data.X[np.sort(pick)].astype(float)


def score_functions(args, model, predict, domains, bg, names) -> dict:
    """name -> f(oracle, x) for the non-formal scores."""
    from fxai import attribution
    from fxai.attribution import heuristic

    fns = {
        "shapley": lambda o, x: attribution.shapley(o, predict=predict, domains=domains,
                                                    value=args.shapley_value),
        "shapley_background": lambda o, x: attribution.shapley(o, bg, predict=predict,
                                                               value=args.shapley_value),
        "shap": lambda o, x: heuristic.shap_score(model, bg, x, names, seed=args.seed),
        "lime": lambda o, x: heuristic.lime_score(model, bg, x, names, seed=args.seed,
                                                  samples=args.lime_samples),
    }
    out = {n: fns[n] for n in args.scores if n in fns}
    for spec in args.user_score:
        fn = heuristic.load_score(spec)
        out[spec] = partial(_user, spec, fn, model, bg, names)
    return out


def _user(spec, fn, model, bg, names, o, x):
    import numpy as np

    from fxai.attribution import heuristic

    return heuristic.check_scores(spec, fn(model, bg.copy(), np.asarray(x), list(names)),
                                  len(x))


def audit_instance(o, model, x, domains, fns: dict, formal: list[str],
                   time_limit: float) -> dict:
    """Relevancy (every AXp and CXp, checked by the family's checker), then every score with
    its CPU time and measures (see the module)."""
    from fxai import attribution, verify
    from fxai.attribution.measures import disagreement

    def check(r) -> bool | None:
        return verify.verdict(*verify.check_all(model, x, r.axps, r.cxps, domains))

    out = drive(lambda: attribution.relevant(o, time_limit=time_limit, clock="cpu"),
                clock="cpu", check=check)
    r = out.result
    rec = {"relevant": r.features, "complete": r.complete, "method": r.method,
           "axps": [list(a) for a in r.axps], "cxps": [list(c) for c in r.cxps],
           "xp_time_s": out.explained.seconds}
    ffa = attribution.indices(r.axps, r.cxps)["ffa"] if r.complete else None
    scores: dict = {}
    for name, fn in fns.items():
        try:
            with Stopwatch("cpu") as sw:
                values = [float(v) for v in fn(o, x)]
        except (ValueError, NotImplementedError) as err:
            if name not in ("shapley", "shapley_background"):
                raise
            scores[name] = {"skipped": str(err)}  # no exact route for this model
            continue
        scores[name] = {"values": values, "time_s": sw.took.seconds}
    if r.complete:
        with Stopwatch("cpu") as sw:
            idx = attribution.indices(r.axps, r.cxps)
        t = sw.took.seconds / max(1, len(idx))
        for name in formal:
            scores[name] = {"values": [idx[name].get(f, 0.0) for f in range(len(x))],
                            "time_s": t + rec["xp_time_s"]}
    for s in scores.values():
        if "values" in s:
            s.update(disagreement(s["values"], r.features, ffa) if r.complete else {})
    rec["scores"] = scores
    rec["verified"] = out.verdict
    return rec


def rows_of(rec: dict) -> Iterable[dict]:
    """The tidy rows (one per score) of one audit-run record."""
    from fxai.attribution.measures import FLAGS

    truth = rec.get("status") == "done" and bool(rec.get("verified"))
    base = {"family": rec["model"], "dataset": rec["dataset"], "instance": rec["instance"],
            "points": rec.get("points"), "prediction": rec.get("prediction"),
            "status": rec.get("status"), "verified": rec.get("verified"),
            "ground_truth": truth, "n_features": len(rec["x"]),
            "n_relevant": len(rec.get("relevant") or [])}
    for name, s in (rec.get("scores") or {}).items():
        row = base | {"score": name}
        if "skipped" in s:
            yield row | {"skipped": s["skipped"]}
            continue
        row["time_ms"] = 1000 * s["time_s"]
        for k in (*FLAGS, "gap", "kendall_tau", "rbo"):
            row[k] = s.get(k) if truth else None
        yield row


def _known_pct(col: pd.Series) -> float:
    """Percentage of true values among the known ones (NaN: not decided, left out)."""
    vals = col.dropna().astype(bool)
    return float(100 * vals.mean()) if len(vals) else float("nan")


def summarise(tidy: pd.DataFrame) -> pd.DataFrame:
    """One row per (family, dataset, score) of the tidy table (see the module)."""
    import pandas as pd

    out = []
    done = tidy[tidy.get("skipped", pd.Series(index=tidy.index, dtype=object)).isna()]
    for (fam, ds, score), g in done.groupby(["family", "dataset", "score"], sort=True):
        truth = g[g["ground_truth"]]
        row = {"family": fam, "dataset": ds, "score": score, "instances": len(truth),
               "excluded": len(g) - len(truth)}
        for k, short in SHORT.items():
            row[short] = _known_pct(truth[k])
        for k in ("gap", "kendall_tau", "rbo"):
            vals = truth[k].dropna().astype(float)
            row[k] = float(vals.mean()) if len(vals) else float("nan")
        row["ms"] = float(g["time_ms"].mean())
        out.append(row)
    return pd.DataFrame(out)
