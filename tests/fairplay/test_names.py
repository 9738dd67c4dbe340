"""No person may pass for one of the site's bots or for its staff (security review, issue 33):
one normaliser (`accounts.names`), used by every form that sets a name."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.test import Client, RequestFactory

from accounts.forms import AccountForm, SignUpForm
from accounts.models import User
from accounts.names import fold, passes_for_the_site
from tests.accounts.conftest import PASSWORD, fresh_ip, unique

REFUSED = [
    "Kai, medium bot",
    "BOT",
    "Moderator (staff)",
    "bot",
    "B0T",  # a zero for the o
    "Ьot",  # a Cyrillic soft sign for the b
    "ВОТ",  # Cyrillic capitals
    "ＢＯＴ",  # fullwidth
    "b.o.t",
    "s t a f f",
    "KaiBot",
    "mediumbot",
    "Expert_Bot",
    "Admin1",
    "ѕtaff",  # a Cyrillic dze for the s
    "m0derat0r",
    "Adm\u200bin",  # a zero-width space inside
    "Administrator",
    "bòt",  # an accent on the o
]
ALLOWED = [
    "Robot",
    "Abbott",
    "Alice",
    "Robin Hood",
    "badminton",
    "Staffordshire",
    "Kai",
    "Zoë",
    "Noor Hardy",
    "Борис",
    "محمد",
    "राहुल",
    "রাহুল\u200dদাস",  # a joiner Bengali may need stays allowed
    "Ştefan",
    "İlker",
]

# Look-alikes of bot, staff, moderator and admin, and bots' names with a level: each one
# shown in a room or a list would pass for the site.
LOOK_ALIKES = [
    "ʙᴏᴛ",  # Latin small capitals
    "ꓐꓳꓔ",  # Lisu
    "Ꮪtaff",  # Cherokee
    "ᴍᴏᴅᴇʀᴀᴛᴏʀ",
    "Kai, medium",
    "Noor (expert)",
    "Sasha hard",
    "Robin · easy",
    "ꜱᴛᴀꜰꜰ",
    "ᴀᴅᴍɪɴ",
    "ᏴOᎢ",  # Cherokee B and T
    "Ꭺdmin",  # Cherokee A
    "ꓢꓔꓮꓝꓝ",  # Lisu
    "ΒΟΤ",  # Greek capitals
    "𝐁𝐎𝐓",  # mathematical bold
    "𝔟𝔬𝔱",  # fraktur
    "Ⓑⓞⓣ",  # circled
    "ⅿod",  # a Roman numeral for the m
    "𝓂𝑜𝒹",  # mathematical script and italic
    "bᴏt",
    "ʙot",
    "Mоd",  # a Cyrillic o
    "ѕᴛаff",  # Cyrillic and small capitals mixed
    "ɑdmin",  # a Latin alpha
    "ᗷOT",  # Canadian syllabics
    "Ᏼot",  # Cherokee
    "ꜱtaff",
    "ᴍod",
    "sᴛaff",
]


@pytest.mark.parametrize("name", LOOK_ALIKES)
def test_look_alikes_by_unicodes_table_are_refused(name: str) -> None:
    assert passes_for_the_site(name)


def test_the_look_alikes_are_all_different() -> None:
    assert len(set(LOOK_ALIKES)) == 29


@pytest.mark.parametrize(
    "name",
    [
        "\u202etob muidem ,iaK",  # reads "Kai, medium bot" on screen
        "Ann\u202e",
        "\u2066Ann\u2069",  # an isolate
        "An\u200fn",  # a right-to-left mark
        "Ann\u3164",  # a Hangul filler: a letter that shows nothing
        "\u2800",
        "Ann\u00ad",  # a soft hyphen
    ],
)
def test_names_with_hidden_characters_are_refused(name: str) -> None:
    from django import forms

    from accounts.names import check_name

    with pytest.raises(forms.ValidationError) as refused:
        check_name(name)
    assert refused.value.code == "hidden_characters"


@pytest.mark.parametrize("name", REFUSED)
def test_names_that_pass_for_a_bot_or_staff_are_refused(name: str) -> None:
    assert passes_for_the_site(name)


@pytest.mark.parametrize("name", ALLOWED)
def test_ordinary_names_pass(name: str) -> None:
    assert not passes_for_the_site(name)


def test_look_alikes_fold_to_the_letters_they_imitate() -> None:
    assert fold("ВОТ") == fold("bot") == fold("B0T") == "bot"
    assert fold("ＡＤＭＩＮ") == "admin"


def _sign_up(data: dict[str, str]) -> Any:
    return Client(REMOTE_ADDR=fresh_ip()).post(
        "/accounts/signup/",
        {"password1": PASSWORD, "password2": PASSWORD, "terms": "on", **data},
    )


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["Kai, medium bot", "BOT", "Moderator (staff)"])
def test_sign_up_refuses_such_a_display_name(name: str) -> None:
    username = unique("n")
    response = _sign_up({"username": username, "display_name": name})
    assert response.status_code == 200
    assert "names that read as a bot" in response.content.decode()
    assert not User.objects.filter(username=username).exists()


@pytest.mark.django_db
def test_sign_up_refuses_the_username_bot_in_any_case() -> None:
    for username in ("BOT", "b0t", "staff"):
        response = _sign_up({"username": username})
        assert response.status_code == 200
        assert response.context["form"].has_error("username", code="reserved_name")
        assert not User.objects.filter(username__iexact=username).exists()
    assert _sign_up({"username": unique("fine")}).status_code == 302


@pytest.mark.django_db
def test_every_form_that_sets_a_name_refuses_it() -> None:
    user = User.objects.create_user(unique("p"), password=PASSWORD)
    account = AccountForm({"display_name": "Kai, medium bot", "email": ""}, instance=user)
    assert not account.is_valid()
    assert account.has_error("display_name", code="reserved_name")
    assert AccountForm({"display_name": "Kai the Bold", "email": ""}, instance=user).is_valid()
    signup = SignUpForm({"username": unique("s"), "display_name": "ADMIN", "terms": "on"})
    assert signup.has_error("display_name", code="reserved_name")
    # The admin's forms, as the admin builds them over the site's user model.
    admin_form = admin.site._registry[User]
    request = RequestFactory().get("/admin/")
    request.user = User.objects.create_superuser(unique("root"), password=PASSWORD)
    add = admin_form.get_form(request, obj=None)(
        {"username": "bot", "password1": PASSWORD, "password2": PASSWORD, "usable_password": "true"}
    )
    assert add.has_error("username", code="reserved_name")
    change_form = admin_form.get_form(request, obj=user)
    data = {**change_form(instance=user).initial, "display_name": "Moderator (staff)"}
    data["date_joined"] = user.date_joined.strftime("%Y-%m-%d %H:%M:%S")
    change = change_form(data, instance=user)
    assert change.has_error("display_name", code="reserved_name")
