"""pandas in, names out: every instance form gives the same verified, named explanations;
every bad input is a ValueError saying what was expected."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xgboost as xgb
from sklearn.naive_bayes import CategoricalNB
from sklearn.tree import DecisionTreeClassifier

from fxai import explain, oracles, verify
from fxai.oracles.instance import encode, frame_domains
from fxai.verify.brute import BruteForceOracle, all_axps, all_cxps

pytestmark = pytest.mark.filterwarnings("ignore:X does not have valid feature names")

COLS = ["dose", "colour", "smoker", "level"]


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(1)
    n = 300
    df = pd.DataFrame({
        "dose": rng.normal(size=n).round(2),
        "colour": pd.Categorical(rng.choice(["red", "green", "blue"], size=n)),
        "smoker": rng.random(n) < 0.4,
        "level": rng.integers(0, 4, size=n),
    })
    y = ((df.dose > 0.3) & (df.colour != "blue")) | (df.smoker & (df.level >= 2))
    return df, y.astype(int).to_numpy()


@pytest.fixture(scope="module")
def models(frame):
    df, y = frame
    X = encode(df)
    tree = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    booster = xgb.XGBClassifier(n_estimators=4, max_depth=2, random_state=0).fit(X, y)
    cat = df[COLS[1:]]
    nbc = CategoricalNB().fit(encode(cat), y)
    return {"tree": (tree, df), "xgboost": (booster, df), "nbc": (nbc, cat)}


def _forms(df: pd.DataFrame, i: int) -> dict:
    """Row i of ``df`` in every accepted form (raw labels or encoded numbers)."""
    row = df.iloc[i]
    enc = encode(df).iloc[i]
    return {
        "series": row,
        "frame": df.iloc[[i]],
        "dict": {k: row[k] for k in reversed(df.columns)},  # any order
        "array": enc.to_numpy(),
        "array2d": enc.to_numpy()[None, :],
        "list": enc.tolist(),
    }


def _verified(model, o, domains, r):
    axps_ok, cxps_ok = verify.check_all(model, o.instance, r.axps, r.cxps, domains=domains)
    assert all(axps_ok) and all(cxps_ok)


@pytest.mark.parametrize("kind", ["tree", "xgboost", "nbc"])
def test_every_input_form_gives_the_same_named_verified_explanations(models, kind):
    model, df = models[kind]
    domains, _ = frame_domains(df)
    for i in (0, 7, 42):
        results = {}
        for form, x in _forms(df, i).items():
            o = oracles.for_model(model, x, domains=df)
            assert o.feature_names == list(df.columns)
            assert o.instance == encode(df).iloc[i].tolist()
            r = explain.all_xps(o, time_limit=60)
            assert r.complete
            results[form] = (r.axps, r.cxps, explain.ffa(o, time_limit=60))
            named = explain.names(o, r)
            assert named.axps == [tuple(df.columns[f] for f in a) for a in r.axps]
            ffa, complete = explain.names(o, explain.ffa(o, time_limit=60))
            assert complete and set(ffa) <= set(df.columns)
            assert explain.names(o, explain.find_axp(o)) in [list(a) for a in named.axps]
        assert len({repr(v) for v in results.values()}) == 1, results
        _verified(model, o, None if kind == "nbc" else domains, r)


def test_nbc_explanations_equal_brute_force(models):
    model, df = models["nbc"]
    domains = [list(range(k)) for k in model.n_categories_]
    for i in range(10):
        o = oracles.for_model(model, df.iloc[i], domains=df)
        brute = BruteForceOracle(model.predict, domains, o.instance)
        r = explain.all_xps(o)
        assert set(r.axps) == all_axps(brute) and set(r.cxps) == all_cxps(brute)


def test_tree_explanations_equal_brute_force_on_finite_columns(frame):
    df, y = frame
    cat = df[COLS[1:]]
    tree = DecisionTreeClassifier(max_depth=4, random_state=0).fit(encode(cat), y)
    domains, _ = frame_domains(cat)
    for i in range(10):
        o = oracles.for_model(tree, cat.iloc[i], domains=cat)
        brute = BruteForceOracle(tree.predict, domains, o.instance)
        r = explain.all_xps(o)
        assert set(r.axps) == all_axps(brute) and set(r.cxps) == all_cxps(brute)


def test_names_without_a_frame_come_from_the_model(models, frame):
    df, _ = frame
    tree, _ = models["tree"]
    o = oracles.for_model(tree, encode(df).iloc[0])
    assert o.feature_names == COLS
    assert explain.names(o, [3, 0]) == ["level", "dose"]
    booster = models["xgboost"][0].get_booster()
    assert oracles.for_model(booster, encode(df).iloc[0]).feature_names == COLS


def test_results_without_names_stay_indices_and_name_as_x(frame):
    df, y = frame
    X = encode(df).to_numpy(dtype=float)
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    o = oracles.for_model(tree, X[0])
    assert o.feature_names is None
    axp = explain.find_axp(o)
    assert axp == sorted(axp) and all(isinstance(f, int) for f in axp)
    assert explain.names(o, axp) == [f"x{f}" for f in axp]


def test_frame_domains_per_column_type():
    df = pd.DataFrame({"f": [0.5, 1.5], "i": [7, 3], "b": [True, False],
                       "s": pd.Categorical(["x", "y"], categories=["y", "x", "z"]),
                       "n": pd.Categorical([2.0, 1.0])})
    assert frame_domains(df) == ([None, [3, 7], [0, 1], [0, 1, 2], [1.0, 2.0]],
                                 [None, None, None, ["y", "x", "z"], None])


BAD = [
    ("tree", lambda df: [0.1, 0, 1], "instance has 3 values, the model 4 features"),
    ("tree", lambda df: [[0.1, 0, 1, 2], [0.1, 0, 1, 2]], r"one row: got an array of shape"),
    ("tree", lambda df: df.iloc[:2], "exactly 1 row, not 2"),
    ("tree", lambda df: {"dose": 0.1, "colour": "red", "smoker": True, "lvl": 2},
     r"unknown \['lvl'\], missing \['level'\]"),
    ("tree", lambda df: {"dose": 0.1, "colour": "red", "smoker": True},
     r"unknown \[\], missing \['level'\]"),
    ("tree", lambda df: {"dose": 0.1, "colour": "pink", "smoker": True, "level": 2},
     r"feature 'colour': value 'pink' is not one of its categories \['blue', 'green', 'red'\]"),
    ("tree", lambda df: {"dose": 0.1, "colour": "red", "smoker": True, "level": 9},
     r"feature 'level': value 9 is outside its domain \[0, 1, 2, 3\]"),
    ("tree", lambda df: {"dose": 0.1, "colour": 5, "smoker": True, "level": 1},
     r"feature 'colour': value 5 is outside its domain \[0, 1, 2\]"),
    ("tree", lambda df: {"dose": float("nan"), "colour": "red", "smoker": True, "level": 1},
     r"feature 'dose' is missing \(NaN\)"),
    ("xgboost", lambda df: {"dose": np.nan, "colour": "red", "smoker": True, "level": 1},
     r"feature 'dose' is missing \(NaN\)"),
    ("xgboost", lambda df: {"dose": "high", "colour": "red", "smoker": True, "level": 1},
     r"feature 'dose': value 'high' is not a number"),
    ("nbc", lambda df: [0, 1, 7], r"feature 'level': value 7 is outside its domain \[0, 1, 2, 3\]"),
    ("nbc", lambda df: {"colour": "red", "smoker": None, "level": 1},
     r"feature 'smoker': value None is not a number"),
]


@pytest.mark.parametrize(("kind", "make", "message"), BAD, ids=[m for _, _, m in BAD])
def test_bad_instances_say_what_was_expected(models, kind, make, message):
    model, df = models[kind]
    with pytest.raises(ValueError, match=message):
        oracles.for_model(model, make(df), domains=df)


def test_bad_domains_and_names_say_what_was_expected(models, frame):
    df, y = frame
    tree, _ = models["tree"]
    with pytest.raises(ValueError, match=r"columns \['dose', 'colour'\] differ from the model's"):
        oracles.for_model(tree, df.iloc[0], domains=df[["dose", "colour"]])
    with pytest.raises(ValueError, match="domains has 2 entries, the model 4 features"):
        oracles.for_model(tree, encode(df).iloc[0], domains=[None, None])
    plain = DecisionTreeClassifier(max_depth=2).fit(encode(df).to_numpy(dtype=float), y)
    with pytest.raises(ValueError, match="by feature name needs feature names"):
        oracles.for_model(plain, {"dose": 0.1})


def test_docs_api_example_runs_and_prints_what_it_says(capsys):
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "api.md").read_text()
    section = text.split("## Your data: pandas in, feature names out")[1]
    block = re.findall(r"```python\n(.*?)```", section, re.S)[0]
    exec(compile(block, "docs/api.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    shown = re.findall(r"# (\[.*|\(\{.*)", block)
    assert out == [s.strip() for s in shown]
