import re

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import translation
from django.utils.translation import gettext

# Guests play under a generated username with this prefix (accounts.views.player_for); an
# account's username may not start with it (accounts.forms).
GUEST_PREFIX = "guest-"
# The name a guest is given (accounts.views.player_for): "Guest " and four of its tag's letters.
GUEST_NAME = re.compile(r"Guest ([0-9A-F]{4})")


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
        return self.shown_name

    @property
    def shown_name(self) -> str:
        """The name other players see, in the reader's language: a guest's generated name
        ("Guest 1A2B") says "Guest" in it (issue 29); a name a person chose stays as it is."""
        tag = self.guest_tag
        if tag and (translation.get_language() or "en") != "en":
            return gettext("Guest %(tag)s") % {"tag": tag}
        return self.name_as_given

    @property
    def name_as_given(self) -> str:
        """The name as stored (a guest's is English: "Guest 1A2B"): what the wire and the API
        carry, the same for every reader."""
        return self.display_name or self.username

    @property
    def guest_tag(self) -> str:
        """A guest's tag ("1A2B") while they keep the name the site gave them, else ""."""
        found = GUEST_NAME.fullmatch(self.display_name or "")
        return found.group(1) if found and is_guest(self) else ""

    @property
    def is_guest(self) -> bool:
        """A guest player: signed in through the session, without an account."""
        return is_guest(self)
