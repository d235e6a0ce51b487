# shedsim: `make test` on a fresh machine creates .venv, installs, and runs the whole suite.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
SHEDSIM := $(VENV)/bin/shedsim
WORKERS ?= 2

.PHONY: install compile test differential bench demo clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

install: $(VENV)/.installed

# Compile the numba kernel once (later processes load it from the cache in well under 1 s).
compile: install
	$(SHEDSIM) compile

test: compile
	$(PY) -m pytest -q -n $(WORKERS) -p no:cacheprovider

# The full differential run: 100,000 games per preset (shared by its player counts).
differential: compile
	SHEDSIM_DIFF_PER_PRESET=100000 $(PY) -m pytest -q -n $(WORKERS) -p no:cacheprovider tests/test_differential.py -k presets

bench: compile
	$(SHEDSIM) bench --rules shithead --players 2 --strategy greedy --games 1000000
	$(SHEDSIM) bench --rules shithead --players 4 --strategy greedy --games 1000000
	$(SHEDSIM) bench --rules shithead --players 2 --strategy greedy --games 1000000 --workers 2

# The default tournament (every built-in strategy except mc, shithead, 4 players,
# 200,000 games) into reports/latest/.
demo: compile
	$(SHEDSIM) tournament

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
