"""What a change to a topic means, not which lines moved: a fact superseded (its old value, the
value now current, when, and the turns that said it), a fact new, one removed, a loop done, a
line edited. `vault diff`, `vault history` and the memory browser show changes through
`describe`, and their --json carries the same `kind`s.

Sleep marks a corrected value by striking its line (`~~Budget is 400 USD.~~ (superseded
2026-02-17)`) under the line that replaced it; as a line diff that is the same text on both sides
plus an unrelated new line. Here it is one change: superseded, with both values.
"""
from __future__ import annotations

import difflib
from collections import Counter
from typing import Any

from sheriff_vault.search_words import key_words
from sheriff_vault.store.items import Item
from sheriff_vault.text import stem

SIMILAR = 0.8  # two lines this alike (difflib ratio) are one line changed in place
KINDS = ("superseded", "new", "removed", "done", "reopened", "edited")


def _similar(a: Item, b: Item) -> bool:
    if a.kind != b.kind:
        return False
    x, y = a.text.lower(), b.text.lower()
    return x == y or difflib.SequenceMatcher(None, x, y).ratio() >= SIMILAR


def _likeness(a: Item, b: Item) -> float:
    """How alike two lines read; the same words (a line struck or ticked in place) above all."""
    x, y = a.text.lower(), b.text.lower()
    return 2.0 if x == y else difflib.SequenceMatcher(None, x, y).ratio()


def _minus(items: list[Item], common: Counter) -> list[Item]:
    left, out = Counter(common), []
    for item in items:
        key = (item.kind, item.raw.strip())
        if left[key] > 0:
            left[key] -= 1
        else:
            out.append(item)
    return out


def line_diff(old: list[Item], new: list[Item]) -> tuple[list[Item], list[Item], list[tuple[Item, Item]]]:
    """Items added, removed and changed in place (a closed loop or a fixed typo is one change, not two)."""
    same = Counter((i.kind, i.raw.strip()) for i in old) & Counter((i.kind, i.raw.strip()) for i in new)
    removed, added = _minus(old, same), _minus(new, same)
    changed = []
    for before in list(removed):
        after = max((a for a in added if _similar(before, a)), key=lambda a: _likeness(before, a), default=None)
        if after is not None:
            removed.remove(before)
            added.remove(after)
            changed.append((before, after))
    return added, removed, changed


def item_json(item: Item) -> dict[str, Any]:
    return {k: v for k, v in item.to_json().items() if k != "line"}


def changes_between(old: list[Item], new: list[Item]) -> list[dict[str, Any]]:
    """The changes from one version of a topic's items to another, in meaning, as JSON (see KINDS):
    `item` is the line as it is now (as it was, for `removed`); a supersession adds `replaced_by`
    (the current line, or None when no line states the new value) and `when`; `done`, `reopened`
    and `edited` add `before`. The line that replaced a value is part of its supersession, not also
    listed as new."""
    added, removed, changed = line_diff(old, new)
    out: list[dict[str, Any]] = []
    struck: list[Item] = []
    for before, after in changed:
        if after.superseded and not before.superseded:
            struck.append(after)
        elif after.kind == "loop" and before.done != after.done:
            out.append({"kind": "done" if after.done else "reopened", "item": item_json(after),
                        "before": item_json(before)})
        else:
            out.append({"kind": "edited", "item": item_json(after), "before": item_json(before)})
    struck += [i for i in added if i.superseded]
    fresh = [i for i in added if not i.superseded]
    replacing: set[int] = set()
    for item in struck:
        current = replacement(item, new)
        if current is not None and any(current is f for f in fresh):
            replacing.add(id(current))
        out.append({"kind": "superseded", "item": item_json(item), "when": item.superseded,
                    "replaced_by": item_json(current) if current is not None else None})
    out += [{"kind": "new", "item": item_json(i)} for i in fresh if id(i) not in replacing]
    out += [{"kind": "removed", "item": item_json(i)} for i in removed]
    return sorted(out, key=lambda c: KINDS.index(c["kind"]))


def replacement(struck: Item, items: list[Item]) -> Item | None:
    """The current line that replaced a struck one: of the lines citing the turn its mark names
    ("(superseded DAY by t9)", as sleep strikes), the one saying most of its words; else the one
    giving another value of a quantity it states; else, of the lines said the day it was struck
    that share a word with it, the likest; else None."""
    # numpy and the index: only when a value is struck
    from sheriff_vault.retrieval.current import keyed_values, restated

    current = [i for i in items if i.kind == struck.kind and not i.superseded and i is not struck]
    if not current:
        return None
    cited = [i for i in current if struck.superseded_by and struck.superseded_by in i.turn_ids]
    if cited:
        return max(cited, key=lambda i: (restated(struck.text, i.text), i.line))
    keys = dict(keyed_values(struck.text))
    if keys:
        for item in sorted(current, key=lambda i: -i.line):
            if any(k in keys and v != keys[k] for k, v in keyed_values(item.text)):
                return item
    that_day = [i for i in current if struck.superseded[:10] and i.date[:10] == struck.superseded[:10]
                and _said(i) & _said(struck)]
    if not that_day:
        return None  # a guess would put a value in someone's mouth
    words = struck.text.lower()
    return max(that_day, key=lambda i: difflib.SequenceMatcher(None, words, i.text.lower()).ratio())


def _said(item: Item) -> set[str]:
    """The content words of what a line says, after its speaker ("Dana: ...")."""
    body = item.text.split(": ", 1)[-1]
    return {stem(w) for w in key_words(body)}


def describe(change: dict[str, Any]) -> str:
    """One change as a line a person reads: `superseded 2027-03-04: OLD -> now: NEW [t81]`,
    `new: ...`, `removed: ...`, `done: ...`, `edited: BEFORE -> AFTER`; never the same text on both
    sides of an arrow."""
    kind, item = change["kind"], change["item"]
    if kind == "superseded":
        when = f" {change['when']}" if str(change.get("when") or "")[:1].isdigit() else ""
        new = change.get("replaced_by")
        now = f" -> now: {_label(new)}{_cited(new)}" if new else " (no current line gives the new value)"
        return f"superseded{when}: {_label(item, struck=False)}{_cited(item)}{now}"
    if kind in ("done", "reopened"):
        return f"{kind}: {_label(item)}{_cited(item)}"
    if kind == "edited":
        before = change["before"]
        if _label(before) == _label(item):
            return f"edited: {_label(item)} (its date or citations changed)"
        return f"edited: {_label(before)} -> {_label(item)}"
    return f"{kind}: {_label(item)}{_cited(item)}"


def _label(item: dict[str, Any], struck: bool = True) -> str:
    date = f"{item['date']} " if item.get("date") else ""
    text = item["text"]
    if item["kind"] == "loop":
        text = f"[{'x' if item.get('done') else ' '}] {text}"
    elif item["kind"] == "event":
        text = f"event: {text}"
    if struck and item.get("superseded"):
        text += " (struck)"
    return date + text


def _cited(item: dict[str, Any]) -> str:
    turns = [t for c in item.get("citations", []) for t in c.get("turns", [])]
    return f" [{', '.join(turns)}]" if turns else ""
