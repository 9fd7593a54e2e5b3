"""scikit-learn Pipelines explained over their original columns: the rewritten model
predicts as ``pipe.predict`` on a grid of raw values (every category, an unknown one, and
numbers on both sides of every boundary and across the training range); AXps and CXps
name original columns and are sufficient/necessary and minimal by brute force over that
grid with ``pipe.predict`` itself; unsupported steps are refused naming them."""

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_selection import SelectKBest
from sklearn.impute import SimpleImputer
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import (
    FunctionTransformer,
    MaxAbsScaler,
    MinMaxScaler,
    OneHotEncoder,
    OrdinalEncoder,
    PolynomialFeatures,
    RobustScaler,
    StandardScaler,
)
from sklearn.tree import DecisionTreeClassifier

from fxai import explain, oracles, verify
from fxai.models.coded import OTHER
from fxai.models.pipeline import make

xgb = pytest.importorskip("xgboost")
# the grids hold an unknown category on purpose
pytestmark = pytest.mark.filterwarnings("ignore:Found unknown categories")

SCALERS = [None, StandardScaler, MinMaxScaler, RobustScaler, MaxAbsScaler]


def _data(seed: int, n: int = 120) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"colour": rng.choice(["red", "green", "blue"], n),
                       "size": np.round(rng.normal(10, 3, n), 1),
                       "shape": rng.choice(["square", "circle"], n),
                       "weight": rng.integers(0, 6, n).astype(float)})
    score = (df.colour == "red") * 2 + (df["size"] > 10) + (df.shape == "circle") \
        + rng.integers(0, 2, n)
    return df, np.asarray(score >= 2, dtype=int)


def _pipeline(seed: int, last: str, scaler, encoder: str, unknown: str):
    df, y = _data(seed)
    if encoder == "onehot":
        enc = OneHotEncoder(handle_unknown=unknown, sparse_output=False,
                            **({"min_frequency": 30} if unknown == "infrequent_if_exist"
                               else {}))
    else:
        enc = OrdinalEncoder(**({"handle_unknown": "use_encoded_value", "unknown_value": -1}
                                if unknown != "error" else {}))
    parts = [("cat", enc, ["colour", "shape"])]
    if scaler is not None:
        parts.append(("num", scaler(), ["size"]))
    model = {"rf": RandomForestClassifier(n_estimators=6, max_depth=3, random_state=seed),
             "dt": DecisionTreeClassifier(max_depth=4, random_state=seed),
             "xgb": xgb.XGBClassifier(n_estimators=5, max_depth=2, random_state=seed)}[last]
    pipe = Pipeline([("pre", ColumnTransformer(parts, remainder="passthrough")),
                     ("model", model)]).fit(df, y)
    return pipe, df


def _grid(encoded, df: pd.DataFrame) -> list[list]:
    """Raw values per column: categories (and an unknown one), numbers at every boundary,
    just below it, and across the training range."""
    out = []
    for c in encoded.columns:
        if c.kind == "category":
            out.append(list(c.values) + (["purple"] if c.other else []))
        elif c.kind == "unused":  # the pipeline drops it: any value
            out.append([df[c.name].iloc[0]])
        else:
            vals = set(np.unique(df[c.name]).tolist())
            vals |= {float(np.nextafter(b, -np.inf)) for b in c.bounds} | set(c.bounds)
            vals |= {float(df[c.name].min()) - 1, float(df[c.name].max()) + 1}
            out.append(sorted(vals))
    return out


def _predict(pipe, names, rows) -> np.ndarray:
    return pipe.predict(pd.DataFrame(rows, columns=names))


def _points(grid, x, fixed) -> list[list]:
    """Every grid point that agrees with the raw instance ``x`` on ``fixed``."""
    return [list(p) for p in itertools.product(*[[x[i]] if i in fixed else g
                                                   for i, g in enumerate(grid)])]


def _sufficient(pipe, names, grid, x, fixed, c) -> bool:
    return bool(np.all(_predict(pipe, names, _points(grid, x, fixed)) == c))


@pytest.mark.heavy
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), last=st.sampled_from(["rf", "dt", "xgb"]),
       scaler=st.sampled_from(SCALERS), encoder=st.sampled_from(["onehot", "ordinal"]),
       unknown=st.sampled_from(["error", "ignore", "infrequent_if_exist"]))
def test_explanations_are_exact_over_the_original_columns(seed, last, scaler, encoder,
                                                           unknown):
    pipe, df = _pipeline(seed, last, scaler, encoder, unknown)
    encoded = oracles.prepare(pipe)
    names = encoded.names
    grid = _grid(encoded, df)
    points = [list(p) for p in itertools.product(*grid)]
    want = _predict(pipe, names, points)
    step = max(1, len(points) // 40)
    for p, w in zip(points[::step], want[::step], strict=True):
        assert oracles.for_model(pipe, dict(zip(names, p, strict=True))).prediction == w, p
    for i in (0, 7):
        x = list(df.iloc[i])
        o = oracles.for_model(pipe, df.iloc[i])
        c = pipe.predict(df.iloc[[i]])[0]
        assert o.prediction == c
        axp, cxp = explain.find_axp(o), explain.find_cxp(o)
        assert set(explain.names(o, axp)) <= set(df.columns)
        assert _sufficient(pipe, names, grid, x, set(axp), c)
        for f in axp:
            assert not _sufficient(pipe, names, grid, x, set(axp) - {f}, c)
        rest = set(range(len(names))) - set(cxp)
        assert not _sufficient(pipe, names, grid, x, rest, c)
        for f in cxp:
            assert _sufficient(pipe, names, grid, x, rest | {f}, c)
        assert verify.check_all(pipe, df.iloc[i], [axp], [cxp]) == ([True], [True])


@pytest.mark.heavy
def test_the_rewritten_model_predicts_as_the_pipeline_on_every_grid_point():
    for last in ("rf", "dt", "xgb"):
        pipe, df = _pipeline(3, last, StandardScaler, "onehot", "ignore")
        encoded = oracles.prepare(pipe)
        grid = _grid(encoded, df)
        points = [list(p) for p in itertools.product(*grid)]
        want = _predict(pipe, encoded.names, points)
        got = [oracles.for_model(pipe, p).prediction for p in points[::7]]
        assert got == list(want[::7]), last


def test_an_instance_as_series_dict_or_frame_and_the_labels():
    pipe, df = _pipeline(1, "rf", StandardScaler, "onehot", "ignore")
    row = df.iloc[4]
    a = oracles.for_model(pipe, row)
    b = oracles.for_model(pipe, row.to_dict())
    c = oracles.for_model(pipe, df.iloc[[4]])
    assert a.instance == b.instance == c.instance
    assert explain.values(a) == [row["colour"], row["size"], row["shape"], row["weight"]]
    unknown = oracles.for_model(pipe, {**row.to_dict(), "colour": "purple"})
    assert explain.values(unknown)[0] == "purple"
    assert unknown.value_labels[0][-1] == "purple" and OTHER not in unknown.value_labels[0]
    xp = explain.describe(a, explain.find_axp(a))
    assert str(xp).startswith("IF ") and "cat__" not in str(xp)


def test_encoder_that_refuses_unknowns_refuses_them_and_bad_rows():
    pipe, df = _pipeline(2, "dt", None, "onehot", "error")
    with pytest.raises(ValueError, match="'colour': value 'purple' is not one of"):
        oracles.for_model(pipe, {**df.iloc[0].to_dict(), "colour": "purple"})
    with pytest.raises(ValueError, match="unknown \\['height'\\], missing \\['weight'\\]"):
        d = df.iloc[0].to_dict()
        d["height"] = d.pop("weight")
        oracles.for_model(pipe, d)
    with pytest.raises(ValueError, match="'size': value 'big' is not a number"):
        oracles.for_model(pipe, {**df.iloc[0].to_dict(), "size": "big"})
    with pytest.raises(TypeError, match="takes no keyword 'domains'"):
        oracles.for_model(pipe, df.iloc[0], domains=df)


@pytest.mark.parametrize("step, name", [
    (SimpleImputer(strategy="mean"), "num"), (FunctionTransformer(np.log1p), "num"),
    (PolynomialFeatures(2), "num")])
def test_unsupported_steps_are_refused_by_name(step, name):
    df, y = _data(0)
    pipe = Pipeline([("pre", ColumnTransformer([
        ("cat", OneHotEncoder(), ["colour", "shape"]), (name, step, ["size", "weight"])])),
        ("model", DecisionTreeClassifier(max_depth=3))]).fit(df, y)
    with pytest.raises(TypeError, match=f"pipeline step 'pre/{name}' \\({type(step).__name__}"):
        oracles.for_model(pipe, df.iloc[0])


def test_feature_selection_a_later_scaler_and_a_bare_transformer_and_model():
    df, y = _data(5)
    ct = ColumnTransformer([("cat", OneHotEncoder(sparse_output=False), ["colour", "shape"])],
                           remainder="passthrough")
    pipe = Pipeline([("pre", ct), ("scale", MinMaxScaler()), ("pick", SelectKBest(k=4)),
                     ("model", RandomForestClassifier(n_estimators=5, max_depth=3,
                                                      random_state=0))]).fit(df, y)
    for i in range(20):
        o = oracles.for_model(pipe, df.iloc[i])
        assert o.prediction == pipe.predict(df.iloc[[i]])[0]
    ct2 = ColumnTransformer([("cat", OneHotEncoder(sparse_output=False), ["colour", "shape"])],
                            remainder="passthrough").fit(df)
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(ct2.transform(df), y)
    o = oracles.for_model(make(ct2, tree), df.iloc[3])
    assert o.prediction == tree.predict(ct2.transform(df.iloc[[3]]))[0]
    pair = oracles.for_model((ct2, tree), df.iloc[3])  # a bare pair: the same
    assert pair.instance == o.instance and pair.prediction == o.prediction
    axp = explain.find_axp(pair)
    assert verify.check_all((ct2, tree), df.iloc[3], [axp], []) == ([True], [])


def test_sparse_one_hot_before_xgboost_is_refused():
    df, y = _data(0)
    pipe = Pipeline([("pre", ColumnTransformer([("cat", OneHotEncoder(), ["colour"])],
                                               remainder="drop", sparse_threshold=1.0)),
                     ("model", xgb.XGBClassifier(n_estimators=2, max_depth=2))]).fit(df, y)
    with pytest.raises(TypeError, match="sparse_output=False"):
        oracles.for_model(pipe, df.iloc[0])


@pytest.mark.heavy
@pytest.mark.parametrize("last", ["rf", "dt", "xgb"])
def test_the_checker_confirms_every_explanation_and_refuses_wrong_ones(last):
    pipe, df = _pipeline(4, last, RobustScaler, "onehot", "ignore")
    for i in (0, 1, 2):
        o = oracles.for_model(pipe, df.iloc[i])
        r = explain.all_xps(o)
        ok_a, ok_c = verify.check_all(pipe, df.iloc[i], r.axps, r.cxps)
        assert all(ok_a) and all(ok_c), (i, r.axps, r.cxps)
        bigger = [sorted(set(a) | {f}) for a in r.axps for f in range(4) if f not in a][:5]
        smaller = [a[1:] for a in r.axps if a][:5]
        bad_a, bad_c = verify.check_all(pipe, df.iloc[i].to_dict(), bigger + smaller, bigger)
        assert not any(bad_a) and not any(bad_c)


def test_a_hard_vote_forest_pipeline_is_explained_and_checked_under_that_vote():
    pipe, df = _pipeline(6, "rf", StandardScaler, "onehot", "error")
    for i in (0, 5):
        o = oracles.for_model(pipe, df.iloc[i], vote="hard")
        r = explain.all_xps(o)
        ok_a, ok_c = verify.check_all(pipe, df.iloc[i], r.axps, r.cxps, vote="hard")
        assert all(ok_a) and all(ok_c)


def _three_classes(seed: int):
    df, y = _data(seed)
    return df, y + (df["size"].to_numpy() > 12)


VARIANTS = {
    "drop first": lambda: ColumnTransformer(
        [("cat", OneHotEncoder(drop="first", sparse_output=False), ["colour", "shape"])],
        remainder="passthrough"),
    "drop if binary, unknown ignored": lambda: ColumnTransformer(
        [("cat", OneHotEncoder(drop="if_binary", handle_unknown="ignore",
                               sparse_output=False), ["colour", "shape"])],
        remainder="passthrough"),
    "encoder then scaler": lambda: ColumnTransformer(
        [("cat", Pipeline([("oh", OneHotEncoder(sparse_output=False)),
                           ("scale", StandardScaler())]), ["colour", "shape"]),
         ("num", MinMaxScaler(), ["size", "weight"])]),
    "a column dropped": lambda: ColumnTransformer(
        [("cat", OrdinalEncoder(), ["colour"]), ("num", "passthrough", ["size"])],
        remainder="drop"),
}


@pytest.mark.heavy
@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("last", ["extra trees", "xgb 3 classes"])
def test_more_encoders_and_models_agree_with_the_pipeline_and_the_checker(variant, last):
    from sklearn.ensemble import ExtraTreesClassifier

    df, y = _three_classes(7)
    model = (ExtraTreesClassifier(n_estimators=6, max_depth=4, random_state=0)
             if last == "extra trees" else
             xgb.XGBClassifier(n_estimators=4, max_depth=3, random_state=0))
    pipe = Pipeline([("pre", VARIANTS[variant]()), ("model", model)]).fit(df, y)
    encoded = oracles.prepare(pipe)
    grid = _grid(encoded, df)
    points = [list(p) for p in itertools.product(*grid)]
    step = max(1, len(points) // 60)
    want = _predict(pipe, encoded.names, points[::step])
    assert [oracles.for_model(pipe, p).prediction for p in points[::step]] == list(want)
    for i in (0, 3):
        o = oracles.for_model(pipe, df.iloc[i])
        r = explain.all_xps(o)
        assert verify.check_all(pipe, df.iloc[i], r.axps, r.cxps) == (
            [True] * len(r.axps), [True] * len(r.cxps))
        x, c = list(df.iloc[i]), pipe.predict(df.iloc[[i]])[0]
        for a in r.axps:
            assert _sufficient(pipe, encoded.names, grid, x, set(a), c)
    if variant == "a column dropped":
        assert [c.kind for c in encoded.columns] == ["category", "number", "unused", "unused"]


def test_an_encoder_as_the_first_step_of_a_text_only_table():
    df, y = _data(8)
    text = df[["colour", "shape"]]
    pipe = Pipeline([("oh", OneHotEncoder()), ("tree", DecisionTreeClassifier(max_depth=3))])
    pipe.fit(text, y)
    for i in range(10):
        o = oracles.for_model(pipe, text.iloc[i])
        assert o.prediction == pipe.predict(text.iloc[[i]])[0]
        assert set(explain.names(o, explain.find_axp(o))) <= {"colour", "shape"}


def _nb_data(seed: int):
    rng = np.random.default_rng(seed)
    n = 200
    df = pd.DataFrame({"colour": rng.choice(["red", "green", "blue"], n),
                       "stars": rng.integers(0, 4, n),
                       "shape": rng.choice(["square", "circle"], n),
                       "note": rng.random(n)})
    y = np.where((df.colour == "red") | (df.stars > 2) ^ (rng.random(n) < 0.15), "yes", "no")
    return df, y


@pytest.mark.parametrize("seed", range(4))
def test_naive_bayes_behind_ordinal_codes_is_exact_by_brute_force(seed):
    """Ordinal codes (columns reordered by the ColumnTransformer) and an integer column
    passed through reach a CategoricalNB; a dropped column is irrelevant. Every AXp and CXp
    is checked by brute force over every value combination with pipe.predict."""
    from sklearn.naive_bayes import CategoricalNB

    df, y = _nb_data(seed)
    pipe = Pipeline([("pre", ColumnTransformer([
        ("ord", OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1),
         ["shape", "colour"]), ("n", "passthrough", ["stars"])])),
        ("nb", CategoricalNB())]).fit(df, y)
    encoded = oracles.prepare(pipe)
    assert [c.kind for c in encoded.columns] == ["category"] * 3 + ["unused"]
    grid = [list(c.values) for c in encoded.columns[:3]] + [[0.5]]
    names = encoded.names
    for i in range(6):
        o = oracles.for_model(pipe, df.iloc[i])
        c = pipe.predict(df.iloc[[i]])[0]
        assert pipe.classes_[o.prediction] == c
        x = list(df.iloc[i])
        r = explain.all_xps(o)
        assert verify.check_all(pipe, df.iloc[i], r.axps, r.cxps) == (
            [True] * len(r.axps), [True] * len(r.cxps))
        for a in r.axps:
            assert _sufficient(pipe, names, grid, x, set(a), c)
            assert not any(_sufficient(pipe, names, grid, x, set(a) - {f}, c) for f in a)
        for cx in r.cxps:
            assert not _sufficient(pipe, names, grid, x, set(range(4)) - set(cx), c)


@pytest.mark.parametrize("pre, words", [
    (lambda: ColumnTransformer([("oh", OneHotEncoder(), ["colour"])]), "reaches 3 inputs"),
    (lambda: ColumnTransformer([("s", StandardScaler(), ["stars"])]), "changed on the way"),
])
def test_naive_bayes_behind_codes_that_do_not_fit_is_refused(pre, words):
    from sklearn.naive_bayes import CategoricalNB

    df, y = _nb_data(0)
    pipe = Pipeline([("pre", pre()), ("nb", CategoricalNB(min_categories=4))])
    if "changed" in words:
        pipe.steps[-1] = ("nb", CategoricalNB())
        pipe[:-1].fit(df, y)
        pipe.steps[-1][1].fit(np.zeros((4, 1), dtype=int) + np.arange(4)[:, None], [0, 1, 0, 1])
    else:
        pipe.fit(df, y)
    with pytest.raises(TypeError, match=words):
        oracles.for_model(pipe, df.iloc[0])


@pytest.mark.heavy
@pytest.mark.parametrize("variant", ["onehot ignore", "onehot error", "infrequent", "ordinal",
                                     "drop first", "encoder then scaler"])
@pytest.mark.parametrize("last", ["rf soft", "rf hard", "xgb 3 classes"])
def test_the_joint_check_of_encoded_columns_is_the_enumeration_s(variant, last):
    """One question per set (a forest's or XGBoost's checker with the encoded columns as
    groups of joint values) decides as enumerating the free columns' categories, and as
    brute force over the grid with the pipeline's predict."""
    from fxai.verify import joint_weak_axp_fn, weak_axp_fn
    from fxai.verify.pipeline import PipelineChecker

    df, y = _three_classes(3) if last.startswith("xgb") else _data(3)
    pre = (VARIANTS[variant]() if variant in VARIANTS else ColumnTransformer(
        [("cat", {"onehot ignore": OneHotEncoder(handle_unknown="ignore", sparse_output=False),
                  "onehot error": OneHotEncoder(sparse_output=False),
                  "infrequent": OneHotEncoder(handle_unknown="infrequent_if_exist",
                                              min_frequency=30, sparse_output=False),
                  "ordinal": OrdinalEncoder(handle_unknown="use_encoded_value",
                                            unknown_value=-1)}[variant],
          ["colour", "shape"]), ("num", StandardScaler(), ["size"])],
        remainder="passthrough"))
    model = (xgb.XGBClassifier(n_estimators=4, max_depth=3, random_state=0)
             if last.startswith("xgb") else
             RandomForestClassifier(n_estimators=8, max_depth=4, random_state=3))
    pipe = Pipeline([("pre", pre), ("model", model)]).fit(df, y)
    vote = "hard" if last == "rf hard" else None
    encoded = oracles.prepare(pipe)
    grid = _grid(encoded, df)
    sets = [set(s) for r in range(5) for s in itertools.combinations(range(4), r)]
    for i in (0, 1, 2):
        x = df.iloc[i]
        joint = PipelineChecker(pipe, x, weak_axp_fn, vote, None, joint_weak_axp_fn)
        assert joint._joint is not None
        alone = PipelineChecker(pipe, x, weak_axp_fn, vote)
        got = joint.weak_axps(sets)
        assert got == alone.weak_axps(sets)
        if vote is None:
            c = pipe.predict(df.iloc[[i]])[0]
            assert got == [_sufficient(pipe, encoded.names, grid, list(x), s, c) for s in sets]
