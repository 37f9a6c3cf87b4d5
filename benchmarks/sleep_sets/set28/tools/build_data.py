#!/usr/bin/env python3
"""set28's conversations and gold labels, built from src/ by ../../builder.py (source format and checks:
../../set6/tools/build_data.py's docstring). Usage: python build_data.py [convN ...]; only META is this set's."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from builder import main  # noqa: E402  (the set folders' shared builder)

META = {
    'conv281': {
        'person': 'Col',
        'subjects': {
            'wedding': ("Daughter's wedding costs",
                        ['wedding', 'weddings', "daughter's wedding", 'wedding costs', 'wedding budget',
                         'wedding venue', 'venue deposit', 'wedding car', 'wedding cars', 'wedding guests',
                         'guest numbers', 'guest list', 'wedding breakfast', 'reception', 'wedding plans',
                         'wedding day', 'swanwell barn', 'barn wedding']),
            'van': ("Van engine repair",
                    ['van', 'vans', 'work van', 'van repair', 'van repairs', 'van engine', 'engine', 'engine repair',
                     'engine fault', 'transit', 'transit custom', 'garage', 'garage quote', 'repair quote',
                     'mechanic', 'turbo', 'injectors', 'courtesy van', 'mot']),
            'boxing': ("Charity boxing night",
                       ['boxing', 'boxing night', 'charity boxing', 'charity boxing night', 'boxing show',
                        'fight night', 'charity night', 'charity event', 'fundraiser', 'fundraising', 'boxing club',
                        'raffle', 'tickets', 'hospice', 'hospice fundraiser', 'tanners lane abc']),
        },
        'corrections': [
            {'query': "How many guests are sitting down to the meal at Kayleigh's wedding?",
             'new': ['82', 'eighty two', 'eighty-two'], 'old': '70'},
            {'query': "How much is the garage charging to fix Col's van?",
             'new': ['£1,400', '1,400', '1400', 'fourteen hundred'], 'old': '£850'},
            {'query': 'Where is the Tanners Lane charity boxing night being held?',
             'new': ['Linford Park', 'Linford Park sports hall'], 'old': 'Fernleigh'},
        ],
        'in_progress': {'expected': False, 'keywords': [], 'match': 'all'},
    },
    'conv282': {
        'person': 'Imogen',
        'subjects': {
            'loan': ("Incoming painting loans",
                     ['loan', 'loans', 'incoming loan', 'incoming loans', 'loan paintings', 'painting loan',
                      'paintings loan', 'art loan', 'exhibition loans', 'loans in', 'paintings', 'lender', 'lenders',
                      'insurance', 'insurance value', 'courier', 'loan agreement', 'facilities report',
                      'herring girls', 'exhibition']),
            'intern': ("Summer intern recruitment",
                       ['intern', 'interns', 'internship', 'summer intern', 'summer internship', 'intern recruitment',
                        'recruitment', 'recruiting', 'hiring', 'interview', 'interviews', 'interview day',
                        'applicants', 'applications', 'candidates', 'shortlist', 'placement', 'induction']),
            'lighting': ("Gallery lighting replacement",
                         ['lighting', 'gallery lighting', 'new lighting', 'lighting replacement', 'lighting upgrade',
                          'relighting', 'led lighting', 'led', 'leds', 'lights', 'light fittings', 'track lighting',
                          'lux', 'lux levels', 'light levels', 'lighting quotes', 'lighting contractor',
                          'lighting install']),
        },
        'corrections': [
            {'query': 'Which contractor is replacing the gallery lighting?',
             'new': ['Corvid', 'Corvid Electrical'], 'old': 'Halden'},
            {'query': 'What is the Aberdeen painting insured for?',
             'new': ['£396,000', '396,000'], 'old': '£360,000'},
            {'query': 'On what day are the summer intern interviews?',
             'new': ['28 April', 'Tuesday 28 April', '28th April', 'April 28'], 'old': '23 April'},
        ],
        'in_progress': {'expected': True, 'keywords': ['facilities report'], 'match': 'all'},
    },
    'conv283': {
        'person': 'Ros',
        'subjects': {
            'roof': ("Cottage roof repair",
                     ['roof', 'roofs', 'roof repair', 'roof repairs', 'roofing', 'roofer', 'cottage roof',
                      'leaking roof', 'leaky roof', 'roof leak', 'slates', 'slate roof', 're-slating', 'reslating',
                      'scaffolding', 'rafters', 'brook cottage', 'storm damage']),
            'picos': ("Picos de Europa walking holiday",
                      ['picos de europa', 'picos', 'walking holiday', 'walking trip', 'hiking holiday', 'hiking trip',
                       'walking', 'hiking', 'trekking', 'holiday', 'trip', 'spain', 'northern spain', 'asturias',
                       'cantabria', 'cares gorge', 'itinerary']),
            'gcse': ("Grandson's GCSE maths revision",
                     ['gcse', 'gcses', 'gcse maths', 'maths gcse', 'maths', 'math', 'maths revision', 'revision',
                      'revising', 'exam', 'exams', 'maths exams', 'mock', 'mocks', 'mock exams', 'past papers',
                      'tutoring', 'exam prep']),
        },
        'corrections': [
            {'query': "What does the roof repair on Ros's cottage cost in total?",
             'new': ['£5,050', '5,050', '5050'], 'old': '£4,570'},
            {'query': 'On what date do Ros and Jean fly out for the Picos holiday?',
             'new': ['12 September', 'Saturday 12 September', '12th September', 'September 12'],
             'old': '10 September'},
            {'query': "On what date is Alfie's first GCSE maths paper?",
             'new': ['13 May', 'Wednesday 13 May', '13th May', 'May 13'], 'old': '19 May'},
        ],
        'in_progress': {'expected': True, 'keywords': ['Sotres'], 'match': 'all'},
    },
}

if __name__ == "__main__":
    main(META)
