"""The `vault` command (and `python -m sheriff_vault`): a fast path for `vault recall`, else the full CLI.

With a daemon running, `vault recall` spends its time starting Python, not recalling: importing
click and the package costs several times the daemon's answer. So when the arguments are simple
(query words, --vault, --now, --k, --deep, --since, --until, --budget, --json) and a daemon
listens, this module sends the request over the socket and prints the reply itself, importing
only the standard library. It prints exactly what `sheriff_vault.cli.recall` prints (a test
checks both, text and --json). Anything else (another command, --help, --explain, --tail, a query
on stdin, no daemon, an error reply) goes to the full CLI, which reports errors, starts a daemon
(autostart) or answers in its own process.
"""
from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

FLAGS = {"--json", "--deep"}
VALUED = {"--vault", "--now", "--k", "--since", "--until", "--budget"}
RANGES = {"--k": (1, 200), "--budget": (100, 10_000_000)}  # as cli/recall.py declares them
PROTOCOL = 5  # daemon/rpc.py PROTOCOL this client speaks (2 `now_text`, 4 the buffer in `recent`, 5 `tag`)
MAX_QUERY_CHARS = 4000  # retrieval/reply.py: longer queries get a note from the full path
HOOK_BUDGET, HOOK_CONTEXT_CAP = 3_000, 9_000  # agent/hooks.py PROMPT_BUDGET, CONTEXT_CAP
AUTOSTART_ENV, ON = "SHERIFF_VAULT_AUTOSTART", ("1", "true", "yes", "on")  # daemon/lifecycle.py


def main() -> NoReturn:
    args = sys.argv[1:]
    if args[:1] == ["recall"]:
        code = fast_recall(args[1:])
        if code is not None:
            sys.exit(code)
    if args[:2] in (["hook", "claude-code"], ["hook", "codex"]):
        fast_prompt_hook(args[2:], args[1])
    from sheriff_vault.cli import main as full_cli

    full_cli()
    sys.exit(0)


def fast_recall(args: list[str]) -> int | None:
    """Answer `vault recall ARGS` from a running daemon; None means: let the full CLI do it."""
    parsed = _parse(args)
    if parsed is None:
        return None
    options, words = parsed
    query = " ".join(words)
    if not query.strip() or words == ["-"] or len(query) > MAX_QUERY_CHARS:
        return None
    root = _find_vault(options.get("--vault"))
    if root is None or os.path.exists(os.path.join(root, ".vault", "journal.json")):
        return None  # no vault (the full CLI says why), or a change to finish first
    reply = _ask(root, _recall(query, k=options.get("--k"), deep="--deep" in options, since=options.get("--since"),
                               until=options.get("--until"), now_text=options.get("--now"),
                               budget=options.get("--budget")))
    if reply is None:
        return None
    data, via = reply["json"], reply.get("via") or "daemon"
    try:
        for warning in data.get("warnings", []):
            print(f"warning: {warning}", file=sys.stderr)
        if "--json" in options:
            import json

            sys.stdout.write(json.dumps(data | {"via": via}, indent=2, ensure_ascii=False, default=str) + "\n")
        else:
            sys.stdout.write(reply["markdown"])
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    return 0


def fast_prompt_hook(args: list[str], host: str = "claude-code") -> None:
    """Claude Code's (or Codex's) UserPromptSubmit hook answered from a running daemon (the prompt waits on it:
    agent/hooks.py has the same rules). Any other event, or no daemon, goes on to the full CLI with
    the same stdin; this returns only in that case."""
    import io
    import time

    started = time.monotonic()
    text = sys.stdin.read()
    root = _find_vault(args[1]) if len(args) == 2 and args[0] == "--vault" else None
    try:
        import json

        payload = json.loads(text or "{}")
        prompt = str(payload.get("prompt") or "").strip() if isinstance(payload, dict) else ""
        event = payload.get("hook_event_name") if isinstance(payload, dict) else None
    except ValueError:
        event, prompt = None, ""
    if root is None or event != "UserPromptSubmit" or os.path.exists(os.path.join(root, ".vault", "journal.json")):
        sys.stdin = io.StringIO(text)
        return
    outcome, out = "skipped", ""
    if len(prompt) >= 3 and not prompt.startswith("/"):
        reply = _ask(root, _recall(prompt[:MAX_QUERY_CHARS], budget=HOOK_BUDGET))
        if reply is None:
            sys.stdin = io.StringIO(text)
            return
        if reply["json"].get("topics") or reply["json"].get("recent"):
            markdown = reply["markdown"]
            if len(markdown) > HOOK_CONTEXT_CAP:
                markdown = markdown[: HOOK_CONTEXT_CAP - 40].rsplit("\n", 1)[0] + "\n(memory cut short here)"
            out = json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": markdown}},
                             ensure_ascii=False)
            outcome = f"recalled via {reply.get('via') or 'daemon'}"
        else:
            outcome = "nothing recalled"
    try:
        if out:
            sys.stdout.write(out + "\n")
            sys.stdout.flush()
        from sheriff_vault.store.logs import append_log

        append_log(os.path.join(root, ".vault", "logs"), "hooks", {
            "host": host, "event": event, "outcome": outcome, "error": "", "fast": True,
            "duration_ms": round((time.monotonic() - started) * 1000)})
    except BaseException:  # noqa: B036  (the host must never see a failure)
        pass
    sys.exit(0)


def _recall(query: str, *, k: int | None = None, deep: bool = False, since: str | None = None,
            until: str | None = None, now_text: str | None = None, budget: int | None = None) -> dict:
    """The daemon's recall request (daemon/watch.py `_dispatch`), as daemon/client.py sends it."""
    return {"op": "recall", "args": {"tail": "", "k": k, "deep": deep, "since": since, "until": until, "now": None,
                                     "now_text": now_text, "explain": False, "query": query, "budget": budget}}


def _parse(args: list[str]) -> tuple[dict, list[str]] | None:
    """(options, query words) when every argument is one the fast path knows, else None."""
    options: dict = {}
    words: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "-" or not arg.startswith("-"):
            words.append(arg)
            continue
        if arg in FLAGS:
            options[arg] = True
            continue
        name, eq, value = arg.partition("=")
        if name not in VALUED or name in options:
            return None
        if not eq:
            if i >= len(args):
                return None
            value = args[i]
            i += 1
        if name in RANGES:
            try:
                number = int(value)
            except ValueError:
                return None
            low, high = RANGES[name]
            if not low <= number <= high:
                return None
            options[name] = number
        else:
            options[name] = value
    return options, words


def _find_vault(explicit: str | None) -> str | None:
    """store/vault.find_vault's rule (--vault, then SHERIFF_VAULT, then upward from here) on plain
    os.path; any doubt returns None and the full CLI decides."""

    def is_vault(path: str) -> bool:
        return os.path.isfile(os.path.join(path, "vault.yaml")) and os.path.isdir(os.path.join(path, "topics"))

    for value in (explicit, os.environ.get("SHERIFF_VAULT")):
        if value:
            path = os.path.realpath(os.path.expanduser(value))
            return path if is_vault(path) else None
    here = os.path.realpath(os.getcwd())
    while True:
        if is_vault(here):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _ask(root: str, request: dict) -> dict | None:
    """One request to the daemon named in .vault/daemon.json (see daemon/rpc.py); None when there
    is no daemon or it answers with an error (the full CLI then reports it properly)."""
    import json
    import socket

    request = request | {"vault": os.path.realpath(root)}
    try:
        try:
            with open(os.path.join(root, ".vault", "daemon.json"), encoding="utf-8") as fh:
                state = json.load(fh)
        except FileNotFoundError:  # not served yet: your daemon opens it, if it runs and the vault lets it
            state = _users_daemon()
            request["open"] = "on" if os.environ.get(AUTOSTART_ENV, "").strip().lower() in ON else True
        if state is None or state.get("protocol", 0) < PROTOCOL:
            return None  # a daemon from an older version: the full CLI speaks its protocol
        path = state.get("socket") or os.path.join(root, ".vault", "daemon.sock")
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(120)
            sock.connect(path)
            sock.sendall(json.dumps(request).encode() + b"\n")
            sock.shutdown(socket.SHUT_WR)
            chunks = []
            while chunk := sock.recv(1 << 16):
                chunks.append(chunk)
        reply = json.loads(b"".join(chunks))
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(reply, dict) or not reply.get("ok") or not isinstance(reply.get("result"), dict):
        return None
    return reply["result"]


def _users_daemon() -> dict | None:
    """The user's daemon's daemon.json (daemon/runtime.py's folder, checked as it checks it: a
    folder of this user that no one else can enter), when autostart is not turned off; else None."""
    import json
    import stat

    if os.environ.get(AUTOSTART_ENV, "").strip().lower() in ("0", "false", "no", "off"):
        return None
    base = os.environ.get("XDG_RUNTIME_DIR", "").strip()
    folder = (os.path.join(base, "sheriff-vault") if base else
              os.path.join(os.environ.get("HOME") or os.path.expanduser("~"), ".cache", "sheriff-vault", "run"))
    try:
        info = os.lstat(folder)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or stat.S_IMODE(info.st_mode) & 0o077:
            return None
        with open(os.path.join(folder, "daemon.json"), encoding="utf-8") as fh:
            state = json.load(fh)
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) else None


if __name__ == "__main__":
    main()
