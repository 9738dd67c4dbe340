"""The settings actually in force match the environment this run was started with."""

import os

from django.conf import settings
from django.db import connection

from ludo_site import env
from ludo_site.celery import app as celery_app


def test_database_follows_database_url() -> None:
    if os.environ.get("DATABASE_URL"):
        assert connection.vendor == "postgresql"
        # psycopg's pool unless DB_POOL=0 (then a connection per request unless told).
        if env.parse_bool(os.environ.get("DB_POOL"), default=True):
            assert "pool" in settings.DATABASES["default"]["OPTIONS"]
            assert settings.DATABASES["default"]["CONN_MAX_AGE"] == 0
        else:
            age = os.environ.get("DB_CONN_MAX_AGE") or "0"
            assert settings.DATABASES["default"]["CONN_MAX_AGE"] == int(age)
    else:
        assert connection.vendor == "sqlite"
        # The repo's file, or the in-memory test database made from it once a database test
        # has run in this process (pytest-django swaps the name in place).
        name = settings.DATABASES["default"]["NAME"]
        assert name == settings.BASE_DIR / "db.sqlite3" or connection.creation.is_in_memory_db(name)


def test_channel_layer_follows_redis_url() -> None:
    backend = settings.CHANNEL_LAYERS["default"]["BACKEND"]
    if os.environ.get("REDIS_URL"):
        kind = os.environ.get("CHANNEL_LAYER") or "pubsub"
        assert (
            backend
            == {
                "pubsub": "ludo_site.layers.RedisPubSubChannelLayer",
                "core": "ludo_site.layers.RedisChannelLayer",
            }[kind.strip().lower()]
        )
    else:
        assert backend == "ludo_site.layers.InMemoryChannelLayer"


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


def test_gc_settings_follow_environment() -> None:
    assert settings.LUDO_GC_TUNE is env.parse_bool(os.environ.get("LUDO_GC_TUNE"), default=True)
    assert env.gc_thresholds(os.environ.get("LUDO_GC_THRESHOLDS")) == settings.LUDO_GC_THRESHOLDS


def test_tune_gc_freezes_and_raises_thresholds() -> None:
    import gc

    from ludo_site.asgi import tune_gc

    before = gc.get_threshold()
    try:
        assert tune_gc(enabled=False, thresholds=(1, 2, 3)) is False
        assert gc.get_threshold() == before
        gc.unfreeze()
        made_at_start_up = [object() for _ in range(100)]  # noqa: F841 - kept alive to freeze
        assert tune_gc(enabled=True, thresholds=(12_345, 20, 30)) is True
        assert gc.get_threshold() == (12_345, 20, 30)
        assert gc.get_freeze_count() > 100
        frozen = gc.get_freeze_count()
        assert tune_gc(enabled=True, thresholds=None) is True
        assert gc.get_threshold() == (12_345, 20, 30)  # None leaves them as they are
        assert gc.get_freeze_count() >= frozen
    finally:
        gc.set_threshold(*before)
