#!/usr/bin/env python3
"""set9's conversations and gold labels, built from src/ by ../../builder.py (source format and checks:
../../set6/tools/build_data.py's docstring). Usage: python build_data.py [convN ...]; only META is this set's."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from builder import NOTHING_IN_PROGRESS, main  # noqa: E402  (the set folders' shared builder)

META = {
    "conv91": {
        "person": "Helen",
        "subjects": {
            "hearing": ("Dad's hearing loss: NHS audiology assessment and hearing aids",
                        ["hearing", "hearing loss", "hearing aid", "hearing aids", "hearing test",
                         "hearing assessment", "audiology", "audiologist", "audiology appointment", "ears",
                         "deafness"]),
            "birthday": ("Dad's 80th birthday lunch at the Fell View Hotel (guests, menu, cost)",
                         ["80th", "80th birthday", "birthday", "birthday lunch", "birthday party", "lunch",
                          "family lunch", "party", "celebration", "fell view", "fell view hotel"]),
            "car": ("Selling Dad's 2015 Honda Jazz now that he has stopped driving (private sale)",
                    ["car", "car sale", "selling the car", "sale", "selling", "private sale", "honda",
                     "honda jazz", "jazz", "giving up driving", "stopping driving", "driving"]),
        },
        "corrections": [
            {"query": "When is Dad's hearing assessment at Westmorland General?",
             "new": ["6 May", "May 6"], "old": "20 May"},
            {"query": "How much does the food for Dad's 80th birthday lunch cost in total?",
             "new": ["£884", "884"], "old": "£952"},
            {"query": "What price did Dad's Honda Jazz sell for?",
             "new": ["6,150", "£6,150", "6150"], "old": "6,450"},
        ],
        "in_progress": NOTHING_IN_PROGRESS,
    },
    "conv92": {
        "person": "Gav",
        "subjects": {
            "boiler": ("Combi conversion on Marsh Lane (Vaillant ecoTEC plus 835, gas run, quote, install)",
                       ["boiler", "combi", "combi boiler", "boiler replacement", "boiler install", "combi job",
                        "combi conversion", "conversion", "installation", "vaillant", "ecotec", "marsh lane",
                        "heating"]),
            "van": ("Buying a used 2019 Ford Transit Custom to replace the Berlingo",
                    ["van", "new van", "used van", "van purchase", "buying a van", "transit", "transit custom",
                     "custom", "ford", "ford transit", "vehicle"]),
            "apprentice": ("Hiring a Level 2 plumbing and heating apprentice (ad, interviews, wage)",
                           ["apprentice", "apprenticeship", "hiring", "hire", "recruitment", "recruiting",
                            "trainee", "new starter", "job ad", "interviews", "staff"]),
        },
        "corrections": [
            {"query": "When does the combi install on Marsh Lane start?",
             "new": ["23 March", "March 23", "23 Mar", "Monday 23rd"], "old": "16 Mar"},
            {"query": "How much is Gav paying for the Transit Custom van?",
             "new": ["17,400", "£17,400", "17400"], "old": "14,500"},
            {"query": "What hourly wage is Gav paying the apprentice?",
             "new": ["£9.25", "9.25"], "old": "£8.50"},
        ],
        "in_progress": NOTHING_IN_PROGRESS,
    },
    "conv93": {
        "person": "Freya",
        "subjects": {
            "reports": ("Writing end-of-term reports for 7G, 9R and 10S (Arbor comments, deadline)",
                        ["reports", "report", "school reports", "end-of-term reports", "end of term",
                         "report writing", "report comments", "comments", "comment bank", "arbor", "7g", "9r",
                         "10s"]),
            "race": ("Millbrook half marathon on 28 June with a calf strain (physio, target time, taper)",
                     ["half marathon", "half-marathon", "millbrook", "millbrook half", "race", "running",
                      "training", "calf", "calf strain", "calf injury", "physio"]),
            "cat": ("Adopting a shy six-year-old rescue cat from Hollybank Cat Rescue",
                    ["cat", "rescue cat", "new cat", "cat adoption", "adopting a cat", "adoption", "adopt",
                     "rescue", "hollybank", "hollybank cat rescue", "pet"]),
        },
        "corrections": [
            {"query": "When does the rescue cat come home from Hollybank?",
             "new": ["20 June", "June 20"], "old": "13 June"},
            {"query": "What is Freya's target time for the Millbrook half marathon?",
             "new": ["2:00", "2 hours", "two hours"], "old": "1:55"},
            {"query": "When are Freya's end-of-term reports due to the head of year?",
             "new": ["6 July", "July 6"], "old": "3 July"},
        ],
        "in_progress": {"expected": True, "keywords": ["report", "10s"], "match": "all"},
    },
}


if __name__ == "__main__":
    main(META)
