from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    """A person with an account. The site's own model from the first migration, so it can grow."""

    display_name = models.CharField(
        max_length=40,
        blank=True,
        help_text="The name shown at the table; the username is used when this is blank.",
    )

    def __str__(self) -> str:
        return self.display_name or self.username

    @property
    def shown_name(self) -> str:
        """The name other players see."""
        return self.display_name or self.username
