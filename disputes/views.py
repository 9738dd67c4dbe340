"""Dispute pages: a player's disputes and the form to open one; the moderators' queue, review
page and settlement. A player sees only their own disputes (others get a 404); the queue,
review and settlement are for moderators only (403)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from accounts.addresses import client_ip
from audit.clock import db_now
from games.models import Match
from games.web import views as game_views

from . import review, services
from .forms import OpenForm, QueueFilter, SettleForm
from .models import Dispute, DisputeStatus
from .services import DisputeError, is_moderator


def _moderator(request: HttpRequest) -> None:
    if not is_moderator(request.user):
        raise PermissionDenied("Only moderators review disputes.")


def _dispute(pk: int) -> Dispute:
    return get_object_or_404(Dispute.objects.select_related("match", "player", "settled_by"), pk=pk)


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
        messages.error(request, services.MESSAGES[why].format(days=services.window_days()))
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
                form.add_error(None, e.message)
            else:
                messages.success(
                    request, "Your dispute is open. A moderator will review the match."
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
    """A player's own dispute: its status and the decision. Moderators go to the review."""
    dispute = _dispute(pk)
    if dispute.player_id != request.user.pk:
        if is_moderator(request.user):
            return redirect("disputes:review", pk=dispute.pk)
        raise Http404("No such dispute.")
    services.dispute_seen(dispute=dispute, user=request.user)
    return render(request, "disputes/detail.html", {"dispute": dispute})


@login_required
@require_GET
def queue(request: HttpRequest) -> HttpResponse:
    """Disputes to settle, oldest first, filtered by status, reason and age."""
    _moderator(request)
    form = QueueFilter(request.GET or None)
    wanted = form.cleaned_data if form.is_valid() else {}
    status = wanted.get("status") or "open"
    rows = Dispute.objects.select_related("match", "player", "settled_by")
    if status != "all":
        rows = rows.filter(status=status)
    if wanted.get("reason"):
        rows = rows.filter(reason=wanted["reason"])
    if wanted.get("age"):
        rows = rows.filter(opened_at__lte=db_now() - timedelta(days=int(wanted["age"])))
    rows = rows.order_by("opened_at", "id")
    return render(
        request,
        "disputes/queue.html",
        {"form": form, "disputes": rows[:200], "count": rows.count(), "status": status},
    )


@login_required
@require_GET
def review_page(request: HttpRequest, pk: int) -> HttpResponse:
    """Everything about the disputed match, for a moderator; the view itself is audited."""
    _moderator(request)
    dispute = _dispute(pk)
    services.dispute_viewed(dispute=dispute, moderator=request.user, ip=client_ip(request))
    context: dict[str, Any] = {
        "dispute": dispute,
        "match": dispute.match,
        "form": SettleForm(),
        **review.review(dispute),
    }
    return render(request, "disputes/review.html", context)


@login_required
@require_GET
def replay_frame(request: HttpRequest, pk: int) -> HttpResponse:
    """The match's replay page, allowed in the review page's frame (same origin only)."""
    _moderator(request)
    dispute = _dispute(pk)
    response = game_views.replay(request, code=dispute.match.code)
    response["X-Frame-Options"] = "SAMEORIGIN"
    return response


@login_required
@require_POST
def settle(request: HttpRequest, pk: int) -> HttpResponse:
    _moderator(request)
    dispute = _dispute(pk)
    form = SettleForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Pick a decision and write its reason.")
        return redirect("disputes:review", pk=dispute.pk)
    try:
        settled = services.dispute_settle(
            dispute_id=dispute.pk,
            moderator=request.user,
            uphold=form.cleaned_data["outcome"] == "uphold",
            reason=form.cleaned_data["reason"],
            ip=client_ip(request),
        )
    except DisputeError as e:
        messages.error(request, e.message)
        return redirect("disputes:review", pk=dispute.pk)
    if settled.status == DisputeStatus.UPHELD:
        messages.success(request, f"Upheld: match {settled.match.code} is void.")
    else:
        messages.success(request, "Rejected: the result stands.")
    return redirect("disputes:queue")
