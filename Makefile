SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV := .venv
PY := $(VENV)/bin/python
# Touched after a successful install; a requirements file newer than it means reinstall.
# `make run` needs the runtime set (requirements.txt, what a server installs); `make test`
# adds the development set (requirements-dev.txt: tests, linters, the browser tests).
STAMP := $(VENV)/requirements.stamp
DEV_STAMP := $(VENV)/requirements-dev.stamp

# `make run` serves the site as a visitor sees it (DEBUG off: the site's own error pages), on
# PORT; its static files through runserver's own handler (--insecure: one machine, no proxy).
# Without SECRET_KEY it uses one made for this checkout on first run (SECRET_FILE, never
# committed). RUN_FLAGS passes more to runserver (the tests: --noreload).
PORT ?= 8000
SECRET_FILE := .secret_key
RUN_FLAGS ?=

.PHONY: help setup setup-dev run serve test

help:
	@echo "make run   set up .venv, migrate, serve http://127.0.0.1:8000/ (PORT=8100 make run: another port)"
	@echo "make test  set up .venv, lint, type-check the engine, check the layers, run the tests"

$(PY):
	python3 -m venv $(VENV)

$(STAMP): requirements.txt | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

$(DEV_STAMP): requirements.txt requirements-dev.txt | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $(STAMP) $@

setup: $(STAMP)

setup-dev: $(DEV_STAMP)

$(SECRET_FILE): | $(PY)
	umask 077 && $(PY) -c "import secrets; print(secrets.token_urlsafe(50))" > $@

run: setup
	@$(MAKE) --no-print-directory serve

# What `make run` does once .venv is set up (the tests start make run's server with it).
serve: | $(SECRET_FILE)
	$(PY) manage.py migrate --noinput
	DEBUG="$${DEBUG:-0}" SECRET_KEY="$${SECRET_KEY:-$$(cat $(SECRET_FILE))}" \
		$(PY) manage.py runserver --insecure $(RUN_FLAGS) 0.0.0.0:$(PORT)

test: setup-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	if [ -d games/engine ]; then $(VENV)/bin/mypy --strict games/engine; fi
	$(VENV)/bin/lint-imports
	$(VENV)/bin/pytest
