"""WebSocket routes. Match consumers are added here (``ws/match/<room code>/``)."""

from django.urls import URLPattern, URLResolver

websocket_urlpatterns: list[URLPattern | URLResolver] = []
