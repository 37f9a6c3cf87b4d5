"""Child-process side of `skills.run`: load skill.py, hand it a toolbox limited to its manifest's
tools, print its result as JSON. Run as `python -m sheriff_vault.agent.skillrun` with a JSON request
on stdin. A skill whose `run` takes a third parameter `ctx` gets the context the caller named
(`ctx_refs`: {"topics": [...]}); `run(args, tools)` still works."""
from __future__ import annotations

import importlib.util
import inspect
import json
import sys
from pathlib import Path


def main() -> int:
    from sheriff_vault.agent.tools import Restricted, Toolbox
    from sheriff_vault.errors import VaultError
    from sheriff_vault.store.vault import Vault

    request = json.loads(sys.stdin.read())
    folder = Path(request["skill_dir"])
    spec = importlib.util.spec_from_file_location(f"skill_{folder.name}", folder / "skill.py")
    assert spec is not None and spec.loader is not None  # a .py file always has a loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tools = Restricted(Toolbox(Vault(request["vault"]), repo=Path(request["repo"]), allowed=request["tools"],
                               caller=f"skill:{request.get('skill_id') or folder.name}"))
    args = request.get("args") or {}
    try:
        takes_ctx = len(inspect.signature(module.run).parameters) >= 3
        result = module.run(args, tools, request.get("ctx") or {}) if takes_ctx else module.run(args, tools)
    except VaultError as exc:
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(result if isinstance(result, dict) else {"result": result}, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
