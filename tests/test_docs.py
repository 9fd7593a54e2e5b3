"""The documentation site (mkdocs.yml, docs/) builds without a single warning.

`mkdocs build --strict` turns every warning into an error: a broken link between pages, a
missing anchor, an API reference entry (mkdocstrings) that does not resolve. The docstring
examples themselves run as doctests (pyproject.toml: --doctest-modules).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build(site: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )


def test_docs_build_strict(tmp_path):
    res = build(tmp_path / "site")
    log = res.stdout + res.stderr
    assert res.returncode == 0, f"mkdocs build --strict failed:\n{log}"
    assert "WARNING" not in log, log
    # every page under docs/ is reachable from the navigation
    assert "not included in the \"nav\"" not in log, log
    ref = (tmp_path / "site" / "reference" / "index.html").read_text()
    for name in ("fxai.explain.extract.find_axp", "fxai.oracles.nbc.NBCOracle",
                 "fxai.metrics.ffa.kendall_tau"):
        assert f'id="{name}"' in ref, f"{name} missing from the API reference"


def test_readme_library_example_runs(capsys):
    """The README's "Library use" block runs as printed (and prints MARCO events)."""
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "README.md has no ```python block"
    namespace: dict = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("IF x7 = 0.1471 AND ") and out[0].endswith("THEN class 0 [23, 27]")
    assert out[1] == "([True], [])"
    assert {line.split()[1] for line in out[2:-1]} == {"axp", "cxp"}, out  # the comment's kinds
    assert out[-1] == str(namespace["m"].switched_at)
    ffa, complete = namespace["explain"].ffa(namespace["o"], time_limit=60)
    assert complete and ffa and max(ffa.values()) <= 1.0


MULTI = {"--forcerun", "-R", "--until", "-U", "--omit-from", "-O", "--configfile",
         "--configfiles", "--config", "-C", "--allowed-rules"}  # snakemake nargs="+"


def snakemake_commands() -> list[tuple[str, list[str]]]:
    """(file, tokens) of every snakemake command in a shell block of README and docs/."""
    import shlex

    found = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for block in re.findall(r"```(?:sh|bash|console)\n(.*?)```", page.read_text(), re.S):
            for line in block.replace("\\\n", " ").splitlines():
                tokens = shlex.split(line, comments=True)
                if any(t.endswith("snakemake") or t == "$S" for t in tokens):
                    found.append((page.name, tokens))
    return found


def test_snakemake_targets_are_not_swallowed_by_options():
    """A target after an option that takes several values (``--forcerun RULE``) is read as
    one more value of it, so the command plans the whole workflow: ``--`` must come first."""
    cmds = snakemake_commands()
    assert any("--forcerun" in t or "-R" in t for _, t in cmds)  # the test sees them
    bad = []
    for page, tokens in cmds:
        taking = False
        for t in tokens:
            if t == "--" or (t.startswith("-") and t not in MULTI):
                taking = False
            elif t in MULTI:
                taking = True
            elif taking and t.startswith(("results/", "data/")):
                bad.append((page, " ".join(tokens)))
    assert not bad, bad


def test_the_readme_stays_under_10_kb():
    """Issue 66: the README is the newcomer's first page (10,951 bytes on 44a34b6); the
    details live in docs/."""
    assert len((ROOT / "README.md").read_bytes()) < 10_000
