"""vault.yaml: defaults, comments kept by the template, unknown keys warned, bad values named."""
from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from sheriff_vault.config import Config, ConfigWarning, load_config
from sheriff_vault.errors import ConfigError


def test_template_config_loads_with_its_defaults(vault):
    cfg = vault.config
    assert cfg.timezone == "UTC"
    assert cfg.sleep.tail_turns == 20
    assert cfg.retrieval.weights.alias == 1.5
    assert cfg.llm.model == "gpt-5.2-codex"
    assert cfg == Config()  # the template documents exactly the defaults


def test_missing_config_means_defaults(tmp_path: Path):
    assert load_config(tmp_path) == Config()


def test_unknown_key_is_a_warning_with_its_line(tmp_path: Path):
    (tmp_path / "vault.yaml").write_text("timezone: UTC\nretrieval:\n  light_kk: 5\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cfg = load_config(tmp_path)
    assert cfg.retrieval.light_k == 6
    assert any(issubclass(w.category, ConfigWarning) and "retrieval.light_kk" in str(w.message)
               and "vault.yaml:3" in str(w.message) for w in caught)


@pytest.mark.parametrize("text,key,line", [
    ("timezone: Mars/Olympus\n", "timezone", 1),
    ("sleep:\n  tail_turns: many\n", "sleep.tail_turns", 2),
    ("sleep:\n  extractor: magic\n", "sleep.extractor", 2),
    ("retrieval:\n  mmr_lambda: 3\n", "retrieval.mmr_lambda", 2),
    ("embedding:\n  enabled: 7\n", "embedding.enabled", 2),
    ("llm:\n  sleep_reasoning_effort: enormous\n", "llm.sleep_reasoning_effort", 2),
    ("retrieval: 5\n", "retrieval", 1),
])
def test_bad_values_name_the_key_and_line(tmp_path: Path, text: str, key: str, line: int):
    (tmp_path / "vault.yaml").write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path)
    assert f"`{key}`" in str(err.value)
    assert f"vault.yaml:{line}:" in str(err.value)


def test_broken_yaml_names_the_line(tmp_path: Path):
    (tmp_path / "vault.yaml").write_text("timezone: UTC\nsleep:\n  tail_turns: [1, 2\n")
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path)
    assert "not valid YAML" in str(err.value) and "vault.yaml:" in str(err.value)


def test_bad_config_stops_commands_with_a_message(vault, run):
    (vault.root / "vault.yaml").write_text("sleep:\n  tail_turns: -3\n")
    out = run("topic", "new", "X", "--vault", vault.root)
    assert out.returncode == 1
    assert "sleep.tail_turns" in out.stderr and "Traceback" not in out.stderr
