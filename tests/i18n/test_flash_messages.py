"""What the Python views say after a form (flash messages, refusals, form labels) is in the
reader's language (issue 29): a dispute opened from a German page is confirmed in German, a
refusal reads German while its English `message` stays for the tools, a match history names
places in German, and the dispute desk keeps no unmarked word."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse
from django.utils import translation

from accounts.models import User
from disputes import services
from disputes.models import MODERATORS, Dispute
from disputes.services import DisputeError
from games.models import Match
from tests.i18n.pseudo import english_words, pseudo_locale
from tests.i18n.test_pseudo_pages import DATA
from tests.ranked.matches import finish, ranked_match

pytestmark = pytest.mark.django_db

OPENED_DE = "Dein Streitfall ist eröffnet. Ein Moderator wird die Partie prüfen."
OPENED_EN = "Your dispute is open. A moderator will review the match."


def players() -> tuple[User, User, Match]:
    a = User.objects.create_user("ana", password="pw-for-tests")
    b = User.objects.create_user("ben", password="pw-for-tests")
    return a, b, finish(ranked_match("duel", [a, b]), [a, b])


def signed_in(user: User, **headers: str) -> Client:
    c = Client(**headers)
    c.force_login(user)
    return c


def open_from(c: Client, match: Match, query: str = "", text: str = "Six ones in a row") -> str:
    response = c.post(
        reverse("disputes:open", args=[match.code]) + query,
        {"reason": "dice", "text": text, "turn": "1"},
        follow=True,
    )
    assert response.status_code == 200
    return " ".join(str(m) for m in response.context["messages"])


@pytest.mark.parametrize("how", ["accept-language", "?lang=de"])
def test_a_dispute_opened_in_german_is_confirmed_in_german(how: str) -> None:
    _a, b, match = players()
    if how == "accept-language":
        said = open_from(signed_in(b, HTTP_ACCEPT_LANGUAGE="de,en;q=0.5"), match)
    else:
        said = open_from(signed_in(b), match, "?lang=de")
    assert Dispute.objects.filter(player=b).count() == 1
    assert said == OPENED_DE and OPENED_EN not in said


def test_the_same_dispute_in_english_keeps_its_english_words() -> None:
    _a, b, match = players()
    assert open_from(signed_in(b, HTTP_ACCEPT_LANGUAGE="en"), match) == OPENED_EN


def test_a_refusal_reads_german_and_keeps_its_english_message(settings) -> None:  # type: ignore[no-untyped-def]
    a, b, match = players()
    c = signed_in(b, HTTP_ACCEPT_LANGUAGE="de")
    open_from(c, match)
    again = c.get(reverse("disputes:open", args=[match.code]), follow=True)
    said = " ".join(str(m) for m in again.context["messages"])
    assert said == "Du hast schon einen offenen Streitfall zu dieser Partie."
    with translation.override("de"), pytest.raises(DisputeError) as refused:
        services.dispute_open(match_id=match.pk, user=b, reason="dice", text="again")
    assert refused.value.message == "You already have an open dispute about this match."
    assert refused.value.text("fr") == "Vous avez déjà un litige ouvert sur cette partie."
    # The window's refusal names its days in the reader's plural form.
    settings.DISPUTE_WINDOW_DAYS = 7
    with translation.override("ar"):
        assert "7 أيام" in str(services.refusal("window_closed"))
    settings.DISPUTE_WINDOW_DAYS = 14
    with translation.override("ar"):
        assert "14 يومًا" in str(services.refusal("window_closed"))
    with translation.override("en"):
        assert str(services.refusal("window_closed")) == (
            "Disputes close 14 days after the match ends; this one is closed."
        )
    # The form's labels and the reasons to pick from are German too.
    form = signed_in(a, HTTP_ACCEPT_LANGUAGE="de").get(reverse("disputes:open", args=[match.code]))
    page = form.content.decode()
    assert "Was ist schiefgelaufen" in page and "Die Würfel" in page
    assert "What went wrong" not in page and "The dice" not in page


def test_a_match_history_names_places_in_the_readers_language() -> None:
    _a, b, match = players()
    loser = match.seats.exclude(place=1).get().user
    html = signed_in(b, HTTP_ACCEPT_LANGUAGE="de").get(f"/players/{loser.username}/")
    assert "2. von 2" in html.content.decode()
    english = Client(HTTP_ACCEPT_LANGUAGE="en").get(f"/players/{loser.username}/")
    assert "2nd of 2" in english.content.decode()


def test_the_dispute_desk_in_the_pseudo_locale(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The player's and the moderators' dispute pages, and what their forms answer, keep no
    plain English word but their data, rendered in the pseudo-locale (tests/i18n/pseudo.py)."""
    a, b, match = players()
    mod = User.objects.create_user("mod", password="pw-for-tests", is_staff=True)
    mod.groups.add(Group.objects.get_or_create(name=MODERATORS)[0])
    player, desk = signed_in(b), signed_in(mod)
    xx = {"lang": "xx"}
    data = DATA | {"ana", "ben", "mod", "zzz"}
    with pseudo_locale(monkeypatch):
        flashes = [open_from(player, match, "?lang=xx", text="zzz")]
        dispute = Dispute.objects.get()
        pages = {
            "open": signed_in(a).get(reverse("disputes:open", args=[match.code]), xx),
            "mine": player.get(reverse("disputes:mine"), xx),
            "queue": desk.get(reverse("disputes:queue"), xx),
            "review": desk.get(reverse("disputes:review", args=[dispute.pk]), xx),
            "record": desk.get(reverse("disputes:record", args=[b.pk]), xx),
        }
        asked = desk.post(
            reverse("disputes:ask", args=[dispute.pk]) + "?lang=xx",
            {"question": "zzz"},
            follow=True,
        )
        flashes += [str(m) for m in asked.context["messages"]]
        settled = desk.post(
            reverse("disputes:settle", args=[dispute.pk]) + "?lang=xx",
            {"outcome": "reject", "reason": "zzz"},
            follow=True,
        )
        flashes += [str(m) for m in settled.context["messages"]]
        pages["detail"] = player.get(reverse("disputes:detail", args=[dispute.pk]), xx)
        pages["profile"] = player.get(f"/players/{a.username}/", xx)
    for name, response in pages.items():
        assert response.status_code == 200, name
        # The dice proof's summary is games.match.verify's own line (the verify_match
        # command's output, codes and counts): not a sentence of the site's.
        html = re.sub(r'<p id="proof-summary".*?</p>', "", response.content.decode())
        left = {w for w in english_words(html, data) if not set(w) <= set(match.code)}
        assert left == set(), (name, sorted(left))
    assert len(flashes) == 3
    left = english_words(" ".join(f"<p>{f}</p>" for f in flashes), data)
    assert left == set(), (flashes, sorted(left))
