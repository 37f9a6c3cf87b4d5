#!/usr/bin/env python3
"""set13's conversations and gold labels, built from src/ by ../../builder.py (source format and checks:
../../set6/tools/build_data.py's docstring). Usage: python build_data.py [convN ...]; only META is this set's."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from builder import NOTHING_IN_PROGRESS, main  # noqa: E402  (the set folders' shared builder)

META = {
    "conv131": {
        "person": "Rhian",
        "subjects": {
            "boxes": ("Rhian's veg-box scheme (42 boxes a week on a Thursday round, September price rise, egg add-on, "
                      "Siop Fach as a pickup point, winter break)",
                      ["veg box", "veg boxes", "veg-box scheme", "box scheme", "boxes", "vegetable boxes",
                       "box prices", "price rise", "subscribers", "delivery round", "deliveries", "pickup point"]),
            "tunnel": ("Re-skinning the big polytunnel after a June gale (sheet size and cost from Teifi Tunnels, "
                       "the crew, the tomatoes, winter salads)",
                       ["polytunnel", "big polytunnel", "tunnel", "polythene", "tunnel cover", "re-skin",
                        "re-skinning", "reskinning", "new sheet", "storm damage", "gale damage", "teifi tunnels"]),
            "nel": ("Nel the working collie's partial cruciate tear (Towy Vets, strict rest instead of surgery, weight "
                    "and food, hydrotherapy, back to light work)",
                    ["collie", "sheepdog", "dog", "working dog", "border collie", "cruciate", "cruciate ligament",
                     "cruciate tear", "knee injury", "lameness", "lame", "vet", "vets", "towy vets",
                     "hydrotherapy"]),
        },
        "corrections": [
            {"query": "How much does the large veg box cost from September?",
             "new": ["£24.50", "24.50"], "old": "23.50"},
            {"query": "How much food does Nel get a day?",
             "new": ["240 g", "240g", "240 grams"], "old": "300"},
            {"query": "Who helped Rhian re-skin the big polytunnel?",
             "new": ["Owain", "Owain Pugh"], "old": "Dai"},
        ],
        "in_progress": NOTHING_IN_PROGRESS,
    },
    "conv132": {
        "person": "Joost",
        "subjects": {
            "ledger": ("Migrating the ledger-svc database from self-hosted MySQL 5.7 to Postgres 16 on RDS "
                       "(dual-write, cutover, refunds sequence postmortem, decommission)",
                       ["ledger", "ledger-svc", "ledger db", "ledger database", "database migration", "db migration",
                        "migration", "postgres", "postgresql", "mysql", "rds", "cutover", "dual-write"]),
            "reviews": ("Mid-year performance reviews for Joost's six direct reports (self-assessments, Priya's "
                        "promotion case, ratings, merit pool, write-ups)",
                        ["performance reviews", "perf reviews", "reviews", "review cycle", "mid-year reviews",
                         "performance", "calibration", "write-ups", "ratings", "promotion", "promo", "promo case",
                         "merit", "merit pool", "self-assessments"]),
            "photos": ("Moving the family photos off Google Photos to a Synology NAS (Takeout export, dates, "
                       "duplicates, Backblaze B2 backup, downgrading the Google plan)",
                       ["photos", "photo", "family photos", "photo library", "google photos", "photo migration",
                        "nas", "synology", "synology photos", "takeout", "google takeout", "backup", "backups"]),
        },
        "corrections": [
            {"query": "On which date was the ledger-svc cutover from MySQL to Postgres?",
             "new": ["25 July", "July 25", "Saturday 25 July", "Sat 25 July", "25 Jul"], "old": "18 July"},
            {"query": "How big is the merit pool for Joost's team in this review cycle?",
             "new": ["4%", "4 %", "4 percent"], "old": "3.5%"},
            {"query": "Which Synology NAS did Joost buy for the family photos?",
             "new": ["DS423+", "DS423"], "old": "DS224"},
        ],
        "in_progress": {"expected": True, "keywords": ["Sanne", "review"], "match": "all"},
    },
    "conv133": {
        "person": "Maureen",
        "subjects": {
            "ruby": ("Maureen and Keith's ruby wedding party on Saturday 19 September (guest list, venue, Bev's "
                     "buffet, Sunita's cake, Joanne flying in, Josh's slideshow, Keith's speech)",
                     ["ruby wedding", "ruby wedding party", "ruby anniversary", "ruby", "40th anniversary",
                      "fortieth anniversary", "wedding anniversary", "anniversary", "anniversary party", "party",
                      "celebration", "40 years"]),
            "knee": ("Maureen's right total knee replacement with Mr Haddad at St Hild's (knee school and prehab, "
                     "occupational therapy, a cancellation date, recovery)",
                     ["knee", "knee replacement", "total knee replacement", "knee operation", "knee surgery",
                      "operation", "surgery", "orthopaedic", "osteoarthritis", "pre-op", "prehab", "recovery",
                      "physio", "physiotherapy"]),
            "show": ("The Thornby and District Horticultural Society's 72nd show on 29 August (dahlias, Victoria "
                     "sandwich, Keith's heaviest onion, the teas, show secretary)",
                     ["horticultural show", "horticultural society", "show", "village show", "garden club",
                      "garden show", "flower show", "produce show", "dahlias", "onion", "heaviest onion", "entries",
                      "show secretary"]),
        },
        "corrections": [
            {"query": "Where did Maureen and Keith hold their ruby wedding party?",
             "new": ["cricket pavilion", "Thornby Cricket Club", "cricket club", "pavilion"], "old": "Royal Oak"},
            {"query": "On what date was Maureen's knee replacement operation?",
             "new": ["30 September", "September 30", "Wednesday 30 September", "30th September"],
             "old": "21 October"},
            {"query": "How much did Keith's heaviest onion weigh?",
             "new": ["2.15 kg", "2.15kg", "2.15 kilos", "2.15 kilograms"], "old": "2.4"},
        ],
        "in_progress": NOTHING_IN_PROGRESS,
    },
}


if __name__ == "__main__":
    main(META)
