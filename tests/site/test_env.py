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
    # Django's backend with a pooled connection checked without a round trip.
    assert config["ENGINE"] == "ludo_site.postgresql"
    assert config["OPTIONS"]["prepare_threshold"] == 0
    assert config["NAME"] == "ludo"
    assert config["USER"] == "ludo"
    assert config["PASSWORD"] == "secret"
    assert config["HOST"] == "db.internal"
    assert config["PORT"] == 6543
    # psycopg's pool by default: a bounded number of connections per process, none kept by a
    # request thread (Django refuses a pool together with persistent connections).
    pool = config["OPTIONS"]["pool"]
    assert (pool["min_size"], pool["max_size"], pool["timeout"]) == (2, 10, 10)
    assert config["CONN_MAX_AGE"] == 0
    # The pool then checks a connection as it is taken (one the server ended is replaced).
    assert config["CONN_HEALTH_CHECKS"] is True
    assert (
        env.database("postgres://ludo@db/ludo", base_dir=Path("/x"), health_checks="0")[
            "CONN_HEALTH_CHECKS"
        ]
        is False
    )


def test_database_pool_size_from_env() -> None:
    url = "postgres://ludo@db/ludo"
    pool = env.database(url, base_dir=Path("/x"), pool_min="0", pool_max="4")["OPTIONS"]["pool"]
    assert (pool["min_size"], pool["max_size"]) == (0, 4)
    # A maximum below the default minimum lowers the minimum with it.
    pool = env.database(url, base_dir=Path("/x"), pool_max="1")["OPTIONS"]["pool"]
    assert (pool["min_size"], pool["max_size"]) == (1, 1)
    with pytest.raises(ValueError, match="DB_POOL_MIN"):
        env.database(url, base_dir=Path("/x"), pool_min="5", pool_max="4")
    with pytest.raises(ValueError, match="DB_POOL_MAX"):
        env.database(url, base_dir=Path("/x"), pool_max="0")
    with pytest.raises(ValueError, match="DB_CONN_MAX_AGE"):
        env.database(url, base_dir=Path("/x"), conn_max_age="600")


def test_database_without_pool_closes_connections_by_default() -> None:
    url = "postgres://ludo@db/ludo"
    config = env.database(url, base_dir=Path("/x"), pool="0")
    assert "pool" not in config.get("OPTIONS", {})
    assert (config["CONN_MAX_AGE"], config["CONN_HEALTH_CHECKS"]) == (0, False)
    config = env.database(url, base_dir=Path("/x"), pool="0", conn_max_age="30")
    assert (config["CONN_MAX_AGE"], config["CONN_HEALTH_CHECKS"]) == (30, False)
    config = env.database(url, base_dir=Path("/x"), pool="0", conn_max_age="30", health_checks="1")
    assert (config["CONN_MAX_AGE"], config["CONN_HEALTH_CHECKS"]) == (30, True)
    # A connection closed after every use has nothing to check.
    config = env.database(url, base_dir=Path("/x"), pool="0", conn_max_age="0", health_checks="1")
    assert (config["CONN_MAX_AGE"], config["CONN_HEALTH_CHECKS"]) == (0, False)
    for bad in ("soon", "-1", "1.5"):
        with pytest.raises(ValueError, match="DB_CONN_MAX_AGE"):
            env.database(url, base_dir=Path("/x"), pool="0", conn_max_age=bad)
    with pytest.raises(ValueError, match="PostgreSQL only"):
        env.database("mysql://ludo@db/ludo", base_dir=Path("/x"), pool="1")


def test_database_pool_option_is_accepted_by_django() -> None:
    """Django builds its psycopg pool from the option (psycopg_pool is installed)."""
    from django.db.backends.postgresql.base import DatabaseWrapper

    config = env.database("postgres://ludo@127.0.0.1:1/ludo", base_dir=Path("/x"))
    wrapper = DatabaseWrapper({**config, "TIME_ZONE": None, "AUTOCOMMIT": True}, alias="probe")
    pool = wrapper.pool
    try:
        assert (pool.min_size, pool.max_size, pool.timeout) == (2, 10, 10)
        assert pool._check is not None
    finally:
        wrapper.close_pool()


def test_celery_worker_pool_is_small() -> None:
    config = env.database("postgres://ludo@db/ludo", base_dir=Path("/x"), pool_max="30")
    env.size_pool_for_worker(config)
    pool = config["OPTIONS"]["pool"]
    assert (pool["min_size"], pool["max_size"]) == (env.WORKER_POOL_MIN, env.WORKER_POOL_MAX)
    no_pool = env.database("postgres://ludo@db/ludo", base_dir=Path("/x"), pool="0")
    env.size_pool_for_worker(no_pool)
    assert "pool" not in no_pool.get("OPTIONS", {})


def test_sqlite_ignores_connection_reuse_settings(tmp_path: Path) -> None:
    config = env.database(None, base_dir=tmp_path, conn_max_age="30", pool="1")
    assert config == {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": tmp_path / "db.sqlite3",
        "OPTIONS": env.SQLITE_OPTIONS,
    }


def test_sqlite_writers_wait_their_turn(tmp_path: Path) -> None:
    """The embedded default serves requests, sockets and the clock at once: transactions
    take the write lock up front (and wait for it) and the journal is WAL, both for the
    default file and for a sqlite:// URL."""
    for config in (
        env.database(None, base_dir=tmp_path),
        env.database(f"sqlite:///{tmp_path}/other.sqlite3", base_dir=tmp_path),
    ):
        options = config["OPTIONS"]
        assert options["transaction_mode"] == "IMMEDIATE"
        assert options["timeout"] >= 10
        assert "journal_mode=WAL" in options["init_command"]


def test_postgres_driver_is_psycopg3() -> None:
    from django.db.backends.postgresql.psycopg_any import is_psycopg3

    assert is_psycopg3


def test_channel_layer_unset_is_in_memory() -> None:
    for unset in (None, ""):
        assert env.channel_layers(unset) == {
            "default": {"BACKEND": "ludo_site.layers.InMemoryChannelLayer"}
        }


HOST = {"address": "redis://cache.internal:6380/2", "socket_timeout": None, "max_connections": 1000}


def test_channel_layer_redis_url_defaults_to_pubsub() -> None:
    default = env.channel_layers("redis://cache.internal:6380/2")["default"]
    assert default == {
        "BACKEND": "ludo_site.layers.RedisPubSubChannelLayer",
        "CONFIG": {"hosts": [HOST], "prefix": "ludo:asgi"},
    }
    assert env.channel_layers("redis://cache.internal:6380/2", "") == {"default": default}


def test_channel_layer_pubsub_or_core_by_name() -> None:
    url = "redis://cache.internal:6380/2"
    assert env.channel_layers(url, "PubSub ")["default"]["BACKEND"].endswith(
        "RedisPubSubChannelLayer"
    )
    core = env.channel_layers(url, "core")["default"]
    assert core["BACKEND"] == "ludo_site.layers.RedisChannelLayer"
    # The core layer drops a message past its capacity (100 by default) on one channel.
    assert core["CONFIG"] == {"hosts": [HOST], "capacity": 1000, "prefix": "ludo:asgi"}
    with pytest.raises(ValueError, match="CHANNEL_LAYER must be one of core, pubsub"):
        env.channel_layers(url, "memory")
    # No Redis: in-memory whatever the choice.
    assert env.channel_layers(None, "core")["default"]["BACKEND"].endswith("InMemoryChannelLayer")


@pytest.mark.parametrize("kind", ["pubsub", "core"])
def test_redis_host_config_overrides_redis_py_defaults(kind: str) -> None:
    """channels-redis hands the host dict to redis-py; our values must survive into the pool."""
    host = env.channel_layers("redis://cache.internal:6380/2", kind)["default"]["CONFIG"]["hosts"][
        0
    ]
    pool = create_pool(host)
    assert pool.max_connections == 1000
    assert pool.connection_kwargs["socket_timeout"] is None
    assert pool.connection_kwargs["host"] == "cache.internal"
    assert pool.connection_kwargs["port"] == 6380
    assert pool.connection_kwargs["db"] == 2


def test_core_layer_takes_our_capacity() -> None:
    from channels_redis.core import RedisChannelLayer

    config = env.channel_layers("redis://cache.internal:6380/2", "core")["default"]["CONFIG"]
    assert RedisChannelLayer(**config).capacity == 1000


def test_redis_prefix_from_setting_or_database_name(tmp_path: Path) -> None:
    assert env.redis_prefix(None, "ludo") == "ludo.ludo"
    assert env.redis_prefix("", "ludo_staging") == "ludo.ludo_staging"
    assert env.redis_prefix(None, tmp_path / "db.sqlite3") == "ludo.db"
    assert env.redis_prefix(" site-2 ", "ludo") == "site-2"
    for bad in ("two words", "a:b", "x" * 65, "{braces}"):
        with pytest.raises(ValueError, match="REDIS_PREFIX"):
            env.redis_prefix(bad, "ludo")
    layer = env.channel_layers("redis://r:6379/0", "core", "site-2")["default"]["CONFIG"]
    assert layer["prefix"] == "site-2:asgi"
    assert env.caches("redis://r:6379/0", "site-2")["default"]["KEY_PREFIX"] == "site-2"
    options = env.celery_transport_options("redis://r:6379/0", "site-2")
    assert options == {"global_keyprefix": "site-2:celery:"}
    assert env.celery_transport_options(None, "site-2") == {}


def test_gc_thresholds() -> None:
    assert env.gc_thresholds(None) == env.DEFAULT_GC_THRESHOLDS == (50_000, 50, 100)
    assert env.gc_thresholds("") is None
    assert env.gc_thresholds(" 2000, 20 ,30") == (2000, 20, 30)
    for bad in ("1,2", "a,b,c", "1,2,3,4", "1,-2,3"):
        with pytest.raises(ValueError, match="LUDO_GC_THRESHOLDS"):
            env.gc_thresholds(bad)


def test_celery_broker() -> None:
    assert env.celery_broker_url(None) == "memory://"
    assert env.celery_broker_url("") == "memory://"
    assert env.celery_broker_url("redis://r:6379/0") == "redis://r:6379/0"
