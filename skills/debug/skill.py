"""Debug: run the tests, pull out the failures, and ask memory whether this failure was seen before."""
from __future__ import annotations

import re


def run(args: dict, tools) -> dict:
    report = tools.repo.run_tests()
    output = report["output"]
    failures = re.findall(r"^(?:FAILED|ERROR) (\S+)(?: - (.*))?$", output, re.M)
    errors = re.findall(r"^E\s+(.*)$", output, re.M)
    memory = ""
    if failures or errors:
        first = (failures[0][1] if failures and failures[0][1] else "") or (errors[0] if errors else "")
        memory = tools.topics.search(query=f"same failure as before: {first}", deep=True)["markdown"]
    return {"passed": report["passed"], "failures": [{"test": t, "error": e} for t, e in failures],
            "errors": errors[:5], "memory": memory}
