"""The only writer of dispute rows: open, appeal, claim and assign, note, ask the player and
take their answer, propose and approve a void, settle, undo a void, and log a review.

Services are keyword-only, run in one transaction and raise `DisputeError` (nothing written)
when they refuse. Every step is audited.

Conflicts of interest (`conflicts`, the rules both desks keep in `moderation.conflicts`): a
moderator never handles a dispute on a match they played, one filed by them or by an account
seen at one of their addresses or that reported or disputed them, one whose match another
such player played, or an appeal against their own decision (or proposal). They cannot
claim it, be assigned it, settle it or approve its void, and the queue does not offer them
as assignees.

Voiding a ranked match takes two moderators when DISPUTE_VOID_APPROVAL is on (the default):
the first proposes, a second (not the proposer, without a conflict) approves or refuses.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils.functional import Promise
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from accounts.rights import is_moderator, moderators
from audit import actions
from audit import services as audit
from audit.clock import db_now
from games import services as games
from games.match.errors import ServiceError, said
from games.models import Match, Mode, Status
from moderation.conflicts import barred_from_dispute, conflicts_of

from .models import CaseEntry, Dispute, DisputeStatus, EntryKind, Reason

TEXT_MAX = 2000
DECISION_MAX = 2000
NOTE_MAX = 4000

# The neutral words the public reads on a voided match (the reasoning stays in the notes).
PUBLIC_VOID = "Voided by a moderator."

CODES = frozenset(
    {
        "not_found",  # no such match or dispute (or not one the user may see)
        "not_a_player",  # the user had no seat in the match
        "not_finished",  # only a finished match can be disputed
        "window_closed",  # the match finished more than DISPUTE_WINDOW_DAYS ago
        "already_open",  # the player has an open dispute on this match already
        "already_settled",  # a dispute is settled once
        "bad_request",  # a reason, text or turn that makes no sense
        "forbidden",  # not a moderator (or, for a player's step, not their dispute)
        "conflict",  # the moderator has a conflict of interest with this dispute
        "refiled",  # the player already disputed this match: they may appeal, once
        "already_appealed",  # one appeal per decision
        "not_appealable",  # an appeal's decision, a duplicate, or the appeal window closed
        "already_void",  # the match is void already (by dispute N): close as a duplicate
        "needs_approval",  # a second moderator must approve this void
        "no_question",  # there is no open question for the player to answer
        "not_void",  # un-void on a match that is not void
        "not_ranked",  # rating protection on a match that moved no rating
        "already_protected",  # the player's rating is protected from this match already
    }
)


class DisputeError(ServiceError):
    """A refused dispute action. Nothing was written; ``code`` is one of `CODES`. Its
    message is marked (``said(gettext_lazy(...))``): `message` stays English, the pages show
    `text()`, in the reader's language (issue 29)."""

    codes = CODES


_SETTLED = said(_("This dispute is settled already."))


def window_days() -> int:
    """How many days after its end a match can be disputed (setting DISPUTE_WINDOW_DAYS)."""
    return int(settings.DISPUTE_WINDOW_DAYS)


def appeal_days() -> int:
    """How many days after a decision its player may appeal it (DISPUTE_APPEAL_DAYS)."""
    return settings.DISPUTE_APPEAL_DAYS


def filings_per_match() -> int:
    """How many disputes (appeals aside) a player may file about one match
    (DISPUTE_FILINGS_PER_MATCH): after that, the way on is an appeal."""
    return settings.DISPUTE_FILINGS_PER_MATCH


def void_needs_approval(match: Match) -> bool:
    """Whether voiding this match takes a second moderator (ranked, DISPUTE_VOID_APPROVAL)."""
    return match.mode == Mode.RANKED and bool(settings.DISPUTE_VOID_APPROVAL)


def disputable(match: Match, user: Any, *, now: Any = None) -> str | None:
    """Why `user` cannot open a dispute on `match` now (a DisputeError code), or None."""
    if user is None or not getattr(user, "is_authenticated", False):
        return "not_a_player"
    if match.mode == Mode.LOCAL or not match.seats.filter(user=user, bot__isnull=True).exists():
        return "not_a_player"
    # A void match can be disputed too (say, by the player whose win the void took).
    if match.status not in (Status.FINISHED, Status.VOID) or match.finished_at is None:
        return "not_finished"
    now = now or db_now()
    if now > match.finished_at + timedelta(days=window_days()):
        return "window_closed"
    theirs = Dispute.objects.filter(match=match, player=user)
    if theirs.filter(status=DisputeStatus.OPEN).exists():
        return "already_open"
    if theirs.filter(appeal_of__isnull=True).count() >= filings_per_match():
        return "refiled"
    return None


MESSAGES: dict[str, Promise] = {
    "not_a_player": _("Only a player of this match can open a dispute about it."),
    "not_finished": _("A dispute can be opened once the match has finished."),
    "window_closed": ngettext_lazy(
        "Disputes close %(days)s day after the match ends; this one is closed.",
        "Disputes close %(days)s days after the match ends; this one is closed.",
        "days",
    ),
    "already_open": _("You already have an open dispute about this match."),
    "refiled": _(
        "You disputed this match already. You can appeal that decision once, from "
        "your dispute's page."
    ),
}


def refusal(why: str) -> Promise:
    """Why a dispute cannot be opened (a `disputable` code), read in each reader's language."""
    return said(MESSAGES[why], days=window_days())


def dispute_open(
    *,
    match_id: int,
    user: Any,
    reason: str,
    text: str,
    turn: int | None = None,
    ip: str | None = None,
) -> Dispute:
    """Open a dispute on a finished match `user` played, within the window, if they have not
    disputed it already (`filings_per_match`; then they appeal instead)."""
    if reason not in Reason.values:
        raise DisputeError(
            "bad_request",
            said(_("Pick a reason from the list (not %(reason)s)."), reason=repr(reason)),
        )
    text = str(text or "").strip()
    if not text:
        raise DisputeError("bad_request", said(_("Say what went wrong.")))
    if len(text) > TEXT_MAX:
        raise DisputeError("bad_request", _too_long(TEXT_MAX))
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None:
            raise DisputeError("not_found", said(_("There is no such match.")))
        if turn is not None and not 1 <= int(turn) <= max(match.turn_seq, 1):
            raise DisputeError(
                "bad_request",
                said(
                    _("The match has turns 1 to %(turns)s; pick one of them."),
                    turns=match.turn_seq,
                ),
            )
        now = db_now()
        why = disputable(match, user, now=now)
        if why is not None:
            raise DisputeError(why, refusal(why))
        try:
            with transaction.atomic():
                dispute = Dispute.objects.create(
                    match=match,
                    player=user,
                    reason=reason,
                    text=text,
                    turn=None if turn is None else int(turn),
                    opened_at=now,
                )
        except IntegrityError:  # a second request raced this one
            raise DisputeError("already_open", refusal("already_open")) from None
        audit.record(
            action=actions.DISPUTE_OPENED,
            actor=user,
            ip=ip,
            obj=dispute,
            extra={"match": match.pk, "code": match.code, "reason": reason, "turn": dispute.turn},
        )
    return dispute


# ---------------------------------------------------------------------------- conflicts


def conflicts(dispute: Dispute, moderator: Any) -> list[Promise]:
    """Why `moderator` must not handle `dispute` (empty: they may): the rules both desks
    keep, in `moderation.conflicts`. Each reason is a sentence."""
    return conflicts_of(dispute, moderator)


def _sentences(why: list[Promise]) -> Promise:
    """The reasons one after the other, read in the reader's language when shown."""
    return format_lazy(" ".join("{}" for _w in why), *why)


def assignable(dispute: Dispute) -> list[Any]:
    """The moderators who may handle the dispute: none with a conflict of interest."""
    barred = barred_from_dispute(dispute)
    return [m for m in moderators() if m.pk not in barred]


def _check_moderator(dispute: Dispute, moderator: Any, refused: Promise) -> None:
    """Refuse a step to a non-moderator, or to a moderator with a conflict of interest
    (`refused`: "You cannot settle this dispute: %(why)s", the step named in a whole sentence)."""
    if not is_moderator(moderator):
        raise DisputeError("forbidden", said(_("Only moderators handle disputes.")))
    why = conflicts(dispute, moderator)
    if why:
        raise DisputeError("conflict", said(refused, why=_sentences(why)))


def _locked(dispute_id: int) -> Dispute:
    dispute = (
        Dispute.objects.select_for_update(of=("self",))
        .select_related("match", "appeal_of")
        .filter(pk=dispute_id)
        .first()
    )
    if dispute is None:
        raise DisputeError("not_found", said(_("There is no such dispute.")))
    return dispute


def _entry(dispute: Dispute, author: Any, kind: str, text: str) -> CaseEntry:
    return CaseEntry.objects.create(
        dispute=dispute, author=author, kind=kind, text=text, at=db_now()
    )


def _too_long(limit: int) -> Promise:
    return said(_("Keep it under %(limit)s characters."), limit=limit)


def _text(value: Any, limit: int, missing: Promise) -> str:
    value = str(value or "").strip()
    if not value:
        raise DisputeError("bad_request", said(missing))
    if len(value) > limit:
        raise DisputeError("bad_request", _too_long(limit))
    return value


# ---------------------------------------------------------------------------- case management


def dispute_assign(
    *, dispute_id: int, moderator: Any, assignee: Any = None, ip: str | None = None
) -> Dispute:
    """Claim an open dispute (`assignee` None: the moderator takes it) or give it to another
    moderator. Neither may have a conflict of interest."""
    with transaction.atomic():
        dispute = _locked(dispute_id)
        _check_moderator(dispute, moderator, _("You cannot assign this dispute: %(why)s"))
        target = moderator if assignee is None else assignee
        if not dispute.is_open:
            raise DisputeError("already_settled", _SETTLED)
        if target.pk != moderator.pk:
            if not is_moderator(target):
                raise DisputeError(
                    "bad_request", said(_("%(name)s is not a moderator."), name=str(target))
                )
            why = conflicts(dispute, target)
            if why:
                raise DisputeError(
                    "conflict",
                    said(
                        _("%(name)s cannot take this dispute: %(why)s"),
                        name=str(target),
                        why=_sentences(why),
                    ),
                )
        before = dispute.assignee
        dispute.assignee = target
        dispute.save(update_fields=["assignee"])
        verb = "claimed it" if target.pk == moderator.pk else f"assigned it to {target}"
        _entry(dispute, moderator, EntryKind.EVENT, f"{moderator} {verb}.")
        audit.record(
            action=actions.DISPUTE_ASSIGNED,
            actor=moderator,
            ip=ip,
            obj=dispute,
            extra={"assignee": target.pk, "before": getattr(before, "pk", None)},
        )
    return dispute


def dispute_note(*, dispute_id: int, moderator: Any, text: str, ip: str | None = None) -> CaseEntry:
    """An internal note on the case: moderators read it, the players and the public never."""
    text = _text(text, NOTE_MAX, _("Write the note."))
    with transaction.atomic():
        dispute = _locked(dispute_id)
        _check_moderator(dispute, moderator, _("You cannot note on this dispute: %(why)s"))
        entry = _entry(dispute, moderator, EntryKind.NOTE, text)
        audit.record(
            action=actions.DISPUTE_NOTED,
            actor=moderator,
            ip=ip,
            obj=dispute,
            extra={"entry": entry.pk},
        )
    return entry


def dispute_ask(
    *, dispute_id: int, moderator: Any, question: str, ip: str | None = None
) -> CaseEntry:
    """Ask the player for more information; they answer on their dispute's page."""
    question = _text(question, TEXT_MAX, _("Write the question."))
    with transaction.atomic():
        dispute = _locked(dispute_id)
        _check_moderator(dispute, moderator, _("You cannot ask about this dispute: %(why)s"))
        if not dispute.is_open:
            raise DisputeError("already_settled", _SETTLED)
        entry = _entry(dispute, moderator, EntryKind.QUESTION, question)
        dispute.seen = False  # news for the player: the nav says "new"
        dispute.save(update_fields=["seen"])
        audit.record(
            action=actions.DISPUTE_INFO_REQUESTED,
            actor=moderator,
            ip=ip,
            obj=dispute,
            extra={"entry": entry.pk},
        )
    return entry


def open_question(dispute: Dispute) -> CaseEntry | None:
    """The moderators' last question, if the player has not answered it yet."""
    last = (
        dispute.entries.filter(kind__in=(EntryKind.QUESTION, EntryKind.ANSWER))
        .order_by("-at", "-id")
        .first()
    )
    return last if last is not None and last.kind == EntryKind.QUESTION else None


def dispute_answer(*, dispute_id: int, user: Any, text: str, ip: str | None = None) -> CaseEntry:
    """The player answers the moderators' open question."""
    text = _text(text, TEXT_MAX, _("Write your answer."))
    with transaction.atomic():
        dispute = _locked(dispute_id)
        if dispute.player_id != getattr(user, "pk", None):
            raise DisputeError("not_found", said(_("There is no such dispute.")))
        if not dispute.is_open:
            raise DisputeError("already_settled", _SETTLED)
        if open_question(dispute) is None:
            raise DisputeError(
                "no_question", said(_("The moderators have no open question for you."))
            )
        entry = _entry(dispute, user, EntryKind.ANSWER, text)
        audit.record(
            action=actions.DISPUTE_INFO_GIVEN,
            actor=user,
            ip=ip,
            obj=dispute,
            extra={"entry": entry.pk},
        )
    return entry


# ---------------------------------------------------------------------------- appeals


def appealable(dispute: Dispute, user: Any, *, now: Any = None) -> str | None:
    """Why `user` cannot appeal `dispute`'s decision now (a DisputeError code), or None."""
    if dispute.player_id != getattr(user, "pk", None):
        return "not_found"
    if dispute.is_open:
        return "not_appealable"
    if dispute.is_appeal or dispute.status == DisputeStatus.DUPLICATE:
        return "not_appealable"
    if Dispute.objects.filter(appeal_of=dispute).exists():
        return "already_appealed"
    now = now or db_now()
    if dispute.settled_at is None or now > dispute.settled_at + timedelta(days=appeal_days()):
        return "not_appealable"
    return None


APPEAL_MESSAGES: dict[str, Promise] = {
    "not_found": _("There is no such dispute."),
    "not_appealable": ngettext_lazy(
        "This decision cannot be appealed: an appeal's decision is final, a duplicate is "
        "settled by the dispute it repeats, and appeals close %(days)s day after the decision.",
        "This decision cannot be appealed: an appeal's decision is final, a duplicate is "
        "settled by the dispute it repeats, and appeals close %(days)s days after the decision.",
        "days",
    ),
    "already_appealed": _(
        "You appealed this decision already: each decision can be appealed once."
    ),
}


def appeal_refusal(why: str) -> Promise:
    """Why a decision cannot be appealed (an `appealable` code), in the reader's language."""
    return said(APPEAL_MESSAGES[why], days=appeal_days())


def dispute_appeal(*, dispute_id: int, user: Any, text: str, ip: str | None = None) -> Dispute:
    """Appeal a decision, once. The appeal is a new dispute marked as such, assigned to a
    moderator other than the one who decided (the one with the fewest open cases)."""
    text = _text(text, TEXT_MAX, _("Say why the decision is wrong."))
    with transaction.atomic():
        original = _locked(dispute_id)
        why = appealable(original, user)
        if why is not None:
            raise DisputeError(why, appeal_refusal(why))
        try:
            with transaction.atomic():
                appeal = Dispute.objects.create(
                    match=original.match,
                    player=user,
                    reason=original.reason,
                    text=text,
                    turn=original.turn,
                    opened_at=db_now(),
                    appeal_of=original,
                )
        except IntegrityError:  # a second request raced this one
            raise DisputeError("already_appealed", appeal_refusal("already_appealed")) from None
        free = assignable(appeal)
        if free:
            load = {
                m.pk: Dispute.objects.filter(assignee=m, status=DisputeStatus.OPEN).count()
                for m in free
            }
            appeal.assignee = min(free, key=lambda m: (load[m.pk], m.pk))
            appeal.save(update_fields=["assignee"])
        _entry(
            appeal,
            None,
            EntryKind.EVENT,
            f"Appeal of dispute {original.pk} (decided by {original.settled_by}); "
            + (
                f"assigned to {appeal.assignee}."
                if appeal.assignee
                else "no moderator without a conflict: unassigned."
            ),
        )
        audit.record(
            action=actions.DISPUTE_OPENED,
            actor=user,
            ip=ip,
            obj=appeal,
            extra={
                "match": original.match_id,
                "code": original.match.code,
                "reason": original.reason,
                "appeal_of": original.pk,
                "assignee": getattr(appeal.assignee, "pk", None),
            },
        )
    return appeal


# ---------------------------------------------------------------------------- settling

OUTCOMES = ("uphold", "protect", "reject", "duplicate")


def voided_by(match: Match) -> Dispute | None:
    """The upheld dispute that voided the match, if it is void."""
    if match.status != Status.VOID:
        return None
    return (
        Dispute.objects.filter(match=match, status=DisputeStatus.UPHELD)
        .order_by("-settled_at", "-id")
        .first()
    )


def _close(
    dispute: Dispute,
    moderator: Any,
    status: str,
    message: str,
    ip: str | None,
    extra: dict[str, Any],
    duplicate_of: Dispute | None = None,
) -> None:
    dispute.status = status
    dispute.settled_at = db_now()
    dispute.settled_by = moderator
    dispute.decision = message
    dispute.duplicate_of = duplicate_of
    dispute.seen = False
    dispute.assignee = dispute.assignee or moderator
    dispute.proposed_by, dispute.proposed_at, dispute.proposed_decision = None, None, ""
    dispute.save(
        update_fields=[
            "status",
            "settled_at",
            "settled_by",
            "decision",
            "duplicate_of",
            "seen",
            "assignee",
            "proposed_by",
            "proposed_at",
            "proposed_decision",
        ]
    )
    match = dispute.match
    audit.record(
        action=actions.DISPUTE_SETTLED,
        actor=moderator,
        ip=ip,
        obj=dispute,
        extra={
            "match": match.pk,
            "code": match.code,
            "outcome": status,
            "message": message,
            "appeal_of": dispute.appeal_of_id,
            **extra,
        },
    )


def dispute_settle(
    *,
    dispute_id: int,
    moderator: Any,
    outcome: str | None = None,
    uphold: bool | None = None,
    reason: str = "",
    note: str = "",
    duplicate_of: int | None = None,
    ip: str | None = None,
) -> Dispute:
    """Settle a dispute, once, with a message to the player (`reason`) and an optional
    internal note. Outcomes: "uphold" (void the match; for a ranked match with approval on,
    this only proposes the void, and the dispute stays open until a second moderator
    approves), "protect" (the match no longer moves the filing player's rating), "reject",
    "duplicate" (of `duplicate_of`, or of the dispute that voided the match). ``uphold``
    is the older True/False spelling of "uphold"/"reject"."""
    if outcome is None:
        outcome = "uphold" if uphold else "reject"
    if outcome not in OUTCOMES:
        raise DisputeError(
            "bad_request",
            said(_("Pick an outcome from %(outcomes)s."), outcomes=", ".join(OUTCOMES)),
        )
    if not is_moderator(moderator):
        raise DisputeError("forbidden", said(_("Only moderators settle disputes.")))
    message = str(reason or "").strip()
    if not message and outcome != "duplicate":
        raise DisputeError("bad_request", said(_("Write the message to the player.")))
    if len(message) > DECISION_MAX:
        raise DisputeError(
            "bad_request",
            said(_("Keep the message under %(limit)s characters."), limit=DECISION_MAX),
        )
    note = str(note or "").strip()
    with transaction.atomic():
        dispute = _locked(dispute_id)
        if not dispute.is_open:
            raise DisputeError(
                "already_settled",
                said(
                    _("This dispute was settled already (%(status)s)."),
                    status=dispute.status,
                ),
            )
        _check_moderator(dispute, moderator, _("You cannot settle this dispute: %(why)s"))
        if dispute.awaiting_approval:
            raise DisputeError(
                "needs_approval",
                said(
                    _(
                        "%(name)s proposed voiding this match: a second moderator approves or "
                        "refuses the proposal first."
                    ),
                    name=str(dispute.proposed_by),
                ),
            )
        match = Match.objects.select_for_update().get(pk=dispute.match_id)
        dispute.match = match
        if note:
            _entry(dispute, moderator, EntryKind.NOTE, note)
        if outcome == "duplicate":
            _settle_duplicate(dispute, moderator, message, duplicate_of, ip)
        elif outcome == "uphold":
            _uphold(dispute, moderator, message, ip)
        elif outcome == "protect":
            try:
                games.seat_protect_rating(
                    match_id=match.pk,
                    user=dispute.player,
                    reason=f"dispute {dispute.pk}",
                    actor=moderator,
                    ip=ip,
                )
            except ServiceError as e:
                code = e.code if e.code in CODES else "bad_request"
                raise DisputeError(code, e.said) from e
            _close(dispute, moderator, DisputeStatus.PROTECTED, message, ip, {"voided": False})
        else:
            _close(
                dispute,
                moderator,
                DisputeStatus.REJECTED,
                message,
                ip,
                {"voided": False, "match_void": match.status == Status.VOID},
            )
    return dispute


def _settle_duplicate(
    dispute: Dispute, moderator: Any, message: str, duplicate_of: int | None, ip: str | None
) -> None:
    match = dispute.match
    if duplicate_of is None:
        original = voided_by(match)
        if original is None:
            raise DisputeError("bad_request", said(_("Say which dispute this one repeats.")))
    else:
        original = Dispute.objects.filter(pk=duplicate_of, match=match).first()
        if original is None or original.pk == dispute.pk:
            raise DisputeError(
                "bad_request", said(_("A duplicate repeats another dispute on this match."))
            )
    if not message:
        message = f"This is settled by dispute {original.pk}: " + (
            "the match is void already."
            if match.status == Status.VOID
            else "the same complaint about this match."
        )
    _close(
        dispute,
        moderator,
        DisputeStatus.DUPLICATE,
        message,
        ip,
        {"voided": False, "duplicate_of": original.pk},
        duplicate_of=original,
    )


def _uphold(dispute: Dispute, moderator: Any, message: str, ip: str | None) -> None:
    match = dispute.match
    if match.status == Status.VOID:
        by = voided_by(match)
        raise DisputeError(
            "already_void",
            said(_("The match is already void: close this dispute as a duplicate."))
            if by is None
            else said(
                _(
                    "The match is already void by dispute %(dispute)s: close this dispute as "
                    "a duplicate."
                ),
                dispute=by.pk,
            ),
        )
    if void_needs_approval(match):
        dispute.proposed_by = moderator
        dispute.proposed_at = db_now()
        dispute.proposed_decision = message
        dispute.assignee = dispute.assignee or moderator
        dispute.save(update_fields=["proposed_by", "proposed_at", "proposed_decision", "assignee"])
        _entry(
            dispute,
            moderator,
            EntryKind.EVENT,
            f"{moderator} proposed voiding the match; a second moderator must approve.",
        )
        audit.record(
            action=actions.DISPUTE_VOID_PROPOSED,
            actor=moderator,
            ip=ip,
            obj=dispute,
            extra={"match": match.pk, "code": match.code, "message": message},
        )
        return
    _void_and_close(dispute, moderator, message, ip, approved_by=None)


def _void_and_close(
    dispute: Dispute, moderator: Any, message: str, ip: str | None, approved_by: Any
) -> None:
    match = dispute.match
    try:
        games.match_void(
            match_id=match.pk,
            reason=f"{PUBLIC_VOID} (dispute {dispute.pk})",
            actor=moderator,
            ip=ip,
        )
    except ServiceError as e:
        raise DisputeError("not_finished", e.said) from e
    extra: dict[str, Any] = {"voided": True}
    if approved_by is not None:
        extra["proposed_by"] = approved_by.pk
    _close(dispute, moderator, DisputeStatus.UPHELD, message, ip, extra)


def dispute_approve(
    *, dispute_id: int, moderator: Any, approve: bool, note: str = "", ip: str | None = None
) -> Dispute:
    """The second moderator approves the proposed void (the match is voided and the dispute
    upheld with the proposer's message) or refuses it (the dispute stays open)."""
    note = str(note or "").strip()
    with transaction.atomic():
        dispute = _locked(dispute_id)
        if not dispute.awaiting_approval:
            raise DisputeError("bad_request", said(_("There is no proposed void to approve.")))
        _check_moderator(
            dispute, moderator, _("You cannot approve a void on this dispute: %(why)s")
        )
        proposer = dispute.proposed_by
        if proposer is not None and proposer.pk == moderator.pk:
            raise DisputeError(
                "conflict",
                said(_("A second moderator approves a void: not the one who proposed it.")),
            )
        if note:
            _entry(dispute, moderator, EntryKind.NOTE, note)
        if approve:
            _entry(dispute, moderator, EntryKind.EVENT, f"{moderator} approved the void.")
            _void_and_close(dispute, moderator, dispute.proposed_decision, ip, proposer)
        else:
            dispute.proposed_by, dispute.proposed_at, dispute.proposed_decision = None, None, ""
            dispute.save(update_fields=["proposed_by", "proposed_at", "proposed_decision"])
            _entry(dispute, moderator, EntryKind.EVENT, f"{moderator} refused the void.")
            audit.record(
                action=actions.DISPUTE_PROPOSAL_REFUSED,
                actor=moderator,
                ip=ip,
                obj=dispute,
                extra={"proposed_by": getattr(proposer, "pk", None)},
            )
    return dispute


def dispute_unvoid(*, dispute_id: int, moderator: Any, note: str, ip: str | None = None) -> Match:
    """Undo the void of the dispute's match (it counts again, ratings re-computed), with an
    internal note saying why. Audited on the match and the dispute."""
    note = _text(note, NOTE_MAX, _("Write in the note why the void is undone."))
    with transaction.atomic():
        dispute = _locked(dispute_id)
        _check_moderator(dispute, moderator, _("You cannot undo a void on this dispute: %(why)s"))
        try:
            match = games.match_unvoid(
                match_id=dispute.match_id,
                reason=f"dispute {dispute.pk}: {note}",
                actor=moderator,
                ip=ip,
            )
        except ServiceError as e:
            code = e.code if e.code in CODES else "bad_request"
            raise DisputeError(code, e.said) from e
        _entry(dispute, moderator, EntryKind.NOTE, note)
        _entry(dispute, moderator, EntryKind.EVENT, f"{moderator} undid the void of the match.")
    return match


def dispute_seen(*, dispute: Dispute, user: Any) -> None:
    """The player read the decision: it is no longer news."""
    if dispute.player_id == getattr(user, "pk", None) and not dispute.seen:
        Dispute.objects.filter(pk=dispute.pk).update(seen=True)
        dispute.seen = True


def disputes_seen(*, user: Any) -> int:
    """The player read the list of their disputes: every decision in it is no longer news."""
    return Dispute.objects.filter(player=user, seen=False).update(seen=True)


def dispute_viewed(*, dispute: Dispute, moderator: Any, ip: str | None = None) -> None:
    """Log that a moderator opened the review page (seat and audit addresses, the dice)."""
    audit.record(
        action=actions.DISPUTE_VIEWED,
        actor=moderator,
        ip=ip,
        obj=dispute,
        extra={"match": dispute.match_id, "code": dispute.match.code},
    )
