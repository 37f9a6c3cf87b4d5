#!/usr/bin/env python3
"""set27's conversations and gold labels, built from src/ by ../../builder.py (source format and checks:
../../set6/tools/build_data.py's docstring). Usage: python build_data.py [convN ...]; only META is this set's."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from builder import main  # noqa: E402  (the set folders' shared builder)

META = {
    'conv271': {
        'person': 'Bryony',
        'subjects': {
            'patio': ("The patio job for a client: a sandstone patio off her kitchen (about 38 m2), stone choice and "
                      "supplier prices, the quote, extras (a step down to the lawn and a planting strip), the deposit, "
                      "the start date, the stone order, drainage and levels, the build, the final invoice",
                      ['patio', 'patio job', 'new patio', 'patio quote', 'patio build', 'garden patio', 'paving',
                       'paving job', 'patio stone', 'sandstone', 'indian sandstone', 'paving slabs',
                       'hard landscaping', 'landscaping job', 'client job', 'quote']),
            'digger': ("Buying a second-hand mini digger (a 2018 Mortimer MD18 from a retiring groundworker): hire "
                       "costs compared, the fitter's inspection, a weeping hose, the price, the trailer and towing, "
                       "the "
                       "accountant's advice on timing, collection, first checks, hours used",
                       ['mini digger', 'digger', 'mini excavator', 'excavator', 'second-hand digger', 'used digger',
                        'buying a digger', 'digger purchase', 'plant', 'machinery', 'equipment', 'mortimer', 'md18']),
            'college': ("Her apprentice's college day-release for a Level 2 landscaping apprenticeship: the timetable "
                        "(Wednesdays at the college), pay for the college day, the kit fee, the spraying certificate "
                        "add-on (PA1/PA6) and its fee, the tutor's updates, the assessment, the progress review",
                        ['apprentice', 'apprenticeship', "apprentice's college", 'college', 'day release',
                         'day-release', 'college course', 'college day', 'timetable', 'college timetable',
                         'course fees', 'college fees', 'training', 'level 2', 'spraying certificate', 'pa6']),
        },
        'corrections': [
            {'query': 'On what date does Bryony start the patio job?',
             'new': ['27 April', 'Monday 27 April', '27th April', 'April 27'], 'old': '13 April'},
            {'query': 'How much did Bryony pay for the second-hand mini digger?',
             'new': ['£13,860', '13,860', '13860'], 'old': '£14,500'},
            {'query': 'How much is the spraying certificate for Bryony\'s apprentice costing her?',
             'new': ['£315', '315'], 'old': '£540'},
        ],
        'in_progress': {'expected': True, 'keywords': ['invoice'], 'match': 'all'},
    },
    'conv272': {
        'person': 'Dennis',
        'subjects': {
            'dinner': ("Organising the cricket club's end-of-season dinner (Saturday 10 October): the venue (pavilion, "
                       "pub function room, golf club), the headcount from the sign-up sheet, the menu and pre-orders, "
                       "the ticket price, the deposit, awards and trophies, the bill and what is left over",
                       ['dinner', 'end-of-season dinner', 'end of season dinner', 'season dinner', 'club dinner',
                        'cricket dinner', 'cricket club dinner', 'cricket club', 'annual dinner', 'awards dinner',
                        'presentation dinner', 'menu', 'venue', 'function room', 'headcount']),
            'hearing': ("Replacing his hearing aids: old NHS aids whistling, NHS or private, a hearing test at a "
                        "private "
                        "audiologist, the model (Solace R5 or R7), the price and the discount, fitting, settling in, "
                        "follow-up, warranty and insurance",
                        ['hearing aids', 'hearing aid', 'new hearing aids', 'replacing hearing aids', 'hearing',
                         'hearing test', 'audiologist', 'audiology', 'solace', 'solace r5']),
            'canal': ("A narrowboat holiday with his brother: the dates, hiring the boat from Dunlin Narrowboats at "
                      "Caddon Wharf, the cost split, the route to Fallow Locks, where to moor, his brother's knee, the "
                      "holiday itself",
                      ['canal boat', 'canal-boat', 'narrowboat', 'narrow boat', 'canal holiday', 'boat holiday',
                       'boating holiday', 'canal trip', 'boat trip', 'boat hire', 'narrowboat hire', 'mooring',
                       'moorings', 'canal', 'ravensmoor canal', 'holiday', 'trip']),
        },
        'corrections': [
            {'query': "How many people are coming to the cricket club's end-of-season dinner?",
             'new': ['36', '36 people'], 'old': '34'},
            {'query': 'What is Dennis paying for his new hearing aids?',
             'new': ['£2,601', '2,601', '2601'], 'old': '£2,890'},
            {'query': "When does Dennis's narrowboat holiday with his brother start?",
             'new': ['26 September', 'Saturday 26 September', '26th September', 'September 26'],
             'old': '19 September'},
        ],
        'in_progress': {'expected': False, 'keywords': [], 'match': 'all'},
    },
    'conv273': {
        'person': 'Jas',
        'subjects': {
            'exam': ("\"Big Exam\", the pharmacology exam of her non-medical prescribing course: the date, the pass "
                     "marks (80%, numeracy 100%), the modules and a study plan, mock scores, weak areas (interactions, "
                     "renal dosing), the date moved, the last mock before it",
                     ['exam', 'big exam', 'prescribing exam', 'pharmacology exam', 'non-medical prescribing',
                      'prescribing', 'prescribing course', 'nmp', 'pharmacology', 'revision', 'revising', 'mock',
                      'mock exam', 'mocks', 'study plan', 'studying']),
            'car': ("\"The Beast\", selling her old 2009 Vauxhall Zafira: the asking price, the advert, no bites, the "
                    "price dropped, the MOT (a fail, the repair, the retest), the buyer, the paperwork, the refunds",
                    ['car', 'old car', 'selling the car', 'car sale', 'selling her car', 'used car', 'the beast',
                     'beast', 'zafira', 'mot', 'advert']),
            'sofa': ("\"Operation Sofa\", selling her grey corner sofa online: the listing and price, the buyers (one "
                     "who does not turn up, one who does), collection day, payment, the new sofa",
                     ['sofa', 'selling the sofa', 'sofa sale', 'operation sofa', 'corner sofa', 'grey sofa', 'couch',
                      'furniture', 'collection']),
        },
        'corrections': [
            {'query': "On what date is Jas's prescribing exam?",
             'new': ['22 October', 'Thursday 22 October', '22nd October', 'October 22', '22nd of October'],
             'old': '8 October'},
            {'query': 'How much is Jas selling her old car for?',
             'new': ['£1,650', '1,650', '1650'], 'old': '£1,800'},
            {'query': "Who is buying Jas's sofa?",
             'new': ['Hannah'], 'old': 'Dominic'},
        ],
        'in_progress': {'expected': True, 'keywords': ['mock'], 'match': 'all'},
    },
}

if __name__ == "__main__":
    main(META)
