"""Citations as one string, read back from the archive, and pinned to what git stored.

A fact cites turns of an archived conversation: `conversations/2026/02/10/090000-c391.md#t12-t14`.
Pinned, `...#t12-t14@1a2b3c4`, it names the file as it was in commit 1a2b3c4 (or the blob with
that id: sleep pins to the blob, since its own commit does not exist while it writes), so a later
edit of the conversation file never changes what the citation shows. Turns are ids as the archive
writes them (`## 2026-02-10 09:00:00 - user (t12)`), separated by commas; `t12-t14` or `t12..t14`
is every turn from t12 to t14 in file order.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sheriff_vault.errors import CitationError
from sheriff_vault.store import gitlog
from sheriff_vault.store.buffer import Turn, parse_markdown
from sheriff_vault.store.items import Citation, split_target

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault

HINT = "write it like conversations/2026/02/10/090000-c391.md#t12-t14@1a2b3c4 (turns and @commit are optional)"


def parse_ref(ref: str) -> Citation:
    """`conversations/x.md#t12,t14@1a2b3c4` (also with `../`, `-`/`..` ranges, no turns, no pin) -> Citation."""
    text = ref.strip().strip("<>")
    path, frag, sha = split_target(text)
    if not path.startswith("conversations/") or not path.endswith(".md"):
        raise CitationError(f"{ref!r} does not name an archived conversation", hint=HINT)
    turns = tuple(t.strip() for t in frag.split(",") if t.strip())
    return Citation(path, turns, sha)


def blob_id(data: bytes) -> str:
    """The id git gives these bytes as a file (`git hash-object`), known before any commit."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class Cited:
    """What a citation shows: the turns it names, read from the version it names."""

    citation: Citation
    version: str  # "working tree", "commit <sha>" or "blob <sha>"
    turns: list[Turn] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"ref": self.citation.ref, "file": self.citation.file, "commit": self.citation.commit or None,
                "version": self.version, "turns": [t.to_json() for t in self.turns], "missing": self.missing}

    def describe(self) -> str:
        lines = [f"{self.citation.ref}  ({self.version})"]
        for t in self.turns:
            stamp = f"{t.at:%Y-%m-%d %H:%M}" if t.at else "----------"
            lines.append(f"\n[{t.id}] {stamp} {t.role}{': ' + t.name if t.name else ''}\n{t.content}")
        if self.missing:
            lines.append(f"\nnot in that version: {', '.join(self.missing)}")
        return "\n".join(lines)


def read_text(vault: Vault, citation: Citation) -> tuple[str, str]:
    """The cited file's text and which version it is: the pinned commit or blob, else the working tree."""
    sha = citation.commit
    if not sha:
        path = vault.path(citation.file)
        if not path.is_file():
            raise CitationError(f"{citation.file} does not exist", path=citation.file,
                                hint="pin the citation to a commit that had it (...@<sha>), or restore it from git")
        return path.read_text(encoding="utf-8"), "working tree"
    kind = gitlog.object_type(vault.root, sha)
    if kind == "blob":
        text = gitlog.show_blob(vault.root, sha)
        if text is not None:
            return text, f"blob {sha}"
    elif kind in ("commit", "tag"):
        full = gitlog.resolve(vault.root, sha) or sha
        text = gitlog.show_file(vault.root, full, citation.file)
        if text is None:
            raise CitationError(f"commit {sha} has no file {citation.file}", path=citation.file,
                                hint=f"`git log --oneline -- {citation.file}` lists the commits that have it")
        return text, f"commit {full}"
    raise CitationError(f"{sha} is not a commit or file of this vault's git history", path=citation.file,
                        hint="use a commit from `git log` (7+ hex digits); a shallow clone may lack old commits")


def select(turns: list[Turn], wanted: tuple[str, ...]) -> tuple[list[Turn], list[str]]:
    """The turns named by id or by a `first-last` / `first..last` range, in file order, and what is missing."""
    if not wanted:
        return list(turns), []
    pos = {t.id: i for i, t in enumerate(turns)}
    keep: set[int] = set()
    missing = []
    for token in wanted:
        if token in pos:
            keep.add(pos[token])
            continue
        for sep in ("..", "-"):
            first, _, last = token.partition(sep)
            if first in pos and last in pos:
                lo, hi = sorted((pos[first], pos[last]))
                keep.update(range(lo, hi + 1))
                break
        else:
            missing.append(token)
    return [turns[i] for i in sorted(keep)], missing


def read_cited(vault: Vault, citation: Citation | str) -> Cited:
    """The turns a citation names, from the version it is pinned to (never drifting), else the file now."""
    cite = parse_ref(citation) if isinstance(citation, str) else citation
    text, version = read_text(vault, cite)
    turns, missing = select(parse_markdown(text, cite.file), cite.turns)
    return Cited(cite, version, turns, missing)


def pin(vault: Vault, citation: Citation | str, commit: str = "HEAD") -> Citation:
    """The citation pinned to `commit` (short sha); refuses a commit that lacks the file."""
    cite = parse_ref(citation) if isinstance(citation, str) else citation
    full = gitlog.resolve(vault.root, commit)
    if full is None:
        raise CitationError(f"{commit!r} is not a commit of this vault", hint="commit the conversation first")
    if gitlog.show_file(vault.root, full, cite.file) is None:
        raise CitationError(f"commit {full[:8]} has no file {cite.file}", path=cite.file,
                            hint="commit it first (`vault sleep` commits what it archives)")
    return Citation(cite.file, cite.turns, gitlog.short_sha(vault.root, full))
