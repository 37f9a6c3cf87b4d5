"""Named points where a test can crash or pause a real process (SIGKILL, not a mock).

SHERIFF_VAULT_FAULT=<point> kills the process at that point; SHERIFF_VAULT_PAUSE=<point>:<seconds>
sleeps there, so a test can edit a file or start a second process mid-operation; with
SHERIFF_VAULT_PAUSED_FILE=<path> it first writes the point's name there, so the test knows the
process reached that point (and is not in some other sleep of its own). Unset, each point costs
one dictionary lookup.
"""
from __future__ import annotations

import os
import signal
import time

POINTS = ("sleep:appended", "sleep:planned", "sleep:journaled", "sleep:half-written", "sleep:written",
          "sleep:committed", "sleep:trimmed", "index:writing", "index:tantivy-committed", "index:applied",
          "edit:journaled", "edit:saved", "edit:committed", "model:loading", "daemon:starting")


def point(name: str) -> None:
    if os.environ.get("SHERIFF_VAULT_FAULT") == name:
        os.kill(os.getpid(), signal.SIGKILL)
    pause = os.environ.get("SHERIFF_VAULT_PAUSE", "")
    if pause.startswith(name + ":"):
        marker = os.environ.get("SHERIFF_VAULT_PAUSED_FILE")
        if marker:
            with open(marker, "w", encoding="utf-8") as f:
                f.write(name)
        time.sleep(float(pause.rsplit(":", 1)[1]))
