"""URL routes for HTTP."""

from django.contrib import admin
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog

from accounts.language import choose_language

urlpatterns = [
    # /healthz, /readyz, /metrics (ops.views)
    path("", include("ops.urls")),
    path("", include("games.web.page_urls")),
    path("accounts/", include("accounts.urls")),
    path("", include("accounts.page_urls")),
    path("play/", include("ranked.urls")),
    path("disputes/", include("disputes.urls")),
    path("fairplay/", include("fairplay.urls")),
    path("tournaments/", include("tournaments.urls")),
    path("admin/", admin.site.urls),
    # Issue 29: the header's language picker and the scripts' catalogue (global gettext).
    path("i18n/setlang/", choose_language, name="set_language"),
    path("i18n/js/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("", include("games.web.urls")),
]

# The error pages in the reader's language and direction, safe before the language or the
# database is known (ludo_site.errors).
handler400 = "ludo_site.errors.bad_request"
handler403 = "ludo_site.errors.permission_denied"
handler404 = "ludo_site.errors.page_not_found"
handler500 = "ludo_site.errors.server_error"
