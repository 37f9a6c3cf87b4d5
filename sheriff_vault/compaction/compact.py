"""`vault sleep`: compact the older part of the conversation into topics, as ONE git commit.

The one orchestrator of sleep (docs/sleep.md): it keeps the tail and guards the rest, then calls
the stages in order: place the turns into subjects (subjects.py), parse them into facts (units.py,
echo.py), group the facts by subject and title each (naming.py, progress.py), or have the model
do those (extract_openai.py); match each to a topic and write it in (merge.py), strike the values
it corrects (supersede.py), settle one-liners, links and utility (merge.py), and write the files
(write.py). Everything is planned in memory first; a journal makes a crash either roll back or
finish on the next command.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from sheriff_vault import faults, nlp, timewin
from sheriff_vault.compaction.echo import fold_echoes
from sheriff_vault.compaction.merge import (
    Match,
    Target,
    apply,
    candidate_names,
    link,
    local_day,
    match,
    name_words_of,
    names_another,
    settle,
    targets_from,
)
from sheriff_vault.compaction.naming import name_candidates
from sheriff_vault.compaction.parts import Candidate, Change, Extraction, Guarded, Unit, proper_names
from sheriff_vault.compaction.prior import PriorTopic, nearest, prior_topics
from sheriff_vault.compaction.progress import in_progress, skill_refs
from sheriff_vault.compaction.result import SleepResult
from sheriff_vault.compaction.subjects import candidates, exchange_texts, find_subjects
from sheriff_vault.compaction.supersede import note_stand_ins, supersede
from sheriff_vault.compaction.units import make_units
from sheriff_vault.compaction.values import read_ahead
from sheriff_vault.compaction.write import commit_message, files_of, write_files
from sheriff_vault.errors import VaultError
from sheriff_vault.index.docs import embedded_texts, searchable
from sheriff_vault.index.embed import Ahead, Embedder, Encode, safe_encoder
from sheriff_vault.index.engine import Index, Snapshot
from sheriff_vault.store import gitlog, journal
from sheriff_vault.store.buffer import Turn, append_turns, load_buffer
from sheriff_vault.store.fsutil import atomic_write
from sheriff_vault.store.guard import scan
from sheriff_vault.store.items import format_item_date
from sheriff_vault.store.topics import Topic, iso, new_topic, path_id, slugify
from sheriff_vault.text import norm

if TYPE_CHECKING:
    from sheriff_vault.config import Config
    from sheriff_vault.store.vault import Vault

log = logging.getLogger("sheriff_vault.sleep")
Extractor = Callable[..., Extraction]


# what a sleep hands the index of the lines it will write: their texts, and the vectors it already has
Prefetch = Callable[[list[str], Mapping[str, np.ndarray]], object]


class IndexView(Protocol):
    """What a sleep reads from the index: an Index of its own, or the watch daemon's (which holds
    it between requests; daemon/sleeping.py)."""

    embedder: Embedder | None

    def refresh(self, paths: list[str] | None = None) -> object: ...

    def snapshot(self) -> Snapshot: ...

    def embed_query(self, text: str) -> np.ndarray | None: ...

    def prefetch(self, texts: Iterable[str], *, known: Mapping[str, np.ndarray] | None = None) -> None: ...

    def settle_prefetch(self) -> None: ...


def sleep(vault: Vault, turns: list[Turn] | None = None, *, now: dt.datetime | None = None,
          extractor: str | None = None, dry_run: bool = False, index: IndexView | None = None,
          reindex: Callable[[list[str]], object] | None = None, final: bool = False) -> SleepResult:
    """Sleep the vault's buffer (after adding `turns` to it). One commit, or none if nothing to compact.
    `final`: the session ends, so no one holds the tail in context: compact every turn.

    `reindex` indexes the topic and event files the sleep wrote; by default `index` does, here and
    now (daemon.client.sleep hands them to a running daemon instead)."""
    now = now or timewin.utcnow()
    extractor = extractor or vault.config.sleep.extractor
    # the English pipeline loads (or fails, naming its install command) before anything is written
    with nlp.using(vault.config.sleep.nlp_pipeline), vault.lock(timeout=120):
        notes = [n for n in [journal.recover(vault)] if n]
        stamped = sum(1 for t in turns or [] if t.at is None)
        if stamped:
            notes.append(f"{stamped} turn(s) had no timestamp; used {iso(now)}")
        if turns and not dry_run:
            append_turns(vault, turns, now)
            faults.point("sleep:appended")
        buffer = load_buffer(vault)
        if turns and dry_run:
            known = {t.id for t in buffer if t.id}
            extra = [t for t in turns if not (t.id and t.id in known)]
            for i, t in enumerate(extra):
                t.at = t.at or now
                t.id = t.id or f"new{i + 1}"
            buffer += extra
        tail_n = 0 if final else vault.config.sleep.tail_turns
        result = SleepResult(now, _sleep_id(buffer, now), notes=notes, dry_run=dry_run)
        if not buffer:
            result.message = "the buffer is empty: nothing to sleep"
            return result
        if len(buffer) <= tail_n:
            result.message = f"nothing to compact: {len(buffer)} turn(s) fit in the {tail_n}-turn tail"
            result.kept = len(buffer)
            return result
        part, tail = (buffer[:-tail_n], buffer[-tail_n:]) if tail_n else (buffer, [])
        own_index = None
        if index is None:
            index = own_index = Index(vault)
        started = time.monotonic()
        try:
            result = _run(vault, part, tail, now, extractor, dry_run, index, result, reindex or index.refresh)
        finally:
            if own_index is not None:
                own_index.close()
        if not dry_run:
            _log(vault, result, extractor, started)
        return result


def _log(vault: Vault, result: SleepResult, extractor: str, started: float) -> None:
    """One line in .vault/logs/sleep.jsonl: topics created and updated, the wake packet's size."""
    from sheriff_vault.store.logs import write_log

    try:
        wake_bytes = (vault.root / result.wake).stat().st_size if result.wake else 0
    except OSError:
        wake_bytes = 0
    write_log(vault, "sleep", {
        "sleep_id": result.sleep_id, "commit": result.commit or "", "extractor": extractor,
        "compacted": result.compacted, "kept": result.kept, "created": len(result.created),
        "updated": len(result.updated), "topics": [t.get("path", "") for t in result.created + result.updated][:50],
        "quarantined": len(result.quarantined), "wake_bytes": wake_bytes,
        "placement": [[p["turn"], p.get("path", ""), p.get("joined", "")] for p in result.placement][:500],
        "duration_ms": round((time.monotonic() - started) * 1000, 1)})


def _sleep_id(buffer: list[Turn], now: dt.datetime) -> str:
    h = hashlib.sha1(iso(now).encode() + "".join(t.id for t in buffer).encode())
    return h.hexdigest()[:10]


def _run(vault: Vault, part: list[Turn], tail: list[Turn], now: dt.datetime, extractor: str, dry_run: bool,
         index: IndexView, result: SleepResult, reindex: Callable[[list[str]], object]) -> SleepResult:
    """Plan everything in memory, then write and commit it as one journaled change."""
    guarded = _guard(part, tail, result)
    safe = safe_encoder(index.embedder)
    encode: Encode = safe
    if extractor == "offline":  # the model embeds the exchanges while the index is read
        encode = Ahead(encode, exchange_texts(guarded.part))
    index.refresh()
    snap = index.snapshot()

    def prefetch(texts: list[str], known: Mapping[str, np.ndarray]) -> None:
        index.prefetch(texts, known={} if safe.stood_in else known)  # never a stand-in's vectors

    extraction = _extract(vault, extractor, guarded, now, encode, snap, None if dry_run else prefetch)
    first = part[0].at or now
    conv_rel = f"conversations/{first:%Y/%m/%d}/{first:%H%M%S}-{result.sleep_id}.md"
    changes, _ = _plan(vault, extraction, snap, conv_rel, now, vault.config, vault.config.timezone)
    names = _topic_names(snap, changes)
    moved = {PurePosixPath(c.renamed_from).stem for c in changes.values()
             if c.renamed_from and c.renamed_from != c.topic.rel}
    for change in changes.values():
        change.topic.sync_related(names, moved)
    if not dry_run:  # what the index will embed of the files, embedded while they are written
        units = [u for c in extraction.candidates for u in c.units]
        index.prefetch(_searched_texts(changes), known={} if safe.stood_in else _said_vectors(units))
    extraction.in_progress.topic_id = _progress_topic(extraction, changes, index)
    result.subjects, result.in_progress = extraction.subjects, extraction.in_progress
    result.placement = _placement(extraction, changes)
    result.compacted, result.kept = len(part), len(tail)
    files = files_of(vault, result, extraction, changes, guarded, snap, conv_rel, now)
    relinked = _relinked(vault, snap, changes, names, moved)
    files.update({rel: data for rel, (_, data) in relinked.items()})
    log.info("sleep %s subjects: %s", result.sleep_id, json.dumps(extraction.subjects)[:2000])
    if dry_run:
        return result
    faults.point("sleep:planned")
    # what another process indexing the commit finds cached (the post-commit hook's refresh, with no
    # daemon up): the lines embedded ahead, not embedded again there (a daemon's refresh waits for them)
    index.settle_prefetch()
    with journal.transaction(vault, "sleep", files, change_id=result.sleep_id, compacted=[t.id for t in part]) as tx:
        def redo(topic: Topic, change: Change) -> None:
            _update(topic, change.candidates, change, conv_rel, now, vault.config.sleep, vault.config.timezone)

        merged = write_files(vault, files, changes, tx, redo, names, {r: b for r, (b, _) in relinked.items()})
        faults.point("sleep:written")
        result.notes += [f"{rel} changed on disk while sleeping; merged with your edit" for rel in merged]
        for rel, text in guarded.quarantine.items():
            atomic_write(vault.root / rel, text)
        result.commit = tx.commit(commit_message(result, changes, extraction), list(files), when=now)
    if result.commit:
        result.tag = _tag(vault, result)
    reindex([p for p in files if p.startswith(("topics/", "events/"))])
    return result


def _searched_texts(changes: dict[str, Change]) -> list[str]:
    """The texts the index embeds for the topics as planned: each line's, and each topic's own."""
    return [text for change in changes.values() for text in embedded_texts(change.topic)]


def _topic_names(snap: Snapshot, changes: dict[str, Change]) -> Callable[[str], tuple[str, str] | None]:
    """Topic id -> (slug, name), for the `## Related` links of the topics this sleep touches."""
    names = {row.topic_id: (row.slug, row.name) for row in snap.topics.values()}
    names |= {c.topic.id: (c.topic.slug, c.topic.name) for c in changes.values()}
    return names.get


def _relinked(vault: Vault, snap: Snapshot, changes: dict[str, Change],
              names: Callable[[str], tuple[str, str] | None], moved: set[str]) -> dict[str, tuple[bytes, bytes]]:
    """The topics this sleep does not touch whose `## Related` links name a file it renamed:
    path -> (as read, with the links to the new file), so no link is left pointing at nothing."""
    if not moved:
        return {}
    renamed = {c.topic.id for c in changes.values() if c.renamed_from and c.renamed_from != c.topic.rel}
    ids = {e["id"] for c in changes.values() if c.topic.id in renamed for e in c.topic.related}
    touched = {c.topic.rel for c in changes.values()} | {c.renamed_from for c in changes.values()}
    out: dict[str, tuple[bytes, bytes]] = {}
    for row in snap.topics.values():
        if row.topic_id not in ids or row.path in touched or not (vault.root / row.path).is_file():
            continue
        try:
            before = (vault.root / row.path).read_bytes()
            topic = Topic.parse(before.decode("utf-8"), vault.root / row.path, row.path)
        except (OSError, UnicodeDecodeError, VaultError):
            continue
        if topic.sync_related(names, moved):
            out[row.path] = (before, topic.render().encode())
    return out


def _placement(extraction: Extraction, changes: dict[str, Change]) -> list[dict]:
    """The placement trace with the topic each exchange's facts were written to."""
    topic_of: dict[str, Change] = {}
    for change in changes.values():
        for cand in change.candidates:
            for unit in cand.units:
                topic_of.setdefault(unit.turn.id, change)
    out = []
    for entry in extraction.placement:
        went = topic_of.get(entry["turn"])
        out.append(entry | ({"topic": went.topic.name, "path": went.topic.rel, "created": went.created}
                            if went else {"topic": "", "path": "", "created": False}))
    return out


def _tag(vault: Vault, result: SleepResult) -> str | None:
    """`sleep/<UTC time>` on the sleep commit; the commit has landed, so a failure here is only a note."""
    from sheriff_vault.store.sleeps import tag_sleep

    try:
        return tag_sleep(vault, result.commit or "", result.slept_at, f"sleep {result.sleep_id}")
    except VaultError as exc:
        result.notes.append(f"the sleep commit is not tagged: {exc}")
        return None


def _guard(part: list[Turn], tail: list[Turn], result: SleepResult) -> Guarded:
    safe, quarantine_files = _quarantine(part + tail, result)
    return Guarded(part=[t for t in part if t.id in safe],
                   tail=[t if t.id in safe else _redacted(t, quarantine_files) for t in tail],
                   archive=[t if t.id in safe else _redacted(t, quarantine_files) for t in part],
                   quarantine=quarantine_files)


def _extract(vault: Vault, extractor: str, guarded: Guarded, now: dt.datetime, encode: Encode,
             snap: Snapshot, prefetch: Prefetch | None = None) -> Extraction:
    if extractor == "openai":
        from sheriff_vault.compaction.extract_openai import extract_openai

        return extract_openai(vault, guarded.part, guarded.tail, now, encode=encode,
                              known=_known_topics(snap, guarded.part, encode))
    if extractor == "offline":
        return extract(guarded.part, guarded.tail, encode, vault.config.timezone, _skill_ids(vault),
                       prior_topics(snap), prefetch)
    raise VaultError(f"unknown extractor {extractor!r}", hint="use offline or openai")


def extract(turns: list[Turn], tail: list[Turn], encode: Encode, tz: str = "UTC",
            known_skills: Sequence[str] = (), prior: Sequence[PriorTopic] = (),
            prefetch: Prefetch | None = None) -> Extraction:
    """The offline read of the compacted slice `turns`, stage by stage: place its turns into subjects
    (against the vault's topics, `prior`, which a subject may continue), parse them into facts, fold
    the assistant's echoes into them, group the facts by subject, title each, and read whether work
    was left unfinished. `tail` only informs mid-task state and skill refs. `prefetch` is handed the
    text search will embed for each fact's line, once the facts' own vectors are in, and those
    vectors where a line is its fact's sentence as said: the index embeds the rest while the facts
    are titled and written (IndexView.prefetch)."""
    trace: list[dict] = []
    found = find_subjects(turns, encode, prior, trace)
    continued = {s.existing for s in found if s.existing}
    known = [text for p in prior if p.path in continued for text in p.texts]
    humans = {t.speaker for t in turns if t.role == "user"}
    mentioned = {n for t in turns for n in proper_names(t.content)}
    subject_of = {t.id: k for k, subject in enumerate(found) for t in subject.turns}
    units = fold_echoes(make_units(turns, tz, humans | mentioned, subject_of), turns, known)
    note_stand_ins(units)
    if units:  # the model embeds the facts while what their corrections say is parsed
        encode = Ahead(encode, [u.text for u in units])
        read_ahead(units)
    cands = candidates(units, found, encode) if units else []
    if prefetch is not None and units:
        prefetch([searchable(u.fact or u.text) for u in units], _said_vectors(units))
    name_candidates(cands, turns, prior, encode)
    total = sum(c.salience for c in cands) or 1.0
    subjects = [{"hint": c.name, "salience": round(c.salience / total, 4), "units": len(c.units),
                 "turns": c.turn_ids[:12]} for c in sorted(cands, key=lambda c: -c.salience)]
    return Extraction(cands, in_progress(turns + tail), skill_refs(turns + tail, known_skills), subjects, trace)


def _said_vectors(units: list[Unit]) -> dict[str, np.ndarray]:
    """The vectors sleep gave its facts, by their sentences as said: a line that is one of them
    needs no other."""
    return {u.text: u.vec for u in units if u.vec is not None}


def _known_topics(snap: Snapshot, part: list[Turn], encode: Encode) -> list[PriorTopic]:
    """The vault's topics the slice comes near, for a model to continue: the same ones the offline
    walk weighs (prior.nearest over the slice's exchanges). Nothing is embedded for an empty vault."""
    priors = prior_topics(snap)
    texts = exchange_texts(part) if priors else []
    return nearest(priors, np.asarray(encode(texts), dtype=np.float32)) if texts else []


def _skill_ids(vault: Vault) -> list[str]:
    try:
        from sheriff_vault.store.skills import registry

        return [s.skill_id for s in registry(vault)]
    except Exception:  # skills are optional context for sleep, never a reason to fail it
        return []


def _quarantine(turns: list[Turn], result: SleepResult) -> tuple[set[str], dict[str, str]]:
    """Turns carrying injection phrasing, secrets or hidden Unicode go to quarantine/, not to memory."""
    safe: set[str] = set()
    files: dict[str, str] = {}
    for t in turns:
        hits = scan(t.content)
        if not hits:
            safe.add(t.id)
            continue
        at = t.at or result.slept_at
        rel = f"quarantine/{at:%Y/%m/%d}/{at:%H%M%S}-{t.id.replace(':', '-')}.md"
        reasons = "; ".join(str(h) for h in hits[:3])
        files[rel] = (f"---\nturn: {json.dumps(t.id)}\nrole: {t.role}\nname: {json.dumps(t.name)}\n"
                      f"at: {iso(at)}\nsleep_id: {result.sleep_id}\nreasons: {json.dumps(reasons)}\n---\n\n"
                      f"Held back from memory by `vault sleep`. Review it; delete this file when done.\n\n"
                      f"````text\n{t.content}\n````\n")
        result.quarantined.append({"turn": t.id, "path": rel, "reason": hits[0].kind})
    return safe, files


def _redacted(turn: Turn, files: dict[str, str]) -> Turn:
    rel = next((r for r in files if r.endswith(f"-{turn.id.replace(':', '-')}.md")), "quarantine/")
    return Turn(turn.role, f"[held back: see {rel}]", turn.at, turn.id, turn.name)


def _plan(vault: Vault, extraction: Extraction, snap: Snapshot, conv_rel: str, now: dt.datetime, cfg: Config,
          tz: str) -> tuple[dict[str, Change], list[str]]:
    """Match candidates to topics and apply them to in-memory copies of the topic files."""
    targets = targets_from(snap)
    groups: dict[str, list[Candidate]] = {}
    new_topics: dict[str, Topic] = {}
    order: list[str] = []
    taken = vault.topics.names()
    by_path = {t.path: t for t in targets}
    for cand in sorted(extraction.candidates, key=lambda c: min(u.at for u in c.units)):
        placed = by_path.get(cand.existing)
        m = Match(placed, float("inf"), {"placed": 1.0}) if placed else match(cand, targets, cfg.sleep)
        if m.target is None:
            topic = _new_topic(vault, cand, now, taken)
            new_topics[topic.rel] = topic
            vec = cand.vector[None, :] if cand.vector is not None else np.zeros((0, 1), np.float32)
            targets.append(Target(topic.rel, topic.id, candidate_names(cand) | {norm(cand.name)},
                                  set(cand.entities), [u.at for u in cand.units], vec, new=True, owner=cand.owner))
            path = topic.rel
        else:
            path = m.target.path
            if m.target.new and cand.vector is not None:
                m.target.vectors = np.vstack([m.target.vectors, cand.vector[None, :]])
        groups.setdefault(path, []).append(cand)
        if path not in order:
            order.append(path)
    named = name_words_of(t.name for t in snap.topics.values()) if new_topics else []
    for cand in (c for path in new_topics for c in groups[path]):
        cand.aliases = [a for a in cand.aliases if not names_another(a, named)]
    changes: dict[str, Change] = {}
    for path in order:
        topic = new_topics.get(path) or vault.topics.load(vault.root / path)
        change = Change(topic, path in new_topics, groups[path])
        _update(topic, groups[path], change, conv_rel, now, cfg.sleep, tz, _skill_success(extraction, groups[path]))
        _rename(vault, change, taken)
        changes[path] = change
    by_name = {n: (t.topic_id, t.path) for t in targets for n in t.names}
    depends: dict[str, list[tuple[str, str]]] = {}
    for path, change in changes.items():
        for cand in change.candidates:
            for unit in cand.units:
                for phrase in unit.depends:
                    hit = by_name.get(norm(phrase))
                    if hit and hit[1] != path:
                        name = changes[hit[1]].topic.name if hit[1] in changes else snap.topics[hit[1]].name
                        depends.setdefault(path, []).append((hit[0], name))
    link(changes, order, depends)
    return changes, order


def _update(topic: Topic, cands: list[Candidate], change: Change, conv_rel: str, now: dt.datetime, cfg: Any, tz: str,
            skill_success: bool = False) -> None:
    """One topic's part of the plan: its candidates written in, the older values they correct
    struck (each on the day it was corrected), then its one-liner and utility settled."""
    applied = apply(topic, cands, change, conv_rel, tz)
    struck = supersede(topic, applied, lambda unit: format_item_date(local_day(unit.at, tz))) if applied else []
    settle(topic, cands, change, struck, now, cfg, skill_success)


def _file_name(title: str, taken: set[str]) -> str:
    base = slugify(title)
    name, n = f"{base}.md", 2
    while name in taken:
        name, n = f"{base}-{n}.md", n + 1
    taken.add(name)
    return name


def _rename(vault: Vault, change: Change, taken: set[str]) -> None:
    """A topic whose subject outgrew the name a sleep gave it (naming._renamed) takes the better
    name, its file moved to match in this sleep's commit. A name a person chose, or a file they
    named, is theirs and stays."""
    new = next((c.rename for c in change.candidates if c.rename), "")
    if not new or change.created or not _named_by_sleep(vault, change.topic.rel, change.topic.name):
        return
    change.renamed_from, change.old_name = change.topic.rel, change.topic.name
    file = _file_name(new, taken)
    change.topic.rename(new, change.topic.rel if file == change.topic.path.name else f"topics/{file}")


def _named_by_sleep(vault: Vault, rel: str, name: str) -> bool:
    """Whether a sleep commit made the file `rel` and it still holds the name that commit gave it:
    a person's edit of the name, a file they made or moved, or a file outside git is theirs."""
    made = gitlog.log(vault.root, rel)
    if not made or journal.trailer("sleep", "") not in made[-1].body:
        return False
    first = gitlog.show_file(vault.root, made[-1].sha, rel)
    if first is None or rel in gitlog.dirty_paths(vault.root):
        return False
    try:
        return Topic.parse(first, vault.root / rel, rel).name == name
    except VaultError:
        return False


def _new_topic(vault: Vault, cand: Candidate, now: dt.datetime, taken: set[str]) -> Topic:
    name = _file_name(cand.name, taken)
    first = min(u.at for u in cand.units)
    return new_topic(vault.root / "topics" / name, cand.name, one_liner=cand.one_liner, now=first,
                     topic_id=path_id(f"topics/{name}"),
                     rel=f"topics/{name}")


def _skill_success(extraction: Extraction, cands: list[Candidate]) -> bool:
    refs = {r.split(":", 1)[1] for r in extraction.skill_refs}
    text = " ".join(u.text.lower() for c in cands for u in c.units)
    return any(r in text for r in refs) and any("success" in u.text.lower() or "passed" in u.text.lower()
                                                for c in cands for u in c.units)


def _progress_topic(extraction: Extraction, changes: dict[str, Change], index: IndexView) -> str | None:
    hint = extraction.in_progress.resume_hint
    if not extraction.in_progress.pending or not hint or not changes:
        return None
    qvec = index.embed_query(hint)
    best, best_sim = None, -1.0
    for change in changes.values():
        for cand in change.candidates:
            sim = float(cand.vector @ qvec) if qvec is not None and cand.vector is not None else 0.0
            if sim > best_sim:
                best, best_sim = change.topic.id, sim
    return best


