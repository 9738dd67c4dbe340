"""Dispute pages: a player's disputes and the form to open one; the moderators' queue, review
page and settlement. A player sees only their own disputes (others get a 404); the queue,
review and settlement are for moderators only (403)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.addresses import client_ip
from accounts.rights import is_moderator
from audit import actions
from audit import services as audit
from audit.clock import db_now
from games.models import Match, Status
from games.web import views as game_views
from moderation.conflicts import Conflicts, conflicts_about

from . import evidence, review, services
from .forms import AnswerForm, AppealForm, AskForm, NoteForm, OpenForm, QueueFilter, SettleForm
from .models import PLAYER_KINDS, Dispute, DisputeStatus
from .record import record
from .services import NOTE_MAX, TEXT_MAX, DisputeError


def _moderator(request: HttpRequest) -> None:
    if not is_moderator(request.user):
        raise PermissionDenied(_("Only moderators review disputes."))


def _dispute(pk: int) -> Dispute:
    return get_object_or_404(
        Dispute.objects.select_related(
            "match", "player", "settled_by", "assignee", "proposed_by", "appeal_of", "duplicate_of"
        ),
        pk=pk,
    )


def _not_conflicted(request: HttpRequest, dispute: Dispute) -> HttpResponse | None:
    """A moderator with a conflict of interest sees why, and nothing of the case (403)."""
    why = services.conflicts(dispute, request.user)
    if not why:
        return None
    return render(request, "disputes/conflict.html", {"dispute": dispute, "why": why}, status=403)


@login_required
@require_GET
def mine(request: HttpRequest) -> HttpResponse:
    """The signed-in player's disputes, newest first."""
    disputes = (
        Dispute.objects.filter(player=request.user)
        .select_related("match", "settled_by")
        .order_by("-opened_at", "-id")
    )
    shown = list(disputes)  # read before the decisions are marked seen: this page says "new"
    services.disputes_seen(user=request.user)
    return render(request, "disputes/mine.html", {"disputes": shown})


@login_required
def open_dispute(request: HttpRequest, code: str) -> HttpResponse:
    """The form to open a dispute about a finished match the player played."""
    match = get_object_or_404(Match, code=code.upper())
    why = services.disputable(match, request.user)
    if why is not None:
        messages.error(request, str(services.refusal(why)))
        return redirect("replay", code=match.code)
    turns = match.turn_seq
    if request.method == "POST":
        form = OpenForm(request.POST, turns=turns)
        if form.is_valid():
            try:
                dispute = services.dispute_open(
                    match_id=match.pk,
                    user=request.user,
                    reason=form.cleaned_data["reason"],
                    text=form.cleaned_data["text"],
                    turn=form.cleaned_data["turn"],
                    ip=client_ip(request),
                )
            except DisputeError as e:
                form.add_error(None, e.text())
            else:
                messages.success(
                    request, _("Your dispute is open. A moderator will review the match.")
                )
                return redirect("disputes:detail", pk=dispute.pk)
    else:
        turn = request.GET.get("turn", "")
        form = OpenForm(initial={"turn": int(turn) if turn.isdigit() else None}, turns=turns)
    closes = match.finished_at + timedelta(days=services.window_days())
    return render(request, "disputes/open.html", {"match": match, "form": form, "closes": closes})


@login_required
@require_GET
def detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A player's own dispute: its status, the moderators' questions (to answer here), the
    decision, and the way to appeal it. Moderators go to the review."""
    dispute = _dispute(pk)
    if dispute.player_id != request.user.pk:
        if is_moderator(request.user):
            return redirect("disputes:review", pk=dispute.pk)
        raise Http404(_("No such dispute."))
    services.dispute_seen(dispute=dispute, user=request.user)
    context = {
        "dispute": dispute,
        # Questions and answers only: internal notes and case events never reach this page.
        "exchange": list(dispute.entries.filter(kind__in=PLAYER_KINDS).order_by("at", "id")),
        "question": services.open_question(dispute) if dispute.is_open else None,
        "answer_form": AnswerForm(),
        "can_appeal": services.appealable(dispute, request.user) is None,
        "appeal_form": AppealForm(),
        "appeal": Dispute.objects.filter(appeal_of=dispute).first(),
        "appeal_days": services.appeal_days(),
    }
    return render(request, "disputes/detail.html", context)


@login_required
@require_POST
def answer(request: HttpRequest, pk: int) -> HttpResponse:
    dispute = _dispute(pk)
    form = AnswerForm(request.POST)
    if not form.is_valid():
        messages.error(
            request, _("Write your answer (up to %(limit)s characters).") % {"limit": TEXT_MAX}
        )
        return redirect("disputes:detail", pk=dispute.pk)
    try:
        services.dispute_answer(
            dispute_id=dispute.pk,
            user=request.user,
            text=form.cleaned_data["text"],
            ip=client_ip(request),
        )
    except DisputeError as e:
        if e.code == "not_found":
            raise Http404(_("No such dispute.")) from e
        messages.error(request, e.text())
    else:
        messages.success(request, _("Thank you: your answer is with the moderators."))
    return redirect("disputes:detail", pk=dispute.pk)


@login_required
@require_POST
def appeal(request: HttpRequest, pk: int) -> HttpResponse:
    dispute = _dispute(pk)
    form = AppealForm(request.POST)
    if not form.is_valid():
        messages.error(
            request,
            _("Say why the decision is wrong (up to %(limit)s characters).") % {"limit": TEXT_MAX},
        )
        return redirect("disputes:detail", pk=dispute.pk)
    try:
        made = services.dispute_appeal(
            dispute_id=dispute.pk,
            user=request.user,
            text=form.cleaned_data["text"],
            ip=client_ip(request),
        )
    except DisputeError as e:
        if e.code == "not_found":
            raise Http404(_("No such dispute.")) from e
        messages.error(request, e.text())
        return redirect("disputes:detail", pk=dispute.pk)
    messages.success(request, _("Your appeal is open. A different moderator will review it."))
    return redirect("disputes:detail", pk=made.pk)


@login_required
@require_GET
def queue(request: HttpRequest) -> HttpResponse:
    """Disputes to settle, oldest first, filtered by status, reason, age and assignee. A
    dispute the moderator has a conflict with is marked, without a way in."""
    _moderator(request)
    form = QueueFilter(request.GET or None)
    wanted = form.cleaned_data if form.is_valid() else {}
    status = wanted.get("status") or "open"
    rows = Dispute.objects.select_related(
        "match", "player", "settled_by", "assignee", "proposed_by", "appeal_of__settled_by"
    )
    if status != "all":
        rows = rows.filter(status=status)
    if wanted.get("reason"):
        rows = rows.filter(reason=wanted["reason"])
    if wanted.get("age"):
        rows = rows.filter(opened_at__lte=db_now() - timedelta(days=int(wanted["age"])))
    if wanted.get("who") == "mine":
        rows = rows.filter(assignee=request.user)
    elif wanted.get("who") == "unassigned":
        rows = rows.filter(assignee__isnull=True)
    rows = rows.order_by("opened_at", "id")
    shown = list(rows[:200])
    check = Conflicts(request.user)
    check.prime(d.match_id for d in shown)
    for d in shown:
        d.conflict = check.of(d)
    return render(
        request,
        "disputes/queue.html",
        {"form": form, "disputes": shown, "count": rows.count(), "status": status},
    )


@login_required
@require_GET
def review_page(request: HttpRequest, pk: int) -> HttpResponse:
    """Everything about the disputed match, for a moderator without a conflict of interest;
    the view itself is audited."""
    _moderator(request)
    dispute = _dispute(pk)
    refused = _not_conflicted(request, dispute)
    if refused is not None:
        return refused
    services.dispute_viewed(dispute=dispute, moderator=request.user, ip=client_ip(request))
    data = review.review(dispute)
    for seat in data["seats"]:
        seat["evidence"] = evidence.seat_evidence(dispute.match, seat["seat"])
    proposer = dispute.proposed_by_id
    context: dict[str, Any] = {
        "dispute": dispute,
        "match": dispute.match,
        "form": SettleForm(),
        "note_form": NoteForm(),
        "ask_form": AskForm(),
        "thread": list(dispute.entries.select_related("author").order_by("at", "id")),
        "assignable": services.assignable(dispute) if dispute.is_open else [],
        "voided_by": services.voided_by(dispute.match),
        "needs_approval": services.void_needs_approval(dispute.match),
        "may_approve": dispute.awaiting_approval and proposer != request.user.pk,
        "appeal": Dispute.objects.filter(appeal_of=dispute).first(),
        "recent_matches": evidence.RECENT_MATCHES,
        **data,
    }
    return render(request, "disputes/review.html", context)


@login_required
@require_GET
def player_record(request: HttpRequest, user_id: int) -> HttpResponse:
    """A player's record, for moderators without a conflict of interest with the player
    (audited as a view of private data)."""
    _moderator(request)
    player = get_object_or_404(get_user_model(), pk=user_id)
    why = conflicts_about(player, request.user)
    if why:
        return render(
            request, "moderation/conflict.html", {"player": player, "why": why}, status=403
        )
    audit.record(
        action=actions.DISPUTE_RECORD_VIEWED, actor=request.user, ip=client_ip(request), obj=player
    )
    return render(request, "disputes/record.html", record(player))


@login_required
@require_GET
def replay_frame(request: HttpRequest, pk: int) -> HttpResponse:
    """The match's replay page, allowed in the review page's frame (same origin only)."""
    _moderator(request)
    dispute = _dispute(pk)
    refused = _not_conflicted(request, dispute)
    if refused is not None:
        return refused
    response = game_views.replay(request, code=dispute.match.code)
    response["X-Frame-Options"] = "SAMEORIGIN"
    return response


def _posted(
    request: HttpRequest, dispute: Dispute, run: Any, done: str, *, queue: bool = False
) -> HttpResponse:
    """Run a moderator's step; say what happened, or why it was refused, on the review (or
    on the queue, where the step was taken from there)."""
    try:
        run()
    except DisputeError as e:
        messages.error(request, e.text())
    else:
        messages.success(request, done)
    if queue:
        return redirect("disputes:queue")
    return redirect("disputes:review", pk=dispute.pk)


def _step(
    request: HttpRequest,
    pk: int,
    service: Callable[..., object],
    done: str,
    *,
    form: type[forms.Form] | None = None,
    invalid: str = "",
    fields: dict[str, Any] | None = None,
) -> HttpResponse:
    """A moderator's step posted from a dispute's review: form -> service -> redirect. Checks
    the moderator, then the form if there is one (a bad one says `invalid`), then runs
    `service` on the dispute as the moderator, from their address, with the form's fields
    (named as the service's arguments) and `fields`, through `_posted`."""
    _moderator(request)
    dispute = _dispute(pk)
    given = dict(fields or {})
    if form is not None:
        bound = form(request.POST)
        if not bound.is_valid():
            messages.error(request, invalid)
            return redirect("disputes:review", pk=dispute.pk)
        given.update(bound.cleaned_data)
    return _posted(
        request,
        dispute,
        lambda: service(
            dispute_id=dispute.pk, moderator=request.user, ip=client_ip(request), **given
        ),
        done,
    )


@login_required
@require_POST
def settle(request: HttpRequest, pk: int) -> HttpResponse:
    _moderator(request)
    dispute = _dispute(pk)
    form = SettleForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Pick an outcome and write the message to the player."))
        return redirect("disputes:review", pk=dispute.pk)
    data = form.cleaned_data
    try:
        settled = services.dispute_settle(
            dispute_id=dispute.pk,
            moderator=request.user,
            outcome=data["outcome"],
            reason=data["reason"],
            note=data["note"],
            duplicate_of=data["duplicate_of"],
            ip=client_ip(request),
        )
    except DisputeError as e:
        messages.error(request, e.text())
        return redirect("disputes:review", pk=dispute.pk)
    match = settled.match
    if settled.awaiting_approval:
        messages.success(
            request,
            _("Void of match %(code)s proposed: a second moderator must approve it.")
            % {"code": match.code},
        )
        return redirect("disputes:review", pk=dispute.pk)
    if settled.status == DisputeStatus.UPHELD:
        messages.success(request, _("Upheld: match %(code)s is void.") % {"code": match.code})
    elif settled.status == DisputeStatus.PROTECTED:
        messages.success(
            request,
            _("Upheld in part: %(player)s's rating is protected.") % {"player": settled.player},
        )
    elif settled.status == DisputeStatus.DUPLICATE:
        messages.success(
            request,
            _("Closed as a duplicate of dispute %(dispute)s.")
            % {"dispute": settled.duplicate_of_id},
        )
    elif match.status == Status.VOID:
        messages.success(request, _("Rejected. (The match is void by another decision.)"))
    else:
        messages.success(request, _("Rejected: the result stands."))
    return redirect("disputes:queue")


@login_required
@require_POST
def assign(request: HttpRequest, pk: int) -> HttpResponse:
    _moderator(request)
    dispute = _dispute(pk)
    target = None
    wanted = request.POST.get("assignee", "")
    if wanted:
        target = next((m for m in services.moderators() if str(m.pk) == wanted), None)
        if target is None:
            messages.error(request, _("Pick a moderator from the list."))
            return redirect("disputes:review", pk=dispute.pk)

    def run() -> None:
        services.dispute_assign(
            dispute_id=dispute.pk, moderator=request.user, assignee=target, ip=client_ip(request)
        )

    done = (
        _("You claimed the dispute.")
        if target is None
        else _("Assigned to %(moderator)s.") % {"moderator": target}
    )
    return _posted(request, dispute, run, done, queue=request.POST.get("next") == "queue")


@login_required
@require_POST
def note(request: HttpRequest, pk: int) -> HttpResponse:
    return _step(
        request,
        pk,
        services.dispute_note,
        _("Note added (moderators only)."),
        form=NoteForm,
        invalid=_("Write the note (up to %(limit)s characters).") % {"limit": NOTE_MAX},
    )


@login_required
@require_POST
def ask(request: HttpRequest, pk: int) -> HttpResponse:
    return _step(
        request,
        pk,
        services.dispute_ask,
        _("Question sent: the player answers on their dispute's page."),
        form=AskForm,
        invalid=_("Write the question (up to %(limit)s characters).") % {"limit": TEXT_MAX},
    )


@login_required
@require_POST
def approve(request: HttpRequest, pk: int) -> HttpResponse:
    yes = request.POST.get("approve") == "yes"
    return _step(
        request,
        pk,
        services.dispute_approve,
        _("Approved: the match is void.") if yes else _("Refused: the dispute stays open."),
        fields={"approve": yes, "note": request.POST.get("note", "")},
    )


@login_required
@require_POST
def unvoid(request: HttpRequest, pk: int) -> HttpResponse:
    return _step(
        request,
        pk,
        services.dispute_unvoid,
        _("The void is undone: the match counts again."),
        fields={"note": request.POST.get("note", "")},
    )
