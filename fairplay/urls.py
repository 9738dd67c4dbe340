"""Fair play pages, under ``/fairplay/``."""

from django.urls import path

from . import views

app_name = "fairplay"

urlpatterns = [
    path("block/<str:username>/", views.block, name="block"),
    path("unblock/<str:username>/", views.unblock, name="unblock"),
    path("report/<str:username>/", views.report, name="report"),
    path("decisions/<int:pk>/appeal/", views.appeal, name="appeal"),
    path("desk/", views.desk, name="desk"),
    path("desk/leads/", views.desk_leads, name="leads"),
    path("desk/players/<int:user_id>/", views.desk_player, name="player"),
    path("desk/players/<int:user_id>/sanction/", views.sanction, name="sanction"),
    path("desk/players/<int:user_id>/close/", views.close_reports, name="close"),
    path("desk/appeals/<int:pk>/", views.decide, name="decide"),
    path("desk/holds/<int:pk>/", views.decide_hold, name="decide-hold"),
]
