"""Blocks between players and the sanctions moderators give."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Now
from django.utils.translation import gettext_lazy as _


class Block(models.Model):
    """`blocker` never meets `blocked` in a quick-match queue and does not see their
    reactions. Either side's block keeps the two apart in the queues."""

    blocker = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocks_made"
    )
    blocked = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocks_received"
    )
    created_at = models.DateTimeField(db_default=Now())

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="block_once"),
            models.CheckConstraint(
                condition=~models.Q(blocker=models.F("blocked")), name="block_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.blocker_id} blocks {self.blocked_id}"


class Sanction(models.Model):
    """A moderator's sanction of one player: a warning, a ranked suspension until
    `expires_at`, or a leaderboard mark. Lifted (`lifted_at`) early by an appeal or a
    moderator."""

    class Kind(models.TextChoices):
        WARNING = "warning", _("Warning")
        SUSPENSION = "suspension", _("Ranked suspension")
        MARK = "mark", _("Off the leaderboards")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sanctions"
    )
    kind = models.CharField(max_length=12, choices=Kind.choices)
    reason = models.TextField()  # what the player reads: plain words
    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="sanctions_given"
    )
    created_at = models.DateTimeField(db_default=Now())
    expires_at = models.DateTimeField(null=True, blank=True)  # suspensions: until then
    lifted_at = models.DateTimeField(null=True, blank=True)  # set once

    class Meta:
        indexes = [models.Index(fields=["user", "kind"], name="sanction_user_kind_idx")]

    def __str__(self) -> str:
        return f"{self.kind} of {self.user_id}"
