"""Quick match under ``/play/``: the pages and the queue's JSON endpoints."""

from django.urls import path

from . import views

urlpatterns = [
    path("ranked/", views.ranked_page, name="play-ranked"),
    path("quick/", views.quick_page, name="play-quick"),
    path("queue/join", views.queue_join, name="queue-join"),
    path("queue/cancel", views.queue_cancel, name="queue-cancel"),
    path("queue/status", views.queue_status, name="queue-status"),
]
