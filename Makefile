# fxai: two commands do all set-up on a fresh machine (see README.md).
#   make run                                  default profile on this machine, with its report
#   make run CONFIG=config/paper.yaml         any config (or several: CONFIG="a.yaml b.yaml")
#   make run PROFILE=slurm                    through SLURM (profiles/slurm, docs/cluster.md)
#   make unlock [CONFIG=...]                  after a killed run: release snakemake's lock
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
CONFIG ?= config/config.yaml
PROFILE ?= local
CORES ?= 2
# pip extras of the venv (test holds the docs and slurm extras: mkdocs, the SLURM executor)
EXTRAS ?= test
BENCHMARKS ?= $(filter-out __init__,$(basename $(notdir $(wildcard benchmarks/*.py))))
comma := ,
# the `profile` key of the (last) config: results/<name>/
RESULTS := results/$(shell sed -n 's/^profile:[[:space:]]*\([^[:space:]#]*\).*/\1/p' $(CONFIG) | tail -1)
STAMP := $(VENV)/.installed-$(subst $(comma),-,$(EXTRAS))
CORES_ARG := $(if $(filter local,$(PROFILE)),--cores $(CORES))
# on this machine the jobs' commands are forked from one process that imported the libraries
# once (python -m fxai.forkserver, docs/benchmarks.md); a cluster's jobs start their own
FORKSERVER := $(if $(filter local,$(PROFILE)),$(BIN)/python -m fxai.forkserver --)
# pip installs without compiling bytecode (--no-compile: most of the venv is never imported);
# the modules a command imports are compiled once, on first import, into .venv and src/
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run report test test-fast lint docs bench unlock clean venv

venv: $(STAMP)

$(STAMP): pyproject.toml
	@echo "== make: installing fxai and its dependencies into $(VENV) (once; pip lists each package)"
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install --no-compile --progress-bar on -e ".[$(EXTRAS)]"
	$(BIN)/python -m pip check
	touch $(STAMP)
	@echo "== make: installed ($(STAMP))"

# the profile writes $(RESULTS)/report.html after the run (--report-after-run)
run: $(STAMP)
	@echo "== make: running the workflow of $(CONFIG) into $(RESULTS) (it counts the steps done)"
	$(BIN)/python -m fxai.cli check-config $(CONFIG)
	$(FORKSERVER) $(BIN)/snakemake --profile profiles/$(PROFILE) $(CORES_ARG) --configfile $(CONFIG)

# the report of what $(RESULTS) holds now (e.g. after a run of a few targets)
report: $(STAMP)
	$(BIN)/python -m fxai.cli check-config $(CONFIG)
	$(BIN)/snakemake --cores 1 --configfile $(CONFIG) --report $(RESULTS)/report.html

# the tests across the machine's cores (pytest-xdist; a file's tests stay on one worker)
test: $(STAMP)
	$(BIN)/python -m pytest -q -n $(CORES) --dist loadfile

# the quick loop while changing a module: unit and property tests and doctests, without the
# workflow runs (slow), the commands and snakemake plans (cli) and the tests of several
# seconds (heavy); make test runs them all
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -n $(CORES) --dist loadfile -m "not slow and not cli and not heavy"

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks

# the documentation site (docs/, mkdocs.yml) into build/site; warnings are errors
docs: $(STAMP)
	$(BIN)/mkdocs build --strict

# after snakemake itself was killed: release its lock (only if no other snakemake runs here)
unlock: $(STAMP)
	$(BIN)/python -m fxai.cli check-config $(CONFIG)
	$(BIN)/snakemake --cores 1 --configfile $(CONFIG) --unlock

# every benchmarks/*.py (nbc and xpg re-time the models of the default run);
# each writes results/bench/<name>.* or prints; one: make bench BENCHMARKS=nbc
# (ffa_report_memory reads the paper profile's full-size FFA records: ~2 h)
bench: run
	for b in $(BENCHMARKS); do $(BIN)/python -m benchmarks.$$b || exit 1; done

clean:
	rm -rf $(RESULTS) .snakemake
