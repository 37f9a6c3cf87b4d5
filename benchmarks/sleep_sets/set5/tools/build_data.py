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
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from builder import NOTHING_IN_PROGRESS, main  # noqa: E402  (the set folders' shared builder)

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


if __name__ == "__main__":
    main(META)
