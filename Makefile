# shedsim: `make test` on a fresh machine creates .venv, installs, and runs the whole suite.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
SHEDSIM := $(VENV)/bin/shedsim
WORKERS ?= 2
# never more pytest workers than CPUs (each loads numba and the kernel): WORKERS=1000 runs on $(NPROC)
NPROC := $(shell nproc 2>/dev/null || echo 1)
TEST_WORKERS = $(shell w=$(WORKERS); [ "$$w" -eq "$$w" ] 2>/dev/null || w=1; [ "$$w" -lt 1 ] && w=1; \
                 [ "$$w" -gt $(NPROC) ] && w=$(NPROC); echo $$w)

.PHONY: install compile test test-long lint differential stats-check bench demo report results train docs clean

# Installs into .venv with uv (taken from PyPI into the venv first), which resolves and downloads
# in parallel: seconds where pip takes about a minute. Where uv cannot be had (no package index,
# only local wheels), pip installs the same thing. Both write the packages' bytecode (.pyc) at
# install time (uv only when asked: --compile-bytecode): where Python may not write it on import
# (PYTHONDONTWRITEBYTECODE, a read-only venv), every process would otherwise compile numba's,
# scipy's and pandas's sources again, seconds of CPU for each worker and command.
define venv_install
	$(PY) -m pip install --quiet uv >/dev/null 2>&1 && $(PY) -m uv pip install --quiet --compile-bytecode --python $(PY) $(1) \
	  || { echo "uv unavailable here: installing with pip"; $(PY) -m pip install --quiet --upgrade pip \
	       && $(PY) -m pip install --quiet $(1); }
endef

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(call venv_install,-e '.[test]')
	touch $@

install: $(VENV)/.installed

# Compile the numba kernel once (later processes load it from the cache in well under 1 s), and
# shedsim's own bytecode (an editable install leaves it to import time; see venv_install).
compile: install
	$(PY) -m compileall -q -j 0 shedsim strategies >/dev/null
	$(SHEDSIM) compile

# --dist worksteal: a worker that runs out of tests takes queued ones from the other (the
# differential cases take tens of seconds each), so neither sits idle at the end.
test: compile
	@[ "$(TEST_WORKERS)" = "$(WORKERS)" ] || echo "note: WORKERS=$(WORKERS): testing with $(TEST_WORKERS) worker(s) (a whole number from 1 to the $(NPROC) CPU(s))"
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist worksteal -p no:cacheprovider

# The cases the normal suite leaves out of its matrices (marked long: the same checks over
# every other command, signal and edit; see tests/suite.py), and the second dpi of the charts.
test-long: compile
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist worksteal -p no:cacheprovider -m long

# ruff's lint (the rules in pyproject.toml's [tool.ruff.lint]) and its formatting at 100 columns
# ([tool.ruff.format]: `ruff format --check` changes nothing, it fails on a file `ruff format`
# would change); CI runs it before the suite.
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# The full differential run: 100,000 games per preset (shared by its player counts), 1,000 per
# house-toggle case (800 per stopped-game case) and 3,000 random games checked against every
# invariant (make test: 100, 30 and 120).
differential: compile
	SHEDSIM_DIFF_PER_PRESET=100000 $(PY) -m pytest -q -n $(TEST_WORKERS) -p no:cacheprovider tests/test_differential.py -k presets
	SHEDSIM_DIFF_GAMES=8000 $(PY) -m pytest -q -n $(TEST_WORKERS) -p no:cacheprovider tests/test_differential.py -k "toggles or stopped"
	SHEDSIM_PROPERTY_EXAMPLES=3000 $(PY) -m pytest -q -p no:cacheprovider tests/test_properties.py

# The full statistical checks, marked slow (the normal suite runs a quick version of each):
# the coverage of the tournament's 95% intervals (tests/test_coverage.py: SHEDSIM_COVERAGE_RUNS
# small runs, default 1000, against one large run, at 2 and 4 players; prints every coverage
# figure), the A/A calibration of compare-rules over 200 repeats (tests/test_compare.py),
# SPRT A/A runs over 20 seeds (tests/test_sprt.py), and the control variate's A/A false
# positives and coverage in sprt and in the tournament's head to head (tests/test_sprt_luck.py,
# tests/test_tournament_luck.py).
stats-check: compile
	$(PY) -m pytest -q -s -p no:cacheprovider -m slow tests/test_coverage.py tests/test_compare.py \
	  tests/test_sprt.py tests/test_sprt_luck.py tests/test_tournament_luck.py

# One table: games/s and ns per move at 2 and 4 players, 1 and 2 workers (median of 3), with
# the ratio to the calibration kernel when $(CALIB) holds it (the project does not need it).
CALIB ?= ../shared/calib
BENCH_GAMES ?= 1000000
bench: compile
	$(SHEDSIM) bench --table --rules shithead --strategy greedy --games $(BENCH_GAMES) \
	  $(if $(wildcard $(CALIB)/sh_nb_fast.py),--calib $(CALIB))

# The default tournament (the default field as shedsim.analysis.tournament.default_strategies
# selects it: the docs' strategies page lists it), shithead, 4 players, 200,000 games, into reports/latest/.
demo: compile
	$(SHEDSIM) tournament

# The example report (reports/example/): real runs of every preset, then one HTML page and
# a Markdown summary (32 min 40 s wall on a 2-core machine shared with other jobs: `time make report`), checked in headless Chromium (apt-get install chromium
# chromium-driver), which also takes the screenshot of the top of the page that the README shows. Charts at 80 dpi in 256 colours, and only the shithead
# tournament's (the other presets appear in the compare-rules charts), so that what is
# committed (the page, the summary, and each run's CSVs, charts and run.json) stays under 2 MB.
EX := reports/example
EXRUNS := $(EX)/runs
REPORT_GAMES ?= 40000
report: export SHEDSIM_PLOT_DPI = 80
report: export SHEDSIM_PLOT_COMPACT = 1
report: compile
	rm -rf $(EXRUNS) && mkdir -p $(EXRUNS)
	for r in duel nines family palace shithead; do \
	  p=4; [ $$r = duel ] && p=2; plots=--no-plots; [ $$r = shithead ] && plots=; \
	  $(SHEDSIM) tournament --rules $$r --players $$p --strategies random,greedy,expert,aggressive \
	    --games $(REPORT_GAMES) --quiet $$plots --out $(EXRUNS)/tournament-$$r || exit $$?; \
	  rm -rf $(EXRUNS)/tournament-$$r/chunks $(EXRUNS)/tournament-$$r/spec.json; \
	done
	$(SHEDSIM) compare-rules --rules shithead --rules duel --rules nines --rules family --rules palace \
	  --players 2 --strategies random,greedy,expert --games $(REPORT_GAMES) --quiet --out $(EXRUNS)/compare-presets-2p
	$(SHEDSIM) compare-rules --rules shithead --rules nines --rules family --rules palace \
	  --players 4 --strategies random,greedy,expert --games $(REPORT_GAMES) --quiet --out $(EXRUNS)/compare-presets-4p
	$(SHEDSIM) compare-rules --rules shithead --each-toggle --players 4 --strategies random,greedy,expert --games $(REPORT_GAMES) --quiet \
	  --out $(EXRUNS)/compare-toggles
	rm -rf $(EXRUNS)/compare-*/chunks $(EXRUNS)/compare-*/spec.json
	$(SHEDSIM) swaps --rules shithead --players 3 --strategy greedy --games 200000 --quiet --out $(EXRUNS)/swaps
	$(SHEDSIM) sprt --a greedy --b random --rules shithead --quiet --out $(EXRUNS)/sprt
	$(SHEDSIM) sprt --a greedy --b expert --rules shithead --compare-pairing --games 20000 --quiet \
	  --out $(EXRUNS)/pairing
	$(SHEDSIM) report $(EXRUNS)/tournament-shithead $(EXRUNS)/compare-presets-2p $(EXRUNS)/compare-presets-4p \
	  $(EXRUNS)/compare-toggles $(EXRUNS)/swaps $(EXRUNS)/sprt $(EXRUNS)/pairing \
	  $(EXRUNS)/tournament-duel $(EXRUNS)/tournament-nines $(EXRUNS)/tournament-family $(EXRUNS)/tournament-palace \
	  --title "shedsim example report" --out $(EX)/index.html --md $(EX)/README.md
	$(PY) -m shedsim.output.browser $(EX)/index.html --screenshot $(EX)/screenshot.png
	rm -f $(EXRUNS)/*/.shedsim.lock
	du -sh $(EX)

# The learned value's weights, shedsim/kernel/value_2p.npz, from a seeded self-play run (20,000
# games of champion's search at 50 iterations on $(WORKERS) workers, then the fit: minutes); the
# run's positions, loss curve and options go to reports/train. Needs the learn extra.
train: compile
	$(call venv_install,-e '.[learn]')
	$(SHEDSIM) train --workers $(WORKERS) --out reports/train --weights shedsim/kernel/value_2p.npz

# The figures the docs pages quote (docs/results/NAME.json, one registered function each in
# tools/results.py): every one, or NAME=bench (several: NAME="bench demo"). Long: the strength
# ladders play mc and ismcts. `.venv/bin/python tools/results.py --list` names them.
NAME ?=
results: compile
	$(PY) tools/results.py $(NAME)

# The docs site (site/), built as CI builds it: every warning is an error.
$(VENV)/.docs-installed: pyproject.toml $(VENV)/.installed
	$(call venv_install,-e '.[docs]')
	touch $@

docs: $(VENV)/.docs-installed
	$(VENV)/bin/mkdocs build --strict

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
