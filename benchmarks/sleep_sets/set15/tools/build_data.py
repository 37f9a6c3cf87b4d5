#!/usr/bin/env python3
"""set15's conversations and gold labels, built from src/ by ../../builder.py (source format and checks:
../../set6/tools/build_data.py's docstring). Usage: python build_data.py [convN ...]; only META is this set's.

A turn that carries two subjects (conv151's "also re the minibus - ..." messages, and the assistant's
answer to both halves) is labelled with no subject ("-"): the gold format gives a turn one subject, and
labelling it with either would count a correct filing of the other half against purity and fragmentation."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from builder import NOTHING_IN_PROGRESS, main  # noqa: E402  (the set folders' shared builder)

META = {
    "conv151": {
        "person": "Hilary",
        "subjects": {
            "quiz": ("Hilary's charity quiz night for Welland Valley Hospice at Farndon Road Cricket Club (date, "
                     "tables, quizmaster, rounds, raffle, the night, money raised)",
                     ["quiz", "quiz night", "charity quiz", "charity quiz night", "pub quiz", "hospice quiz",
                      "fundraiser", "fundraising", "fundraising quiz", "quizmaster", "raffle",
                      "welland valley hospice", "hospice"]),
            "minibus": ("Hiring a wheelchair-accessible minibus for the Elmfield Day Centre Tuesday group's outing "
                        "to Rutland Water (quotes, seats and wheelchair spaces, booking, escorts, lunch, the day)",
                        ["minibus", "minibus hire", "mini bus", "bus", "bus hire", "coach", "coach hire", "outing",
                         "day centre outing", "day trip", "trip", "group outing", "rutland water", "transport",
                         "community transport", "accessible transport", "wheelchair accessible"]),
            "roof": ("The leaking flat roof over Hilary's kitchen extension (the leak, roofers' quotes, EPDM or GRP, "
                     "choosing a roofer, the re-roof)",
                     ["roof", "flat roof", "leaking roof", "leaky roof", "roof leak", "leak", "roof repair",
                      "re-roof", "reroof", "roofing", "roofer", "roofers", "epdm", "grp", "fibreglass roof",
                      "extension roof", "kitchen extension"]),
        },
        "corrections": [
            {"query": "On what date was the Welland Valley Hospice quiz night held?",
             "new": ["27 March", "March 27", "Friday 27 March", "27th March", "27th of March"], "old": "6 March"},
            {"query": "How much does the community transport minibus for the day-centre outing cost?",
             "new": ["£215", "215"], "old": "185"},
            {"query": "Which roofer re-roofed Hilary's kitchen extension?",
             "new": ["Pridmore", "Pridmore Roofing"], "old": "Kerr"},
        ],
        "in_progress": NOTHING_IN_PROGRESS,
    },
    "conv152": {
        "person": "Oskar",
        "subjects": {
            "printer": ("Upgrading Oskar's Ender-3 V2 3D printer (all-metal hotend, Klipper firmware on a Raspberry "
                        "Pi, textured PEI sheet, probe, calibration: pressure advance, input shaper)",
                        ["3d printer", "printer", "3d printing", "printer upgrade", "ender", "ender-3", "ender 3",
                         "ender-3 v2", "hotend", "hot end", "klipper", "firmware", "pei", "pei sheet",
                         "build plate", "input shaper", "pressure advance", "calibration", "printing"]),
            "rpg": ("Running Oskar's Pathfinder 2e campaign for friends (Abomination Vaults: session scheduling, "
                    "a new player joining, her character, session zero)",
                    ["campaign", "pathfinder", "pf2e", "pathfinder 2e", "rpg", "ttrpg", "tabletop", "tabletop rpg",
                     "role-playing", "roleplaying", "role-playing game", "abomination vaults", "game night",
                     "session zero", "new player", "gm", "game master", "dnd", "d&d"]),
            "finger": ("Oskar's A2 pulley injury from bouldering (left ring finger, physio, scan and grade, "
                       "splint and taping, rehab plan, return to climbing)",
                       ["finger", "finger injury", "a2", "a2 pulley", "pulley", "pulley injury", "pulley rupture",
                        "injury", "climbing injury", "bouldering", "bouldering injury", "climbing", "physio",
                        "physiotherapy", "rehab", "rehabilitation", "hangboard", "ring finger"]),
        },
        "corrections": [
            {"query": "What pressure advance value has Oskar set in Klipper for his printer?",
             "new": ["0.035"], "old": "0.055"},
            {"query": "What class is Lotte, the new player in Oskar's Pathfinder campaign, playing?",
             "new": ["Kineticist"], "old": "Thaumaturge"},
            {"query": "What grade is Oskar's A2 pulley injury?",
             "new": ["grade 3", "grade III", "grade-3", "grade three"], "old": "grade 2"},
        ],
        "in_progress": {"expected": True, "keywords": ["input shaper"], "match": "all"},
    },
    "conv153": {
        "person": "Bethan",
        "subjects": {
            "vat": ("Fairclough Plastering's late VAT return for the October-December quarter (missing records, "
                    "the flat rate scheme, the amount due, filing, penalty point, paying)",
                    ["vat", "vat return", "late vat return", "vat quarter", "flat rate", "flat rate scheme",
                     "hmrc", "penalty", "penalty point", "late return", "fairclough plastering", "plastering"]),
            "payroll": ("Moving Adeyemi Pharmacy's payroll from Sage to BrightPay (staff records, parallel run, "
                        "go-live, first pay run, FPS submissions)",
                        ["payroll", "payroll switch", "payroll migration", "payroll move", "new payroll",
                         "payroll system", "payroll software", "brightpay", "sage", "sage payroll", "pay run",
                         "fps", "rti", "pharmacy", "adeyemi pharmacy", "pharmacy payroll"]),
            "allotment": ("Bethan's own application for an allotment plot (waiting list, application, offer, the "
                          "plot, tenancy, first digging)",
                          ["allotment", "allotments", "allotment plot", "allotment application", "plot",
                           "allotment society", "allotment site", "vegetable plot", "veg plot", "growing"]),
        },
        "corrections": [
            {"query": "How much VAT does Fairclough Plastering owe for the October-December quarter?",
             "new": ["2,040.60", "£2,040.60", "2040.60", "2,040", "2,041"], "old": "2,870"},
            {"query": "When was the first pay run on BrightPay for Adeyemi Pharmacy?",
             "new": ["24 April", "April 24", "Friday 24 April", "24th April", "24th of April"], "old": "27 March"},
            {"query": "Which allotment plot number did Bethan get?",
             "new": ["73B"], "old": "37B"},
        ],
        "in_progress": NOTHING_IN_PROGRESS,
    },
}


if __name__ == "__main__":
    main(META)
