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
]
