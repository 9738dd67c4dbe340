"""Turn environment variables into settings values.

Each function takes the raw value (``None`` when the variable is unset) so that the
choice between the embedded defaults and production services can be tested without
touching ``os.environ``.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import dj_database_url

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off", ""})

# redis-py 8 defaults (socket_timeout=5, max_connections=100) break the core
# channels-redis layer: idle receives die with "Timeout reading" and load gives
# "Too many connections" (scripts/LOAD.md, "The floor: a bare Channels fan-out").
REDIS_SOCKET_TIMEOUT = None
REDIS_MAX_CONNECTIONS = 1000
# The core layer drops a message past this many waiting on one channel (its default is 100).
CORE_LAYER_CAPACITY = 1000
CHANNEL_LAYER_BACKENDS = {
    "pubsub": "ludo_site.layers.RedisPubSubChannelLayer",
    "core": "ludo_site.layers.RedisChannelLayer",
}
DEFAULT_CHANNEL_LAYER = "pubsub"
# channels' layers carrying plain data only (ludo_site.layers).
IN_MEMORY_LAYER = "ludo_site.layers.InMemoryChannelLayer"
# Seconds a PostgreSQL connection is kept for reuse (DB_CONN_MAX_AGE) when DB_POOL is off. 0:
# under ASGI every request runs on a thread of its own, and a connection kept past its request
# stays open until that dead thread is collected (40 requests left 40 connections, issue 12).
DB_CONN_MAX_AGE = 0
# psycopg_pool per process (DB_POOL, on by default on PostgreSQL): at most DB_POOL_MAX
# connections, whatever the number of request threads or socket threads asking; a thread that
# finds them all busy waits up to `timeout` seconds. DB_POOL_MIN stay open when idle.
DB_POOL_MIN = 2
DB_POOL_MAX = 10
DB_POOL_TIMEOUT = 10
# The PostgreSQL backend (Django's, with a cheaper check of a pooled connection).
POSTGRES_ENGINE = "ludo_site.postgresql"
# Runs of one statement on one connection before psycopg prepares it (server-binding cursors
# only): none, as the statements that take that road are the few run at every action.
PREPARE_THRESHOLD = 0
# A Celery worker process runs one task at a time: one connection, a second to spare.
WORKER_POOL_MIN = 1
WORKER_POOL_MAX = 2
# SQLite (the embedded default) serves the web requests, the match sockets' threads and the
# in-process clock at once: transactions take the write lock when they begin (IMMEDIATE), so a
# writer waits its turn (up to `timeout` seconds) instead of failing with "database is locked"
# when a read transaction tries to become a write; WAL lets readers go on meanwhile.
SQLITE_OPTIONS: dict[str, Any] = {
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
}
# Python's collector after start-up (ludo_site.asgi): a full pass over a busy server's objects
# froze it for a noticeable pause with thousands of sockets (scripts/LOAD.md, "The floor: a
# bare Channels fan-out"). Python's own is 700,10,10.
DEFAULT_GC_THRESHOLDS = (50_000, 50, 100)


def parse_bool(value: str | None, *, default: bool) -> bool:
    """Read a yes/no variable; unset means ``default``, anything unrecognised is an error."""
    if value is None:
        return default
    word = value.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValueError(f"expected a yes/no value such as 1/0 or true/false, got {value!r}")


def parse_int(value: str | None, *, default: int, minimum: int, name: str) -> int:
    """Read a whole number; unset or empty means ``default``."""
    if value is None or not value.strip():
        return default
    try:
        number = int(value.strip())
    except ValueError:
        raise ValueError(f"{name} must be a whole number, got {value!r}") from None
    if number < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {number}")
    return number


def parse_list(value: str | None, *, default: list[str]) -> list[str]:
    """Read a comma-separated list; unset means ``default``; blanks are dropped."""
    if value is None:
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def parse_networks(value: str | None) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """``METRICS_ALLOW``: addresses or networks, comma-separated ("10.0.0.0/8,::1")."""
    networks = []
    for item in parse_list(value, default=[]):
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError as e:
            raise ValueError(f"METRICS_ALLOW: {item!r} is not an address or network") from e
    return networks


def database(
    url: str | None,
    *,
    base_dir: Path,
    conn_max_age: str | None = None,
    pool: str | None = None,
    health_checks: str | None = None,
    pool_min: str | None = None,
    pool_max: str | None = None,
) -> dict[str, Any]:
    """The default database: SQLite in the repo root when unset, else the URL's database.

    On PostgreSQL, psycopg's connection pool (Django's ``OPTIONS["pool"]``; ``pool``,
    ``DB_POOL``, on by default): a request or socket action takes a connection and gives it
    back when Django closes it, so one process never holds more than ``pool_max``
    (``DB_POOL_MAX``) however many threads ask, and a new connection (~9 ms here, more than a
    whole roll) is rarely paid. A connection the database dropped is checked and replaced by
    the pool as it is taken (``health_checks``, ``DB_HEALTH_CHECKS``, on; a poll of its
    socket, a query only when the poll finds something to read). ``DB_POOL=0``
    opens a connection per request or socket action instead (``conn_max_age``,
    ``DB_CONN_MAX_AGE``, default 0; more keeps it, which under ASGI leaks one per request
    thread until the thread is collected; ``health_checks`` then checks a kept one before
    each use).
    """
    if not url:
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": base_dir / "db.sqlite3",
            "OPTIONS": dict(SQLITE_OPTIONS),
        }
    config = dict(dj_database_url.parse(url, conn_max_age=0))
    if config["ENGINE"].endswith("sqlite3"):
        config["OPTIONS"] = {**config.get("OPTIONS", {}), **SQLITE_OPTIONS}
    postgres = config["ENGINE"].endswith("postgresql")
    if postgres:
        # Django's backend, with a pooled connection checked without a round trip
        # (ludo_site.postgresql.base); and psycopg prepares a statement sent through a
        # server-binding cursor from its second run on a connection (the live edge's hot
        # statements, games.services.fenced): PostgreSQL then parses and plans it once. The
        # ORM's own cursors bind on the client and are never prepared.
        config["ENGINE"] = POSTGRES_ENGINE
        config["OPTIONS"] = {**config.get("OPTIONS", {}), "prepare_threshold": PREPARE_THRESHOLD}
    if parse_bool(pool, default=postgres):
        if not postgres:
            raise ValueError("DB_POOL works with PostgreSQL only")
        if parse_int(conn_max_age, default=0, minimum=0, name="DB_CONN_MAX_AGE"):
            raise ValueError("DB_CONN_MAX_AGE must be 0 with DB_POOL on (the pool keeps them)")
        most = parse_int(pool_max, default=DB_POOL_MAX, minimum=1, name="DB_POOL_MAX")
        least = parse_int(pool_min, default=min(DB_POOL_MIN, most), minimum=0, name="DB_POOL_MIN")
        if least > most:
            raise ValueError(f"DB_POOL_MIN ({least}) is more than DB_POOL_MAX ({most})")
        options = {"min_size": least, "max_size": most, "timeout": DB_POOL_TIMEOUT}
        config["OPTIONS"] = {**config.get("OPTIONS", {}), "pool": options}
        # With a pool, a connection is checked as it is taken: one the server ended
        # (restart, pg_terminate_backend) is replaced instead of failing the request. The
        # check polls its socket and queries only one with something to read
        # (ludo_site.postgresql.base). DB_HEALTH_CHECKS=0 skips it.
        config["CONN_HEALTH_CHECKS"] = parse_bool(health_checks, default=True)
        return config
    age = parse_int(conn_max_age, default=DB_CONN_MAX_AGE, minimum=0, name="DB_CONN_MAX_AGE")
    config["CONN_MAX_AGE"] = age
    config["CONN_HEALTH_CHECKS"] = age > 0 and parse_bool(health_checks, default=False)
    return config


def size_pool_for_worker(config: dict[str, Any]) -> None:
    """Shrink the database pool of `config` (a ``DATABASES`` entry) for a Celery worker
    process, before its pool is made; a pool made bigger by DB_POOL_MAX stays no bigger than
    asked. No pool (SQLite, DB_POOL=0): nothing to do."""
    pool = config.get("OPTIONS", {}).get("pool")
    if not isinstance(pool, dict):
        return
    pool["max_size"] = min(int(pool.get("max_size", WORKER_POOL_MAX)), WORKER_POOL_MAX)
    pool["min_size"] = min(int(pool.get("min_size", WORKER_POOL_MIN)), WORKER_POOL_MIN)


def redis_prefix(value: str | None, database_name: Any) -> str:
    """The prefix of everything this site puts in Redis (``REDIS_PREFIX``): the channel
    layer's channels and groups, the cache, the socket counts, Celery's queues. Unset, it is
    ``ludo.`` and the database's name: two sites (or a staging copy) on one Redis then keep
    apart, as Redis pub/sub ignores the database number of the URL."""
    if value is not None and value.strip():
        prefix = value.strip()
    else:
        name = Path(str(database_name)).stem if database_name else "default"
        prefix = f"ludo.{name}"
    if not re.fullmatch(r"[A-Za-z0-9_.\-]{1,64}", prefix):
        raise ValueError(
            f"REDIS_PREFIX takes 1-64 letters, digits, '.', '_' or '-', got {prefix!r}"
        )
    return prefix


def channel_layers(
    redis_url: str | None, kind: str | None = None, prefix: str = "ludo"
) -> dict[str, Any]:
    """The channel layer: in-memory when no Redis is configured, else channels-redis.

    ``kind`` (``CHANNEL_LAYER``): ``pubsub`` (the default) is channels-redis'
    RedisPubSubChannelLayer, which measured best here and drops nothing at the load the core
    layer drops at; ``core`` is RedisChannelLayer with a larger per-channel capacity than its
    100 (past which it drops messages, logged at INFO only). Both get the redis-py 8 fixes,
    and `prefix` (`redis_prefix`) before their channel and group names. Every layer is the
    site's subclass in `ludo_site.layers`, which sends plain data only.
    """
    if not redis_url:
        return {"default": {"BACKEND": IN_MEMORY_LAYER}}
    kind = (kind or DEFAULT_CHANNEL_LAYER).strip().lower()
    if kind not in CHANNEL_LAYER_BACKENDS:
        raise ValueError(
            f"CHANNEL_LAYER must be one of {', '.join(sorted(CHANNEL_LAYER_BACKENDS))}, "
            f"got {kind!r}"
        )
    host = {
        "address": redis_url,
        "socket_timeout": REDIS_SOCKET_TIMEOUT,
        "max_connections": REDIS_MAX_CONNECTIONS,
    }
    config: dict[str, Any] = {"hosts": [host], "prefix": f"{prefix}:asgi"}
    if kind == "core":
        config["capacity"] = CORE_LAYER_CAPACITY
    return {"default": {"BACKEND": CHANNEL_LAYER_BACKENDS[kind], "CONFIG": config}}


def gc_thresholds(value: str | None) -> tuple[int, int, int] | None:
    """``LUDO_GC_THRESHOLDS`` as three numbers for `gc.set_threshold` ("50000,50,100"); unset
    means `DEFAULT_GC_THRESHOLDS`, empty means Python's own (700,10,10)."""
    if value is None:
        return DEFAULT_GC_THRESHOLDS
    if not value.strip():
        return None
    parts = [p.strip() for p in value.split(",")]
    try:
        numbers = tuple(int(p) for p in parts)
    except ValueError:
        numbers = ()
    if len(numbers) != 3 or min(numbers) < 0:
        raise ValueError(
            f"LUDO_GC_THRESHOLDS takes three whole numbers >= 0 such as 50000,50,100, got {value!r}"
        )
    return numbers  # type: ignore[return-value]


def celery_broker_url(redis_url: str | None) -> str:
    """Celery's broker: Redis when configured, else kombu's in-process memory transport."""
    return redis_url or "memory://"


def celery_transport_options(redis_url: str | None, prefix: str) -> dict[str, Any]:
    """Celery's broker options: on Redis every key and pub/sub channel it uses starts with
    `prefix`, so two sites on one Redis never take each other's tasks."""
    if not redis_url:
        return {}
    return {"global_keyprefix": f"{prefix}:celery:"}


def caches(redis_url: str | None, prefix: str = "ludo") -> dict[str, Any]:
    """Django's cache: per-process memory when no Redis is configured, else Redis (Django's own
    RedisCache), so that what it counts (sign-in attempts) holds across server processes."""
    if not redis_url:
        return {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    return {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_url,
            "KEY_PREFIX": prefix,
        }
    }


CONSOLE_EMAIL = "django.core.mail.backends.console.EmailBackend"
SMTP_EMAIL = "django.core.mail.backends.smtp.EmailBackend"


def email(environ: Mapping[str, str]) -> dict[str, Any]:
    """Email settings from ``EMAIL_*`` variables: Django's console backend (emails printed on
    the server's output) unless ``EMAIL_HOST`` names an SMTP server; ``EMAIL_BACKEND``
    overrides the choice. ``EMAIL_PORT`` (587), ``EMAIL_HOST_USER``, ``EMAIL_HOST_PASSWORD``,
    ``EMAIL_USE_TLS`` (on) or ``EMAIL_USE_SSL``, ``DEFAULT_FROM_EMAIL``."""
    host = (environ.get("EMAIL_HOST") or "").strip()
    port_text = (environ.get("EMAIL_PORT") or "").strip() or "587"
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ValueError(f"EMAIL_PORT must be a port number, got {port_text!r}")
    use_ssl = parse_bool(environ.get("EMAIL_USE_SSL"), default=False)
    use_tls = parse_bool(environ.get("EMAIL_USE_TLS"), default=not use_ssl)
    if use_ssl and use_tls:
        raise ValueError("EMAIL_USE_TLS and EMAIL_USE_SSL cannot both be on")
    sender = environ.get("DEFAULT_FROM_EMAIL") or "Ludo Online <noreply@localhost>"
    return {
        "EMAIL_BACKEND": environ.get("EMAIL_BACKEND") or (SMTP_EMAIL if host else CONSOLE_EMAIL),
        "EMAIL_HOST": host or "localhost",
        "EMAIL_PORT": int(port_text),
        "EMAIL_HOST_USER": environ.get("EMAIL_HOST_USER", ""),
        "EMAIL_HOST_PASSWORD": environ.get("EMAIL_HOST_PASSWORD", ""),
        "EMAIL_USE_TLS": use_tls,
        "EMAIL_USE_SSL": use_ssl,
        "EMAIL_TIMEOUT": 10,
        "DEFAULT_FROM_EMAIL": sender,
        "SERVER_EMAIL": sender,
    }
