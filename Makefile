# The two promises of the README:
#   make demo  - set up, then open the quickstart notebook in JupyterLab on the demo agent
#   make test  - set up, then run every test (unit, kernel, notebooks, JS, browser)

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PORT   ?= 8888

# The oldest ipykernel the package allows (Colab's runtime pins it, with IPython 7.34): the chat's
# core on it is tested in a venv of its own (test-ipykernel6).
IPYKERNEL6 := 6.17.1
IPYTHON6   := 7.34.0
VENV6      := .venv-ipykernel6

.PHONY: setup demo test test-ipykernel6 lint wire docs browser-deps test-deps bench clean

setup: js/node_modules/.installed $(VENV)/.installed

# The editable install runs the front-end build (hatch_build.py), so node_modules comes first. It
# copies the JupyterLab extension (js/labextension/) into the venv's share/jupyter, so a change to
# that extension installs again.
LABEXTENSION_SOURCES := $(wildcard js/labextension/src/*.ts) js/labextension/package.json js/labextension/build.mjs
$(VENV)/.installed: pyproject.toml hatch_build.py js/node_modules/.installed $(LABEXTENSION_SOURCES)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $@

js/node_modules/.installed: js/package.json js/package-lock.json
	cd js && npm ci --no-audit --no-fund
	touch $@

# Debian's chromium drives the browser tests (never a downloaded browser build); DejaVu's math
# font is what they expect display math to be set in (a browser without a math font cramps it).
BROWSER_PACKAGES := chromium fonts-dejavu-extra
browser-deps:
	@{ command -v chromium >/dev/null 2>&1 && dpkg -s fonts-dejavu-extra >/dev/null 2>&1; } || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BROWSER_PACKAGES) >/dev/null; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BROWSER_PACKAGES) >/dev/null; fi; }

# Debian's PostgreSQL server runs the PostgreSQL thread store's tests: each test session starts a
# throwaway cluster of its own with the package's initdb/pg_ctl (tests/postgres.py), never a
# server already running.
test-deps: browser-deps
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; fi; }

demo: setup
	cd js && npm run build
	$(VENV)/bin/jupyter lab --config=jupyter-config/jupyter_server_config.py --ServerApp.open_browser=True --allow-root --port=$(PORT) notebooks/01_quickstart.ipynb

test: setup test-deps lint docs test-ipykernel6
	cd js && npm run build && npm run typecheck && npm test && npm run limits
	$(PY) -m pytest -q

# The kernel-level tests that speak of ipykernel versions (tests/test_kernel_versions.py), on
# ipykernel 6: a demo chat's text and Python tool, the notebook tools' cell run, and the error a cell
# awaiting a run that waits on the browser gets there; and %load_ext agui_widget's magics and error
# button (tests/test_notebook_extension.py), on IPython 7.34; and an MCP server started in that kernel
# ending with it (tests/test_mcp_server_life.py). Its venv holds the package's
# dependencies and what those tests need; the front end comes from `setup` (the same checkout), so
# its install skips the JS build.
$(VENV6)/.installed: pyproject.toml Makefile
	test -x $(VENV6)/bin/python || $(PYTHON) -m venv $(VENV6)
	$(VENV6)/bin/python -m pip install --quiet --upgrade pip
	AGUI_WIDGET_SKIP_JS=1 $(VENV6)/bin/python -m pip install --quiet -e ".[mcp]" "ipykernel==$(IPYKERNEL6)" \
	  "ipython==$(IPYTHON6)" "jupyter_client>=8" "pytest>=8" "pytest-asyncio>=0.23"
	touch $@

test-ipykernel6: setup $(VENV6)/.installed
	AGUI_TEST_IPYKERNEL=$(IPYKERNEL6) $(VENV6)/bin/python -m pytest -q -o addopts="" -p no:cacheprovider \
	  tests/test_kernel_versions.py tests/test_notebook_extension.py tests/test_mcp_server_life.py

# The wire's generated files, from its declarations in agui_widget/wire/_requests.py and _payloads.py (docs/wire.md).
wire: setup
	$(PY) -m agui_widget.wire._schema
	cd js && node scripts/wire-codegen.mjs

# Lint, format, types, the package's layering (the contracts are in pyproject.toml) and the sizes of
# its classes and functions (scripts/limits.py; ruff holds their complexity).
lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	$(PY) scripts/limits.py

# The documentation site (mkdocs.yml): docs/ and the API reference from the docstrings, built
# into site/; --strict fails on any warning (a broken link, anchor or cross-reference, a public
# name without a page). NO_MKDOCS_2_WARNING quiets Material's notice about MkDocs 2.
docs: setup
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

bench: setup
	$(PY) benchmarks/stream_cost.py
	$(PY) benchmarks/state_cost.py
	$(PY) benchmarks/run_start.py
	$(PY) benchmarks/cell_run.py
	$(PY) benchmarks/mcp_call.py
	$(PY) benchmarks/import_time.py
	$(PY) benchmarks/memory.py
	$(PY) benchmarks/serve_load.py

clean:
	rm -rf $(VENV) $(VENV6) js/node_modules agui_widget/static js/labextension/node_modules js/labextension/lib agui_widget/labextension
