"""Match storage: every match, seat, turn, roll and move, and the append-only event stream.

Only `games.services` writes these rows. Rows are appended and never changed, with these
exceptions, each documented on its field: the match's cached ``snapshot``, ``seq``, ``revision``,
``status``, ``turn_seq`` and ``turn_deadline``; fields set once when the match starts or ends
(``first``, ``client_seed``, ``started_at``, ``finished_at``, a seat's ``place`` and
``left``, a seat's ``ip``); the match's ``voided_at`` and ``void_reason`` (set when a
moderator voids it, cleared by an audited un-void); a seat's ``rating_protected`` (set once,
a moderator's remedy); a seat's ``user_agent`` and ``device`` (the latest seen); a seat's
``client_seed`` before the start; a seat's ``connected``, ``disconnected_at``, ``away`` and
``missed_turns``; and a seat's ratings (set again when a voided match re-rates later ones).
Everything else is rebuilt by `games.match.replay` from the rows.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models.functions import Now
from django.utils.translation import gettext_lazy as _

from games.engine import RULESETS, Ruleset, State, loads, rules_from_name

# Room codes: six characters a person can read aloud, without look-alikes (no I, L, O, 0, 1).
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6


def spoken_code(code: str) -> str:
    """The code in two groups of three, as it is shown and read out everywhere: ``KMN-479``."""
    return f"{code[:3]}-{code[3:]}"


class Mode(models.TextChoices):
    RANKED = "ranked", _("Ranked")
    FRIENDLY = "friendly", _("Friendly")
    PRACTICE = "practice", _("Practice")
    LOCAL = "local", _("Local (one device)")


class Status(models.IntegerChoices):
    """Ordered: a match only ever moves to a higher code."""

    WAITING = 10, _("Waiting for players")
    ACTIVE = 20, _("Active")
    FINISHED = 30, _("Finished")
    ABORTED = 40, _("Aborted")
    VOID = 50, _("Void")


ENDED = (Status.FINISHED, Status.ABORTED, Status.VOID)


class Match(models.Model):
    """One match: its rules frozen at creation, its dice commitment, and a cached snapshot."""

    code = models.CharField(max_length=CODE_LENGTH, unique=True)
    ruleset = models.CharField(max_length=20, choices=[(name, name) for name in RULESETS])
    # Frozen at creation: {"rules": notation name e.g. "party+pairs", "house_rules": [...],
    # "pairs": bool, "power": bool, "first": corner or null}.
    options = models.JSONField(default=dict)
    players = models.PositiveSmallIntegerField()
    mode = models.CharField(max_length=10, choices=Mode.choices)
    status = models.PositiveSmallIntegerField(
        choices=Status.choices, default=Status.WAITING, db_index=True
    )  # updated
    host = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="hosted_matches",
    )
    # Secret until the match ends: never in a snapshot, event, log, page or error before.
    server_seed = models.CharField(max_length=64)
    commitment = models.CharField(max_length=64)
    client_seed = models.CharField(max_length=400, blank=True)  # set once, at the start
    first = models.PositiveSmallIntegerField(null=True, blank=True)  # set once, at the start
    seq = models.PositiveIntegerField(default=0)  # updated: the last MatchEvent's seq
    # Updated: the fence. Every write of the match row checks it (``WHERE revision = the one
    # read``) and moves it on by one, so two writers that read the same revision can never
    # both write: the second finds no row and writes nothing (`games.services.fenced`).
    revision = models.PositiveBigIntegerField(default=0)
    turn_seq = models.PositiveIntegerField(default=0)  # updated: the current Turn's n
    # Updated: when the player to act runs out of time, or when a bot or an auto-move acts.
    # Not indexed here: an index on a column every action changes makes every UPDATE of the
    # match write all its indexes (no HOT update). The due ones are read from `MatchDeadline`,
    # which a trigger keeps in step with this column and ``status``.
    turn_deadline = models.DateTimeField(null=True, blank=True)
    # Updated: after a roll no pawn could use, the die passes on only at this time, so the
    # players see the roll that was lost: the game pauses, then passes the die.
    pause_until = models.DateTimeField(null=True, blank=True)
    # Updated: a cache of the replay (engine notation plus counters), see games.match.replay.
    snapshot = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(db_default=Now())
    started_at = models.DateTimeField(null=True, blank=True)  # set once
    finished_at = models.DateTimeField(null=True, blank=True)  # set once
    # Set once, when a moderator upholds a dispute: the match no longer counts (status VOID).
    voided_at = models.DateTimeField(null=True, blank=True)
    void_reason = models.TextField(blank=True)

    class Meta:
        verbose_name_plural = "matches"

    def __str__(self) -> str:
        return f"{self.code} ({self.ruleset}, {self.get_mode_display()})"

    @property
    def spoken(self) -> str:
        """The room code as the room shows it (``KMN-479``): the replay and disputes too."""
        return spoken_code(self.code)

    @property
    def rules(self) -> Ruleset:
        """The frozen rule set, house rules and party options included."""
        return rules_from_name(self.options.get("rules", self.ruleset))

    @property
    def ended(self) -> bool:
        return self.status in ENDED

    @property
    def draws_first(self) -> bool:
        """Whether the first player is drawn with the match's dice: the preset says so, or
        it is mensch played online (in code rooms who goes first is drawn at random);
        otherwise red starts (family everywhere, as docs/rules.md says, and one-device
        and practice games of mensch)."""
        online = self.mode in (Mode.FRIENDLY, Mode.RANKED)
        return self.rules.first_player != "red" or (self.ruleset == "mensch" and online)

    def state(self) -> State | None:
        """The engine state from the cached snapshot (None before the start)."""
        notation = self.snapshot.get("notation") if self.snapshot else None
        return loads(notation) if notation else None


class MatchDeadline(models.Model):
    """The active matches that have a deadline, narrow and indexed by it: what the clock's due
    query reads (`games.match.selectors.due_match_ids`). Kept by a database trigger on
    ``games_match`` (migration 0005): a row while the match is active with a
    ``turn_deadline``, none otherwise; nothing in Python writes it."""

    match = models.OneToOneField(
        Match, primary_key=True, on_delete=models.CASCADE, related_name="+"
    )
    due = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"{self.match_id} due {self.due:%H:%M:%S}"


class Seat(models.Model):
    """A corner taken by a user, by a labelled bot, or (local play) by the host's device."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    corner = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="seats",
    )
    bot = models.CharField(max_length=20, null=True, blank=True)  # the bot's level: a BOT
    client_seed = models.CharField(max_length=64)  # may change until the start
    joined_at = models.DateTimeField()
    connected = models.BooleanField(default=False)  # updated
    missed_turns = models.PositiveSmallIntegerField(default=0)  # updated: timeouts in a row
    place = models.PositiveSmallIntegerField(null=True, blank=True)  # set once, at the end
    left = models.BooleanField(default=False)  # set once: resigned or forfeited
    # Ranked matches: the seat's rating in its queue before and after the match, each
    # {"mu", "sigma", "ordinal"}; ``rating_change`` is the ordinal's change. Set when the
    # match ends, and set again when a voided match makes later matches be re-rated.
    rating_before = models.JSONField(null=True, blank=True)
    rating_after = models.JSONField(null=True, blank=True)
    rating_change = models.FloatField(null=True, blank=True)
    # Updated: when the seat's last connection closed (null while connected or never seen),
    # and whether the computer plays the seat until the player is back (mensch, party).
    disconnected_at = models.DateTimeField(null=True, blank=True)
    away = models.BooleanField(default=False)
    # Updated: the player left the room (party: a bot plays the seat); cleared when they come
    # back. One who never returns is placed below everyone still playing.
    gone = models.BooleanField(default=False)
    # Updated: the seconds of their turn the player had left when their connection dropped
    # while the turn waits for them (mensch); they get the rest back, not a fresh clock.
    clock_left = models.FloatField(null=True, blank=True)
    # Set on joining: the player's address, shown to staff only (same-IP checks, disputes).
    ip = models.GenericIPAddressField(null=True, blank=True)
    # The browser that took the seat, updated when a socket connects with another one; staff
    # only (dispute evidence). ``device`` is a coarse hint read from it (see games.devices).
    user_agent = models.CharField(max_length=400, blank=True)
    device = models.CharField(max_length=20, blank=True)
    # Set once, by a moderator (a remedy short of a void): the match does not move this
    # seat's rating; the other seats' ratings still count it.
    rating_protected = models.BooleanField(default=False)

    class Meta:
        ordering = ["match", "corner"]
        constraints = [
            models.UniqueConstraint(fields=["match", "corner"], name="seat_corner_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.match.code} corner {self.corner}"

    @property
    def is_bot(self) -> bool:
        return bool(self.bot)


class Turn(models.Model):
    """One turn: corner `corner` to act from event `seq` on."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="turns")
    n = models.PositiveIntegerField()  # 1 for the first turn of the match
    corner = models.PositiveSmallIntegerField()
    seq = models.PositiveIntegerField()  # the event that began it ("started" or "turn_passed")
    started_at = models.DateTimeField()

    class Meta:
        ordering = ["match", "n"]
        constraints = [models.UniqueConstraint(fields=["match", "n"], name="turn_n_unique")]

    def __str__(self) -> str:
        return f"{self.match_id} turn {self.n} (corner {self.corner})"


BY_CHOICES = [
    ("player", _("the player")),
    ("timeout", _("the server, on timeout")),
    ("auto", _("auto-move (one legal move)")),
    ("bot", _("a bot")),
]


class Roll(models.Model):
    """One die roll. ``n`` counts the match's rolls from 0 and names its dice draw."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rolls")
    turn = models.PositiveIntegerField()  # Turn.n
    corner = models.PositiveSmallIntegerField()
    seq = models.PositiveIntegerField()  # the "rolled" event
    n = models.PositiveIntegerField()
    face = models.PositiveSmallIntegerField()
    # The dice number the face was derived from, when it is not ``n``: after an undo (local
    # play), the roll in the same place of the game replays the withdrawn roll's face, so
    # undo is for mistakes, not for fishing. Null: dice number ``n``.
    die = models.PositiveIntegerField(null=True, blank=True)
    bonus = models.CharField(max_length=10, blank=True)  # Power: double, control, shield
    by = models.CharField(max_length=10, choices=BY_CHOICES, default="player")
    action_id = models.CharField(max_length=64, blank=True)
    at = models.DateTimeField()
    # Milliseconds from the moment the seat could act (the match's previous change) to this
    # action: dispute evidence for "my opponent used a bot". Null on rows stored before.
    think_ms = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["match", "n"]
        constraints = [
            models.UniqueConstraint(fields=["match", "n"], name="roll_n_unique"),
            models.UniqueConstraint(fields=["match", "seq"], name="roll_seq_unique"),
            models.UniqueConstraint(
                fields=["match", "corner", "action_id"],
                condition=~models.Q(action_id=""),
                name="roll_action_unique",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.match_id} roll {self.n}: {self.face}"

    @property
    def dice_number(self) -> int:
        """The n of ``dice.roll_face`` that gives this roll's face."""
        return self.n if self.die is None else self.die


class Move(models.Model):
    """One pawn move: corner `corner`'s player moved `pawn_corner`'s pawn `pawn`."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="moves")
    turn = models.PositiveIntegerField()  # Turn.n
    corner = models.PositiveSmallIntegerField()
    seq = models.PositiveIntegerField()  # its "released" or "moved" event
    pawn = models.PositiveSmallIntegerField()
    pawn_corner = models.PositiveSmallIntegerField()
    frm = models.SmallIntegerField()
    to = models.SmallIntegerField()
    captures = models.JSONField(default=list, blank=True)  # [[corner, pawn], ...]
    shield = models.BooleanField(default=False)
    by = models.CharField(max_length=10, choices=BY_CHOICES, default="player")
    action_id = models.CharField(max_length=64, blank=True)
    at = models.DateTimeField()
    # Milliseconds from the moment the seat could act (the match's previous change) to this
    # action: dispute evidence for "my opponent used a bot". Null on rows stored before.
    think_ms = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["match", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seq"], name="move_seq_unique"),
            models.UniqueConstraint(
                fields=["match", "corner", "action_id"],
                condition=~models.Q(action_id=""),
                name="move_action_unique",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.match_id} move {self.pawn_corner}/{self.pawn}: {self.frm}->{self.to}"


class MatchEvent(models.Model):
    """The match's append-only stream: every engine event and every service event, in order.

    ``seq`` numbers the match's events from 1 with no gap; ``change`` is the seq of the first
    event written by the same service call, so one call's events can be read together.
    """

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    change = models.PositiveIntegerField()
    kind = models.CharField(max_length=20)
    data = models.JSONField(default=dict)
    at = models.DateTimeField()

    class Meta:
        ordering = ["match", "seq"]
        constraints = [models.UniqueConstraint(fields=["match", "seq"], name="event_seq_unique")]
        # "Was there ever an undo" (asked before every action of a local match) reads this
        # small index, not every event of the match.
        indexes = [
            models.Index(
                fields=["match"], condition=models.Q(kind="undone"), name="event_undone_idx"
            )
        ]

    def __str__(self) -> str:
        return f"{self.match_id} #{self.seq} {self.kind}"

    def as_wire(self) -> dict[str, Any]:
        """The event as sent to clients: its data plus ``seq`` and ``kind``."""
        return {**self.data, "seq": self.seq, "kind": self.kind}


class MatchReport(models.Model):
    """A finished match explained (`games.bots.analysis`): each seat's dice luck and
    decisions, the chances after every turn. Computed once when the match ends and never
    changed; a match voided later keeps its report, and the replay says it was voided."""

    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="report")
    version = models.PositiveSmallIntegerField()
    data = models.JSONField()
    seconds = models.FloatField()  # CPU time the analysis took
    created_at = models.DateTimeField(db_default=Now())

    def __str__(self) -> str:
        return f"report of {self.match_id}"
