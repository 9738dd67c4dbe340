"""WebSocket routes: the match rooms (``ws/match/<room code>/``), the lobby (``ws/lobby/``),
tournament standings (``ws/tournaments/<code>/``)."""

from django.urls import URLPattern, URLResolver

from games.live.routing import websocket_urlpatterns as games_routes
from ranked.routing import websocket_urlpatterns as ranked_routes
from tournaments.routing import websocket_urlpatterns as tournament_routes

websocket_urlpatterns: list[URLPattern | URLResolver] = [
    *games_routes,
    *ranked_routes,
    *tournament_routes,
]
