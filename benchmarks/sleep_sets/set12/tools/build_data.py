#!/usr/bin/env python3
"""set12's conversations and gold labels, built from src/ by ../../builder.py (source format and checks:
../../set6/tools/build_data.py's docstring). Usage: python build_data.py [convN ...]; only META is this set's."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from builder import NOTHING_IN_PROGRESS, main  # noqa: E402  (the set folders' shared builder)

META = {
    "conv121": {
        "person": "Philippa",
        "subjects": {
            "hospital": ("Doreen's heart care: cardiology clinic at St Cuthbert's, echocardiogram and medication "
                         "(warfarin and INR, switch to apixaban, furosemide)",
                         ["cardiology", "cardiology clinic", "heart", "heart condition", "atrial fibrillation",
                          "heart failure", "medication", "medications", "medicines", "tablets", "warfarin",
                          "apixaban", "anticoagulant", "anticoagulation", "blood thinner", "inr",
                          "echocardiogram", "hospital", "hospital appointment", "appointment", "clinic",
                          "clinic review", "health", "st cuthbert's"]),
            "flat": ("Selling Doreen's flat on Larchfield Place, Leith (clearing it, Home Report, closing date, "
                     "offer, missives, entry)",
                     ["flat", "flat sale", "selling the flat", "sale", "property sale", "property", "home report",
                      "larchfield place", "closing date", "offers", "missives", "house sale", "conveyancing",
                      "clearing the flat", "clear-out"]),
            "class": ("Philippa's evening class in Brazilian Portuguese at the Portobello Adult Learning Centre "
                      "(family talk, new start time)",
                      ["portuguese", "brazilian portuguese", "portuguese class", "language class", "evening class",
                       "class", "language", "language learning", "lessons", "course", "adult learning centre",
                       "portobello adult learning centre"]),
        },
        "corrections": [
            {"query": "When is Doreen's clinic review with Dr Okafor at St Cuthbert's?",
             "new": ["24 April", "April 24", "Friday 24 April"], "old": "14 April"},
            {"query": "What time does Philippa's Portuguese class start on Wednesdays?",
             "new": ["6.30 pm", "6.30", "6:30", "6.30pm", "6:30pm", "half past six", "18:30"], "old": "7 pm"},
            {"query": "How much is Doreen's flat on Larchfield Place being sold for?",
             "new": ["179,000", "£179,000", "£179k"], "old": "183,500"},
        ],
        "in_progress": NOTHING_IN_PROGRESS,
    },
    "conv122": {
        "person": "Kez",
        "subjects": {
            "festival": ("Hollowbrook Festival weekend with friends, 17-19 July (tickets, coach, tent, packing)",
                         ["hollowbrook", "hollowbrook festival", "festival", "festival trip", "festival weekend",
                          "camping", "camping trip", "tickets", "wristbands", "weekend away"]),
            "shifts": ("Kez's part-time shifts at the Lumen cinema (time off for the festival, swap with Rhys, "
                       "the Monday 13 July shift)",
                       ["shifts", "shift", "shift swap", "swap", "rota", "job", "part-time job", "work",
                        "cinema", "cinema job", "lumen", "the lumen", "time off", "holiday request",
                        "paid holiday"]),
            "guitar": ("Buying a second-hand electric guitar (Squier Telecaster from Marketplace, fixing it, "
                       "new strings)",
                       ["guitar", "electric guitar", "second-hand guitar", "used guitar", "telecaster", "tele",
                        "squier", "strings", "guitar strings", "restringing", "restring"]),
        },
        "corrections": [
            {"query": "Who is sharing Kez's tent at Hollowbrook Festival?",
             "new": ["Ananya"], "old": "Jess"},
            {"query": "How much did Kez pay for the second-hand Telecaster?",
             "new": ["£205", "205"], "old": "240"},
            {"query": "What time does Kez's swapped Monday 13 July shift at the Lumen start?",
             "new": ["3pm", "3 pm", "15:00"], "old": "5pm"},
        ],
        "in_progress": {"expected": True, "keywords": ["guitar", "string"], "match": "all"},
    },
    "conv123": {
        "person": "Farah",
        "subjects": {
            "golf": ("Hollowmere Golf Club's order: 120 navy polo shirts with the embroidered centenary crest "
                     "(quote, sample, blanks supplier, delivery before the Centenary Dinner)",
                     ["hollowmere", "hollowmere golf club", "golf club", "golf", "polo shirts", "polo", "polos",
                      "embroidery", "embroidered polos", "crest", "centenary", "centenary dinner"]),
            "totes": ("Paper Lantern Books' order: 300 two-colour screen-printed tote bags for the shop's tenth "
                      "birthday (artwork, Bayfield blanks, delivery)",
                      ["paper lantern", "paper lantern books", "bookshop", "tote", "totes", "tote bag",
                       "tote bags", "bags", "screen print", "screen printing", "screen-printed", "tenth birthday",
                       "anniversary"]),
            "run": ("Riverside 10K's order: technical race T-shirts for the runners and volunteers "
                    "(quote, quantity, size split, sponsor logos)",
                    ["riverside 10k", "riverside", "10k", "charity run", "run", "race", "race shirts", "t-shirt",
                     "t-shirts", "tees", "technical tees", "technical t-shirts", "race t-shirts", "hospice",
                     "st brannoc's hospice"]),
        },
        "corrections": [
            {"query": "How many T-shirts are in the Riverside 10K order?",
             "new": ["730"], "old": "650"},
            {"query": "How much does each blank tote bag from Bayfield Bags cost?",
             "new": ["£1.52", "1.52"], "old": "1.38"},
            {"query": "Which supplier are the Hollowmere Golf Club polo shirts coming from?",
             "new": ["Oakridge", "Oakridge Garments"], "old": "Marlin"},
        ],
        "in_progress": NOTHING_IN_PROGRESS,
    },
}


if __name__ == "__main__":
    main(META)
