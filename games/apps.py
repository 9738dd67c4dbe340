import os
import sys

from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        # Here, not at the top: the tasks import the models, which exist only once the apps
        # are ready.
        from django.db.models.signals import post_save

        from games import tasks
        from games.models import Match

        # A finished match's report, asked for when it ends (the in-process beat or a worker).
        post_save.connect(tasks.report_at_end, sender=Match, dispatch_uid="games.report_at_end")

        # The embedded default (`make run`, no Redis) has no Celery beat: the server process
        # sweeps the match clocks itself. Only in the process that serves (the autoreloader's
        # child, or --noreload), never in tests, migrations or shells.
        if sys.argv[1:2] == ["runserver"] and (
            os.environ.get("RUN_MAIN") == "true" or "--noreload" in sys.argv
        ):
            # Here, not at the top: the sweeps import models, which exist only once the apps
            # are ready.
            from games.clocks import sweeps, timing

            if timing.inprocess_enabled():
                sweeps.start_in_process()
