"""URL routes for HTTP."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("", include("games.web.page_urls")),
    path("accounts/", include("accounts.urls")),
    path("", include("accounts.page_urls")),
    path("play/", include("ranked.urls")),
    path("disputes/", include("disputes.urls")),
    path("tournaments/", include("tournaments.urls")),
    path("admin/", admin.site.urls),
    path("", include("games.web.urls")),
]
