"""fsutil.atomic_write under SIGKILL: a reader finds the old file or the new one, whole, never a
mix or a truncated file, and the file keeps its mode. A killed writer may leave a dot-temp file
beside it, which every reader of the vault skips (and .gitignore hides)."""
from __future__ import annotations

import random
import signal
import subprocess
import sys
import time

import pytest

from sheriff_vault.store.fsutil import atomic_write

WRITER = """
import sys
from pathlib import Path
from sheriff_vault.store.fsutil import atomic_write
target = Path(sys.argv[1])
a, b = b"A" * 3_000_000, b"B" * 2_000_000
print("ready", flush=True)
n = 0
while True:
    atomic_write(target, a if n % 2 else b)
    n += 1
"""


@pytest.mark.slow
def test_a_killed_writer_leaves_the_old_or_the_new_file_whole(tmp_path):
    target = tmp_path / "topic.md"
    atomic_write(target, b"A" * 3_000_000, mode=0o640)
    rng = random.Random(6)
    for _ in range(25):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(target)], stdout=subprocess.PIPE, text=True)
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.0, 0.08))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        data = target.read_bytes()
        assert data in (b"A" * 3_000_000, b"B" * 2_000_000), f"a torn file of {len(data)} bytes"
        assert target.stat().st_mode & 0o777 == 0o640
    leftovers = [p.name for p in tmp_path.iterdir() if p != target]
    assert all(n.startswith(".topic.md.") and n.endswith(".tmp") for n in leftovers), leftovers


FULL_DISK = """
import resource, signal, sys
from pathlib import Path
from sheriff_vault.store.fsutil import atomic_write
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
try:
    atomic_write(Path(sys.argv[1]), "new\\n" * 10_000)
except OSError as exc:
    print("refused", exc.errno)
"""


def test_a_write_that_runs_out_of_space_keeps_the_old_file_and_no_temp(tmp_path):
    """RLIMIT_FSIZE makes the write fail the way a full disk does (EFBIG instead of ENOSPC)."""
    target = tmp_path / "topic.md"
    atomic_write(target, "old\n")
    out = subprocess.run([sys.executable, "-c", FULL_DISK, str(target)], capture_output=True, text=True)
    assert out.stdout.startswith("refused"), out.stdout + out.stderr
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["topic.md"]
