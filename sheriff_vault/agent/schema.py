"""Checking JSON values against JSON Schemas (tool arguments, skill inputs): the only module that
imports `jsonschema`. Problems come back as short sentences the model can act on."""
from __future__ import annotations

from typing import Any

MAX_PROBLEMS = 5


def problems(schema: dict, value: Any) -> list[str]:
    """What is wrong with `value` under `schema` (Draft 2020-12), each naming where; [] when valid."""
    from jsonschema import Draft202012Validator

    found = []
    for error in sorted(Draft202012Validator(schema).iter_errors(value), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in error.absolute_path)
        message = error.message if len(error.message) <= 300 else error.message[:297] + "..."
        found.append(f"{where}: {message}" if where else message)
        if len(found) == MAX_PROBLEMS:
            break
    return found
