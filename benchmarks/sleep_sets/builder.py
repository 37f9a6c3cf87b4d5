"""What every labelled set's tools/build_data.py shares: reading a set's hand-written sources
(src/convN.txt, the format its build_data.py docstring gives), checking the labels and writing
convN.jsonl and convN.gold.json. Each set keeps only its own META table. Standard library only."""
import datetime as dt
import json
import os
import re
import sys

LINE = re.compile(r"^([UA]) (\S+?)([*?]?) \| ?(.*)$")


def find(s, text):
    """First position of s in text, case-insensitive, not inside a longer word or number (as the scorer)."""
    m = re.search(r"(?<![\w])" + re.escape(s.lower()) + r"(?![\w])", text.lower())
    return m.start() if m else None


def iso(t):
    return t.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse(path, subjects):
    """Turns as dicts: role, subj (None = no subject), echo, nofact, text, session index, session start."""
    turns, start, session = [], None, -1
    for n, raw in enumerate(open(path, encoding="utf-8"), 1):
        line = raw.rstrip("\n").rstrip()
        where = f"{os.path.basename(path)}:{n}"
        if not line.strip():
            continue
        if line.startswith("@"):
            start = dt.datetime.fromisoformat(line[1:].strip().replace("Z", "+00:00"))
            if start.tzinfo is None:
                raise SystemExit(f"{where}: session time needs a zone (Z)")
            if turns and turns[-1] is None:
                raise SystemExit(f"{where}: two session lines in a row")
            session += 1
            turns.append(None)  # marker: the next turn opens a session
            continue
        if line.startswith(("U ", "A ")):
            m = LINE.match(line)
            if not m:
                raise SystemExit(f"{where}: cannot read turn line: {line[:60]!r}")
            role, key, mark, text = m.groups()
            if start is None:
                raise SystemExit(f"{where}: turn before the first @session line")
            if key != "-" and key not in subjects:
                raise SystemExit(f"{where}: unknown subject key {key!r}")
            if mark == "*" and role != "A":
                raise SystemExit(f"{where}: '*' (echo) is for assistant turns")
            if mark == "?" and role != "U":
                raise SystemExit(f"{where}: '?' (no fact) is for user turns")
            if mark and key == "-":
                raise SystemExit(f"{where}: a no-subject turn cannot be marked {mark!r}")
            if not text.strip():
                raise SystemExit(f"{where}: empty turn")
            opens = bool(turns) and turns[-1] is None
            if opens:
                turns.pop()
            turns.append({"role": "user" if role == "U" else "assistant", "subj": None if key == "-" else key,
                          "echo": mark == "*", "nofact": mark == "?", "text": text.strip(),
                          "session": session, "start": start, "opens": opens, "line": n})
            continue
        if not turns or turns[-1] is None:
            raise SystemExit(f"{where}: continuation line with no turn to continue")
        turns[-1]["text"] += "\n" + line.strip()
    if turns and turns[-1] is None:
        raise SystemExit(f"{os.path.basename(path)}: session marker with no turns after it")
    return turns


def build(conv, META, SRC, OUT):
    meta = META[conv]
    subjects = meta["subjects"]
    turns = parse(os.path.join(SRC, conv + ".txt"), subjects)
    if not turns:
        raise SystemExit(f"{conv}: no turns")
    # times and ids
    prev = None
    for i, t in enumerate(turns, 1):
        t["id"] = f"t{i}"
        if t["opens"]:
            at = t["start"]
        else:
            at = prev + dt.timedelta(seconds=round(20 + 0.05 * len(t["text"])))
        if prev is not None and at <= prev:
            raise SystemExit(f"{conv}: {t['id']} (line {t['line']}) is not later than the turn before it")
        t["at"], prev = at, at
    rows = [{"role": t["role"], "content": t["text"], "at": iso(t["at"]), "id": t["id"],
             "name": meta["person"] if t["role"] == "user" else "assistant"} for t in turns]
    # labels
    gold_subjects = []
    for key, (name, accept) in subjects.items():
        ts = [t["id"] for t in turns if t["subj"] == key]
        us = [t["id"] for t in turns if t["subj"] == key and t["role"] == "user"]
        if not us:
            raise SystemExit(f"{conv}: subject {key!r} has no user turns")
        gold_subjects.append({"key": key, "name": name, "accept_words": list(accept), "turns": ts, "user_turns": us})
    problems, warnings, info = [], [], []
    # corrections: strings present, new after old
    for c in meta["corrections"]:
        news = c["new"] if isinstance(c["new"], list) else [c["new"]]
        first_old = next((i for i, t in enumerate(turns) if find(c["old"], t["text"]) is not None), None)
        if first_old is None:
            problems.append(f"correction {c['query']!r}: old {c['old']!r} not in the text")
            continue
        firsts = {}
        for s in news:
            k = next((i for i, t in enumerate(turns) if find(s, t["text"]) is not None), None)
            firsts[s] = k
        found = [k for k in firsts.values() if k is not None]  # other spellings the tool might write may be absent
        if not found:
            problems.append(f"correction {c['query']!r}: none of {news} in the text")
            continue
        if min(found) <= first_old:
            problems.append(f"correction {c['query']!r}: a new value occurs at or before the old one")
        # the subject carrying the correction: that of the turn where old first occurs
        subj = turns[first_old]["subj"]
        for s in [c["old"]] + news:
            for t in turns:
                if t["subj"] not in (subj, None) and find(s, t["text"]) is not None:
                    warnings.append(f"{s!r} (correction {c['query']!r}) also in {t['id']} ({t['subj']})")
        for s in [c["old"]] + news:  # recall prints notes with their date (YYYY-MM-DD): keep the values out of it
            for day in sorted({t["at"].strftime("%Y-%m-%d") for t in turns}):
                if find(s, day) is not None:
                    warnings.append(f"{s!r} (correction {c['query']!r}) matches the date {day}")
        first_new = turns[min(found)]
        info.append((c, turns[first_old]["id"], first_new["id"], first_new["session"] > turns[first_old]["session"]))
    if problems:
        raise SystemExit(f"{conv}: " + "; ".join(problems))
    sessions = [t["id"] for t in turns if t["opens"]]
    if not 50 <= len(turns) <= 80:
        warnings.append(f"{len(turns)} turns (want 50-80)")
    if not 3 <= len(sessions) <= 5:
        warnings.append(f"{len(sessions)} sessions (want 3-5)")
    gold = {
        "conversation": conv + ".jsonl",
        "turn_count": len(turns),
        "first_at": rows[0]["at"],
        "last_at": rows[-1]["at"],
        "subjects": gold_subjects,
        "echo_turns": [t["id"] for t in turns if t["echo"]],
        "no_fact_turns": [t["id"] for t in turns if t["nofact"]],
        "corrections": [{"query": c["query"], "new": list(c["new"]) if isinstance(c["new"], list) else [c["new"]],
                         "old": c["old"]} for c in meta["corrections"]],
        "in_progress": dict(meta["in_progress"]),
        "sessions": sessions,
    }
    with open(os.path.join(OUT, conv + ".jsonl"), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    with open(os.path.join(OUT, conv + ".gold.json"), "w", encoding="utf-8") as f:
        json.dump(gold, f, indent=1, ensure_ascii=False)
    users = [t for t in turns if t["role"] == "user"]
    print(f"{conv}: {len(turns)} turns ({len(users)} user), {len(sessions)} sessions {sessions}, "
          f"{rows[0]['at']} .. {rows[-1]['at']}")
    for s in gold_subjects:
        print(f"  {s['key']:10} {len(s['turns']):3} turns, {len(s['user_turns']):2} user")
    print(f"  no subject: {sum(1 for t in turns if t['subj'] is None)} turns; echo {len(gold['echo_turns'])}; "
          f"no-fact {len(gold['no_fact_turns'])}")
    for c, old_id, new_id, later in info:
        print(f"  correction {c['old']!r} ({old_id}) -> {c['new'][0]!r} ({new_id}){' later session' if later else ''}")
    for w in warnings:
        print(f"  WARNING {w}")
    return gold


NOTHING_IN_PROGRESS = {"expected": False, "keywords": [], "match": "all"}  # a conversation that ends finished


def main(META, here=None):
    """Build the conversations named on the command line (default: every one in META with a source)
    of the set whose tools/ folder is `here` (the running build_data.py's folder by default). META, per
    conversation: person (first name used as the user's `name`), subjects {key: (name, accept_words)}
    in gold order, corrections [{query, new, old}], in_progress {expected, keywords, match}."""
    here = here or os.path.dirname(os.path.abspath(sys.argv[0]))
    src, out = os.path.join(here, "..", "src"), os.path.join(here, "..")
    convs = sys.argv[1:] or [c for c in META if os.path.exists(os.path.join(src, c + ".txt"))]
    for c in convs:
        if c not in META:
            raise SystemExit(f"{c}: not in META")
        build(c, META, src, out)
