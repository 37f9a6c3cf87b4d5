"""Boundaries that keep the code readable and the CLI fast: one owner per outside dependency, a
CLI that starts without heavy imports, help and docs for every command."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import click
import pytest

from sheriff_vault.cli import cli

PACKAGE = Path(__file__).resolve().parent.parent / "sheriff_vault"
README = (PACKAGE.parent / "README.md").read_text()
OWNERS = {"tantivy": {"index.py", "bench_locomo.py"}, "git": {"gitlog.py"}, "sentence_transformers": {"embed.py"},
          "openai": {"llm.py"}, "watchdog": {"watch.py"}}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("dependency,owners", sorted(OWNERS.items()))
def test_one_module_owns_each_outside_dependency(dependency: str, owners: set[str]):
    users = {p.name for p in PACKAGE.glob("*.py") if dependency in imported_modules(p)}
    assert users <= owners, f"{dependency} imported by {sorted(users - owners)}"


def test_cli_modules_only_parse_and_print():
    for path in PACKAGE.glob("cli*.py"):
        heavy = imported_modules(path) & {"numpy", "tantivy", "git", "openai", "sentence_transformers", "torch"}
        assert not heavy, f"{path.name} imports {heavy}"


def test_help_does_not_load_heavy_libraries():
    code = ("import sys; from sheriff_vault.cli import cli; "
            "import click.testing as t; t.CliRunner().invoke(cli, ['--help']); "
            "print(sorted(m for m in ('torch', 'tantivy', 'numpy', 'openai', 'sentence_transformers', 'git') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


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
