"""Every exception a person can act on lives here; the CLI turns them into one line and a non-zero exit."""
from __future__ import annotations

from pathlib import Path
from typing import Any


class VaultError(Exception):
    """Base class: something went wrong that the person can fix; message says what to do."""

    exit_code = 1

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        line: int | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.hint = hint

    def located(self) -> str:
        """The message with the file and line it is about in front."""
        where = ""
        if self.path:
            where = f"{self.path}:{self.line}: " if self.line else f"{self.path}: "
        return f"{where}{self.message}"

    def __str__(self) -> str:
        return f"{self.located()} ({self.hint})" if self.hint else self.located()

    def to_json(self) -> dict[str, Any]:
        """The error as `--json` prints it: a kind a program can branch on (the class name below),
        what went wrong, and what to do (or None)."""
        return {"kind": type(self).__name__, "message": self.located(), "hint": self.hint}


class VaultNotFound(VaultError):
    """No vault at --vault, SHERIFF_VAULT, or any folder above the current one."""


class InitRefused(VaultError):
    """`vault init` was pointed at a folder it should not take over."""


class ConfigError(VaultError):
    """vault.yaml has a bad value; the message names the key."""


class TopicFormatError(VaultError):
    """A topic file cannot be read; the message names the file and line."""


class TopicNotFound(VaultError):
    """No topic matches the id, slug or name given."""


class TopicExists(VaultError):
    """`vault topic new` was given the name of a topic that already exists."""


class AmbiguousTopic(VaultError):
    """More than one topic matches a name; the message lists them."""


class TimePhraseError(VaultError):
    """A phrase does not name a time window we understand."""


class ConversationFormatError(VaultError):
    """A conversation buffer (JSONL or Markdown) has a bad line."""


class LockTimeout(VaultError):
    """Another process held a vault or index lock for too long."""


class GitError(VaultError):
    """A git operation failed; the message says which and why."""


class IndexUnavailable(VaultError):
    """The search index cannot be used and could not be rebuilt."""


class DaemonError(VaultError):
    """The watch daemon could not be started, reached or stopped."""


class ExtractorError(VaultError):
    """A model call failed: the sleep extractor (offline or OpenAI) or the agent's Responses API call."""


class UnsafeContent(VaultError):
    """A memory write contains injection phrasing, an exfiltration command, hidden Unicode or a secret."""


class SkillError(VaultError):
    """A skill's manifest is bad, or running it failed or timed out."""


class ToolError(VaultError):
    """A tool call had bad arguments or tried to leave the repository."""


class SyncError(VaultError):
    """`vault sync` could not fetch, merge or push; the message says what happened and what to do."""


class CitationError(VaultError):
    """A citation does not parse, or names a file, turn or commit that is not there."""


class PipelineMissing(VaultError):
    """The English NLP pipeline sleep reads structure with (sleep.nlp_pipeline) is not installed or broken."""


class ModelExportError(VaultError):
    """The embedding model could not be exported to ONNX (`embedding.backend: onnx`)."""


class EditConflict(VaultError):
    """A topic changed since the person opened it and their edit clashes with that change; nothing was written."""


class ServeError(VaultError):
    """`vault serve` was asked to listen where it should not, or could not listen."""
