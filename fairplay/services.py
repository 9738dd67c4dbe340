"""The one writer of blocks and sanctions. Each locks the user rows it concerns, the way the
queue's sweep does (`ranked.matchmaking._seat` locks the players' rows, then re-reads blocks
and suspensions): a block or a suspension committed before a match is made is seen by it."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext as _

from accounts.rights import is_moderator, moderators
from audit import actions
from audit import services as audit
from audit.clock import db_now
from audit.models import AuditEntry
from games.match.errors import ServiceError
from games.models import Mode, Seat, Status
from games.services import seat_protect_rating, seat_unprotect_rating
from moderation.conflicts import Conflicts, barred_from_player
from ranked.models import Entry

from .models import Block, Report, Sanction

MAX_SUSPENSION_DAYS = 365


class FairPlayError(ServiceError):
    codes = ServiceError.codes | {
        "blocked_self",
        "reported_self",
        "appealed",
        "no_moderator",
        "conflict",
        "too_many_blocks",
        "blocking_too_fast",
    }


REPORTS_PER_DAY = 20  # one reporter's reports in a day: a flood says nothing more
NOTE_LIMIT = 1000


def _lock(*user_ids: int) -> None:
    """FOR NO KEY UPDATE, as every writer that locks a player's row: they wait for each other,
    but not for a foreign-key check on the row (KEY SHARE, which PostgreSQL takes at COMMIT
    for Django's deferred keys). A FOR UPDATE here waited for the audit chain while a
    tournament join holding the chain waited at its COMMIT for this row: a deadlock."""
    User = get_user_model()
    list(User.objects.select_for_update(no_key=True).filter(pk__in=user_ids).order_by("pk"))


def block(*, user: Any, other: Any, ip: str | None = None) -> Block:
    """`user` blocks `other`: they are not matched together again, and `user` no longer
    sees `other`'s reactions. Blocking twice is one block. A block is a player's own
    protection, not a way to pick opponents: an account holds at most `BLOCKS_MAX` and makes
    at most `BLOCKS_PER_HOUR` an hour (`_check_block_limits`)."""
    if not getattr(user, "is_authenticated", False):
        raise FairPlayError("forbidden", _("Sign in to block a player"))
    if other.pk == user.pk:
        raise FairPlayError("blocked_self", _("You cannot block yourself"))
    with transaction.atomic():
        _lock(user.pk, other.pk)
        if not Block.objects.filter(blocker_id=user.pk, blocked_id=other.pk).exists():
            _check_block_limits(user)
        made, created = Block.objects.get_or_create(blocker_id=user.pk, blocked_id=other.pk)
        if created:
            audit.record(
                action=actions.PLAYER_BLOCKED,
                actor=user,
                ip=ip,
                obj=made,
                extra={"blocked": other.pk},
            )
    return made


def _check_block_limits(user: Any) -> None:
    """Under the blocker's lock: the cap on blocks held, and the blocks made in the last hour
    (read from the audit log, so unblocking and blocking again still counts)."""
    most = settings.BLOCKS_MAX
    if Block.objects.filter(blocker_id=user.pk).count() >= most:
        raise FairPlayError(
            "too_many_blocks",
            _("You can block at most %(most)d players: unblock one before blocking another")
            % {"most": most},
        )
    hourly = settings.BLOCKS_PER_HOUR
    made = AuditEntry.objects.filter(
        action=actions.PLAYER_BLOCKED,
        actor_id=user.pk,
        event_time__gte=db_now() - timedelta(hours=1),
    ).count()
    if made >= hourly:
        raise FairPlayError(
            "blocking_too_fast",
            _("You blocked %(count)d players in the last hour: wait a while before blocking more")
            % {"count": made},
        )


def unblock(*, user: Any, other: Any, ip: str | None = None) -> bool:
    with transaction.atomic():
        _lock(user.pk, other.pk)
        gone, _n = Block.objects.filter(blocker_id=user.pk, blocked_id=other.pk).delete()
        if gone:
            audit.record(
                action=actions.PLAYER_UNBLOCKED, actor=user, ip=ip, extra={"unblocked": other.pk}
            )
    return bool(gone)


def sanction(
    *,
    moderator: Any,
    user: Any,
    kind: str,
    reason: str,
    days: int | None = None,
    boosting: bool = False,
    ip: str | None = None,
) -> Sanction:
    """A moderator sanctions `user`: a warning, a ranked suspension for `days`, or a
    leaderboard mark. `reason` is what the player reads. With `boosting`, the rating their
    opponents lost to them is given back (`give_back`)."""
    if not is_moderator(moderator):
        raise FairPlayError("forbidden", _("Only moderators give sanctions"))
    if moderator.pk == user.pk:
        raise FairPlayError("forbidden", _("A moderator does not sanction themselves"))
    _check_clear(moderator, user)
    if kind not in Sanction.Kind.values:
        raise FairPlayError("bad_request", _("A sanction is a warning, a suspension or a mark"))
    reason = (reason or "").strip()
    if not reason:
        raise FairPlayError("bad_request", _("Say why, in words the player will read"))
    expires = None
    if kind == Sanction.Kind.SUSPENSION and (days is None or not 1 <= days <= MAX_SUSPENSION_DAYS):
        raise FairPlayError(
            "bad_request",
            _("A suspension lasts from 1 to %(most)d days") % {"most": MAX_SUSPENSION_DAYS},
        )
    with transaction.atomic():
        _lock(user.pk)
        now = db_now()
        if kind == Sanction.Kind.SUSPENSION:
            assert days is not None
            expires = now + timedelta(days=days)
        given = Sanction.objects.create(
            user=user,
            kind=kind,
            reason=reason[:2000],
            moderator=moderator,
            expires_at=expires,
            boosting=boosting,
        )
        handled = _handle_reports(
            user, moderator, _("%(kind)s given") % {"kind": given.get_kind_display()}
        )
        if kind == Sanction.Kind.SUSPENSION:
            # Out of the ranked queues at once; a sweep re-checks under the user's lock too.
            for entry in Entry.objects.select_for_update().filter(
                user_id=user.pk, ranked=True, state=Entry.State.WAITING
            ):
                entry.state = Entry.State.CANCELLED
                entry.ended_at = now
                entry.save(update_fields=["state", "ended_at"])
        audit.record(
            action=actions.SANCTION_GIVEN,
            actor=moderator,
            ip=ip,
            obj=given,
            extra={
                "user": user.pk,
                "kind": kind,
                "days": days,
                "expires": expires.isoformat() if expires else None,
                "reports": handled,
                "boosting": boosting,
            },
        )
    if boosting:
        given.given_back = give_back(given)
        given.save(update_fields=["given_back", "given_back_seats"])
    return given


def give_back(given: Sanction) -> int:
    """Boosting: every opponent who lost rating to the sanctioned player in a ranked match
    gets it back (their seat's rating protected, the queue re-rated; each audited by the
    match service), except accounts under a sanction of their own (the partner in it) and
    the moderator who gave the sanction (never their own rating). The seats are kept on the
    sanction (`given_back_seats`). Returns how many seats were protected."""
    sanctioned = set(
        Sanction.objects.filter(lifted_at__isnull=True).values_list("user_id", flat=True)
    )
    mine = Seat.objects.filter(
        user_id=given.user_id, match__mode=Mode.RANKED, match__status=Status.FINISHED
    ).values_list("match_id", "place")
    protected = 0
    for match_id, place in mine:
        losers = Seat.objects.filter(
            match_id=match_id,
            rating_change__lt=0,
            rating_protected=False,
            user__isnull=False,
        ).exclude(user_id__in=(given.user_id, given.moderator_id))
        for seat in losers.select_related("user"):
            if seat.user_id in sanctioned or place is None or (seat.place or 99) < place:
                continue
            seat_protect_rating(
                match_id=match_id,
                user=seat.user,
                reason=f"rating lost to a booster (sanction {given.pk}) given back",
                actor=given.moderator,
            )
            given.given_back_seats.append([match_id, seat.user_id])
            protected += 1
    return protected


def take_back(given: Sanction, *, moderator: Any, ip: str | None = None) -> int:
    """Undo `give_back` (the sanction was lifted on appeal): each seat it protected counts
    again for its player (the queue re-rated, audited by the match service). Returns how
    many seats."""
    User = get_user_model()
    users = User.objects.in_bulk({user_id for _match, user_id in given.given_back_seats})
    undone = 0
    for match_id, user_id in given.given_back_seats:
        if user_id not in users:
            continue
        corners = seat_unprotect_rating(
            match_id=match_id,
            user=users[user_id],
            reason=f"sanction {given.pk} lifted on appeal: the rating given back is taken back",
            actor=moderator,
            ip=ip,
        )
        undone += bool(corners)
    return undone


def _check_clear(moderator: Any, user: Any) -> None:
    """Refuse a moderator's step on `user`'s case when they have a conflict of interest
    (the rules both desks keep: `moderation.conflicts`)."""
    why = Conflicts(moderator).about(user)
    if why:
        raise FairPlayError(
            "conflict",
            _("Another moderator handles this player: %(why)s")
            % {"why": " ".join(str(w) for w in why)},
        )


def lift(*, moderator: Any, sanction_id: int, ip: str | None = None) -> Sanction:
    """End a sanction early (a moderator's decision)."""
    if not is_moderator(moderator):
        raise FairPlayError("forbidden", _("Only moderators lift sanctions"))
    with transaction.atomic():
        given = Sanction.objects.select_for_update().filter(pk=sanction_id).first()
        if given is None:
            raise FairPlayError("not_found", _("There is no such sanction"))
        _check_clear(moderator, given.user)
        if given.lifted_at is None:
            given.lifted_at = db_now()
            given.save(update_fields=["lifted_at"])
            audit.record(
                action=actions.SANCTION_LIFTED,
                actor=moderator,
                ip=ip,
                obj=given,
                extra={"user": given.user_id, "kind": given.kind},
            )
    return given


# ---------------------------------------------------------------------------- reports


def report(
    *,
    reporter: Any,
    reported: Any,
    reason: str,
    note: str = "",
    match: Any = None,
    ip: str | None = None,
) -> Report:
    """`reporter` reports `reported` for `reason` (from a room, a replay or a profile)."""
    if not getattr(reporter, "is_authenticated", False):
        raise FairPlayError("forbidden", _("Sign in to report a player"))
    if reporter.pk == reported.pk:
        raise FairPlayError("reported_self", _("You cannot report yourself"))
    if reason not in Report.Reason.values:
        raise FairPlayError("bad_request", _("Choose a reason for the report"))
    with transaction.atomic():
        _lock(reporter.pk)
        since = db_now() - timedelta(days=1)
        if Report.objects.filter(reporter_id=reporter.pk, created_at__gte=since).count() >= (
            REPORTS_PER_DAY
        ):
            raise FairPlayError(
                "forbidden", _("That is enough reports for one day: the desk has them")
            )
        made = Report.objects.create(
            reporter=reporter,
            reported=reported,
            reason=reason,
            note=(note or "").strip()[:NOTE_LIMIT],
            match=match,
        )
        audit.record(
            action=actions.PLAYER_REPORTED,
            actor=reporter,
            ip=ip,
            obj=made,
            extra={"reported": reported.pk, "reason": reason, "match": getattr(match, "pk", None)},
        )
    return made


def _handle_reports(user: Any, moderator: Any, outcome: str) -> int:
    return Report.objects.filter(reported_id=user.pk, handled_at__isnull=True).update(
        handled_at=db_now(), handled_by=moderator, outcome=outcome[:200]
    )


def close_reports(*, moderator: Any, user: Any, ip: str | None = None) -> int:
    """A moderator reviewed `user`'s open reports and found nothing to sanction."""
    if not is_moderator(moderator):
        raise FairPlayError("forbidden", _("Only moderators handle reports"))
    _check_clear(moderator, user)
    with transaction.atomic():
        _lock(user.pk)
        closed = _handle_reports(user, moderator, _("closed without a sanction"))
        if closed:
            audit.record(
                action=actions.REPORTS_CLOSED,
                actor=moderator,
                ip=ip,
                extra={"user": user.pk, "reports": closed},
            )
    return closed


# ---------------------------------------------------------------------------- appeals


def appeal_candidates(given: Sanction) -> list[Any]:
    """The moderators an appeal of `given` may go to, by the desks' conflict rules: never the
    one who gave it, never one with a conflict of interest with the player (the player
    themselves, one seen at their addresses, one they reported or disputed, ...)."""
    barred = barred_from_player(given.user) | {given.moderator_id}
    return [mod for mod in moderators() if mod.pk not in barred]


def _least_busy(candidates: list[Any]) -> Any:
    """The moderator with the fewest appeals waiting (by name among equals)."""
    waiting = {
        m: Sanction.objects.filter(appeal_moderator=m, appeal_decided_at__isnull=True)
        .exclude(appealed_at__isnull=True)
        .count()
        for m in candidates
    }
    return min(candidates, key=lambda m: (waiting[m], m.username))


def appeal(*, user: Any, sanction_id: int, text: str, ip: str | None = None) -> Sanction:
    """The sanctioned player appeals, once; the appeal goes to another moderator (the one with
    the fewest appeals waiting)."""
    text = (text or "").strip()
    if not text:
        raise FairPlayError("bad_request", _("Say why the decision should change"))
    with transaction.atomic():
        _lock(user.pk)
        given = Sanction.objects.select_for_update().filter(pk=sanction_id).first()
        if given is None or given.user_id != user.pk:
            raise FairPlayError("not_found", _("There is no such decision about you"))
        if given.appealed_at is not None:
            raise FairPlayError("appealed", _("Each decision can be appealed once"))
        candidates = appeal_candidates(given)
        if not candidates:
            raise FairPlayError(
                "no_moderator", _("No other moderator can take the appeal now: try again later")
            )
        to = _least_busy(candidates)
        given.appeal = text[:NOTE_LIMIT]
        given.appealed_at = db_now()
        given.appeal_moderator = to
        given.save(update_fields=["appeal", "appealed_at", "appeal_moderator"])
        audit.record(
            action=actions.SANCTION_APPEALED,
            actor=user,
            ip=ip,
            obj=given,
            extra={"moderator": to.pk},
        )
    return given


def decide_appeal(
    *, moderator: Any, sanction_id: int, lift_it: bool, note: str, ip: str | None = None
) -> Sanction:
    """The moderator the appeal went to upholds the sanction or lifts it, saying why. Lifted,
    everything the sanction did is undone: it ends (a suspension, a leaderboard mark), and the
    rating it gave back is taken back (`take_back`), audited. A moderator who has come to a
    conflict with the player since the appeal reached them hands it on to another."""
    note = (note or "").strip()
    if not note:
        raise FairPlayError("bad_request", _("Say why, in words the player will read"))
    with transaction.atomic():
        given = (
            Sanction.objects.select_for_update(of=("self",))
            .select_related("user")
            .filter(pk=sanction_id)
            .first()
        )
        if given is None or given.appealed_at is None:
            raise FairPlayError("not_found", _("There is no such appeal"))
        if given.appeal_moderator_id != moderator.pk or not is_moderator(moderator):
            raise FairPlayError("forbidden", _("This appeal went to another moderator"))
        if given.appeal_decided_at is not None:
            raise FairPlayError("appealed", _("This appeal is decided already"))
        if Conflicts(moderator).about(given.user):
            _route_appeal(given, moderator, ip)
            raise_after = FairPlayError(
                "conflict",
                _("You have a conflict of interest with this player: the appeal went to %(name)s")
                % {"name": given.appeal_moderator},
            )
        else:
            raise_after = None
            _decide(given, moderator, lift_it, note, ip)
    if raise_after is not None:
        raise raise_after
    return given


def _route_appeal(given: Sanction, moderator: Any, ip: str | None) -> None:
    """Hand a waiting appeal on from `moderator` to the moderator without a conflict with
    the fewest appeals waiting (or leave it where it is when there is none)."""
    candidates = [m for m in appeal_candidates(given) if m.pk != moderator.pk]
    if not candidates:
        raise FairPlayError(
            "no_moderator", _("No other moderator can take the appeal now: try again later")
        )
    to = _least_busy(candidates)
    given.appeal_moderator = to
    given.save(update_fields=["appeal_moderator"])
    audit.record(
        action=actions.SANCTION_APPEALED,
        actor=moderator,
        ip=ip,
        obj=given,
        extra={"moderator": to.pk, "handed_on_by": moderator.pk},
    )


def _decide(given: Sanction, moderator: Any, lift_it: bool, note: str, ip: str | None) -> None:
    now = db_now()
    given.appeal_decision = "lifted" if lift_it else "upheld"
    given.appeal_note = note[:NOTE_LIMIT]
    given.appeal_decided_at = now
    fields = ["appeal_decision", "appeal_note", "appeal_decided_at"]
    if lift_it and given.lifted_at is None:
        given.lifted_at = now
        fields.append("lifted_at")
    given.save(update_fields=fields)
    taken_back = take_back(given, moderator=moderator, ip=ip) if lift_it else 0
    audit.record(
        action=actions.APPEAL_DECIDED,
        actor=moderator,
        ip=ip,
        obj=given,
        extra={
            "user": given.user_id,
            "decision": given.appeal_decision,
            "lifted": lift_it,
            "kind": given.kind,
            "taken_back": taken_back,
        },
    )
