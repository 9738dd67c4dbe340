"""Turn environment variables into settings values.

Each function takes the raw value (``None`` when the variable is unset) so that the
choice between the embedded defaults and production services can be tested without
touching ``os.environ``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dj_database_url

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off", ""})

# redis-py 8 defaults (socket_timeout=5, max_connections=100) break the core
# channels-redis layer: idle receives die with "Timeout reading" and load gives
# "Too many connections" (DESIGN.md, "Measured here").
REDIS_SOCKET_TIMEOUT = None
REDIS_MAX_CONNECTIONS = 1000


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


def parse_list(value: str | None, *, default: list[str]) -> list[str]:
    """Read a comma-separated list; unset means ``default``; blanks are dropped."""
    if value is None:
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def database(url: str | None, *, base_dir: Path) -> dict[str, Any]:
    """The default database: SQLite in the repo root when unset, else the URL's database."""
    if not url:
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": base_dir / "db.sqlite3",
        }
    # conn_max_age stays 0: under ASGI each request may run on another thread, and
    # Django's docs advise against persistent connections there.
    return dict(dj_database_url.parse(url, conn_max_age=0))


def channel_layers(redis_url: str | None) -> dict[str, Any]:
    """The channel layer: in-memory when no Redis is configured, else channels-redis."""
    if not redis_url:
        return {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    return {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {
                "hosts": [
                    {
                        "address": redis_url,
                        "socket_timeout": REDIS_SOCKET_TIMEOUT,
                        "max_connections": REDIS_MAX_CONNECTIONS,
                    }
                ],
            },
        }
    }


def celery_broker_url(redis_url: str | None) -> str:
    """Celery's broker: Redis when configured, else kombu's in-process memory transport."""
    return redis_url or "memory://"
