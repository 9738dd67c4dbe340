"""The operator's endpoints, at the site's root (`ludo_site.urls`)."""

from django.urls import path

from ops import views

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("readyz", views.readyz, name="readyz"),
    path("metrics", views.metrics, name="metrics"),
]
