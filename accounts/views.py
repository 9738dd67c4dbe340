"""Sign up, sign in, sign out, and the guest players who need no account.

A guest is a real `User` with no usable password and a username starting ``guest-``: the
match services seat users, so a guest who practises or joins a friend's room gets one on the
spot, kept in their session. Signing up as a guest turns that user into a full account, so
the games they played stay theirs. Ranked play is for accounts only.
"""

from __future__ import annotations

import secrets

from django import forms
from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme

from .models import User

GUEST_PREFIX = "guest-"


def is_guest(user: object) -> bool:
    """Whether `user` is a guest player (signed in through the session, without an account)."""
    return bool(getattr(user, "is_authenticated", False)) and str(
        getattr(user, "username", "")
    ).startswith(GUEST_PREFIX)


def player_for(request: HttpRequest) -> User:
    """The signed-in user, or a new guest user signed into this session."""
    if request.user.is_authenticated:
        assert isinstance(request.user, User)
        return request.user
    tag = secrets.token_hex(4)
    guest = User(username=f"{GUEST_PREFIX}{tag}", display_name=f"Guest {tag[:4].upper()}")
    guest.set_unusable_password()
    guest.save()
    login(request, guest, backend="django.contrib.auth.backends.ModelBackend")
    return guest


class SignUpForm(UserCreationForm):  # type: ignore[type-arg]
    display_name = forms.CharField(
        max_length=40, required=False, help_text="Shown at the table; your username if blank."
    )

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "display_name")

    def clean_username(self) -> str:
        username = str(self.cleaned_data["username"])
        if username.lower().startswith(GUEST_PREFIX):
            raise forms.ValidationError("Usernames starting with “guest-” are kept for guests.")
        if User.objects.filter(username__iexact=username).exists():
            raise forms.ValidationError("That username is taken.")
        return username


def _next(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or "/"
    if url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        return target
    return "/"


def signup(request: HttpRequest) -> HttpResponse:
    """Create an account; a guest's own user becomes the account, keeping their games."""
    guest = request.user if is_guest(request.user) else None
    if request.method == "POST":
        form = SignUpForm(request.POST, instance=guest)
        if form.is_valid():
            user = form.save()
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect(_next(request))
    else:
        form = SignUpForm()
    return render(request, "registration/signup.html", {"form": form, "next": _next(request)})
