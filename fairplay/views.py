"""Fair play pages: block a player, report one, appeal a decision; the moderators' desk
(reports grouped per player, sanctions, appeals)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.addresses import client_ip
from accounts.models import User, is_guest
from accounts.rights import is_moderator
from audit import actions
from audit import services as audit
from disputes.record import record
from games.models import Match
from moderation.conflicts import Conflicts, conflicts_about
from ranked import holds

from . import leads, reliability, selectors, services
from .forms import AppealForm, DecideForm, ReportForm, SanctionForm
from .models import Sanction


def _other(username: str) -> User:
    return get_object_or_404(User, username=username, is_active=True)


@require_POST
@login_required
def block(request: HttpRequest, username: str) -> HttpResponse:
    other = _other(username)
    if is_guest(request.user):
        messages.error(request, _("Sign up to block players."))
        return redirect("profile", username=username)
    try:
        services.block(user=request.user, other=other, ip=client_ip(request))
    except services.FairPlayError as refused:
        messages.error(request, refused.message)
        return redirect("profile", username=username)
    messages.success(
        request,
        _("You blocked %(name)s: you will not be matched together, and their reactions are hidden.")
        % {"name": other.shown_name},
    )
    return redirect("profile", username=username)


@require_POST
@login_required
def unblock(request: HttpRequest, username: str) -> HttpResponse:
    other = _other(username)
    services.unblock(user=request.user, other=other, ip=client_ip(request))
    messages.success(request, _("You unblocked %(name)s.") % {"name": other.shown_name})
    return redirect("profile", username=username)


def _moderator(request: HttpRequest) -> None:
    if not is_moderator(request.user):
        raise PermissionDenied(_("Only moderators use the fair play desk."))


def _conflicted(request: HttpRequest, player: User) -> HttpResponse | None:
    """A moderator with a conflict of interest with `player` sees why, and nothing of the
    player's case (403)."""
    why = conflicts_about(player, request.user)
    if not why:
        return None
    return render(request, "moderation/conflict.html", {"player": player, "why": why}, status=403)


@login_required
def report(request: HttpRequest, username: str) -> HttpResponse:
    """Report a player, from their profile, a room or a replay (``?match=CODE``)."""
    other = _other(username)
    code = str(request.POST.get("match") or request.GET.get("match") or "")
    match = Match.objects.filter(code=code, seats__user=other).first() if code else None
    if is_guest(request.user):
        messages.error(request, _("Sign up to report a player."))
        return redirect("profile", username=username)
    form = ReportForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.report(
                reporter=request.user,
                reported=other,
                reason=form.cleaned_data["reason"],
                note=form.cleaned_data["note"],
                match=match,
                ip=client_ip(request),
            )
        except services.FairPlayError as refused:
            form.add_error(None, refused.message)
        else:
            messages.success(
                request,
                _("Thank you: your report of %(name)s is with the moderators.")
                % {"name": other.shown_name},
            )
            if match is not None:
                return redirect("replay", code=match.code)
            return redirect("profile", username=username)
    context = {"other": other, "form": form, "match": match}
    return render(request, "fairplay/report.html", context, status=400 if form.errors else 200)


@login_required
@require_POST
def appeal(request: HttpRequest, pk: int) -> HttpResponse:
    """The sanctioned player appeals a decision (once)."""
    form = AppealForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Say why the decision should change."))
    else:
        try:
            services.appeal(
                user=request.user,
                sanction_id=pk,
                text=form.cleaned_data["text"],
                ip=client_ip(request),
            )
        except services.FairPlayError as refused:
            messages.error(request, refused.message)
        else:
            messages.success(
                request, _("Your appeal went to another moderator. The answer will be here.")
            )
    return redirect("my-profile")


@login_required
@require_GET
def desk(request: HttpRequest) -> HttpResponse:
    """Reports grouped per reported player, and the appeals routed to this moderator. The
    players this moderator has a conflict of interest with are left out: another moderator
    handles them (`moderation.conflicts`)."""
    _moderator(request)
    groups = selectors.report_groups()
    clear = Conflicts(request.user).clear_of(g["player"].pk for g in groups)
    context = {
        "groups": [g for g in groups if g["player"].pk in clear],
        "appeals": selectors.appeals_for(request.user),
        "holds": _holds_for(request.user),
    }
    return render(request, "fairplay/desk.html", context)


@login_required
@require_GET
def desk_leads(request: HttpRequest) -> HttpResponse:
    """Leads, never verdicts: booster pairs and accounts far from their own history, with
    the figures behind each beside the site's (computed when asked: it replays matches)."""
    _moderator(request)
    context = {
        "population": leads.population(),
        "pairs": leads.booster_pairs(),
        "far": leads.far_from_their_history(),
    }
    return render(request, "fairplay/leads.html", context)


@login_required
@require_GET
def desk_player(request: HttpRequest, user_id: int) -> HttpResponse:
    """One reported player: the reports, the desk's evidence over their recent matches, the
    accounts seen at their addresses, reliability, sanctions; a sanction or closing the
    reports (audited as a view of private data, like the player record)."""
    _moderator(request)
    player = get_object_or_404(User, pk=user_id)
    refused = _conflicted(request, player)
    if refused is not None:
        return refused
    audit.record(
        action=actions.DISPUTE_RECORD_VIEWED, actor=request.user, ip=client_ip(request), obj=player
    )
    return render(request, "fairplay/player.html", _player_context(player, SanctionForm()))


def _player_context(player: User, form: SanctionForm) -> dict[str, Any]:
    seen = record(player)
    return {
        "player": player,
        "reports": selectors.reports_of(player),
        "flags": seen.get("flags", []),
        "think": seen.get("think"),
        "agree": seen.get("agree"),
        "population": seen.get("population"),
        "pop_agree": seen.get("pop_agree"),
        "shared": seen.get("shared", []),
        "reliability": reliability.record(player.pk),
        "sanctions": selectors.sanctions_of(player),
        "form": form,
    }


@login_required
@require_POST
def sanction(request: HttpRequest, user_id: int) -> HttpResponse:
    _moderator(request)
    player = get_object_or_404(User, pk=user_id)
    refused = _conflicted(request, player)
    if refused is not None:
        return refused
    form = SanctionForm(request.POST)
    if form.is_valid():
        try:
            services.sanction(
                moderator=request.user,
                user=player,
                kind=form.cleaned_data["kind"],
                reason=form.cleaned_data["reason"],
                days=form.cleaned_data.get("days"),
                boosting=bool(form.cleaned_data.get("boosting")),
                ip=client_ip(request),
            )
        except services.FairPlayError as refused:
            form.add_error(None, refused.message)
        else:
            messages.success(request, _("Sanction given; the player is told on their profile."))
            return redirect("fairplay:player", user_id=player.pk)
    return render(request, "fairplay/player.html", _player_context(player, form), status=400)


@login_required
@require_POST
def close_reports(request: HttpRequest, user_id: int) -> HttpResponse:
    _moderator(request)
    player = get_object_or_404(User, pk=user_id)
    refused = _conflicted(request, player)
    if refused is not None:
        return refused
    services.close_reports(moderator=request.user, user=player, ip=client_ip(request))
    messages.success(request, _("Reports closed without a sanction."))
    return redirect("fairplay:desk")


@login_required
def decide(request: HttpRequest, pk: int) -> HttpResponse:
    """The moderator an appeal went to reads it and decides; no other reads it (404)."""
    _moderator(request)
    given = get_object_or_404(
        Sanction.objects.select_related("user", "moderator"),
        pk=pk,
        appealed_at__isnull=False,
        appeal_moderator_id=request.user.pk,
    )
    form = DecideForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.decide_appeal(
                moderator=request.user,
                sanction_id=given.pk,
                lift_it=form.cleaned_data["decision"] == "lifted",
                note=form.cleaned_data["note"],
                ip=client_ip(request),
            )
        except services.FairPlayError as refused:
            if refused.code == "conflict":  # handed on to another moderator
                messages.error(request, refused.message)
                return redirect("fairplay:desk")
            form.add_error(None, refused.message)
        else:
            messages.success(request, _("Appeal decided; the player is told on their profile."))
            return redirect("fairplay:desk")
    context = {"sanction": given, "form": form}
    return render(request, "fairplay/decide.html", context, status=400 if form.errors else 200)


# ---------------------------------------------------------------------------- held accounts


def _holds_for(moderator: User) -> list[Any]:
    """Accounts held out of ranked play for a moderator (sanction evasion, `ranked.holds`),
    but none this moderator is part of."""
    return [h for h in holds.open_holds() if moderator.pk not in (h.user_id, h.linked_id)]


@login_required
@require_POST
def decide_hold(request: HttpRequest, pk: int) -> HttpResponse:
    """A moderator lets a held account play ranked, or keeps it out while the linked
    account's suspension lasts."""
    _moderator(request)
    allow = request.POST.get("decision") == "allow"
    try:
        holds.decide(moderator=request.user, hold_id=pk, allow=allow, ip=client_ip(request))
    except holds.HoldError as refused:
        messages.error(request, refused.text())
    else:
        messages.success(
            request,
            _("The account may play ranked.") if allow else _("The account stays out of ranked."),
        )
    return redirect("fairplay:desk")
