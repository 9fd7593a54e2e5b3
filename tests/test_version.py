"""fxai.version: the code version stamped into run headers, model metadata and FFA records."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from fxai import __version__, version

ROOT = Path(__file__).resolve().parents[1]


def _fresh(monkeypatch) -> str:
    monkeypatch.delenv(version.ENV, raising=False)
    version._from_git.cache_clear()
    try:
        return version.code_version()
    finally:
        version._from_git.cache_clear()


def test_the_environment_override_wins(monkeypatch):
    monkeypatch.setenv(version.ENV, "9.9.9+gdeadbeef0000")
    assert version.code_version() == "9.9.9+gdeadbeef0000"


def test_a_checkout_gives_version_commit_and_a_dirty_hash_of_the_code_diff(monkeypatch):
    v = _fresh(monkeypatch)
    if (ROOT / ".git").exists():
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
        diff = subprocess.run(["git", "-C", str(ROOT), "diff", "HEAD", "--", "src", "workflow"],
                              capture_output=True, check=True).stdout
        assert v.startswith(f"{__version__}+g{commit[:12]}")
        assert (".dirty." in v) == bool(diff)
        assert re.fullmatch(r"[^+]+\+g[0-9a-f]{12}(\.dirty\.[0-9a-f]{8})?", v)
    else:
        assert v == f"{__version__}+nogit"


def test_no_git_gives_the_package_version_and_a_marker(monkeypatch):
    monkeypatch.setattr(version, "_git", lambda args, where: None)
    assert _fresh(monkeypatch) == f"{__version__}+nogit"


def test_git_runs_once_per_process(monkeypatch):
    calls, real = [], version._git

    def counted(args, where):
        calls.append(args)
        return real(args, where)

    monkeypatch.setattr(version, "_git", counted)
    monkeypatch.delenv(version.ENV, raising=False)
    version._from_git.cache_clear()
    try:
        first = [version.code_version() for _ in range(5)]
    finally:
        version._from_git.cache_clear()
    assert len(set(first)) == 1 and len(calls) <= 2


def test_nbc_meta_has_the_code_version(tmp_path, monkeypatch):
    from fxai.models import nbc

    monkeypatch.setenv(version.ENV, "0.1.0+gcafe00000000")
    model = nbc.train([[0, 1], [1, 0], [1, 1], [0, 0]], [0, 1, 1, 0], [2, 2])
    nbc.save(model, tmp_path / "m.joblib", {"dataset": "toy"})
    meta = json.loads((tmp_path / "m.meta.json").read_text())
    assert meta["code_version"] == "0.1.0+gcafe00000000"


def test_the_version_module_imports_nothing_above_it():
    out = subprocess.run([sys.executable, "-c", "import sys, fxai.version; "
                          "print(sorted(m for m in sys.modules if m.startswith('fxai')))"],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['fxai', 'fxai.version']"
