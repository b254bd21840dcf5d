# Two commands matter: `make test` (and, once the page lands, `make serve`).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: help test cli clean
help:
	@echo "make test   create .venv, install pinned test requirements, run pytest"
	@echo "make cli    an example run of the command line"
	@echo "make clean  remove .venv and caches"

$(STAMP): requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest

cli:
	PYTHONPATH=app $(PYTHON) -m vramcalc --model llama-3-8b --seq 8192

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
