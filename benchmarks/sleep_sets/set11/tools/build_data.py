#!/usr/bin/env python3
"""set11's conversations and gold labels, built from src/ by ../../builder.py (source format and checks:
../../set6/tools/build_data.py's docstring). Usage: python build_data.py [convN ...]; only META is this set's."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from builder import NOTHING_IN_PROGRESS, main  # noqa: E402  (the set folders' shared builder)

META = {
    "conv111": {
        "person": "Nino",
        "subjects": {
            "permit": ("Renewing Nino's family residence permit at the Ausländerbehörde in Leipzig "
                       "(appointment, documents, new card)",
                       ["residence permit", "permit", "permit renewal", "residence permit renewal", "renewal",
                        "aufenthaltstitel", "ausländerbehörde", "auslaenderbehoerde", "immigration office",
                        "foreigners office", "appointment", "residence card", "visa", "fiktionsbescheinigung"]),
            "garden": ("Raised-bed plot in the Grünes Eck community garden (contract and fee, work hours, planting)",
                       ["community garden", "garden", "garden plot", "plot", "raised bed", "allotment",
                        "gardening", "vegetable garden", "vegetables", "planting", "grünes eck", "gruenes eck"]),
            "piano": ("Luka's youth piano competition (programme, nerves, regional round and final)",
                      ["piano", "piano competition", "competition", "youth piano competition",
                       "music competition", "piano final", "final", "programme", "program", "pieces",
                       "recital"]),
        },
        "corrections": [
            {"query": "When is Nino's appointment at the Ausländerbehörde to renew her residence permit?",
             "new": ["26 March", "March 26", "Thursday 26 March"], "old": "12 March"},
            {"query": "How much is the fee for Nino's raised bed in the community garden?",
             "new": ["€55", "55 euro", "55 €", "EUR 55"], "old": "€40"},
            {"query": "Which Romantic piece does Luka play in the piano competition?",
             "new": ["March of the Trolls", "Grieg"], "old": "Waltz in A minor"},
        ],
        "in_progress": NOTHING_IN_PROGRESS,
    },
    "conv112": {
        "person": "Leah",
        "subjects": {
            "mortgage": ("Mortgage for the house on Marlow Street (broker, application, offer, survey, completion)",
                         ["mortgage", "mortgage application", "mortgage offer", "home loan", "house purchase",
                          "buying a house", "house buying", "house", "new house", "first home", "home",
                          "property", "broker", "survey", "conveyancing", "marlow street"]),
            "museum": ("Applying for the Learning Officer job at Eastwick Maritime Museum "
                       "(supporting statement, interview presentation, job offer)",
                       ["job", "job application", "museum job", "new job", "learning officer", "museum",
                        "maritime museum", "eastwick maritime museum", "supporting statement", "interview",
                        "job interview", "interview presentation", "job offer", "career change"]),
            "stall": ("Sourdough bread stall at the Saturday farmers' market in St Anne's Square",
                      ["sourdough", "sourdough stall", "bread", "bread stall", "market stall", "stall",
                       "bakery stall", "farmers' market", "farmers market", "market", "baking", "bakery",
                       "loaves", "micro-bakery"]),
        },
        "corrections": [
            {"query": "What is the interest rate on Leah and Sam's mortgage offer from Northgate?",
             "new": ["4.39%", "4.39"], "old": "4.19%"},
            {"query": "Which object from the collection is Leah's interview presentation at the museum about?",
             "new": ["figurehead", "Mary Ellen"], "old": "diving helmet"},
            {"query": "When is Leah's first Saturday trading at the farmers' market?",
             "new": ["11 April", "April 11", "Saturday 11 April"], "old": "18 April"},
        ],
        "in_progress": NOTHING_IN_PROGRESS,
    },
    "conv113": {
        "person": "Dan",
        "subjects": {
            "move": ("Moving Chainline Cycles from Carver Street to Unit 3, Foundry Yard "
                     "(lease, fit-out, move, stock count)",
                     ["move", "moving", "shop move", "moving premises", "relocation", "new premises",
                      "premises", "new unit", "new shop", "new workshop", "foundry yard", "unit 3", "lease",
                      "fit-out", "stock count", "stocktake", "stock take"]),
            "rota": ("Summer holiday clash in the staff rota (Jonno and Aoife both off 3-7 August, cover mechanic)",
                     ["rota", "staff rota", "holiday", "holidays", "holiday clash", "annual leave", "leave",
                      "cover", "holiday cover", "summer cover", "staffing", "freelance mechanic",
                      "cover mechanic"]),
            "supplier": ("Ridgeway Distribution's price rise from 1 June (pre-order, tyres and tubes moved to Carrick)",
                         ["supplier", "suppliers", "price rise", "price increase", "prices", "ridgeway",
                          "ridgeway distribution", "distributor", "parts supplier", "wholesale prices",
                          "pre-order"]),
        },
        "corrections": [
            {"query": "When does Chainline Cycles get the keys to Unit 3, Foundry Yard?",
             "new": ["15 May", "May 15", "Friday 15 May"], "old": "1 May"},
            {"query": "Who is covering the workshop on 3-7 August, while Jonno and Aoife are both on holiday?",
             "new": ["Marek"], "old": "Stu"},
            {"query": "By how much is Ridgeway Distribution raising its prices from 1 June?",
             "new": ["9%", "9 %", "9 per cent"], "old": "7%"},
        ],
        "in_progress": {"expected": True, "keywords": ["stock", "tyres"], "match": "all"},
    },
}


if __name__ == "__main__":
    main(META)
