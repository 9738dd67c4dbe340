"""Players' profiles and the leaderboards, at the site's top level."""

from django.urls import path

from ranked import pages

from . import views

urlpatterns = [
    path("players/<str:username>/", views.profile, name="profile"),
    path("leaderboards/", pages.leaderboards, name="leaderboards"),
    path("leaderboards/<str:queue>/", pages.leaderboard, name="leaderboard"),
]
