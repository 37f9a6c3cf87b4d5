#!/usr/bin/env python3
"""set7's conversations and gold labels, built from src/ by ../../builder.py (source format and checks:
../../set6/tools/build_data.py's docstring). Usage: python build_data.py [convN ...]; only META is this set's."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from builder import NOTHING_IN_PROGRESS, main  # noqa: E402  (the set folders' shared builder)

META = {
    "conv71": {
        "person": "Craig",
        "subjects": {
            "van": ("Renewing the Transit Custom van lease (Mercer vs Kestrel quotes, mileage allowance)",
                    ["van", "van lease", "lease", "leasing", "lease renewal", "commercial van", "company van",
                     "works van", "transit", "transit custom", "vehicle lease"]),
            "complaint": ("Customer complaint: Harlow table set damaged in delivery by Swiftline (replacement top)",
                          ["complaint", "customer complaint", "damaged delivery", "damage", "damaged", "delivery",
                           "replacement", "replacement top", "table", "table top", "harlow", "courier", "claim",
                           "damage claim", "swiftline"]),
            "bbq": ("Staff summer barbecue in the workshop yard on 18 July",
                    ["barbecue", "bbq", "staff barbecue", "summer barbecue", "staff party", "summer party", "party",
                     "staff event", "cookout"]),
        },
        "corrections": [
            {"query": "What annual mileage allowance is Craig's new van lease on?",
             "new": ["20,000", "20000"], "old": "15,000"},
            {"query": "When is the replacement table top delivered to Mrs Okafor?",
             "new": ["16 June", "June 16"], "old": "11 June"},
            {"query": "How many people are coming to the staff barbecue?",
             "new": ["31"], "old": "26"},
        ],
        "in_progress": NOTHING_IN_PROGRESS,
    },
    "conv72": {
        "person": "Malcolm",
        "subjects": {
            "clock": ("Restoring a French Japy Frères eight-day striking mantel clock "
                      "(mainsprings, bushing, reassembly)",
                      ["clock", "mantel clock", "french clock", "striking clock", "clock restoration", "restoration",
                       "restoring", "movement", "mainspring", "mainsprings", "japy", "horology", "bushing"]),
            "railway": ("Volunteering with the Ryeford Valley Railway carriage and wagon works "
                        "(application, induction)",
                        ["railway", "heritage railway", "volunteer", "volunteering", "volunteer role", "application",
                         "carriage and wagon", "ryeford", "ryeford valley railway", "induction", "dene bridge"]),
            "kidney": ("Kidney stone: urology clinic and shockwave lithotripsy at Northfield General",
                       ["kidney stone", "kidney", "stone", "urology", "ureter", "lithotripsy", "shockwave lithotripsy",
                        "eswl", "tamsulosin", "hospital"]),
        },
        "corrections": [
            {"query": "What thickness are the new mainsprings for the clock?",
             "new": ["0.40 mm", "0.40", "0.4 mm"], "old": "0.42 mm"},
            {"query": "When is the new volunteers' induction day at Dene Bridge works?",
             "new": ["16 May", "May 16"], "old": "9 May"},
            {"query": "How much fluid should Malcolm drink per day?",
             "new": ["3 litres", "3 l", "three litres"], "old": "2 litres"},
        ],
        "in_progress": {"expected": True, "keywords": ["clock", "strike"], "match": "all"},
    },
    "conv73": {
        "person": "Jodie",
        "subjects": {
            "uni": ("Kai's university open days and UCAS application for civil engineering",
                    ["university", "universities", "uni", "ucas", "application", "applications",
                     "university applications", "open day", "open days", "university open days",
                     "civil engineering", "predicted grades"]),
            "clutch": ("Replacing the clutch on the 2014 Ford Focus (Fernside Garage)",
                       ["clutch", "clutch replacement", "new clutch", "car", "family car", "focus", "ford focus",
                        "garage", "car repair", "flywheel"]),
            "pigs": ("Adopting two guinea pigs from Hollybank rescue (cage, home check)",
                     ["guinea pigs", "guinea pig", "pets", "adoption", "adopting", "rescue", "hollybank", "cage",
                      "home check"]),
        },
        "corrections": [
            {"query": "What are Kai's predicted A-level grades?",
             "new": ["ABB"], "old": "AAB"},
            {"query": "When is the Focus booked in for its new clutch?",
             "new": ["16 July", "July 16"], "old": "14 July"},
            {"query": "What size is the guinea pigs' cage?",
             "new": ["120 x 60", "120x60", "120 x 60 cm"], "old": "100 x 50"},
        ],
        "in_progress": NOTHING_IN_PROGRESS,
    },
}


if __name__ == "__main__":
    main(META)
