"""The pages people see (the JSON API and the socket have their own routes)."""

from django.urls import path

from games.web import views

urlpatterns = [
    path("", views.home, name="home"),
    path("rules/", views.rules, name="rules"),
    path("terms/", views.terms, name="terms"),
    path("guides/<slug:slug>/", views.guide, name="guide"),
    path("rules/<slug:name>/", views.preset_guide_page, name="preset-guide"),
    path("play/computer/", views.play_computer, name="play-computer"),
    path("play/friends/", views.play_friends, name="play-friends"),
    path("play/local/", views.play_local, name="play-local"),
    path("join/", views.join, name="join"),
    path("r/<str:code>/", views.room, name="room"),
    path("r/<str:code>/join/", views.room_join, name="room-join"),
    path("r/<str:code>/start/", views.room_start, name="room-start"),
    path("r/<str:code>/seat/", views.room_seat, name="room-seat"),
    path("r/<str:code>/start-over/", views.room_start_over, name="room-start-over"),
    path("r/<str:code>/replay/", views.replay, name="replay"),
    path("r/<str:code>/rematch/", views.room_rematch, name="room-rematch"),
]
