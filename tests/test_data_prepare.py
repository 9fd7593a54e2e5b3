"""Prepare, prepared-table loading and split on tiny fixtures; the bad-data errors."""

import json

import numpy as np
import pandas as pd
import pytest
import yaml

from fxai.data import load, load_registry, load_split
from fxai.data.fetch import MIRROR_ENV, fetch
from fxai.data.prepare import build, prepare, source_of
from fxai.data.split import make_split, write_split
from fxai.errors import DataError

CSV = """colour,size,weight,label
red,1,2.5,yes
blue,2,?,no
red,3,1.0,yes
green,1,7.25,no
blue,2,3.0,yes
red,1,2.5,yes
"""


def make(tmp_path, text, name="toy", filename="toy.csv", **settings):
    """A one-entry registry whose file sits in a temp mirror; returns the registry."""
    (tmp_path / "m" / name).mkdir(parents=True, exist_ok=True)
    (tmp_path / "m" / name / filename).write_text(text)
    entry = {"title": name, "aliases": [], "papers": [], "format": "csv", "target": "label",
             "files": [{"name": filename, "mirror": f"{name}/{filename}", "sha256": None,
                        "urls": []}], **settings}
    (tmp_path / "config").mkdir(exist_ok=True)
    path = tmp_path / "config" / "datasets.yaml"
    path.write_text(yaml.safe_dump({"version": 1, "datasets": {name: entry}}))
    return load_registry(path)


def run(tmp_path, reg, name="toy"):
    fetch(name, reg.entry(name), tmp_path / "raw", mirror=tmp_path / "m")
    prepare(name, reg, tmp_path / "raw", tmp_path / "prep", source_order=("files",))
    return load(name, tmp_path / "prep")


@pytest.fixture(autouse=True)
def _no_env_mirror(monkeypatch):
    monkeypatch.delenv(MIRROR_ENV, raising=False)


def test_round_trip_types_missing_drop(tmp_path):
    reg = make(tmp_path, CSV, features={"default": "categorical", "numeric": ["weight"]})
    p = run(tmp_path, reg)
    assert p.feature_names == ["colour", "size", "weight"]
    assert p.X.shape == (5, 3) and p.X.dtype == float  # the '?' row is dropped
    assert [d["type"] for d in p.domains] == ["categorical", "categorical", "numeric"]
    assert p.domains[0]["labels"] == ["blue", "green", "red"]
    assert p.X[:, 0].tolist() == [2, 2, 1, 0, 2]
    assert p.X[:, 2].tolist() == [2.5, 1.0, 7.25, 3.0, 2.5]
    assert p.class_labels == ["no", "yes"] and p.y.tolist() == [1, 1, 0, 1, 1]
    raw = pd.read_csv(tmp_path / "prep" / "toy.csv")
    assert list(raw.columns) == ["colour", "size", "weight", "target"]
    doc = json.loads((tmp_path / "prep" / "toy.domains.json").read_text())
    assert doc["name"] == "toy" and doc["target"] == {"name": "target", "classes": [0, 1],
                                                       "labels": ["no", "yes"]}
    assert doc["source"] == "files"


def test_missing_policies_discretise_dedup(tmp_path, caplog):
    reg = make(tmp_path, CSV, features={"default": "categorical", "numeric": ["weight"]},
               missing={"values": ["?"], "policy": "most_frequent"},
               discretise={"method": "uniform", "bins": 2}, dedup=True)
    with caplog.at_level("INFO", logger="fxai.data.prepare"):
        p = run(tmp_path, reg)
    assert len(p.y) == 5  # 6 rows, the missing weight filled with the median 2.5, one duplicate
    assert "filled 1 missing values (missing.policy most_frequent): weight 1 of 6 with 2.5" \
        in caplog.text  # imputation is counted per column, never silent
    assert p.cleaning == {"rows": 6, "policy": "most_frequent", "dropped_no_target": 0,
                          "filled": {"weight": {"count": 1, "value": 2.5}},
                          "dropped_duplicates": 1}  # kept for run headers and tables
    from fxai.data.prepared import cleaning_note

    assert cleaning_note(p.cleaning) == (
        "dropped 1 of 6 rows duplicated (dedup); filled 1 missing values (most_frequent): "
        "weight 1 of 6 (16.7 %) with 2.5")
    w = p.domains[2]
    assert w["type"] == "discretised" and w["values"] == [0, 1]
    assert w["edges"] == [4.125] and p.X.dtype == np.int64
    reg = make(tmp_path, CSV.replace("blue,2,?", "?,2,1.0"),
               missing={"values": ["?"], "policy": "category"})
    p = run(tmp_path, reg)
    assert p.domains[0]["labels"] == ["?", "blue", "green", "red"] and len(p.y) == 6


def test_quantile_bins_and_class_filters(tmp_path):
    rng = np.random.default_rng(0)
    rows = "\n".join(f"{x:.3f},{c}" for x, c in zip(rng.random(40), "abcd" * 10, strict=True))
    text = "x,label\n" + rows + "\n"
    reg = make(tmp_path, text, features={"default": "numeric"},
               discretise={"method": "quantile", "bins": 4}, classes={"keep": ["a", "c"]})
    p = run(tmp_path, reg)
    assert len(p.y) == 20 and p.class_labels == ["a", "c"]
    assert len(p.domains[0]["edges"]) == 3
    reg = make(tmp_path, text, features={"default": "numeric"}, classes={"positive": ["b"]})
    p = run(tmp_path, reg)
    assert p.class_labels == ["rest", "b"] and p.y.sum() == 10 and len(p.y) == 40


@pytest.mark.parametrize(
    ("text", "settings", "message"),
    [
        ("", {}, "empty file"),
        ("a,b,c\n1,2,3\n", {}, "no target column 'label'"),
        ("a,b,label\n1,2,x\n3,4\n", {}, r"ragged row: data row 1 .* has 2 fields"),
        ("a,label\n1.5,x\nabc,y\n", {"features": {"default": "numeric"}},
         r"column 'a' is numeric but holds non-numeric values \['abc'\]"),
        ("a,label\n1,x\n2,x\n", {}, "a single class"),
        ("a,b,label\n1,2,x\n", {"features": {"numeric": ["zz"]}}, "'zz', which is no column"),
        ("a,label\n1,x\n2,y\n3,y\n", {"features": {"default": "binary"}}, "declared binary"),
    ],
)
def test_bad_data_errors_name_the_file(tmp_path, text, settings, message):
    reg = make(tmp_path, text, **settings)
    with pytest.raises(DataError, match=message) as e:
        run(tmp_path, reg)
    assert "toy.csv" in str(e.value)
    assert not (tmp_path / "prep" / "toy.csv").exists()


def test_prepare_requires_fetch_and_valid_source(tmp_path):
    reg = make(tmp_path, CSV)
    with pytest.raises(DataError, match="raw files not fetched"):
        prepare("toy", reg, tmp_path / "raw", tmp_path / "prep", source_order=("files",))
    with pytest.raises(DataError, match="has none of the sources"):
        source_of(reg.entry("toy"), ("embedded",))


@pytest.mark.heavy
def test_embedded_generated_and_derived(tmp_path):
    reg = load_registry()
    out = tmp_path / "prep"
    for ds in ["iris-bin", "digits-1vs3", "mux6", "zoo", "breast-cancer-d"]:
        prepare(ds, reg, tmp_path / "raw", out)
    p = load("iris-bin", out)
    assert p.class_labels == ["rest", "versicolor"] and p.y.sum() == 50
    assert {d["type"] for d in p.domains} == {"discretised"}
    p = load("digits-1vs3", out)
    assert p.class_labels == ["1", "3"] and p.X.shape[1] == 64
    assert sorted(np.bincount(p.y)) == [182, 183]
    p = load("mux6", out)
    assert p.X.shape == (128, 6) and {d["type"] for d in p.domains} == {"binary"}
    p = load("zoo", out)
    assert p.X.shape == (101, 16) and len(p.classes) == 7
    p = load("breast-cancer-d", out)
    assert max(len(d["values"]) for d in p.domains) == 3 and p.X.dtype == np.int64


def test_build_keeps_numeric_codes_of_binary_features():
    df = pd.DataFrame({"a": ["1", "0", "1"], "b": ["x", "y", "x"], "target": ["0", "1", "1"]})
    table, doc = build({"name": "t"}, df, {"a": "binary", "b": "binary"}, "test")
    assert table["a"].tolist() == [1, 0, 1] and table["b"].tolist() == [0, 1, 0]
    assert doc["features"][1]["labels"] == ["x", "y"]


def test_split_seeded_stratified_disjoint(tmp_path):
    y = np.array([0] * 30 + [1] * 10)
    s = make_split(y, 0.2, seed=3)
    assert s["stratified"] and len(s["test"]) == 8
    assert sorted(s["train"] + s["test"]) == list(range(40))
    assert np.bincount(y[s["test"]]).tolist() == [6, 2]
    assert make_split(y, 0.2, seed=3) == s and make_split(y, 0.2, seed=4) != s
    lone = make_split(np.array([0, 0, 0, 1, 1, 1, 2]), 0.3, seed=0)
    assert not lone["stratified"]
    path = write_split("toy", y, tmp_path / "s" / "toy.json", 0.2, 3)
    train, test = load_split(path)
    assert train.tolist() == s["train"] and test.tolist() == s["test"]
    assert json.loads(path.read_text())["dataset"] == "toy"
    with pytest.raises(DataError, match="test_size"):
        make_split(y, 1.5)


def test_mat_member_of_a_zip_and_arff(tmp_path):
    import io
    import zipfile

    from scipy.io import savemat

    buf = io.BytesIO()
    savemat(buf, {"inputs": np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0]]),
                  "labels": np.array([[1], [0], [1]])})
    with zipfile.ZipFile(tmp_path / "mails.zip", "w") as z:
        z.writestr("MATLAB/dbworld_bodies.mat", buf.getvalue())
    (tmp_path / "m" / "toy").mkdir(parents=True)
    (tmp_path / "mails.zip").rename(tmp_path / "m" / "toy" / "mails.zip")
    reg = make(tmp_path, "unused", filename="unused.csv", format="mat", target="target",
               features={"default": "binary"},
               mat={"member": "dbworld_bodies.mat", "features": "inputs", "target": "labels"},
               files=[{"name": "mails.zip", "mirror": "toy/mails.zip", "sha256": None,
                       "urls": []}])
    p = run(tmp_path, reg)
    assert p.X.tolist() == [[1, 0, 1], [0, 1, 1], [1, 1, 0]] and p.y.tolist() == [1, 0, 1]
    arff = ("% comment\n@relation t\n@attribute 'a b' {x, 'y z'}\n@attribute n numeric\n"
            "@attribute label {p,q}\n@data\nx,1.5,p\n'y z',?,q\n'y z',2,q\n")
    reg = make(tmp_path, arff, filename="t.arff", format="arff",
               features={"default": "categorical", "numeric": ["n"]})
    p = run(tmp_path, reg)
    assert p.feature_names == ["a b", "n"] and p.domains[0]["labels"] == ["x", "y z"]
    assert p.X.tolist() == [[0, 1.5], [1, 2.0]] and p.y.tolist() == [0, 1]


def test_quantile_bins_keep_a_tie_heavy_feature(tmp_path):
    """A feature that is 0 in most rows (adult's capital-gain) is not binned into a constant:
    0 gets a bin of its own, the other values are cut into quantiles."""
    rng = np.random.default_rng(0)
    gain = np.where(np.arange(200) % 10 == 0, rng.integers(100, 10000, 200), 0)
    rows = "\n".join(f"{g},{'ab'[i % 2]}" for i, g in enumerate(gain))
    reg = make(tmp_path, "gain,label\n" + rows + "\n", features={"default": "numeric"},
               discretise={"method": "quantile", "bins": 4})
    p = run(tmp_path, reg)
    codes = p.X[:, 0]
    assert set(codes[gain == 0]) == {0} and 0 not in set(codes[gain > 0])
    assert len(p.domains[0]["edges"]) == 3 and np.bincount(codes)[1:].min() >= 6
    spread = "\n".join(f"{x:.3f},{'ab'[i % 2]}" for i, x in enumerate(rng.random(40)))
    reg = make(tmp_path, "x,label\n" + spread + "\n", features={"default": "numeric"},
               discretise={"method": "quantile", "bins": 4})
    x = np.array([float(r.split(",")[0]) for r in spread.splitlines()])
    assert run(tmp_path, reg).domains[0]["edges"] == pytest.approx(
        np.quantile(x, [0.25, 0.5, 0.75]))  # no ties: plain quantiles, as before


def test_sparse_table_is_for_text_entries(tmp_path):
    reg = make(tmp_path, CSV, table="npz")
    with pytest.raises(DataError, match="table 'npz' is for text entries"):
        run(tmp_path, reg)
