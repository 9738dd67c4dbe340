"""The ASGI entry point: HTTP through Django, WebSockets through Channels."""

import gc
import os

from django.conf import settings
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ludo_site.settings")

# Set up Django (apps, models) before anything that imports models, such as the
# auth middleware and the consumers behind the WebSocket routes.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from games.clocks import sweeps, timing  # noqa: E402
from games.live.tickets import TicketAuth  # noqa: E402
from ops import scrape  # noqa: E402
from ops.sockets import SocketWatch  # noqa: E402

from .bodies import BodyLimit  # noqa: E402
from .origins import OriginValidator  # noqa: E402
from .routing import websocket_urlpatterns  # noqa: E402
from .tickets_out import SignedOutTickets  # noqa: E402

application = ProtocolTypeRouter(
    {
        # A body over MAX_BODY_BYTES refused before Django reads it (ludo_site.bodies).
        "http": BodyLimit(django_asgi_app),
        # Scheme, host and port of the Origin against the site's own (ludo_site.origins); a
        # match socket's signed ticket (games.live.tickets; none issued before its account's
        # last sign-out: ludo_site.tickets_out), else the session. Counted and
        # given a request id and room code for the logs (ops.sockets), outermost.
        "websocket": SocketWatch(
            OriginValidator(
                SignedOutTickets(
                    TicketAuth(
                        URLRouter(websocket_urlpatterns),
                        fallback=AuthMiddlewareStack(URLRouter(websocket_urlpatterns)),
                    )
                )
            )
        ),
    }
)

# A server run without Redis (daphne or uvicorn on the embedded default) sweeps the match
# clocks itself when asked to; `runserver` starts it from games.apps on its own.
if os.environ.get("LUDO_INPROCESS_CLOCK") and timing.inprocess_enabled():
    sweeps.start_in_process()


def tune_gc(*, enabled: bool, thresholds: tuple[int, int, int] | None) -> bool:
    """Freeze the objects start-up made (modules, settings, URL patterns: full collections then
    skip them) and set the collector's thresholds. Returns whether it did anything."""
    if not enabled:
        return False
    gc.collect()
    gc.freeze()
    if thresholds is not None:
        gc.set_threshold(*thresholds)
    return True


def _tune_gc_from_settings() -> None:
    tune_gc(
        enabled=settings.LUDO_GC_TUNE,
        thresholds=settings.LUDO_GC_THRESHOLDS,
    )


# The database pool's connections in use and waits, sampled into the metrics (ops.scrape).
scrape.start_pool_sampler()

# Last: everything the server imports at start-up is loaded by now.
_tune_gc_from_settings()
