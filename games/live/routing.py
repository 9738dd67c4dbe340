"""WebSocket routes of the games app."""

from django.urls import path

from games.live.consumers import MatchConsumer

websocket_urlpatterns = [
    path("ws/match/<str:code>/", MatchConsumer.as_asgi(), name="ws-match"),
]
