"""Disputes: a player's complaint about a finished match they played, and its settlement.

Only `disputes.services` writes these rows. A dispute is opened once and settled once: its
``status``, ``settled_at``, ``settled_by`` and ``decision`` are set when a moderator settles
it, and ``seen`` when its player first reads the decision.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

MODERATORS = "moderators"  # the group whose staff members review disputes


class Reason(models.TextChoices):
    DICE = "dice", "The dice"
    TIMER = "timer", "A disconnect or the turn timer"
    BEHAVIOUR = "behaviour", "An opponent's behaviour"
    OTHER = "other", "Something else"


class DisputeStatus(models.TextChoices):
    OPEN = "open", "Open"
    UPHELD = "upheld", "Upheld: the match was voided"
    REJECTED = "rejected", "Rejected"


class Dispute(models.Model):
    match = models.ForeignKey("games.Match", on_delete=models.PROTECT, related_name="disputes")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="disputes"
    )
    reason = models.CharField(max_length=12, choices=Reason.choices)
    text = models.TextField()
    turn = models.PositiveIntegerField(null=True, blank=True)  # the turn it is about, if any
    opened_at = models.DateTimeField()
    status = models.CharField(
        max_length=10, choices=DisputeStatus.choices, default=DisputeStatus.OPEN
    )  # set once, when settled
    settled_at = models.DateTimeField(null=True, blank=True)  # set once
    settled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="settled_disputes",
    )  # set once
    decision = models.TextField(blank=True)  # set once: the moderator's written reason
    seen = models.BooleanField(default=True)  # False from the settlement until the player reads it

    class Meta:
        ordering = ["opened_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["match", "player"],
                condition=models.Q(status="open"),
                name="dispute_one_open_per_player",
            ),
        ]
        indexes = [models.Index(fields=["status", "opened_at"], name="dispute_queue_idx")]

    def __str__(self) -> str:
        return f"Dispute {self.pk} on {self.match.code} by {self.player}"

    @property
    def is_open(self) -> bool:
        return self.status == DisputeStatus.OPEN
