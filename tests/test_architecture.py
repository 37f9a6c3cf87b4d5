"""Boundaries that keep the code readable and the CLI fast: wings that import only downward and
never in a circle (imports inside functions count), one owner per outside dependency, a CLI that
starts without heavy imports, help and docs for every command."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import click
import pytest

from sheriff_vault.cli import cli

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "sheriff_vault"
README = (ROOT / "README.md").read_text()
# Bottom to top. The package's loose modules (errors, config, timewin, text, faults, llm) are the
# core every wing may use; retrieval and compaction stand side by side and must not use each other.
WINGS = {"core": 0, "store": 1, "index": 2, "retrieval": 3, "compaction": 3, "daemon": 4, "agent": 5, "web": 5,
         "cli": 6}
OWNERS = {"tantivy": {"index/engine.py"}, "git": {"store/gitlog.py"}, "sentence_transformers": {"index/embed.py"},
          "openai": {"llm.py"}, "watchdog": {"daemon/watch.py"}, "mcp": {"agent/mcp.py"},
          "tomlkit": {"agent/hooks.py"}, "jsonschema": {"agent/schema.py"}, "onnxruntime": {"index/onnxmodel.py"},
          "torch": {"index/embed.py", "index/onnxmodel.py"}, "transformers": {"index/embed.py", "index/onnxmodel.py"},
          "usearch": {"index/ann.py"}, "starlette": {"web/app.py"}, "uvicorn": {"web/server.py"},
          "jinja2": {"web/app.py"}, "markdown_it": {"web/render.py"}, "yaml": {"store/catalog.py"}}
HEAVY = {"numpy", "tantivy", "git", "openai", "sentence_transformers", "torch", "mcp", "onnxruntime"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def wing(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in WINGS) else "core"


def resolve(node: ast.ImportFrom | ast.Import, here: str) -> list[str]:
    """The package modules an import statement loads (a submodule when it names one)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "sheriff_vault"]
    base = node.module or ""
    if node.level:
        pkg = here.split(".")[: -node.level] if not MODULES[here].name == "__init__.py" else here.split(".")
        base = ".".join(pkg[: len(pkg) - (0 if MODULES[here].name != "__init__.py" else node.level - 1)]
                        + ([base] if base else []))
    if base.split(".")[0] != "sheriff_vault":
        return []
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]


def imports_of(module: str) -> set[str]:
    tree = ast.parse(MODULES[module].read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found |= {m for m in resolve(node, module) if m in MODULES and m != module}
    return found


GRAPH = {m: imports_of(m) for m in MODULES}


def outside_imports(path: Path, top_level_only: bool = False) -> set[str]:
    tree = ast.parse(path.read_text())
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_every_module_belongs_to_a_known_wing():
    stray = {m for m in MODULES if m.count(".") > 1 and m.split(".")[1] not in WINGS}
    assert not stray, f"modules outside the wings: {sorted(stray)}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m not in ("sheriff_vault", "sheriff_vault.__main__")))
def test_a_wing_imports_only_wings_below_it(module: str):
    mine = wing(module)
    for other in GRAPH[module]:
        theirs = wing(other)
        if other in ("sheriff_vault", "sheriff_vault.__main__") or theirs == mine:
            assert other not in ("sheriff_vault", "sheriff_vault.__main__"), f"{module} imports the package face"
            continue
        assert WINGS[theirs] < WINGS[mine], f"{module} ({mine}) imports {other} ({theirs}), which is not below it"


# Sleep is one orchestrator (compact) over a row of stages that import none of each other, only
# the shared layer below them: the values they pass, value and cue reading, and the English tables.
# Echo stands beside parse: a change the assistant restates is parsed into a fact of its own.
SLEEP = "sheriff_vault.compaction"
SLEEP_SHARED = {f"{SLEEP}.{m}" for m in ("parts", "values", "cues", "numbers", "prior", "result")}
SLEEP_STAGES = {f"{SLEEP}.{m}" for m in ("units", "echo", "subjects", "naming", "merge", "supersede", "progress",
                                         "extract_openai", "write")}
BESIDE = {(f"{SLEEP}.echo", f"{SLEEP}.units")}


def test_sleep_is_one_orchestrator_over_a_row_of_stages():
    inside = {m for m in MODULES if m.startswith(f"{SLEEP}.")}
    tables = {m for m in inside if m.startswith(f"{SLEEP}.english")}
    assert inside - tables == SLEEP_SHARED | SLEEP_STAGES | {f"{SLEEP}.compact"}, "a new module: place it here"
    for stage in SLEEP_STAGES:
        others = {m for m in GRAPH[stage] if m in SLEEP_STAGES or m == f"{SLEEP}.compact"}
        assert {(stage, o) for o in others} <= BESIDE, f"{stage} imports another stage: {sorted(others)}"
    for shared in SLEEP_SHARED:
        assert GRAPH[shared] & inside <= SLEEP_SHARED | tables, f"{shared} imports a stage"


def test_no_module_imports_in_a_circle():
    index, low, stack, on_stack, circles = {}, {}, [], set(), []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                circles.append(sorted(scc))

    for module in sorted(GRAPH):
        if module not in index:
            visit(module)
    assert not circles, f"import circles: {circles}"


def test_the_circle_check_finds_a_circle():
    """The check above must be able to fail: a made-up pair that imports each other is found."""
    saved = dict(GRAPH)
    try:
        GRAPH["sheriff_vault.errors"] = {"sheriff_vault.text"}
        GRAPH["sheriff_vault.text"] = {"sheriff_vault.errors"}
        with pytest.raises(AssertionError, match="import circles"):
            test_no_module_imports_in_a_circle()
    finally:
        GRAPH.clear()
        GRAPH.update(saved)


@pytest.mark.parametrize("wing_name", sorted(w for w in WINGS if w != "core"))
def test_each_wing_says_what_lives_there_and_imports_nothing(wing_name: str):
    init = PACKAGE / wing_name / "__init__.py"
    tree = ast.parse(init.read_text())
    assert ast.get_docstring(tree), f"{init} has no docstring"
    if wing_name != "cli":  # the CLI's face registers its command modules
        assert not [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))], f"{init} imports"


@pytest.mark.parametrize("dependency,owners", sorted(OWNERS.items()))
def test_one_module_owns_each_outside_dependency(dependency: str, owners: set[str]):
    users = {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py") if dependency in outside_imports(p)}
    assert users <= owners, f"{dependency} imported by {sorted(users - owners)}"


def test_cli_modules_only_parse_and_print():
    for path in (PACKAGE / "cli").glob("*.py"):
        heavy = outside_imports(path) & HEAVY
        assert not heavy, f"{path.name} imports {heavy}"


def test_help_does_not_load_heavy_libraries():
    code = ("import sys; from sheriff_vault.cli import cli; "
            "import click.testing as t; t.CliRunner().invoke(cli, ['--help']); "
            f"print(sorted(m for m in {sorted(HEAVY)!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_public_api_is_importable_from_the_package():
    code = ("import sys, sheriff_vault as sv; assert 'numpy' not in sys.modules; "
            "from sheriff_vault import Vault, VaultError, recall, sleep, wake; "
            "print(Vault.__name__, VaultError.__name__, recall.__module__, sleep.__module__, wake.__module__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["Vault", "VaultError", "sheriff_vault.daemon.client",
                                  "sheriff_vault.compaction.compact", "sheriff_vault.agent.wake"]


def all_commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    found = []
    for name, command in group.commands.items():
        if getattr(command, "hidden", False):
            continue
        full = f"{prefix}{name}"
        found.append((full, command))
        if isinstance(command, click.Group):
            found += all_commands(command, full + " ")
    return found


@pytest.mark.parametrize("name,command", all_commands(cli))
def test_every_command_has_help_and_is_in_the_readme(name: str, command: click.Command):
    assert command.help and len(command.help) > 20
    top = name.split()[0]
    assert f"vault {top}" in README, f"`vault {top}` is not documented in README.md"


def test_readme_starts_with_the_two_commands():
    head = README.splitlines()[:8]
    assert any("make demo" in line for line in head) and any("make test" in line for line in head)


def test_comments_cite_what_a_reader_can_open():
    """No "spec sec." citations: the spec is not in the repository; docs/ and README are."""
    cited = [f"{p.relative_to(ROOT)}:{i}" for p in PACKAGE.rglob("*.py")
             for i, line in enumerate(p.read_text().splitlines(), 1) if "spec sec" in line.lower()]
    assert not cited, f"cite docs/ or README instead: {cited}"
