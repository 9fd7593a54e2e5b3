"""fxai.version: the code version stamped into run headers, model metadata and FFA records."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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
    if (ROOT / ".git").exists() and shutil.which("git"):
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


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_what_makes_a_checkout_dirty(tmp_path, monkeypatch):
    """Tracked changes under src/ and workflow/ count, each edit with its own hash; untracked
    files and changes elsewhere do not."""
    def git(*args):
        return subprocess.run(["git", "-C", str(tmp_path), *args], capture_output=True,
                              text=True, check=True).stdout.strip()

    pkg = tmp_path / "src" / "fxai"
    pkg.mkdir(parents=True)
    (tmp_path / "workflow").mkdir()
    (tmp_path / "docs").mkdir()
    for f in (pkg / "a.py", tmp_path / "workflow" / "r.smk", tmp_path / "docs" / "d.md"):
        f.write_text("x = 1\n")
    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    commit = git("rev-parse", "HEAD")[:12]
    monkeypatch.setattr(version, "_PACKAGE", pkg.resolve())

    clean = _fresh(monkeypatch)
    assert clean == f"{__version__}+g{commit}"
    (pkg / "new.py").write_text("untracked\n")
    (tmp_path / "docs" / "d.md").write_text("edited docs\n")
    assert _fresh(monkeypatch) == clean
    (pkg / "a.py").write_text("x = 2\n")
    first = _fresh(monkeypatch)
    assert re.fullmatch(rf"{re.escape(__version__)}\+g{commit}\.dirty\.[0-9a-f]{{8}}", first)
    (pkg / "a.py").write_text("x = 3\n")
    second = _fresh(monkeypatch)
    assert second.startswith(f"{__version__}+g{commit}.dirty.") and second != first
    (pkg / "a.py").write_text("x = 1\n")
    (tmp_path / "workflow" / "r.smk").write_text("changed\n")
    assert ".dirty." in _fresh(monkeypatch)


def test_a_package_inside_another_checkout_is_not_that_checkout(tmp_path, monkeypatch):
    pkg = tmp_path / "lib" / "site-packages" / "fxai"
    pkg.mkdir(parents=True)
    subprocess.run(["git", "-C", str(tmp_path), "init", "-q"], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t",
                    "commit", "-q", "--allow-empty", "-m", "init"], check=True)
    monkeypatch.setattr(version, "_PACKAGE", pkg.resolve())
    assert _fresh(monkeypatch) == f"{__version__}+nogit"
