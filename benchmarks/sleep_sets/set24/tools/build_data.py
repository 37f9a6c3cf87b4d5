#!/usr/bin/env python3
"""set24's conversations and gold labels, built from src/ by ../../builder.py (source format and checks:
../../set6/tools/build_data.py's docstring). Usage: python build_data.py [convN ...]; only META is this set's."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from builder import main  # noqa: E402  (the set folders' shared builder)

META = {'conv241': {'person': 'Madhuri',
             'subjects': {'kitchen': ('Madhuri moving her home catering business Swaad Sakhi Caterers out of '
                                      "the family flat's kitchen in Kothrud into a rented ground-floor "
                                      'commercial unit, Shop no. 4, Mangalmurti Complex, Warje (rent, '
                                      'deposit and the 11-month leave and licence agreement with the owner '
                                      'Mr Jagtap; upgrading from FSSAI basic registration to an FSSAI state '
                                      'licence: Form B, water test report, inspection, medical certificates; '
                                      'the fit-out by Shree Steel Fabricators, commercial LPG, the shifting '
                                      'date, the first months there, a monsoon leak, Ganpati modak orders)',
                                      ['kitchen',
                                       'commercial kitchen',
                                       'catering kitchen',
                                       'new kitchen',
                                       'kitchen move',
                                       'kitchen shifting',
                                       'fssai',
                                       'fssai licence',
                                       'fssai license',
                                       'food licence',
                                       'state licence',
                                       'catering',
                                       'catering business',
                                       'commercial unit',
                                       'rented unit',
                                       'shop unit',
                                       'warje',
                                       'leave and licence',
                                       'swaad sakhi']),
                          'admission': ("Her son Aarav's engineering admission in Maharashtra (JEE Main in "
                                        'January, 12th board exams, the domicile certificate, MHT-CET and '
                                        "his percentile, the State CET Cell's CAP registration, documents, "
                                        'the option form, the round 1 allotment, freeze versus not freeze '
                                        'for betterment, the college he joins for Computer Engineering, '
                                        'fees, the college bus and a laptop)',
                                        ['admission',
                                         'engineering admission',
                                         'college admission',
                                         'engineering',
                                         'engineering college',
                                         'college',
                                         'cet',
                                         'mht-cet',
                                         'mht cet',
                                         'jee',
                                         'jee main',
                                         'cap round',
                                         'cap rounds',
                                         'counselling',
                                         'option form',
                                         'computer engineering',
                                         'seat allotment']),
                          'flat': ('Madhuri and her husband Nitin buying a resale 2BHK flat (910 sq ft '
                                   'carpet, 3rd floor) in Shubhankar Residency, Bavdhan (the asking price '
                                   'and the negotiation, the token amount, the home loan from Pragati Bank: '
                                   'amount, valuation, sanction letter and EMI; own funds, stamp duty and '
                                   'registration at the sub-registrar office, the society share certificate '
                                   'transfer, possession, painting, shifting house, the griha pravesh puja)',
                                   ['flat',
                                    'new flat',
                                    '2bhk',
                                    'flat purchase',
                                    'buying a flat',
                                    'resale flat',
                                    'home loan',
                                    'housing loan',
                                    'loan',
                                    'bavdhan',
                                    'shubhankar residency',
                                    'property',
                                    'stamp duty',
                                    'registration',
                                    'possession',
                                    'griha pravesh',
                                    'house'])},
             'corrections': [{'query': 'On what date is Madhuri shifting her catering kitchen to the Warje '
                                       'unit?',
                              'new': ['12th April', '12 April', 'April 12', '12/04/2026'],
                              'old': '20th April'},
                             {'query': 'How much home loan are Madhuri and Nitin taking for the Bavdhan '
                                       'flat?',
                              'new': ['67.5 lakh', '67,50,000', '67.50 lakh'],
                              'old': '75 lakh'},
                             {'query': 'Which engineering college is Aarav joining?',
                              'new': ['Nandadeep Institute of Technology', 'Nandadeep'],
                              'old': 'Pawana'}],
             'in_progress': {'expected': False, 'keywords': [], 'match': 'all'}},
 'conv242': {'person': 'Neil',
             'subjects': {'car': ("Neil's late neighbour Derek's 1974 Triumph Spitfire 1500, sat in the "
                                  "widow Joan's garage since 2013 and bought by Neil for £600: first just "
                                  'getting it to turn over after twelve years (oil, stale fuel, fuel pump, '
                                  'points), then seized brakes and rusty floor pans, growing into a '
                                  'restoration (the budget, welding of the floor pans and sill by Moorend '
                                  'Classics, an overdrive gearbox, a respray in Pimento red at Kestrel '
                                  'Bodyworks, a new hood, a voluntary MOT for a historic vehicle, refitting '
                                  'the interior, the wiring and the dashboard)',
                                  ['spitfire',
                                   'triumph',
                                   'triumph spitfire',
                                   'classic car',
                                   'old car',
                                   'car',
                                   'restoration',
                                   'car restoration',
                                   'spitfire restoration',
                                   'resto',
                                   'project car',
                                   'engine',
                                   'getting it running',
                                   'brakes',
                                   'welding',
                                   'respray',
                                   'mot',
                                   'sports car']),
                          'ride': ('Organising a charity cycling sportive from Hollinbridge for Brackenfold '
                                   'Hospice with his club, the Hollinbridge Wheelers, later named the Hollin '
                                   'Rattle (the date, the 62-mile and 28-mile routes, entries, the £25 fee '
                                   "and the cap, the club's event insurance, a dangerous descent rerouted, a "
                                   'road closure, marshals, first aid, arrow signs, the feed station at '
                                   'Thornsett village hall, the rider briefing, the day itself and the total '
                                   'raised)',
                                   ['charity ride',
                                    'charity bike ride',
                                    'bike ride',
                                    'cycle ride',
                                    'sportive',
                                    'cycling event',
                                    'charity event',
                                    'hospice ride',
                                    'hospice',
                                    'fundraiser',
                                    'fundraising',
                                    'ride',
                                    'cycling',
                                    'rattle',
                                    'hollin rattle',
                                    'route',
                                    'riders']),
                          'allotment': ("Neil's first season on an allotment at the Wainhouse Lane site of "
                                        'the Hollinbridge Allotment Society after two years on the waiting '
                                        "list (the rent, the first plot's waterlogging and mare's tail, a "
                                        'better plot by the gate, clearing brambles, chitting and planting '
                                        'seed potatoes, raised beds, slugs, watering, the first harvest, '
                                        'leeks)',
                                        ['allotment',
                                         'allotments',
                                         'allotment plot',
                                         'plot',
                                         'veg plot',
                                         'vegetable plot',
                                         'vegetables',
                                         'veg',
                                         'growing veg',
                                         'grow your own',
                                         'potatoes',
                                         'spuds',
                                         'raised beds',
                                         'gardening',
                                         'allotment society'])},
             'corrections': [{'query': "On what date is Neil's charity bike ride for the hospice?",
                              'new': ['21 June', 'Sunday 21 June', 'June 21', '21st June'],
                              'old': '14 June'},
                             {'query': "What is Neil's total budget for the Spitfire restoration?",
                              'new': ['£5,290', '5,290', '5290'],
                              'old': '£2,800'},
                             {'query': "Which plot number is Neil's allotment?",
                              'new': ['plot 7', 'plot seven'],
                              'old': 'plot 23'}],
             'in_progress': {'expected': True, 'keywords': ['dashboard'], 'match': 'all'}},
 'conv243': {'person': 'Tessa',
             'subjects': {'budget': ('Setting up a household budget spreadsheet for Tessa (tabs for income, '
                                     'fixed costs, variable spending, sinking funds and a summary; '
                                     'fortnightly pay and weekly rent converted to monthly, her share of the '
                                     'rent with her flatmate Ana, groceries, an emergency fund target, '
                                     'automatic payments, monthly actuals against the plan, a gym membership '
                                     'line, a quarterly review and winter power)',
                                     ['budget',
                                      'household budget',
                                      'monthly budget',
                                      'budget spreadsheet',
                                      'spreadsheet',
                                      'budgeting',
                                      'money',
                                      'finances',
                                      'personal finances',
                                      'savings',
                                      'sinking funds',
                                      'emergency fund',
                                      'expenses',
                                      'spending',
                                      'income',
                                      'rent']),
                          'strength': ('A 12-week beginner strength-training plan for Tessa, three full-body '
                                       'sessions a week (the equipment, goblet squats, split squats, '
                                       'Romanian deadlifts, presses and rows, sets, reps and progression, a '
                                       'deload week, outgrowing her dumbbells, moving to barbell squats in a '
                                       'gym with racks, the week-12 test and the next block)',
                                       ['strength training',
                                        'strength plan',
                                        'training plan',
                                        'workout plan',
                                        'workout',
                                        'workouts',
                                        '12-week plan',
                                        'beginner strength',
                                        'weight training',
                                        'weights',
                                        'lifting',
                                        'dumbbells',
                                        'gym',
                                        'exercise',
                                        'fitness',
                                        'squat',
                                        'squats']),
                          'job': ('Tessa, a surgical registered nurse, applying for a Clinical Nurse '
                                  'Educator role on the surgical wards at Harbourview Hospital (rebuilding '
                                  'her CV, the closing date, referees, the cover letter, interview '
                                  'preparation with STAR answers, the feedback after not getting it, a '
                                  'preceptorship course and her postgraduate certificate) and then for a '
                                  'nurse educator role at Kowhai Surgical Hospital (CV update and a new '
                                  'cover letter)',
                                  ['job application',
                                   'application',
                                   'cv',
                                   'resume',
                                   'cover letter',
                                   'nurse educator',
                                   'clinical nurse educator',
                                   'interview',
                                   'interview prep',
                                   'job',
                                   'job hunt',
                                   'career',
                                   'career move',
                                   'new job',
                                   'star answers'])},
             'corrections': [{'query': 'When does the Clinical Nurse Educator application close?',
                              'new': ['6 March', 'Friday 6 March', 'March 6'],
                              'old': '16 March'},
                             {'query': "What monthly rent does Tessa's budget use for her share?",
                              'new': ['1,386.67', '$1,386.67', '1386.67'],
                              'old': '2,773.33'},
                             {'query': 'Where does Tessa do her strength training sessions?',
                              'new': ['Flexzone'],
                              'old': 'garage'}],
             'in_progress': {'expected': True, 'keywords': ['cover letter'], 'match': 'all'}}}

if __name__ == "__main__":
    main(META)
