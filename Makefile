# Two entry points (README): `make report` runs the main job, `make test` the whole suite.
# Each builds its own virtual environment in .venv from nothing but python3.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
OUT    ?= report

.PHONY: report test clean venv

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[plot,notebooks,peers,scale,test,opacus]'
	touch $(STAMP)

venv: $(STAMP)

report: $(STAMP)
	$(BIN)/gdpproof report --out $(OUT)

test: $(STAMP)
	HYPOTHESIS_PROFILE=ci $(BIN)/python -m pytest -p no:cacheprovider -q
	$(BIN)/mypy tests/typing_usage.py

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache .hypothesis
