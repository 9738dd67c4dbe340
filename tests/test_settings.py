"""The settings actually in force match the environment this run was started with."""

import os

from django.conf import settings
from django.db import connection

from ludo_site.celery import app as celery_app


def test_database_follows_database_url() -> None:
    if os.environ.get("DATABASE_URL"):
        assert connection.vendor == "postgresql"
    else:
        assert connection.vendor == "sqlite"
        assert settings.DATABASES["default"]["NAME"] == settings.BASE_DIR / "db.sqlite3"


def test_channel_layer_follows_redis_url() -> None:
    backend = settings.CHANNEL_LAYERS["default"]["BACKEND"]
    if os.environ.get("REDIS_URL"):
        assert backend == "channels_redis.core.RedisChannelLayer"
    else:
        assert backend == "channels.layers.InMemoryChannelLayer"


def test_celery_broker_follows_redis_url() -> None:
    redis_url = os.environ.get("REDIS_URL")
    broker = redis_url if redis_url else "memory://"
    configured = settings.CELERY_BROKER_URL
    assert configured == broker
    assert celery_app.conf.broker_url == broker
    assert celery_app.main == "ludo_site"
    assert not celery_app.conf.task_always_eager


def test_core_settings() -> None:
    assert settings.INSTALLED_APPS[0] == "daphne"
    for app in ("channels", "games", "accounts", "audit"):
        assert app in settings.INSTALLED_APPS
    assert settings.ASGI_APPLICATION == "ludo_site.asgi.application"
    assert settings.TIME_ZONE == "UTC"
    assert settings.USE_TZ is True
    assert not hasattr(settings, "CELERY_TASK_ALWAYS_EAGER")
