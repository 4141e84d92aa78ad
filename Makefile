# The two commands: `make run` and `make test`. Everything else here serves them.
.DEFAULT_GOAL := help
SHELL := /bin/bash

VENV := .venv
VPY := $(VENV)/bin/python
MANAGE := $(VPY) manage.py

# Django 6 needs Python 3.12+. PYTHON=... wins; else the first 3.12+ on the PATH
# that really runs (a pyenv shim may exist and still refuse); else a pyenv build.
ifeq ($(origin PYTHON),undefined)
PYTHON := $(shell \
  for c in python3.14 python3.13 python3.12 python3; do \
    exe=$$($$c -c 'import sys; assert sys.version_info >= (3, 12); print(sys.executable)' 2>/dev/null) \
      && { echo $$exe; exit 0; }; \
  done; \
  root=$$(pyenv root 2>/dev/null); \
  for d in $$(ls -d $$root/versions/3.* 2>/dev/null | sort -rV); do \
    exe=$$($$d/bin/python3 -c 'import sys; assert sys.version_info >= (3, 12); print(sys.executable)' 2>/dev/null) \
      && { echo $$exe; exit 0; }; \
  done)
endif

.PHONY: help run serve test bench bench-quick load load-ab lint python-check compile-engine

help:
	@echo "make run    install, migrate, load demo data, serve on http://127.0.0.1:8000 with task workers"
	@echo "make test   install with test extras, lint, check migrations, run the suite"
	@echo "make bench  measure the rules core and the site (make bench-quick: a smoke run, as CI does)"
	@echo "make serve  production-like on 127.0.0.1:8000: gunicorn, whitenoise, debug off"
	@echo "make load   a bounded load test (at most 60 s) against a production-like server"
	@echo "make compile-engine  build the battle engine's hot modules with mypyc (MEMEYORI_ENGINE=auto loads them)"

python-check:
	@if [ -z "$(PYTHON)" ]; then \
	  echo "No Python 3.12 or newer found. Install Python 3.12+ (e.g. apt-get install python3.12, or pyenv install 3.13) or run: make PYTHON=/path/to/python3.12 ..." >&2; \
	  exit 1; fi

$(VPY): | python-check
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip

# Stamps make a second run skip the install unless pyproject.toml changed.
$(VENV)/.installed: pyproject.toml | $(VPY)
	$(VPY) -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(VPY)
	$(VPY) -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.installed

$(VENV)/.installed-compile: pyproject.toml | $(VPY)
	$(VPY) -m pip install --quiet -e '.[compile]'
	touch $@

# The battle engine's hot modules compiled by mypyc from their own source into build/
# (battles/compile_engine.py); the engine loads them only with MEMEYORI_ENGINE=auto (or
# compiled) and only while that source is unchanged. Not a step of run, serve or test: the
# build is not faster than the source yet (battles/engine/__init__.py); .ci/run builds it
# and runs the engine's tests on it. Without mypyc or a C compiler it says so and stops.
compile-engine: | $(VPY)
	-$(MAKE) --no-print-directory $(VENV)/.installed-compile
	-$(VPY) -m battles.compile_engine

# The dev server and, as `make serve` has, task workers per queue (cards/workers.py), from
# one command; Ctrl-C stops them all. One worker takes only the interactive queue (a round's
# deadline, renders, portraits, a battle someone is waiting to watch), one the bulk queue
# (labs, estimates, reviews): with one worker for both, a render waited 113-285 s behind
# estimates that ran for minutes each (issue 39.1). They do not reload themselves: restart
# `make run` after changing a task's code.
RUN_PORT ?= 8000
RUN_INTERACTIVE_WORKERS ?= 1
RUN_BULK_WORKERS ?= 1
# The printed cards' QR codes (made by a worker) lead to the port served, unless
# DJANGO_SITE_URL says otherwise (issue 41.9: they led to 8000 whatever RUN_PORT was).
RUN_SITE = DJANGO_SITE_URL="$${DJANGO_SITE_URL:-http://127.0.0.1:$(RUN_PORT)}"
run: $(VENV)/.installed
	$(MANAGE) migrate --noinput
	$(MANAGE) createcachetable
	$(MANAGE) seed_demo
	@trap 'kill $$workers 2>/dev/null; wait $$workers 2>/dev/null' EXIT; \
	$(RUN_SITE) nice -n 10 $(MANAGE) run_workers --interactive $(RUN_INTERACTIVE_WORKERS) \
	  --bulk $(RUN_BULK_WORKERS) --interval 0.25 & workers=$$!; \
	$(RUN_SITE) $(MANAGE) runserver 127.0.0.1:$(RUN_PORT)

# Production-like, on loopback only: debug off, gunicorn workers, whitenoise static files.
# gunicorn's asgi workers run memeyori_site/asgi.py: pages in one thread per worker, with
# persistent database connections, and live streams on the event loop, holding no thread.
# No control socket: two instances on one machine would otherwise share one path.
# --reuse-port: each worker listens on a socket of its own and the kernel spreads new
# connections over them by their addresses. On one shared socket the first worker awake can
# take a whole burst: make load once put 27 of its 32 keep-alive clients on one worker (live
# stats p99 211 ms). Spread by the kernel, the split is random, not even: the busier worker
# held 17 to 24 of the 32 in 11 runs here, and the p99 follows it (139-185 ms). A second
# server started on the same port joins this one instead of failing.
# Plain HTTP on 127.0.0.1, so the HTTPS-only settings are relaxed here and only here.
SERVE_PORT ?= 8000
# One worker process per core: each runs pages in its own thread, so more processes only
# fight over the cores, and keep-alive clients spread over them unevenly (make load on 2
# cores, 4 threads a worker: 5 workers 190-209 requests/s, live stats p99 379-691 ms; 2
# workers 207-261, p99 292-334 ms; one thread a worker: 3 workers 236-242, 2 workers 274-279).
SERVE_WORKERS ?= $(shell nproc 2>/dev/null || echo 2)
# Task workers per queue (cards/workers.py), started again if one dies (run_workers). They
# run at a lower CPU priority, so that pages win the CPU from renders, and the bulk ones
# lower still, so that renders win it from lab chunks.
SERVE_INTERACTIVE_WORKERS ?= 2
SERVE_BULK_WORKERS ?= 1
SERVE_ENV = DJANGO_DEBUG=0 DJANGO_STATIC_MANIFEST=1 \
	DJANGO_SECRET_KEY="$$(cat $(VENV)/secret-key)" \
	DJANGO_ALLOWED_HOSTS=$${DJANGO_ALLOWED_HOSTS:-127.0.0.1,localhost} \
	DJANGO_SECURE_SSL_REDIRECT=0 DJANGO_SECURE_COOKIES=0 DJANGO_HSTS_SECONDS=0 \
	DJANGO_SITE_URL="$${DJANGO_SITE_URL:-http://127.0.0.1:$(SERVE_PORT)}"

$(VENV)/secret-key: | $(VPY)
	$(VPY) -c 'import secrets; print(secrets.token_urlsafe(50))' > $@
	chmod 600 $@

serve: $(VENV)/.installed $(VENV)/secret-key
	$(SERVE_ENV) $(MANAGE) collectstatic --noinput -v0
	$(SERVE_ENV) $(MANAGE) migrate --noinput
	$(SERVE_ENV) $(MANAGE) createcachetable
	$(SERVE_ENV) $(MANAGE) seed_demo
	@trap 'kill $$workers 2>/dev/null; wait $$workers 2>/dev/null' EXIT; \
	$(SERVE_ENV) nice -n 10 $(MANAGE) run_workers --interactive $(SERVE_INTERACTIVE_WORKERS) \
	  --bulk $(SERVE_BULK_WORKERS) --interval 0.25 & workers=$$!; \
	$(SERVE_ENV) DATABASE_CONN_MAX_AGE=$${DATABASE_CONN_MAX_AGE:-600} \
		$(VENV)/bin/gunicorn memeyori_site.asgi --worker-class asgi \
		--bind 127.0.0.1:$(SERVE_PORT) --workers $(SERVE_WORKERS) --access-logfile - \
		--timeout 60 --no-control-socket --reuse-port

load: $(VENV)/.installed-test $(VENV)/secret-key
	$(VPY) -m tests.bench.load

# make load on this tree and on commit REV, in turns (RUNS each, 2): tests/bench/load_ab.py.
load-ab: $(VENV)/.installed-test $(VENV)/secret-key
	$(VPY) -m tests.bench.load_ab $(REV) $(RUNS)

test: $(VENV)/.installed-test
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(MANAGE) makemigrations --check --dry-run
	$(VENV)/bin/pytest $(PYTEST_ARGS)

# BENCHES="battles lab" runs only those modules of tests/bench/.
bench: $(VENV)/.installed-test
	$(VPY) -m tests.bench $(BENCHES)

# Every bench at a few iterations: CI runs it so that a bench that crashes fails the build.
bench-quick: $(VENV)/.installed-test
	BENCH_QUICK=1 $(VPY) -m tests.bench $(BENCHES)

lint: $(VENV)/.installed-test
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .
