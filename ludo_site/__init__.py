"""The Ludo site's Django project. The Celery app loads with Django so tasks bind to it."""

from .celery import app as celery_app

__all__ = ("celery_app",)
