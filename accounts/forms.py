"""The account forms: sign up (a guest's user becomes the account), sign in with limited
attempts, and the account's own details."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import authenticate
from django.contrib.auth.forms import AdminUserCreationForm as DjangoAdminUserCreationForm
from django.contrib.auth.forms import AuthenticationForm, UserChangeForm, UserCreationForm
from django.http import HttpRequest
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from audit import actions
from audit import services as audit

from . import throttle
from .addresses import client_ip
from .models import GUEST_PREFIX, User
from .names import check_name


def _email_free(email: str, user: User | None) -> str:
    """One account per email address, so a reset link goes to one account only."""
    email = User.objects.normalize_email(email.strip())
    if email:
        taken = User.objects.filter(email__iexact=email)
        if user is not None and user.pk:
            taken = taken.exclude(pk=user.pk)
        if taken.exists():
            raise forms.ValidationError(_("Another account uses that email address."))
    return email


# The Terms of Service and fair play rules a new account accepts (templates/terms.html); the
# sign-up's audit entry records which.
TERMS_VERSION = "2026-12-01"


class SignUpForm(UserCreationForm):  # type: ignore[type-arg]
    """A new account. Given a guest's user as `instance`, that user becomes the account."""

    terms = forms.BooleanField(
        required=True,
        label=_("I accept the Terms of Service and fair play rules"),
        help_text=_(
            'No cheating, collusion, automated play or second accounts. <a href="/terms/" '
            'target="_blank" rel="noopener">Read the Terms of Service and fair play rules</a>.'
        ),
        error_messages={
            "required": _("To create an account, accept the Terms of Service and fair play rules.")
        },
    )

    display_name = forms.CharField(
        max_length=40,
        required=False,
        label=_("Display name"),
        help_text=_("Shown at the table; your username if blank."),
    )
    email = forms.EmailField(
        required=False,
        label=_("Email"),
        help_text=_("Optional: only used to send you a password reset link."),
    )

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "display_name", "email")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            # A guest's generated "Guest 1A2B" is not a name they chose.
            self.initial["display_name"] = ""

    def clean_username(self) -> str:
        username = str(self.cleaned_data["username"])
        if username.lower().startswith(GUEST_PREFIX):
            raise forms.ValidationError(_("Usernames starting with “guest-” are kept for guests."))
        taken = User.objects.filter(username__iexact=username)
        if self.instance.pk:
            taken = taken.exclude(pk=self.instance.pk)
        if taken.exists():
            raise forms.ValidationError(_("That username is taken."))
        return check_name(username)

    def clean_display_name(self) -> str:
        return check_name(str(self.cleaned_data.get("display_name") or ""))

    def clean_email(self) -> str:
        return _email_free(str(self.cleaned_data.get("email") or ""), self.instance)


class SignInForm(AuthenticationForm):
    """Django's sign-in form with attempts limited (`accounts.throttle`) and audited."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": _(
            "That username and password do not match an account. Both are case-sensitive."
        ),
        "limited": _(
            "Too many failed sign-ins for this %(what)s. Try again in %(minutes)s, "
            "or reset your password."
        ),
    }

    request: HttpRequest | None

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if username is None or not password:
            return self.cleaned_data
        ip = client_ip(self.request) if self.request is not None else None
        known = User.objects.filter(username=username).first()
        refusal = throttle.attempt(username, ip)
        if refusal is not None:
            if refusal.first:  # once per window: a flood of refused attempts writes nothing
                audit.record(
                    action=actions.USER_SIGN_IN_LIMITED,
                    actor=known,
                    ip=ip,
                    extra={"username": username[:150], "by": refusal.by},
                )
            minutes = ngettext("%(n)s minute", "%(n)s minutes", refusal.minutes) % {
                "n": refusal.minutes
            }
            what = gettext("account") if refusal.by == "username" else gettext("network address")
            raise forms.ValidationError(
                self.error_messages["limited"],
                code="limited",
                params={"what": what, "minutes": minutes},
            )
        self.user_cache = authenticate(self.request, username=username, password=password)
        if self.user_cache is None:
            audit.record(
                action=actions.USER_SIGN_IN_FAILED,
                actor=known,
                ip=ip,
                extra={"username": username[:150]},
            )
            raise self.get_invalid_login_error()
        self.confirm_login_allowed(self.user_cache)
        throttle.succeeded(username, ip)
        return self.cleaned_data


class AdminSignInForm(SignInForm, AdminAuthenticationForm):
    """The admin site's sign-in (staff only), with the same limits and audit."""

    error_messages = {
        **SignInForm.error_messages,
        "invalid_login": AdminAuthenticationForm.error_messages["invalid_login"],
    }


class AccountForm(forms.ModelForm):  # type: ignore[type-arg]
    """What an account holder may change about themselves."""

    class Meta:
        model = User
        fields = ("display_name", "email")
        help_texts = {
            "display_name": _("Shown at the table; your username if blank."),
            "email": _("Optional: only used to send you a password reset link."),
        }
        labels = {
            "display_name": _("Display name"),
            "email": _("Email"),
        }

    def clean_email(self) -> str:
        return _email_free(str(self.cleaned_data.get("email") or ""), self.instance)

    def clean_display_name(self) -> str:
        return check_name(str(self.cleaned_data.get("display_name") or ""))


class NamesCheckedMixin:
    """The admin's forms that set a username or display name refuse the same names as the
    site's own forms (`accounts.names.check_name`)."""

    cleaned_data: dict[str, Any]

    def clean_username(self) -> str:
        cleaner = getattr(super(), "clean_username", None)
        username = cleaner() if cleaner is not None else self.cleaned_data.get("username")
        return check_name(str(username or ""))

    def clean_display_name(self) -> str:
        return check_name(str(self.cleaned_data.get("display_name") or ""))


class AdminUserChangeForm(NamesCheckedMixin, UserChangeForm):  # type: ignore[type-arg]
    pass


class AdminUserCreationForm(NamesCheckedMixin, DjangoAdminUserCreationForm):  # type: ignore[type-arg]
    pass
