"""One way in (issue 52): bad arguments refused by name, never a wrong answer."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier

from fxai import explain, oracles, verify


@pytest.fixture(scope="module")
def tree():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(200, 4))
    y = (X[:, 0] & X[:, 1]) | (X[:, 2] & X[:, 3])
    return DecisionTreeClassifier(random_state=0).fit(X, y), X


@pytest.mark.parametrize("find", [explain.find_axp, explain.find_cxp])
def test_a_partial_order_is_refused(tree, find):
    clf, _ = tree
    o = oracles.for_model(clf, [1, 1, 1, 1], domains=[[0, 1]] * 4)
    with pytest.raises(ValueError, match=r"order leaves out features \[1, 3\]"):
        find(o, order=[2, 0])
    with pytest.raises(ValueError, match="repeats"):
        find(o, order=[0, 1, 2, 3, 3])
    with pytest.raises(TypeError, match="order must be a list"):
        find(o, order="0123")
    full = find(o, order=[3, 2, 1, 0])
    axps, cxps = ([full], []) if find is explain.find_axp else ([], [full])
    assert verify.check_all(clf, [1, 1, 1, 1], axps, cxps, domains=[[0, 1]] * 4) == (
        [True] * len(axps), [True] * len(cxps))


def test_a_seed_s_order_need_list_only_the_seed(tree):
    clf, _ = tree
    o = oracles.for_model(clf, [1, 1, 1, 1], domains=[[0, 1]] * 4)
    assert explain.find_axp(o, seed=[0, 1], order=[1, 0]) == [0, 1]


@pytest.mark.parametrize("axps", ["12", [1, 2], [["0"]], 3, [[0.5]]])
def test_check_all_refuses_what_is_not_a_list_of_explanations(tree, axps):
    clf, _ = tree
    with pytest.raises(TypeError, match="check_all: axps must be a list of explanations"):
        verify.check_all(clf, [1, 1, 1, 1], axps, [], domains=[[0, 1]] * 4)


def test_check_all_refuses_an_index_out_of_range(tree):
    clf, _ = tree
    with pytest.raises(ValueError, match=r"features \[7\] are not feature indices"):
        verify.check_all(clf, [1, 1, 1, 1], [], [[7]], domains=[[0, 1]] * 4)


def test_describe_and_names_say_what_is_wrong(tree):
    clf, _ = tree
    o = oracles.for_model(clf, [1, 1, 1, 1])
    with pytest.raises(TypeError, match="describe: an explanation is a list"):
        explain.describe(o, "12")
    with pytest.raises(ValueError, match=r"describe: feature index 9 is out of range 0..3"):
        explain.describe(o, [9])
    with pytest.raises(TypeError, match="describe: feature '1' is a str"):
        explain.describe(o, ["1"])
    with pytest.raises(ValueError, match=r"names: feature index 4 is out of range"):
        explain.names(o, [[0, 4]])
    with pytest.raises(TypeError, match="names: cannot map a str"):
        explain.names(o, "ab")
    assert explain.names(o, {0: 0.5, 3: 1.0}) == {"x0": 0.5, "x3": 1.0}


def test_explain_rows_of_no_rows_is_an_empty_table(tree):
    clf, X = tree
    frame = pd.DataFrame(X[:0], columns=["a", "b", "c", "d"])
    out = explain.explain_rows(DecisionTreeClassifier().fit(
        pd.DataFrame(X, columns=["a", "b", "c", "d"]), X[:, 0]), frame)
    assert out.empty and "explanation" in out.columns


def test_explain_rows_of_a_list_of_dicts_reads_each_dict_by_name(tree):
    """Issue 66: ``explain_rows(pipe, [dict, dict])`` said "instance has 2 values"."""
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder

    df = pd.DataFrame({"city": ["a", "b", "c", "a", "b", "c"] * 5, "age": list(range(30))})
    y = (df.city == "a") | (df.age > 20)
    pipe = Pipeline([("pre", ColumnTransformer([("oh", OneHotEncoder(), ["city"])],
                                                remainder="passthrough")),
                     ("tree", DecisionTreeClassifier(max_depth=3, random_state=0))]).fit(df, y)
    rows = [{"city": "a", "age": 3}, {"age": 25, "city": "b"}]
    got = explain.explain_rows(pipe, rows, time_limit=30)
    want = explain.explain_rows(pipe, pd.DataFrame(rows), time_limit=30)
    assert len(got) == 2 and got["explanation"].tolist() == want["explanation"].tolist()
    assert got["prediction"].tolist() == pipe.predict(pd.DataFrame(rows)).tolist()
    with pytest.raises(TypeError, match="several rows .* not one dict"):
        explain.explain_rows(pipe, rows[0])


# ---- 1. LightGBM's names: the user's own, in the library and the CLI ----------------------

@pytest.fixture(scope="module")
def cancer_lgbm():
    lgb = pytest.importorskip("lightgbm")
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    X = X.iloc[:, :6]  # 'mean radius', 'mean texture', ...: names with spaces
    return lgb.LGBMClassifier(n_estimators=8, num_leaves=4, verbose=-1).fit(X, y), X


def test_lightgbm_reads_and_prints_the_user_s_names(cancer_lgbm):
    model, X = cancer_lgbm
    row = X.iloc[3]
    o = oracles.for_model(model, row)
    assert o.prediction == model.predict(X.iloc[[3]])[0]
    assert o.feature_names == list(X.columns)
    axp = explain.find_axp(o)
    assert str(explain.describe(o, axp)).startswith(f"IF {X.columns[axp[0]]} = ")
    assert verify.check_all(model, row, [axp], [explain.find_cxp(o)]) == ([True], [True])
    reordered = row[list(reversed(X.columns))]  # by name, in any order
    assert oracles.for_model(model, reordered).instance == o.instance
    assert oracles.for_model(model, row.to_dict()).feature_names == list(X.columns)


def test_fxai_explain_reads_a_lightgbm_csv_with_spaces_in_its_header(cancer_lgbm, tmp_path):
    import joblib

    from fxai.cli import main

    model, X = cancer_lgbm
    joblib.dump(model, tmp_path / "m.joblib")
    X.iloc[:2].to_csv(tmp_path / "rows.csv", index=False)
    out = tmp_path / "out.json"
    assert main(["explain", "--model", str(tmp_path / "m.joblib"), "--instances",
                 str(tmp_path / "rows.csv"), "--out", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert all(r["verified"] for r in rows)
    assert set(rows[0]["instance"]) == set(X.columns)
    assert {f for a in rows[0]["axps"] for f in a} <= set(X.columns)


# ---- 3. a model without feature names and a CSV with a header ---------------------------

@pytest.fixture(scope="module", params=["tree", "pipeline"])
def unnamed(request):
    """A tree fitted on an array, bare or in a Pipeline (issue 66: the Pipeline demanded
    the names x0, x1, ... of a CSV)."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(300, 3))
    y = (X[:, 0] > X[:, 2]).astype(int)
    clf = DecisionTreeClassifier(random_state=0)
    if request.param == "pipeline":
        clf = make_pipeline(StandardScaler(), clf)
    return clf.fit(X, y), X


def test_the_library_says_a_named_row_was_read_by_position(unnamed):
    from fxai.models.schema import PositionalWarning

    clf, X = unnamed
    row = pd.Series({"c": X[0, 2], "a": X[0, 0], "b": X[0, 1]})  # another order
    with pytest.warns(PositionalWarning, match=r"read by position \(c -> x0, a -> x1"):
        oracles.for_model(clf, row)
    o = oracles.for_model(clf, row, columns=["a", "b", "c"])  # by name
    assert explain.values(o) == [int(v) for v in X[0]] and o.feature_names == ["a", "b", "c"]
    assert o.prediction == clf.predict(X[:1])[0]
    with pytest.raises(ValueError, match="given by feature name needs feature names"):
        oracles.for_model(clf, dict(row))
    assert verify.check_all(clf, row, [explain.find_axp(o)], [], columns=["a", "b", "c"]) == (
        [True], [])
    with pytest.raises(ValueError, match=r"differ from the feature names .*: unknown \['a', "
                                         r"'b', 'c'\], missing \['p', 'q', 'r'\]"):
        oracles.for_model(DecisionTreeClassifier().fit(pd.DataFrame(X, columns=list("pqr")),
                                                       X[:, 0]), row, columns=["a", "b", "c"])


def test_fxai_explain_says_it_read_by_position_and_columns_reads_by_name(unnamed, tmp_path,
                                                                         capsys):
    import joblib

    from fxai.cli import main

    clf, X = unnamed
    joblib.dump(clf, tmp_path / "m.joblib")
    frame = pd.DataFrame(X[:6], columns=["a", "b", "c"])[["c", "a", "b"]]  # another order
    frame.to_csv(tmp_path / "rows.csv", index=False)
    out = tmp_path / "out.json"
    args = ["explain", "--model", str(tmp_path / "m.joblib"), "--instances",
            str(tmp_path / "rows.csv"), "--out", str(out)]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "read by position (c -> feature 0, a -> feature 1, b -> feature 2)" in err
    assert json.loads(out.read_text())["columns_read_by_position"] == ["c", "a", "b"]
    assert main([*args, "--columns", "a,b,c"]) == 0
    doc = json.loads(out.read_text())
    assert "columns_read_by_position" not in doc
    assert [r["prediction"] for r in doc["rows"]] == list(clf.predict(X[:6]))
    assert all(r["verified"] for r in doc["rows"])
    assert main([*args, "--columns", "a,b,z"]) == 1
    assert "--columns names ['z']" in capsys.readouterr().err


# ---- 4. domains for HistGradientBoosting and LightGBM ------------------------------------

def _brute_axp(model, x, axp, domains) -> bool:
    """Fixing ``axp`` forces the class over the domains' product, and no feature of it can go
    (the model's own predict on every point)."""
    import itertools

    def forces(fixed):
        free = [i for i in range(len(x)) if i not in fixed]
        pts = []
        for vals in itertools.product(*(domains[i] for i in free)):
            p = list(x)
            for i, v in zip(free, vals, strict=True):
                p[i] = v
            pts.append(p)
        return bool(np.all(model.predict(np.array(pts, dtype=float)) == model.predict(
            np.array([x], dtype=float))[0]))

    return forces(set(axp)) and not any(forces(set(axp) - {i}) for i in axp)


@pytest.mark.heavy
@pytest.mark.parametrize("family", ["hgb", "lgbm"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_domains_for_hist_gradient_and_lightgbm(family, seed):
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(400, 4)).astype(float)
    y = ((X[:, 0] + X[:, 1] * (X[:, 2] > 0) + rng.random(400)) > 2).astype(int)
    if family == "lgbm":
        lgb = pytest.importorskip("lightgbm")
        model = lgb.LGBMClassifier(n_estimators=6, num_leaves=5, min_child_samples=5,
                                   verbose=-1).fit(X, y)
    else:
        model = HistGradientBoostingClassifier(max_iter=6, max_leaf_nodes=5,
                                               random_state=0).fit(X, y)
    domains = [[0.0, 1.0, 2.0]] * 4
    for x in X[:6]:
        o = oracles.for_model(model, x, domains=domains)
        assert o.prediction == model.predict(x[None])[0]
        axps = explain.all_xps(o).axps
        assert all(_brute_axp(model, list(x), a, domains) for a in axps)
        assert all(verify.check_all(model, x, axps, [], domains=domains)[0])
    with pytest.raises(ValueError, match="outside its domain"):
        oracles.for_model(model, [0.5, 0, 0, 0], domains=domains)


def test_domains_with_missing_values_range_over_nan_too():
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = np.random.default_rng(5)
    X = rng.integers(0, 3, size=(400, 3)).astype(float)
    X[rng.random(X.shape) < 0.15] = np.nan
    y = ((np.nan_to_num(X[:, 0], nan=3) + np.nan_to_num(X[:, 1]) + rng.random(400)) > 2.5)
    model = HistGradientBoostingClassifier(max_iter=5, max_leaf_nodes=4, random_state=0).fit(
        X, y.astype(int))
    domains = [[0.0, 1.0, 2.0]] * 3
    for x in X[:6]:
        o = oracles.for_model(model, x, domains=domains, missing=True)
        axps = explain.all_xps(o).axps
        with_nan = [[*d, np.nan] for d in domains]
        assert all(_brute_axp(model, list(x), a, with_nan) for a in axps)
        assert all(verify.check_all(model, x, axps, [], domains=domains, missing=True)[0])


# ---- 5. keywords: one meaning, one message ------------------------------------------------

def test_a_pipeline_s_keyword_messages_agree():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X = np.random.default_rng(0).normal(size=(100, 2))
    pipe = make_pipeline(StandardScaler(), DecisionTreeClassifier(max_depth=2)).fit(
        X, X[:, 0] > 0)
    with pytest.raises(TypeError, match="takes no keyword 'domains': domains .* a Pipeline's "
                                        "encoders"):
        oracles.for_model(pipe, X[0], domains=[None, None])
    with pytest.raises(TypeError) as e:
        oracles.for_model(pipe, X[0], domain=[None, None])
    assert "'domains'" not in str(e.value).split("it takes")[1]
    with pytest.raises(TypeError, match="check_all: a Pipeline takes no keyword 'domains'"):
        verify.check_all(pipe, X[0], [], [], domains=[None, None])
    with pytest.raises(TypeError, match="takes no keyword 'vote': vote"):
        oracles.for_model(pipe, X[0], vote="hard")


# ---- 7. unsupported LightGBM models: refused by name, exit 2, no traceback ----------------

@pytest.mark.heavy
@pytest.mark.parametrize("variant", ["category", "linear_tree"])
def test_fxai_explain_refuses_unsupported_lightgbm_by_name(variant, tmp_path, fxai_cli):
    lgb = pytest.importorskip("lightgbm")
    import joblib

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=300), "c": rng.integers(0, 3, 300)})
    if variant == "category":
        X["c"] = pd.Categorical(np.array(["u", "v", "w"])[X["c"]])
    y = ((X["a"] > 0) ^ (X["c"].astype(str) == X["c"].astype(str).iloc[0])).astype(int)
    model = lgb.LGBMClassifier(n_estimators=3, verbose=-1, min_child_samples=5,
                               linear_tree=variant == "linear_tree").fit(X, y)
    joblib.dump(model, tmp_path / "m.joblib")
    X.iloc[:2].to_csv(tmp_path / "rows.csv", index=False)
    code, err = fxai_cli("explain", "--model", tmp_path / "m.joblib", "--instances",
                         tmp_path / "rows.csv", "--out", tmp_path / "out.json")
    assert code == 2 and "Traceback" not in err
    assert ("pandas 'category' columns" if variant == "category" else "linear trees") in err
    assert "fxai reads LightGBM binary and multiclass" in err
    assert not (tmp_path / "out.json").exists()


def test_a_weak_axp_at_a_time_limit_is_never_shown_as_an_axp(tree, monkeypatch):
    from fxai.explain import rows as rows_module
    from fxai.oracles.base import TimeLimitExceeded

    clf, X = tree

    def stopped(o, time_limit=None):
        raise TimeLimitExceeded("stopped", 1.0, [0, 1, 2])

    monkeypatch.setattr(rows_module, "find_axp", stopped)
    out = explain.explain_rows(clf, X[:2], time_limit=1)
    assert (out.status == "time limit").all()
    assert out.explanation.str.startswith("(weak AXP, not minimal: the time limit was "
                                          "reached) IF ").all()
    o = oracles.for_model(clf, X[0])
    axp = explain.find_axp(o)
    assert str(explain.describe(o, axp, minimal=False)).startswith("(weak AXP, not minimal")
    assert str(explain.describe(o, axp)).startswith("IF ")

    def nothing(o, time_limit=None):
        raise TimeLimitExceeded("stopped", 1.0, None)

    monkeypatch.setattr(rows_module, "find_axp", nothing)
    out = explain.explain_rows(clf, X[:1], time_limit=1)
    assert out.explanation.iloc[0] == "(none: the time limit was reached before a weak AXP)"
    assert out.features.iloc[0] == []


def test_check_all_refuses_a_repeated_feature_naming_the_set(tree):
    clf, _ = tree
    with pytest.raises(ValueError, match=r"cxps entry \[2, 2\] repeats a feature"):
        verify.check_all(clf, [1, 1, 1, 1], [[0, 1]], [[2, 2]], domains=[[0, 1]] * 4)


def test_categorical_nb_domains_are_its_categories_in_both_ways_in():
    from sklearn.naive_bayes import CategoricalNB

    X = np.array([[0, 1], [1, 2], [2, 0], [1, 1]])
    nb = CategoricalNB().fit(X, [0, 1, 1, 0])
    own = [[0, 1, 2], None]
    axp = explain.find_axp(oracles.for_model(nb, [0, 1], domains=own))
    assert verify.check_all(nb, [0, 1], [axp], [], domains=own) == ([True], [])
    for call in (lambda d: oracles.for_model(nb, [0, 1], domains=d),
                 lambda d: verify.check_all(nb, [0, 1], [axp], [], domains=d)):
        with pytest.raises(ValueError, match=r"domains of feature 0: \[0, 1\] are not the "
                                             r"CategoricalNB's fitted categories \[0, 1, 2\]"):
            call([[0, 1], None])
