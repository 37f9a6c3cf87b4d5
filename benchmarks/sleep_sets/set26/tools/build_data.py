#!/usr/bin/env python3
"""set26's conversations and gold labels, built from src/ by ../../builder.py (source format and checks:
../../set6/tools/build_data.py's docstring). Usage: python build_data.py [convN ...]; only META is this set's."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from builder import main  # noqa: E402  (the set folders' shared builder)

META = {
    'conv261': {
        'person': 'Tamsin',
        'subjects': {
            'pram': ("Choosing a pram / travel system for Tamsin and Joe's first baby, due 3 July: the Marlow Duo, "
                     "Larkspur City and Osprey Trek compared (handle height for Joe, fold size and the Fiesta's boot, "
                     "colour, car seat and adapters, must-have accessories, carrycot sleeping, order and delivery)",
                     ['pram', 'prams', 'pushchair', 'pushchairs', 'buggy', 'stroller', 'travel system',
                      'pram choice', 'choosing a pram', 'new pram', 'baby', 'first baby', 'new baby', 'baby kit',
                      'baby gear', 'carrycot', 'car seat', 'marlow duo']),
            'pension': ("Consolidating two old workplace pensions (Meridian Master Trust from a call-centre job, "
                        "Lantern Life group pension from a housing association) into her current workplace pension "
                        "run by Northgate: values, exit fees and guarantees, options compared, fund choice, the "
                        "transfer-in requests",
                        ['pension', 'pensions', 'old pensions', 'workplace pension', 'workplace pensions',
                         'pension pot', 'pension pots', 'pension transfer', 'pension transfers',
                         'pension consolidation', 'consolidating pensions', 'combining pensions', 'merging pensions',
                         'retirement savings', 'retirement', 'northgate']),
            'cottage': ("Booking a holiday cottage in the Yorkshire Dales for the family reunion of her dad's side "
                        "(16 people incl. a baby, a ground-floor bedroom for her grandma; three cottages compared, "
                        "Thornber Farmhouse near Settle booked, the cost split, the dates, the Saturday meal at the "
                        "pub, RSVPs and payments)",
                        ['cottage', 'holiday cottage', 'holiday let', 'family reunion', 'reunion', 'reunion weekend',
                         'family weekend', 'family holiday', 'get-together', 'family get-together', 'farmhouse',
                         'thornber farmhouse', 'yorkshire dales', 'dales', 'cottage booking', 'settle']),
        },
        'corrections': [
            {'query': 'Which pram are Tamsin and Joe buying?',
             'new': ['Marlow Duo', 'Marlow'], 'old': 'Larkspur'},
            {'query': "What are Tamsin's two old pension pots worth together?",
             'new': ['32,140', '£32,140', '32140'], 'old': '30,720'},
            {'query': 'Which dates is the family reunion at Thornber Farmhouse now?',
             'new': ['4 September', 'Friday 4 September', '4-7 September', '4th September', 'September 4'],
             'old': '28 August'},
        ],
        'in_progress': {'expected': True, 'keywords': ['Meridian'], 'match': 'all'},
    },
    'conv262': {
        'person': 'Ruth',
        'subjects': {
            'fence': ("The boundary fence dispute with her neighbour Marcus: a new fence with concrete posts put up in "
                      "February on what Ruth thinks is her side (her rosemary bed cut off); photos, the title plan, a "
                      "talk that goes badly, a jointly instructed surveyor and his report, the posts moved back by "
                      "Marcus's builder, a signed note",
                      ['fence', 'boundary', 'boundary fence', 'boundary dispute', 'fence dispute', 'garden fence',
                       'new fence', 'fence posts', 'property boundary', 'boundary line', 'title plan',
                       'land registry', 'surveyor', 'boundary survey', 'mediation', 'neighbour dispute', 'dispute']),
            'party': ("Co-organising the Aldwick Road summer street party with Marcus: the date, the road closure from "
                      "the council, the letter to neighbours, tables from the church hall, one-day insurance, a "
                      "bouncy castle, a BBQ in the road, Kieran DJing, the kitty and what is left over",
                      ['street party', 'party', 'summer party', 'road party', 'road closure', 'street closure',
                       'community party', 'neighbourhood party', 'bunting', 'party planning', 'street event',
                       'aldwick road']),
            'dog': ("Paying Marcus's son Kieran (16) to walk her springer spaniel Bramble: the rate, the days, "
                    "off-lead rules, a cyclist incident and a long line, longer walks, exam-week swaps, summer "
                    "holiday walks and a week's care while she is away, the vet check",
                    ['dog', 'dog walking', 'dog walker', 'dog walks', 'walking the dog', 'dog-walking', 'bramble',
                     'spaniel', 'springer spaniel', 'pet', 'walks', 'dog care', 'dog sitting']),
        },
        'corrections': [
            {'query': 'What date is the Aldwick Road street party?',
             'new': ['27 June', 'Saturday 27 June', '27th June', 'June 27'], 'old': '13 June'},
            {'query': 'How much does Ruth pay Kieran for each dog walk now?',
             'new': ['£9', '£9 a walk'], 'old': '£7.50'},
            {'query': "How far over onto Ruth's side are the neighbour's new fence posts?",
             'new': ['18 cm', '18cm'], 'old': '30 cm'},
        ],
        'in_progress': {'expected': False, 'keywords': [], 'match': 'all'},
    },
    'conv263': {
        'person': 'Nadia',
        'subjects': {
            'passport': ("Renewing her son Oscar's child passport before the family holiday in the Algarve: expiry at "
                         "the end of June, the online renewal, the photo code, posting the old passport, waiting, the "
                         "new one arriving, the flight date to Faro, entry checks at the border",
                         ['passport', 'child passport', 'passport renewal', 'renewing passport',
                          'passport application', "son's passport", "kid's passport", 'hm passport office',
                          'passport office', 'hmpo', 'passport photo', 'holiday', 'algarve', 'portugal', 'faro',
                          'trip', 'travel']),
            'exam': ("The ISO 27001 Lead Auditor certification her employer is paying for: the five-day course, "
                     "booking the exam at a Manchester test centre, the study plan, the date, mock scores, the "
                     "result, audit experience for full certification",
                     ['exam', 'certification', 'certification exam', 'work exam', 'lead auditor', 'iso 27001',
                      'iso 27001 lead auditor', 'auditor exam', 'auditor certification', 'revision', 'studying',
                      'study plan', 'mock exam', 'test', 'qualification', 'course', 'training']),
            'leak': ("The bathroom leak through the kitchen ceiling and the home insurance claim with Ashby Home "
                     "Insurance (claim ASH-2603-11872): plumber, failed shower tray seal, the excess, the loss "
                     "adjuster, contractor or cash, the tray replaced, contractor delays, a formal complaint",
                     ['leak', 'bathroom leak', 'shower leak', 'water leak', 'leaking shower', 'leak claim',
                      'insurance', 'insurance claim', 'home insurance', 'insurer', 'claim', 'escape of water',
                      'water damage', 'kitchen ceiling', 'ceiling', 'plumber', 'loss adjuster', 'bathroom',
                      'shower tray', 'complaint']),
        },
        'corrections': [
            {'query': "On what date is Nadia's Lead Auditor exam?",
             'new': ['28 May', 'Thursday 28 May', '28th May', 'May 28', '28th of May'], 'old': '14 May'},
            {'query': 'What excess does Nadia pay on the bathroom leak claim?',
             'new': ['£400'], 'old': '£250'},
            {'query': "On what date does Nadia's family fly to Faro?",
             'new': ['18 July', 'Saturday 18 July', '18th July', 'July 18', '18th of July'], 'old': '25 July'},
        ],
        'in_progress': {'expected': True, 'keywords': ['complaint'], 'match': 'all'},
    },
}

if __name__ == "__main__":
    main(META)
