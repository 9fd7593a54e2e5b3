"""Train an XpG-paper model: a decision tree (dt) or a CN2 list compiled to an OBDD.

Tree learners (``--learner``): ``cart`` tunes the depth on a validation split; ``sized`` grows
a CART tree of the depth and node count the published table (``--size-reference``, e.g. the
XpG paper's Table 2) gives for the dataset, so our trees are as large as the paper's;
``optimal`` fits STreeD's optimal tree within that depth and node count
(:mod:`fxai.models.optimal_tree`, ``--time-limit`` seconds per tree).
"""

from __future__ import annotations

import argparse

from fxai.argtypes import count, fraction, positive, positive_int
from fxai.experiments.xpg import NEEDS, train


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


def run(args: argparse.Namespace) -> int:
    check_options(args)
    meta = train(args)
    print(f"{args.dataset} {args.family}: {meta['n_nodes']} nodes, "
          f"test accuracy {meta['accuracy_test']:.3f}")
    return 0
