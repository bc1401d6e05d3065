# wevent_nb: the README's commands. Everything runs inside .venv, created and filled on first use.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SCALE ?= quick
JOBS ?= 2
# The real data sets: WEVENT_NB_DATA if set, else ../shared/data beside the repository when it exists.
ifeq ($(origin WEVENT_NB_DATA),undefined)
ifneq ($(wildcard ../shared/data),)
export WEVENT_NB_DATA := $(abspath ../shared/data)
endif
endif

.PHONY: install test reports docs lab export clean-nbs sync-check bench help
help:
	@echo "make test     - set up .venv, check export/clean are in sync, run nbdev-test and pytest"
	@echo "make reports  - set up .venv, run every paper notebook through papermill (SCALE=$(SCALE)) into reports/"
	@echo "make docs     - build the documentation site into _docs/ (Quarto if installed, else offline)"
	@echo "make lab      - JupyterLab on the notebooks"
	@echo "make bench    - run the benchmark scripts"

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install -q --disable-pip-version-check -e '.[dev,dask,anomaly]'
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (wevent_nb)" >/dev/null
	@touch $(STAMP)

install: $(STAMP)

# nbdev-export and nbdev-clean must change nothing: the committed package and notebooks are in sync.
sync-check: $(STAMP)
	@$(BIN)/python tools/sync_check.py $(BIN)

test: sync-check
	$(BIN)/nbdev-test --n-workers $(JOBS)
	$(BIN)/python -m pytest

reports: $(STAMP)
	$(BIN)/wevent-nb reproduce --scale $(SCALE) --out reports

docs: $(STAMP)
	$(BIN)/python tools/build_docs.py --workers $(JOBS) $(DOCS_FLAGS)

lab: $(STAMP)
	$(BIN)/jupyter lab --notebook-dir=nbs $(if $(filter root,$(shell whoami)),--allow-root,)

bench: $(STAMP)
	@for f in benchmarks/bench_*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

export: $(STAMP)
	$(BIN)/nbdev-export && $(BIN)/nbdev-clean
