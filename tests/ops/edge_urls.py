"""The site's addresses and ``/edge-boom/``, which raises whatever it is sent
(tests/ops/edge_settings.py)."""

from django.http import HttpRequest, HttpResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from ludo_site.urls import handler400, handler403, handler404, handler500
from ludo_site.urls import urlpatterns as site

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]


@csrf_exempt
def boom(request: HttpRequest) -> HttpResponse:
    request.POST.get("password1")  # the body read, as a form view reads it
    raise RuntimeError("edge probe fault")


urlpatterns = [path("edge-boom/", boom), *site]
