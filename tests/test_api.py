"""The library surface: model recognition, one conversion per model, errors, clocks, counters."""

from __future__ import annotations

import gc

import numpy as np
import pytest
import xgboost as xgb
from sklearn.ensemble import AdaBoostClassifier, RandomForestClassifier
from sklearn.exceptions import NotFittedError
from sklearn.naive_bayes import CategoricalNB
from sklearn.tree import DecisionTreeClassifier

from fxai import clocks, explain, oracles, verify
from fxai.models import convert


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(300, 5))
    y = ((X[:, 0] + X[:, 1] > 2) ^ (X[:, 4] == 0)).astype(int)
    return X, y


def test_subclass_of_a_supported_model_is_recognised(data):
    X, y = data

    class MyTree(DecisionTreeClassifier):
        pass

    clf = MyTree(max_depth=3, random_state=0).fit(X, y)
    o = oracles.for_model(clf, X[0], domains=[[0, 1, 2]] * 5)
    assert o.prediction == clf.predict(X[:1])[0]
    assert explain.all_xps(o).method == "duality"


@pytest.mark.parametrize("model", [DecisionTreeClassifier(), CategoricalNB(),
                                   xgb.XGBClassifier()], ids=lambda m: type(m).__name__)
def test_unfitted_models_say_so(model):
    with pytest.raises(NotFittedError, match=f"This {type(model).__name__} instance is not "
                       "fitted"):
        oracles.for_model(model, [0] * 5)


def test_unsupported_models_name_their_type_and_the_supported_ones(data):
    X, y = data
    ada = AdaBoostClassifier(n_estimators=2, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="AdaBoostClassifier; supported: fitted scikit"):
        oracles.for_model(ada, X[0])


def test_a_gradient_boosting_model_of_another_init_is_refused_naming_it(data):
    from sklearn.ensemble import GradientBoostingClassifier

    X, y = data
    gbc = GradientBoostingClassifier(n_estimators=2, init=DecisionTreeClassifier(max_depth=1),
                                     random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="init=DecisionTreeClassifier.*the default init"):
        oracles.for_model(gbc, X[0])


def test_boosted_models_are_converted_once(data):
    X, y = data
    clf = xgb.XGBClassifier(n_estimators=5, max_depth=2, random_state=0).fit(X, y)
    booster = clf.get_booster()
    o1 = oracles.for_model(clf, X[0])
    o2 = oracles.for_model(booster, X[1])
    assert o1.ensemble is o2.ensemble  # one conversion for the classifier and its booster
    assert oracles.for_model(o1.ensemble, X[2]).ensemble is o1.ensemble
    fresh = oracles.prepare(clf)
    assert fresh is not o1.ensemble and np.array_equal(fresh.margin(X), o1.ensemble.margin(X))
    booster.update(xgb.DMatrix(X, label=y), iteration=5)  # a sixth round, in place
    o3 = oracles.for_model(booster, X[0])
    assert o3.ensemble is not o1.ensemble and len(o3.ensemble.trees) == 6
    assert np.array_equal(o3.ensemble.margin(X).astype(np.float32),
                          booster.predict(xgb.DMatrix(X), output_margin=True))
    clf.fit(X, 1 - y)  # a refit makes a new booster: converted again
    o4 = oracles.for_model(clf, X[0])
    assert o4.ensemble is not o3.ensemble and o4.prediction == clf.predict(X[:1])[0]


def test_trees_are_converted_once_per_fit_and_domains(data):
    X, y = data
    clf = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    doms = [[0, 1, 2]] * 5
    g = oracles.for_model(clf, X[0], domains=doms).graph
    assert oracles.for_model(clf, X[1], domains=[list(d) for d in doms]).graph is g
    assert oracles.for_model(clf, X[1]).graph is not g  # other domains: real-valued
    clf.fit(X, 1 - y)
    o = oracles.for_model(clf, X[0], domains=doms)
    assert o.graph is not g and o.prediction == clf.predict(X[:1])[0]


def test_forests_are_converted_again_after_every_refit(data):
    """The conversion of a forest is kept for its trees: a refit (whose new trees may take
    the freed ids of the old ones) converts again, and the hard vote explains the new one."""
    X, y = data
    clf = RandomForestClassifier(n_estimators=3, max_depth=2, random_state=0)
    for labels in (y, 1 - y, y, 1 - y):
        clf.fit(X, labels)
        o = oracles.for_model(clf, X[0], vote="hard")
        votes = [int(t.predict(X[:1])[0]) for t in clf.estimators_]
        assert o.prediction == clf.classes_[int(np.argmax(np.bincount(votes, minlength=2)))]
        assert [o.counterexample([]) is None] == verify.check_all(
            clf, X[0], [[]], [], vote="hard")[0]


def test_cache_entries_go_with_their_model(data):
    X, y = data
    clf = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    oracles.for_model(clf, X[0])
    key = id(clf)
    assert key in convert._CACHE
    del clf
    gc.collect()
    assert key not in convert._CACHE


def test_each_enumeration_counts_its_own_oracle_calls(data):
    X, y = data
    clf = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    o = oracles.for_model(clf, X[0], domains=[[0, 1, 2]] * 5)
    runs = []
    for target in ("axp", "cxp", "axp"):
        m = explain.enumerate_xps(o, target=target, clock="cpu")
        before = o.calls
        events = list(m)
        assert m.complete and events and all(e.t >= 0 for e in events)
        assert m.oracle_calls == o.calls - before > 0
        runs.append(m.oracle_calls)
    assert runs[0] == runs[2] and o.calls == sum(runs)
    m = explain.enumerate_xps(o)
    for _ in m:
        break  # stopped early: the count stops with it
    n = m.oracle_calls
    list(explain.enumerate_xps(o))
    assert m.oracle_calls == n


def _drained(m):
    list(m)
    return m


@pytest.mark.parametrize("run", [
    lambda o, **kw: explain.all_xps(o, time_limit=1, **kw).complete,
    lambda o, **kw: explain.ffa(o, time_limit=1, **kw)[1],
    lambda o, **kw: _drained(explain.enumerate_xps(o, time_limit=1, **kw)).complete,
], ids=["all_xps", "ffa", "enumerate_xps"])
def test_time_limits_are_cpu_seconds_unless_wall_is_asked(data, monkeypatch, run):
    X, y = data
    o = oracles.for_model(CategoricalNB().fit(X, y), X[0])  # MARCO, not duality
    ticks = iter(range(0, 10**6, 100))  # a CPU clock that jumps 100 s per reading
    monkeypatch.setitem(clocks.CLOCKS, "cpu", lambda: next(ticks))
    monkeypatch.setitem(clocks.CLOCKS, "wall", lambda: 0.0)  # a wall clock that stands still
    assert not run(o)  # the default clock (cpu) hit the 1 s limit at once
    assert run(o, clock="wall")  # the wall clock did not, however busy the machine


def test_clock_names_are_checked(data):
    X, y = data
    o = oracles.for_model(DecisionTreeClassifier(max_depth=2).fit(X, y), X[0])
    with pytest.raises(ValueError, match="clock must be one of"):
        explain.enumerate_xps(o, clock="cpu_time")
    with pytest.raises(ValueError, match="clock must be one of"):
        explain.all_xps(o, clock="process")


def test_explain_does_not_export_a_shadowing_enumerate():
    ns: dict = {}
    exec("from fxai.explain import *", ns)
    assert "enumerate" not in ns and "enumerate_xps" in ns
    assert explain.enumerate is explain.enumerate_xps


def test_warm_up_loads_the_boosted_search():
    assert oracles.warm_up() >= 0.0


def test_docs_quick_start_runs_and_prints_what_it_says(capsys):
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "api.md").read_text()
    block = re.findall(r"```python\n(.*?)```", text, re.S)[0]
    exec(compile(block, "docs/api.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out[:5] == ["[6, 11, 12] [12]",
                       "IF flavanoids = 2.69 AND od280/od315_of_diluted_wines = 2.93 AND "
                       "proline = 735.0 THEN class 1",
                       "([True], [])",
                       "[(6, 10, 12), (6, 11, 12)] [(6,), (10, 11), (12,)] duality",
                       "({6: 1.0, 10: 0.5, 11: 0.5, 12: 1.0}, True)"]
    assert {line.split()[1] for line in out[5:]} == {"axp", "cxp"}
    for line in out[:5]:  # the comments in the block show the same output
        assert line.split(" duality")[0].split(" AND")[0] in block


def test_for_model_refuses_unknown_keywords_naming_the_nearest(data):
    X, y = data
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    forest = RandomForestClassifier(n_estimators=3, max_depth=2, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="takes no keyword 'foo'"):
        oracles.for_model(tree, X[0], foo=1)
    with pytest.raises(TypeError, match="did you mean 'domains' for 'domain'"):
        oracles.for_model(forest, X[0], domain=[[0, 1, 2]] * 5)
    with pytest.raises(TypeError, match="takes no keyword 'ties'"):
        oracles.for_model(CategoricalNB().fit(X, y), X[0], ties="keep")


def test_unsupported_model_is_named_before_the_row_is_read(data):
    ada = AdaBoostClassifier(n_estimators=2).fit(*data)
    with pytest.raises(TypeError, match="no oracle for a model of type AdaBoost"):
        oracles.for_model(ada, {"region": "west"})


@pytest.mark.parametrize("bad", [np.inf, -np.inf])
def test_infinite_values_are_refused_as_the_models_predict_does(data, bad):
    X, y = data
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X.astype(float), y)
    row = X[0].astype(float)
    row[2] = bad
    with pytest.raises(ValueError):
        tree.predict([row])
    with pytest.raises(ValueError, match="feature 2: value -?inf is not finite"):
        oracles.for_model(tree, row)


def test_seeds_are_checked(data):
    """A seed that is not a weak AXp (one question), or holds no feature index, is refused;
    a weak AXp seed still gives an AXp inside it."""
    X, y = data
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    o = oracles.for_model(tree, X[0], domains=[[0, 1, 2]] * 5)
    axp = explain.find_axp(o)
    with pytest.raises(ValueError, match="is not a weak AXp"):
        explain.find_axp(o, seed=[f for f in range(5) if f not in axp][:1])
    for bad in ([100], [-1], ["a"]):
        with pytest.raises(ValueError, match="not feature indices 0..4"):
            explain.find_axp(o, seed=bad)
        with pytest.raises(ValueError, match="not feature indices 0..4"):
            explain.find_cxp(o, seed=bad)
    assert explain.find_axp(o, seed=range(5)) == axp


def test_oracles_have_a_readable_repr(data):
    X, y = data
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    o = oracles.for_model(tree, X[0], domains=[[0, 1, 2]] * 5)
    assert repr(o) == (f"<XpGOracle: prediction {o.prediction!r} at "
                       f"[{', '.join(map(repr, o.instance))}] (5 features)>")


def test_check_all_takes_what_for_model_takes_and_a_time_limit():
    """A dict row with a text category and a domains frame (for_model's input) is checked
    as the oracle explains it; a time limit stops between batches, naming the count."""
    import pandas as pd

    from fxai.oracles.instance import encode

    df = pd.DataFrame({"colour": pd.Categorical(["red", "blue", "red", "green"] * 5),
                       "n": list(range(20))})
    clf = DecisionTreeClassifier(random_state=0).fit(encode(df), [0, 1, 0, 1] * 5)
    row = {"n": 3, "colour": "blue"}
    o = oracles.for_model(clf, row, domains=df)
    axp, cxp = explain.find_axp(o), explain.find_cxp(o)
    assert verify.check_all(clf, row, [axp], [cxp], domains=df) == ([True], [True])
    assert verify.check_all(clf, pd.Series(row), [[0, 1]], [], domains=df)[0] == [
        axp == [0, 1]]
    with pytest.raises(oracles.TimeLimitExceeded, match="after 0 of 3 explanations") as e:
        verify.check_all(clf, row, [axp] * 3, [], domains=df, batch=1, time_limit=1e-9)
    assert e.value.partial == 0
    with pytest.raises(ValueError, match="positive finite"):
        verify.check_all(clf, row, [axp], [], domains=df, time_limit=-1)


def test_describe_states_an_explanation_in_the_users_terms():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    clf = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    o = oracles.for_model(clf, X.iloc[0])
    d = explain.describe(o, explain.find_axp(o))
    assert d.names == tuple(explain.names(o, list(d.features)))
    assert d.values == tuple(X.iloc[0, list(d.features)])
    assert str(d).startswith("IF ") and str(d).endswith(f"THEN class {o.prediction!r}")
    assert " AND ".join(f"{n} = {v!r}" for n, v in zip(d.names, d.values, strict=True)) in str(d)
    with pytest.raises(ValueError, match="kind must be"):
        explain.describe(o, [0], kind="why")


def test_describe_never_states_a_rule_the_model_does_not_follow():
    """Issue 66: a CXp described as an AXp (the default kind) printed a false rule. Each
    set is now asked of the oracle for what kind and minimal claim."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    clf = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    o = oracles.for_model(clf, X.iloc[0])
    axp, cxp = explain.find_axp(o), explain.find_cxp(o)
    assert not o.entails(cxp)  # the set of the report: fixing it does not decide the class
    with pytest.raises(ValueError, match="does not keep class .*: not an AXp"):
        explain.describe(o, cxp)
    with pytest.raises(ValueError, match="cannot change class .*: not a CXp"):
        explain.describe(o, [], kind="cxp")
    spare = sorted(set(axp) | {next(f for f in range(o.n_features) if f not in axp)})
    with pytest.raises(ValueError, match="weak AXP, not minimal: without '.*' it still keeps"):
        explain.describe(o, spare)
    assert str(explain.describe(o, spare, minimal=False)).startswith("(weak AXP, not minimal")
    assert str(explain.describe(o, cxp, kind="cxp")).startswith(f"class {o.prediction!r} can")
    wider = sorted(set(cxp) | {next(f for f in range(o.n_features) if f not in cxp)})
    with pytest.raises(ValueError, match="weak CXP, not minimal: without '.*' it still can"):
        explain.describe(o, wider, kind="cxp")


def test_text_columns_are_encoded_and_explained_by_their_labels():
    """The documented route with a plain text column (not pd.Categorical): encode codes it,
    domains=frame ranges over its values, the instance may give the text."""
    import pandas as pd

    from fxai.oracles.instance import encode

    df = pd.DataFrame({"region": ["west", "east", "north", "west"] * 5,
                       "n": [1, 2, 3, 4] * 5})
    y = [1, 0, 0, 1] * 5
    model = DecisionTreeClassifier(random_state=0).fit(encode(df), y)
    assert encode(df)["region"].tolist()[:3] == [2, 0, 1]
    o = oracles.for_model(model, {"region": "west", "n": 1}, domains=df)
    axp = explain.find_axp(o)
    assert str(explain.describe(o, axp)) == "IF region = 'west' THEN class 1"
    with pytest.raises(ValueError, match="'south' is not one of its categories"):
        oracles.for_model(model, {"region": "south", "n": 1}, domains=df)


def test_explain_rows_gives_one_checked_explanation_per_row(data):
    """A DataFrame keeps its index and names; an array gets x0, x1, ...; a limit that runs
    out gives the weak AXp reached; every AXp is one by the independent checker."""
    import pandas as pd

    X, y = data
    frame = pd.DataFrame(X, columns=list("abcde"), index=[f"r{i}" for i in range(len(X))])
    forest = RandomForestClassifier(n_estimators=5, max_depth=3, random_state=0).fit(frame, y)
    got = explain.explain_rows(forest, frame.iloc[:4], time_limit=30)
    assert list(got.index) == ["r0", "r1", "r2", "r3"] and set(got.status) == {"ok"}
    for label, r in got.iterrows():
        assert verify.check_all(forest, frame.loc[label], [r.features], []) == ([True], [])
        assert r.names == [frame.columns[f] for f in r.features]
        assert r.explanation.endswith(f"THEN class {r.prediction!r}")
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    cut = explain.explain_rows(tree, X[:2], time_limit=1e-9)
    assert set(cut.status) == {"time limit"}
    for i, f in enumerate(cut.features):  # the weak AXp reached: every used feature
        o = oracles.for_model(tree, X[i])
        assert f == o.features and o.entails(f)
        assert cut.names.iloc[i] == [f"x{j}" for j in f]
    cx = explain.explain_rows(tree, X[:3], kind="cxp")
    assert set(cx.status) == {"ok"} and cx.explanation.str.contains("can change").all()


@pytest.mark.parametrize("objective", ["binary:logitraw", "binary:hinge"])
def test_unsupported_xgboost_objectives_say_what_is_supported(data, objective):
    X, y = data
    model = xgb.XGBClassifier(n_estimators=2, objective=objective).fit(X, y)
    with pytest.raises(ValueError, match=f"XGBoost objective '{objective}' is not supported: "
                       "fxai explains classifiers trained with binary:logistic"):
        oracles.for_model(model, X[0])


def test_categorical_xgboost_is_refused_for_what_it_is_before_the_row():
    import pandas as pd

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=60), "c": pd.Categorical(rng.choice(["u", "v"], 60))})
    model = xgb.XGBClassifier(n_estimators=2, enable_categorical=True, tree_method="hist").fit(
        df, (df.c == "u").astype(int))
    with pytest.raises(ValueError, match="XGBoost categorical splits"):
        oracles.for_model(model, {"a": 0.1, "c": "u"})  # a text value: not the first problem


def test_a_pipeline_with_a_text_column_is_read_and_its_unsupported_model_refused():
    """A Pipeline with a text column is explained over its columns; one ending in a model
    fxai does not explain is refused by that step's name (not by the row's text value)."""
    import pandas as pd
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    df = pd.DataFrame({"region": ["west", "east"] * 10, "n": range(20)})
    pipe = make_pipeline(ColumnTransformer([("oh", OneHotEncoder(), ["region"])],
                                           remainder="passthrough"),
                         DecisionTreeClassifier()).fit(df, [0, 1] * 10)
    o = oracles.for_model(pipe, {"region": "west", "n": 3})
    assert o.feature_names == ["region", "n"] and explain.values(o) == ["west", 3]
    pipe.steps[-1] = ("logisticregression", LogisticRegression().fit(
        pipe[:-1].transform(df), [0, 1] * 10))
    with pytest.raises(TypeError, match="step 'logisticregression' \\(LogisticRegression\\)"):
        oracles.for_model(pipe, {"region": "west", "n": 3})


def test_check_all_limits_the_compiled_boosted_checker_too(data):
    X, y = data
    model = xgb.XGBClassifier(n_estimators=5, max_depth=2).fit(X, y)
    axp = explain.find_axp(oracles.for_model(model, X[0]))
    assert verify.check_all(model, X[0], [axp], [], time_limit=60) == ([True], [])
    with pytest.raises(oracles.TimeLimitExceeded, match="check_all: time limit of 1e-09"):
        verify.check_all(model, X[0], [axp], [], time_limit=1e-9)


@pytest.mark.parametrize("cls", [DecisionTreeClassifier, RandomForestClassifier])
def test_string_classes_from_a_pandas_column_are_explained_and_checked(cls):
    """Class labels held as Python strings (a pandas object column): the prediction is the
    label, and the checker agrees (this crashed in the tree and forest converters)."""
    import pandas as pd

    X = pd.DataFrame({"a": [0, 1, 2, 3] * 5, "b": [1, 0, 1, 0] * 5})
    y = pd.Series(["no", "no", "yes", "yes"] * 5, dtype=object)
    model = cls(random_state=0).fit(X, y)
    o = oracles.for_model(model, X.iloc[2])
    assert o.prediction == "yes" == model.predict(X.iloc[[2]])[0]
    axp = explain.find_axp(o)
    assert str(explain.describe(o, axp)).endswith("THEN class 'yes'")
    assert verify.check_all(model, X.iloc[2], [axp], []) == ([True], [])


def public_api(package) -> dict[str, object]:
    """The functions and classes a package exports: its ``__all__``, else its public names
    defined in fxai."""
    import inspect

    names = getattr(package, "__all__", None) or [n for n in dir(package) if not n.startswith("_")]
    objs = {n: getattr(package, n) for n in names}
    return {n: o for n, o in objs.items() if (inspect.isfunction(o) or inspect.isclass(o))
            and o.__module__.startswith("fxai.")}


@pytest.mark.parametrize("package", ["oracles", "explain", "verify", "attribution"])
def test_the_public_api_documents_its_parameters(package):
    """numpy style (the docs' renderer): a Parameters, Attributes or Returns section."""
    import importlib
    import inspect

    api = public_api(importlib.import_module(f"fxai.{package}"))
    assert len(api) >= 2
    bare = sorted(n for n, o in api.items()
                  if not any(f"\n{s}\n---" in (inspect.getdoc(o) or "")
                             for s in ("Parameters", "Attributes", "Returns")))
    assert bare == []


def test_approx_paxp_on_a_model_that_does_not_count_says_what_to_do():
    """Issue 66: approx_paxp on a forest said "VoteOracle does not count"."""
    from sklearn.datasets import load_iris
    from sklearn.ensemble import RandomForestClassifier

    X, y = load_iris(return_X_y=True)
    model = RandomForestClassifier(5, max_depth=2, random_state=0).fit(X, y)
    o = oracles.for_model(model, X[0], vote="hard")
    with pytest.raises(NotImplementedError, match="needs an oracle that counts the points.*"
                                                  "explain it with find_axp or all_xps"):
        explain.approx_paxp(o, 0.9)
