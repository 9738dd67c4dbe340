"""Ranked play: one rating per account and queue.

Only `ranked.ratings` writes `Rating` rows. A rating is Weng-Lin (openskill's Plackett-Luce
model): ``mu`` the skill, ``sigma`` its uncertainty, ``ordinal`` = mu - 3 sigma, what the
leaderboards sort by (a conservative estimate: new players start at 0 and climb as the
uncertainty shrinks).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Now
from django.utils.translation import gettext_lazy as _


def provisional_games() -> int:
    return int(settings.RANKED_PROVISIONAL_GAMES)


def is_provisional(games: int, sigma: float) -> bool:
    """Fewer games than the provisional count: the rating is still settling."""
    return games < provisional_games()


class Queue(models.TextChoices):
    CLASSIC_2 = "classic-2", _("Classic, 2 players")
    CLASSIC_4 = "classic-4", _("Classic, 4 players")
    DUEL = "duel", _("Duel")
    QUICK_4 = "quick-4", _("Quick, 4 players")


class Rating(models.Model):
    """A player's rating in one ranked queue, after every rated match so far."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    queue = models.CharField(max_length=12, choices=Queue.choices)
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField(db_index=True)  # mu - 3 sigma
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "queue"], name="rating_user_queue_unique")
        ]
        indexes = [models.Index(fields=["queue", "-ordinal"], name="rating_board_idx")]

    def __str__(self) -> str:
        return f"{self.user} {self.queue}: {self.ordinal:.1f}"

    @property
    def provisional(self) -> bool:
        """Too few games, or still too uncertain, for the number to mean much."""
        return is_provisional(self.games, self.sigma)


class Entry(models.Model):
    """A player waiting in a quick-match queue: ranked (accounts only, matched by rating) or
    casual (anyone; a labelled bot steps in when nobody is free). Only `ranked.matchmaking`
    writes these rows. A player waits in at most one queue at a time (the partial unique
    constraint); a waiting row becomes ``matched`` (with its match) or ``cancelled``, once."""

    class State(models.TextChoices):
        WAITING = "waiting", "Waiting"
        MATCHED = "matched", "Matched"
        CANCELLED = "cancelled", "Cancelled"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="queue_entries"
    )
    queue = models.CharField(max_length=12, choices=Queue.choices)
    ranked = models.BooleanField(default=True)
    # The player's rating ordinal in the queue when they joined (0, the start, if new).
    ordinal = models.FloatField(default=0.0)
    ip = models.GenericIPAddressField(null=True, blank=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.WAITING)
    joined_at = models.DateTimeField(db_default=Now())
    ended_at = models.DateTimeField(null=True, blank=True)  # matched or cancelled
    match = models.ForeignKey(
        "games.Match", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        verbose_name_plural = "queue entries"
        constraints = [
            models.UniqueConstraint(
                fields=["user"],
                condition=models.Q(state="waiting"),
                name="entry_one_waiting_per_user",
            )
        ]
        indexes = [
            models.Index(fields=["queue", "ranked", "state", "joined_at"], name="entry_wait_idx")
        ]

    def __str__(self) -> str:
        kind = "ranked" if self.ranked else "casual"
        return f"{self.user} in {self.queue} ({kind}): {self.state}"


class Hold(models.Model):
    """A ranked join held for a moderator (sanction evasion): the account was seen at an
    address of an account suspended from ranked play. Only `ranked.holds` writes these rows.
    Open until a moderator decides: ``allowed`` (the account plays ranked; the link to that
    suspended account holds it no more) or ``kept`` (it stays out of ranked play while that
    suspension lasts)."""

    class Decision(models.TextChoices):
        ALLOWED = "allowed", _("Allowed")
        KEPT = "kept", _("Kept out")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ranked_holds"
    )
    linked = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )  # the suspended account
    ip = models.GenericIPAddressField()  # an address both were seen at
    created_at = models.DateTimeField(db_default=Now())
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decision = models.CharField(max_length=8, choices=Decision.choices, blank=True)

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["user", "linked"], name="hold_once_per_link")
        ]

    def __str__(self) -> str:
        return f"{self.user} held (linked to {self.linked}): {self.decision or 'open'}"
