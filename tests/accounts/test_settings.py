"""The cache and email settings follow the environment: memory and the console by default,
Redis and SMTP in production."""

from __future__ import annotations

import os

import pytest
from django.conf import settings
from django.core.cache import cache

from ludo_site import env


def test_cache_is_redis_when_redis_url_is_set() -> None:
    assert env.caches(None)["default"]["BACKEND"].endswith("LocMemCache")
    redis = env.caches("redis://cache:6379/2")["default"]
    assert redis["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    assert redis["LOCATION"] == "redis://cache:6379/2"
    backend = settings.CACHES["default"]["BACKEND"]
    assert backend.endswith("RedisCache" if os.environ.get("REDIS_URL") else "LocMemCache")


def test_the_cache_in_force_counts_atomically() -> None:
    key = f"test-counter-{os.getpid()}"
    cache.delete(key)
    assert cache.add(key, 1, timeout=5)
    assert not cache.add(key, 1, timeout=5)
    assert cache.incr(key) == 2
    cache.delete(key)


def test_email_is_the_console_unless_a_host_is_given() -> None:
    default = env.email({})
    assert default["EMAIL_BACKEND"] == "django.core.mail.backends.console.EmailBackend"
    smtp = env.email(
        {
            "EMAIL_HOST": "smtp.example.com",
            "EMAIL_PORT": "465",
            "EMAIL_USE_SSL": "1",
            "EMAIL_HOST_USER": "ludo",
            "EMAIL_HOST_PASSWORD": "secret",
            "DEFAULT_FROM_EMAIL": "Ludo <play@example.com>",
        }
    )
    assert smtp["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (smtp["EMAIL_HOST"], smtp["EMAIL_PORT"]) == ("smtp.example.com", 465)
    assert (smtp["EMAIL_USE_SSL"], smtp["EMAIL_USE_TLS"]) == (True, False)
    assert smtp["DEFAULT_FROM_EMAIL"] == smtp["SERVER_EMAIL"] == "Ludo <play@example.com>"
    chosen = env.email({"EMAIL_HOST": "x", "EMAIL_BACKEND": "my.Backend"})
    assert chosen["EMAIL_BACKEND"] == "my.Backend"


@pytest.mark.parametrize(
    ("environ", "says"),
    [
        ({"EMAIL_PORT": "smtp"}, "EMAIL_PORT"),
        ({"EMAIL_PORT": "70000"}, "EMAIL_PORT"),
        ({"EMAIL_USE_TLS": "1", "EMAIL_USE_SSL": "1"}, "cannot both"),
        ({"EMAIL_USE_TLS": "maybe"}, "yes/no"),
    ],
)
def test_email_settings_refuse_bad_values(environ: dict[str, str], says: str) -> None:
    with pytest.raises(ValueError, match=says):
        env.email(environ)


def test_settings_in_force() -> None:
    if not os.environ.get("EMAIL_HOST") and not os.environ.get("EMAIL_BACKEND"):
        # pytest-django swaps in the memory backend for tests; the configured one is kept.
        assert env.email(dict(os.environ))["EMAIL_BACKEND"].endswith("console.EmailBackend")
    assert settings.SIGN_IN_FAILURES_PER_USERNAME == 5
    assert settings.SIGN_IN_WINDOW == 15 * 60
    assert settings.LOGIN_URL == "login"
