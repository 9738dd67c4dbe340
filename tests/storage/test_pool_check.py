"""A pooled connection is checked as it is taken without a round trip when it is fine, and
one the server ended is still caught (the pool then drops it and hands out another)."""

from __future__ import annotations

import psycopg
import pytest
from django.db import connection

from ludo_site.postgresql.base import check_ended

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="psycopg's pool is PostgreSQL's"),
    pytest.mark.django_db(transaction=True),
]


def _connect() -> psycopg.Connection:
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    return psycopg.connect(**params, autocommit=True)


def _last_query(pid: int) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", [pid])
        row = cursor.fetchone()
    return "" if row is None else row[0]


def test_a_healthy_connection_is_checked_without_a_query() -> None:
    conn = _connect()
    try:
        conn.execute("SELECT 'marker'")
        check_ended(conn)
        check_ended(conn)
        assert _last_query(conn.info.backend_pid) == "SELECT 'marker'"
        assert conn.execute("SELECT 1").fetchone() == (1,)
    finally:
        conn.close()


def test_a_connection_the_server_ended_fails_the_check() -> None:
    conn = _connect()
    pid = conn.info.backend_pid
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s, 5000)", [pid])
            assert cursor.fetchone() == (True,)  # (waited for the backend to exit)
        with pytest.raises(psycopg.OperationalError):
            check_ended(conn)
    finally:
        conn.close()


def test_the_sites_pool_uses_the_check() -> None:
    pool = connection.pool
    if pool is None:
        pytest.skip("DB_POOL=0")
    assert pool._check is check_ended
