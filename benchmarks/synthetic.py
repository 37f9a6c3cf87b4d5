"""A synthetic vault for benchmarks: seeded, varied, written straight to Markdown.

    from benchmarks.synthetic import generate
    syn = generate(Path("/tmp/v"), 10_000, seed=7)     # init_vault + topics + archives + one commit
    syn.queries(200)                                   # realistic recall queries about that vault

Topics look like what `vault sleep` writes: frontmatter in the documented field order, a `# name`
heading and a `## Facts` list of 3-7 dated facts, each citing turns of an archived conversation
that exists (with those turns in it) under conversations/. Names come from ten kinds of subject
(people, work projects, trips, home, hobbies, health, occasions, money, reading, preferences);
dates spread over the two years before `NOW`; about one topic in nine is evergreen, one in three
links to one or two earlier topics, most have an alias. Each conversation also leaves a wake
packet, as a sleep does. Nothing here knows how the index or recall work: files are the only
interface.

Writing is plain text (no YAML library, no per-file commit): 50k topics take seconds, and the
one `git add -A && git commit` at the end (hooks off, so no background indexer competes with the
benchmark) a few seconds more; `git=False` skips it.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import random
import re
import subprocess
import time
import unicodedata
import uuid
from dataclasses import dataclass, field
from pathlib import Path

UTC = dt.UTC
NOW = dt.datetime(2026, 2, 20, 18, 0, tzinfo=UTC)
SPAN_DAYS = 730
MONTHS = "January February March April May June July August September October November December".split()
WEEKDAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()

FIRST = """Maya Liam Olivia Noah Emma Ravi Sofia Lucas Amara Mateo Chloe Ethan Priya Jonas Hana Diego Zoe Omar Lena
Felix Aisha Tomas Ines Kenji Nora Samuel Yara Hugo Clara Arjun Mila Oscar Leila Viktor Elena Malik Freya Pablo Anika
Jasper Rosa Tariq Greta Enzo Selma Dmitri Ada Luca Naomi Kofi Iris Marco Esme Farid Alma Bruno Thea Rafael Ivy Caleb
Lucia Idris Vera Mateus Saoirse Andrei Wren Emil Nadia Rohan Elif Anton Carmen Yusuf Maren Theo Salma Henrik Paula
Kwame Lotte Ines Aurelio Daria Bastian Ceren Tobias Imani Joaquin Linnea Musa Petra Callum Zara Gideon Odile Ravi
Beatrix Silas Noor Ignacio Astrid Kai Marisol Leon Mina Ezra Juno Stellan Pilar Ansel Rhea Cyrus Liv Emeka Dalia
Caroline Melanie Gus Harriet Otis Winona Bram Colette Dev Ilse Ferran Ottilie Jude Perrine Quentin Rania""".split()
LAST = """Chen Patel Garcia Novak Okafor Schmidt Rossi Tanaka Silva Kowalski Haddad Nguyen Larsen Moreau Ibrahim
Fischer Costa Jensen Ahmed Romero Müller Dubois Kim Andersen Mensah Ortiz Lindqvist Petrov Suzuki Almeida Weber
Yilmaz Horvat Sato Bianchi Nakamura Adeyemi Castillo Berg Kaur Varga Hoffmann Laurent Oyelaran Mendes Eriksen
Kapoor Rahman Fontaine Kozlov Takahashi Ferreira Nilsson Abara Quinn Marsh Whitfield Delacroix Ivanova
Brennan""".split()
CITIES = """Lisbon Porto Madrid Seville Barcelona Valencia Marseille Lyon Paris Bordeaux Brussels Ghent Amsterdam
Utrecht Rotterdam Hamburg Berlin Leipzig Munich Vienna Salzburg Zurich Geneva Milan Turin Bologna Florence Rome Naples
Palermo Athens Thessaloniki Istanbul Izmir Sofia Bucharest Budapest Prague Krakow Warsaw Gdansk Vilnius Riga Tallinn
Helsinki Stockholm Gothenburg Oslo Bergen Copenhagen Aarhus Reykjavik Dublin Galway Edinburgh Glasgow Manchester
Bristol London Cardiff Belfast Montreal Toronto Vancouver Boston Chicago Denver Austin Seattle Portland Oakland
Atlanta Miami Mexico Oaxaca Bogota Lima Cusco Santiago Valparaiso Mendoza Montevideo Recife Salvador Nairobi
Kigali Accra Lagos Dakar Marrakesh Tunis Cairo Amman Tbilisi Yerevan Almaty Tashkent Mumbai Pune Goa Kochi Colombo
Kathmandu Bangkok Chiangmai Hanoi Saigon Manila Cebu Bali Singapore Penang Taipei Seoul Busan Osaka Kyoto Tokyo
Sapporo Sydney Melbourne Hobart Auckland Wellington Queenstown""".split()
LANDMARKS = """cathedral harbour castle old-town market botanical-garden science-museum aquarium waterfront
lighthouse observatory national-park hot-springs vineyard fish-market street-food-alley modern-art-gallery
opera-house river-cruise cable-car""".split()
TECH = """Postgres MySQL SQLite Redis Kafka RabbitMQ Elasticsearch OpenSearch ClickHouse DuckDB Snowflake BigQuery
Kubernetes Nomad Terraform Pulumi Ansible Docker Podman GitHub-Actions GitLab-CI Jenkins Buildkite ArgoCD Grafana
Prometheus Datadog Sentry OpenTelemetry Nginx Envoy Caddy HAProxy Django FastAPI Flask Rails Laravel Spring
Express NextJS Remix Svelte React Vue Angular Go Rust Kotlin Swift TypeScript Python Elixir Scala Java gRPC GraphQL
Celery Airflow Dagster dbt Spark Flink Ray PyTorch ONNX Vault Keycloak Auth0 Stripe Twilio S3 CloudFront Fastly
Cloudflare Vercel Netlify Heroku Fly-io Hetzner""".split()
COMPONENTS = """billing invoices checkout search onboarding notifications auth login payments reporting analytics
inventory shipping orders catalog pricing recommendations feed mobile-app admin-panel data-pipeline warehouse
backups monitoring alerting logging deploys CI staging API gateway scheduler exports imports permissions audit-log
email-service sms-service webhooks cache queue image-resizer PDF-generator sync-engine feature-flags
rate-limiter session-store""".split()
TABLES = "invoices orders customers events sessions payments line_items accounts audit_log shipments products".split()
ORG_A = """North Blue Bright Silver Iron Cedar Harbor Summit Orbit Pine Granite Lumen Vector Copper Maple Nimbus
Atlas Beacon Echo Falcon Helix Juniper Kestrel Meridian Onyx Quarry Riverstone Tidal Willow Zephyr""".split()
ORG_B = "Labs Works Systems Health Foods Logistics Studio Analytics Bank Robotics Media Energy Partners Cloud".split()
ROLES = """product manager, staff engineer, designer, data scientist, nurse, teacher, architect, lawyer, chef,
accountant, photographer, physiotherapist, translator, site reliability engineer, researcher, sales lead,
project manager, pharmacist, carpenter, electrician, journalist, pilot, veterinarian""".replace("\n", " ").split(", ")
FOODS = """cake lasagne dumplings tacos sushi curry paella risotto falafel pho ramen bibimbap empanadas pierogi
tagine ceviche pad-thai shakshuka moussaka goulash pancakes scones brownies cheesecake lemonade sangria
guacamole hummus focaccia sourdough""".split()
ALLERGENS = "peanuts shellfish gluten lactose sesame eggs tree-nuts soy strawberries kiwi".split()
ROOMS = "kitchen bathroom attic basement garage bedroom living-room hallway balcony garden shed office".split()
APPLIANCES = """dishwasher washing-machine boiler fridge oven heat-pump water-heater dryer roof gutter window
faucet radiator thermostat smoke-alarm doorbell router solar-panels""".split()
TRADES = "plumber electrician roofer painter carpenter tiler glazier gardener handyman locksmith".split()
COLOURS = "sage-green off-white terracotta navy charcoal mustard dusty-pink ochre slate-blue cream".split()
INSTRUMENTS = "piano guitar violin cello drums trumpet saxophone ukulele flute bass clarinet harp".split()
LANGUAGES = "Spanish Portuguese Japanese Korean Italian German French Dutch Swedish Arabic Turkish Greek Polish".split()
SPORTS = """running cycling swimming climbing bouldering tennis padel badminton yoga pilates rowing football
basketball volleyball surfing skiing hiking kayaking fencing judo""".split()
PIECES = """Clair-de-Lune the-Moonlight-Sonata a-Bach-minuet Gymnopedie-No-1 Autumn-Leaves Blackbird Take-Five
a-Chopin-nocturne the-Pachelbel-Canon Greensleeves Hallelujah Fur-Elise""".split()
CONDITIONS = "knee pain back pain migraines sleep asthma allergies cholesterol eyesight dental posture".split()
DOCTORS = "physio dentist GP dermatologist optician cardiologist orthopedist allergist".split()
OCCASIONS = """birthday party|wedding|baby shower|housewarming|graduation|retirement party|anniversary dinner|
farewell drinks|christening|engagement party|reunion|book launch""".replace("\n", " ").split("|")
VENUES = """Riverside Park|the community hall|the rooftop bar|Luigi's trattoria|the beach house|the old brewery|
the botanical garden|the boathouse|our place|the tapas bar on Main Street|the village green|
the art studio""".replace("\n", " ").split("|")
MONEY = """tax return|car insurance renewal|mortgage refinance|pension contributions|household budget|
emergency fund|electricity contract|phone plan|health insurance|childcare costs|rental deposit|stock options"""\
    .replace("\n", " ").split("|")
BOOK_ADJ = "Silent Hidden Last Broken Golden Distant Quiet Burning Endless Forgotten Crooked Northern".split()
BOOK_NOUN = "River Garden Orchard Station Archive Harbour Frontier Kingdom Library Signal Atlas Meadow".split()
GENRES = ("mystery novel|history book|sci-fi novel|memoir|poetry collection|biography|fantasy series|"
          "essay collection").split("|")
TOOLS = """pytest ruff black mypy uv poetry pnpm yarn vitest eslint prettier tmux neovim VS-Code zsh fish git-rebase
make just pre-commit""".split()
TASKS = """formatting, dependency management, testing, code review, note taking, commit messages, deploys, type
checking, scripting, data analysis, meeting notes, bug reports""".replace("\n", " ").split(", ")
DRINKS = "espresso oat-milk flat white|green tea|black coffee|rooibos|matcha|sparkling water|chai".split("|")
ADJ = """new old quarterly annual weekly urgent shared personal big small second final spring summer autumn
winter""".split()
PHRASE = """said it would be fine|was unsure about it|wants a second opinion|asked for an update by email|
promised to follow up|thinks it is too expensive|liked the idea|will check with the team|had a similar problem
before|needs more time""".replace("\n", " ").split("|")
VAGUE_QUERIES = """how do I fix the build|what should I cook tonight|any ideas for the weekend|remind me what we
talked about|what's next on my list|summarise where things stand|what did I forget|is there anything urgent|
what were we worried about|which things are still open""".replace("\n", " ").split("|")

OCCASIONS, VENUES, MONEY, PHRASE, VAGUE_QUERIES = (
    [x.strip() for x in seq] for seq in (OCCASIONS, VENUES, MONEY, PHRASE, VAGUE_QUERIES))

_STOP = set("""the and for with from that this was were are has have had will would about into over after
before again there their they them then than what when where which who whom why how not but all any can could
should our out off its it's also just only very more most some such too via per our""".split())


def _w(word: str) -> str:
    return word.replace("-", " ")


def _slugify(name: str, max_len: int = 60) -> str:
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    text = re.sub(r"[^a-zA-Z0-9]+", "-", text.lower()).strip("-")
    return text[:max_len].rstrip("-") or "topic"


def _q(value: str) -> str:
    """A YAML scalar: plain when safe, else JSON-quoted (JSON strings are valid YAML)."""
    if re.fullmatch(r"[A-Za-z][A-Za-z0-9 '&.,()\-]*", value) and not value.endswith((":", " ")) and ": " not in value:
        return value
    return json.dumps(value, ensure_ascii=False)


@dataclass
class Fact:
    at: dt.datetime
    text: str
    conversation: str = ""
    turn: str = ""


@dataclass
class TopicSpec:
    kind: str
    name: str
    slug: str
    topic_id: str
    one_liner: str
    aliases: list[str]
    facts: list[Fact]
    evergreen: bool
    related: list[tuple[str, str, float]] = field(default_factory=list)
    words: dict = field(default_factory=dict)  # the slot values the facts were made from (for queries)


@dataclass
class Session:
    at: dt.datetime
    rel: str
    sleep_id: str
    turns: list[tuple[str, str, str]] = field(default_factory=list)  # (turn id, speaker, text)


@dataclass
class Synthetic:
    root: Path
    seed: int
    now: dt.datetime
    topics: list[TopicSpec]
    sessions: list[Session]
    seconds: dict[str, float]

    @property
    def facts(self) -> int:
        return sum(len(t.facts) for t in self.topics)

    def summary(self) -> dict:
        return {"topics": len(self.topics), "facts": self.facts, "conversations": len(self.sessions),
                "evergreen": sum(t.evergreen for t in self.topics),
                "related_edges": sum(len(t.related) for t in self.topics),
                "aliases": sum(len(t.aliases) for t in self.topics), "seed": self.seed,
                "now": self.now.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "seconds": {k: round(v, 2) for k, v in self.seconds.items()}}

    def queries(self, n: int, seed: int | None = None) -> list[str]:
        """Varied questions an agent would pass to recall: by name or alias, about a fact's details,
        about a person, with a time phrase, long multi-sentence messages, and vague ones."""
        rng = random.Random(self.seed * 7919 + 1 if seed is None else seed)
        out: list[str] = []
        for i in range(n):
            t = rng.choice(self.topics)
            f = rng.choice(t.facts)
            kind = i % 10
            content = [w for w in re.findall(r"[A-Za-z][A-Za-z']+", f.text) if len(w) > 2 and w.lower() not in _STOP]
            span = rng.randint(2, 4)
            at = rng.randrange(max(1, len(content) - span + 1))
            words = " ".join(content[at : at + span]).lower() or t.name.lower()
            if kind in (0, 1):
                out.append(rng.choice([f"what do we know about {t.name}?", f"{t.name} status",
                                       f"any update on {(t.aliases or [t.name])[0]}?", f"tell me about {t.name}"]))
            elif kind in (2, 3, 4):
                out.append(rng.choice([f"what did we say about {words}?", f"{words}?", f"remind me: {words}",
                                       f"what was decided on {words}"]))
            elif kind == 5:
                who = t.words.get("first") or rng.choice(FIRST)
                out.append(rng.choice([f"what does {who} like?", f"what did {who} say about {words}?",
                                       f"when is {who}'s next appointment?", f"{who} {words}"]))
            elif kind == 6:
                month = MONTHS[f.at.month - 1]
                out.append(rng.choice([f"what happened with {words} last week?",
                                       f"what did we decide yesterday about {words}?",
                                       f"what was going on in {month} {f.at.year}?", f"{words} in {month} {f.at.year}",
                                       f"what did we talk about recently regarding {t.name}?"]))
            elif kind == 7:
                out.append(f"Hi! I'm picking this up again after a break. Last time we looked at {t.name.lower()} and "
                           f"I think {f.text[:80].rstrip('.').lower()}. Can you check what we already know and what "
                           f"is still open before I message {rng.choice(FIRST)}?")
            elif kind == 8:
                out.append(rng.choice([f"when did {words} happen?", f"how much was {words}?",
                                       f"where is {words}?", f"who is handling {words}?"]))
            else:
                out.append(rng.choice(VAGUE_QUERIES) + "?")
        return out


class _Maker:
    """Draws one topic at a time; every choice goes through one seeded Random."""

    KINDS = ("person", "project", "trip", "home", "hobby", "health", "occasion", "money", "reading", "preference")
    WEIGHTS = (16, 22, 9, 9, 9, 6, 9, 6, 6, 8)

    def __init__(self, rng: random.Random) -> None:
        self.r = rng

    def pick(self, seq):
        return self.r.choice(seq)

    def person(self) -> str:
        return f"{self.pick(FIRST)} {self.pick(LAST)}"

    def day_month(self, at: dt.datetime, ahead: int = 30) -> str:
        d = at + dt.timedelta(days=self.r.randint(1, ahead))
        return f"{d.day} {MONTHS[d.month - 1]} {d.year}"

    def topic(self, kind: str) -> tuple[str, str, list[str], list, bool, dict]:
        """(name, one_liner, aliases, fact makers, evergreen, words); a fact maker takes the fact's date."""
        r, p = self.r, self.pick
        first, other = p(FIRST), p(FIRST)
        words: dict = {"first": first}
        if kind == "person":
            last, role, org = p(LAST), p(ROLES), f"{p(ORG_A)} {p(ORG_B)}"
            city = p(CITIES)
            name = f"{first} {last}"
            one = f"{first}, {role} at {org}"
            aliases = [first] if r.random() < 0.6 else []
            makers = [
                lambda at: f"{first} started as {role} at {org}.",
                lambda at: f"{first} is allergic to {_w(p(ALLERGENS))}.",
                lambda at: f"{first}'s birthday is on {r.randint(1, 28)} {p(MONTHS)}.",
                lambda at: f"{first} moved to {city} ({MONTHS[at.month - 1]} {at.year}).",
                lambda at: f"{first} recommended the {p(GENRES)} {p(BOOK_ADJ)} {p(BOOK_NOUN)}.",
                lambda at: f"{first} has two kids, {p(FIRST)} and {p(FIRST)}.",
                lambda at: f"{first} prefers {p(DRINKS)} and hates {_w(p(FOODS))}.",
                lambda at: f"{first} {p(PHRASE)} about the {_w(p(COMPONENTS))} work.",
                lambda at: f"{first} plays {_w(p(SPORTS))} every {p(WEEKDAYS)}.",
                lambda at: f"{first}'s partner {other} works as a {p(ROLES)}.",
            ]
            return name, one, aliases, makers, r.random() < 0.35, words | {"city": city}
        if kind == "project":
            comp, old, new = _w(p(COMPONENTS)), p(TECH), p(TECH)
            adj = p(ADJ)
            name = r.choice([f"{comp.capitalize()} migration to {new}", f"{adj.capitalize()} {comp} rewrite",
                             f"{comp.capitalize()} outage follow-up", f"{p(ORG_A)} {comp} integration",
                             f"{comp.capitalize()} performance work", f"{new} rollout for {comp}"])
            one = f"Moving {comp} from {old} to {new}" if "migration" in name else f"{name} for the {p(ORG_A)} team"
            aliases = [r.choice([f"the {comp} project", f"{comp} work", f"{new} move"])] if r.random() < 0.7 else []
            table = p(TABLES)
            makers = [
                lambda at: f"The {comp} dry run failed on the {table} table because of a missing index.",
                lambda at: f"{first} owns the {comp} rollout; {other} reviews.",
                lambda at: f"Deadline for {comp} is {self.day_month(at, 60)}.",
                lambda at: f"Load test showed p95 of {r.randint(40, 900)} ms on {comp} "
                           f"with {r.randint(2, 64)} workers.",
                lambda at: f"We chose {new} over {p(TECH)} for {comp} because of "
                           f"{p(['cost', 'latency', 'support', 'team experience', 'licensing'])}.",
                lambda at: f"Rollback plan for {comp}: keep {old} read-only for {r.randint(2, 14)} days.",
                lambda at: f"{comp.capitalize()} costs {r.randint(2, 90) * 100} USD a month on {p(TECH)}.",
                lambda at: f"Bug in {comp}: {p(TABLES)} rows duplicated after retries; "
                           f"fixed in release {r.randint(1, 9)}.{r.randint(0, 30)}.",
                lambda at: f"Standup moved to {p(WEEKDAYS)} {r.randint(8, 11)}:{p(['00', '15', '30'])} "
                           f"for the {comp} team.",
                lambda at: f"{other} {p(PHRASE)} on the {comp} design doc.",
            ]
            return name, one, aliases, makers, False, words | {"comp": comp, "tech": new}
        if kind == "trip":
            city, season = p(CITIES), p(["spring", "summer", "autumn", "winter", "weekend", "family", "work"])
            name = r.choice([f"Trip to {city}", f"{city} {season} trip", f"{city} conference"])
            one = f"{season.capitalize()} trip to {city} with {first}"
            aliases = [r.choice([f"the {city} trip", f"{city}", "the trip"])] if r.random() < 0.6 else []
            mark = _w(p(LANDMARKS))
            makers = [
                lambda at: f"Flights to {city} are booked for {self.day_month(at)}.",
                lambda at: f"Hotel near the {mark} costs {r.randint(60, 320)} EUR a night.",
                lambda at: f"{first} wants to visit the {_w(p(LANDMARKS))} in {city}.",
                lambda at: f"Train from the {city} airport to the {mark} takes {r.randint(15, 90)} minutes.",
                lambda at: f"Booked a table at a {_w(p(FOODS))} place for {p(WEEKDAYS)} night.",
                lambda at: f"Need travel insurance before {self.day_month(at)}.",
                lambda at: f"{other} lent us a guidebook for {city}.",
                lambda at: f"Total budget for {city} is {r.randint(5, 60) * 100} EUR.",
            ]
            return name, one, aliases, makers, False, words | {"city": city}
        if kind == "home":
            room, app, trade = _w(p(ROOMS)), _w(p(APPLIANCES)), p(TRADES)
            name = r.choice([f"{room.capitalize()} renovation", f"{app.capitalize()} repair", f"New {app}",
                             f"{room.capitalize()} {app}"])
            one = f"Fixing the {app} in the {room}" if "repair" in name else f"Work on the {room}"
            aliases = [f"the {room}"] if r.random() < 0.5 else []
            makers = [
                lambda at: f"The {app} in the {room} leaks again.",
                lambda at: f"Quote from the {trade} is {r.randint(2, 80) * 50} USD.",
                lambda at: f"Paint colour for the {room} is {_w(p(COLOURS))}.",
                lambda at: f"The {trade} can come on {p(WEEKDAYS)} {self.day_month(at, 14)}.",
                lambda at: f"Warranty on the {app} runs out in {p(MONTHS)} {at.year + 1}.",
                lambda at: f"{first} knows a good {trade} named {p(FIRST)}.",
                lambda at: f"Ordered {r.randint(2, 40)} tiles for the {room}.",
            ]
            return name, one, aliases, makers, False, words | {"room": room}
        if kind == "hobby":
            which = r.randrange(3)
            if which == 0:
                thing = p(INSTRUMENTS)
                name, one = f"{thing.capitalize()} lessons", f"Learning {thing} with a teacher"
            elif which == 1:
                thing = p(LANGUAGES)
                name, one = f"Learning {thing}", f"{thing} classes and practice"
            else:
                thing = _w(p(SPORTS))
                name, one = f"{thing.capitalize()} club", f"{thing.capitalize()} training and events"
            aliases = [thing] if r.random() < 0.4 else []
            makers = [
                lambda at: f"{thing.capitalize()} lesson moved to {p(WEEKDAYS)} "
                           f"at {r.randint(9, 20)}:{p(['00', '15', '30', '45'])}.",
                lambda at: f"Practised {_w(p(PIECES))} for {r.randint(10, 90)} minutes.",
                lambda at: f"Teacher {first} says to focus on "
                           f"{p(['rhythm', 'grammar', 'technique', 'breathing', 'endurance', 'vocabulary'])}.",
                lambda at: f"Signed up for the {thing} course starting {self.day_month(at)}.",
                lambda at: f"The {thing} membership costs {r.randint(20, 120)} EUR a month "
                           f"at {p(ORG_A)} {p(['Academy', 'Club', 'Studio', 'Centre'])}.",
                lambda at: f"Finished level {r.randint(1, 8)} of {thing}.",
                lambda at: f"{other} might join the {thing} sessions.",
            ]
            return name, one, aliases, makers, r.random() < 0.2, words | {"thing": thing}
        if kind == "health":
            cond, doc = p(CONDITIONS), p(DOCTORS)
            name = r.choice([f"{cond.capitalize()} treatment", f"{doc.capitalize()} visits", "Running plan",
                             f"{first}'s {cond}"])
            one = f"Dealing with {cond}: {doc} visits in {p(CITIES)}"
            aliases = []
            makers = [
                lambda at: f"Appointment with the {doc} on {self.day_month(at)}.",
                lambda at: f"Ran {r.randint(3, 21)} km in {r.randint(18, 130)} minutes.",
                lambda at: f"The {doc} suggested "
                           f"{p(['stretching', 'more sleep', 'an x-ray', 'a blood test', 'new glasses', 'physio'])} "
                           f"for the {cond} and a check-up in {r.randint(2, 12)} weeks.",
                lambda at: f"Prescription for the {cond} renewed for {r.randint(1, 6)} months by Dr {p(LAST)}.",
                lambda at: f"{cond.capitalize()} was worse after {_w(p(SPORTS))}.",
            ]
            return name, one, aliases, makers, False, words | {"cond": cond}
        if kind == "occasion":
            occ, venue = p(OCCASIONS), p(VENUES)
            name = f"{first}'s {occ}"
            one = f"{first}'s {occ} at {venue}"
            aliases = [f"the {occ.split()[0]}"] if r.random() < 0.6 else []
            food = _w(p(FOODS))
            makers = [
                lambda at: f"The {occ} is on {p(WEEKDAYS)} {self.day_month(at, 40)} at {venue}.",
                lambda at: f"Budget for the {occ} is {r.randint(1, 20) * 50} USD.",
                lambda at: f"{other} will bring the {food}.",
                lambda at: f"Invitations for {first}'s {occ} go out to {r.randint(8, 120)} guests "
                           f"by {self.day_month(at, 20)}.",
                lambda at: f"{first} does not want a surprise.",
                lambda at: f"Gift idea for {first}: a {p(GENRES)} or {p(INSTRUMENTS)} lessons.",
                lambda at: f"{p(FIRST)} is allergic to {_w(p(ALLERGENS))}, so no {food}.",
            ]
            return name, one, aliases, makers, False, words | {"occasion": occ}
        if kind == "money":
            what = p(MONEY)
            year = NOW.year - r.randint(0, 2)
            name = r.choice([f"{year} {what}", what.capitalize()])
            one = f"Sorting out the {what} with {p(ORG_A)} {p(ORG_B)}"
            aliases = [f"the {what.split()[-1]}"] if r.random() < 0.3 else []
            makers = [
                lambda at: f"The {what} is due on {self.day_month(at, 45)}.",
                lambda at: f"Paid {r.randint(50, 5000)} EUR for the {what}.",
                lambda at: f"{first} at the bank {p(PHRASE)}.",
                lambda at: f"Switched provider to {p(ORG_A)} {p(ORG_B)}, saving {r.randint(5, 80)} EUR a month.",
                lambda at: f"Need the {p(['payslips', 'receipts', 'contract', 'statement', 'invoice'])} "
                           f"from {p(MONTHS)} for the {what}.",
            ]
            return name, one, aliases, makers, False, words
        if kind == "reading":
            title = f"The {p(BOOK_ADJ)} {p(BOOK_NOUN)}"
            genre = p(GENRES)
            name = r.choice([f"{title}", f"Book club: {title}"])
            one = f"A {genre} by {self.person()}"
            aliases = [title.split()[-1]] if r.random() < 0.3 else []
            makers = [
                lambda at: f"Reading {title} for the book club; finished chapter {r.randint(1, 30)}.",
                lambda at: f"{first} thinks the ending of {title} is {p(['brilliant', 'rushed', 'confusing', 'sad'])}.",
                lambda at: f"Book club meets at {p(VENUES)} on {p(WEEKDAYS)}.",
                lambda at: f"Borrowed {title} from {other}.",
                lambda at: f"Next pick after {title} is a {p(GENRES)}.",
            ]
            return name, one, aliases, makers, r.random() < 0.2, words
        task, tool = p(TASKS), p(TOOLS)
        name = r.choice([f"{task.capitalize()} preferences", "Coffee and tea preferences", f"{_w(tool)} setup",
                         f"Preferences for {task}"])
        one = f"How the user likes {task} done with {_w(tool)}"
        aliases = []
        makers = [
            lambda at: f"User prefers {_w(tool)} over {_w(p(TOOLS))} for {task}.",
            lambda at: f"Always run {_w(p(TOOLS))} before {p(TASKS)}.",
            lambda at: f"User drinks {p(DRINKS)} while doing {task}, {r.randint(1, 4)} cups a day.",
            lambda at: f"Keep {task} short: at most {r.randint(3, 12)} lines, says {first}.",
            lambda at: f"Do not use {p(TECH)} for {p(TASKS)}.",
            lambda at: f"User does {task} best between {r.randint(6, 10)} and {r.randint(12, 15)} o'clock "
                       f"on {p(WEEKDAYS)}s.",
        ]
        return name, one, aliases, makers, r.random() < 0.85, words


def _topic_text(t: TopicSpec) -> str:
    first = min(f.at for f in t.facts)
    last = max(f.at for f in t.facts)
    lines = ["---", "schema_version: 1", f"id: {t.topic_id}", f"name: {_q(t.name)}", f"one_liner: {_q(t.one_liner)}"]
    lines += ["aliases: []"] if not t.aliases else ["aliases:", *(f"- {_q(a)}" for a in t.aliases)]
    lines += [f"first_seen: '{first:%Y-%m-%dT%H:%M:%SZ}'", f"last_seen: '{last:%Y-%m-%dT%H:%M:%SZ}'",
              f"utility: {round(len(t.facts) * 0.35, 2)}", f"touch_count: {len(t.facts) - 1}",
              f"evergreen: {'true' if t.evergreen else 'false'}"]
    if t.related:
        lines += ["related:", *(f"- {i} {typ} {float(w)!r}" for i, typ, w in t.related)]  # topics.edge_text
    else:
        lines.append("related: []")
    lines += ["skills: []", "artifacts: []", "numbers: []", "---", "", f"# {t.name}", "", "## Facts", ""]
    for f in sorted(t.facts, key=lambda f: f.at):
        lines.append(f"- {f.at:%Y-%m-%d} — {f.text} [{f.turn}](../{f.conversation})")
    return "\n".join(lines) + "\n"


def _conversation_text(s: Session, now: dt.datetime) -> str:
    meta = {"id": s.sleep_id, "slept_at": f"{s.at + dt.timedelta(hours=1):%Y-%m-%dT%H:%M:%SZ}",
            "first_turn": f"{s.at:%Y-%m-%dT%H:%M:%SZ}", "turns": len(s.turns) * 2}
    lines = ["---", *(f"{k}: {json.dumps(v) if not isinstance(v, int) else v}" for k, v in meta.items()), "---", ""]
    at = s.at
    for tid, who, text in s.turns:
        lines += [f"## {at:%Y-%m-%d %H:%M:%S} - user{': ' + who if who else ''} ({tid})", "", text, ""]
        at += dt.timedelta(seconds=40)
        lines += [f"## {at:%Y-%m-%d %H:%M:%S} - assistant (a{tid[1:]})", "", "Noted.", ""]
        at += dt.timedelta(seconds=20)
    return "\n".join(lines)


def _wake_text(s: Session, topic_ids: list[str]) -> str:
    slept = s.at + dt.timedelta(hours=1)
    return json.dumps({"schema_version": 1, "slept_at": f"{slept:%Y-%m-%dT%H:%M:%SZ}", "conversation_tail": [],
                       "active_subject_hints": [], "top_topic_ids": topic_ids[:5], "recent_skill_refs": [],
                       "in_progress": {"status": "idle", "resume_hint": "", "topic_id": None}}, indent=2) + "\n"


def generate(root: Path, n_topics: int, *, seed: int = 7, now: dt.datetime = NOW, embedding: bool = True,
             git: bool = True, wake: bool = True) -> Synthetic:
    """Make a vault at `root` (init_vault) holding `n_topics` synthetic topics; see the module docstring."""
    from sheriff_vault.store.vault import init_vault

    t0 = time.perf_counter()
    root = Path(root)
    vault = init_vault(root).vault
    if not embedding:
        cfg = root / "vault.yaml"
        text = cfg.read_text(encoding="utf-8")
        text, n = re.subn(r"(?m)^(\s*enabled:\s*)true\b", r"\1false", text, count=1)
        assert n == 1, "vault.yaml template has no `enabled: true` under embedding"
        cfg.write_text(text, encoding="utf-8")
    rng = random.Random(seed)
    maker = _Maker(rng)
    seconds = {"init": time.perf_counter() - t0}
    t1 = time.perf_counter()

    # Sleeps: a few a day over two years at most; each archives one conversation.
    n_facts_est = n_topics * 5
    n_sessions = max(20, min(n_facts_est // 8, 4 * SPAN_DAYS))
    start = now - dt.timedelta(days=SPAN_DAYS)
    sessions: list[Session] = []
    used_ids: set[str] = set()
    for _ in range(n_sessions):
        at = start + dt.timedelta(seconds=rng.randrange(SPAN_DAYS * 86400 - 7200))
        at = at.replace(microsecond=0)
        sid = f"{rng.getrandbits(32):08x}"
        while sid in used_ids:
            sid = f"{rng.getrandbits(32):08x}"
        used_ids.add(sid)
        sessions.append(Session(at, f"conversations/{at:%Y/%m/%d}/{at:%H%M%S}-{sid}.md", sid))
    sessions.sort(key=lambda s: s.at)

    topics: list[TopicSpec] = []
    names: set[str] = set()
    slugs: set[str] = set()
    for _ in range(n_topics):
        kind = rng.choices(_Maker.KINDS, _Maker.WEIGHTS)[0]
        name, one, aliases, makers, evergreen, words = maker.topic(kind)
        base, k = name, 0
        while name.lower() in names:  # the same subject again: tell them apart as a person would
            k += 1
            name = rng.choice([f"{base} ({rng.choice(FIRST)})", f"{base} in {rng.choice(CITIES)}",
                               f"{base} {NOW.year - rng.randint(0, 2)}",
                               f"{rng.choice(ADJ).capitalize()} {base[0].lower()}{base[1:]}"])
            if k > 5:
                name = f"{base} ({k})"
        names.add(name.lower())
        slug, k = _slugify(name), 2
        while slug in slugs:
            slug, k = f"{_slugify(name)}-{k}", k + 1
        slugs.add(slug)
        # A topic lives for a while: its facts cluster after its first session.
        n = rng.randint(3, 7)
        first_i = rng.randrange(len(sessions))
        spread = max(1, int(len(sessions) * rng.choice([0.01, 0.05, 0.2, 0.6])))
        picks = sorted({min(len(sessions) - 1, first_i + rng.randrange(spread)) for _ in range(n)})
        while len(picks) < n:
            picks.append(rng.randrange(len(sessions)))
        picks.sort()
        order = rng.sample(range(len(makers)), k=min(n, len(makers)))
        facts = []
        for j, si in enumerate(picks[:n]):
            s = sessions[si]
            text = makers[order[j % len(order)]](s.at)
            if j >= len(order):  # more facts than templates: a follow-up on an earlier one
                text = f"Update: {text}"
            tid = f"t{len(s.turns) + 1}"
            who = words.get("first") if rng.random() < 0.15 else ""
            s.turns.append((tid, "", f"{who} mentioned that {text[0].lower()}{text[1:]}" if who else text))
            facts.append(Fact(s.at, text, s.rel, tid))
        tid_ = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        spec = TopicSpec(kind, name, slug, tid_, one, [a for a in dict.fromkeys(aliases) if a.lower() != name.lower()],
                         facts, evergreen, words=words)
        if topics and rng.random() < 0.33:
            for other in rng.sample(topics[-2000:], k=min(len(topics[-2000:]), rng.randint(1, 2))):
                spec.related.append((other.topic_id, rng.choice(["RELATES_TO", "RELATES_TO", "DEPENDS_ON", "PART_OF"]),
                                     round(rng.uniform(0.5, 3.0), 2)))
        topics.append(spec)
    seconds["plan"] = time.perf_counter() - t1

    t2 = time.perf_counter()
    tdir = root / "topics"
    for t in topics:
        (tdir / f"{t.slug}.md").write_text(_topic_text(t), encoding="utf-8")
    by_session: dict[str, list[str]] = {}
    for t in topics:
        for f in t.facts:
            by_session.setdefault(f.conversation, []).append(t.topic_id)
    made: set[Path] = set()
    for s in sessions:
        if not s.turns:
            continue
        path = root / s.rel
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        path.write_text(_conversation_text(s, now), encoding="utf-8")
        if wake:
            slept = s.at + dt.timedelta(hours=1)
            wpath = root / "wake" / f"{slept:%Y/%m/%d}" / f"{slept:%H%M%S}.json"
            if wpath.parent not in made:
                wpath.parent.mkdir(parents=True, exist_ok=True)
                made.add(wpath.parent)
            wpath.write_text(_wake_text(s, by_session.get(s.rel, [])), encoding="utf-8")
    seconds["write"] = time.perf_counter() - t2
    if git:
        t3 = time.perf_counter()
        env = dict(os.environ, GIT_AUTHOR_DATE=now.isoformat(), GIT_COMMITTER_DATE=now.isoformat())
        base = ["git", "-c", "core.hooksPath=/dev/null", "-c", "user.name=Synthetic", "-c",
                "user.email=synthetic@localhost"]
        subprocess.run(base + ["add", "-A"], cwd=root, check=True, env=env, capture_output=True)
        subprocess.run(base + ["commit", "-q", "-m", f"synthetic: {n_topics} topics (seed {seed})"], cwd=root,
                       check=True, env=env, capture_output=True)
        seconds["git"] = time.perf_counter() - t3
    sessions = [s for s in sessions if s.turns]
    return Synthetic(vault.root, seed, now, topics, sessions, seconds)


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description="Write a synthetic vault")
    ap.add_argument("path", type=Path)
    ap.add_argument("--topics", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--no-embedding", action="store_true")
    ap.add_argument("--no-git", action="store_true")
    args = ap.parse_args()
    syn = generate(args.path, args.topics, seed=args.seed, embedding=not args.no_embedding, git=not args.no_git)
    print(json.dumps(syn.summary(), indent=2))


if __name__ == "__main__":
    main()
