# Quick start: `make serve` and `make test` (`make lint` alone: ruff and mypy).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NPM_STAMP := node_modules/.installed

.PHONY: help serve build lint test browser cli clean
help:
	@echo "make serve  set up, build dist/ and serve it at http://127.0.0.1:8000"
	@echo "make lint   ruff over the Python, mypy over what pyproject.toml lists"
	@echo "make test   set up, lint, make sure a Chromium is there, run every test (browser tests included)"
	@echo "make build  build dist/ only"
	@echo "make cli    an example run of the command line"

$(STAMP): requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $(STAMP)

$(NPM_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $(NPM_STAMP)

build: $(STAMP) $(NPM_STAMP)
	$(BIN)/python build.py --out dist

serve: build
	$(BIN)/python -m http.server 8000 --bind 127.0.0.1 --directory dist

# ruff's rules and mypy's file list live in pyproject.toml; `make test` (and so CI) lints first.
LINT_PATHS := app tests tools bench build.py
lint: $(STAMP)
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/mypy

# The system Chromium when present; on Debian as root, apt-get; otherwise Playwright's own download.
browser: $(STAMP)
	@if command -v chromium >/dev/null 2>&1; then echo "browser: $$(command -v chromium)"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else $(BIN)/python -m playwright install chromium; fi

test: lint $(STAMP) $(NPM_STAMP) browser
	$(BIN)/python -m pytest

cli:
	PYTHONPATH=app $(PYTHON) -m vramcalc --model llama-3-8b --seq 8192

clean:
	rm -rf $(VENV) dist node_modules .cache .pytest_cache .hypothesis test-results .mypy_cache .ruff_cache
