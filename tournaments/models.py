"""Tournaments: arenas and Swiss events of ranked matches. Only `tournaments.services` writes
these rows; the games themselves are ranked matches made through `games.services`.

What is published is what `Player` rows say (score, games, wins, streak, Buchholz, rank);
`tournaments.verify` recomputes them from the stored matches and their dice proofs and
compares.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Now
from django.utils.translation import gettext_lazy as _

from ranked.models import Queue


class Kind(models.TextChoices):
    ARENA = "arena", _("Arena")
    SWISS = "swiss", _("Swiss")


class State(models.TextChoices):
    UPCOMING = "upcoming", _("Upcoming")
    RUNNING = "running", _("Running")
    FINISHED = "finished", _("Finished")
    CANCELLED = "cancelled", _("Cancelled")


class Tournament(models.Model):
    code = models.CharField(max_length=10, unique=True)
    name = models.CharField(max_length=80)
    kind = models.CharField(max_length=8, choices=Kind.choices)
    queue = models.CharField(max_length=12, choices=Queue.choices)
    state = models.CharField(max_length=10, choices=State.choices, default=State.UPCOMING)
    starts_at = models.DateTimeField(db_index=True)
    # Arena: the window in minutes. Swiss: the most minutes a round lasts (its deadline).
    minutes = models.PositiveIntegerField(default=30)
    rounds = models.PositiveSmallIntegerField(default=0)  # Swiss only
    round = models.PositiveSmallIntegerField(default=0)  # Swiss: the round being played
    round_started_at = models.DateTimeField(null=True, blank=True)
    # Entry conditions.
    min_games = models.PositiveIntegerField(default=0)  # rated games played in the queue
    min_rating = models.FloatField(null=True, blank=True)  # ordinal (mu - 3 sigma)
    max_rating = models.FloatField(null=True, blank=True)
    min_account_days = models.PositiveIntegerField(default=0)
    schedule = models.CharField(max_length=10, blank=True)  # "hourly"/"daily": made by beat
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(db_default=Now())
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["starts_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["schedule", "starts_at", "queue", "kind"],
                condition=~models.Q(schedule=""),
                name="tournament_one_scheduled",
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.code})"


class Player(models.Model):
    """An entrant and their published standing."""

    class Status(models.TextChoices):
        ACTIVE = "active", _("Playing")
        PAUSED = "paused", _("Paused")
        WITHDRAWN = "withdrawn", _("Withdrawn")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="players")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tournament_entries"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    rating = models.FloatField(default=0.0)  # ordinal in the queue when they entered
    joined_at = models.DateTimeField(db_default=Now())
    score = models.IntegerField(default=0)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    streak = models.PositiveIntegerField(default=0)
    byes = models.PositiveIntegerField(default=0)
    buchholz = models.IntegerField(default=0)
    rank = models.PositiveIntegerField(default=0)
    last_table = models.JSONField(default=list, blank=True)  # user ids of their last game
    # The game they are playing now (None between games).
    game = models.ForeignKey(
        "Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # When their last game ended (None before their first): how long an arena player has
    # waited for a table.
    free_since = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["rank", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user"], name="tournament_player_once")
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.tournament.code}"


class Game(models.Model):
    """A table of a tournament: a ranked match, or a bye (no match, one player)."""

    class Status(models.TextChoices):
        PLAYING = "playing", _("Playing")
        DONE = "done", _("Finished")
        VOID = "void", _("Voided")
        BYE = "bye", _("Bye")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="games")
    round = models.PositiveSmallIntegerField(default=0)  # Swiss; 0 in an arena
    match = models.OneToOneField(
        "games.Match", null=True, blank=True, on_delete=models.PROTECT, related_name="tournament"
    )
    users = models.JSONField(default=list)  # user ids, by corner
    places = models.JSONField(null=True, blank=True)  # {"user id": place} once done
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PLAYING)
    created_at = models.DateTimeField(db_default=Now())
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["pk"]
        indexes = [models.Index(fields=["tournament", "status"], name="tgame_state_idx")]

    def __str__(self) -> str:
        return f"{self.tournament.code} game {self.pk} ({self.status})"
