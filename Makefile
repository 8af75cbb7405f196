# Two entry points (README): `make report` runs the main job, `make test` the whole suite; `make docs`
# builds the documentation site into site/.
# Each builds its own virtual environment in .venv from nothing but python3.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
OUT    ?= report

.PHONY: report test docs clean venv

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[plot,notebooks,peers,scale,test,opacus,docs]'
	touch $(STAMP)

venv: $(STAMP)

report: $(STAMP)
	$(BIN)/gdpproof report --out $(OUT)

test: $(STAMP)
	HYPOTHESIS_PROFILE=ci $(BIN)/python -m pytest -p no:cacheprovider -q
	$(BIN)/mypy tests/typing_usage.py

# warnings are errors (mkdocs.yml: strict); the notebooks are executed into build/notebooks first
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

clean:
	rm -rf $(VENV) $(OUT) site build .pytest_cache .hypothesis
