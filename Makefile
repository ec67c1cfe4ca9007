# The executable JAX book. `make html` builds the site, `make test` runs every test.
# Both create .venv from requirements.lock first (Python >= 3.12 required).
PY := .venv/bin/python
VENV := .venv/.installed
# axe-core for the accessibility tests and vnu-jar (the Nu HTML Checker, run with Java) for the HTML
# test, pinned with their integrity hashes in package-lock.json
AXE := node_modules/axe-core/package.json
# Where the tools write (jaxbook/layout.py's BUILD; tests/test_uptodate.py checks they agree)
BUILD := _build

.PHONY: html test serve clean page check practice bench audit lock outputs upgrade accelerator mutation store reading

html: $(VENV)
	$(PY) -m jaxbook.build

# Browser tests need Debian's chromium: installed here when missing (needs root; otherwise the
# browser tests say what to install, and fail under CI).
test: $(VENV) $(AXE)
	-@bash tools/install_browser.sh
	$(PY) -m pytest

serve: $(VENV)
	$(PY) -m sphinx_autobuild --watch snippets --watch jaxbook --watch practice \
	  --ignore "*/__pycache__/*" -b html -d $(BUILD)/doctrees . $(BUILD)/html

# One page, quickly: make page PAGE=guide/grad.md  (links to other pages are not checked)
page: $(VENV)
	@test -n "$(PAGE)" || { echo "usage: make page PAGE=guide/grad.md" >&2; exit 2; }
	$(PY) -m jaxbook.build $(PAGE)

# Write expected outputs (snippets/**/*.out) from the real results (executing what the store lacks):
# make outputs [SNIPPET="a.py b.py"] [PAGE=guide/jit.md] [HELPER=snippets/x/_h.py] [FAILED=1] [COMPARE=1]
outputs: $(VENV)
	@$(PY) -m jaxbook.accept SNIPPET='$(SNIPPET)' PAGE='$(PAGE)' HELPER='$(HELPER)' FAILED='$(FAILED)' \
	  COMPARE='$(COMPARE)'

# What the execution store holds for each page with code cells, and why a page would run again;
# PRUNE=1 deletes the results no page reaches now, but not all, nor more than half, of the store
# (PRUNE=force does): make store [PAGE="guide/jit.md ..."] [PRUNE=1|force]
store: $(VENV)
	$(PY) -m tools.store $(PAGE) $(if $(PRUNE),--prune) $(if $(filter force,$(PRUNE)),--force)

# Every snippet on this machine's own GPU or TPU (not the 8 emulated CPU devices), compared with
# its .out; report in _build/accelerator/ (docs/contributing.md). ACCEPT=1 writes the reviewed
# <name>.<platform>.out of the snippets that declare '# platform: <platform> differs'.
# make accelerator [SNIPPET="a.py b.py"] [PAGE=guide/jit.md] [ACCEPT=1]
accelerator: $(VENV)
	$(PY) -m tools.accelerator $(foreach s,$(SNIPPET),--snippet $(s)) $(foreach p,$(PAGE),--page $(p)) \
	  $(if $(ACCEPT),--accept)

# Upgrade JAX and everything else (or pin: make upgrade JAX=0.11.2): new lock, new .venv,
# rewritten expected outputs and a per-page summary. Review with git diff.
upgrade: $(VENV)
	$(PY) -m tools.upgrade lock $(if $(JAX),--jax $(JAX))
	@bash tools/bootstrap.sh
	$(PY) -m tools.upgrade outputs

# Mutation testing of the practice solutions (maintainers; slow: minutes per problem, one mutant
# at a time): make mutation PROBLEM=masked-mean, or every problem without PROBLEM. Writes
# practice/<section>/<problem>/mutation.json (tools/mutation.py).
mutation: $(VENV)
	nice -n 15 $(PY) -m tools.mutation $(PROBLEM)

# Check your attempt at a practice problem: make check PROBLEM=adamw-from-scratch
check: $(VENV)
	@test -n "$(PROBLEM)" || { echo "usage: make check PROBLEM=adamw-from-scratch" >&2; exit 2; }
	$(PY) -m jaxbook.check '$(PROBLEM)'

# Study the practice problems in the plan's order, each checked on every save of its starter (keys:
# hint, reset, skip, list, quit); without a terminal, print the progress and exit:
# make practice [PROBLEM=masked-mean] [RECOMPUTE=1: progress from the starters] [LIMIT=120: seconds per check]
practice: $(VENV)
	@$(PY) -m jaxbook.study $(if $(PROBLEM),--problem '$(PROBLEM)') $(if $(RECOMPUTE),--recompute) \
	  $(if $(LIMIT),--limit $(LIMIT))

bench: $(VENV) $(AXE)
	$(PY) -m tools.bench $(BENCH)

# Lighthouse scores (mobile, best of up to 3 runs) and DOM sizes of pages of _build/html (six, or
# AUDIT="--all": every page; --require 100 fails below 100), served with gzip:
# needs Lighthouse (LIGHTHOUSE=/path/to/lighthouse; see tools/site_audit.py) and Chromium.
audit: $(VENV)
	$(PY) -m tools.site_audit $(AUDIT)

# Reading time of each reader page (core and optional layer) and of each step, with each page's
# count of maintainers' voice (tools/reading_time.py); CHECK=1 exits 1 naming the steps over target.
reading: $(VENV)
	$(PY) -m tools.reading_time $(if $(CHECK),--check)

# Re-resolve requirements.in into requirements.lock (needs the package index).
# uv reads the hashes from the index (pip-tools downloads every wheel to hash it); pins already in
# requirements.lock are kept unless requirements.in asks otherwise (make upgrade moves them).
lock: $(VENV)
	$(PY) -m tools.upgrade compile

clean:
	rm -rf $(BUILD)

$(AXE): package-lock.json
	npm ci --ignore-scripts --no-audit --no-fund
	@touch $@

$(VENV): requirements.lock tools/bootstrap.sh tools/uv-requirements.txt
	@bash tools/bootstrap.sh
