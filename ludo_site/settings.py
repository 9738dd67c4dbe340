"""Django settings for the Ludo site.

12-factor: every value that differs between a laptop and production comes from an
environment variable, with a default that makes a fresh clone run on its own
(SQLite, the in-memory channel layer, Celery's in-memory broker).
"""

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from ops import sentry
from ops.logs import logging_config

from . import env

BASE_DIR = Path(__file__).resolve().parent.parent

DEV_SECRET_KEY = "dev-only-insecure-secret-key-do-not-use-in-production"

DEBUG = env.parse_bool(os.environ.get("DEBUG"), default=True)
SECRET_KEY = os.environ.get("SECRET_KEY") or DEV_SECRET_KEY
if not DEBUG and SECRET_KEY == DEV_SECRET_KEY:
    raise ImproperlyConfigured("Set SECRET_KEY when DEBUG is off.")

ALLOWED_HOSTS = env.parse_list(
    os.environ.get("ALLOWED_HOSTS"), default=["localhost", "127.0.0.1", "[::1]"]
)
CSRF_TRUSTED_ORIGINS = env.parse_list(os.environ.get("CSRF_TRUSTED_ORIGINS"), default=[])
# A form refused by the CSRF check: the site's page in the reader's language (issue 29).
CSRF_FAILURE_VIEW = "ludo_site.errors.csrf_failure"

# HTTPS=1 (production behind TLS): plain HTTP redirected to HTTPS, cookies sent over HTTPS
# only, and HSTS for HSTS_SECONDS (a year; 0 leaves it off, e.g. while trying HTTPS out) with
# includeSubDomains and preload (HSTS_INCLUDE_SUBDOMAINS=0, HSTS_PRELOAD=0 leave them out).
# `manage.py check --deploy` is clean with it (README, "Production").
HTTPS = env.parse_bool(os.environ.get("HTTPS"), default=False)
SECURE_SSL_REDIRECT = HTTPS
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = int(os.environ.get("HSTS_SECONDS") or 365 * 24 * 3600) if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS and env.parse_bool(
    os.environ.get("HSTS_INCLUDE_SUBDOMAINS"), default=True
)
SECURE_HSTS_PRELOAD = HTTPS and env.parse_bool(os.environ.get("HSTS_PRELOAD"), default=True)

INSTALLED_APPS = [
    # daphne first: its runserver replaces Django's, serving the ASGI app.
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "accounts",
    "games",
    "audit",
    "ranked",
    "disputes",
    "fairplay",
    "tournaments",
]

MIDDLEWARE = [
    # First: a request id on every log line, responses counted by code, the CSP header, an API
    # body over the API's limit refused with its JSON `too_large` (ops.middleware).
    "ops.middleware.OpsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Static files from STATIC_ROOT (after collectstatic) with no web server in front; the
    # views are synchronous anyway, so its sync-only middleware adds no thread hop.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # A NUL or an unencodable character in a path or field: a coded 400, not a database error.
    "ludo_site.middleware.BadInputMiddleware",
    # The database or Redis down: a 503 that says so (logged with the path), not a 500.
    "ludo_site.middleware.UnavailableMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The reader's language: the cookie, then Accept-Language (ludo_site.i18n for the rest).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.rights.RequestActor",  # who grants rights, for the audit log
    # ?lang= (the hreflang alternates) or a signed-in player's saved language.
    "accounts.language.PlayerLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "ludo_site.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
            # Player-chosen text printed isolated on every page (`|bdi`, `|isolated`).
            "builtins": ["accounts.templatetags.player_text"],
        },
    },
]

ASGI_APPLICATION = "ludo_site.asgi.application"

# On PostgreSQL psycopg's pool, at most DB_POOL_MAX (10) connections a process, DB_POOL_MIN (2)
# kept when idle; DB_POOL=0 opens one per request or socket action (DB_CONN_MAX_AGE 0)
# (ludo_site.env.database; README "Database connections").
DATABASES = {
    "default": env.database(
        os.environ.get("DATABASE_URL"),
        base_dir=BASE_DIR,
        conn_max_age=os.environ.get("DB_CONN_MAX_AGE"),
        pool=os.environ.get("DB_POOL"),
        health_checks=os.environ.get("DB_HEALTH_CHECKS"),
        pool_min=os.environ.get("DB_POOL_MIN"),
        pool_max=os.environ.get("DB_POOL_MAX"),
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL") or None
# Before every Redis key and channel of this site: REDIS_PREFIX, else "ludo." and the
# database's name (two sites on one Redis would otherwise hear each other's rooms).
REDIS_PREFIX = env.redis_prefix(os.environ.get("REDIS_PREFIX"), DATABASES["default"]["NAME"])
# CHANNEL_LAYER=pubsub (default) or core picks the channels-redis layer when REDIS_URL is set.
CHANNEL_LAYERS = env.channel_layers(REDIS_URL, os.environ.get("CHANNEL_LAYER"), REDIS_PREFIX)

# Garbage collection in a server process (ludo_site.asgi, after start-up): freeze what start-up
# made, so full passes skip it, and collect less often (LUDO_GC_THRESHOLDS, empty for Python's
# own). LUDO_GC_TUNE=0 leaves Python's collector as it is.
LUDO_GC_TUNE = env.parse_bool(os.environ.get("LUDO_GC_TUNE"), default=True)
LUDO_GC_THRESHOLDS = env.gc_thresholds(os.environ.get("LUDO_GC_THRESHOLDS"))

# Match clocks (games.clocks): the rules' durations times LUDO_TIME_SCALE (tests and the
# end-to-end run shorten them, production leaves 1); the pause before a bot's step or a lone
# move's auto-move; and whether the web process sweeps the clocks itself (the embedded
# default, with no Redis and so no Celery beat: unset, None, follows REDIS_URL).
LUDO_TIME_SCALE = float(os.environ.get("LUDO_TIME_SCALE") or 1)
LUDO_BOT_DELAY = float(os.environ.get("LUDO_BOT_DELAY") or 0.8)
# After a roll no pawn can use, the die passes on after this pause; after two missed turns
# (party), the seconds a player has at the start of each turn to tap
# the die and take the seat back from the bot.
LUDO_PASS_PAUSE = float(os.environ.get("LUDO_PASS_PAUSE") or 1.5)
LUDO_RECLAIM_SECONDS = float(os.environ.get("LUDO_RECLAIM_SECONDS") or 3)
# On PostgreSQL a player's roll or move is read without a lock and written in one fenced
# statement (games.services.fenced); 0 sends every action down the locked path.
LUDO_FENCED_WRITES = env.parse_bool(os.environ.get("LUDO_FENCED_WRITES"), default=True)
LUDO_INPROCESS_CLOCK = (
    None
    if os.environ.get("LUDO_INPROCESS_CLOCK") is None
    else env.parse_bool(os.environ["LUDO_INPROCESS_CLOCK"], default=False)
)
# A finished match's report is asked for when it ends (games.tasks.report_at_end: the
# in-process beat, or a Celery worker), beat's sweep only catching what was missed; 0 leaves
# it to the sweep (the tests' own processes, which no worker hears).
LUDO_REPORT_AT_END = env.parse_bool(os.environ.get("LUDO_REPORT_AT_END"), default=True)
# Threads per server process for the match sockets' database work (games.live.consumers); each
# holds a database connection while it works.
LUDO_DB_THREADS = int(os.environ.get("LUDO_DB_THREADS") or 16)
# Frames a match socket may send: LUDO_WS_RATE a second on average, bursts of LUDO_WS_BURST.
LUDO_WS_RATE = float(os.environ.get("LUDO_WS_RATE") or 8)
LUDO_WS_BURST = int(os.environ.get("LUDO_WS_BURST") or 16)
# Seconds between the heartbeats a match socket sends while nothing else happens.
LUDO_HEARTBEAT_SECONDS = float(os.environ.get("LUDO_HEARTBEAT_SECONDS") or 5)

# Ranked play and quick match (ranked.matchmaking, ranked.ratings): the rating window each
# side of a waiting player's own (ordinal points), how fast it widens (points per second
# waited), when a casual quick match seats a bot and which level, when a rating stops being
# provisional, and how many games put a player on a leaderboard.
RANKED_WINDOW_START = float(os.environ.get("RANKED_WINDOW_START") or 3.0)
RANKED_WINDOW_GROWTH = float(os.environ.get("RANKED_WINDOW_GROWTH") or 0.5)
QUICK_MATCH_BOT_AFTER = float(os.environ.get("QUICK_MATCH_BOT_AFTER") or 15.0)
QUICK_MATCH_BOT_LEVEL = os.environ.get("QUICK_MATCH_BOT_LEVEL") or "medium"
RANKED_PROVISIONAL_GAMES = int(os.environ.get("RANKED_PROVISIONAL_GAMES") or 10)
RANKED_LEADERBOARD_MIN_GAMES = int(os.environ.get("RANKED_LEADERBOARD_MIN_GAMES") or 5)
# Tournaments (tournaments.services): a Swiss round's deadline per ranked queue, in minutes
# (the 95th percentile of a game's length at a person's pace: scripts/quick_lengths.py; a
# round never starts before the last one's games end, so the deadline is the page's promise,
# not a cut); the seconds a paired player has to open a tournament game before their clock
# starts; and the seconds an arena player waits before they may be paired again with the
# table they just left (a small field leaves them nobody else).
TOURNAMENT_ROUND_MINUTES = {
    "duel": int(os.environ.get("TOURNAMENT_ROUND_MINUTES_DUEL") or 13),
    "classic-2": int(os.environ.get("TOURNAMENT_ROUND_MINUTES_CLASSIC_2") or 13),
    "classic-4": int(os.environ.get("TOURNAMENT_ROUND_MINUTES_CLASSIC_4") or 35),
    "quick-4": int(os.environ.get("TOURNAMENT_ROUND_MINUTES_QUICK_4") or 11),
}
TOURNAMENT_GAME_GRACE = float(os.environ.get("TOURNAMENT_GAME_GRACE") or 60)
TOURNAMENT_ARENA_REMATCH_AFTER = float(os.environ.get("TOURNAMENT_ARENA_REMATCH_AFTER") or 60)
# Disputes: how many days after a match ends a player may open one.
DISPUTE_WINDOW_DAYS = int(os.environ.get("DISPUTE_WINDOW_DAYS") or 14)
# ... how many disputes (appeals aside) a player may file about one match, how many days
# after a decision it may be appealed (once), and whether voiding a ranked match takes a
# second moderator's approval.
DISPUTE_FILINGS_PER_MATCH = int(os.environ.get("DISPUTE_FILINGS_PER_MATCH") or 1)
DISPUTE_APPEAL_DAYS = int(os.environ.get("DISPUTE_APPEAL_DAYS") or 14)
DISPUTE_VOID_APPROVAL = env.parse_bool(os.environ.get("DISPUTE_VOID_APPROVAL"), default=True)

CELERY_BROKER_URL = env.celery_broker_url(REDIS_URL)
CELERY_BROKER_TRANSPORT_OPTIONS = env.celery_transport_options(REDIS_URL, REDIS_PREFIX)
CELERY_TIMEZONE = "UTC"
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]

AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
# Sign-in attempts (accounts.throttle): this many failures per username, or per address,
# within SIGN_IN_WINDOW seconds of the first, and sign-in is refused until the window ends.
SIGN_IN_FAILURES_PER_USERNAME = 5
SIGN_IN_FAILURES_PER_IP = 20
SIGN_IN_WINDOW = 15 * 60
# Password reset requests an hour (accounts.throttle.reset_allowed): per email address, and
# per client address, so the reset form cannot flood someone's mailbox.
PASSWORD_RESETS_PER_EMAIL = 3
PASSWORD_RESETS_PER_IP = 10
# New accounts per address an hour (accounts.throttle.take_sign_up).
SIGN_UPS_PER_IP = int(os.environ.get("SIGN_UPS_PER_IP") or 10)
# Guest players one address may get an hour (accounts.views.player_for); rooms one player may
# have waiting for players, and open in an hour (games.services._may_open_room); sockets one
# session may hold open in one server process (games.live.consumers).
GUESTS_PER_IP = int(os.environ.get("GUESTS_PER_IP") or 30)
# Reliability (fairplay.reliability): the figure is shown after this many counted matches;
# below POOR_BELOW percent a player meets others of poor reliability first in the queues;
# below RANKED_MIN_RELIABILITY percent they cannot join a ranked queue.
RELIABILITY_MIN_MATCHES = int(os.environ.get("RELIABILITY_MIN_MATCHES") or 5)
RELIABILITY_POOR_BELOW = int(os.environ.get("RELIABILITY_POOR_BELOW") or 80)
RANKED_MIN_RELIABILITY = int(os.environ.get("RANKED_MIN_RELIABILITY") or 50)
# Sanction evasion (ranked.holds): ranked play needs an account that has finished this many
# casual games or is this many days old (0 days: no such condition).
RANKED_MIN_CASUAL_GAMES = int(os.environ.get("RANKED_MIN_CASUAL_GAMES") or 3)
RANKED_MIN_ACCOUNT_DAYS = int(os.environ.get("RANKED_MIN_ACCOUNT_DAYS") or 2)
# Blocks (fairplay.services.block): how many one account may hold at once, and make in an hour
# (unblocking and blocking again counts again).
BLOCKS_MAX = int(os.environ.get("BLOCKS_MAX") or 50)
BLOCKS_PER_HOUR = int(os.environ.get("BLOCKS_PER_HOUR") or 10)
ROOMS_WAITING_PER_PLAYER = int(os.environ.get("ROOMS_WAITING_PER_PLAYER") or 10)
ROOMS_PER_PLAYER_HOUR = int(os.environ.get("ROOMS_PER_PLAYER_HOUR") or 60)
SOCKETS_PER_SESSION = int(os.environ.get("SOCKETS_PER_SESSION") or 12)
# The largest request body the site reads (ludo_site.bodies, at the ASGI layer): one declared
# or streamed past it is refused with 413 before it is read; under Django's in-memory bound,
# so no body is ever spooled to disk.
MAX_BODY_BYTES = int(os.environ.get("MAX_BODY_BYTES") or 1024 * 1024)
if not 0 < MAX_BODY_BYTES <= 2 * 1024 * 1024:
    raise ImproperlyConfigured("MAX_BODY_BYTES must be between 1 and 2097152")
# Reverse proxies in front of the site whose X-Forwarded-For is believed (accounts.addresses).
TRUSTED_PROXIES = int(os.environ.get("TRUSTED_PROXIES") or 0)
# Behind such a proxy the request came in over HTTPS when it says so (else HTTPS=1's redirect
# would loop: the proxy speaks plain HTTP to the server).
if TRUSTED_PROXIES:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# The cache holds the sign-in counts: Redis when REDIS_URL is set, so every process shares them.
CACHES = env.caches(REDIS_URL, REDIS_PREFIX)
# Email (password reset links): the console unless EMAIL_HOST names an SMTP server.
globals().update(env.email(os.environ))

# The site's languages (issue 29): English, then the first wave; ur and ar read right to left.
# Catalogues in locale/ (locale/README.md: refresh, compile, check).
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", "English"),
    ("hi", "Hindi"),
    ("bn", "Bengali"),
    ("ur", "Urdu"),
    ("ar", "Arabic"),
    ("id", "Indonesian"),
    ("pt-br", "Brazilian Portuguese"),
    ("es", "Spanish"),
    ("tr", "Turkish"),
    ("fr", "French"),
    ("de", "German"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")
# WhiteNoise serves STATIC_ROOT once collectstatic filled it. Without one (make run, whose
# runserver serves the static files itself) it looks files up when asked rather than warning
# at every start that the folder is missing.
WHITENOISE_AUTOREFRESH = DEBUG or not STATIC_ROOT.is_dir()

# Logging (ops.logs.logging_config): LOG_FORMAT=plain (default) or json, one JSON object a line
# with the request id (and the room code on a socket's lines). The audit chain's hourly anchor
# goes to standard error whatever level Celery logs at, and errors whatever DEBUG says.
LOG_FORMAT = (os.environ.get("LOG_FORMAT") or "plain").strip().lower()
if LOG_FORMAT not in ("plain", "json"):
    raise ImproperlyConfigured("LOG_FORMAT must be plain or json")
LOGGING = logging_config(LOG_FORMAT)

# The operator's endpoints (ops.views): /metrics answers a request with
# "Authorization: Bearer METRICS_TOKEN", or from an address in METRICS_ALLOW (addresses or
# networks, comma-separated: "10.0.0.0/8,127.0.0.1"); neither set, nobody.
METRICS_TOKEN = os.environ.get("METRICS_TOKEN") or ""
METRICS_ALLOW = env.parse_networks(os.environ.get("METRICS_ALLOW"))

# Content-Security-Policy on every response (ops.middleware): scripts only from the site's
# own files (data goes in json_script blocks, which are not run), sockets to the site itself.
# Pages may be framed by the site itself only (the desk's review frames the replay).
# CSP="" sends none.
CSP = os.environ.get(
    "CSP",
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors 'self'",
)

# Error reports (ops.sentry): SENTRY_DSN turns on sentry-sdk (Django, Celery, asyncio);
# personal data stays off unless SENTRY_SEND_PII=1, request bodies unless SENTRY_SEND_BODIES=1
# (secrets are scrubbed either way); SENTRY_TRACES_RATE samples performance.
SENTRY_DSN = os.environ.get("SENTRY_DSN") or ""
SENTRY_SEND_PII = env.parse_bool(os.environ.get("SENTRY_SEND_PII"), default=False)
SENTRY_SEND_BODIES = env.parse_bool(os.environ.get("SENTRY_SEND_BODIES"), default=False)
sentry.init(
    SENTRY_DSN,
    environment=os.environ.get("SENTRY_ENVIRONMENT") or "",
    send_pii=SENTRY_SEND_PII,
    send_bodies=SENTRY_SEND_BODIES,
    traces_rate=float(os.environ.get("SENTRY_TRACES_RATE") or 0),
)
