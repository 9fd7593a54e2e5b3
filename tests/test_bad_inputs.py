"""Bad inputs found by trying each command as a careless user would (issue 18's smaller
holes): each stops with exit 1 and one message naming the file, key or value, no traceback,
and leaves no output behind."""

import pytest
import test_faults
from test_faults import fxai

stages = test_faults.stages  # mux6 prepared, split, an NBC trained (a fixture)


@pytest.mark.parametrize("family", ["nbc", "obdd", "bt"])
def test_cross_run_refuses_a_model_of_another_family(tmp_path, capsys, stages, family):
    """A decision tree given as another family: refused (was: run and labelled `nbc`)."""
    prep, res = stages
    split = res / "splits/mux6.json"
    assert fxai(capsys, "xpg-train", "--family", "dt", "--dataset", "mux6", "--prepared", prep,
                "--split", split, "--out-dir", res / "models/dt")[0] == 0
    model, out = res / "models/dt/mux6.joblib", tmp_path / "cross.jsonl"
    code, err = fxai(capsys, "cross-run", "--dataset", "mux6", "--family", family, "--model",
                     model, "--split", split, "--prepared", prep, "--out", out)
    assert code == 1 and f"model file {model} is not a valid" in err, err
    assert "Traceback" not in err
    assert not out.exists() and not list(tmp_path.glob("cross.jsonl*"))
