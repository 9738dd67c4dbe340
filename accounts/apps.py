from django.apps import AppConfig
from django.contrib.auth.signals import user_logged_out


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        # rights: connects the rights and admin sign-in audit on import.
        from . import rights, signout  # noqa: F401

        user_logged_out.connect(signout.record, dispatch_uid="accounts.signout")
