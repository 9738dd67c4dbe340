SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV := .venv
PY := $(VENV)/bin/python
# Touched after a successful install; a requirements file newer than it means reinstall.
# `make run` needs the runtime set (requirements.txt, what a server installs); `make test`
# adds the development set (requirements-dev.txt: tests, linters, the browser tests).
STAMP := $(VENV)/requirements.stamp
DEV_STAMP := $(VENV)/requirements-dev.stamp

.PHONY: help setup setup-dev run test

help:
	@echo "make run   set up .venv, migrate, serve http://127.0.0.1:8000/"
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

run: setup
	$(PY) manage.py migrate --noinput
	$(PY) manage.py runserver 0.0.0.0:8000

test: setup-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	if [ -d games/engine ]; then $(VENV)/bin/mypy --strict games/engine; fi
	$(VENV)/bin/lint-imports
	$(VENV)/bin/pytest
