"""The data sub-commands end to end on a temp mirror: fetch, prepare, split, datasets-table."""

import json

import pandas as pd
import pytest
import yaml

from fxai.cli import main
from fxai.data.fetch import MIRROR_ENV, sha256_of

#: the config settings the data commands require (the workdir's registry, the schemas' defaults)
REG = ["--registry", "config/datasets.yaml"]
ORDER = ["--source-order", "embedded,generated,files"]
DATA = ["--seed", "0", "--test-size", "0.2"]


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.delenv(MIRROR_ENV, raising=False)
    mirror = tmp_path / "mirror" / "toy"
    mirror.mkdir(parents=True)
    (mirror / "toy.csv").write_text("a,b,label\nx,1.5,p\ny,2.5,n\nx,3.5,p\ny,0.5,n\nx,1.0,n\n")
    reg = {"version": 1, "datasets": {
        "toy": {"title": "toy", "aliases": ["toy-alias"], "papers": ["xpg:table2"],
                "format": "csv", "target": "label", "features": {"numeric": ["b"]},
                "files": [{"name": "toy.csv", "mirror": "toy/toy.csv",
                           "sha256": sha256_of(mirror / "toy.csv"), "urls": []}]},
        "gone": {"title": "gone", "aliases": [], "papers": ["xpg:table1"], "format": "csv",
                 "files": [{"name": "g.csv", "mirror": None, "sha256": None, "urls": []}]},
        "bits": {"title": "bits", "aliases": [], "papers": [], "generator": {"name": "mux6"}},
    }}
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "datasets.yaml").write_text(yaml.safe_dump(reg))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_fetch_prepare_split_table(workdir):
    assert main(["fetch", "toy-alias", "--mirror", "mirror", *REG]) == 0
    man = json.loads((workdir / "data/raw/toy/manifest.json").read_text())
    assert man["files"][0]["source"] == "mirror"
    # the workflow's layout: data/prepared/<source>/<ds>.csv, read so by datasets-table
    assert main(["prepare", "toy", "--source-order", "files",
                 "--out-dir", "data/prepared/files", *REG, *DATA]) == 0
    assert main(["prepare", "bits", "--out-dir", "data/prepared/generated", *REG, *ORDER,
                 *DATA]) == 0
    for ds, src in (("toy", "files"), ("bits", "generated")):
        assert main(["split", ds, "--prepared", f"data/prepared/{src}",
                     "--out", f"splits/{ds}.json", "--seed", "1", "--test-size", "0.2"]) == 0
    split = json.loads((workdir / "splits/toy.json").read_text())
    assert split["dataset"] == "toy" and len(split["train"]) + len(split["test"]) == 5
    assert main(["datasets-table", "toy", "bits", "--unavailable", "gone", "--source-order",
                 "files,generated", "--out-dir", "tables", *REG]) == 0
    table = pd.read_csv(workdir / "tables/datasets.csv").set_index("dataset")
    assert table.loc["toy", "source"] == "mirror"
    assert table.loc["toy", "sha256"] == man["files"][0]["sha256"]
    assert (table.loc["toy", "rows"], table.loc["toy", "categorical"]) == (5, 1)
    assert table.loc["toy", "numeric"] == 1 and table.loc["toy", "class_balance"] == "60/40"
    assert table.loc["bits", "source"] == "generated" and table.loc["bits", "binary"] == 6
    assert table.loc["gone", "source"] == "unavailable"
    assert "not obtainable here" in table.loc["gone", "note"]
    md_rows = (workdir / "tables/datasets.md").read_text().splitlines()
    assert sum(r.split("|")[1].strip() == "toy" for r in md_rows if r.startswith("|")) == 1


def test_unknown_dataset_names_known_ones(workdir, capsys):
    assert main(["prepare", "nope", *REG, *ORDER, *DATA]) == 1
    err = capsys.readouterr().err
    assert "fxai prepare: error: unknown dataset 'nope'" in err
    assert "Known names: bits, gone, toy" in err and "Traceback" not in err


def test_split_refuses_text_vocabulary_of_another_split(workdir, capsys):
    assert main(["prepare", "bits", *REG, *ORDER, *DATA]) == 0
    dom = workdir / "data/prepared/bits.domains.json"
    doc = json.loads(dom.read_text())
    dom.write_text(json.dumps({**doc, "vocabulary": {"seed": 0, "test_size": 0.2}}))
    assert main(["split", "bits", "--out", "s.json", "--seed", "1", "--test-size", "0.2"]) == 1
    assert "vocabulary was fitted on the split seed=0" in capsys.readouterr().err
    assert main(["split", "bits", "--out", "s.json", "--seed", "0", "--test-size", "0.2"]) == 0
