"""Tournament pages under ``/tournaments/``."""

from django.urls import path

from . import views

urlpatterns = [
    path("", views.tournament_list, name="tournaments"),
    path("next.json", views.next_game, name="tournament-next"),
    path("<str:code>/", views.tournament_page, name="tournament"),
    path("<str:code>/standings.json", views.tournament_standings, name="tournament-standings"),
    path("<str:code>/join", views.tournament_join, name="tournament-join"),
    path("<str:code>/withdraw", views.tournament_withdraw, name="tournament-withdraw"),
    path("<str:code>/verify/", views.tournament_verify, name="tournament-verify"),
]
