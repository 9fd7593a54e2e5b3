"""Every shell command and Python snippet in README.md and docs/*.md does what its text says.

Commands are collected from every ```sh / ```bash / ```console / ```shell block, so a page
added later is covered without touching this file. Each kind is checked its own way:

* snakemake (``.venv/bin/snakemake``, ``$S`` for a variable naming it, and the snakemake
  line of a ``make`` target): a dry run in a scratch copy of the workflow, whose planned jobs
  must equal the promise in the command's comment. Every such command carries one::

      plans: xpg_explain x1, xpg_table2_dt x1          # exactly these jobs, from scratch
      plans: nbc_table7 x1, ...                        # these counts, plus what they need
      plans after a run: nbc_explain x1                # once the config's workflow is done
      plans after the above: xpg_table2_dt x1          # ... and the block's commands above
      plans: everything / plans after a run: nothing

  ``everything`` is the plan of a bare ``snakemake -n`` with the same config files. The
  scratch copy has a mirror holding (empty) files of every registry dataset, so the paper
  profile plans; "a run" is simulated by writing every output empty and ``--touch``.
* make: ``make -n -B`` must succeed; a recipe that runs snakemake is checked as above, the
  others must contain what MAKE_RECIPES says the target runs.
* fxai (``fxai``, ``.venv/bin/fxai``, ``python -m fxai.cli``) and ``python -m benchmarks.X``:
  the arguments go through the real argparse parser (unknown or missing flags fail); the
  command body is not run (``--help`` is, and must print usage).
* ``python -c``: runs. ``python -m pytest``: its paths exist. ``bash tools/x.sh``: ``bash -n``
  plus its arguments exist. ``pip install -e ".[extra]"``: the extra is in pyproject.toml.
* Commands that cannot run here are in UNRUNNABLE with the reason.

Python: every ```python block runs (a page's blocks in order, in one namespace, in a scratch
working directory) unless the line before it is ``<!-- no-run: reason -->``; a top-level
``print(...)  # [6, 11, 12] [12]`` whose comment starts like a value must print exactly that;
``>>>`` examples run as doctests.
"""

from __future__ import annotations

import argparse
import contextlib
import doctest
import io
import itertools
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
SHELL_BLOCK = re.compile(r"^```(?:sh|bash|console|shell)\n(.*?)^```", re.S | re.M)
PY_BLOCK = re.compile(r"(?:^<!-- no-run: (?P<why>.+?) -->\n)?^```python\n(?P<code>.*?)^```",
                      re.S | re.M)
PROMISE = re.compile(r"plans(?P<when> after a run| after the above)?:\s*(?P<spec>[^;#]+)")

#: (page, start of the command) -> why it is not run here
UNRUNNABLE = {
    ("index.md", ".venv/bin/mkdocs serve"): "a server that runs until stopped",
    ("index.md", ".venv/bin/mkdocs build"): "tests/test_docs.py::test_docs_build_strict runs it",
    ("design.md", ".venv/bin/snakemake --report"): "writes the report of finished results, "
    "plans no job; tests/test_cluster.py and tests/test_report_html.py cover the report",
}
#: make target -> a regular expression its recipe (make -n -B) must match
MAKE_RECIPES = {
    # the whole suite across the cores: no paths, no -k
    "test": r"(?m)/python -m pytest -q -n \d+ --dist loadfile$",
    "test-fast": r'(?m)/python -m pytest -q -n \d+ --dist loadfile '
                 r'-m "not slow and not cli and not heavy"$',
    "report": r"snakemake --cores 1 --configfile \S+ --report results/\w+/report\.html",
    "venv": r"pip install --no-compile --progress-bar on -e \"\.\[{EXTRAS}\]\"",
}


@dataclass
class Command:
    page: str
    lineno: int
    text: str  # as printed (continuations joined)
    env: dict[str, str]
    argv: list[str]
    comment: str  # its trailing comment and the comment lines right above it
    block: int  # index of its block on the page

    def __str__(self) -> str:
        return f"{self.page}:{self.lineno}: {self.text}"


def split_comment(line: str) -> tuple[str, str]:
    """(code, comment) of a shell line: the comment starts at an unquoted ``#`` after a blank."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1:].strip()
    return line.rstrip(), ""


def shell_commands() -> list[Command]:
    found = []
    for page in PAGES:
        text = page.read_text()
        for b, m in enumerate(SHELL_BLOCK.finditer(text)):
            first = text[:m.start(1)].count("\n") + 1
            variables: dict[str, str] = {}
            env: dict[str, str] = {}
            above: list[str] = []
            lines = m.group(1).splitlines()
            i = 0
            while i < len(lines):
                start, line = i, lines[i]
                while line.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    line = line[:-1] + " " + lines[i].strip()
                i += 1
                code, comment = split_comment(line.removeprefix("$ "))
                if not code and comment and line[:1].isspace() and found and found[-1].page \
                        == page.name and found[-1].block == b and not above:
                    found[-1].comment += " " + comment  # an indented comment goes on
                    continue
                if not code:
                    above = above + [comment] if comment else []
                    continue
                tokens = shlex.split(code)
                words: list[str] = []
                for t in tokens:  # $VAR of the block: word-split like the shell does
                    if t.startswith("$") and t[1:] in variables:
                        words += shlex.split(variables[t[1:]])
                    else:
                        words.append(t)
                assigns = {}
                while words and re.fullmatch(r"[A-Za-z_]\w*=.*", words[0]):
                    k, v = words.pop(0).split("=", 1)
                    assigns[k] = v
                if words[:1] == ["export"]:
                    env |= dict(w.split("=", 1) for w in words[1:])
                elif not words:
                    variables |= assigns
                else:
                    found.append(Command(page.name, first + start, code, {**env, **assigns},
                                         words, " ".join([*above, comment]), b))
                above = []
    return found


COMMANDS = shell_commands()


def kind(c: Command) -> str:
    prog, rest = Path(c.argv[0]).name, c.argv[1:]
    if any(c.text.startswith(s) for p, s in UNRUNNABLE if p == c.page):
        return "unrunnable"
    if prog == "snakemake":
        return "snakemake"
    if prog == "make":
        return "make"
    if prog == "fxai" or (prog.startswith("python") and rest[:2] == ["-m", "fxai.cli"]):
        return "fxai"
    if prog.startswith("python") and rest[:1] == ["-m"] and rest[1].startswith("benchmarks."):
        return "benchmark"
    if prog.startswith("python") and rest[:2] == ["-m", "pytest"]:
        return "pytest"
    if prog.startswith("python") and rest[:1] == ["-c"]:
        return "python -c"
    if prog.startswith("python") and rest[:1] and rest[0].endswith(".py"):
        return "python script"
    if prog == "pip" or (prog.startswith("python") and rest[:2] == ["-m", "pip"]):
        return "pip"
    if prog in ("bash", "sh"):
        return "script"
    return "unknown"


def by_kind(k: str) -> list[Command]:
    return [c for c in COMMANDS if kind(c) == k]


def test_every_command_has_a_checker():
    unknown = [str(c) for c in COMMANDS if kind(c) == "unknown"]
    assert not unknown, f"no check for these doc commands (add one, or UNRUNNABLE): {unknown}"
    for page, start in UNRUNNABLE:  # no stale entries
        assert any(c.page == page and c.text.startswith(start) for c in COMMANDS), (page, start)


# --- snakemake ------------------------------------------------------------------------------

def promise(c: Command) -> tuple[str, dict[str, int], bool]:
    """(state, {rule: jobs}, exact) that the command's comment promises."""
    m = PROMISE.search(c.comment)
    assert m, f"{c}\n  its comment must say what it plans ('plans: rule xN, ...', see " \
              f"tests/test_docs_commands.py)"
    state = (m.group("when") or " scratch").split()[-1]  # scratch / run / above
    counts: dict[str, int] = {}
    exact = True
    for item in (s.strip() for s in m.group("spec").split(",")):
        if item in ("everything", "nothing", "..."):
            counts[item] = 0
            exact = item != "..."
            continue
        rule, n = re.fullmatch(r"(\w+) x(\d+)", item).groups() if re.fullmatch(
            r"\w+ x\d+", item) else pytest.fail(f"{c}\n  cannot read {item!r} of its promise")
        counts[rule] = int(n)
    return state, counts, exact


def configfiles(argv: list[str]) -> list[str]:
    out, taking = [], False
    for t in argv:
        if t in ("--configfile", "--configfiles"):
            taking = True
        elif t.startswith("-"):
            taking = False
        elif taking:
            out.append(t)
    return out


def parse_plan(log: str) -> dict[str, int]:
    if "Nothing to be done" in log:
        return {}
    table = log.split("Job stats:", 1)
    assert len(table) == 2, log
    jobs = {}
    for line in table[1].splitlines()[3:]:
        parts = line.split()
        if len(parts) != 2 or parts[0] == "total":
            break
        jobs[parts[0]] = int(parts[1])
    return jobs


def mtimes(d: Path) -> dict[Path, int]:
    return {f: f.stat().st_mtime_ns for sub in ("results", "data") for f in (d / sub).rglob("*")
            if f.is_file()}


class Workdirs:
    """Scratch copies of the workflow: from scratch, after a run of a config, and so on."""

    def __init__(self, base: Path):
        self.base = base
        self.mirror = base / "shared" / "datasets"  # ../shared/datasets from a work dir
        registry = yaml.safe_load((ROOT / "config" / "datasets.yaml").read_text())["datasets"]
        for name, entry in registry.items():
            for spec in entry.get("files") or []:
                f = self.mirror / (spec.get("mirror") or f"{name}/{spec['name']}")
                f.parent.mkdir(parents=True, exist_ok=True)
                f.touch()
        self.env = {**os.environ, "FXAI_DATA_MIRROR": str(self.mirror),
                    "PYTHONPATH": os.pathsep.join(
                        [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])])}
        self.dirs: dict[tuple, Path] = {}
        self.plans: dict[tuple, dict[str, int]] = {}

    def copy(self, key: tuple) -> Path:
        d = self.base / f"work{len(self.dirs)}"
        d.mkdir()
        for name in ("Snakefile", "Makefile", "pyproject.toml", "workflow", "config", "profiles",
                     "examples"):
            src = ROOT / name
            (shutil.copytree if src.is_dir() else shutil.copy)(src, d / name)
        shutil.copytree(ROOT / "data" / "reference", d / "data" / "reference")
        (d / ".venv").symlink_to(ROOT / ".venv")
        self.dirs[key] = d
        return d

    def run(self, argv: list[str], cwd: Path, env: dict[str, str] | None = None,
            check: bool = True) -> subprocess.CompletedProcess:
        r = subprocess.run(argv, cwd=cwd, env={**self.env, **(env or {})},
                           capture_output=True, text=True, timeout=300)
        assert not check or r.returncode == 0, f"{' '.join(argv)}\n{r.stdout}\n{r.stderr}"
        return r

    def dry_run(self, argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str]:
        """``snakemake --dry-run --quiet rules ARGV``: (exit code, its output)."""
        return self.snakemake(["--quiet", "rules", "--dry-run", *argv], cwd, env)

    def snakemake(self, argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str]:
        """``snakemake ARGV`` in this process (a subprocess each doubles the time)."""
        from snakemake.cli import main

        saved = os.getcwd(), dict(os.environ), sys.argv
        out = io.StringIO()
        code = 0
        try:
            os.chdir(cwd)
            os.environ.update({**self.env, **env})
            sys.argv = ["snakemake", *argv]  # the profiles read it
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                main(argv)
        except SystemExit as e:
            code = e.code or 0
        finally:
            os.chdir(saved[0])
            os.environ.clear()
            os.environ.update(saved[1])
            sys.argv = saved[2]
        return code, out.getvalue()

    def scratch(self) -> Path:
        return self.dirs.get(("scratch",)) or self.copy(("scratch",))

    def after_run(self, configs: tuple[str, ...], above: tuple[Command, ...] = ()) -> Path:
        key = ("run", configs, tuple(map(str, above)))
        if key in self.dirs:
            return self.dirs[key]
        d = self.copy(key)
        smk = ["--cores", "1", *(["--configfile", *configs] if configs else [])]
        code, summary = self.snakemake([*smk, "--summary"], d, {})
        assert code == 0, summary
        for line in summary.split("output_file\t", 1)[1].splitlines()[1:]:
            f = d / line.split("\t")[0]
            f.parent.mkdir(parents=True, exist_ok=True)
            f.touch()
        assert self.snakemake([*smk, "--touch"], d, {})[0] == 0
        for c in above:  # the block's commands above, "run" the same way; a rerun job
            before = mtimes(d)  # writes new content (snakemake skips a touched equal file)
            assert self.snakemake(["--touch", *c.argv[1:]], d, c.env)[0] == 0, c
            for f, t in mtimes(d).items():
                if before.get(f) != t:
                    with f.open("a") as out:
                        out.write(f"rerun by {c}\n")
        return d

    def everything(self, configs: tuple[str, ...]) -> dict[str, int]:
        if configs not in self.plans:
            cf = ["--configfile", *configs] if configs else []
            code, log = self.dry_run(["--cores", "1", *cf], self.scratch(), {})
            assert code == 0, log
            self.plans[configs] = parse_plan(log)
        return self.plans[configs]


@pytest.fixture(scope="module")
def workdirs(tmp_path_factory) -> Workdirs:
    return Workdirs(tmp_path_factory.mktemp("docs-commands"))


def check_plan(c: Command, argv: list[str], workdirs: Workdirs) -> None:
    state, counts, exact = promise(c)
    configs = tuple(configfiles(argv))
    if state == "scratch":
        d = workdirs.scratch()
    elif state == "run":
        d = workdirs.after_run(configs)
    else:
        above = [o for o in by_kind("snakemake")
                 if o.page == c.page and o.block == c.block and o.lineno < c.lineno]
        assert above, f"{c}: 'after the above' but no snakemake command above it"
        d = workdirs.after_run(configs, tuple(above))
    code, log = workdirs.dry_run(argv[1:], d, c.env)
    assert code == 0, f"{c}\n  its dry run failed:\n{log}"
    plan = parse_plan(log)
    if "everything" in counts:
        expected = workdirs.everything(configs)
        assert plan == expected, f"{c}\n  plans {plan}, not everything: {expected}"
        return
    if "nothing" in counts:
        assert plan == {}, f"{c}\n  plans {plan}, not nothing"
        return
    counts.pop("...", None)
    got = plan if exact else {k: plan.get(k, 0) for k in counts}
    assert got == counts, f"{c}\n  plans {plan}; its comment promises {counts}" + (
        " (and more)" if not exact else "")


@pytest.mark.parametrize("c", by_kind("snakemake"), ids=str)
def test_snakemake_command_plans_what_its_comment_says(c, workdirs):
    check_plan(c, c.argv, workdirs)


# --- make -----------------------------------------------------------------------------------

@pytest.mark.parametrize("c", by_kind("make"), ids=str)
def test_make_command_runs_what_its_comment_says(c, workdirs):
    d = workdirs.scratch()
    r = workdirs.run(["make", "-n", "-B", *c.argv[1:]], d, c.env, check=False)
    assert r.returncode == 0, f"{c}\n{r.stdout}\n{r.stderr}"
    target = next(t for t in c.argv[1:] if "=" not in t)
    smk = [ln for ln in r.stdout.splitlines() if re.search(r"/snakemake( |$)", ln)
           and "--report" not in ln and "--unlock" not in ln]
    if smk:
        assert len(smk) == 1, smk
        argv = shlex.split(smk[0])
        if "fxai.forkserver" in argv:  # make run's local profile: snakemake under the server
            argv = argv[argv.index("--") + 1:]
        check_plan(c, argv, workdirs)
        return
    assert target in MAKE_RECIPES, f"{c}\n  add what `make {target}` runs to MAKE_RECIPES"
    extras = dict(t.split("=", 1) for t in c.argv[1:] if "=" in t).get("EXTRAS", "test")
    pattern = MAKE_RECIPES[target].replace("{EXTRAS}", re.escape(extras))
    assert re.search(pattern, r.stdout), f"{c}\n  its recipe:\n{r.stdout}"


# --- fxai and benchmarks: the real argument parsers ------------------------------------------

class Parsed(Exception):
    pass


def parse_only(monkeypatch, call) -> str:
    """Run ``call`` until its top-level parse_args returns (then stop); its output."""
    real = argparse.ArgumentParser.parse_args

    def parse_args(self, *a, **k):
        real(self, *a, **k)
        raise Parsed

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_args)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            call()
        except Parsed:
            return out.getvalue()
        except SystemExit as e:
            assert e.code == 0, f"rejected: {err.getvalue()}"
            assert "usage:" in out.getvalue()
            return out.getvalue()
    pytest.fail("the command finished without parsing its arguments")


def explain_inputs(d: Path) -> None:
    """my_tree.joblib, train.csv and rows.csv of docs/cli.md's ``fxai explain`` example."""
    import joblib
    from sklearn.datasets import load_iris
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_iris(return_X_y=True, as_frame=True)
    X.columns = [c.replace(" (cm)", "").replace(" ", "_") for c in X.columns]
    joblib.dump(DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y),
                d / "my_tree.joblib")
    X.assign(label=y).to_csv(d / "train.csv", index=False)
    X.iloc[[0, 60, 120]].to_csv(d / "rows.csv", index=False)
    pipeline_inputs(d)


def pipeline_inputs(d: Path) -> None:
    """my_pipeline.joblib and applications.csv of docs/your-data.md's Pipeline example."""
    import joblib
    import numpy as np
    import pandas as pd
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(1)
    X = pd.DataFrame({"purpose": rng.choice(["car", "house"], 60),
                      "income": rng.normal(40_000, 12_000, 60).round(-2)})
    pipe = Pipeline([("pre", ColumnTransformer([("text", OneHotEncoder(), ["purpose"])],
                                               remainder="passthrough")),
                     ("tree", DecisionTreeClassifier(max_depth=3, random_state=0))])
    joblib.dump(pipe.fit(X, X.income > 40_000), d / "my_pipeline.joblib")
    X.head(3).to_csv(d / "applications.csv", index=False)


#: fxai command -> makes its inputs in a scratch directory, where the doc command then runs
RUN_ON_FIXTURE = {"explain": explain_inputs}


@pytest.mark.parametrize("c", by_kind("fxai"), ids=str)
def test_fxai_command_is_accepted_by_its_parser(c, monkeypatch, tmp_path):
    from fxai import cli

    args = c.argv[3:] if c.argv[1:3] == ["-m", "fxai.cli"] else c.argv[1:]
    if args[0] not in RUN_ON_FIXTURE:
        parse_only(monkeypatch, lambda: cli.main(args))
        return
    RUN_ON_FIXTURE[args[0]](tmp_path)
    monkeypatch.chdir(tmp_path)
    assert cli.main(args) == 0, c
    for flag in ("--out", "--out-dir", "--figures"):
        if flag in args:
            out = tmp_path / args[args.index(flag) + 1]
            assert out.exists() and (out.is_file() or any(out.iterdir())), f"{c}: no {out}"


@pytest.mark.parametrize("c", by_kind("benchmark"), ids=str)
def test_benchmark_command_is_accepted_by_its_parser(c, monkeypatch):
    import importlib

    monkeypatch.syspath_prepend(str(ROOT))
    mod = importlib.import_module(c.argv[2])
    monkeypatch.setattr(sys, "argv", [c.argv[2], *c.argv[3:]])
    parse_only(monkeypatch, mod.main)


# --- the rest -------------------------------------------------------------------------------

@pytest.mark.parametrize("c", by_kind("python -c"), ids=str)
def test_python_c_command_runs(c):
    r = subprocess.run([sys.executable, *c.argv[1:]], cwd=ROOT, capture_output=True,
                       text=True, timeout=60, env={**os.environ, **c.env})
    assert r.returncode == 0 and r.stdout.strip(), f"{c}\n{r.stdout}\n{r.stderr}"


@pytest.mark.parametrize("c", by_kind("python script"), ids=str)
def test_python_script_rewrites_its_files_identically(c, tmp_path):
    """A script the docs run (e.g. an example's generator) writes the files committed next to
    it: run on a copy of its folder, every file there is byte for byte the committed one."""
    script = ROOT / c.argv[1]
    assert script.is_file(), c
    copy = tmp_path / script.parent.name
    shutil.copytree(script.parent, copy)
    for f in copy.iterdir():
        if f.is_file() and f.name != script.name:
            f.unlink()
    subprocess.run([sys.executable, str(copy / script.name), *c.argv[2:]], check=True,
                   cwd=tmp_path, timeout=120)
    for f in (f for f in script.parent.iterdir() if f.is_file()):
        assert (copy / f.name).read_bytes() == f.read_bytes(), f"{c}: {f.name} differs"


@pytest.mark.parametrize("c", by_kind("pytest"), ids=str)
def test_pytest_command_names_existing_tests(c):
    args = c.argv[3:]
    for before, t in zip(["", *args], args, strict=False):
        if not t.startswith("-") and before not in ("-p", "-n", "--dist", "-m", "-k"):
            assert (ROOT / t.split("::")[0]).exists(), f"{c}: no {t}"


@pytest.mark.parametrize("c", by_kind("script"), ids=str)
def test_script_command_parses(c):
    """The script parses, and each argument is an existing path or a word of the script's
    header comment (its usage)."""
    script, *args = c.argv[1:]
    r = subprocess.run(["bash", "-n", script], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, f"{c}\n{r.stderr}"
    lines = (ROOT / script).read_text().splitlines()[1:]
    header = " ".join(line for line in itertools.takewhile(lambda s: s.startswith("#"), lines))
    for a in args:
        assert (ROOT / a).exists() or re.search(rf"(?<!\S){re.escape(a)}(?!\S)", header), \
            f"{c}: {a} is neither a path nor in the script's usage"


@pytest.mark.parametrize("c", by_kind("pip"), ids=str)
def test_pip_command_names_real_extras(c):
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    for t in c.argv:
        if m := re.fullmatch(r"\.\[(.+)\]", t):
            assert set(m.group(1).split(",")) <= set(extras), f"{c}: extras {sorted(extras)}"


# --- Python snippets ------------------------------------------------------------------------

#: a top-level ``print(...)  # output`` line whose comment is a value (not prose) prints it
OUTPUT = re.compile(r"(?m)^print\((.*)\)\s+# (?=[\[({\d'\"-])(.+?)\s*$")


def printed(expected: str, *values) -> None:
    got = " ".join(map(str, values))
    assert got == expected, f"prints {got}, its comment says {expected}"


def snippet_pages() -> list[Path]:
    return [p for p in PAGES
            if PY_BLOCK.search(p.read_text()) or re.search(r"^\s*>>> ", p.read_text(), re.M)]


@pytest.mark.parametrize("page", snippet_pages(), ids=lambda p: p.name)
def test_page_python_snippets_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = page.read_text()
    namespace: dict = {"__name__": f"doc_{page.stem}"}
    ran = 0
    for m in PY_BLOCK.finditer(text):
        if m.group("why"):
            continue
        lineno = text[:m.start("code")].count("\n")
        code = OUTPUT.sub(lambda p: f"__printed__({p[2]!r}, {p[1]})", m.group("code"))
        namespace["__printed__"] = printed
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile("\n" * lineno + code, str(page), "exec"), namespace)
        ran += 1
    examples = doctest.DocTestParser().get_doctest(text, namespace, page.name, str(page), 0)
    if examples.examples:
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(examples)
        assert runner.failures == 0, f"{page.name}: {runner.failures} doctest failures"
    assert ran or examples.examples
