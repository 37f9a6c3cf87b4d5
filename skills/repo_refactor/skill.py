"""Refactor: rename an identifier across the repository's files, whole words only."""
from __future__ import annotations

import re


def run(args: dict, tools) -> dict:
    old, new = args["old"], args["new"]
    if not re.fullmatch(r"[A-Za-z_]\w*", old) or not re.fullmatch(r"[A-Za-z_]\w*", new):
        raise ValueError("old and new must be identifiers")
    word = re.compile(rf"\b{re.escape(old)}\b")
    changed = []
    for path in tools.repo.list_files(pattern=args.get("pattern") or "*.py")["files"]:
        text = tools.repo.read_file(path=path)["content"]
        updated, count = word.subn(new, text)
        if count:
            tools.repo.write_file(path=path, content=updated)
            changed.append({"path": path, "replacements": count})
    return {"changed": changed}
