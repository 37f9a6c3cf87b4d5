#!/usr/bin/env python3
"""set21's conversations and gold labels, built from src/ by ../../builder.py (source format and checks:
../../set6/tools/build_data.py's docstring). Usage: python build_data.py [convN ...]; only META is this set's."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from builder import main  # noqa: E402  (the set folders' shared builder)

META = {'conv211': {'corrections': [{'new': ['18 April', 'April 18', '18th April', 'Saturday 18 April',
                                              '18th of April'],
                              'old': '28 March',
                              'query': 'On what date does Beatriz sit her IELTS test?'},
                             {'new': ['21,150', '€21,150', '21150'],
                              'old': '18,400',
                              'query': 'What is the total cost of the kitchen refit at Café Andorinha?'},
                             {'new': ['Joana'],
                              'old': 'Rafael',
                              'query': 'Who is the new part-time barista at Café Andorinha?'}],
             'in_progress': {'expected': False, 'keywords': [], 'match': 'all'},
             'person': 'Marta',
             'subjects': {'refit': ("Refitting the kitchen of Marta's Café Andorinha in Campo de Ourique, Lisbon, "
                                    'with the contractor Sr. Carvalho (the quote and total cost, extraction hood and '
                                    "the duct up the light well, non-slip floor tiles, stainless benches, the building "
                                    "administration's permission, closing the café for two weeks from Easter Monday, "
                                    'snags and the final payment)',
                                    ['kitchen', 'kitchen refit', 'kitchen renovation', 'kitchen remodel', 'refit',
                                     'renovation', 'remodel', 'kitchen works', 'building works', 'works', 'obra',
                                     'contractor', 'quote', 'extraction', 'extraction hood', 'extractor',
                                     'extractor hood', 'duct', 'floor tiles', 'flooring', 'cafe kitchen',
                                     'café kitchen']),
                          'barista': ('Hiring a part-time barista for Café Andorinha (20 hours a week, pay and meal '
                                      'allowance, the job ad, interviews and trial shifts, the contract, the new '
                                      "barista's first weeks)",
                                      ['barista', 'part-time barista', 'new barista', 'hiring', 'hire',
                                       'hiring a barista', 'recruitment', 'recruiting', 'job ad', 'job advert',
                                       'vacancy', 'interviews', 'interview', 'trial shift', 'staff', 'new staff',
                                       'employee', 'contract', 'part-time job']),
                          'uni': ("Marta's daughter Beatriz's applications to study psychology at universities "
                                  'abroad (Groningen and Maastricht through Studielink, Edinburgh through UCAS, the '
                                  'IELTS test, offers and selection results, tuition fees and the Dutch tuition loan, '
                                  'a room in Groningen, her Portuguese national exams)',
                                  ['university', 'universities', 'university applications', 'uni applications',
                                   'applications', 'application', 'studying abroad', 'study abroad', 'psychology',
                                   'psychology degree', 'ielts', 'english test', 'offers', 'offer', 'groningen',
                                   'maastricht', 'edinburgh', 'studielink', 'ucas', 'student housing',
                                   'tuition fees', 'degree'])}},
 'conv212': {'corrections': [{'new': ['61.75', '£61.75'],
                              'old': '43.50',
                              'query': "How much is Oscar's monthly swimming squad fee?"},
                             {'new': ['Priti'],
                              'old': 'Dean',
                              'query': "Who coaches Alfie's under-9s football team?"},
                             {'new': ['4 June', 'Thursday 4 June', 'June 4', '4th June', '4th of June'],
                              'old': '19 May',
                              'query': "When is Maisie's Grade 4 violin exam?"}],
             'in_progress': {'expected': True, 'keywords': ['kit', 'order'], 'match': 'all'},
             'person': 'Kirsty',
             'subjects': {'swimming': ("Kirsty's son Oscar's swimming squad at Castleford Dolphins (early-morning "
                                       'and evening training, monthly squad fees, moving up to the county squad, '
                                       'galas and qualifying times, his swim kit)',
                                       ['swimming', 'swim', 'swimming squad', 'swim squad', 'squad', 'county squad',
                                        'swimming club', 'swim club', 'dolphins', 'squad fees', 'swim fees',
                                        'swimming fees', 'gala', 'swimming gala', 'galas', 'swim training',
                                        'training', 'qualifying times']),
                          'violin': ("Kirsty's daughter Maisie's violin lessons with Mrs Adeyemi and her ABRSM Grade 4 "
                                     'violin exam (pieces, scales, aural, a practice routine, the exam date and '
                                     'venue, lesson and exam fees)',
                                     ['violin', 'violin lessons', 'violin lesson', 'violin exam', 'grade 4',
                                      'grade 4 violin', 'grade exam', 'music exam', 'abrsm', 'exam', 'music lessons',
                                      'violin practice', 'practice', 'scales', 'pieces', 'music']),
                          'football': ("Kirsty's youngest, Alfie, and his under-9s team at Hollybank Colts (the coach, "
                                       'Thursday practice, Saturday home and away matches and lifts, and the new kit '
                                       'order for next season that Kirsty is collating for the team)',
                                       ['football', 'football team', 'under-9s', 'under 9s', 'u9s', 'u9', 'colts',
                                        'hollybank colts', 'junior football', 'grassroots football', 'away matches',
                                        'away match', 'matches', 'kit order', 'football kit', 'new kit', 'kit',
                                        'team kit'])}},
 'conv213': {'corrections': [{'new': ['46,500', '£46,500', '46500'],
                              'old': '54,000',
                              'query': "How much is budgeted for consumables in Niamh's BBSRC grant application?"},
                             {'new': ['2.07', 'room 2.07'],
                              'old': '3.14',
                              'query': "Which room will Niamh's lab have in the Whitmore Building?"},
                             {'new': ['55'],
                              'old': '65',
                              'query': 'How many people are the caterers catering for at the workshop?'}],
             'in_progress': {'expected': True, 'keywords': ['programme'], 'match': 'all'},
             'person': 'Niamh',
             'subjects': {'grant': ("The budget of Niamh's BBSRC grant application on antibiotic efflux pumps in "
                                    "Pseudomonas (postdoc salary, technician time, consumables, a plate reader, "
                                    "travel, open access, the research office's costing, the justification of "
                                    'resources, submission in June)',
                                    ['grant', 'grant budget', 'budget', 'grant application', 'grant proposal',
                                     'bbsrc', 'bbsrc grant', 'funding', 'funding application', 'costing', 'costings',
                                     'consumables', 'justification of resources', 'proposal budget',
                                     'research grant', 'efflux pumps']),
                          'labmove': ("Moving Niamh's lab from the old Chemistry wing to the new Whitmore Building "
                                      '(room allocation, the move week, packing, the -80 freezers, the '
                                      'crystallisation robot, gas lines and sign-off, unpacking, decommissioning '
                                      'the old lab)',
                                      ['lab move', 'laboratory move', 'moving lab', 'moving the lab', 'move',
                                       'relocation', 'lab relocation', 'new building', 'whitmore building',
                                       'whitmore', 'new lab', 'freezers', 'packing', 'removals']),
                          'workshop': ('Organising "Transporters in Motion", a two-day workshop on 2-3 July 2026 '
                                       '(venue, invited speakers, registration, catering numbers and dietary needs, '
                                       'the conference dinner, the programme)',
                                       ['workshop', 'two-day workshop', 'transporters in motion', 'conference',
                                        'meeting', 'symposium', 'speakers', 'invited speakers', 'venue', 'catering',
                                        'catering numbers', 'registration', 'programme', 'program', 'event'])}}}

if __name__ == "__main__":
    main(META)
