#!/usr/bin/env python3
"""set14's conversations and gold labels, built from src/ by ../../builder.py (source format and checks:
../../set6/tools/build_data.py's docstring). Usage: python build_data.py [convN ...]; only META is this set's."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from builder import NOTHING_IN_PROGRESS, main  # noqa: E402  (the set folders' shared builder)

META = {
    "conv141": {
        "person": "Elspeth",
        "subjects": {
            "wedding": ("Photographing Isla and Tom's wedding at Kinloch Steading on Saturday 12 September (booking, "
                        "engagement shoot, timeline, shot list, second shooter, rain plan, sneak peeks, gallery)",
                        ["wedding", "wedding day", "client wedding", "wedding shoot", "kinloch steading", "shot list",
                         "timeline", "wedding timeline", "ceremony", "second shooter", "engagement shoot", "gallery",
                         "wedding gallery", "couple", "bride", "groom"]),
            "lens": ("Elspeth's dropped Canon RF 70-200mm f/2.8 lens (insurance claim with Lensguard, excess, repair "
                     "quote from Camtech, hire lens, repair and testing)",
                     ["lens", "70-200", "rf 70-200", "telephoto", "telephoto lens", "camera", "camera gear", "gear",
                      "kit", "insurance", "insurance claim", "claim", "lens claim", "repair", "lens repair",
                      "broken lens", "cracked lens", "dropped lens", "excess", "lensguard", "camtech"]),
            "lofoten": ("Elspeth and Fraser's November trip to Lofoten in Norway (flights via Oslo and Bodø, a rorbu "
                        "cabin, hire car, aurora photography, packing)",
                        ["lofoten", "lofoten trip", "norway", "trip", "holiday", "rorbu", "cabin", "northern lights",
                         "aurora", "travel", "flights", "henningsvær", "henningsvaer", "packing list"]),
        },
        "corrections": [
            {"query": "What time did the ceremony at Isla and Tom's wedding start?",
             "new": ["14:15", "2:15 pm", "2:15pm", "2.15pm", "2.15 pm", "quarter past two"], "old": "13:30"},
            {"query": "What is the excess on Elspeth's insurance claim for the dropped lens?",
             "new": ["£250", "250"], "old": "175"},
            {"query": "Where are Elspeth and Fraser staying in Lofoten?",
             "new": ["Henningsvær", "Henningsvaer"], "old": "Hamnøy"},
        ],
        "in_progress": {"expected": True, "keywords": ["gallery", "Isla"], "match": "all"},
    },
    "conv142": {
        "person": "Kev",
        "subjects": {
            "ash": ("Kev's ash dieback felling contract for Ribble Valley Borough Council (tender, price, traffic "
                    "management, sections, trees taken off the list, progress, invoice)",
                    ["ash", "ash dieback", "dieback", "ash trees", "ash job", "ash contract", "council contract",
                     "contract", "council job", "tender", "council tender", "felling", "tree felling",
                     "ribble valley", "traffic management"]),
            "chipper": ("Replacing Kev's worn-out Greenmech wood chipper with a used one (a Forst ST8 that fell "
                        "through, the Timberwolf TW 280 bought in Kendal, towing, blades, selling the old one)",
                        ["chipper", "wood chipper", "woodchipper", "new chipper", "used chipper", "timberwolf",
                         "tw 280", "forst", "greenmech", "machinery"]),
            "mrt": ("Kev's probation with the Pendle Fell Rescue Team (training nights, kit, casualty care, "
                    "navigation, the hill assessment, callouts)",
                    ["mountain rescue", "mrt", "rescue", "rescue team", "fell rescue", "pendle fell rescue",
                     "probation", "probationer", "trainee", "training night", "hill assessment", "callout",
                     "call-out", "casualty care", "navigation"]),
        },
        "corrections": [
            {"query": "How many trees are in Kev's ash dieback contract with the council?",
             "new": ["122", "122 trees"], "old": "140"},
            {"query": "Which wood chipper did Kev buy?",
             "new": ["TW 280", "TW280", "Timberwolf 280", "TW 280TDHB", "TW280TDHB"], "old": "ST8"},
            {"query": "On what date was Kev's mountain rescue hill assessment?",
             "new": ["14 Nov", "14 November", "November 14", "Sat 14 Nov", "Saturday 14 November",
                     "14th November", "14th Nov"], "old": "7 Nov"},
        ],
        "in_progress": NOTHING_IN_PROGRESS,
    },
    "conv143": {
        "person": "Corinne",
        "subjects": {
            "ride": ("Corinne's London to Paris charity bike ride for the Stroke Association, 24-27 June "
                     "(fundraising minimum, training rides, bike service and fit, packing, the ride itself)",
                     ["ride", "bike ride", "charity ride", "charity bike ride", "london to paris", "cycle ride",
                      "cycling", "bike", "fundraising", "sponsorship", "stroke association", "training rides",
                      "paris"]),
            "jury": ("Corinne's jury service at Norwich Crown Court (summons, deferral, work cover, the trial, "
                     "expenses claim)",
                     ["jury", "jury service", "juror", "jury summons", "summons", "crown court", "court",
                      "norwich crown court", "deferral", "trial", "jury expenses"]),
            "dofe": ("Maisie's Duke of Edinburgh Silver award (sections, kit list, practice expedition, the "
                     "qualifying expedition moved to the Peak District)",
                     ["dofe", "duke of edinburgh", "duke of edinburgh award", "silver dofe", "dofe silver",
                      "silver award", "expedition", "qualifying expedition", "practice expedition", "award"]),
        },
        "corrections": [
            {"query": "On what date did Corinne's jury service start?",
             "new": ["8 June", "June 8", "Monday 8 June", "8th June", "8th of June"], "old": "11 May"},
            {"query": "Where was Maisie's DofE Silver qualifying expedition?",
             "new": ["Peak District"], "old": "North York Moors"},
            {"query": "What is the fundraising minimum for Corinne's London to Paris ride?",
             "new": ["£2,100", "2,100", "2100"], "old": "1,800"},
        ],
        "in_progress": {"expected": True, "keywords": ["expenses", "jury"], "match": "all"},
    },
}


if __name__ == "__main__":
    main(META)
