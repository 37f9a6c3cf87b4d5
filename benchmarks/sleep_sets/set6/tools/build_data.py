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
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from builder import NOTHING_IN_PROGRESS, main  # noqa: E402  (the set folders' shared builder)

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


if __name__ == "__main__":
    main(META)
