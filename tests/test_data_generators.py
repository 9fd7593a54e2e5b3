"""Synthetic Boolean benchmarks: each generator matches its published definition."""

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fxai.data.generators import SPECS, cube, generate

# the mirror: $FXAI_DATA_MIRROR, else ../shared/datasets beside the repository (skip if absent)
MIRROR = Path(os.environ.get("FXAI_DATA_MIRROR")
              or Path(__file__).resolve().parents[2] / "shared/datasets")
ROWS = {"mux6": 128, "parity5+5": 1124, "corral": 160, "threeOf9": 512, "xd6": 973,
        "mofn_3_7_10": 1324}


def _Xy(df):
    return df.drop(columns="target").to_numpy(), df["target"].to_numpy()


def test_mux6_label_is_the_addressed_bit():
    X, y = _Xy(generate("mux6"))
    for row, label in zip(X, y, strict=True):
        assert label == row[2 + 2 * row[0] + row[1]]


def test_parity_threeof9_xd6_mofn_by_direct_definitions():
    X, y = _Xy(generate("parity5+5"))
    assert all(lab == (r[1] + r[2] + r[3] + r[5] + r[7]) % 2 for r, lab in zip(X, y, strict=True))
    X, y = _Xy(generate("threeOf9"))
    s = ["".join(map(str, r)) for r in X]
    assert all(lab == ("111" in t) for t, lab in zip(s, y, strict=True))
    X, y = _Xy(generate("xd6"))
    want = [any(all(r[3 * k:3 * k + 3]) for k in range(3)) for r in X]
    assert list(y) == [int(w) for w in want]
    X, y = _Xy(generate("mofn_3_7_10"))
    assert list(y) == [int(sum(r[2:9]) >= 3) for r in X]


def test_corral_concept_and_correlated_feature():
    X, y = _Xy(generate("corral", seed=3))
    assert list(y) == [int((r[0] and r[1]) or (r[2] and r[3])) for r in X]
    assert (X[:, 5] == y).mean() == 0.75
    assert len(np.unique(X[:, :5], axis=0)) == 32


@pytest.mark.parametrize("name", sorted(SPECS))
def test_rows_full_cube_and_seeding(name):
    df = generate(name, seed=1)
    assert len(df) == ROWS[name]
    n = 5 if name == "corral" else df.shape[1] - 1  # corral: the cube of A0 A1 B0 B1 Irrelevant
    assert len(np.unique(df.iloc[:, :n].to_numpy(), axis=0)) == 2**n
    assert generate(name, seed=1).equals(df)


def test_noise_flips_labels_reproducibly():
    clean = generate("xd6", seed=0)["target"].to_numpy()
    noisy = generate("xd6", seed=0, noise=0.1)["target"].to_numpy()
    assert 0.03 < (clean != noisy).mean() < 0.2
    assert np.array_equal(noisy, generate("xd6", seed=0, noise=0.1)["target"].to_numpy())


def test_cube_and_unknown_name():
    assert cube(2).tolist() == [[0, 0], [0, 1], [1, 0], [1, 1]]
    with pytest.raises(ValueError, match="unknown generator"):
        generate("mux11")


@pytest.mark.mirror
@pytest.mark.parametrize("name", sorted(SPECS))
def test_pmlb_copy_satisfies_the_same_definition(name):
    path = MIRROR / name / f"{name}.tsv.gz"
    if not path.is_file():
        pytest.skip(f"mirror copy {path} absent")
    pmlb = pd.read_csv(path, sep="\t")
    ours = generate(name)
    assert list(pmlb.columns) == list(ours.columns) and pmlb.shape == ours.shape
    X, y = _Xy(pmlb)
    assert np.array_equal(SPECS[name].concept(X), y)
    if name != "corral":
        assert len(np.unique(X, axis=0)) == 2 ** X.shape[1]
