"""Fair play pages, under ``/fairplay/``."""

from django.urls import path

from . import views

app_name = "fairplay"

urlpatterns = [
    path("block/<str:username>/", views.block, name="block"),
    path("unblock/<str:username>/", views.unblock, name="unblock"),
]
