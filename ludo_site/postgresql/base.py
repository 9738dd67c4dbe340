"""Django's PostgreSQL backend, with one change: a connection taken from psycopg's pool is
checked without a round trip (`check_ended`) instead of with an empty query each time.

Django's own check (``CONN_HEALTH_CHECKS`` with a pool) sends a query at every checkout:
one more round trip for every request, socket action and clock step. A backend the server
ended (a restart, ``pg_terminate_backend``, an idle timeout) tells its client so and closes
its socket, which makes the socket readable while it sits idle in the pool; a healthy idle
connection has nothing to read. So the socket is polled (no wait), and only a readable one
gets the full check, which fails for an ended connection: the pool then drops it and hands
out another, as before.
"""

from __future__ import annotations

import select
from typing import Any

import psycopg
from django.db.backends.postgresql import base
from psycopg_pool import ConnectionPool

__all__ = ["DatabaseWrapper", "check_ended"]


def check_ended(conn: psycopg.Connection[Any]) -> None:
    """Raise if the pooled connection `conn` is no longer usable; a query only when its
    socket has something to read (a healthy idle connection has not)."""
    if conn.closed:
        raise psycopg.OperationalError("the connection is closed")
    poll = select.poll()  # not select(): a busy server's descriptors pass FD_SETSIZE
    poll.register(conn.fileno(), select.POLLIN | select.POLLERR | select.POLLHUP)
    if poll.poll(0):
        ConnectionPool.check_connection(conn)


class DatabaseWrapper(base.DatabaseWrapper):
    @property
    def pool(self) -> Any:
        pool = super().pool
        # Django made the pool with its own check when CONN_HEALTH_CHECKS is on; this
        # backend's is the same check without the round trip for a connection that is fine.
        if pool is not None and pool._check is ConnectionPool.check_connection:
            pool._check = check_ended
        return pool
