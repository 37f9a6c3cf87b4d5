"""Write-time scanning: memory ends up in an agent's prompt, so writing to it is prompt access.

Patterns follow Hermes' memory threat list (prompt injection, exfiltration, credential files,
invisible Unicode) plus common secret formats. "you are now" alone is too common in ordinary
talk ("you are now a mom!"), so the role-hijack pattern needs a hijack word after it.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from sheriff_vault.errors import UnsafeContent

_I = re.IGNORECASE
PATTERNS: list[tuple[str, str, re.Pattern[str]]] = [
    ("prompt_injection", "ignore previous instructions",
     re.compile(r"\b(?:ignore|forget)\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|above|earlier|preceding)"
                r"\s+(?:instructions|prompts?|rules|messages)", _I)),
    # The role must follow "you are now" directly or after hijack adjectives only, so "you are now
    # a travel agent" or "a model employee" stay ordinary talk while "a helpful AI assistant" does not.
    ("role_hijack", "you are now <another role>",
     re.compile(r"\byou\s+are\s+now\s+(?:(?:\w+\s+){0,4}?(?:unrestricted|unfiltered|uncensored|jailbroken|DAN\b)|"
                r"(?:an?\s+|the\s+|my\s+)?(?:(?:new|different|evil|rogue|malicious|unrestricted|unfiltered|uncensored|"
                r"unlimited|jailbroken|obedient|compliant|helpful|harmless|honest|free|very|completely|fully|totally)"
                r"\s+){0,3}(?:ai|assistant|chatbot|bot|agent|llm|gpt|(?:ai\s+|large\s+)?language\s+model)\b|"
                r"in\s+(?:developer|god|admin|debug|jailbreak)\s+mode|no\s+longer\s+(?:bound|restricted|an?\s+assistant)|"
                r"free\s+(?:of|from)\s+(?:all\s+)?(?:rules|restrictions))", _I)),
    ("deception", "do not tell the user",
     re.compile(r"\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|show|reveal\s+to)\s+the\s+user", _I)),
    ("system_prompt_override", "system prompt override",
     re.compile(r"\bsystem\s+prompt\s+(?:override|overwrite|replacement)|\boverride\s+(?:the\s+)?system\s+prompt", _I)),
    ("disregard_rules", "disregard your rules",
     re.compile(r"\bdisregard\s+(?:all\s+|any\s+)?(?:your|the|previous|prior)?"
                r"\s*(?:instructions|rules|guidelines|guardrails)", _I)),
    ("exfiltration", "curl/wget with a secret variable",
     re.compile(r"\b(?:curl|wget|nc|http)\b[^\n]*\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|API)\w*", _I)),
    ("read_secrets", "reading .env or credential files",
     re.compile(r"\b(?:cat|less|more|head|tail|type|base64|scp|cp)\s+[^\n]*"
                r"(?:\.env\b|credentials\b|\.netrc|\.pgpass|\.npmrc|\.pypirc|id_rsa|id_ed25519|/etc/shadow)", _I)),
    ("ssh_access", "~/.ssh or authorized_keys",
     re.compile(r"(?:\$HOME|~)/\.ssh\b|\bauthorized_keys\b", _I)),
    ("private_key", "a private key block",
     re.compile(r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY-----")),
    ("api_key", "an API key (sk-...)", re.compile(r"\bsk-(?:proj-|ant-|live-)?[A-Za-z0-9_\-]{20,}")),
    ("aws_key", "an AWS access key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("github_token", "a GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})")),
    ("slack_token", "a Slack token", re.compile(r"\bxox[abprs]-[A-Za-z0-9\-]{10,}")),
    ("google_key", "a Google API key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b")),
    ("jwt", "a JSON web token", re.compile(r"\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}")),
    ("secret_assignment", "a password or secret assigned a value",
     re.compile(r"\b(?:api[_-]?key|secret[_-]?key|access[_-]?token|auth[_-]?token|password|passwd)\s*[:=]\s*['\"]?"
                r"(?!(?:os\.environ|os\.getenv|getenv|process\.env)\b)[A-Za-z0-9_\-/+=.]{12,}+(?![(\[])", _I)),
]
INVISIBLE = {
    "\u200b": "ZERO WIDTH SPACE", "\u200c": "ZERO WIDTH NON-JOINER", "\u200d": "ZERO WIDTH JOINER",
    "\u2060": "WORD JOINER", "\ufeff": "ZERO WIDTH NO-BREAK SPACE (BOM)",
    "\u202a": "LEFT-TO-RIGHT EMBEDDING", "\u202b": "RIGHT-TO-LEFT EMBEDDING", "\u202c": "POP DIRECTIONAL FORMATTING",
    "\u202d": "LEFT-TO-RIGHT OVERRIDE", "\u202e": "RIGHT-TO-LEFT OVERRIDE",
    "\u2066": "LEFT-TO-RIGHT ISOLATE", "\u2067": "RIGHT-TO-LEFT ISOLATE", "\u2068": "FIRST STRONG ISOLATE",
    "\u2069": "POP DIRECTIONAL ISOLATE",
}
_INVISIBLE_RE = re.compile("[" + "".join(INVISIBLE) + "]")
# A joiner inside an emoji sequence (👩‍💻) or between letters of a script whose spelling uses it
# (Persian می‌خواهم, the Indic scripts) is ordinary text, not hidden text.
_PICTO = "\U0001F000-\U0001FAFF\u2600-\u27BF"
_JOINING = "\u0600-\u06FF\u0750-\u077F\u08A0-\u08FF\uFB50-\uFDFF\uFE70-\uFEFC\u0900-\u0DFF"
_JOINED = re.compile(f"(?<=[{_PICTO}\ufe0f])\u200d(?=[{_PICTO}])|(?<=[{_JOINING}])[\u200c\u200d](?=[{_JOINING}])")


@dataclass(frozen=True)
class Hit:
    kind: str
    description: str
    start: int
    end: int
    excerpt: str

    def __str__(self) -> str:
        return f"{self.kind} ({self.description}) at characters {self.start}-{self.end}: {self.excerpt!r}"

    def to_json(self) -> dict:
        return {"kind": self.kind, "description": self.description, "start": self.start, "end": self.end,
                "excerpt": self.excerpt}


def scan(text: str) -> list[Hit]:
    """Every threat pattern, secret or invisible character in `text`, in order of position."""
    hits: list[Hit] = []
    for m in _INVISIBLE_RE.finditer(text):
        ch = m.group(0)
        if ch in "\u200c\u200d" and _JOINED.match(text, m.start()):
            continue
        hits.append(Hit("invisible_unicode", f"U+{ord(ch):04X} {INVISIBLE[ch]}", m.start(), m.end(),
                        _excerpt(text, m.start(), m.end())))
    for kind, description, pattern in PATTERNS:
        for m in pattern.finditer(text):
            hits.append(Hit(kind, description, m.start(), m.end(), _excerpt(text, m.start(), m.end())))
    return sorted(hits, key=lambda h: h.start)


def _excerpt(text: str, start: int, end: int) -> str:
    frag = text[max(0, start - 10) : min(len(text), end + 10)]
    frag = _INVISIBLE_RE.sub(lambda m: f"<U+{ord(m.group(0)):04X}>", frag)
    return frag if len(frag) <= 80 else frag[:77] + "..."


def check_texts(texts: Iterable[str], *, where: str | None = None) -> None:
    """Raise UnsafeContent for the first text that trips a pattern; the message names it and the span."""
    for text in texts:
        hits = scan(text or "")
        if hits:
            first = hits[0]
            more = f" (and {len(hits) - 1} more)" if len(hits) > 1 else ""
            raise UnsafeContent(
                f"refused to write memory: {first}{more}",
                path=where,
                hint="remove that text; memory is pasted into an agent's prompt, "
                     "so it must not carry instructions or secrets",
            )
