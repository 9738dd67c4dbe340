"""Disputes: a player's complaint about a finished match they played, and its settlement.

Only `disputes.services` writes these rows. A dispute is opened once and settled once: its
``status``, ``settled_at``, ``settled_by``, ``decision`` and ``duplicate_of`` are set when a
moderator settles it, and ``seen`` when its player first reads news about it. Updated while
it is open: ``assignee`` (claim or assignment) and the pending void proposal (``proposed_*``),
which a second moderator approves or refuses. An appeal is a dispute with ``appeal_of``.

``decision`` is the neutral message the player reads; the moderators' reasoning goes in the
case's `CaseEntry` notes, which players and the public never see.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

MODERATORS = "moderators"  # the group whose staff members review disputes


class Reason(models.TextChoices):
    DICE = "dice", _("The dice")
    TIMER = "timer", _("A disconnect or the turn timer")
    BEHAVIOUR = "behaviour", _("An opponent's behaviour")
    OTHER = "other", _("Something else")


class DisputeStatus(models.TextChoices):
    OPEN = "open", _("Open")
    UPHELD = "upheld", _("Upheld: the match was voided")
    PROTECTED = "protected", _("Upheld: the player's rating was protected")
    REJECTED = "rejected", _("Rejected")
    DUPLICATE = "duplicate", _("Closed as a duplicate")


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
    decision = models.TextField(blank=True)  # set once: the message the player reads
    seen = models.BooleanField(default=True)  # False from news (a decision, a question) until read
    # Set once, when closed as a duplicate: the dispute that already settled the same thing.
    duplicate_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="duplicates"
    )
    # An appeal: the decision it contests (one appeal per decision).
    appeal_of = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="appeal"
    )
    # Updated: the moderator handling the case (claimed, or assigned by another moderator).
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="assigned_disputes",
    )
    # Updated: a proposal to void a ranked match, waiting for a second moderator's approval.
    proposed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="proposed_disputes",
    )
    proposed_at = models.DateTimeField(null=True, blank=True)
    proposed_decision = models.TextField(blank=True)

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

    @property
    def is_appeal(self) -> bool:
        return self.appeal_of_id is not None

    @property
    def awaiting_approval(self) -> bool:
        return self.is_open and self.proposed_by_id is not None


class EntryKind(models.TextChoices):
    NOTE = "note", _("Internal note")  # moderators only
    EVENT = "event", _("Case event")  # moderators only: claimed, assigned, proposed, ...
    QUESTION = "question", _("Question to the player")  # the player reads it
    ANSWER = "answer", _("The player's answer")


PLAYER_KINDS = (EntryKind.QUESTION, EntryKind.ANSWER)  # what the player's page shows


class CaseEntry(models.Model):
    """One line of a dispute's case thread, appended and never changed. Notes and events are
    for moderators only; questions and answers are the exchange with the player."""

    dispute = models.ForeignKey(Dispute, on_delete=models.PROTECT, related_name="entries")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    kind = models.CharField(max_length=10, choices=EntryKind.choices)
    text = models.TextField()
    at = models.DateTimeField()

    class Meta:
        ordering = ["at", "id"]
        verbose_name_plural = "case entries"

    def __str__(self) -> str:
        return f"Dispute {self.dispute_id} {self.kind} at {self.at:%Y-%m-%d %H:%M}"

    @property
    def for_player(self) -> bool:
        return self.kind in PLAYER_KINDS
