"""The JSON API: session sign-in with CSRF, rooms, snapshots, the replay; JSON errors."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from games import services
from games.match import dice
from games.models import Match, Status

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


class Api:
    """A browser-like client: CSRF enforced, token read from the session endpoint."""

    def __init__(self, user: User | None = None) -> None:
        self.client = Client(enforce_csrf_checks=True)
        if user is not None:
            self.client.force_login(user)
        self.csrf = self.client.get("/api/session").json()["csrf"]

    def get(self, path: str) -> Any:
        return self.client.get(path)

    def post(
        self, path: str, body: Any = None, *, csrf: bool = True, raw: str | None = None
    ) -> Any:
        headers = {"X-CSRFToken": self.csrf} if csrf else {}
        data = raw if raw is not None else json.dumps(body or {})
        return self.client.post(path, data, content_type="application/json", headers=headers)


def error_of(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["code"] == code and body["message"]


@pytest.fixture
def ann(db: None) -> User:
    return User.objects.create_user("ann", password="pw-ann-123")


@pytest.fixture
def ben(db: None) -> User:
    return User.objects.create(username="ben")


def test_sign_in_and_out_with_csrf(ann: User) -> None:
    api = Api()
    assert api.get("/api/session").json()["user"] is None
    error_of(
        api.post("/api/session", {"username": "ann", "password": "nope"}), 401, "unauthenticated"
    )
    error_of(
        api.post("/api/session", {"username": "ann", "password": "pw-ann-123"}, csrf=False),
        403,
        "csrf_failed",
    )
    signed = api.post("/api/session", {"username": "ann", "password": "pw-ann-123"})
    assert signed.status_code == 200 and signed.json()["user"] == "ann"
    api.csrf = signed.json()["csrf"]  # the token rotates on sign-in
    assert api.get("/api/session").json()["user"] == "ann"
    assert (
        api.client.delete("/api/session", headers={"X-CSRFToken": api.csrf}).json()["user"] is None
    )


def test_create_join_and_play_a_room(ann: User, ben: User) -> None:
    host, guest = Api(ann), Api(ben)
    made = host.post("/api/matches", {"ruleset": "classic", "players": 2, "mode": "friendly"})
    assert made.status_code == 201
    room = made.json()
    code = room["code"]
    assert room["url"] == f"http://testserver/r/{code}/" and room["ws"] == f"/ws/match/{code}/"
    assert host.get(f"/api/matches/{code}").json()["status"] == "waiting"
    joined = guest.post(f"/api/matches/{code}/join")
    assert joined.status_code == 200 and joined.json()["corner"] == 2
    snap = guest.get(f"/api/matches/{code.lower()}").json()  # codes read in any case
    assert snap["status"] == "active" and snap["v"] >= 1
    to_play = host if snap["to_play"] == 0 else guest
    rolled = to_play.post(f"/api/matches/{code}/actions", {"t": "roll", "v": snap["v"], "id": "r1"})
    assert rolled.status_code == 200 and rolled.json()["seq"] > snap["v"]
    assert rolled.json()["events"][0]["kind"] == "rolled"
    qr = host.get(f"/api/matches/{code}/qr.svg")
    assert qr.status_code == 200 and qr["Content-Type"] == "image/svg+xml"
    assert qr.content.startswith(b"<svg")
    # Each seat keeps the address it was taken from, for staff (same-IP checks, disputes).
    assert {s.user_id: s.ip for s in Match.objects.get(code=code).seats.all()} == {
        ann.pk: "127.0.0.1",
        ben.pk: "127.0.0.1",
    }


def test_errors_are_json_with_the_right_status(ann: User, ben: User) -> None:
    anon, host, guest = Api(), Api(ann), Api(ben)
    error_of(anon.post("/api/matches", {"ruleset": "classic"}), 401, "unauthenticated")
    error_of(host.post("/api/matches", {"ruleset": "classic"}, csrf=False), 403, "csrf_failed")
    error_of(host.post("/api/matches", raw="{nope"), 400, "bad_message")
    error_of(host.post("/api/matches", raw="[1]"), 400, "bad_message")
    error_of(host.post("/api/matches", raw=json.dumps({"x": "y" * 9000})), 413, "too_large")
    error_of(
        host.post("/api/matches", {"ruleset": "chess", "players": 2, "mode": "friendly"}),
        400,
        "bad_request",
    )
    error_of(
        host.post("/api/matches", {"ruleset": "duel", "players": 4, "mode": "friendly"}),
        400,
        "bad_request",
    )
    error_of(
        host.post(
            "/api/matches", {"ruleset": "classic", "players": 2, "mode": "ranked", "bots": [2]}
        ),
        400,
        "ranked_no_bots",
    )
    error_of(host.get("/api/matches/ZZZZZZ"), 404, "not_found")
    error_of(host.get("/api/matches/a!b"), 404, "not_found")
    error_of(host.client.put("/api/matches"), 405, "method_not_allowed")
    code = host.post(
        "/api/matches", {"ruleset": "classic", "players": 2, "mode": "friendly"}
    ).json()["code"]
    error_of(host.post(f"/api/matches/{code}/join"), 409, "already_seated")
    guest.post(f"/api/matches/{code}/join")
    error_of(Api(User.objects.create(username="cy")).post(f"/api/matches/{code}/join"), 409, "full")
    snap = host.get(f"/api/matches/{code}").json()
    idle = guest if snap["to_play"] == 0 else host
    error_of(
        idle.post(f"/api/matches/{code}/actions", {"t": "roll", "v": snap["v"], "id": "x"}),
        409,
        "not_your_turn",
    )
    error_of(idle.post(f"/api/matches/{code}/actions", {"t": "dance"}), 400, "bad_message")
    assert Match.objects.count() == 1  # nothing half-made by the refusals


def test_replay_reveals_the_dice_proof_only_at_the_end(ann: User, ben: User) -> None:
    match = services.match_create(ruleset="classic", players=2, mode="friendly", host=ann, first=0)
    services.match_join(code=match.code, user=ben)
    match.refresh_from_db()
    services.match_roll(match_id=match.pk, user=ann, seq=match.seq, action_id="a")
    api = Api()
    record = api.get(f"/api/matches/{match.code}/replay").json()
    assert record["proof"] == {"commitment": match.commitment, "client_seed": match.client_seed}
    assert match.server_seed not in json.dumps(record)
    assert [r["n"] for r in record["rolls"]] == [0]
    services.match_resign(match_id=match.pk, user=ben)
    match.refresh_from_db()
    assert match.status == Status.FINISHED
    record = api.get(f"/api/matches/{match.code}/replay").json()
    proof = record["proof"]
    assert proof["server_seed"] == match.server_seed and proof["verified"] is True
    assert dice.commitment(proof["server_seed"]) == proof["commitment"]
    assert record["seats"][1]["left"] is True
    assert [e["seq"] for e in record["events"]] == list(range(1, match.seq + 1))


def test_ranked_rooms_are_made_by_matchmaking_only(ann: User, ben: User) -> None:
    """Issue 12: the API answered 500 for a ranked room, and anyone with the code could sit
    in a waiting ranked room, which was then rated."""
    host = Api(ann)
    error_of(
        host.post("/api/matches", {"ruleset": "duel", "players": 2, "mode": "ranked"}),
        403,
        "ranked_by_matchmaking",
    )
    carol = User.objects.create(username="carol")
    match = services.match_create(
        ruleset="duel", players=2, mode="ranked", host=ann, paired=[ann, ben]
    )
    error_of(Api(carol).post(f"/api/matches/{match.code}/join"), 403, "ranked_by_matchmaking")
    assert not match.seats.filter(user=carol).exists()
    # The paired player sits, signed in through the request (a lazy user object).
    joined = Api(ben).post(f"/api/matches/{match.code}/join")
    assert joined.status_code == 200, joined.content
    assert Match.objects.get(pk=match.pk).status == Status.ACTIVE


def test_ranked_room_page_join_is_refused_with_a_message(ann: User, ben: User) -> None:
    carol = User.objects.create(username="carol")
    match = services.match_create(
        ruleset="duel", players=2, mode="ranked", host=ann, paired=[ann, ben]
    )
    browser = Client()
    browser.force_login(carol)
    join_form = f'action="/r/{match.code}/join/"'.encode()
    assert join_form not in browser.get(f"/r/{match.code}/").content  # no Join button
    paired = Client()
    paired.force_login(ben)
    assert join_form in paired.get(f"/r/{match.code}/").content
    page = browser.post(f"/r/{match.code}/join/", follow=True)
    assert page.status_code == 200
    assert b"quick match" in page.content
    assert not match.seats.filter(user=carol).exists()


def test_api_sign_in_has_the_forms_limits_and_audit(db: None) -> None:
    """Issue 12: thirty wrong passwords through the API were thirty 401s, and then the right
    one worked although the sign-in form had locked that name."""
    from audit.models import AuditEntry

    # An account of its own: the sign-in counts outlive the test (the cache).
    kit = User.objects.create_user("kit-locked", password="pw-kit-123")
    api = Api()
    api.client.defaults["REMOTE_ADDR"] = "203.0.113.12"  # an address of its own too
    statuses = [
        api.post("/api/session", {"username": "kit-locked", "password": f"guess-{n}"}).status_code
        for n in range(30)
    ]
    assert statuses == [401] * 5 + [429] * 25
    refused = api.post("/api/session", {"username": "kit-locked", "password": "pw-kit-123"})
    error_of(refused, 429, "rate_limited")
    assert "Too many failed sign-ins" in refused.json()["message"]
    assert api.get("/api/session").json()["user"] is None
    # The form and the API count together: the form is locked for that name too.
    form = Client(REMOTE_ADDR="203.0.113.13").post(
        "/accounts/login/", {"username": "kit-locked", "password": "pw-kit-123"}
    )
    assert b"Too many failed sign-ins" in form.content
    failed = AuditEntry.objects.filter(action="user.sign_in_failed", actor_id=kit.pk)
    assert failed.count() == 5
    assert AuditEntry.objects.filter(action="user.sign_in_limited", actor_id=kit.pk).count() == 1


def test_api_sign_in_is_audited_and_brings_a_guests_games(ann: User) -> None:
    from audit.models import AuditEntry

    api = Api()
    # A guest (made by starting a practice game) signs in to ann's account.
    api.client.post(
        "/play/computer/",
        {"ruleset": "classic", "players": 2, "level": "easy"},
        headers={"X-CSRFToken": api.csrf},
    )
    guest_user = api.client.get("/api/session").json()
    assert guest_user["user"] and guest_user["user"].startswith("guest-")
    api.csrf = guest_user["csrf"]
    signed = api.post("/api/session", {"username": "ann", "password": "pw-ann-123"})
    assert signed.status_code == 200 and signed.json()["user"] == "ann"
    assert AuditEntry.objects.filter(action="user.signed_in", actor_id=ann.pk).exists()
    assert Match.objects.filter(seats__user=ann, mode="practice").exists()
