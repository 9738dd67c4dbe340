"""Fair play pages: block and unblock a player (from their profile)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.addresses import client_ip
from accounts.models import User, is_guest

from . import services


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
