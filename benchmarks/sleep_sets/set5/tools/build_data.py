#!/usr/bin/env python3
"""Build set5 conversations and their gold labels from the hand-written sources.

Usage:  python build_data.py [conv41 conv42 ...]      (default: every conversation in META with a source)

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
    "conv41": {
        "person": "Rune",
        "subjects": {
            "certs": ("Moving the hallvik.net wildcard TLS certificate to ACME (lego, DNS-01)",
                      ["certificate", "certificates", "cert", "certs", "tls", "ssl", "wildcard", "acme", "lego",
                       "https", "let's encrypt", "lets encrypt"]),
            "passport": ("Passport renewal (appointment in Sandvika, eTA for Canada)",
                         ["passport", "eta", "travel document"]),
            "ups": ("UPS battery replacement in the server room (Nordkraft hot swap)",
                    ["ups", "battery", "batteries", "battery swap", "uninterruptible", "power supply"]),
        },
        "corrections": [
            {"query": "When is the UPS battery swap?",
             "new": ["14 March", "March 14", "2026-03-14"], "old": "7 March"},
            {"query": "What time is the passport appointment?",
             "new": ["13:40"], "old": "09:15"},
            {"query": "How much do the public CA certificates for the two printers cost?",
             "new": ["341"], "old": "289"},
        ],
        "in_progress": {"expected": True, "keywords": ["acme", "mail01"], "match": "all"},
    },
    "conv42": {
        "person": "Eileen",
        "subjects": {
            "course": ("Beginners' watercolour course at the Millbrae Arts Centre",
                       ["watercolour", "watercolor", "watercolours", "painting", "art class", "art course", "course",
                        "class", "landscape"]),
            "surgery": ("Cataract operation on the right eye",
                        ["cataract", "eye", "surgery", "operation", "lens", "ophthalmology"]),
            "trip": ("Trip to Lisbon with Joan in June",
                     ["lisbon", "portugal", "trip", "holiday", "travel", "journey"]),
        },
        "corrections": [
            {"query": "When is the last watercolour class with the display?",
             "new": ["30 April", "April 30", "2026-04-30"], "old": "23 April"},
            {"query": "When is the cataract operation?",
             "new": ["28 April", "April 28", "2026-04-28"], "old": "20 May"},
            {"query": "Where are Eileen and Joan staying in Lisbon?",
             "new": ["Tejo Verde", "Hotel Tejo Verde"], "old": "Casa Lusa"},
        ],
        "in_progress": NOTHING_IN_PROGRESS,
    },
    "conv43": {
        "person": "Luana",
        "subjects": {
            "school": ("Davi's school transfer from Glenview NS to St Fintan's NS",
                       ["school", "school transfer", "primary school", "enrolment", "enrollment", "after-school",
                        "class"]),
            "money": ("Sending money to Brazil for the parents' car (Wise transfer)",
                      ["money", "money transfer", "remittance", "wise", "exchange rate", "international transfer",
                       "payment", "car", "reais"]),
            "driving": ("Irish driving test (lessons, learner permit, Wilton test centre)",
                        ["driving", "driving test", "driver", "licence", "license", "driving lessons",
                         "learner permit"]),
        },
        "corrections": [
            {"query": "How much money is Luana sending her brother for the parents' car?",
             "new": ["3,200", "3200"], "old": "3,500"},
            {"query": "Who is Davi's class teacher at St Fintan's?",
             "new": ["Fennelly", "Mr Fennelly"], "old": "Duggan"},
            {"query": "When is Luana's driving test?",
             "new": ["9 June", "June 9", "2026-06-09"], "old": "2 June"},
        ],
        "in_progress": NOTHING_IN_PROGRESS,
    },
    "conv44": {
        "person": "Kai",
        "subjects": {
            "project": ("Environmental science group project on microplastics in the campus pond",
                        ["microplastics", "microplastic", "group project", "project", "presentation", "envsci",
                         "environmental science", "slides", "pond", "lab report"]),
            "sublet": ("Subletting the room for the summer",
                       ["sublet", "subletting", "sublease", "subtenant", "room", "summer let", "tenant"]),
            "laptop": ("Buying a used ThinkPad laptop",
                       ["laptop", "thinkpad", "computer", "notebook", "x13", "t14"]),
        },
        "corrections": [
            {"query": "When is the envsci group project presentation?",
             "new": ["12 May", "May 12", "2026-05-12"], "old": "6 May"},
            {"query": "How much rent in total does Paloma pay for the summer sublet?",
             "new": ["840"], "old": "1260"},
            {"query": "Which used laptop did Kai buy?",
             "new": ["X13", "X13 Gen 1"], "old": "T14"},
        ],
        "in_progress": {"expected": True, "keywords": ["slides", "results"], "match": "all"},
    },
    "conv45": {
        "person": "Sofia",
        "subjects": {
            "roaster": ("Switching the café's coffee roaster to Oakline Coffee",
                        ["coffee", "roaster", "beans", "espresso", "blend", "oakline", "coffee supplier"]),
            "terrace": ("Terrace furniture for the new pavement licence (Terrasso Outdoor order)",
                        ["terrace", "furniture", "outdoor seating", "pavement licence", "tables", "chairs",
                         "parasols", "patio", "outdoor"]),
            "hygiene": ("Food hygiene inspection, fixes and rating re-visit",
                        ["hygiene", "food hygiene", "inspection", "inspector", "re-visit", "revisit", "rating",
                         "environmental health", "food safety", "allergen", "allergens"]),
        },
        "corrections": [
            {"query": "How much does Oakline's Riverbank blend cost per kilo?",
             "new": ["18.90"], "old": "19.50"},
            {"query": "When is the Terrasso terrace furniture delivered?",
             "new": ["22 April", "April 22", "2026-04-22"], "old": "16 April"},
            {"query": "When is the hygiene inspector's re-visit?",
             "new": ["19 May", "May 19", "2026-05-19"], "old": "12 May"},
        ],
        "in_progress": NOTHING_IN_PROGRESS,
    },
    "conv46": {
        "person": "Gavin",
        "subjects": {
            "arran": ("Family summer holiday on Arran (cottage near Lamlash, ferry)",
                      ["arran", "holiday", "summer holiday", "trip", "vacation", "cottage", "ferry"]),
            "anniversary": ("Parents' golden wedding anniversary dinner at The Old Granary",
                            ["anniversary", "golden wedding", "golden anniversary", "50th", "dinner", "party",
                             "celebration"]),
            "braces": ("Euan's orthodontic braces (Westbourne Orthodontics)",
                       ["braces", "brace", "orthodontist", "orthodontic", "orthodontics", "teeth"]),
        },
        "corrections": [
            {"query": "When is the golden wedding anniversary dinner?",
             "new": ["27 June", "June 27", "2026-06-27"], "old": "20 June"},
            {"query": "When are Euan's braces fitted?",
             "new": ["30 June", "June 30", "2026-06-30"], "old": "16 June"},
            {"query": "What time is the outbound ferry to Arran?",
             "new": ["13:05"], "old": "10:55"},
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
