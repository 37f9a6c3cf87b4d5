#!/usr/bin/env python3
"""set8's conversations and gold labels, built from src/ by ../../builder.py (source format and checks:
../../set6/tools/build_data.py's docstring). Usage: python build_data.py [convN ...]; only META is this set's."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from builder import NOTHING_IN_PROGRESS, main  # noqa: E402  (the set folders' shared builder)

META = {
    "conv81": {
        "person": "Kieran",
        "subjects": {
            "rota": ("Swapping from nights to the day rota (4 on 4 off, 07:00-19:00, Blue watch)",
                     ["day rota", "rota", "rota change", "rota swap", "day shifts", "day shift", "shifts",
                      "shift pattern", "nights", "night shifts", "eoi"]),
            "flat": ("Buying a first flat (leasehold, Level 2 survey, price reduction, mortgage offer)",
                     ["flat", "first flat", "flat purchase", "buying a flat", "home buying", "property", "mortgage",
                      "mortgage offer", "survey", "conveyancing", "leasehold"]),
            "swim": ("Training for the Ellerton Water 3k open-water swim",
                     ["open water", "open-water", "open water swim", "open-water swim", "ows", "swim", "swimming",
                      "3k swim", "3k", "ellerton water", "ellerton", "swim training", "wetsuit"]),
        },
        "corrections": [
            {"query": "When does Kieran's day rota start?",
             "new": ["20 July", "July 20", "20 Jul"], "old": "6 July"},
            {"query": "What is the agreed price for the flat?",
             "new": ["209,500", "209500", "£209,500"], "old": "214,000"},
            {"query": "What time does Kieran's wave start at the Ellerton Water 3k?",
             "new": ["10:25"], "old": "09:40"},
        ],
        "in_progress": NOTHING_IN_PROGRESS,
    },
    "conv82": {
        "person": "Owen",
        "subjects": {
            "venue": ("Moving the Thursday games night from Meeple & Mug to the Lantern Rooms",
                      ["games night", "game night", "board game night", "board-game night", "board games",
                       "boardgame night", "venue", "new venue", "venue move", "moving venue", "lantern rooms",
                       "thursday games night"]),
            "tourney": ("Charity Azul tournament for Tidewell Hospice at St Aldhelm's hall",
                        ["tournament", "charity tournament", "azul", "azul tournament", "charity", "fundraiser",
                         "fundraising", "hospice", "tidewell", "tidewell hospice"]),
            "ceiling": ("Repairing the water-damaged kitchen ceiling (leak, drying out, plasterer)",
                        ["ceiling", "kitchen ceiling", "water damage", "water-damaged ceiling", "leak", "plaster",
                         "plastering", "plasterer", "ceiling repair", "repair", "insurance claim"]),
        },
        "corrections": [
            {"query": "When is the first games night at the Lantern Rooms?",
             "new": ["12 March", "March 12"], "old": "5 March"},
            {"query": "How many players can enter the charity Azul tournament?",
             "new": ["28 players", "28 people", "28 places"], "old": "32 players"},
            {"query": "How much is the plasterer charging for the kitchen ceiling?",
             "new": ["£745", "745"], "old": "£680"},
        ],
        "in_progress": NOTHING_IN_PROGRESS,
    },
    "conv83": {
        "person": "Farah",
        "subjects": {
            "pricing": ("Pricing-page redesign launch (tiers, annual toggle, A/B test, launch runbook)",
                        ["pricing page", "pricing", "pricing-page redesign", "pricing redesign", "redesign",
                         "launch", "pricing launch", "pricing page launch", "plans", "tiers", "runbook",
                         "launch runbook"]),
            "hiring": ("Hiring a senior product designer (band, interviews, offer)",
                       ["hiring", "hire", "senior designer", "senior product designer", "designer",
                        "product designer", "design hire", "recruitment", "recruiting", "candidates", "interviews",
                        "offer"]),
            "vienna": ("Trip to Vienna for a mother's 70th birthday (hotel, Musikverein, birthday dinner)",
                       ["vienna", "wien", "70th", "70th birthday", "birthday", "birthday trip", "trip",
                        "family trip", "musikverein"]),
        },
        "corrections": [
            {"query": "When does the new pricing page launch?",
             "new": ["13 October", "October 13", "13 Oct"], "old": "6 October"},
            {"query": "What is the top of the salary band for the senior designer role?",
             "new": ["£88k", "88k", "88,000", "£88,000"], "old": "£82k"},
            {"query": "For how many people is the birthday dinner in Vienna booked?",
             "new": ["10 people", "ten people", "table for 10"], "old": "9 people"},
        ],
        "in_progress": {"expected": True, "keywords": ["runbook", "pricing"], "match": "all"},
    },
}


if __name__ == "__main__":
    main(META)
