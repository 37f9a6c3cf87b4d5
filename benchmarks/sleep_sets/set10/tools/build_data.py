#!/usr/bin/env python3
"""set10's conversations and gold labels, built from src/ by ../../builder.py (source format and checks:
../../set6/tools/build_data.py's docstring). Usage: python build_data.py [convN ...]; only META is this set's."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from builder import NOTHING_IN_PROGRESS, main  # noqa: E402  (the set folders' shared builder)

META = {
    "conv101": {
        "person": "Maureen",
        "subjects": {
            "shop": ("Volunteering at the St Columba's Hospice shop (new manager, stock backlog, summer fair stall)",
                     ["hospice shop", "hospice", "charity shop", "shop", "volunteering", "volunteer", "rota",
                      "stock", "donations", "summer fair", "fair", "bric-a-brac", "new manager"]),
            "cruise": ("40th wedding anniversary cruise to the Norwegian fjords "
                       "(Aurora Star, balcony cabin, insurance)",
                       ["cruise", "cruise booking", "anniversary", "40th anniversary", "ruby anniversary",
                        "wedding anniversary", "anniversary cruise", "norway", "norwegian fjords", "fjords",
                        "aurora star", "holiday"]),
            "roof": ("Leaking conservatory roof replaced with a solid tiled roof (quotes, firm gone bust, new firm)",
                     ["conservatory", "conservatory roof", "roof", "leak", "leaking roof", "roof leak",
                      "roof replacement", "new roof", "solid roof", "tiled roof", "building control"]),
        },
        "corrections": [
            {"query": "When is the St Columba's Hospice summer fair?",
             "new": ["23 May", "May 23", "Saturday 23 May"], "old": "9 May"},
            {"query": "How much does Maureen and Dennis's anniversary cruise cost?",
             "new": ["£2,970", "2,970", "2970"], "old": "£3,280"},
            {"query": "Which firm is putting the new roof on Maureen's conservatory?",
             "new": ["Kestrel Roofing", "Kestrel"], "old": "Dawson Glazing"},
        ],
        "in_progress": NOTHING_IN_PROGRESS,
    },
    "conv102": {
        "person": "Arjun",
        "subjects": {
            "inc": ("INC-4821: replica lag on db-replica-02 (unthrottled backfill, postmortem, follow-up actions)",
                    ["inc-4821", "incident", "replica lag", "replication lag", "replay lag", "replica", "replication",
                     "lag", "database", "postgres", "postmortem", "post-mortem", "db-replica-02", "backfill"]),
            "hack": ("Platform hack days on 28-29 May (room, budget, prizes, headcount, catering)",
                     ["hackathon", "hack days", "hack day", "hack week", "hack", "platform hack days",
                      "team hackathon", "prizes", "judging", "headcount", "catering"]),
            "visa": ("Renewing the Canadian visitor visa (TRV) for the work trip to the Toronto office",
                     ["visa", "visa renewal", "trv", "temporary resident visa", "visitor visa", "canada",
                      "canadian visa", "toronto", "work trip", "business trip", "biometrics", "ircc"]),
        },
        "corrections": [
            {"query": "Which release contains the fix for INC-4821 (PR #312)?",
             "new": ["v3.2.2", "3.2.2"], "old": "v3.2.1"},
            {"query": "How many people are coming to the platform hack days?",
             "new": ["41"], "old": "34"},
            {"query": "When was Arjun's biometrics appointment at the VAC in Berlin?",
             "new": ["14 April", "April 14", "14 Apr"], "old": "9 April"},
        ],
        "in_progress": NOTHING_IN_PROGRESS,
    },
    "conv103": {
        "person": "Fiona",
        "subjects": {
            "kitchen": ("Single-storey kitchen extension (architect, planning permission, builder quotes, party wall)",
                        ["kitchen", "kitchen extension", "extension", "rear extension", "single-storey extension",
                         "architect", "planning application", "planning permission", "builder",
                         "builders", "builder quotes", "quotes", "party wall"]),
            "uni": ("Isla's move to university in Leeds (halls, advance rent, loan, packing list, drive up)",
                    ["university", "uni", "university move", "moving to university", "halls", "halls of residence",
                     "student accommodation", "accommodation", "leeds", "freshers", "packing list", "packing",
                     "move-in"]),
            "dog": ("Training Pip, a rescue ex-racing greyhound (recall, muzzle, sighthound trainer)",
                    ["greyhound", "rescue greyhound", "ex-racer", "retired greyhound", "dog", "rescue dog",
                     "dog training", "training", "recall", "recall training", "muzzle", "trainer"]),
        },
        "corrections": [
            {"query": "When was Pip's first session with the trainer Bev?",
             "new": ["30 July", "July 30", "Thursday 30 July"], "old": "28 July"},
            {"query": "How much is Pennington Builds' quote for the kitchen extension, like for like?",
             "new": ["£71,700", "71,700"], "old": "£64,500"},
            {"query": "Which hall of residence is Isla moving into at Leeds?",
             "new": ["Carrow Lodge"], "old": "Whitfield Court"},
        ],
        "in_progress": {"expected": True, "keywords": ["packing", "bathroom"], "match": "all"},
    },
}


if __name__ == "__main__":
    main(META)
