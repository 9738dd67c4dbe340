"""Dispute pages, under ``/disputes/``."""

from django.urls import path

from . import views

app_name = "disputes"

urlpatterns = [
    path("", views.mine, name="mine"),
    path("new/<str:code>/", views.open_dispute, name="open"),
    path("queue/", views.queue, name="queue"),
    path("<int:pk>/", views.detail, name="detail"),
    path("<int:pk>/review/", views.review_page, name="review"),
    path("<int:pk>/replay/", views.replay_frame, name="replay"),
    path("<int:pk>/settle/", views.settle, name="settle"),
    path("<int:pk>/assign/", views.assign, name="assign"),
    path("<int:pk>/note/", views.note, name="note"),
    path("<int:pk>/ask/", views.ask, name="ask"),
    path("<int:pk>/approve/", views.approve, name="approve"),
    path("<int:pk>/unvoid/", views.unvoid, name="unvoid"),
    path("<int:pk>/answer/", views.answer, name="answer"),
    path("<int:pk>/appeal/", views.appeal, name="appeal"),
    path("players/<int:user_id>/", views.player_record, name="record"),
]
