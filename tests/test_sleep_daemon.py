"""With a daemon up, `vault sleep` never loads a model of its own (torch stays unimported): the daemon
runs the sleep (tests/test_sleep_in_daemon.py), or, when it declines (the openai extractor), the
sleep embeds with the daemon's model; the vectors are those of the same model."""
from __future__ import annotations

import json

import pytest
from conftest import run_vault, watching
from memory_fixtures import TALK

from sheriff_vault.daemon import rpc
from sheriff_vault.daemon.remote_embed import DaemonEmbedder
from sheriff_vault.index.embed import Embedder

TURNS = TALK * 6


@pytest.fixture
def daemon(vault):
    with watching(vault):
        yield vault


@pytest.mark.slow
def test_sleep_uses_the_daemons_model(daemon, tmp_path):
    convo = tmp_path / "c.jsonl"
    convo.write_text("".join(json.dumps({"role": r, "content": c, "at": f"2026-02-19T10:{i:02d}:00Z"}) + "\n"
                             for i, (r, c) in enumerate(TURNS)))
    out = run_vault("sleep", convo, "--now", "2026-02-20T03:21:00Z", "--vault", daemon.root, "--json",
                    env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert out.returncode == 0, out.stderr[-3000:]
    modules = {line.rsplit("|", 1)[1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}
    assert "sheriff_vault.daemon.remote_sleep" in modules
    assert "torch" not in modules and "transformers" not in modules
    assert json.loads(out.stdout)["created"]
    status = rpc.call(daemon, "status")
    assert status["vectors"] == status["documents"]
    found = json.loads(run_vault("recall", "postgres upgrade dry run", "--vault", daemon.root, "--json",
                                 "--now", "2026-02-20T03:21:00Z").stdout)
    assert found["via"] == "daemon" and found["topics"]


@pytest.mark.slow
def test_daemon_vectors_equal_local_ones(daemon):
    local = Embedder()
    remote = DaemonEmbedder(daemon, local)
    texts = ["the dry run failed", "Caroline's party", "x" * 3000]
    a = remote.encode(texts)
    assert remote.remote_calls == 1 and not local.loaded
    assert remote.dim == 384
    b = local.encode(texts)
    assert float((a * b).sum(axis=1).min()) >= 1 - 1e-5
