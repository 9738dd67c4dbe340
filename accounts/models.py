from django.contrib.auth.models import AbstractUser
from django.db import models

# Guests play under a generated username with this prefix (accounts.views.player_for); an
# account's username may not start with it (accounts.forms).
GUEST_PREFIX = "guest-"


def is_guest(user: object) -> bool:
    """Whether `user` (any request user, signed in or not) is a guest player: signed in
    through the session, without an account."""
    return bool(getattr(user, "is_authenticated", False)) and str(
        getattr(user, "username", "")
    ).startswith(GUEST_PREFIX)


class User(AbstractUser):
    """A person with an account. The site's own model from the first migration, so it can grow."""

    display_name = models.CharField(
        max_length=40,
        blank=True,
        help_text="The name shown at the table; the username is used when this is blank.",
    )
    # The language the header's picker chose (a code of settings.LANGUAGES); blank: the
    # browser's (accounts.language).
    language = models.CharField(max_length=10, blank=True, default="")

    def __str__(self) -> str:
        return self.display_name or self.username

    @property
    def shown_name(self) -> str:
        """The name other players see."""
        return self.display_name or self.username

    @property
    def is_guest(self) -> bool:
        """A guest player: signed in through the session, without an account."""
        return is_guest(self)
