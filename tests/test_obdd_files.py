"""OBDD model files (issue 18): fxai's own JSON node table, read back exactly, by any number
of processes at once in one shared working directory, with nothing else on disk."""

import itertools
import json
import multiprocessing
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from dd.autoref import BDD
from test_xpg_random import random_dlist

from fxai import models
from fxai.models.obdd import OBDD

SRC = str(Path(__file__).resolve().parents[1] / "src")


def random_obdd(rng: np.random.Generator) -> OBDD:
    """A random Boolean function over 1-5 features as an OBDD in a random variable order
    (``dd`` then uses complement edges wherever the function has them)."""
    n = int(rng.integers(1, 6))
    bdd = BDD()
    bdd.declare(*rng.permutation([OBDD.var(i) for i in range(n)] + ["y"]).tolist())
    f = bdd.false
    for point in itertools.product([0, 1], repeat=n):
        if rng.random() < 0.5:
            cube = bdd.true
            for i, v in enumerate(point):
                lit = bdd.var(OBDD.var(i))
                cube &= lit if v else ~lit
            f |= cube
    return OBDD(bdd, f, n)


def table(ob: OBDD) -> np.ndarray:
    return ob.predict(np.array(list(itertools.product([0, 1], repeat=ob.n_features))))


def assert_same(a: OBDD, b: OBDD) -> None:
    assert np.array_equal(table(a), table(b))  # the same function on every point
    assert a.n_nodes == b.n_nodes  # plain OBDD nodes
    assert len(a.root) == len(b.root)  # dd's own nodes (complement edges)
    assert sorted(a.bdd.vars, key=a.bdd.level_of_var) == sorted(b.bdd.vars,
                                                                 key=b.bdd.level_of_var)


@pytest.mark.parametrize("seed", range(40))
def test_round_trip_of_random_bdds(tmp_path, seed):
    rng = np.random.default_rng(seed)
    ob = random_obdd(rng) if seed % 2 else OBDD.from_decision_list(
        random_dlist(rng, int(rng.integers(2, 8))))
    path = tmp_path / "m.bdd.json"
    ob.dump(path)
    back = models.load(path, n_features=ob.n_features)
    assert_same(ob, back)
    back.dump(tmp_path / "again.bdd.json")  # the file is canonical: written back identically
    assert (tmp_path / "again.bdd.json").read_text() == path.read_text()
    assert sorted(os.listdir(tmp_path)) == ["again.bdd.json", "m.bdd.json"]  # no temp files


def test_file_of_a_constructed_obdd(tmp_path):
    """x0 xor x1: dd stores one x1 node and a complement edge; the file has both x1 nodes."""
    bdd = BDD()
    bdd.declare("x0", "x1", "y")
    ob = OBDD(bdd, bdd.add_expr(r"x0 ^ x1"), 2)
    assert len(ob.root) == 3
    ob.dump(tmp_path / "xor.bdd.json")
    doc = json.loads((tmp_path / "xor.bdd.json").read_text())
    assert doc == {"format": "fxai-obdd", "version": 1, "variables": ["x0", "x1", "y"],
                   "roots": {"f": 4}, "nodes": [
                       {"id": 2, "var": "x1", "low": 0, "high": 1},
                       {"id": 3, "var": "x1", "low": 1, "high": 0},
                       {"id": 4, "var": "x0", "low": 2, "high": 3}]}
    assert table(OBDD.load(tmp_path / "xor.bdd.json", 2)).tolist() == [0, 1, 1, 0]


@pytest.mark.parametrize("value", [True, False])
def test_constant_function(tmp_path, value):
    bdd = BDD()
    bdd.declare("x0", "y")
    OBDD(bdd, bdd.true if value else bdd.false, 1).dump(tmp_path / "c.bdd.json")
    back = OBDD.load(tmp_path / "c.bdd.json", 1)
    assert table(back).tolist() == [int(value)] * 2 and back.n_nodes == 1


def test_old_dd_dump_asks_to_retrain(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # dd's dump works in the current directory
    bdd = BDD()
    bdd.declare("x0", "x1", "y")
    path = tmp_path / "old.bdd.json"
    bdd.dump(str(path), roots={"f": bdd.add_expr(r"x0 /\ ~x1")})
    with pytest.raises(models.ModelError) as e:
        models.load(path, n_features=2)
    assert str(e.value).startswith(f"model file {path} is a dd JSON dump written by an older")
    assert "retrain" in str(e.value)


def edit(doc, what):
    nodes = doc["nodes"]
    if what == "child after parent":
        nodes[0]["low"] = nodes[-1]["id"]
    elif what == "order":
        nodes[-1]["var"] = nodes[0]["var"]
    elif what == "redundant":
        nodes[0]["high"] = nodes[0]["low"]
    elif what == "unknown variable":
        doc["variables"][0] = "z"
    elif what == "version":
        doc["version"] = 2
    elif what == "duplicate":
        nodes.append({**nodes[0], "id": len(nodes) + 2})
    elif what == "root":
        doc["roots"]["f"] = 99
    return doc


@pytest.mark.parametrize("what", ["child after parent", "order", "redundant",
                                  "unknown variable", "version", "duplicate", "root"])
def test_malformed_file_names_the_file(tmp_path, what):
    bdd = BDD()
    bdd.declare("x0", "x1", "x2", "y")
    path = tmp_path / "m.bdd.json"
    OBDD(bdd, bdd.add_expr(r"(x0 /\ x1) \/ x2"), 3).dump(path)
    path.write_text(json.dumps(edit(json.loads(path.read_text()), what)))
    with pytest.raises(models.ModelError, match=f"model file {path} is not a valid OBDD"):
        models.load(path, n_features=3)


def test_stale_shelve_folder_is_harmless(tmp_path, monkeypatch):
    """What dd's dump left behind when killed: fxai neither needs nor touches it."""
    monkeypatch.chdir(tmp_path)
    stale = tmp_path / "__shelve__"
    stale.mkdir()
    (stale / "temporary_shelf.db").write_bytes(b"\x00stale")
    ob = random_obdd(np.random.default_rng(3))
    ob.dump("m.bdd.json")
    assert_same(ob, models.load("m.bdd.json", n_features=ob.n_features))
    assert os.listdir(stale) == ["temporary_shelf.db"]


def _hammer(args) -> list[str]:
    """One worker: ``rounds`` times load the shared model, then write the shared file and a
    file of its own and read its own back; returns the failures."""
    worker, rounds, n = args
    errors = []
    for k in range(rounds):
        try:
            ob = models.load("shared.bdd.json", n_features=n)
            ob.dump("shared.bdd.json")
            ob.dump(f"own{worker}.bdd.json")
            if not np.array_equal(table(models.load(f"own{worker}.bdd.json", n_features=n)),
                                  table(ob)):
                errors.append(f"worker {worker} round {k}: a different function")
        except Exception as e:  # every failure is collected, the others keep going
            errors.append(f"worker {worker} round {k}: {type(e).__name__}: {e}")
    return errors


def test_many_processes_share_one_working_directory(tmp_path, monkeypatch):
    """4 processes x 30 rounds (120 loads of one file while it is being rewritten, and 240
    writes) in one cwd: with dd's dump/load about half of the loads crashed (issue 18)."""
    monkeypatch.chdir(tmp_path)
    ob = OBDD.from_decision_list(random_dlist(np.random.default_rng(11), 7))
    ob.dump("shared.bdd.json")
    with multiprocessing.get_context("fork").Pool(4) as pool:
        errors = sum(pool.map(_hammer, [(w, 30, 7) for w in range(4)]), [])
        pool.close()  # the workers end on their own (a SIGTERM handler an earlier test of
        pool.join()  # this process left would keep one alive through terminate())
    assert errors == []
    assert sorted(os.listdir(tmp_path)) == ["own0.bdd.json", "own1.bdd.json", "own2.bdd.json",
                                            "own3.bdd.json", "shared.bdd.json"]
    assert_same(ob, models.load("shared.bdd.json", n_features=7))


KILLED_IN_DUMP = """
import os, signal, sys
import fxai.files
from fxai import models
ob = models.load(sys.argv[1], n_features=int(sys.argv[2]))
fxai.files.os.replace = lambda *a: os.kill(os.getpid(), signal.SIGKILL)  # killed before rename
ob.dump(sys.argv[1])
"""


def test_killed_in_the_middle_of_a_dump(tmp_path):
    """SIGKILL after the temporary file is written and before it is renamed: the model file
    is still the old one, whole; the leftover hidden temporary file hinders nothing."""
    ob = OBDD.from_decision_list(random_dlist(np.random.default_rng(5), 6))
    path = tmp_path / "m.bdd.json"
    ob.dump(path)
    before = path.read_text()
    r = subprocess.run([sys.executable, "-c", KILLED_IN_DUMP, str(path), "6"], cwd=tmp_path,
                       env={**os.environ, "PYTHONPATH": SRC}, capture_output=True, text=True)
    assert r.returncode == -signal.SIGKILL, r.stderr
    assert path.read_text() == before
    left = [p.name for p in tmp_path.iterdir() if p.name != "m.bdd.json"]
    assert len(left) == 1 and left[0].startswith(".m.bdd.json.") and left[0].endswith(".tmp")
    ob.dump(path)
    assert_same(ob, models.load(path, n_features=6))
