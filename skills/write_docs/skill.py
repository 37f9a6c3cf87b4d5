"""Write docs: a Markdown page for a Python module, built from its own signatures and docstrings."""
from __future__ import annotations

import ast


def run(args: dict, tools) -> dict:
    path = args["path"]
    source = tools.repo.read_file(path=path)["content"]
    tree = ast.parse(source)
    lines = [f"# `{path}`", "", ast.get_docstring(tree) or "(no module docstring)", ""]
    count = 0
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
            kind = "class" if isinstance(node, ast.ClassDef) else "def"
            signature = f"{node.name}({ast.unparse(node.args)})" if kind == "def" else node.name
            lines += [f"## {kind} `{signature}`", "", ast.get_docstring(node) or "(undocumented)", ""]
            count += 1
    out = args.get("out") or "docs/" + path.rsplit("/", 1)[-1].removesuffix(".py") + ".md"
    tools.repo.write_file(path=out, content="\n".join(lines))
    return {"written": out, "symbols": count}
