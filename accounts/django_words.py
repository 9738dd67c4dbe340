"""Django's own words that the account pages show (sign-up, password change and reset), put
in the site's catalogues too.

Django translates them from its own catalogues, which leave some of the site's languages
without them (in Django 5: Hindi, Bengali and Urdu lack the password rules; most languages
lack the username's help text). The site's catalogues are read first (`LOCALE_PATHS`), so the
same msgid translated there is what every page shows. Nothing calls these: `makemessages`
reads them from here, and `tests/i18n/test_catalogues.py` checks that each is still one of
Django's (a Django upgrade that rewords one shows up there)."""

from __future__ import annotations

from django.utils.translation import gettext_noop, ngettext_lazy

SINGULAR = (
    gettext_noop("Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only."),
    gettext_noop("A user with that username already exists."),
    gettext_noop(
        "Enter a valid username. This value may contain only letters, "
        "numbers, and @/./+/-/_ characters."
    ),
    gettext_noop("The password is too similar to the %(verbose_name)s."),
    gettext_noop("Your password can’t be too similar to your other personal information."),
    gettext_noop("This password is too common."),
    gettext_noop("Your password can’t be a commonly used password."),
    gettext_noop("This password is entirely numeric."),
    gettext_noop("Your password can’t be entirely numeric."),
    gettext_noop("The two password fields didn’t match."),
    gettext_noop("Enter the same password as before, for verification."),
    gettext_noop("Your old password was entered incorrectly. Please enter it again."),
)

PLURAL = (
    ngettext_lazy(
        "This password is too short. It must contain at least %d character.",
        "This password is too short. It must contain at least %d characters.",
        "n",
    ),
    ngettext_lazy(
        "Your password must contain at least %(min_length)d character.",
        "Your password must contain at least %(min_length)d characters.",
        "min_length",
    ),
)
