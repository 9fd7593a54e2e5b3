"""Train an XpG-paper model: a decision tree (dt) or a CN2 list compiled to an OBDD.

Tree learners (``--learner``): ``cart`` tunes the depth on a validation split; ``sized`` grows
a CART tree of the depth and node count the published table (``--size-reference``, e.g. the
XpG paper's Table 2) gives for the dataset, so our trees are as large as the paper's;
``optimal`` fits STreeD's optimal tree within that depth and node count
(:mod:`fxai.models.optimal_tree`, ``--time-limit`` seconds per tree).
"""

from __future__ import annotations

import argparse
import json
import time
from importlib.metadata import version
from pathlib import Path

from fxai.argtypes import count, fraction, positive, positive_int
from fxai.version import code_version

#: (family, learner) -> the options it needs (the workflow passes them from config xpg.*)
NEEDS = {("dt", "cart"): ("depths", "val_size"),
         ("dt", "sized"): ("size_reference", "size_method"),
         ("dt", "optimal"): ("size_reference", "time_limit", "max_thresholds"),
         ("obdd", None): ("beam_width", "min_covered", "max_rule_length")}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--family", choices=("dt", "obdd"), required=True)
    p.add_argument("--dataset", required=True)
    p.add_argument("--prepared", required=True,
                   help="folder of the prepared table <ds>.csv (data/prepared/<source>)")
    p.add_argument("--split", required=True, help="split JSON (train/test row ids)")
    p.add_argument("--out-dir", required=True, help="writes <dataset>.* here")
    # no defaults: the workflow passes seed and config xpg.dt.* / xpg.cn2.* (the schema states
    # them); each family and learner needs its own (NEEDS)
    p.add_argument("--seed", type=count, required=True)
    p.add_argument("--learner", choices=("cart", "sized", "optimal"),
                   help="dt (required): depth-tuned CART, or CART (sized) or STreeD's optimal "
                        "tree (optimal) of the published depth/#N")
    p.add_argument("--depths", type=positive_int, nargs="+", help="cart: candidate max depths")
    p.add_argument("--val-size", type=fraction, help="cart: validation share of the training rows")
    p.add_argument("--size-reference",
                   help="sized, optimal: published table (data/reference stem or CSV) with "
                        "depth, n_nodes")
    p.add_argument("--size-method", choices=("leaves", "prune"),
                   help="sized: max_leaf_nodes = (#N+1)/2, or cost-complexity pruning to #N")
    p.add_argument("--time-limit", type=positive,
                   help="optimal: seconds for STreeD's search (the best tree found by then)")
    p.add_argument("--max-thresholds", type=positive_int,
                   help="optimal: at most this many thresholds per feature (binary tests)")
    p.add_argument("--beam-width", type=positive_int, help="obdd: CN2 beam width")
    p.add_argument("--min-covered", type=positive_int, help="obdd: CN2 min covered examples")
    p.add_argument("--max-rule-length", type=positive_int, help="obdd: CN2 max rule length")


def check_options(args: argparse.Namespace) -> None:
    """Stop with a usage message when the family (and learner) lacks an option it needs."""
    if args.family == "dt" and args.learner is None:
        raise SystemExit("fxai xpg-train: error: --family dt needs --learner "
                         "(cart, sized or optimal)")
    learner = args.learner if args.family == "dt" else None
    missing = [f"--{k.replace('_', '-')}" for k in NEEDS[args.family, learner]
               if getattr(args, k) is None]
    if missing:
        what = f"--family {args.family}" + (f" --learner {learner}" if learner else "")
        raise SystemExit(f"fxai xpg-train: error: {what} needs {', '.join(missing)}")


def train(args: argparse.Namespace) -> dict:
    import joblib
    import numpy as np

    from fxai.data.prepared import finite_domains, load, load_split
    from fxai.models.dlist import learn_cn2
    from fxai.models.dtree import train_dt, train_dt_sized, tree_stats
    from fxai.models.obdd import OBDD
    from fxai.models.optimal_tree import train_dt_optimal

    check_options(args)
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
    return {p: version(p) for p in pkgs}


def run(args: argparse.Namespace) -> int:
    meta = train(args)
    print(f"{args.dataset} {args.family}: {meta['n_nodes']} nodes, "
          f"test accuracy {meta['accuracy_test']:.3f}")
    return 0
