"""The package's layers: no import cycle among fxai modules, and no module imports from a
layer above its own (function-level imports count too). Imports are read with ast, so
nothing is imported to check them."""

import ast
import functools
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

#: every top-level module and subpackage of fxai, bottom first; a module may import from its
#: own layer and those below (models <- oracles <- explain/verify/attribution <- report <-
#: experiments <- commands <- cli)
LAYERS = [
    ["fxai", "errors", "argtypes", "version", "values", "clocks"],  # fxai: the package's __init__
    ["files"],
    ["data", "models", "metrics"],
    ["oracles", "runfile"],
    ["explain", "verify", "attribution"],
    ["report"],
    ["experiments"],
    ["commands"],
    ["forkclient"],
    ["cli", "cluster"],
    ["forkserver"],
]
LAYER = {name: i for i, names in enumerate(LAYERS) for name in names}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in (SRC / "fxai").rglob("*.py")}


def imported(name: str, path: Path) -> set[str]:
    """The fxai modules ``name`` imports (``from a import b``: a.b when b is a module)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, *([base] if base else [])])
            found |= {f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                      for a in node.names}
    return {m for m in found if m in MODULES and m != name}


@functools.cache
def graph() -> dict[str, set[str]]:
    """Every fxai module's fxai imports (parsed when a test first asks, not at collection)."""
    return {name: imported(name, path) for name, path in MODULES.items()}


def layer(module: str) -> int:
    return LAYER[module.split(".")[1] if "." in module else module]


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each back edge of a depth-first search."""
    found, done, path = [], set(), []

    def visit(u: str) -> None:
        path.append(u)
        for v in sorted(graph[u]):
            if v in path:
                found.append([*path[path.index(v):], v])
            elif v not in done:
                visit(v)
        path.pop()
        done.add(u)

    for u in sorted(graph):
        if u not in done:
            visit(u)
    return found


def test_every_part_of_the_package_has_a_layer():
    parts = {m.split(".")[1] if "." in m else m for m in MODULES}
    assert parts == set(LAYER), "place new modules in LAYERS (and remove gone ones)"


def test_no_import_cycle():
    assert cycles(graph()) == []


def test_no_module_imports_from_a_layer_above():
    upward = sorted(f"{a} -> {b}" for a, bs in graph().items() for b in bs if layer(b) > layer(a))
    assert upward == []


def test_the_checks_see_cycles_and_upward_imports():
    """The graph and the cycle search on known cases (a test that can fail)."""
    assert "fxai.oracles.base" in graph()["fxai.oracles.xpg"]
    assert "fxai.models" in graph()["fxai.runfile"] or "fxai.errors" in graph()["fxai.runfile"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    assert layer("fxai.commands.split") > layer("fxai.report.tables") > layer("fxai.models")


COMMANDS = {m for m in MODULES if m.startswith("fxai.commands.")}


def test_commands_are_thin_and_import_no_other_command():
    """A command parses, loads, loops and writes; the experiments' library is in
    fxai.experiments (docs/design.md)."""
    crossing = sorted(f"{a} -> {b}" for a in COMMANDS for b in graph()[a] if b in COMMANDS)
    assert crossing == []
    long = {m: n for m in COMMANDS if (n := len(MODULES[m].read_text().splitlines())) > 150}
    assert long == {}


def test_benchmarks_import_no_command():
    bench = Path(__file__).resolve().parents[1] / "benchmarks"
    found = sorted(f"{p.name} -> {m}" for p in bench.glob("*.py")
                   for m in imported("benchmarks." + p.stem, p) if m in COMMANDS)
    assert found == []


def smk_names(path: Path) -> tuple[set[str], set[str]]:
    """(the globals a rule file defines, the names it uses: in code and in the {braces} of
    its strings, which snakemake formats with the globals)."""
    import io
    import re
    import tokenize

    text = path.read_text()
    defined = set(re.findall(r"^([A-Za-z_]\w*)\s*=(?!=)|^def (\w+)\(", text, re.M))
    defined = {a or b for a, b in defined}
    used = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME:
            used.add(tok.string)
        elif tok.type == tokenize.STRING:
            used |= set(re.findall(r"\{([A-Za-z_]\w*)", tok.string))
        elif tok.type == getattr(tokenize, "FSTRING_MIDDLE", None):  # pragma: no cover
            used |= set(re.findall(r"\{([A-Za-z_]\w*)", tok.string))
    return defined, used


def test_rule_files_share_globals_only_through_common_smk():
    """A rule file reads its own globals and common.smk's, never another rule file's (the
    include order then does not matter; docs/design.md)."""
    rules = Path(__file__).resolve().parents[1] / "workflow" / "rules"
    names = {p.stem: smk_names(p) for p in sorted(rules.glob("*.smk"))}
    owner = {n: part for part, (defined, _) in names.items() if part != "common"
             for n in defined}
    crossing = sorted(f"{part} reads {n} of {owner[n]}.smk"
                      for part, (_, used) in names.items() for n in used
                      if n in owner and owner[n] != part)
    assert len(owner) > 20
    assert crossing == []
