"""Image and text preparation for the anytime-FFA datasets, on tiny hand-made raw files."""

import gzip
import os
from pathlib import Path

import numpy as np
import pytest

from fxai.data.images import area_matrix, downscale, prepare_image, read_idx
from fxai.data.text import clean, prepare_text, text_split
from fxai.errors import DataError

# the mirror: $FXAI_DATA_MIRROR, else ../shared/datasets beside the repository (skip if absent)
MIRROR = Path(os.environ.get("FXAI_DATA_MIRROR")
              or Path(__file__).resolve().parents[2] / "shared/datasets")


def write_idx(path: Path, arr: np.ndarray) -> None:
    header = bytes([0, 0, 8, arr.ndim]) + b"".join(d.to_bytes(4, "big") for d in arr.shape)
    with gzip.open(path, "wb") as fh:
        fh.write(header + arr.astype(np.uint8).tobytes())


def test_area_matrix_and_downscale():
    w = area_matrix(28, 10)
    np.testing.assert_allclose(w.sum(axis=1), 1)
    np.testing.assert_allclose(w[0, :3], [1 / 2.8, 1 / 2.8, 0.8 / 2.8])
    img = np.arange(16, dtype=float).reshape(1, 4, 4)
    np.testing.assert_allclose(downscale(img, 2)[0], [[2.5, 4.5], [10.5, 12.5]])
    rng = np.random.default_rng(0)
    big = rng.integers(0, 256, size=(3, 28, 28))
    np.testing.assert_allclose(downscale(big, 10).mean(axis=(1, 2)), big.mean(axis=(1, 2)))
    with pytest.raises(ValueError, match="downscale"):
        area_matrix(10, 28)


def test_read_idx_roundtrip_and_bad_magic(tmp_path):
    arr = np.arange(24).reshape(2, 3, 4)
    write_idx(tmp_path / "a-idx3-ubyte.gz", arr)
    np.testing.assert_array_equal(read_idx(tmp_path / "a-idx3-ubyte.gz"), arr)
    (tmp_path / "bad.gz").write_bytes(gzip.compress(b"\x01\x02\x03\x04rest"))
    with pytest.raises(DataError, match="magic"):
        read_idx(tmp_path / "bad.gz")


def test_prepare_mnist_pair(tmp_path):
    labels = np.array([1, 3, 7, 3, 1, 7])
    images = np.stack([np.full((28, 28), 10 * k) for k in range(6)])
    write_idx(tmp_path / "t10k-images-idx3-ubyte.gz", images)
    write_idx(tmp_path / "t10k-labels-idx1-ubyte.gz", labels)
    entry = {"name": "mnist-1vs3", "image": {"size": 10, "digits": [1, 3]}}
    df, dom = prepare_image(entry, sorted(tmp_path.iterdir()))
    assert df.shape == (4, 101) and df.columns[-1] == "target"
    assert df["target"].tolist() == [0, 1, 1, 0]
    np.testing.assert_allclose(df["p0_0"], [0, 10, 30, 40])
    assert dom["target"]["labels"] == ["1", "3"] and len(dom["features"]) == 100
    assert all(f["type"] == "numeric" for f in dom["features"])


def test_binarized_pixels_are_binary_features_above_the_middle_grey(tmp_path):
    """``image.binarize`` (the FFA paper's categorical MNIST): a pixel is 1 above 127.5."""
    labels = np.array([1, 3, 1])
    images = np.stack([np.full((28, 28), v) for v in (127, 128, 255)])
    write_idx(tmp_path / "t10k-images-idx3-ubyte.gz", images)
    write_idx(tmp_path / "t10k-labels-idx1-ubyte.gz", labels)
    entry = {"name": "mnist-1vs3-c", "image": {"size": 10, "digits": [1, 3], "binarize": True}}
    df, dom = prepare_image(entry, sorted(tmp_path.iterdir()))
    assert df["p0_0"].tolist() == [0, 1, 1] and df["p9_9"].tolist() == [0, 1, 1]
    assert all(f["type"] == "binary" and f["values"] == [0, 1] for f in dom["features"])
    assert set(np.unique(df.drop(columns="target").to_numpy())) == {0, 1}


def test_prepare_pneumonia_adds_alternative_train_images(tmp_path):
    def imgs(vals):
        return np.stack([np.full((28, 28), v, dtype=np.uint8) for v in vals])

    np.savez(tmp_path / "main.npz", train_images=imgs([1, 2]), train_labels=[[1], [1]],
             val_images=imgs([3]), val_labels=[[0]], test_images=imgs([4]), test_labels=[[1]])
    np.savez(tmp_path / "alt.npz", train_images=imgs([1, 5]), train_labels=[[1], [0]],
             test_images=imgs([9]), test_labels=[[0]])
    entry = {"name": "pneumoniamnist", "image": {"size": 10},
             "files": [{"name": "main.npz"}, {"name": "alt.npz", "role": "alternative"}]}
    df, dom = prepare_image(entry, [tmp_path / "main.npz", tmp_path / "alt.npz"])
    assert sorted(df["p5_5"].tolist()) == [1, 2, 3, 4, 5]  # duplicate 1 dropped, alt test unused
    assert dom["target"]["labels"] == ["normal", "pneumonia"]


def test_clean_text():
    assert clean("@bob Check THIS out: https://t.co/x1 now!!! #flood") == "check flood"
    assert clean("The man's 2 dogs, www.x.org") == "man s 2 dogs"


def test_prepare_text_fits_vocabulary_on_train_rows_only(tmp_path):
    rows = ["alpha beta", "alpha gamma", "beta delta", "gamma alpha", "delta beta",
            "alpha epsilon", "beta gamma", "gamma delta", "delta alpha", "zeta beta"]
    y = [0, 1] * 5
    csv = tmp_path / "t.csv"
    lines = [f"{i},\"{t}\",{c}\n" for i, (t, c) in enumerate(zip(rows, y, strict=True))]
    csv.write_text("id,text,target\n" + "".join(lines))
    entry = {"name": "toy", "format": "csv", "text": {"column": "text", "label": "target"},
             "split": {"seed": 1, "test_size": 0.3}}
    df, dom = prepare_text(entry, [csv])
    train, test = text_split(np.array(y), 1, 0.3)
    train_words = {w for i in train for w in rows[i].split()}
    assert {c[2:] for c in df.columns[:-1]} == train_words
    assert df.shape[0] == 10 and set(np.unique(df.iloc[:, :-1])) <= {0, 1}
    assert df.loc[0, "w_alpha"] == 1 and df.loc[0, "w_gamma"] == 0
    assert dom["vocabulary"]["n_train"] == len(train) == 7
    assert dom["features"][0]["type"] == "binary"
    with pytest.raises(DataError, match="no column"):
        prepare_text({**entry, "text": {"column": "headline", "label": "target"}}, [csv])
    # the paper-exact entries' max_features null: every training word; a cap keeps the most
    # frequent ones
    full, dom = prepare_text({**entry, "text": {**entry["text"], "max_features": None}}, [csv])
    assert {c[2:] for c in full.columns[:-1]} == train_words
    assert dom["vocabulary"]["max_features"] is None
    capped, _ = prepare_text({**entry, "text": {**entry["text"], "max_features": 2}}, [csv])
    counts = {w: sum(w in rows[i].split() for i in train) for w in train_words}
    top2 = sorted(counts, key=lambda w: (-counts[w], w))[:2]
    assert {c[2:] for c in capped.columns[:-1]} == set(top2)


@pytest.mark.mirror
@pytest.mark.skipif(not (MIRROR / "mnist").is_dir(), reason="dataset mirror absent")
def test_mirror_image_and_text_sets():
    m = MIRROR
    df, _ = prepare_image({"name": "mnist-1vs7", "image": {"size": 10, "digits": [1, 7]}},
                          [m / "mnist/t10k-images-idx3-ubyte.gz",
                           m / "mnist/t10k-labels-idx1-ubyte.gz"])
    assert df.shape == (1135 + 1028, 101)
    df, _ = prepare_text({"name": "disaster", "format": "csv",
                          "text": {"column": "text", "label": "target"}},
                         [m / "disaster/train.csv"])
    assert df.shape == (7613, 1001) and df["target"].sum() == 3271


def test_sparse_npz_table_loads_as_its_csv_twin(tmp_path):
    """A text entry's ``table: npz`` (sarcasm-full, disaster-full) writes the prepared table
    sparse; it loads as the CSV table does (X int8), and a changed or malformed file fails."""
    from fxai.data.prepare import write_prepared
    from fxai.data.prepared import SparseTable, load, load_train_test

    rows = ["alpha beta", "alpha gamma", "beta delta", "gamma alpha", "delta beta",
            "alpha epsilon", "beta gamma", "gamma delta", "delta alpha", "zeta beta"]
    csv = tmp_path / "t.csv"
    csv.write_text("text,target\n" + "".join(f"{t},{i % 2}\n" for i, t in enumerate(rows)))
    entry = {"name": "toy", "format": "csv", "text": {"column": "text", "label": "target"},
             "split": {"seed": 1, "test_size": 0.3}}
    df, dom = prepare_text(entry, [csv])
    table, dom_npz = prepare_text({**entry, "table": "npz"}, [csv])
    assert isinstance(table, SparseTable) and dom_npz == dom
    write_prepared(df, dom, tmp_path / "csv")
    path = write_prepared(table, dom, tmp_path / "npz")
    assert path.name == "toy.npz" and not (tmp_path / "npz/toy.csv").exists()
    a, b = load("toy", tmp_path / "csv"), load("toy", tmp_path / "npz")
    assert b.X.dtype == np.int8 and a.X.dtype == np.int64
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert a.feature_names == b.feature_names and a.domains == b.domains
    split = tmp_path / "split.json"
    split.write_text('{"train": [0, 2, 4, 6, 8], "test": [1, 3]}')
    _, (Xtr, _), (Xte, yte) = load_train_test(path, split)
    np.testing.assert_array_equal(Xtr, a.X[[0, 2, 4, 6, 8]])
    assert yte.tolist() == a.y[[1, 3]].tolist()
    # a table that does not match its domains file, or is no npz, names the file
    wrong = SparseTable(table.X[:, :2], table.y)
    with pytest.raises(DataError, match="2 columns"):
        write_prepared(wrong, dom, tmp_path / "bad")
    doc = (tmp_path / "npz/toy.domains.json").read_text()
    path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(DataError, match="toy.npz was changed or cut after it was prepared"):
        load("toy", tmp_path / "npz")
    path.write_bytes(b"not a zip")
    import hashlib
    (tmp_path / "npz/toy.domains.json").write_text(doc.replace(
        json_sha(doc), hashlib.sha256(b"not a zip").hexdigest()))
    with pytest.raises(DataError, match="toy.npz is not a sparse prepared table"):
        load("toy", tmp_path / "npz")
    with pytest.raises(DataError, match=r"a prepared \.csv or \.npz table"):
        load_train_test(tmp_path / "npz/toy.domains.json", split)


def json_sha(doc: str) -> str:
    import json

    return json.loads(doc)["table"]["sha256"]
