"""WebSocket routes of the tournaments: an event's live standings."""

from django.urls import path

from .consumers import StandingsConsumer

websocket_urlpatterns = [
    path("ws/tournaments/<str:code>/", StandingsConsumer.as_asgi(), name="ws-tournament"),
]
