"""The home page says what the site is and links only to pages that exist."""

import re

from django.contrib.staticfiles import finders
from django.test import Client

from accounts.models import User


def test_home_page_renders(client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<title>Ludo Online</title>" in html
    assert "Play Ludo online" in html
    for ruleset in ("Classic", "Family", "Duel", "Mensch", "Party"):
        assert f"<h3>{ruleset}</h3>" in html
    assert "Fair dice" in html


def test_home_page_links_resolve(client: Client, db: None) -> None:
    html = client.get("/").content.decode()
    hrefs = set(re.findall(r'href="([^"]+)"', html))
    assert hrefs, "expected links on the home page"
    for href in hrefs:
        href = href.removeprefix("http://testserver")  # the hreflang alternates are absolute
        if href.startswith("/static/"):
            assert finders.find(href.removeprefix("/static/")), href
        elif href.startswith("#"):
            assert f'id="{href[1:]}"' in html, f"no target for {href}"
        else:
            assert href.startswith("/"), f"off-site or relative link {href}"
            assert client.get(href).status_code == 200, href


def test_home_page_for_signed_in_staff(client: Client, db: None) -> None:
    admin = User.objects.create_user("ada", password="pw-for-tests", is_staff=True)
    client.force_login(admin)
    html = client.get("/").content.decode()
    assert "Signed in as <strong><bdi>ada</bdi></strong>" in html
    assert 'href="/admin/"' in html
    assert client.get("/admin/").status_code == 200
