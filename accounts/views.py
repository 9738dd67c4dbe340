"""Sign up, sign in and out, passwords, the account page, players' profiles, and the guest
players who need no account.

A guest is a real `User` with no usable password and a username starting ``guest-``: the
match services seat users, so a guest who practises or joins a friend's room gets one on the
spot, kept in their session. Signing up as a guest turns that user into a full account, so
the games they played stay theirs. Ranked play is for accounts only. Guests' profiles are not
public.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse, reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET

from audit import actions
from audit import services as audit
from games import services
from games.match.errors import ServiceError, said
from games.match.reports import player_reports
from games.match.selectors import unfinished_games
from ranked.models import provisional_games
from ranked.ratings import leaderboard_min_games

from . import profiles, throttle
from .addresses import client_ip
from .forms import TERMS_VERSION, AccountForm, SignInForm, SignUpForm
from .models import GUEST_PREFIX, User, is_guest


def player_for(request: HttpRequest) -> User:
    """The signed-in user, or a new guest user signed into this session; a `ServiceError`
    (``too_many_guests``) when the address made its hour's guests already."""
    if request.user.is_authenticated:
        assert isinstance(request.user, User)
        return request.user
    ip = client_ip(request)
    if not throttle.take_guest(ip):  # counted first, then compared: parallel requests too
        raise ServiceError(
            "too_many_guests",
            said(
                gettext_lazy(
                    "Too many guest players from your address in the last hour: sign up or "
                    "sign in, or try again later."
                )
            ),
        )
    tag = secrets.token_hex(4)
    guest = User(username=f"{GUEST_PREFIX}{tag}", display_name=f"Guest {tag[:4].upper()}")
    guest.set_unusable_password()
    guest.save()
    login(request, guest, backend="django.contrib.auth.backends.ModelBackend")
    return guest


def _next(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or "/"
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return "/"


def signup(request: HttpRequest) -> HttpResponse:
    """Create an account; a guest's own user becomes the account, keeping their games."""
    # A copy: the form writes into its instance while it validates, and the session's user
    # must keep its guest name if the form is refused.
    guest = User.objects.get(pk=request.user.pk) if is_guest(request.user) else None
    if request.method == "POST":
        form = SignUpForm(request.POST, instance=guest)
        ip = client_ip(request)
        # Counted first, then compared, so parallel sign-ups cannot all read a count below
        # the limit (accounts.throttle.take_sign_up).
        if form.is_valid() and not throttle.take_sign_up(ip):
            form.add_error(
                None,
                _("Too many new accounts from your address in the last hour: try again later."),
            )
            context = {"form": form, "next": _next(request)}
            return render(request, "registration/signup.html", context, status=429)
        if form.is_valid():
            was = request.user.get_username() if guest is not None else None
            try:
                user = form.save()
            except BaseException:
                throttle.give_back_sign_up(ip)
                raise
            audit.record(
                action=actions.USER_GUEST_UPGRADED if was else actions.USER_SIGNED_UP,
                actor=user,
                ip=client_ip(request),
                obj=user,
                extra={
                    "username": user.username,
                    "terms": TERMS_VERSION,
                    **({"guest": was} if was else {}),
                },
            )
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            if was:
                messages.success(request, _("Your account is ready, and your games are kept."))
            return redirect(_next(request))
    else:
        form = SignUpForm(instance=guest)
    return render(request, "registration/signup.html", {"form": form, "next": _next(request)})


class SignInView(auth_views.LoginView):
    """Sign in, with attempts limited and audited (`accounts.forms.SignInForm`)."""

    form_class = SignInForm
    next_page = "/"

    def form_valid(self, form: SignInForm) -> HttpResponse:  # type: ignore[override]
        guest = self.request.user if is_guest(self.request.user) else None
        response = super().form_valid(form)
        if signed_in(self.request, form.get_user(), guest=guest):
            messages.success(self.request, _("Your games as a guest are now on your account."))
        return response


def signed_in(request: HttpRequest, user: User, *, guest: Any) -> int:
    """After a sign-in that `SignInForm` allowed (the form, the admin's, `POST /api/session`):
    audit it and bring the `guest` session's games to the account. Returns how many seats
    moved."""
    audit.record(action=actions.USER_SIGNED_IN, actor=user, ip=client_ip(request), obj=user)
    if guest is not None and guest.pk != user.pk:
        # Signing in over a guest session: the guest's games come along.
        return services.seats_hand_over(guest=guest, account=user)
    return 0


class SignOutView(auth_views.LogoutView):
    next_page = "/"

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        user = request.user
        if user.is_authenticated and not is_guest(user):
            audit.record(
                action=actions.USER_SIGNED_OUT, actor=user, ip=client_ip(request), obj=user
            )
        return super().post(request, *args, **kwargs)


class PasswordChangeView(auth_views.PasswordChangeView):
    """Change the password (the old one first); guests have none, so they sign up instead."""

    success_url = reverse_lazy("password_change_done")

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if is_guest(request.user):
            messages.info(request, _("Guests have no password yet: sign up to choose one."))
            return redirect(f"{reverse('signup')}?next={reverse('account')}")
        return super().dispatch(request, *args, **kwargs)

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        audit.record(
            action=actions.USER_PASSWORD_CHANGED,
            actor=form.user,
            ip=client_ip(self.request),
            obj=form.user,
        )
        return response


class PasswordResetView(auth_views.PasswordResetView):
    """Ask for a reset link by email. Requests are limited (`throttle.reset_allowed`); past
    the limit the page says the same and sends nothing, so it tells no one which addresses
    have accounts."""

    success_url = reverse_lazy("password_reset_done")

    def form_valid(self, form: Any) -> HttpResponse:
        if not throttle.reset_allowed(form.cleaned_data["email"], client_ip(self.request)):
            return redirect(self.get_success_url())
        return super().form_valid(form)


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """Set a new password from an emailed link (then sign in with it)."""

    success_url = reverse_lazy("password_reset_complete")

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        audit.record(
            action=actions.USER_PASSWORD_RESET,
            actor=form.user,
            ip=client_ip(self.request),
            obj=form.user,
        )
        return response


@login_required
def account(request: HttpRequest) -> HttpResponse:
    """The account's own page: name and email, and links to the password and the profile."""
    if is_guest(request.user):
        return redirect(f"{reverse('signup')}?next={reverse('account')}")
    assert isinstance(request.user, User)
    form = AccountForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, _("Saved."))
        return redirect("account")
    return render(request, "accounts/account.html", {"form": form})


@require_GET
def profile(request: HttpRequest, username: str) -> HttpResponse:
    """A player's ratings, results and match history. Guests' profiles are theirs alone."""
    player = get_object_or_404(User, username=username, is_active=True)
    own = request.user.is_authenticated and request.user.pk == player.pk
    if is_guest(player) and not own:
        raise Http404(_("No such player"))
    page, rows = profiles.history(player, request.GET.get("page"))
    ratings = profiles.queue_ratings(player)
    context = {
        "player": player,
        "own": own,
        "guest": is_guest(player),
        "ratings": ratings,
        "has_ratings": any(q.rating is not None for q in ratings),
        "results": profiles.results(player),
        "luck": player_reports(player),  # issue 31: luck and decisions over recent matches
        "page": page,
        "rows": rows,
        "provisional_games": provisional_games(),
        "min_games": leaderboard_min_games(),
        # The player's own unfinished games, to continue (never shown to anyone else).
        "your_games": unfinished_games(player) if own else [],
    }
    return render(request, "accounts/profile.html", context)


@login_required
def my_profile(request: HttpRequest) -> HttpResponse:
    return redirect("profile", username=request.user.get_username())
