"""Log lines an operator can follow: ``LOG_FORMAT=json`` gives one JSON object a line, with the
request id of the HTTP request or socket it happened in (and the room code for a socket).

The ids live in context variables, set by `ops.middleware` (HTTP) and `ops.sockets`
(WebSockets); asgiref copies the context into the threads that run a request's sync code, so
a line logged anywhere below carries them. Low in the layers: nothing of the site here.
"""

from __future__ import annotations

import contextvars
import datetime
import json
import logging
import os
import re
import uuid

request_id: contextvars.ContextVar[str] = contextvars.ContextVar("ludo_request_id", default="")
room: contextvars.ContextVar[str] = contextvars.ContextVar("ludo_room", default="")

# A request id a proxy in front sent (X-Request-ID) is kept when it looks like one.
_GOOD_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
# A credential in an address: the match socket's ticket, a token, a session or CSRF value.
_SECRET_PARAM = re.compile(
    r"((?:ticket|token|session\w*|csrf\w*|password\w*|email)=)[^&\s\"'#]+", re.IGNORECASE
)
REDACTED = "[redacted]"


def redact(text: str) -> str:
    """`text` with the value of every credential in a query string blanked."""
    return _SECRET_PARAM.sub(rf"\g<1>{REDACTED}", text)


def new_id(given: str | None = None) -> str:
    """The id a request goes by: the one it came with if it is sane, else a fresh one."""
    if given and _GOOD_ID.match(given):
        return given
    return uuid.uuid4().hex


class ContextFilter(logging.Filter):
    """Puts the current request id and room code on every record (also for the plain format)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get()
        record.room = room.get()
        return True


class Redact(logging.Filter):
    """Blanks credentials in a line before it is written: uvicorn logs each socket's address,
    and a match socket's carries its ticket, which opens the seat to whoever reads it."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and not record.exc_text:
            # The traceback as the formatters would write it, credentials blanked there too.
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        return True


PLAIN = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def site_formatter() -> logging.Formatter:
    """The formatter ``LOG_FORMAT`` names, read from the environment: for uvicorn's own
    processes, which log before (or without) the site's settings (ops/uvicorn_logging.json)."""
    if (os.environ.get("LOG_FORMAT") or "plain").strip().lower() == "json":
        return JsonFormatter()
    return logging.Formatter(PLAIN)


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC, ISO 8601), level, logger, message, request_id, room
    (when known) and the traceback as text (exc)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.datetime.fromtimestamp(record.created, datetime.UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        rid = getattr(record, "request_id", "") or request_id.get()
        code = getattr(record, "room", "") or room.get()
        if rid:
            line["request_id"] = rid
        if code:
            line["room"] = code
        if record.exc_text:
            line["exc"] = record.exc_text
        elif record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def logging_config(log_format: str) -> dict[str, object]:
    """Django's LOGGING for ``LOG_FORMAT`` (``plain`` or ``json``).

    The audit chain's hourly anchor (audit.tasks.log_head) goes to standard error whatever
    level the Celery worker logs at: the logs are where it is kept apart from the database.
    Errors go to standard error whatever DEBUG says: a 500 is "Internal Server Error: <path>"
    with its traceback (django.request), a dependency down is "Unavailable (...): <path>"
    (ludo.requests); django.request's 4xx warnings ("Not Found") are left out. ``ludo.ops``
    says when the site is not ready (and what is down), ``ludo.sockets`` when a socket closes.
    uvicorn's loggers write through the same handler. Every line goes through `Redact`.
    """
    formatter: dict[str, object] = (
        {"()": "ops.logs.JsonFormatter"} if log_format == "json" else {"format": PLAIN}
    )
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "context": {"()": "ops.logs.ContextFilter"},
            "redact": {"()": "ops.logs.Redact"},
        },
        "formatters": {"site": formatter},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "formatter": "site",
                "filters": ["context", "redact"],
            }
        },
        "root": {"handlers": ["stderr"], "level": "WARNING"},
        "loggers": {
            "django.request": {"handlers": ["stderr"], "level": "ERROR", "propagate": False},
            "ludo.audit.anchor": {"handlers": ["stderr"], "level": "INFO", "propagate": False},
            "ludo.ops": {"handlers": ["stderr"], "level": "INFO", "propagate": False},
            "ludo.sockets": {"handlers": ["stderr"], "level": "INFO", "propagate": False},
            # uvicorn's own lines in the site's format (its worker processes configure logging
            # before they load the site; the parent process by ops/uvicorn_logging.json).
            # uvicorn.access is left as uvicorn set it (off with --no-access-log): naming its
            # parent ``uvicorn`` here would reset it to propagate.
            "uvicorn.error": {"handlers": ["stderr"], "level": "INFO", "propagate": False},
        },
    }
