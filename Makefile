SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV := .venv
PY := $(VENV)/bin/python
# Touched after a successful install; requirements.txt newer than it means reinstall.
STAMP := $(VENV)/requirements.stamp

.PHONY: help setup run test

help:
	@echo "make run   set up .venv, migrate, serve http://127.0.0.1:8000/"
	@echo "make test  set up .venv, lint, type-check the engine, check the layers, run the tests"

$(PY):
	python3 -m venv $(VENV)

$(STAMP): requirements.txt | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

setup: $(STAMP)

run: setup
	$(PY) manage.py migrate --noinput
	$(PY) manage.py runserver 0.0.0.0:8000

test: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	if [ -d games/engine ]; then $(VENV)/bin/mypy --strict games/engine; fi
	$(VENV)/bin/lint-imports
	$(VENV)/bin/pytest
