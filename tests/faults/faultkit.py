"""Machinery for the fault suite: template vaults, the clean-run baseline, and crash-then-check.

Every run copies a template vault, starts a real `vault sleep` subprocess, kills it with SIGKILL
(at a named fault point, or after a random delay), then checks what a person would see next:
the first command recovers with a one-line note, git is clean or holds the complete sleep commit,
`vault doctor` passes, the next sleep succeeds, and no turn is lost. Templates are built once per
test process and copied, so each run costs one vault copy plus a few CLI calls.
"""
from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "conversation.jsonl"
NOW_A = "2026-02-20T03:31:00Z"
NOW_B = "2026-02-24T10:00:00Z"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
SLEEP_POINTS = ("sleep:appended", "sleep:planned", "sleep:journaled", "sleep:half-written", "sleep:written",
                "sleep:committed", "sleep:trimmed")
INDEX_POINTS = ("index:writing", "index:tantivy-committed", "index:applied")
EDIT_POINTS = ("edit:journaled", "edit:saved", "edit:committed")  # killed in test_concurrency.py

# A follow-up conversation for scenario B: the example goes on three days later, so the second
# sleep updates topics the first one made (tracked files, which a rollback must restore from git).
FOLLOWUP = [
    ("user", "Quick update on Caroline's party at Riverside Park: Melanie confirmed the cake, chocolate and nut free."),
    ("assistant", "Good: Melanie brings a nut-free chocolate cake to the party at Riverside Park."),
    ("user", "The bouncy castle company wants a 100 USD deposit by Friday."),
    ("assistant", "Open item: pay the 100 USD bouncy castle deposit by Friday."),
    ("user", "On the Postgres migration: the invoices index is in and the dry run passed on Thursday."),
    ("assistant", "So the migration to Postgres 16 is unblocked now that the invoices index exists."),
    ("user", "We plan the real cutover for Sunday night, with a one hour maintenance window."),
    ("assistant", "Cutover planned for Sunday night, one hour maintenance window."),
    ("user", "For Sheriff, the daemon now answers recall in 12 ms at p50, well under the 30 ms target."),
    ("assistant", "Recorded: recall p50 is 12 ms through the daemon."),
    ("user", "Anna moved her graduation party to July because the venue was taken in June."),
    ("assistant", "Noted: Anna's graduation party is now in July."),
    ("user", "Next for Sheriff: write the graph edges and the utility scoring in memory.py."),
    ("assistant", "I'll write the graph edges first, then the utility scoring."),
    ("tool", "pytest: 17 passed"),
    ("assistant", "All 17 tests pass with the graph edges in place."),
]


def followup_jsonl() -> str:
    lines = []
    for i, (role, content) in enumerate(FOLLOWUP):
        at = f"2026-02-23T09:{i * 2:02d}:00Z"
        lines.append(json.dumps({"role": role, "content": content, "at": at, "id": f"t{43 + i}"}))
    return "\n".join(lines) + "\n"


# -- running the CLI ---------------------------------------------------------------------------
def cli_env(extra: dict | None = None) -> dict:
    env = dict(os.environ)
    for key in ("SHERIFF_VAULT", "SHERIFF_VAULT_FAULT", "SHERIFF_VAULT_PAUSE", "SHERIFF_VAULT_PAUSED_FILE",
                "SHERIFF_VAULT_DEBUG"):
        env.pop(key, None)
    env.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"})
    env.update(extra or {})
    return env


def vault_argv(*args: object) -> list[str]:
    return [sys.executable, "-m", "sheriff_vault", *map(str, args)]


def cli(*args: object, env: dict | None = None, timeout: float = 180) -> subprocess.CompletedProcess:
    """Run `vault ARGS` to completion; a traceback on stderr fails the calling test at once."""
    proc = subprocess.run(vault_argv(*args), capture_output=True, text=True, env=cli_env(env), timeout=timeout)
    assert "Traceback" not in proc.stderr, f"`vault {' '.join(map(str, args))}` showed a traceback:\n{proc.stderr}"
    return proc


def git(root: Path, *args: str, check: bool = True) -> str:
    out = subprocess.run(["git", "-c", "user.name=Person", "-c", "user.email=person@example.com", *args], cwd=root,
                         capture_output=True, text=True)
    if check and out.returncode:
        raise AssertionError(f"git {' '.join(args)} failed: {out.stderr}")
    return out.stdout


def porcelain(root: Path) -> list[str]:
    """`git status --porcelain`; .vault/ and quarantine/ are git-ignored, so nothing is filtered here."""
    return [line for line in git(root, "status", "--porcelain", "--untracked-files=all").splitlines() if line.strip()]


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def new_commits(root: Path, base: str) -> list[str]:
    return git(root, "rev-list", f"{base}..HEAD").split()


def changed_files(root: Path, sha: str) -> list[str]:
    return sorted(git(root, "diff-tree", "--no-commit-id", "--name-only", "-r", sha).split())


def normalized(text: str) -> str:
    """Topic ids are random uuids; everything else a sleep writes is determined by --now and the turns."""
    return UUID.sub("<uuid>", text)


def buffer_ids(root: Path) -> list[str]:
    path = root / ".vault" / "buffer.jsonl"
    if not path.exists():
        return []
    ids = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            ids.append(json.loads(line)["id"])
        except (ValueError, KeyError):
            ids.append("<torn>")
    return ids


def cited_ids(root: Path) -> set[str]:
    """Turn ids cited by any fact, open loop or event line of any topic."""
    from sheriff_vault.store.vault import Vault

    cited: set[str] = set()
    for topic in Vault(root).topics.all():
        for item in topic.items():
            for c in item.citations:
                cited.update(c.turns)
    return cited


def archived_ids(root: Path) -> set[str]:
    """Turn ids kept verbatim in committed conversation archives."""
    from sheriff_vault.store.buffer import parse_markdown

    tracked = git(root, "ls-files", "conversations").split()
    out: set[str] = set()
    for rel in tracked:
        if rel.endswith(".md"):
            out.update(t.id for t in parse_markdown((root / rel).read_text(encoding="utf-8"), rel))
    return out


def wait_hook_idle(root: Path, timeout: float = 60) -> None:
    """The post-commit hook indexes in the background; wait for its line about HEAD before copying."""
    log = root / ".vault" / "logs" / "hook.log"
    sha = head(root)[:8]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and sha in log.read_text(errors="replace"):
            return
        time.sleep(0.05)
    raise AssertionError(f"the post-commit hook never logged {sha}")


def clone(template: Path, dest: Path) -> Path:
    shutil.copytree(template, dest, symlinks=True)
    return dest


# -- templates and the clean baseline -------------------------------------------------------
@dataclass
class Outcome:
    files: list[str]
    contents: dict[str, str]
    buffer: list[str]
    cited: set[str]


@dataclass
class Scenario:
    name: str
    template: Path
    args: list[str]
    now: str
    turns: list[str]
    incoming: list[str]
    base: str
    clean: Outcome
    seconds: float


def configure(root: Path, *, lexical: bool = True, tail: int | None = None) -> None:
    """embedding.enabled: false makes each CLI process start fast (recall and sleep run lexically)."""
    path = root / "vault.yaml"
    text = path.read_text()
    if lexical:
        text = text.replace("  enabled: true", "  enabled: false")
    if tail is not None:
        text = re.sub(r"tail_turns: \d+", f"tail_turns: {tail}", text)
    path.write_text(text)


def outcome(root: Path, base: str) -> Outcome:
    sha = head(root)
    files = changed_files(root, sha) if sha != base else []
    return Outcome(files, {f: normalized((root / f).read_text(encoding="utf-8")) for f in files},
                   buffer_ids(root), cited_ids(root))


@cache
def workdir() -> Path:
    """One folder per test process, removed at exit unless SHERIFF_VAULT_KEEP_FAULTS is set (to debug)."""
    path = Path(tempfile.mkdtemp(prefix="sv-faults-"))
    if not os.environ.get("SHERIFF_VAULT_KEEP_FAULTS"):
        atexit.register(shutil.rmtree, path, True)
    return path


@cache
def scenario(name: str, model: bool = False) -> Scenario:
    """A: the example conversation into a fresh vault (topics created). B: a follow-up sleep that
    updates those topics, with the search index deleted so the sleep rebuilds it first (the
    index fault points then fire before the journal, not after it)."""
    from sheriff_vault.store.vault import init_vault

    top = workdir() / f"{name}{'-model' if model else ''}"
    root = top / "template"
    init_vault(root)
    configure(root, lexical=not model)
    git(root, "commit", "-qam", "test: config", "--allow-empty")
    wait_hook_idle(root)
    args: list[str] = ["sleep", str(EXAMPLE), "--now", NOW_A, "--vault", str(root)]
    turns = [f"t{i}" for i in range(1, 43)]
    now = NOW_A
    if name == "B":
        first = cli(*args)
        assert first.returncode == 0, first.stderr
        wait_hook_idle(root)
        configure(root, lexical=not model, tail=2)
        git(root, "commit", "-qam", "test: keep a 2-turn tail, so the follow-up itself is compacted")
        wait_hook_idle(root)
        shutil.rmtree(root / ".vault" / "index")
        follow = top / "followup.jsonl"
        follow.write_text(followup_jsonl())
        args = ["sleep", str(follow), "--now", NOW_B, "--vault", str(root)]
        turns = [f"t{i}" for i in range(23, 43 + len(FOLLOWUP))]
        now = NOW_B
    base = head(root)
    probe = clone(root, top / "clean")
    started = time.monotonic()
    done = cli(*retarget(args, probe))
    seconds = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert len(new_commits(probe, base)) == 1
    incoming = [json.loads(line)["id"] for line in Path(args[1]).read_text().splitlines() if line.strip()]
    return Scenario(name, root, args, now, turns, incoming, base, outcome(probe, base), seconds)


def retarget(args: list[str], root: Path) -> list[str]:
    out = list(args)
    out[out.index("--vault") + 1] = str(root)
    return out


# -- one crash and everything checked after it ------------------------------------------------
@dataclass
class Run:
    scenario: str
    how: str
    killed: bool = False
    stage: str = ""
    recovery: str = ""
    outcome: str = ""
    seconds: float = 0.0
    stderr: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {k: v for k, v in asdict(self).items() if k != "stderr"}


def stage_of(root: Path, scn: Scenario) -> str:
    """Where in the pipeline the process died, read from what it left behind."""
    if (root / ".vault" / "journal.json").exists():
        if new_commits(root, scn.base):
            return "after the commit, before the journal end"
        return "between journal and commit"
    if new_commits(root, scn.base):
        return "after the sleep finished (index refresh, exit)"
    have = set(scn.incoming) & set(buffer_ids(root))
    if not have:
        return "before the buffer append"
    if have != set(scn.incoming):
        return "during the buffer append"
    return "after the append, before the journal"


def crash_and_check(scn: Scenario, dest: Path, *, fault: str | None = None, delay: float | None = None,
                    after_journal: float | None = None, group: bool = True) -> Run:
    """Kill one `vault sleep`, then check recovery, git, doctor, the next sleep and the turns."""
    how = fault or (f"kill at +{delay:.2f}s" if delay is not None else f"kill {after_journal:.3f}s after journal")
    run = Run(scn.name, how + ("" if group else " (process only)"))
    started = time.monotonic()
    root = clone(scn.template, dest)
    args = retarget(scn.args, root)
    env = cli_env({"SHERIFF_VAULT_FAULT": fault} if fault else None)
    proc = subprocess.Popen(vault_argv(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    if fault is None:
        if after_journal is not None:
            journal = root / ".vault" / "journal.json"
            limit = time.monotonic() + 60
            while not journal.exists() and proc.poll() is None and time.monotonic() < limit:
                time.sleep(0.0005)
            time.sleep(after_journal)
        else:
            time.sleep(delay or 0)
        if proc.poll() is None:
            try:
                (os.killpg if group else os.kill)(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    _, err = proc.communicate(timeout=180)
    run.stderr.append(err)
    assert "Traceback" not in err, err
    run.killed = proc.returncode == -signal.SIGKILL
    if fault:
        assert run.killed, f"{fault}: the process was not killed there (rc {proc.returncode}): {err}"
    elif not run.killed:
        assert proc.returncode == 0, err
    run.stage = stage_of(root, scn) if run.killed else "finished before the kill"
    had_journal = (root / ".vault" / "journal.json").exists()

    doctor = cli("doctor", "--vault", root)
    run.stderr.append(doctor.stderr)
    assert doctor.returncode == 0, f"{how}: doctor failed after the crash:\n{doctor.stdout}{doctor.stderr}"
    notes = [line for line in doctor.stderr.splitlines() if line.startswith("note: ")]
    hook_log = root / ".vault" / "logs" / "hook.log"
    if had_journal:
        assert notes or (hook_log.exists() and "note: " in hook_log.read_text(errors="replace")), \
            f"{how}: a half-done sleep was recovered without a notice: {doctor.stderr!r}"
        run.recovery = (notes[0] if notes else "note in hook.log")[:80]
    assert len(notes) <= 1, f"{how}: more than a one-line notice: {notes}"
    assert not (root / ".vault" / "journal.json").exists(), f"{how}: the journal is still there"

    dirty = porcelain(root)
    assert not dirty, f"{how}: git status is not clean after recovery: {dirty}"
    commits = new_commits(root, scn.base)
    assert len(commits) <= 1, f"{how}: {len(commits)} commits"
    if commits:
        _assert_matches_clean(root, scn, commits[0], how)
        run.outcome = "finished (commit had landed)"
        nxt = cli("sleep", "--now", scn.now, "--vault", root)
    else:
        run.outcome = "rolled back" if had_journal else "nothing to undo"
        nxt = cli(*args)
    run.stderr.append(nxt.stderr)
    assert nxt.returncode == 0, f"{how}: the next sleep failed:\n{nxt.stderr}"

    commits = new_commits(root, scn.base)
    assert len(commits) == 1, f"{how}: {len(commits)} sleep commits in the end"
    _assert_matches_clean(root, scn, commits[0], how)
    assert not porcelain(root), f"{how}: git status not clean after the next sleep: {porcelain(root)}"
    assert buffer_ids(root) == scn.clean.buffer, f"{how}: buffer {buffer_ids(root)} != {scn.clean.buffer}"
    cited = cited_ids(root)
    assert scn.clean.cited <= cited, f"{how}: citations lost: {sorted(scn.clean.cited - cited)}"
    kept = cited | set(buffer_ids(root)) | archived_ids(root)
    assert set(scn.turns) <= kept, f"{how}: turns lost: {sorted(set(scn.turns) - kept)}"
    run.seconds = round(time.monotonic() - started, 2)
    return run


def _assert_matches_clean(root: Path, scn: Scenario, sha: str, how: str) -> None:
    files = changed_files(root, sha)
    assert files == scn.clean.files, f"{how}: the commit changed {files}, a clean run changes {scn.clean.files}"
    body = git(root, "log", "-1", "--format=%B", sha)
    assert "Sleep-Id: " in body
    for rel in files:
        got = normalized(git(root, "show", f"{sha}:{rel}"))
        assert got == scn.clean.contents[rel], f"{how}: {rel} differs from a clean run's"


def record(runs: list[Run], name: str) -> None:
    """Append run summaries to $SHERIFF_VAULT_FAULT_REPORT (JSON lines) for benchmarks/RELIABILITY.md."""
    target = os.environ.get("SHERIFF_VAULT_FAULT_REPORT")
    if not target:
        return
    with open(target, "a", encoding="utf-8") as fh:
        for r in runs:
            fh.write(json.dumps({"test": name, **r.to_json()}) + "\n")


_PAUSED: dict[int, Path] = {}  # a paused process's pid -> the file it writes when it reaches its pause


def start(*args: object, env: dict | None = None) -> subprocess.Popen:
    """Start `vault ARGS` in the background (its own session, so a test can kill it and its children);
    with SHERIFF_VAULT_PAUSE it announces reaching the pause in a file `wait_paused` waits for."""
    env = dict(env or {})
    marker = None
    if "SHERIFF_VAULT_PAUSE" in env:
        marker = Path(tempfile.mkdtemp(prefix="sv-pause-")) / "paused"
        env["SHERIFF_VAULT_PAUSED_FILE"] = str(marker)
    proc = subprocess.Popen(vault_argv(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=cli_env(env), start_new_session=True)
    if marker is not None:
        _PAUSED[proc.pid] = marker
    return proc


def finish(proc: subprocess.Popen, timeout: float = 180) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=timeout)
    assert "Traceback" not in err, err
    return proc.returncode, out, err


def wait_paused(proc: subprocess.Popen, timeout: float = 60) -> None:
    """Wait until a process started with SHERIFF_VAULT_PAUSE sits in that pause: it has written its
    marker file (any other sleep of its own, a lock's retry say, is not the pause) and is asleep."""
    marker = _PAUSED.get(proc.pid)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the process ended before its pause: {proc.communicate()}"
        try:
            if (marker is None or marker.exists()) and "nanosleep" in Path(f"/proc/{proc.pid}/wchan").read_text():
                if marker is not None:
                    shutil.rmtree(_PAUSED.pop(proc.pid).parent, ignore_errors=True)
                return
        except OSError:
            pass
        time.sleep(0.02)
    raise AssertionError("the process never reached its pause point")
