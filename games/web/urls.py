"""HTTP routes of the games app: the JSON API under ``/api/``."""

from django.urls import path

from games.web import api, hints

app_name = "games"

urlpatterns = [
    path("api/session", api.session, name="api-session"),
    path("api/matches", api.matches, name="api-matches"),
    path("api/matches/<str:code>", api.match_detail, name="api-match"),
    path("api/matches/<str:code>/join", api.match_join, name="api-join"),
    path("api/matches/<str:code>/seed", api.match_seed, name="api-seed"),
    path("api/matches/<str:code>/actions", api.match_action, name="api-action"),
    path("api/matches/<str:code>/replay", api.match_replay, name="api-replay"),
    path("api/matches/<str:code>/qr.svg", api.match_qr, name="api-qr"),
    path("api/matches/<str:code>/hint", hints.match_hint, name="api-hint"),
]
