"""What an operator sees of the site (issue 28): health and readiness (`views`, `health`),
Prometheus metrics from every process (`metrics`, read at scrape time by `scrape`), logs with
request ids (`logs`, `middleware`, `sockets`), error reports (`sentry`) and the Celery
signals that feed them (`celery_signals`).

`metrics` and `logs` sit at the bottom of the layers (`.importlinter`): the services and the
sockets may call them; they import nothing of the site.
"""
