"""What the review page shows: the dice proof re-derived, the match's audit entries checked,
a timeline with server times, each player's dice statistics, and the addresses seen."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from audit import actions
from audit.chain import problem_at
from audit.models import AuditEntry
from games.match import dice, names
from games.match.replay import ENGINE_KINDS
from games.match.verify import verify_match
from games.models import ENDED, Match, MatchEvent, Move, Roll, Seat, Turn

from .addresses import Address
from .models import Dispute

User = get_user_model()

RECENT_ROLLS = 1000  # the player's last rolls, over every match


# ---------------------------------------------------------------------------- statistics


def chi_square_p(x: float) -> float:
    """P(X >= x) for a chi-square variable with 5 degrees of freedom (closed form)."""
    if x <= 0:
        return 1.0
    return math.erfc(math.sqrt(x / 2)) + math.sqrt(2 * x / math.pi) * math.exp(-x / 2) * (1 + x / 3)


@dataclass(frozen=True)
class DiceStats:
    counts: list[int]  # faces 1..6
    n: int
    chi2: float | None  # None without rolls
    p: float | None

    @property
    def expected(self) -> float:
        return self.n / 6

    @property
    def suspicious(self) -> bool:
        """A p-value under 1%: worth a closer look (one in a hundred fair dice get there)."""
        return self.p is not None and self.p < 0.01


def dice_stats(faces: list[int]) -> DiceStats:
    """Counts per face and Pearson's chi-square against a fair die, with its p-value."""
    counts = [0] * 6
    for face in faces:
        counts[face - 1] += 1
    n = len(faces)
    if n == 0:
        return DiceStats(counts, 0, None, None)
    e = n / 6
    chi2 = sum((c - e) ** 2 / e for c in counts)
    return DiceStats(counts, n, chi2, chi_square_p(chi2))


def _seat_faces(match: Match, corner: int) -> list[int]:
    """The faces the dice gave a seat in a match (Dice control's chosen faces left out)."""
    rows = Roll.objects.filter(match=match, corner=corner).exclude(bonus="control")
    return list(rows.values_list("face", flat=True))


def recent_faces(user: Any, *, limit: int = RECENT_ROLLS) -> list[int]:
    """The faces of the user's last `limit` dice rolls, over all their seats."""
    faces: list[int] = []
    seats = Seat.objects.filter(user=user, bot__isnull=True).values_list("match_id", "corner")
    by_match: dict[int, list[int]] = {}
    for match_id, corner in seats:
        by_match.setdefault(match_id, []).append(corner)
    if not by_match:
        return faces
    rows = (
        Roll.objects.filter(match_id__in=list(by_match))
        .exclude(bonus="control")
        .order_by("-at", "-id")
        .values_list("match_id", "corner", "face")
        .iterator(chunk_size=2000)
    )
    for match_id, corner, face in rows:
        if corner in by_match[match_id]:
            faces.append(face)
            if len(faces) >= limit:
                break
    return faces


# ---------------------------------------------------------------------------- the proof


@dataclass
class Proof:
    ok: bool
    summary: str  # games.match.verify's one line: the summary or the first problem
    committed: bool | None  # the revealed seed against its commitment (None: still sealed)
    rolls: list[dict[str, Any]] = field(default_factory=list)
    bad: int = 0
    checked: int = 0


def proof(match: Match) -> Proof:
    """The whole match checked by games.match.verify, and every roll re-derived from the seed."""
    report = verify_match(match)
    revealed = match.status in ENDED
    out = Proof(report.ok, report.line, None)
    if not revealed:
        return out
    out.committed = dice.commitment(match.server_seed) == match.commitment
    for row in Roll.objects.filter(match=match).order_by("n"):
        chosen = row.bonus == "control"
        derived = (
            None
            if chosen
            else dice.roll_face(match.server_seed, match.client_seed, row.dice_number)
        )
        ok = chosen or derived == row.face
        out.checked += 0 if chosen else 1
        out.bad += 0 if ok else 1
        out.rolls.append(
            {
                "n": row.n,
                "turn": row.turn,
                "corner": row.corner,
                "face": row.face,
                "derived": derived,
                "chosen": chosen,
                "ok": ok,
            }
        )
    return out


# ---------------------------------------------------------------------------- the audit log


def audit_entries(match: Match, disputes: list[Dispute]) -> list[dict[str, Any]]:
    """The audit entries about the match and its disputes, each checked: its hash against its
    content, and its link to the entry stored just before it."""
    entries = list(
        AuditEntry.objects.filter(object_type="games.match", object_id=str(match.pk))
        | AuditEntry.objects.filter(
            object_type="disputes.dispute", object_id__in=[str(d.pk) for d in disputes]
        )
    )
    entries.sort(key=lambda e: e.pk)
    ids = {e.actor_id for e in entries if e.actor_id is not None}
    users = dict(User.objects.filter(pk__in=ids).values_list("pk", "username"))
    out = []
    for entry in entries:
        actor = _("server") if entry.actor_id is None else users.get(entry.actor_id, entry.actor_id)
        out.append({"entry": entry, "actor": actor, "problem": problem_at(entry)})
    return out


# ---------------------------------------------------------------------------- the timeline


@dataclass(frozen=True)
class Moment:
    at: datetime
    what: str
    corner: int | None = None
    ip: str | None = None
    turn: int | None = None
    flag: str = ""  # "timeout", "disconnect", "reconnect", "auto", "void", ""


def _describe_event(event: MatchEvent) -> tuple[str, str]:
    """The timeline's words for a match event (in the reader's language; the reasons stored
    with a leave or a void are data, shown as they are) and its flag."""
    d = event.data
    kind = event.kind
    if kind == "timeout":
        missed = d.get("missed")
        return _("timed out (missed turn %(missed)s in a row)") % {"missed": missed}, "timeout"
    if kind == "leave":
        reason = names.out_reason(d["reason"]) if d.get("reason") else ""
        if d.get("forfeit"):
            how = _("forfeited (%(reason)s)") % {"reason": reason} if reason else _("forfeited")
        else:
            how = _("left (%(reason)s)") % {"reason": reason} if reason else _("left")
        return how, "timeout"
    if kind == "away":
        return _("the computer plays the seat while the player is away"), "disconnect"
    if kind == "bot_took_seat":
        return _("a bot took the seat"), "auto"
    if kind == "voided":
        return _("match voided: %(reason)s") % {"reason": d.get("reason", "")}, "void"
    if kind == "ended":
        return _("match ended"), ""
    if kind == "started":
        return _("match started"), ""
    if kind == "created":
        return _("match created"), ""
    named = _other_event(kind)
    return (named if named is not None else kind.replace("_", " ")), ""


def _other_event(kind: str) -> str | None:
    """The timeline's word for the other events a match stores (None: an unknown kind, shown
    as its code)."""
    words = {
        "joined": pgettext("timeline", "joined"),
        "unvoided": pgettext("timeline", "unvoided"),
        "aborted": pgettext("timeline", "aborted"),
        "undone": pgettext("timeline", "undone"),
        "seat_changed": pgettext("timeline", "seat changed"),
        "client_seed": pgettext("timeline", "client seed"),
        "bot_said": pgettext("timeline", "bot said"),
        "reaction": pgettext("timeline", "reaction"),
        "rematch": pgettext("timeline", "rematch"),
    }
    return words.get(kind)


def timeline(match: Match, entries: list[dict[str, Any]]) -> list[Moment]:
    """Turns, timeouts, server-played moves, disconnects and reconnects, in server time."""
    moments: list[Moment] = []
    for turn in Turn.objects.filter(match=match).order_by("n"):
        moments.append(
            Moment(
                turn.started_at,
                _("turn %(n)s begins") % {"n": turn.n},
                turn.corner,
                turn=turn.n,
            )
        )
    for event in MatchEvent.objects.filter(match=match).exclude(kind__in=ENGINE_KINDS):
        if event.kind in ("turn_passed",):
            continue
        what, flag = _describe_event(event)
        moments.append(Moment(event.at, what, event.data.get("corner"), flag=flag))
    played_by = (
        (Roll, _("roll played by %(by)s")),
        (Move, _("move played by %(by)s")),
    )
    for model, words in played_by:
        for row in model.objects.filter(match=match).exclude(by="player"):
            moments.append(
                Moment(
                    row.at,
                    words % {"by": row.get_by_display()},
                    row.corner,
                    turn=row.turn,
                    flag="auto",
                )
            )
    for item in entries:
        entry = item["entry"]
        if entry.object_type != "games.match":
            continue
        corner = entry.extra_data.get("corner")
        if entry.action == actions.SEAT_DISCONNECTED:
            moments.append(
                Moment(entry.event_time, _("disconnected"), corner, entry.ip, flag="disconnect")
            )
        elif entry.action == actions.SEAT_CONNECTED:
            moments.append(
                Moment(entry.event_time, _("connected"), corner, entry.ip, flag="reconnect")
            )
        elif entry.action in (
            actions.MATCH_SAME_IP,
            actions.MATCH_FORFEITED,
            actions.MATCH_RESIGNED,
        ):
            moments.append(
                Moment(
                    entry.event_time,
                    entry.get_action_display(),
                    corner,
                    entry.ip,
                    flag="timeout" if entry.action == actions.MATCH_FORFEITED else "",
                )
            )
    moments.sort(key=lambda m: m.at)
    return moments


# ---------------------------------------------------------------------------- all of it


def _addresses(seat: Seat, entries: list[dict[str, Any]]) -> list[Address]:
    """The seat's join address and every address its player's audit entries here carry, each
    marked as the record marks it (`disputes.addresses`: the server's own is `local`)."""
    found = {str(seat.ip)} if seat.ip else set()
    if seat.user_id is not None:
        found |= {
            str(e["entry"].ip)
            for e in entries
            if e["entry"].ip and e["entry"].actor_id == seat.user_id
        }
    return [Address(ip) for ip in sorted(found)]


def review(dispute: Dispute) -> dict[str, Any]:
    """Everything the review page shows about the dispute's match."""
    match = dispute.match
    rules = match.rules
    disputes = list(Dispute.objects.filter(match=match).select_related("player", "settled_by"))
    entries = audit_entries(match, disputes)
    seats = []
    for seat in match.seats.select_related("user").order_by("corner"):
        who = seat.user.shown_name if seat.user else ""
        if seat.user is None and seat.bot:
            who = _("%(level)s computer") % {"level": names.level(seat.bot)}
        seats.append(
            {
                "seat": seat,
                "colour": rules.colours[seat.corner],
                "who": who,
                "match_stats": dice_stats(_seat_faces(match, seat.corner)),
                "recent_stats": dice_stats(recent_faces(seat.user)) if seat.user else None,
                "ips": _addresses(seat, entries),
            }
        )
    colours = {s["seat"].corner: s["colour"] for s in seats}
    return {
        "proof": proof(match),
        "entries": entries,
        "chain_ok": all(e["problem"] is None for e in entries),
        "timeline": timeline(match, entries),
        "seats": seats,
        "colours": colours,
        "others": [d for d in disputes if d.pk != dispute.pk],
        "recent_rolls": RECENT_ROLLS,
    }
