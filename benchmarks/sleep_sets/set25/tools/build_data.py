#!/usr/bin/env python3
"""set25's conversations and gold labels, built from src/ by ../../builder.py (source format and checks:
../../set6/tools/build_data.py's docstring). Usage: python build_data.py [convN ...]; only META is this set's."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from builder import main  # noqa: E402  (the set folders' shared builder)

META = {'conv251': {'person': 'Maren',
             'subjects': {'leak': ("Maren's Celery geocode worker (routewise/geocode/) is OOMKilled every few hours in "
                                   'prod; profiling a replay with memray; the cause (an unbounded module-level result '
                                   'cache holding full provider responses, and an lru_cache on a bound method creating '
                                   'an httpx client per task); the fix (a bounded TTL cache of small hits, one shared '
                                   'client), a max-tasks-per-child stopgap, the PR and review, right-sizing the pod '
                                   'memory limit from metrics, an alert and a nightly memory regression test, closing '
                                   'the ticket',
                                   ['memory leak',
                                    'leak',
                                    'memory',
                                    'memory usage',
                                    'memory limit',
                                    'oom',
                                    'oomkilled',
                                    'out of memory',
                                    'geocode worker',
                                    'geocoding worker',
                                    'geocode',
                                    'geocoding',
                                    'worker',
                                    'celery worker',
                                    'celery',
                                    'cache',
                                    'rss',
                                    'memray',
                                    'profiling']),
                          'ratelimit': ("Per-API-key rate limiting on Routewise's public REST API (/v2/*): a "
                                        'sliding-window counter in Redis (one Lua script) in a FastAPI middleware '
                                        '(routewise/api/ratelimit.py), per-plan limits (free / pro / enterprise), 429 '
                                        'with Retry-After and X-RateLimit headers, exemptions for health checks and '
                                        'internal keys, fail open when Redis is slow, an ADR, a k6 load test on '
                                        'staging, a feature flag, the changelog and customer email, prod numbers',
                                        ['rate limit',
                                         'rate limits',
                                         'rate limiting',
                                         'rate limiter',
                                         'ratelimit',
                                         'throttling',
                                         'api throttling',
                                         'request limits',
                                         'api limits',
                                         '429',
                                         'too many requests',
                                         'retry-after',
                                         'public api',
                                         'api keys',
                                         'token bucket',
                                         'sliding window',
                                         'quota',
                                         'quotas',
                                         'plan limits']),
                          'config': ("Moving the service's configuration off ~40 env vars read all over the code plus "
                                     'an old settings.ini onto typed TOML files (config/defaults.toml plus '
                                     'per-environment overrides) loaded with pydantic-settings in routewise/config.py; '
                                     'secrets stay in env vars; a deprecation shim for the old names; module by module '
                                     '(api, workers, scheduler, billing, notifications); docker-compose and the '
                                     "chart's probes; the HTTP port the API listens on",
                                     ['config',
                                      'configuration',
                                      'config migration',
                                      'configuration migration',
                                      'toml',
                                      'config file',
                                      'config files',
                                      'settings',
                                      'settings.ini',
                                      'pydantic-settings',
                                      'env vars',
                                      'environment variables',
                                      'typed config',
                                      'config loader',
                                      'defaults.toml',
                                      'ini',
                                      'config format'])},
             'corrections': [{'query': "What is the free plan's rate limit on the Routewise public API?",
                              'new': ['100/min', '100 requests per minute', '100 req/min'],
                              'old': '60/min'},
                             {'query': 'What is the memory limit of the geocode worker pods?',
                              'new': ['768Mi', '768 MiB', '768MiB', '768 Mi'],
                              'old': '1536Mi'},
                             {'query': 'Which port does the Routewise API listen on?', 'new': ['8000'], 'old': '8080'}],
             'in_progress': {'expected': True, 'keywords': ['notifications'], 'match': 'all'}},
 'conv252': {'person': 'Pat',
             'subjects': {'house': ('Pat and Geoff selling their four-bedroom Victorian house, 11 Linney Rise, Ludlow, '
                                    'after 38 years and buying a two-bedroom bungalow in Ludlow: valuations and the '
                                    'choice of estate agent, the asking price, decluttering the loft, photos and '
                                    "viewings, the agent who doesn't call back, the offer and the buyers, the survey, "
                                    'buying the bungalow on Hawthorn Close, solicitors, completion, removals, settling '
                                    'in',
                                    ['house sale',
                                     'selling the house',
                                     'house move',
                                     'moving house',
                                     'downsizing',
                                     'downsize',
                                     'bungalow',
                                     'estate agent',
                                     'estate agents',
                                     'sale',
                                     'selling',
                                     'asking price',
                                     'offer',
                                     'viewings',
                                     'conveyancing',
                                     'solicitor',
                                     'completion',
                                     'removals',
                                     'decluttering',
                                     'moving']),
                          'rail': ("The long-planned trip across Canada on VIA Rail's The Canadian, Toronto to "
                                   'Vancouver in a Sleeper Plus cabin for two, in September: booking, the fare, '
                                   'breaking the journey in Winnipeg for a few nights, flights to Toronto, the '
                                   'departure date, luggage and packing, the journey itself and the Rockies, getting '
                                   'home',
                                   ['rail trip',
                                    'train trip',
                                    'train journey',
                                    'rail journey',
                                    'the canadian',
                                    'via rail',
                                    'canada',
                                    'train',
                                    'railway',
                                    'sleeper',
                                    'sleeper plus',
                                    'cabin',
                                    'toronto',
                                    'vancouver',
                                    'rockies',
                                    'trip',
                                    'holiday',
                                    'journey']),
                          'family': ('A biscuit tin of about forty letters found in the loft, written 1889-1895 from '
                                     "Winnipeg by Pat's great-grandfather Albert Rudd, a Ludlow glover's son who "
                                     'worked in the Canadian Pacific Railway yards and came home; transcribing them, '
                                     "the censuses, his birth date, the St Laurence's baptism register at Shropshire "
                                     'Archives, a DNA test and a cousin in Manitoba, a visit to the archives in '
                                     'Winnipeg, a bound book of the letters for the family',
                                     ['family history',
                                      'family tree',
                                      'genealogy',
                                      'ancestry',
                                      'ancestors',
                                      'census',
                                      'censuses',
                                      'parish records',
                                      'parish register',
                                      'baptism',
                                      'baptism record',
                                      'old letters',
                                      'letters',
                                      'archives',
                                      'shropshire archives',
                                      'record office',
                                      'dna test',
                                      'emigration',
                                      'research'])},
             'corrections': [{'query': "On what date do Pat and Geoff's The Canadian train leave Toronto?",
                              'new': ['23 September', 'Wednesday 23 September', 'September 23', '23rd September'],
                              'old': '20 September'},
                             {'query': "In what year was Pat's great-grandfather Albert Rudd born?",
                              'new': ['1866', '2 November 1866'],
                              'old': '1868'},
                             {'query': "Which estate agent is selling Pat and Geoff's house?",
                              'new': ['Harwood Estates', 'Harwood'],
                              'old': 'Bellingham'}],
             'in_progress': {'expected': False, 'keywords': [], 'match': 'all'}},
 'conv253': {'person': 'Ellie',
             'subjects': {'drama': ('Ellie auditioning for BA Acting courses at four drama schools (Rosemoor School of '
                                    'Drama in Bristol, Calder Academy in Leeds, Thameside Drama Centre in London, the '
                                    'Northern Conservatoire in Manchester): the audition pieces (a classical '
                                    'monologue, a contemporary one, a song), dates, trains, a recall, results, the '
                                    'offer from Rosemoor, halls, the pre-term pack with ten sonnets to learn',
                                    ['drama school',
                                     'drama schools',
                                     'drama school auditions',
                                     'auditions',
                                     'audition',
                                     'acting',
                                     'acting course',
                                     'monologue',
                                     'monologues',
                                     'classical monologue',
                                     'recall',
                                     'shakespeare',
                                     'drama',
                                     'rosemoor',
                                     'sonnets',
                                     'offer',
                                     'conservatoire']),
                          'driving': ('Learning to drive: provisional licence, weekly lessons with Dave, the theory '
                                      'test (multiple choice and hazard perception), booking the practical test at '
                                      'Handsworth and looking for a cancellation, extra lessons, the test, insurance '
                                      "quotes and driving her mum's car afterwards",
                                      ['driving',
                                       'learning to drive',
                                       'driving lessons',
                                       'lessons',
                                       'driving test',
                                       'practical test',
                                       'theory test',
                                       'hazard perception',
                                       'driving instructor',
                                       'instructor',
                                       'provisional licence',
                                       'licence',
                                       'driving licence',
                                       'car',
                                       'test date',
                                       'dvsa',
                                       'mock test']),
                          'job': ('Game host at Lockjaw Escape Rooms in Sheffield city centre (briefing groups, '
                                  'watching the cameras, hints over the walkie, resetting rooms): her shifts and '
                                  'hourly pay, payslips, training on a new room, fewer shifts during exams, full time '
                                  'over the summer, tax, the last shift and what she saved',
                                  ['job',
                                   'part-time job',
                                   'weekend job',
                                   'saturday job',
                                   'escape room',
                                   'escape rooms',
                                   'lockjaw',
                                   'game host',
                                   'shifts',
                                   'rota',
                                   'pay',
                                   'wages',
                                   'hourly rate',
                                   'payslip',
                                   'minimum wage',
                                   'work',
                                   'savings'])},
             'corrections': [{'query': "When is Ellie's practical driving test?",
                              'new': ['9 June', 'Tuesday 9 June', 'June 9', '9th June'],
                              'old': '21 July'},
                             {'query': 'What hourly rate is Ellie paid at Lockjaw Escape Rooms?',
                              'new': ['10.85', '£10.85'],
                              'old': '7.55'},
                             {'query': 'Which classical monologue is Ellie doing for her drama school auditions?',
                              'new': ['Helena'],
                              'old': 'Viola'}],
             'in_progress': {'expected': True, 'keywords': ['sonnets'], 'match': 'all'}}}

if __name__ == "__main__":
    main(META)
