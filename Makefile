# routelab — every target works on a fresh machine (Python 3.11, Java 17, root, registries only).
# `make figures` and `make test` set everything up on first use; `make setup` is idempotent.

SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
ROUTELAB := $(VENV)/bin/routelab
PROFILE ?= default
STAMP := $(VENV)/.routelab-installed
DATA_STAMP := datasets/prepared/.prepared

.PHONY: setup venv packages chromium datasets test test-fast figures bench bench-compare need-ref lab lint dupes lock clean help

help:
	@echo "make figures   set up (first use) and regenerate every figure (PROFILE=$(PROFILE))"
	@echo "make test      set up (first use) and run the whole test suite"
	@echo "make setup     idempotent: .venv, pinned packages, chromium, datasets"
	@echo "make bench     benchmarks with ratios against baselines measured in the same run"
	@echo "make bench-compare REF=<commit> [BENCH=name...] [ROUNDS=3] [QUICK=1]"
	@echo "               the benchmarks on REF and on the work tree, interleaved; history in papermill_runs/bench"
	@echo "make lab       JupyterLab on http://127.0.0.1:8888"
	@echo "make lint      ruff check + format check"

setup: packages chromium datasets

$(PY):
	$(PYTHON) -m venv $(VENV)

venv: $(PY)

# pinned set: pyproject.toml (ranges) + constraints.txt (exact versions)
$(STAMP): $(PY) pyproject.toml constraints.txt
	$(PIP) install -q --upgrade "pip>=24"
	$(PIP) install -q -c constraints.txt -e ".[dev]"
	$(PY) -m routelab.jupyter_kernel
	touch $(STAMP)

KERNEL := $(VENV)/share/jupyter/kernels/routelab/kernel.json

# the Jupyter kernelspec the committed notebooks name ("Python 3 (routelab)")
$(KERNEL): $(STAMP)
	$(PY) -m routelab.jupyter_kernel

packages: $(STAMP) $(KERNEL)

# Chromium drives kaleido for PNG/SVG export (Debian package; needs root or sudo)
chromium:
	@if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then \
		echo "chromium: present"; \
	else \
		SUDO=""; [ "$$(id -u)" = 0 ] || SUDO="sudo"; \
		echo "chromium: installing Debian package chromium"; \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null; \
	fi

$(DATA_STAMP): $(STAMP) lib/routelab/datasets/registry.py
	$(ROUTELAB) datasets fetch
	$(ROUTELAB) datasets prepare
	touch $(DATA_STAMP)

datasets: $(DATA_STAMP)

# one pytest-xdist worker per core: the papermill smoke runs wait on kernel and Spark start-up,
# which the other worker fills; every test passes on its own too (plain `pytest`)
test: setup
	$(PY) -m pytest -q -n auto --dist worksteal

test-fast: packages
	$(PY) -m pytest -q -m "not notebook"

figures: setup
	$(ROUTELAB) figures --profile $(PROFILE)

bench: setup
	$(ROUTELAB) bench

# the same benchmarks on an earlier commit (a temporary git worktree) and on the work tree,
# interleaved: make bench-compare REF=HEAD~1 [BENCH="matching grouping"] [ROUNDS=3] [QUICK=1]
ROUNDS ?= 3
need-ref:
	@if [ -z "$(REF)" ]; then echo "make bench-compare: give REF=<commit>, e.g. make bench-compare REF=HEAD~1" >&2; exit 2; fi

bench-compare: need-ref setup
	$(ROUTELAB) bench compare --ref "$(REF)" --rounds $(ROUNDS) $(if $(QUICK),--quick) $(BENCH)

lab: setup
	$(VENV)/bin/jupyter lab --ip 127.0.0.1 --no-browser --allow-root --notebook-dir notebooks

lint: packages
	$(VENV)/bin/ruff check lib tests notebooks
	$(VENV)/bin/ruff format --check lib tests

dupes:
	duplicates --change lib tests || true

# regenerate constraints.txt from the current venv (after changing pyproject.toml)
lock: $(PY)
	$(PIP) install -q -e ".[dev]"
	$(PIP) freeze --exclude-editable | grep -v '^routelab' > constraints.txt

clean:
	# the benchmark history (papermill_runs/bench/) is kept: it is the speed record across commits
	rm -rf figures/*/ figures/index.html figures/plotly-*.min.js papermill_runs/history.jsonl .pytest_cache spark-warehouse
	find papermill_runs -mindepth 1 -maxdepth 1 -type d ! -name bench -exec rm -rf {} +
