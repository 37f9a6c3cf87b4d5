"""`vault watch`: a daemon that keeps the index fresh and answers recall from memory.

The watchdog observer only records which paths changed (`handle_changes`); a worker thread
indexes them once they have been quiet for the debounce time, so an editor's save-by-rename, a
burst of saves or a `git checkout` of a thousand files becomes one batch. The model and searcher
stay loaded, and recall over the Unix socket flushes pending changes first.

Two shapes share this code (issue 29): the user's daemon (`Host` in shared mode, `vault watch
--foreground --shared`, socket in the runtime folder) serves every vault of the user, opening a
vault (`Daemon`: its index snapshot, watch and worker) on its first request and closing it after
the vault's own idle time, or when its folder goes; a pinned daemon (`vault watch --foreground
--vault PATH`) serves one vault on `.vault/daemon.sock`, as before. The model is held once per
process whatever the number of vaults (daemon/models.py).
"""
from __future__ import annotations

import gc
import json
import logging
import logging.handlers
import os
import signal
import socketserver
import threading
import time
import traceback
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sheriff_vault import faults, nlp
from sheriff_vault.daemon import models, rpc, runtime
from sheriff_vault.daemon.lifecycle import clean_stale
from sheriff_vault.errors import DaemonError, VaultError
from sheriff_vault.index.docs import kind_of
from sheriff_vault.index.engine import Index
from sheriff_vault.store.fsutil import atomic_write, remove
from sheriff_vault.store.locks import FileLock
from sheriff_vault.store.vault import Vault

IGNORED_TOP = {".git", ".vault"}
WARMING = "bm25-only, warming"  # `via` of a recall answered while the model still loads
# The `embed` request's workers: a sleep waits for its hundreds of texts with nothing else to do,
# so they get the cores a sleep without a daemon would use, not the one a recall query needs.
BULK_WORKERS = min(4, os.cpu_count() or 1)
# How often the daemon looks whether its vault folder is still there (a stat): deleted or moved
# away, the daemon exits, so no model-sized process outlives its vault.
ROOT_CHECK_SECONDS = 0.5
# Requests that look at the daemon without using it: they do not count as a request (the idle
# clock, `vault watch --status`'s "last request"), so watching a daemon does not keep it alive.
PASSIVE_OPS = ("ping", "about")
# The user's daemon exits when it serves no vault: at once after its last vault closed, or this
# long after starting when no vault was ever opened (a starter that died before asking).
EMPTY_START_GRACE = 30.0
CODE_CHECK_SECONDS = 5.0  # how often the user's daemon looks whether its installed code changed
HOST_STATE = "daemon.json"  # in the runtime folder: pid, socket, protocol and the vaults served
HOST_LOCK = "daemon.lock"


class Daemon:
    """One served vault: its index and snapshot, pending changes, worker and socket files.

    `idle_exit`: seconds without a request after which the vault is closed (0: never); vaults
    opened by recall get `daemon.idle_exit_seconds`, a `vault watch` serves until stopped. Its
    `host` is the process serving it; a Daemon run by itself (`run`) is a pinned daemon."""

    def __init__(self, vault: Vault, *, idle_exit: float = 0.0, host: Host | None = None) -> None:
        self.vault = vault
        self.host = host
        cfg = vault.config
        self.debounce = cfg.daemon.debounce_ms / 1000
        self.scan_interval = cfg.daemon.scan_interval_seconds
        self.log = _logger(vault)
        self.index = Index(vault, models.embedder_for(cfg.embedding), log=self.log.warning)
        self.work = threading.RLock()
        self.cond = threading.Condition()
        self.pending: set[str] = set()
        self.full_scan = True
        self.last_event = 0.0
        self._index_inode: int | None = None
        self.stopping = threading.Event()
        self.warm = threading.Event()
        # Set once the model is loaded (or failed to load, or there is none): until then recall
        # answers from BM25 alone and new documents wait for their vectors (see Index.defer_embedding).
        self.model_ready = threading.Event()
        if self.index.embedder is None or self.index.embedder.loaded:
            self.model_ready.set()
        self.index.defer_embedding = not self.model_ready.is_set()
        # Held by each sleep the daemon runs (daemon/remote_sleep.py); stopping waits for it, so a
        # sleep is never cut off between its files and its commit by `vault watch --stop`.
        self.sleeping = threading.Lock()
        self.idle_exit = idle_exit
        self.last_request = time.monotonic()
        self.last_request_at: float | None = None  # wall clock of the last request that used the daemon
        self.requests = 0
        self.generation: int | None = None  # the index's, after the last batch (read without waiting for one)
        self.batches = 0
        self.started = time.time()
        self.socket_path = host.socket_path if host is not None else rpc.socket_path_for(vault)
        self._lock = FileLock(vault.cache / "daemon.lock", what="watch daemon", timeout=0)
        self._root_id = _identity(vault.root)
        self._socket_inode: int | None = None
        self._cache_fd: int | None = None
        self._watch: Any = None
        self.closed = threading.Event()

    # -- events ------------------------------------------------------------------------------
    def handle_changes(self, paths: Iterable[str]) -> None:
        """Record changed absolute paths; the worker indexes them after the debounce time."""
        wanted, rescan = set(), False
        for raw in paths:
            try:
                rel = Path(raw).resolve().relative_to(self.vault.root).as_posix()
            except (ValueError, OSError):
                continue
            top = rel.split("/", 1)[0]
            if top in IGNORED_TOP or rel.endswith((".tmp", "~", ".swp")) or "/." in f"/{rel}":
                continue
            if kind_of(rel):
                wanted.add(rel)
            elif top in ("topics", "events", "skills") and "." not in Path(rel).name:
                rescan = True
        if not wanted and not rescan:
            return
        with self.cond:
            self.pending |= wanted
            self.full_scan = self.full_scan or rescan
            self.last_event = time.monotonic()
            self.cond.notify_all()

    def flush(self) -> Any:
        """Index whatever is pending right now (recall calls this so it never answers stale)."""
        with self.cond:
            paths, full = self.pending, self.full_scan
            self.pending, self.full_scan = set(), False
        with self.work:
            full = self._reopen_if_replaced() or full
            if not paths and not full:
                return None
            try:
                stats = self.index.refresh(None if full else sorted(paths))
            except Exception:
                # Deleted under the batch (after the check above): rebuild now, not as an error.
                # Any other failure is logged by the worker; the next full scan picks the files up.
                if not self._reopen_if_replaced():
                    raise
                stats = self.index.refresh(None)
            self._index_inode = self._index_file()
            self.generation = self.index.generation
            self.index.trim()
        self.batches += 1
        for w in stats.warnings:
            self.log.warning(w)
        if stats.changed or stats.removed:
            self.log.info("indexed %d changed, %d removed in %.2fs", len(stats.changed), len(stats.removed),
                          stats.seconds)
            give_back_memory()
        return stats

    def _index_file(self) -> int | None:
        try:
            return (self.index.folder / "state.db").stat().st_ino
        except FileNotFoundError:
            return None

    def _reopen_if_replaced(self) -> bool:
        """The index folder deleted (rm -rf .vault/index) or rebuilt by another process under us: the
        files we hold open are then gone from disk, so close them; the caller refreshes everything.
        Call holding `work`."""
        if self._index_inode is None or self._index_file() == self._index_inode:
            return False
        self.log.warning("index folder was deleted or replaced; rebuilding it")
        self.index.close()
        self._index_inode = None
        return True

    def _warm_up(self) -> None:
        """Catch up with the files after the socket already answers: a big vault's first catch-up
        takes minutes, and `vault watch` should not wait for it. The model loads meanwhile in
        its own thread (`_load_model`); documents read before it is up get their vectors after."""
        try:
            self.flush()
            with self.work:  # not while a stopping daemon closes the index under it
                if not self.stopping.is_set():
                    self.index.snapshot().prepare()
                    self.index.warm_ann()
                    self.index.trim()
        except Exception:
            self.log.error("indexing failed:\n%s", traceback.format_exc())
        # What is loaded now lives as long as the daemon: out of the collector's sight, a full
        # collection no longer walks a big vault's millions of objects in the middle of a question.
        gc.collect()
        gc.freeze()
        _return_free_memory()
        self.warm.set()

    def _load_model(self) -> None:
        """Load the model while BM25 already answers; then let the worker embed what waited."""
        started = time.monotonic()
        embedder = self.index.embedder  # closing the vault lets go of it (see close)
        try:
            faults.point("model:loading")
            if embedder is not None:
                embedder.load()
                if embedder.fallback:  # onnx could not be used; transformers runs the model
                    self.log.warning("embedding backend onnx unavailable: %s", embedder.fallback)
        except VaultError as exc:
            self.log.warning("%s", exc)
        except Exception:
            self.log.error("loading the model failed:\n%s", traceback.format_exc())
        finally:
            self.index.defer_embedding = False
            self.model_ready.set()
            self.log.info("model ready in %.2fs", time.monotonic() - started)
            with self.cond:
                self.full_scan = True
                self.cond.notify_all()

    def root_gone(self) -> bool:
        """The vault folder deleted, moved away or replaced by another folder at the same path: what
        is held belongs to a vault that is no longer there (its new place is served from the next
        recall there). The host checks every ROOT_CHECK_SECONDS (a stat)."""
        if _identity(self.vault.root) == self._root_id:
            return False
        self.log.warning("the vault folder %s was deleted or moved away; exiting for this vault", self.vault.root)
        return True

    def _idle(self) -> bool:
        return bool(self.idle_exit) and time.monotonic() - self.last_request > self.idle_exit

    def _worker(self) -> None:
        self._warm_up()
        last_scan = time.monotonic()
        while not self.stopping.is_set():
            if self._idle():
                self.log.info("no request for %.0fs; exiting for this vault", self.idle_exit)
                self.stop()
                return
            with self.cond:
                self.cond.wait(timeout=0.5)
                quiet = time.monotonic() - self.last_event >= self.debounce
                due = bool(self.pending or self.full_scan) and quiet
            if time.monotonic() - last_scan >= self.scan_interval:
                with self.cond:
                    self.full_scan = True
                due, last_scan = True, time.monotonic()
            if due:
                try:
                    self.flush()
                except Exception:  # the worker must outlive any one bad batch
                    self.log.error("indexing failed:\n%s", traceback.format_exc())
                    time.sleep(1)

    # -- requests ----------------------------------------------------------------------------
    def answer(self, request: dict) -> dict:
        op, args = request.get("op"), request.get("args") or {}
        asked = request.get("vault")
        if asked is not None and os.path.realpath(str(asked)) != str(self.vault.root):
            return {"ok": False, "error": {"message": f"this daemon serves {self.vault.root}, not {asked}",
                                           "kind": "DaemonError", "other_vault": True}}
        if op not in PASSIVE_OPS:
            self.last_request, self.last_request_at = time.monotonic(), time.time()
            self.requests += 1
        try:
            return {"ok": True, "result": self._dispatch(op, args)}
        except VaultError as exc:  # the caller raises the same class, message and notes (rpc.call)
            return {"ok": False, "error": {"message": exc.message, "path": exc.path, "line": exc.line,
                                           "hint": exc.hint, "kind": type(exc).__name__,
                                           "notes": list(getattr(exc, "__notes__", []))}}
        except Exception as exc:
            self.log.error("request %s failed:\n%s", op, traceback.format_exc())
            return {"ok": False, "error": {"message": f"daemon error {type(exc).__name__}: {exc}"}}

    def _dispatch(self, op: str | None, args: dict) -> Any:
        if op == "ping":
            return {"pid": os.getpid(), "ready": self.model_ready.is_set(), "shared": self.host is not None
                    and self.host.shared}
        if op == "about":  # `vault watch --status`: what this daemon serves, without touching the index
            return self.about()
        if op == "status":
            with self.work:
                if self._reopen_if_replaced():
                    with self.cond:
                        self.full_scan = True
                        self.cond.notify_all()
                status = self.index.status()
                self._index_inode = self._index_file()
            with self.cond:
                pending = len(self.pending) + (1 if self.full_scan else 0)
            return status | {"pid": os.getpid(), "uptime": round(time.time() - self.started, 1),
                             "batches": self.batches, "model_loaded": bool(self.index.embedder and
                                                                             self.index.embedder.loaded),
                             "socket": str(self.socket_path), "pending": pending, "warming_up": not self.warm.is_set()}
        if op == "recall":
            from sheriff_vault.retrieval.ranking import recall
            from sheriff_vault.timewin import parse_instant, to_iso

            if args.get("now_text"):  # --now as typed (the fast client): read in the vault's time zone
                args["now"] = to_iso(parse_instant(args["now_text"], self.vault.config.timezone))
            flushed = self.flush()
            hybrid = self.model_ready.is_set()
            with self.work:
                now = parse_instant(args["now"]) if args.get("now") else None
                result = recall(self.vault, args["query"], index=self.index, tail=args.get("tail", ""),
                                k=args.get("k"), deep=bool(args.get("deep")), since=args.get("since"),
                                until=args.get("until"), now=now, explain=bool(args.get("explain")), refresh=False,
                                dense=hybrid, buffered=args.get("buffered", True) is not False,
                                tag=args.get("tag") or None)
            if flushed:
                result.caught_up = flushed.changed + flushed.removed
            budget = int(args.get("budget") or self.vault.config.retrieval.budget)
            via = "daemon" if hybrid else WARMING
            return result.reply(budget, explain=bool(args.get("explain")), via=via).to_dict()
        if op == "embed":  # vectors for another process's work (sleep), from the model held here
            from sheriff_vault.daemon.remote_embed import encoded
            from sheriff_vault.index.embed import Embedder as _Embedder

            embedder = self.index.embedder
            if embedder is None or type(embedder) is not _Embedder:
                raise DaemonError("this daemon holds no embedding model")
            if args.get("model_id") not in (None, embedder.model_id):
                raise DaemonError(f"this daemon holds {embedder.model_id}, not {args.get('model_id')}")
            self.model_ready.wait(timeout=300)
            texts = [str(t) for t in args.get("texts") or []]
            vecs = embedder.encode(texts, workers=BULK_WORKERS) if texts else None
            return {"model_id": embedder.model_id, "dim": embedder.dim,
                    "vectors": encoded(vecs) if vecs is not None else ""}
        if op == "sleep":  # a whole `vault sleep`, with the model and index held here
            from sheriff_vault.daemon.sleeping import serve

            with self.sleeping:
                if self.stopping.is_set():
                    return {"declined": "the daemon is stopping"}
                started, held = time.monotonic(), set(nlp.loaded())
                try:
                    reply = serve(args, vault=self.vault, index=self.index, work=self.work, catch_up=self.flush,
                                  queue=self.handle_changes, model_ready=self.model_ready, workers=BULK_WORKERS)
                except Exception as exc:
                    self.log.info("sleep: failed after %.2fs: %s", time.monotonic() - started, exc)
                    raise
                finally:
                    self.last_request = time.monotonic()
                give_back_memory()
                done = reply.get("result") or {}
                loaded = sorted(set(nlp.loaded()) - held)  # once per daemon: the sleeps after it find it held
                self.log.info("sleep: %s in %.2fs%s", f"declined, {reply['declined']}" if "declined" in reply else
                              f"{done.get('compacted_turns')} turns, commit {(done.get('commit') or '-')[:8]}",
                              time.monotonic() - started,
                              f" (loaded the English pipeline {', '.join(loaded)})" if loaded else "")
                return reply
        if op == "reindex":
            paths = args.get("paths")
            if paths is None:
                with self.cond:
                    self.full_scan = True
            else:
                self.handle_changes(str(self.vault.root / p) for p in paths)
            if args.get("wait") is False:  # the worker indexes them after the debounce; recall flushes first
                return {"queued": len(paths or [])}
            stats = self.flush()
            return stats.to_json() if stats else {"changed": [], "removed": []}
        if op == "reconcile":
            self.flush()
            with self.work:
                return self.index.reconcile(args.get("before")).to_json()
        if op == "stop":
            exiting = self.host is None or self.host.exits_without(self)
            threading.Thread(target=self.stop, daemon=True).start()
            return {"stopping": True, "exiting": exiting}
        raise DaemonError(f"unknown request {op!r}")

    def _remove_own_files(self, cache_fd: int) -> None:
        """daemon.json, daemon.pid and the socket this daemon made, in its .vault folder (open as
        `cache_fd`) wherever that is now; a socket outside it (/tmp, for long paths) only while it
        is still the one this daemon bound; the user's daemon's socket is the host's to remove."""
        names = [rpc.STATE_FILE, rpc.PID_FILE]
        if self.host is not None and self.host.shared:
            pass
        elif self.socket_path.parent == self.vault.cache:
            names.append(self.socket_path.name)
        elif _inode(self.socket_path) == self._socket_inode:
            remove(self.socket_path)
        for name in names:
            try:
                os.unlink(name, dir_fd=cache_fd)
            except FileNotFoundError:
                pass
        try:
            os.fsync(cache_fd)
        except OSError:  # the folder was deleted
            pass

    def about(self) -> dict:
        """What the daemon serves and holds, cheaply (no index read, no lock waited for)."""
        with self.cond:
            pending = len(self.pending) + (1 if self.full_scan else 0)
        embedder = self.index.embedder
        now = time.time()
        return {"pid": os.getpid(), "vault": str(self.vault.root), "socket": str(self.socket_path),
                "started_at": self.started, "uptime": round(now - self.started, 1),
                "idle_exit": self.idle_exit, "requests": self.requests, "last_request_at": self.last_request_at,
                "last_request_ago": round(now - self.last_request_at, 1) if self.last_request_at else None,
                "generation": self.generation, "batches": self.batches, "pending": pending,
                "warming_up": not self.warm.is_set(), "model": embedder.model_id if embedder else None,
                "model_ready": self.model_ready.is_set(), "nlp": nlp.loaded(), "memory_mb": memory_mb(),
                "shared": bool(self.host and self.host.shared), "index_mb": _folder_mb(self.index.folder)}

    # -- lifecycle ---------------------------------------------------------------------------
    def claim(self) -> None:
        """Take the vault's daemon lock (one daemon per vault, whichever kind) and clear what a
        killed daemon left; DaemonError when another daemon serves the vault."""
        try:
            self._lock.acquire()
        except VaultError:
            state = rpc.read_state(self.vault) or {}
            raise DaemonError(f"a watch daemon already runs for this vault (pid {state.get('pid', '?')})",
                              hint="`vault watch --stop` stops it") from None
        if self.host is not None and self.host.shared:
            for name in (rpc.STATE_FILE, rpc.PID_FILE):
                remove(self.vault.cache / name)
            own = rpc.socket_path_for(self.vault)
            if own.parent == self.vault.cache:  # a pinned daemon's socket, killed; never another vault's
                remove(own)
        else:
            clean_stale(self.vault, self.socket_path)
        # The vault's .vault folder, held open: at close the daemon removes its own daemon.json,
        # daemon.pid and socket through it, wherever the folder was moved, and never touches a
        # folder made since at the old path (with perhaps a daemon of its own).
        self._cache_fd = os.open(self.vault.cache, os.O_RDONLY | os.O_DIRECTORY)

    def start(self, observer: Any) -> None:
        """Watch the vault's files, say where it is served (daemon.json) and start the worker."""
        self._watch = observer.schedule(_Handler(self), str(self.vault.root), recursive=True,
                                        event_filter=_EVENTS)
        self._socket_inode = _inode(self.socket_path)
        state = {"pid": os.getpid(), "socket": str(self.socket_path), "started_at": self.started,
                 "vault": str(self.vault.root), "protocol": rpc.PROTOCOL}
        atomic_write(self.vault.cache / rpc.STATE_FILE, json.dumps(state))
        atomic_write(self.vault.cache / rpc.PID_FILE, f"{os.getpid()}\n")
        self.log.info("watching %s (pid %d%s)", self.vault.root, os.getpid(),
                      ", the user's daemon" if self.host is not None and self.host.shared else "")
        threading.Thread(target=self._worker, name=f"indexer {self.vault.root.name}", daemon=True).start()
        if not self.model_ready.is_set():
            threading.Thread(target=self._load_model, name="model", daemon=True).start()

    def close(self, observer: Any) -> None:
        """Stop serving the vault: unwatch it, wait for a running sleep, close the index, remove the
        socket files and the lock, so its memory goes back (the model stays, for the other vaults)."""
        self.stopping.set()
        if self._watch is not None:
            try:
                observer.unschedule(self._watch)
            except Exception:  # the folder is gone: its inotify watch went with it
                pass
        with self.sleeping, self.work:
            self.index.close()
            self.index.embedder = None  # the host releases the model when no other vault uses it
        if self._cache_fd is not None:
            self._remove_own_files(self._cache_fd)
            os.close(self._cache_fd)
            self._cache_fd = None
        self.log.info("stopped")
        for handler in list(self.log.handlers):
            self.log.removeHandler(handler)
            handler.close()
        self._lock.release()
        self.closed.set()

    def stop(self, *_: Any) -> None:
        """Stop serving this vault (the host closes it; a pinned daemon then exits)."""
        self.stopping.set()
        if self.host is not None:
            self.host.drop(self)

    def run(self) -> None:
        """A pinned daemon: serve this vault alone on its own socket, in the foreground, until
        SIGTERM/SIGINT, a `stop` request, its idle time or its folder going."""
        Host(self.socket_path, pinned=self).run()


class _Handler:
    """Watchdog's handler: records the paths, never lets one event kill the observer (watchdog #793)."""

    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon

    def dispatch(self, event: Any) -> None:
        try:
            paths = [event.src_path, getattr(event, "dest_path", "") or ""]
            self.daemon.handle_changes(p if isinstance(p, str) else p.decode() for p in paths if p)
        except Exception:
            self.daemon.log.error("event handling failed:\n%s", traceback.format_exc())


def _event_kinds() -> list[type]:
    from watchdog.events import (
        DirCreatedEvent,
        DirDeletedEvent,
        DirMovedEvent,
        FileClosedEvent,
        FileCreatedEvent,
        FileDeletedEvent,
        FileModifiedEvent,
        FileMovedEvent,
    )

    return [FileCreatedEvent, FileDeletedEvent, FileModifiedEvent, FileMovedEvent, FileClosedEvent,
            DirCreatedEvent, DirDeletedEvent, DirMovedEvent]


_EVENTS: list[type] = []


class Host:
    """The daemon process: one socket, one watchdog observer, the model once, and the vaults served.

    Shared (the user's daemon, `socket_path` in the runtime folder): a request naming a vault not
    served opens it when it asks to (`open`, from autostart and `vault watch`), at most
    `max_open` at once (the least recently used vault opened by recall is closed to make room);
    the process exits when it serves nothing. Pinned: serves `pinned` alone, refuses other
    vaults, and exits when that vault closes."""

    def __init__(self, socket_path: Path, *, pinned: Daemon | None = None, max_open: int = 16) -> None:
        self.socket_path = socket_path
        self.shared = pinned is None
        self.max_open = max_open
        self.vaults: OrderedDict[str, Daemon] = OrderedDict()  # least recently used first
        self.lock = threading.RLock()
        self.stopping = threading.Event()
        self.started = time.time()
        self.ever_served = False
        self.observer: Any = None
        self._opening: Daemon | None = None  # a vault being opened: its model is in use already
        self.log = _host_logger(socket_path.parent) if self.shared else None
        self.code = runtime.code_stamp()  # what it runs: it leaves when the installed code changes
        if pinned is not None:
            pinned.host = self
            pinned.socket_path = socket_path
            self.vaults[str(pinned.vault.root)] = pinned

    # -- vaults ------------------------------------------------------------------------------
    def served(self, root: str) -> Daemon | None:
        """The vault served at `root`, None when none is, or only a folder that was there before (moved
        or deleted, another made at the same path since: closed now, before the new one opens)."""
        with self.lock:
            daemon = self.vaults.get(root)
            if daemon is not None and self.shared and daemon.root_gone():
                self._close(daemon)
                self._write_state()
                return None
            if daemon is not None:
                self.vaults.move_to_end(root)
            return daemon

    def open(self, root: str, *, idle_exit: float) -> Daemon:
        """Serve the vault at `root` (already a vault's resolved root): its index, watch and worker."""
        with self.lock:
            if (daemon := self.served(root)) is not None:
                return daemon
            if self.stopping.is_set():
                raise DaemonError("the daemon is stopping", hint="ask again: the next request starts a new one")
            vault = Vault(Path(root))
            self.max_open = vault.config.daemon.max_open_vaults
            daemon = Daemon(vault, idle_exit=idle_exit, host=self)
            try:
                daemon.claim()
            except BaseException:
                daemon.index.close()
                _close_log(daemon.log)
                self._release_models()
                raise
            self._opening = daemon
            try:
                self._make_room()
            finally:
                self._opening = None
            self.vaults[root] = daemon
            self.ever_served = True
            try:
                daemon.start(self.observer)
            except Exception as exc:  # the folder went as it opened: serve nothing half-started
                self._close(daemon)
                raise DaemonError(f"could not serve {root}: {type(exc).__name__}: {exc}") from None
            finally:
                self._write_state()
        self._note("serving %s", root)
        return daemon

    def _make_room(self) -> None:
        """Close the least recently used vaults opened by recall until one more fits `max_open`."""
        while len(self.vaults) >= self.max_open:
            victim = next((d for d in self.vaults.values() if d.idle_exit), None)
            if victim is None:
                return
            victim.log.info("closed to make room: the daemon serves %d vaults at most (daemon.max_open_vaults)",
                            self.max_open)
            self._close(victim)

    def drop(self, daemon: Daemon) -> None:
        """Stop serving `daemon`'s vault (stop request, idle, folder gone); exit when nothing is left."""
        with self.lock:
            if self.vaults.get(str(daemon.vault.root)) is not daemon:
                return
            del self.vaults[str(daemon.vault.root)]
            self._write_state()
        self._close(daemon)  # outside the lock: it waits for a running sleep
        with self.lock:
            empty = not self.vaults
            if empty:  # decided with the lock held: a vault asked for from now on is refused, not lost
                self.stopping.set()
        if empty:
            self.stop()

    def _close(self, daemon: Daemon) -> None:
        with self.lock:
            if self.vaults.get(str(daemon.vault.root)) is daemon:
                del self.vaults[str(daemon.vault.root)]
        if daemon.closed.is_set():
            return
        daemon.close(self.observer)
        self._note("no longer serving %s", daemon.vault.root)
        self._release_models()
        gc.unfreeze()  # what the vault held was frozen with the rest (see _warm_up): let it go
        gc.collect()
        gc.freeze()
        give_back_memory()

    def _release_models(self) -> None:
        """Let go of the models no open vault uses (a vault can name its own): the last vault using
        one closed, its memory goes back rather than wait for the daemon to exit."""
        with self.lock:
            open_now = [*self.vaults.values(), *([self._opening] if self._opening is not None else [])]
            gone = models.release([d.index.embedder for d in open_now if d.index.embedder is not None])
        if gone:
            self._note("released the model %s: no open vault uses it", ", ".join(gone))

    def exits_without(self, daemon: Daemon) -> bool:
        """Whether the process exits once `daemon`'s vault is closed (it serves nothing else)."""
        with self.lock:
            return all(d is daemon for d in self.vaults.values())

    def _reap(self) -> None:
        """Drop vaults whose folder went; exit when nothing was ever opened in EMPTY_START_GRACE, or
        (the user's daemon) when the installed code changed under it."""
        checked = time.monotonic()
        while not self.stopping.wait(ROOT_CHECK_SECONDS):
            if self.shared and time.monotonic() - checked > CODE_CHECK_SECONDS:
                checked = time.monotonic()
                if runtime.code_stamp(Path(self.code[0])) != self.code:
                    self._note("the installed code changed since it started; exiting, so the next request "
                               "starts a daemon that runs it")
                    self.stop()
                    return
            with self.lock:
                served = list(self.vaults.values())
                empty = not self.vaults
            for daemon in served:
                if not daemon.stopping.is_set() and daemon.root_gone():
                    daemon.stopping.set()
                    threading.Thread(target=self.drop, args=(daemon,), daemon=True).start()
            if empty and not self.ever_served and time.time() - self.started > EMPTY_START_GRACE:
                self._note("no vault asked for in %.0fs; exiting", EMPTY_START_GRACE)
                self.stop()

    # -- requests ----------------------------------------------------------------------------
    def answer(self, request: dict) -> dict:
        """Route a request to the vault it names; the user's daemon itself answers `ping`, `about`
        and `stop` naming no vault, and `open` (or any request with `"open": true`) opens a vault."""
        op, asked = request.get("op"), request.get("vault")
        if asked is None and not self.shared:
            return next(iter(self.vaults.values())).answer(request) if self.vaults else _error("stopping")
        if asked is None:
            if op == "ping":
                return {"ok": True, "result": {"pid": os.getpid(), "ready": True, "shared": True,
                                               "protocol": rpc.PROTOCOL}}
            if op == "about":
                return {"ok": True, "result": self.about()}
            if op == "stop":
                threading.Thread(target=self.stop, daemon=True).start()
                return {"ok": True, "result": {"stopping": True, "exiting": True}}
            return _error("name the vault (`vault`) this request is for")
        root = os.path.realpath(str(asked))
        daemon = self.served(root)
        if daemon is None and self.shared and (op == "open" or request.get("open")):
            args = request.get("args") or {}
            try:
                if op != "open" and not _may_autostart(root, request.get("open")):
                    return _other(root)
                daemon = self.open(root, idle_exit=float(args.get("idle_exit", 0) if op == "open"
                                                         else Vault(Path(root)).config.daemon.idle_exit_seconds))
            except VaultError as exc:
                return _vault_error(exc)
        if daemon is None:
            if not self.shared:
                return next(iter(self.vaults.values())).answer(request) if self.vaults else _error("stopping")
            return _other(root)
        if op == "open":  # `vault watch` on a vault recall opened: serve it until `vault watch --stop`
            if not float((request.get("args") or {}).get("idle_exit", 0)):
                daemon.idle_exit = 0.0
            return {"ok": True, "result": {"pid": os.getpid(), "ready": daemon.model_ready.is_set(),
                                           "socket": str(self.socket_path)}}
        return daemon.answer(request)

    def about(self) -> dict:
        """The user's daemon: pid, memory, models held, and each vault served (its `about`)."""
        with self.lock:
            served = list(self.vaults.values())
        return {"pid": os.getpid(), "socket": str(self.socket_path), "shared": True, "started_at": self.started,
                "uptime": round(time.time() - self.started, 1), "max_open_vaults": self.max_open,
                "models": models.held(), "nlp": nlp.loaded(), "memory_mb": memory_mb(),
                "vaults": [d.about() for d in served]}

    def _write_state(self) -> None:
        if not self.shared:
            return
        with self.lock:
            vaults = list(self.vaults)
        state = {"pid": os.getpid(), "socket": str(self.socket_path), "started_at": self.started,
                 "protocol": rpc.PROTOCOL, "vaults": vaults}
        atomic_write(self.socket_path.parent / HOST_STATE, json.dumps(state))

    def _note(self, message: str, *args: Any) -> None:
        if self.log is not None:
            self.log.info(message, *args)

    # -- lifecycle ---------------------------------------------------------------------------
    def stop(self, *_: Any) -> None:
        self.stopping.set()
        server = getattr(self, "server", None)
        if server is not None:
            server.shutdown()

    def run(self) -> None:
        """Serve in the foreground until SIGTERM/SIGINT, a `stop`, or nothing left to serve."""
        # One torch thread, set before the model (and torch) loads; the environment can override.
        # The daemon embeds one short query at a time, where a second thread gains little, and on
        # a busy 2-core machine two spinning OpenMP threads turn a ~10 ms query embedding into
        # 40-500 ms (see benchmarks/RESULTS.md, "Recall speed and memory").
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        from watchdog.observers import Observer

        _EVENTS[:] = _event_kinds()
        host_lock = None
        if self.shared:
            folder = runtime.private_dir(self.socket_path.parent)
            os.chdir(folder)  # where /proc says it runs: lifecycle.daemons finds its daemon.json there
            host_lock = FileLock(folder / HOST_LOCK, what="the user's watch daemon", timeout=0)
            try:
                host_lock.acquire()
            except VaultError:
                raise DaemonError(f"your watch daemon already runs ({folder / HOST_STATE})",
                                  hint="`vault watch --stop --all` stops it") from None
            remove(self.socket_path)
        else:
            self.vaults[next(iter(self.vaults))].claim()
        faults.point("daemon:starting")
        self.observer = Observer()
        self.observer.start()
        self.server = _Server(str(self.socket_path), _RequestHandler)
        self.server.host = self
        signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=self.stop, daemon=True).start())
        signal.signal(signal.SIGINT, lambda *_: threading.Thread(target=self.stop, daemon=True).start())
        try:
            for daemon in list(self.vaults.values()):
                daemon.start(self.observer)
            self._write_state()
            self._note("the user's daemon is up (pid %d)", os.getpid())
            threading.Thread(target=self._reap, name="reaper", daemon=True).start()
            self.server.serve_forever(poll_interval=0.2)
        finally:
            self.stopping.set()
            self.server.server_close()
            with self.lock:
                served = list(self.vaults.values())
            for daemon in served:
                self._close(daemon)
            self.observer.stop()
            self.observer.join(timeout=5)
            if self.shared:
                if _inode(self.socket_path) == _inode_at_bind(self.server):
                    remove(self.socket_path)
                remove(self.socket_path.parent / HOST_STATE)
                self._note("stopped")
                _close_log(self.log)
            if host_lock is not None:
                host_lock.release()


def _may_autostart(root: str, wanted: Any) -> bool:
    """A recall that found no daemon may open its vault here unless the vault opted out
    (`daemon.autostart: false`; the caller's SHERIFF_VAULT_AUTOSTART=1 overrides, as `"on"`)."""
    if wanted == "on":
        return True
    return bool(Vault(Path(root)).config.daemon.autostart)


def _other(root: str) -> dict:
    return {"ok": False, "error": {"message": f"this daemon does not serve {root}", "kind": "DaemonError",
                                   "other_vault": True}}


def _error(message: str) -> dict:
    return {"ok": False, "error": {"message": message, "kind": "DaemonError"}}


def _vault_error(exc: VaultError) -> dict:
    return {"ok": False, "error": {"message": exc.message, "path": exc.path, "line": exc.line, "hint": exc.hint,
                                   "kind": type(exc).__name__, "notes": list(getattr(exc, "__notes__", []))}}


def _inode_at_bind(server: Any) -> int | None:
    return getattr(server, "socket_inode", None)


def _folder_mb(folder: Path) -> float:
    """Bytes under `folder` in MB: the index a vault holds open (its memory estimate)."""
    total = 0
    for path, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.stat(os.path.join(path, name)).st_size
            except OSError:
                pass
    return round(total / 1e6, 1)


class _Server(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True
    host: Host

    def server_bind(self) -> None:
        super().server_bind()
        self.socket_inode = _inode(Path(os.fsdecode(self.server_address)))  # type: ignore[arg-type]

    def verify_request(self, request: Any, client_address: Any) -> bool:
        """Answer only processes of this user (SO_PEERCRED); another user's connection is closed unread."""
        if runtime.same_user(request):
            return True
        message = "refused a connection from uid %s"
        if self.host.log is not None:
            self.host.log.warning(message, _peer(request))
        for daemon in list(self.host.vaults.values()):
            daemon.log.warning(message, _peer(request))
        return False


class _RequestHandler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        line = self.rfile.readline(16 * 1024 * 1024)
        try:
            request = json.loads(line)
        except ValueError:
            reply = {"ok": False, "error": {"message": "bad request: not JSON"}}
        else:
            reply = self.server.host.answer(request)  # type: ignore[attr-defined]
        self.wfile.write(json.dumps(reply, default=str).encode() + b"\n")


def memory_mb() -> dict[str, float]:
    """This process's resident memory in MB from /proc/self/status: VmRSS (now), VmHWM (its peak),
    RssAnon (heap, model weights) and RssFile (mapped files); empty where there is no /proc."""
    found = {}
    try:
        lines = Path("/proc/self/status").read_text().splitlines()
    except OSError:
        return {}
    for line in lines:
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile") and value.strip().endswith("kB"):
            found[key] = round(int(value.split()[0]) / 1024, 1)
    return found


def _peer(conn: Any) -> int | str:
    try:
        uid = runtime.peer_uid(conn)
        return "?" if uid is None else uid
    except OSError:
        return "?"


def _inode(path: Path) -> int | None:
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


def _identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of a folder, None when it is gone: a moved or recreated folder differs."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def give_back_memory() -> None:
    """Return the heap a batch or a sleep freed to the system (glibc keeps it otherwise: a 300-turn
    sleep and the indexing of its facts left a 10k daemon at ~720 MB instead of ~420 MB)."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def _libc() -> Any:
    import ctypes

    try:
        libc = ctypes.CDLL("libc.so.6")
        return libc if hasattr(libc, "malloc_trim") else None
    except OSError:  # not glibc (macOS, musl): nothing to trim
        return None


_LIBC = _libc()


def _logger(vault: Vault) -> logging.Logger:
    log = logging.getLogger(f"sheriff_vault.watch.{vault.root}")
    if not log.handlers:
        vault.logs.mkdir(parents=True, exist_ok=True)
        handler = logging.handlers.RotatingFileHandler(vault.logs / "daemon.log", maxBytes=2_000_000, backupCount=2)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False
    return log


def _host_logger(folder: Path) -> logging.Logger:
    """The user's daemon's own log (`<runtime folder>/daemon.log`): vaults opened and closed, exits."""
    log = logging.getLogger(f"sheriff_vault.watch.host.{folder}")
    if not log.handlers:
        runtime.private_dir(folder)
        handler = logging.handlers.RotatingFileHandler(folder / "daemon.log", maxBytes=1_000_000, backupCount=1)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False
    return log


def _close_log(log: logging.Logger | None) -> None:
    for handler in list(log.handlers if log is not None else []):
        log.removeHandler(handler)  # type: ignore[union-attr]
        handler.close()


def _return_free_memory() -> None:
    """Give the heap the load freed back to the system (glibc keeps it otherwise: 14 MB of a 50k
    vault's daemon); elsewhere nothing to do."""
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass
