"""`vault migrate`: bring topics written by older versions to the shape Obsidian reads, as one commit.

Older vaults hold `related` and `numbers` as lists of YAML mappings, which Obsidian's Properties
panel shows as invalid, and list related topics only as ids. Migrating rewrites those two keys as
one-line strings (topics.edge_text, topics.number_text: every value is kept, and readers take
either shape, so an unmigrated clone still works) and writes each topic's `## Related` section of
`[[slug|Name]]` links. Nothing else in a file changes; running it again changes nothing.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sheriff_vault.errors import VaultError
from sheriff_vault.store import journal

if TYPE_CHECKING:
    from sheriff_vault.store.topics import Topic
    from sheriff_vault.store.vault import Vault


@dataclass
class MigrateResult:
    flattened: dict[str, list[str]] = field(default_factory=dict)  # topic path -> the keys rewritten flat
    linked: list[str] = field(default_factory=list)  # topic paths whose `## Related` section was written
    skipped: list[str] = field(default_factory=list)  # files that do not read as topics (`vault doctor` says why)
    commit: str | None = None
    dry_run: bool = False

    @property
    def changed(self) -> list[str]:
        return sorted(set(self.flattened) | set(self.linked))

    def to_json(self) -> dict:
        return {"changed": self.changed, "flattened": self.flattened, "linked": self.linked,
                "skipped": self.skipped, "commit": self.commit, "dry_run": self.dry_run}

    def describe(self) -> str:
        if not self.changed:
            head = "nothing to migrate: every topic is in the current shape"
        else:
            verb = "would change" if self.dry_run else "changed"
            head = (f"{verb} {len(self.changed)} topic(s)" + (f" (commit {self.commit[:8]})" if self.commit else "")
                    + f": {len(self.flattened)} with nested frontmatter made flat, "
                      f"{len(self.linked)} with a `## Related` section written")
        lines = [head] + [f"  {p}" for p in self.changed]
        lines += [f"  skipped {p} (it does not read as a topic; `vault doctor` says why)" for p in self.skipped]
        return "\n".join(lines)


def migrate(vault: Vault, *, dry_run: bool = False) -> MigrateResult:
    """Rewrite every topic in the current shape (see the module docstring); one commit, or none."""
    result = MigrateResult(dry_run=dry_run)
    with vault.lock(timeout=120):
        errors: list[VaultError] = []
        topics = vault.topics.all(on_error=errors.append)
        result.skipped = sorted(e.path or "topics/" for e in errors)
        names = {t.id: (t.slug, t.name) for t in topics}
        changed: list[Topic] = []
        for topic in topics:
            keys = topic.flatten()
            if keys:
                result.flattened[topic.rel] = keys
            if topic.sync_related(names.get):
                result.linked.append(topic.rel)
            if topic.dirty:
                changed.append(topic)
        if dry_run or not changed:
            return result
        files: dict[str, bytes | None] = {t.rel: t.render().encode() for t in changed}
        message = (f"migrate: {len(changed)} topic(s) in the shape Obsidian reads (flat frontmatter, "
                   "[[links]] to related topics)\n\n"
                   + "\n".join(f"- {t.rel}: " + ", ".join(
                       [*(f"`{k}` made flat" for k in result.flattened.get(t.rel, [])),
                        *(["`## Related` written"] if t.rel in result.linked else [])]) for t in changed))
        with journal.transaction(vault, "edit", files) as tx:
            for topic in changed:
                topic.save()
            result.commit = tx.commit(message, list(files))
    return result
