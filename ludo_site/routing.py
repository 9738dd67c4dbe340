"""WebSocket routes: the match rooms (``ws/match/<room code>/``), the lobby (``ws/lobby/``)."""

from django.urls import URLPattern, URLResolver

from games.live.routing import websocket_urlpatterns as games_routes
from ranked.routing import websocket_urlpatterns as ranked_routes

websocket_urlpatterns: list[URLPattern | URLResolver] = [*games_routes, *ranked_routes]
