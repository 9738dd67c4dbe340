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
    # Boosting: the rating the player's opponents lost to them was given back (how many
    # seats were protected, `games.services.seat_protect_rating`).
    boosting = models.BooleanField(default=False)
    given_back = models.PositiveIntegerField(default=0)
    # The seats whose lost rating it gave back, as [match id, user id] pairs: lifting the
    # sanction on appeal takes exactly these back.
    given_back_seats = models.JSONField(default=list, blank=True)
    # One appeal: the player's words, the moderator it was routed to (never the one who gave
    # the sanction), and that moderator's decision ("upheld" or "lifted") with a note.
    appeal = models.TextField(blank=True)
    appealed_at = models.DateTimeField(null=True, blank=True)
    appeal_moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="appeals_assigned",
    )
    appeal_decision = models.CharField(max_length=10, blank=True)
    appeal_note = models.TextField(blank=True)
    appeal_decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "kind"], name="sanction_user_kind_idx")]

    def __str__(self) -> str:
        return f"{self.kind} of {self.user_id}"


class Report(models.Model):
    """One player's report of another, with a reason; the desk groups them per reported
    player. Handled when a moderator sanctions the player or closes the reports."""

    class Reason(models.TextChoices):
        ASSISTED = "assisted", _("Playing with help (a bot or another program)")
        ABUSE = "abuse", _("Abuse through reactions")
        THROWING = "throwing", _("Losing on purpose or boosting another account")
        ACCOUNTS = "accounts", _("Several accounts")

    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports_made"
    )
    reported = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports_received"
    )
    reason = models.CharField(max_length=10, choices=Reason.choices)
    note = models.TextField(blank=True)
    match = models.ForeignKey(
        "games.Match", null=True, blank=True, on_delete=models.SET_NULL, related_name="reports"
    )
    created_at = models.DateTimeField(db_default=Now())
    handled_at = models.DateTimeField(null=True, blank=True)
    handled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="reports_handled",
    )
    outcome = models.CharField(max_length=200, blank=True)

    class Meta:
        indexes = [models.Index(fields=["reported", "handled_at"], name="report_open_idx")]

    def __str__(self) -> str:
        return f"report of {self.reported_id} by {self.reporter_id}"
