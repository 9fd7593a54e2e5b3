"""Every registry dataset the offline mirror holds: fetch (sha256) and prepare; the ones it
lacks fail with the clear FetchError. Skipped when no mirror is present."""

import os
from pathlib import Path

import pytest

from fxai.data import load, load_registry
from fxai.data.fetch import MIRROR_ENV, fetch, mirror_has, sha256_of
from fxai.data.prepare import prepare
from fxai.errors import DataError, FetchError

# the mirror: $FXAI_DATA_MIRROR, else ../shared/datasets beside the repository (skip if absent)
MIRROR = Path(os.environ.get(MIRROR_ENV)
              or Path(__file__).resolve().parents[2] / "shared/datasets")
pytestmark = [pytest.mark.mirror,
              pytest.mark.skipif(not MIRROR.is_dir(), reason="dataset mirror absent")]
REG = load_registry()
LACKING = {"mouse", "dbworld-bodies", "dbworld-bodies-stemmed", "dbworld-subjects",
           "dbworld-subjects-stemmed"}
# checksum only: image and text sets (prepared in tests/test_ffa_data.py; see below)
CHECKSUM_ONLY = {"mnist", "pneumoniamnist", "sarcasm", "disaster"}
ROOTS = [n for n in REG.names if "files" in REG.raw[n]]
# features (#F) as printed in the papers' tables (NBC Table 7 counts the class: minus one here)
PAPER_F = {"adult": 12, "agaricus": 22, "chess": 36, "vote": 16, "kr-vs-kp": 36, "mushroom": 22,
           "threeOf9": 9, "xd6": 9, "mamo": 13, "tumor": 15, "corral": 6, "mofn_3_7_10": 10,
           "mux6": 6, "parity5+5": 10, "spect": 22, "anneal": 38, "bank": 19, "cancer": 9,
           "car": 6, "churn": 20, "colic": 22, "collins": 23, "dermatology": 34, "divorce": 54,
           "dna": 180, "hayes-roth": 4, "hepatitis": 19, "house-votes-84": 16, "iris": 4,
           "irish": 5, "lymphography": 18, "molecular-biology-promoters": 58, "monk1": 6,
           "monk2": 6, "monk3": 6, "new-thyroid": 5, "seismic-bumps": 18, "soybean": 35,
           "spambase": 57, "tic-tac-toe": 9, "zoo": 16}
# where the published files have fewer features than the paper reports (see the README)
KNOWN_DIFF = {"anneal": 37, "bank": 16, "molecular-biology-promoters": 57}


@pytest.fixture(scope="module")
def raw(tmp_path_factory):
    return tmp_path_factory.mktemp("raw")


@pytest.mark.heavy
@pytest.mark.parametrize("name", ROOTS)
def test_fetch_and_prepare_from_mirror(name, raw, tmp_path, monkeypatch):
    monkeypatch.setenv(MIRROR_ENV, str(MIRROR))
    entry = REG.entry(name)
    if name in LACKING:
        assert not mirror_has(name, entry, MIRROR)
        with pytest.raises(FetchError, match=rf"{name}.*Tried: mirror file .* does not exist"):
            fetch(name, entry, raw)
        assert not (raw / name / entry["files"][0]["name"]).exists()
        return
    assert mirror_has(name, entry, MIRROR)
    fetch(name, entry, raw)
    for spec in entry["files"]:
        if spec["sha256"]:
            assert sha256_of(raw / name / spec["name"]) == spec["sha256"]
    if name in CHECKSUM_ONLY:
        return
    prepare(name, REG, raw, tmp_path, source_order=("files",))
    p = load(name, tmp_path)
    assert len(p.classes) >= 2 and len(p.y) == entry["rows"]
    if name in PAPER_F:
        assert p.n_features == KNOWN_DIFF.get(name, PAPER_F[name])


def test_image_entry_dispatches_to_the_image_preparer(tmp_path, monkeypatch):
    monkeypatch.setenv(MIRROR_ENV, str(MIRROR))
    fetch("mnist", REG.entry("mnist"), tmp_path / "raw")  # training images absent: optional
    prepare("mnist-1vs3", REG, tmp_path / "raw", tmp_path / "prep", source_order=("files",))
    p = load("mnist-1vs3", tmp_path / "prep")
    assert p.X.shape == (1135 + 1010, 100) and p.class_labels == ["1", "3"]
    with pytest.raises(DataError, match="only provides raw files for"):
        prepare("mnist", REG, tmp_path / "raw", tmp_path / "prep", source_order=("files",))
