"""The env -> settings choices: embedded defaults when unset, production services when set."""

from pathlib import Path

import pytest
from channels_redis.utils import create_pool

from ludo_site import env


@pytest.mark.parametrize("raw", ["1", "true", "True", "YES", "on", " 1 "])
def test_parse_bool_true(raw: str) -> None:
    assert env.parse_bool(raw, default=False) is True


@pytest.mark.parametrize("raw", ["0", "false", "No", "off", ""])
def test_parse_bool_false(raw: str) -> None:
    assert env.parse_bool(raw, default=True) is False


def test_parse_bool_unset_uses_default() -> None:
    assert env.parse_bool(None, default=True) is True
    assert env.parse_bool(None, default=False) is False


def test_parse_bool_rejects_unknown_words() -> None:
    with pytest.raises(ValueError, match="yes/no"):
        env.parse_bool("maybe", default=False)


def test_parse_list() -> None:
    assert env.parse_list(None, default=["localhost"]) == ["localhost"]
    assert env.parse_list("a.example, b.example,,", default=[]) == ["a.example", "b.example"]
    assert env.parse_list("", default=["localhost"]) == []


def test_database_unset_is_sqlite_in_repo_root(tmp_path: Path) -> None:
    for unset in (None, ""):
        config = env.database(unset, base_dir=tmp_path)
        assert config["ENGINE"] == "django.db.backends.sqlite3"
        assert config["NAME"] == tmp_path / "db.sqlite3"


def test_database_url_is_postgres() -> None:
    config = env.database("postgres://ludo:secret@db.internal:6543/ludo", base_dir=Path("/x"))
    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert config["NAME"] == "ludo"
    assert config["USER"] == "ludo"
    assert config["PASSWORD"] == "secret"
    assert config["HOST"] == "db.internal"
    assert config["PORT"] == 6543
    assert config["CONN_MAX_AGE"] == 0


def test_postgres_driver_is_psycopg3() -> None:
    from django.db.backends.postgresql.psycopg_any import is_psycopg3

    assert is_psycopg3


def test_channel_layer_unset_is_in_memory() -> None:
    for unset in (None, ""):
        assert env.channel_layers(unset) == {
            "default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}
        }


def test_channel_layer_redis_url_is_channels_redis() -> None:
    layers = env.channel_layers("redis://cache.internal:6380/2")
    default = layers["default"]
    assert default["BACKEND"] == "channels_redis.core.RedisChannelLayer"
    assert default["CONFIG"]["hosts"] == [
        {
            "address": "redis://cache.internal:6380/2",
            "socket_timeout": None,
            "max_connections": 1000,
        }
    ]


def test_redis_host_config_overrides_redis_py_defaults() -> None:
    """channels-redis hands the host dict to redis-py; our values must survive into the pool."""
    host = env.channel_layers("redis://cache.internal:6380/2")["default"]["CONFIG"]["hosts"][0]
    pool = create_pool(host)
    assert pool.max_connections == 1000
    assert pool.connection_kwargs["socket_timeout"] is None
    assert pool.connection_kwargs["host"] == "cache.internal"
    assert pool.connection_kwargs["port"] == 6380
    assert pool.connection_kwargs["db"] == 2


def test_celery_broker() -> None:
    assert env.celery_broker_url(None) == "memory://"
    assert env.celery_broker_url("") == "memory://"
    assert env.celery_broker_url("redis://r:6379/0") == "redis://r:6379/0"
