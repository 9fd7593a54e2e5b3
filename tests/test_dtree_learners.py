"""Tree learners: depth-tuned CART and trees sized to a published depth and node count."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier
from test_xpg_commands import write_prepared

from fxai.cli import main
from fxai.experiments.models import build
from fxai.models.dtree import train_dt_sized, tree_stats


def data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, 6)).astype(float)
    y = ((X[:, 0] + X[:, 1] * X[:, 2] + rng.integers(0, 3, n)) % 3 == 0).astype(int)
    return X, y


def test_sized_tree_has_the_target_size():
    X, y = data()
    for depth, nodes in ((4, 17), (6, 43)):
        clf, info = train_dt_sized(X, y, depth, nodes, "leaves")
        st = tree_stats(clf)
        assert st["depth"] == depth and st["n_nodes"] == nodes, st
        assert info["target_nodes"] == nodes and st["n_leaves"] == (nodes + 1) // 2
        # pruning removes whole subtrees: the smallest pruned tree with at least #N nodes
        clf, info = train_dt_sized(X, y, depth, nodes, "prune")
        bigger = DecisionTreeClassifier(max_depth=depth, random_state=0,
                                        ccp_alpha=info["ccp_alpha"] * 0.999).fit(X, y)
        assert clf.get_depth() <= depth and clf.tree_.node_count >= nodes
        assert info["ccp_alpha"] > 0 and bigger.tree_.node_count >= clf.tree_.node_count


def test_tree_stats_count_features_and_distinct_thresholds():
    X = np.array([[0, 0], [1, 0], [2, 1], [3, 1]], dtype=float)
    clf = DecisionTreeClassifier(random_state=0).fit(X, [0, 1, 0, 1])
    st = tree_stats(clf)
    t = clf.tree_
    pairs = {(int(f), float(v)) for f, v, c in zip(t.feature, t.threshold, t.children_left,
                                                    strict=True) if c >= 0}
    assert st["thresholds"] == len(pairs) and st["features_used"] == len({f for f, _ in pairs})
    assert st["n_nodes"] == t.node_count and st["n_leaves"] == (t.node_count + 1) // 2


def test_bad_target_and_method_are_errors():
    X, y = data(50)
    with pytest.raises(ValueError, match="must be positive"):
        train_dt_sized(X, y, 0, 5)
    with pytest.raises(ValueError, match="unknown sized-tree method"):
        train_dt_sized(X, y, 3, 5, "greedy")


def toy_training(tmp_path, published: str) -> tuple:
    """(published table path, xpg-train arguments) for the 400-row toy set prepared in
    ``tmp_path/prepared``, with a published table of ``published`` rows (CSV lines)."""
    X, y = data(400)
    prep = tmp_path / "prepared"
    write_prepared(prep, "toy", X.astype(int), y, ["categorical"] * 6)
    ref = tmp_path / "pub.csv"
    ref.write_text("dataset,depth,n_nodes\n" + published)
    return ref, ["xpg-train", "--family", "dt", "--dataset", "toy", "--prepared", str(prep),
                 "--split", str(prep / "toy.split.json"), "--seed", "0"]


def test_xpg_train_sized_reads_the_published_size_and_models_table(tmp_path):
    ref, args = toy_training(tmp_path, "Toy,4,13\nother,6,99\n")
    assert main([*args, "--out-dir", str(tmp_path / "dt-sized"), "--learner", "sized",
                 "--size-reference", str(ref), "--size-method", "leaves"]) == 0
    assert main([*args, "--out-dir", str(tmp_path / "dt"), "--learner", "cart", "--depths", "3",
                 "4", "5", "6", "--val-size", "0.2"]) == 0
    metas = [str(tmp_path / m / "toy.meta.json") for m in ("dt-sized", "dt")]
    sized = json.loads(open(metas[0]).read())
    assert (sized["depth"], sized["n_nodes"]) == (4, 13) and sized["target_nodes"] == 13
    table = build(metas).set_index("model")
    assert table.loc["dt-sized", "n_nodes"] == 13 and table.loc["dt-sized", "thresholds"] >= 1
    assert table.loc["dt", "learner"].startswith("sklearn DecisionTreeClassifier")
    assert 0 < table.loc["dt", "test_acc_pct"] <= 100
    assert table.loc["dt", "n_classes"] == table.loc["dt-sized", "n_classes"] == 2
    ref.write_text("dataset,depth,n_nodes\nother,6,99\n")
    with pytest.raises(SystemExit, match="0 rows for dataset 'toy'"):
        main([*args, "--out-dir", str(tmp_path / "x"), "--learner", "sized",
              "--size-reference", str(ref), "--size-method", "leaves"])


def test_models_table_rejects_a_file_that_is_no_meta(tmp_path):
    bad = tmp_path / "nbc" / "x.meta.json"
    bad.parent.mkdir()
    bad.write_text(json.dumps({"rows": 3}))
    with pytest.raises(SystemExit, match="x.meta.json: not a model meta file"):
        build([str(bad)])


def test_models_table_says_when_models_come_from_two_code_versions(tmp_path, monkeypatch):
    X, y = data(200)
    prep = tmp_path / "prepared"
    write_prepared(prep, "toy", X.astype(int), y, ["categorical"] * 6)
    metas = []
    for folder, version in (("dt", "0.1.0+gaaaaaaaaaaaa"), ("dt-sized", "0.1.0+gbbbbbbbbbbbb")):
        monkeypatch.setenv("FXAI_CODE_VERSION", version)
        assert main(["xpg-train", "--family", "dt", "--dataset", "toy", "--prepared", str(prep),
                     "--split", str(prep / "toy.split.json"), "--out-dir",
                     str(tmp_path / folder), "--seed", "0", "--learner", "cart", "--depths",
                     "3", "4", "5", "6", "--val-size", "0.2"]) == 0
        metas.append(str(tmp_path / folder / "toy.meta.json"))
    out = tmp_path / "tables"
    assert main(["models-table", "--metas", *metas, "--out-dir", str(out)]) == 0
    table = pd.read_csv(out / "models.csv").set_index("model")
    assert table.loc["dt", "code_version"] == "0.1.0+gaaaaaaaaaaaa"
    assert table.loc["dt-sized", "code_version"] == "0.1.0+gbbbbbbbbbbbb"
    assert ("Note: built from results of 2 fxai code versions (0.1.0+gaaaaaaaaaaaa, "
            "0.1.0+gbbbbbbbbbbbb)") in (out / "models.md").read_text()
    assert main(["models-table", "--metas", metas[0], "--out-dir", str(out)]) == 0
    assert "code_version" not in pd.read_csv(out / "models.csv").columns  # one version
