# fxai: two commands do all set-up on a fresh machine (see README.md).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PROFILE ?= default
CONFIG ?= config/config.yaml
CORES ?= 2

.PHONY: run test lint bench report clean venv

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[test]"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/snakemake --cores $(CORES) --configfile $(CONFIG) --rerun-incomplete
	$(BIN)/snakemake --cores $(CORES) --configfile $(CONFIG) --report results/$(PROFILE)/report.html

test: $(STAMP)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks

bench: $(STAMP)
	$(BIN)/python -m benchmarks.run

clean:
	rm -rf results/$(PROFILE) .snakemake
