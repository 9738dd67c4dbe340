"""The tournaments app: arenas and Swiss events of ranked matches."""

from __future__ import annotations

from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_save

        from games.clocks import sweeps
        from games.models import Match

        from . import hooks

        post_save.connect(hooks.match_saved, sender=Match, dispatch_uid="tournaments.match_saved")
        # The in-process clock (no Celery) ticks the events too, as beat does with Celery.
        sweeps.also_sweep(hooks.tick)
