"""Where a vault lives, what is in it, and `vault init`.

One function (`find_vault`) decides which vault a command works on: `--vault PATH`, then the
SHERIFF_VAULT environment variable, then the current folder and its parents.
"""
from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from pathlib import Path

from sheriff_vault.config import CONFIG_NAME, Config, load_config
from sheriff_vault.errors import InitRefused, VaultNotFound
from sheriff_vault.store import gitlog, topicmerge
from sheriff_vault.store.fsutil import atomic_write
from sheriff_vault.store.locks import FileLock
from sheriff_vault.store.topics import TopicStore

ENV_VAR = "SHERIFF_VAULT"
CONTENT_DIRS = ("topics", "events", "wake", "conversations", "skills", "quarantine")
CACHE_DIR = ".vault"
HOOKS = ("post-commit", "post-merge", "post-checkout", "post-rewrite")


@dataclass
class Vault:
    root: Path
    _config: Config | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.root = Path(self.root).resolve()

    @cached_property
    def config(self) -> Config:
        return self._config or load_config(self.root)

    @property
    def topics(self) -> TopicStore:
        return TopicStore(self.root)

    @property
    def cache(self) -> Path:
        return self.root / CACHE_DIR

    @property
    def logs(self) -> Path:
        return self.cache / "logs"

    @property
    def buffer_path(self) -> Path:
        return self.cache / "buffer.jsonl"

    @property
    def journal_path(self) -> Path:
        """Where a sleep or topic edit records its intent before writing (see journal.py)."""
        return self.cache / "journal.json"

    def path(self, *parts: str) -> Path:
        return self.root.joinpath(*parts)

    def rel(self, path: Path | str) -> str:
        p = Path(path)
        if not p.is_absolute():
            p = self.root / p
        return p.resolve().relative_to(self.root).as_posix()

    def config_repo(self) -> Path:
        """The repository the agent's repo tools work in (agent.repo in vault.yaml, else the cwd)."""
        repo = self.config.agent.repo
        if not repo:
            return Path.cwd().resolve()
        path = Path(repo).expanduser()
        return (path if path.is_absolute() else self.root / path).resolve()

    def lock(self, timeout: float = 60.0) -> FileLock:
        """The writer lock for multi-file changes (sleep, upsert, link)."""
        return FileLock(self.cache / "vault.lock", what="vault", timeout=timeout)


def is_vault(path: Path) -> bool:
    return (Path(path) / CONFIG_NAME).is_file() and (Path(path) / "topics").is_dir()


def find_vault(explicit: str | Path | None = None, start: Path | None = None) -> Vault:
    """--vault wins, then SHERIFF_VAULT, then the nearest folder upward holding vault.yaml and topics/."""
    for source, value in (("--vault", explicit), (ENV_VAR, os.environ.get(ENV_VAR))):
        if value:
            path = Path(value).expanduser()
            if not is_vault(path):
                raise VaultNotFound(
                    f"{path} is not a vault (no vault.yaml and topics/ there); it came from {source}",
                    hint=f"run `vault init {path}` or point {source} at an existing vault",
                )
            return Vault(path)
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if is_vault(folder):
            return Vault(folder)
    raise VaultNotFound(
        f"no vault in {here} or any folder above it",
        hint=f"run `vault init PATH`, pass --vault PATH, or set {ENV_VAR}",
    )


def _template_root() -> Path:
    """vault_template/ ships inside the package (pyproject maps it); a source checkout has it at the top."""
    local = Path(__file__).resolve().parents[2] / "vault_template"
    if local.is_dir():
        return local
    return Path(str(resources.files("sheriff_vault.vault_template")))


def hook_template(name: str = "post-commit") -> Path:
    local = Path(__file__).resolve().parents[2] / "hooks" / name
    if local.is_file():
        return local
    return Path(str(resources.files("sheriff_vault.hooks").joinpath(name)))


@dataclass
class InitResult:
    vault: Vault
    created: bool
    commit: str | None
    added: list[str]

    def to_json(self) -> dict:
        return {"path": str(self.vault.root), "created": self.created, "commit": self.commit, "added": self.added}


def init_vault(path: Path, *, force: bool = False) -> InitResult:
    """Make (or repair) a vault: template files, content folders, git repository, git hooks, and the
    topic merge driver (.gitattributes plus .git/config; run it again in a fresh clone to register it).

    On an existing vault it only adds what is missing, so running it twice is harmless. A
    non-empty folder that is not a vault is refused unless `force`; even then nothing is overwritten.
    """
    root = Path(path).expanduser().resolve()
    existing = is_vault(root)
    if root.exists() and not root.is_dir():
        raise InitRefused(f"{root} is a file, not a folder", hint="choose another path")
    if root.is_dir() and not existing and not force:
        visible = [p.name for p in root.iterdir() if p.name not in (".git",)]
        if visible:
            raise InitRefused(
                f"{root} is not empty and is not a vault ({len(visible)} entries, e.g. {sorted(visible)[0]!r})",
                hint="pick an empty folder, or pass --force to add a vault beside those files",
            )
    root.mkdir(parents=True, exist_ok=True)
    added: list[str] = []
    template = _template_root()
    for src in sorted(template.rglob("*")):
        if src.is_dir() or "__pycache__" in src.parts or src.name == "__init__.py":
            continue
        rel = src.relative_to(template).as_posix()
        dest_rel = ".gitignore" if rel == "gitignore" else rel
        dest = root / dest_rel
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest)
            added.append(dest_rel)
    for name in CONTENT_DIRS:
        keep = root / name / ".gitkeep"
        if not (root / name).is_dir() or not any((root / name).iterdir()):
            keep.parent.mkdir(parents=True, exist_ok=True)
            keep.touch()
            added.append(f"{name}/.gitkeep")
    (root / CACHE_DIR / "logs").mkdir(parents=True, exist_ok=True)
    if not gitlog.is_repo(root):
        gitlog.init(root)
    for name in HOOKS:
        install_hook(root, name)
    if topicmerge.install(root, sys.executable):
        added.append(".gitattributes")
    commit = gitlog.commit_paths(root, "init: new vault", added) if added else None
    return InitResult(Vault(root), not existing, commit, added)


def install_hook(root: Path, name: str = "post-commit") -> Path:
    """Put one of our hooks in place (post-commit, and post-merge, post-checkout, post-rewrite that
    keep the index at HEAD), pointing at this Python so it works outside any venv. A person's own
    hook of that name is kept as NAME.local and still runs."""
    target = gitlog.hooks_dir(root) / name
    text = hook_template(name).read_text(encoding="utf-8").replace("@PYTHON@", sys.executable)
    current = target.read_text(encoding="utf-8", errors="replace") if target.exists() else None
    if current is not None and f"sheriff-vault {name} hook" not in current:
        target.rename(target.with_name(f"{name}.local"))
    if current != text:
        atomic_write(target, text, mode=0o755)
    return target
