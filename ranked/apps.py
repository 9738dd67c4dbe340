from django.apps import AppConfig


class RankedConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ranked"
    verbose_name = "Ranked play"
