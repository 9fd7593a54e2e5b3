"""The dataset registry: valid, complete for the papers' tables, aliases, clear errors."""

from pathlib import Path

import pytest
import yaml

from fxai.data.registry import load_registry
from fxai.errors import DataError

REGISTRY = Path(__file__).resolve().parents[1] / "config" / "datasets.yaml"

# dataset names exactly as printed in the papers' tables
NBC_TABLE7 = ["adult", "agaricus", "chess", "vote", "kr-vs-kp", "mushroom", "threeOf9", "xd6",
              "mamo", "tumor"]
XPG_TABLE1 = ["corral", "dbworld-bodies", "dbworld-bodies-stemmed", "dbworld-subjects",
              "dbworld-subjects-stemmed", "mofn_3_7_10", "mux6", "parity5+5", "spect",
              "threeOf9", "xd6"]
XPG_TABLE2 = ["adult", "agaricus-lepiota", "anneal", "bank", "cancer", "car", "chess", "churn",
              "colic", "collins", "dermatology", "divorce", "dna", "hayes-roth", "hepatitis",
              "house-votes-84", "iris", "irish", "kr-vs-kp", "lymphography",
              "molecular-biology-promoters", "monk1", "monk2", "monk3", "mouse", "mushroom",
              "new-thyroid", "pendigits", "seismic-bumps", "shuttle", "soybean", "spambase",
              "tic-tac-toe", "zoo"]
FFA = ["MNIST-1vs3", "MNIST-1vs7", "PneumoniaMNIST", "Sarcasm", "Disaster"]
DEFAULT = ["iris", "zoo", "wine", "breast-cancer", "breast-cancer-d", "iris-bin", "digits-1vs3",
           "digits-1vs7", "digits-5vs8", "mux6", "parity5+5", "corral", "threeOf9", "xd6",
           "mofn_3_7_10"]


@pytest.fixture(scope="module")
def reg():
    return load_registry(REGISTRY)


@pytest.mark.parametrize(
    ("tag", "names", "count"),
    [("nbc:table7", NBC_TABLE7, 10), ("xpg:table1", XPG_TABLE1, 11),
     ("xpg:table2", XPG_TABLE2, 34), ("ffa", FFA, 5)],
)
def test_every_paper_table_dataset_is_registered(reg, tag, names, count):
    assert len(set(names)) == count
    canon = {reg.resolve(n) for n in names}
    assert len(canon) == count
    assert canon == set(reg.using(tag))


def test_default_profile_sets_are_offline(reg):
    for name in DEFAULT:
        e = reg.entry(name)
        assert "embedded" in e or "generator" in e, name


def test_aliases_of_the_papers(reg):
    assert reg.resolve("mammographic-masses") == "mamo"
    assert reg.resolve("primary-tumor") == "tumor"
    assert reg.resolve("agaricus-lepiota") == reg.resolve("agaricus")
    assert reg.resolve("THREEOF9") == "threeOf9"


def test_file_entries_record_mirror_and_checksum(reg):
    mirrorless = set()
    for name in reg.names:
        for spec in reg.raw[name].get("files", []):
            if spec["mirror"] is None:
                assert spec["sha256"] is None, name
                mirrorless.add(name)
            else:
                assert len(spec["sha256"]) == 64, name
            assert spec.get("optional") or spec["urls"] or name == "mouse", name
    assert mirrorless == {"mouse", "dbworld-bodies", "dbworld-bodies-stemmed",
                          "dbworld-subjects", "dbworld-subjects-stemmed", "mnist"}


def test_derived_entries_inherit_their_base(reg):
    e = reg.entry("mnist-1vs3")
    assert e["kind"] == "image" and e["image"]["size"] == 10 and e["image"]["digits"] == [1, 3]
    assert reg.root("mnist-1vs3") == "mnist" and e["files"] == reg.raw["mnist"]["files"]
    assert "papers" in e and e["papers"] == ["ffa"]
    assert reg.root("breast-cancer-d") == "breast-cancer"
    assert reg.entry("sarcasm")["text"] == {"column": "headline", "label": "is_sarcastic"}


def test_unknown_name_lists_known_names(reg):
    with pytest.raises(DataError, match="unknown dataset 'nope'.*Known names: .*mux6"):
        reg.resolve("nope")


def _write(tmp_path, doc):
    (tmp_path / "config").mkdir(exist_ok=True)
    p = tmp_path / "config" / "datasets.yaml"
    p.write_text(yaml.safe_dump(doc))
    return p


def test_schema_rejects_entry_without_source(tmp_path):
    p = _write(tmp_path, {"version": 1, "datasets": {"x": {"title": "x", "aliases": [],
                                                          "papers": []}}})
    with pytest.raises(DataError, match="invalid at datasets/x"):
        load_registry(p)


def test_alias_clash_and_base_cycle(tmp_path):
    g = {"generator": {"name": "mux6"}, "papers": []}
    doc = {"version": 1, "datasets": {"a": {"title": "a", "aliases": ["z"], **g},
                                      "b": {"title": "b", "aliases": ["z"], **g}}}
    with pytest.raises(DataError, match="'z' names both a and b"):
        load_registry(_write(tmp_path, doc))
    doc = {"version": 1, "datasets": {"a": {"title": "a", "aliases": [], "base": "b",
                                            "papers": []},
                                      "b": {"title": "b", "aliases": [], "base": "a",
                                            "papers": []}}}
    with pytest.raises(DataError, match="base cycle"):
        load_registry(_write(tmp_path, doc))


def test_missing_registry_file(tmp_path):
    with pytest.raises(DataError, match="does not exist"):
        load_registry(tmp_path / "nope.yaml")
