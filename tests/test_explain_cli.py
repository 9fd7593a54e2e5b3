"""``fxai explain``: a user's model file and CSV of instances -> named, verified explanations,
FFA and bar charts; bad input exits non-zero naming the file and row, writing nothing."""

from __future__ import annotations

import json

import joblib
import numpy as np
import pandas as pd
import pytest
import xgboost as xgb
from sklearn.tree import DecisionTreeClassifier

from fxai.cli import main
from fxai.oracles.instance import encode

pytestmark = pytest.mark.filterwarnings("ignore:X does not have valid feature names")


@pytest.fixture(scope="module")
def user(tmp_path_factory):
    d = tmp_path_factory.mktemp("user")
    rng = np.random.default_rng(5)
    n = 200
    df = pd.DataFrame({"dose": rng.normal(size=n).round(2),
                       "colour": rng.choice(["blue", "green", "red"], size=n),
                       "level": rng.integers(0, 4, size=n)})
    df["sick"] = (((df.dose > 0) & (df.colour != "blue")) | (df.level == 3)).astype(int)
    df.to_csv(d / "train.csv", index=False)
    df.drop(columns="sick").head(4).to_csv(d / "rows.csv", index=False)
    X = encode(df.drop(columns="sick").astype({"colour": "category"}))
    joblib.dump(DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, df.sick),
                d / "tree.joblib")
    xgb.XGBClassifier(n_estimators=5, max_depth=2).fit(X, df.sick).save_model(d / "bt.json")
    return d


@pytest.mark.parametrize("model", ["tree.joblib", "bt.json"])
def test_explains_names_verifies_and_draws(user, model, capsys):
    out, figs = user / f"{model}.out.json", user / f"figs_{model}"
    assert main(["explain", "--model", str(user / model), "--instances", str(user / "rows.csv"),
                 "--domains", str(user / "train.csv"), "--target", "sick", "--out", str(out),
                 "--figures", str(figs)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert len(rows) == 4 and all(r["verified"] and r["complete"] for r in rows)
    names = {"dose", "colour", "level"}
    for r in rows:
        assert r["axps"] and all(set(a) <= names for a in r["axps"] + r["cxps"])
        assert set(r["ffa"]) <= names and r["instance"].keys() == names
        csv_row = pd.read_csv(user / "rows.csv").iloc[r["row"] - 1]
        assert r["instance"] == csv_row.to_dict()  # the values as in the CSV (colour's text)
        assert (figs / f"row_{r['row']}.png").stat().st_size > 1000
    assert "4 rows explained: 4 verified, 4 complete" in capsys.readouterr().out


def test_the_check_is_bounded_and_timed_with_the_explanation(user, capsys, monkeypatch):
    """The checker gets the time limit too (here it runs out at once: verified is null and
    the summary says so), and time_s covers explaining and checking."""
    from fxai import verify

    real = verify.check_all

    def slow(*args, **kw):  # a checker that has already used up its time
        kw["time_limit"] = 1e-9
        return real(*args, **kw)

    monkeypatch.setattr(verify, "check_all", slow)
    out = user / "bounded.json"
    assert main(["explain", "--model", str(user / "bt.json"), "--instances",
                 str(user / "rows.csv"), "--domains", str(user / "train.csv"), "--target",
                 "sick", "--out", str(out), "--time-limit", "5"]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert all(r["verified"] is None for r in rows)
    assert all(r["time_s"] >= r["explain_s"] + r["check_s"] - 1e-9 for r in rows)
    assert "0 verified, 4 complete, 4 not checked (time limit)" in \
        capsys.readouterr().out


def test_forests_take_either_vote_and_only_forests_take_a_vote(user, tmp_path, fxai_cli):
    import joblib
    from sklearn.ensemble import RandomForestClassifier

    train = pd.read_csv(user / "train.csv")
    X = encode(train.drop(columns="sick").astype({"colour": "category"}))
    joblib.dump(RandomForestClassifier(n_estimators=4, max_depth=3, random_state=0).fit(
        X, train.sick), tmp_path / "rf.joblib")
    for vote in ("soft", "hard"):
        out = tmp_path / f"{vote}.json"
        assert main(["explain", "--model", str(tmp_path / "rf.joblib"), "--instances",
                     str(user / "rows.csv"), "--domains", str(user / "train.csv"), "--target",
                     "sick", "--out", str(out), "--vote", vote]) == 0
        assert all(r["verified"] for r in json.loads(out.read_text())["rows"])
    code, err = fxai_cli("explain", "--model", user / "tree.joblib", "--instances",
                         user / "rows.csv", "--out", tmp_path / "x.json", "--vote", "hard")
    assert code == 1 and "--vote does not apply to a DecisionTreeClassifier" in err


def test_a_repeated_column_name_is_refused_naming_it(user, tmp_path, fxai_cli):
    """pandas renames a repeated header column (`dose.1`) without a word: refused instead,
    for the instances and in a user dataset."""
    from fxai.data.user import read_table
    from fxai.errors import DataError

    rows = tmp_path / "rows.csv"
    rows.write_text("dose,colour,dose\n0.5,red,1\n")
    code, err = fxai_cli("explain", "--model", user / "tree.joblib", "--instances", rows,
                         "--out", tmp_path / "out.json")
    assert code == 1 and f"{rows} repeats the column name(s) ['dose'] in its header" in err
    assert "Traceback" not in err and not (tmp_path / "out.json").exists()
    with pytest.raises(DataError, match=r"my data: .* repeats the column name\(s\) \['dose'\]"):
        read_table(rows, "my data")


@pytest.mark.parametrize(("row", "message"), [
    ("dose,colour,level\n0.5,pink,1\n", "row 1: feature 'colour': value 'pink' is not one"),
    ("dose,colour,level\n0.5,red,9\n", "row 1: feature 'level': value 9 is outside its domain"),
    ("dose,colour,level\n,red,1\n", r"row 1: feature 'dose' is missing \(NaN\)"),
    ("dose,colour\n0.5,red\n", r"row 1: instance feature names do not match"),
    ("dose,colour,level\n0.5,red,1\n0.7,red,1\nabc,red,1\n",
     r"row 3, column 'dose': 'abc' is not a number, as 2 of the column's 3 values are"),
])
def test_bad_rows_exit_nonzero_naming_file_and_row(user, fxai_cli, row, message):
    import re

    (user / "bad.csv").write_text(row)
    out = user / "bad.out.json"
    code, err = fxai_cli("explain", "--model", user / "tree.joblib", "--instances",
                         user / "bad.csv", "--domains", user / "train.csv", "--target", "sick",
                         "--out", out)
    assert code == 1 and "Traceback" not in err and re.search(message, err), err
    assert str(user / "bad.csv") in err and not out.exists()


def test_missing_files_are_named(user, fxai_cli):
    code, err = fxai_cli("explain", "--model", user / "tree.joblib", "--instances",
                         user / "absent.csv", "--out", user / "x.json")
    assert code == 1 and "Traceback" not in err and "absent.csv" in err


def test_a_pipeline_on_the_raw_csv_is_explained_by_its_columns(user, capsys):
    """A joblib Pipeline (one-hot + scaler + forest) fitted on the raw table: the rows as in
    the CSV, explanations by column (never a one-hot column), every one checked; --domains
    does not apply to it."""
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    df = pd.read_csv(user / "train.csv")
    labels = np.where(df.sick == 1, "sick", "well")
    pipe = Pipeline([("pre", ColumnTransformer([
        ("cat", OneHotEncoder(handle_unknown="ignore", sparse_output=False), ["colour"]),
        ("num", StandardScaler(), ["dose"])], remainder="passthrough")),
        ("rf", RandomForestClassifier(n_estimators=10, max_depth=4, random_state=0))])
    joblib.dump(pipe.fit(df.drop(columns="sick"), labels), user / "pipe.joblib")
    out = user / "pipe.out.json"
    assert main(["explain", "--model", str(user / "pipe.joblib"), "--instances",
                 str(user / "rows.csv"), "--out", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    csv = pd.read_csv(user / "rows.csv")
    for r in rows:
        assert r["verified"] and r["complete"]
        assert r["instance"] == csv.iloc[r["row"] - 1].to_dict()
        assert r["prediction"] in ("sick", "well")
        assert all(set(a) <= {"dose", "colour", "level"} for a in r["axps"] + r["cxps"])
    assert "4 rows explained: 4 verified, 4 complete" in capsys.readouterr().out
    assert main(["explain", "--model", str(user / "pipe.joblib"), "--instances",
                 str(user / "rows.csv"), "--domains", str(user / "train.csv"), "--target",
                 "sick", "--out", str(out)]) == 1
    assert "--domains does not apply to a Pipeline" in capsys.readouterr().err


def test_a_pipeline_with_an_unsupported_step_exits_2_naming_it(user, capsys):
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import FunctionTransformer, OneHotEncoder

    df = pd.read_csv(user / "train.csv")
    pipe = Pipeline([("pre", ColumnTransformer([
        ("cat", OneHotEncoder(), ["colour"]), ("log", FunctionTransformer(np.abs), ["dose"])])),
        ("tree", DecisionTreeClassifier(max_depth=3))])
    joblib.dump(pipe.fit(df.drop(columns="sick"), df.sick), user / "bad.joblib")
    out = user / "bad.out.json"
    assert main(["explain", "--model", str(user / "bad.joblib"), "--instances",
                 str(user / "rows.csv"), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "pipeline step 'pre/log' (FunctionTransformer) is not supported" in err
    assert not out.exists()


def test_a_hist_gradient_model_with_empty_cells_is_explained_with_missing(user, capsys):
    """An empty cell is refused by default and a value of its own with --missing; every
    explanation is checked (brute force with the model's predict)."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    df = pd.read_csv(user / "train.csv")
    X = df[["dose", "level"]].copy()
    X.loc[::7, "dose"] = np.nan
    hgb = HistGradientBoostingClassifier(max_iter=5, max_depth=3, random_state=0)
    joblib.dump(hgb.fit(X, df.sick), user / "hgb.joblib")
    X.head(4).assign(dose=[np.nan, 0.5, -0.2, 1.0]).to_csv(user / "gaps.csv", index=False)
    out = user / "hgb.out.json"
    args = ["explain", "--model", str(user / "hgb.joblib"), "--instances",
            str(user / "gaps.csv"), "--out", str(out)]
    assert main(args) == 1
    assert "row 1: feature 'dose' is missing (NaN): pass missing=True" in capsys.readouterr().err
    assert main([*args, "--missing"]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert all(r["verified"] and r["complete"] for r in rows)
    assert np.isnan(rows[0]["instance"]["dose"]) and rows[1]["instance"]["dose"] == 0.5


def test_a_gradient_boosting_model_is_explained_and_checked(user):
    """A GradientBoostingClassifier saved with joblib: every row explained completely and
    every explanation checked (issue 66: it was refused)."""
    from sklearn.ensemble import GradientBoostingClassifier

    df = pd.read_csv(user / "train.csv")
    X = df[["dose", "level"]]
    gbc = GradientBoostingClassifier(n_estimators=5, max_depth=2, random_state=0)
    joblib.dump(gbc.fit(X, df.sick), user / "gbc.joblib")
    X.head(3).to_csv(user / "rows3.csv", index=False)
    out = user / "gbc.out.json"
    assert main(["explain", "--model", str(user / "gbc.joblib"), "--instances",
                 str(user / "rows3.csv"), "--out", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert len(rows) == 3 and all(r["verified"] and r["complete"] for r in rows)
    assert [r["prediction"] for r in rows] == gbc.predict(X.head(3)).tolist()
