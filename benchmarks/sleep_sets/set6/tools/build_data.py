#!/usr/bin/env python3
"""Build set6 conversations and their gold labels from the hand-written sources.

Usage:  python build_data.py [conv51 conv52 ...]      (default: every conversation in META with a source)

Reads  ../src/convN.txt  (paths are relative to this file) and writes
       ../convN.jsonl       one JSON object per turn: role, content, at, id, name
       ../convN.gold.json   labels in the format of ../../../../../shared/bench/sleep/dev/conv5.gold.json
                            (../shared/bench/sleep/dev/conv5.gold.json from the repository root), plus "sessions"

Source format, one turn per line:
  @2026-05-04T08:40:00Z     start of a new session (the clock jumps here)
  U subj | text             user turn about subject `subj` (`-` = about no subject)
  A subj* | text            assistant turn; `*` = an echo (it only restates what the user just said)
  U subj? | text            user turn about subj that carries no fact worth keeping
A line that starts with none of `@`, `U `, `A ` continues the previous turn (joined with a newline);
blank lines are skipped.

Turn times: the first turn of a session is at the session start; every later turn comes
round(20 s + 0.05 s per character of its own text) after the previous one (typing time).

Checks (the build stops on an error): every turn has a known label, times increase, each
correction's `old` and every `new` string occur in the text (whole word, case-insensitive, the way
the scorer matches), the first `new` after the first `old`. Warnings: turn count outside 50-80,
sessions outside 3-5, a correction string that also occurs in another subject's turns or inside a
turn's date (recall prints notes with YYYY-MM-DD dates, so "23" would match 2026-05-23).
Standard library only.
"""
import datetime as dt
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "src")
OUT = os.path.join(HERE, "..")

NOTHING_IN_PROGRESS = {"expected": False, "keywords": [], "match": "all"}

# Per conversation: person (first name used as the user's `name`), subjects {key: (name, accept_words)}
# in gold order, corrections [{query, new, old}], in_progress {expected, keywords, match}.
META = {
    "conv51": {
        "person": "Nadia",
        "subjects": {
            "flaky": ("Flaky integration test test_watch_picks_up_new_file (watcher debounce race)",
                      ["flaky", "flaky test", "flakiness", "integration test", "test_watch", "watch test",
                       "watcher", "debounce", "race", "race condition", "wait_for_ledger_row"]),
            "pydantic": ("Upgrading ledgerline from Pydantic 1.10 to Pydantic 2 (config loader, model files)",
                         ["pydantic", "pydantic 2", "pydantic v2", "dependency upgrade", "upgrade", "dependabot",
                          "migration", "v2 migration", "models", "validators"]),
            "flag": ("New preview flag for `ledgerline import` (--dry-run, renamed --check)",
                     ["flag", "cli flag", "dry-run", "dry run", "--dry-run", "--check", "check flag", "preview",
                      "import command"]),
        },
        "corrections": [
            {"query": "What is the timeout of wait_for_ledger_row in the watch test?",
             "new": ["15 seconds", "15 s", "15s", "timeout=15"], "old": "5 seconds"},
            {"query": "Which pydantic version is ledgerline pinned to?",
             "new": ["2.10.6", "pydantic==2.10.6"], "old": "2.7.4"},
            {"query": "What is the ledgerline import flag that shows what would be imported without writing called?",
             "new": ["--check"], "old": "--dry-run"},
        ],
        "in_progress": {"expected": True, "keywords": ["schema.py", "pydantic"], "match": "all"},
    },
    "conv52": {
        "person": "Marta",
        "subjects": {
            "ghent": ("Talk at the Rail Data Forum in Ghent (train, Hotel Leiekant, expenses)",
                      ["ghent", "gent", "rail data forum", "conference", "talk", "business trip", "work trip",
                       "presentation"]),
            "harz": ("Hiking weekend in the Harz with Tomasz (Brocken, Pension Brockenblick in Wernigerode)",
                     ["harz", "brocken", "wernigerode", "hiking", "hike", "hiking weekend", "hiking trip",
                      "walking weekend", "heinrich heine trail"]),
            "bike": ("Stolen e-bike and the insurance claim with Rheinland Hausrat",
                     ["bike", "e-bike", "bicycle", "stolen bike", "bike theft", "theft", "insurance claim", "claim",
                      "insurance"]),
        },
        "corrections": [
            {"query": "When is Marta's talk at the Rail Data Forum?",
             "new": ["14:15"], "old": "11:30"},
            {"query": "How much is Marta claiming for the stolen bike?",
             "new": ["1,290", "1290"], "old": "1,150"},
            {"query": "When is the Harz hiking weekend with Tomasz?",
             "new": ["1 May", "May 1", "1 to 3 May", "1-3 May"], "old": "24 April"},
        ],
        "in_progress": NOTHING_IN_PROGRESS,
    },
    "conv53": {
        "person": "Dean",
        "subjects": {
            "moto": ("Selling the 2019 Honda CB500F motorbike",
                     ["motorbike", "motorcycle", "bike", "cb500f", "cb500", "honda", "selling", "sale", "autotrader"]),
            "football": ("Under-9s football team: kit order and the Riverside Park tournament",
                         ["football", "u9s", "under-9", "under 9", "team", "kit", "kit order", "shirts",
                          "tournament"]),
            "boiler": ("Replacing the broken boiler with a combi (Halden Heating, Worcester Greenstar 30i)",
                       ["boiler", "combi", "combi boiler", "heating", "new boiler", "boiler replacement",
                        "worcester", "greenstar"]),
        },
        "corrections": [
            {"query": "What is the asking price for the CB500F?",
             "new": ["3650", "3,650"], "old": "3900"},
            {"query": "How much does the football kit order cost in total?",
             "new": ["272"], "old": "238"},
            {"query": "When is the under-9s football tournament?",
             "new": ["23 May", "May 23"], "old": "16 May"},
        ],
        "in_progress": NOTHING_IN_PROGRESS,
    },
    "conv54": {
        "person": "Hannah",
        "subjects": {
            "mph": ("Application for the part-time Master of Public Health at Sheffield (bursary, references)",
                    ["mph", "master of public health", "public health", "master's", "masters", "master's degree",
                     "application", "university application", "sheffield", "bursary", "personal statement"]),
            "cello": ("Cello lessons and the ABRSM grade exam",
                      ["cello", "abrsm", "grade exam", "music exam", "exam", "lessons", "grade 4", "grade 3",
                       "practice"]),
            "foodbank": ("Kirkstall food bank autumn supermarket collection (shops, volunteer rota)",
                         ["food bank", "foodbank", "collection", "supermarket collection", "food collection",
                          "volunteers", "rota", "volunteer rota", "donations"]),
        },
        "corrections": [
            {"query": "When is the deadline for Hannah's MPH application with the bursary?",
             "new": ["1 November", "November 1"], "old": "15 November"},
            {"query": "Which ABRSM cello grade is Hannah taking?",
             "new": ["Grade 4"], "old": "Grade 3"},
            {"query": "How many volunteers does the food bank collection rota need?",
             "new": ["24 volunteers", "24 people", "24 slots"], "old": "20 volunteers"},
        ],
        "in_progress": NOTHING_IN_PROGRESS,
    },
    "conv55": {
        "person": "Ben",
        "subjects": {
            "shelves": ("Fitted alcove shelves in the living room (cutting list, battens, cost)",
                        ["shelves", "shelf", "shelving", "alcove", "alcoves", "alcove shelves", "fitted shelves",
                         "cutting list", "battens"]),
            "club": ("Rowing club 2026 budget for the AGM (treasurer)",
                     ["rowing", "rowing club", "club", "budget", "club budget", "treasurer", "agm", "membership",
                      "income", "expenses"]),
            "oil": ("Heating oil order (tank capacity, quotes, Brennan delivery)",
                    ["heating oil", "oil", "oil order", "oil delivery", "tank", "oil tank", "heating", "fuel",
                     "kerosene"]),
        },
        "corrections": [
            {"query": "How wide is the left alcove?",
             "new": ["91.8"], "old": "92.5"},
            {"query": "How many paying members does the rowing club have?",
             "new": ["152"], "old": "140"},
            {"query": "How many litres of heating oil did Ben order?",
             "new": ["1,000 litres", "1000 litres", "1,000 l", "1000 l"], "old": "1,200 litres"},
        ],
        "in_progress": {"expected": True, "keywords": ["budget", "expenses"], "match": "all"},
    },
    "conv56": {
        "person": "Ines",
        "subjects": {
            "play": ("Stage managing the Millgate Players' Arsenic and Old Lace at the Corn Exchange",
                     ["arsenic and old lace", "play", "theatre", "theater", "production", "show", "stage manager",
                      "stage management", "millgate players", "props", "get-in", "rehearsal"]),
            "insurance": ("Car insurance renewal (Harbour Mutual renewal vs switching to Calder Direct)",
                          ["car insurance", "insurance", "renewal", "insurance renewal", "motor insurance",
                           "policy", "car"]),
            "washer": ("Broken washing machine (E21, Kellands warranty repair)",
                       ["washing machine", "washer", "e21", "bosch", "warranty", "repair", "pump", "drain"]),
        },
        "corrections": [
            {"query": "When is the get-in for Arsenic and Old Lace at the Corn Exchange?",
             "new": ["9 March", "March 9"], "old": "8 March"},
            {"query": "Which company is Ines's car insured with from 1 March?",
             "new": ["Calder Direct"], "old": "Harbour Mutual"},
            {"query": "When does the washing machine's warranty end?",
             "new": ["3 March", "March 3"], "old": "30 April"},
        ],
        "in_progress": NOTHING_IN_PROGRESS,
    },
}

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


def build(conv):
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


def main():
    convs = sys.argv[1:] or [c for c in META if os.path.exists(os.path.join(SRC, c + ".txt"))]
    for c in convs:
        if c not in META:
            raise SystemExit(f"{c}: not in META")
        build(c)


if __name__ == "__main__":
    main()
