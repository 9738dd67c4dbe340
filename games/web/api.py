"""The JSON HTTP API: session auth with CSRF, a few lines around one service call each.

    GET    /api/session                   who is signed in; sets the CSRF cookie
    POST   /api/session                   sign in {username, password}
    DELETE /api/session                   sign out
    POST   /api/matches                   {ruleset, players, mode, house_rules, options, bots}
                                          -> 201 {code, url, ws, qr, corner}
                                          (corner: the host's seat)
    GET    /api/matches/<code>            the snapshot for the caller, with the room's
                                          clocks and how many watch (as the socket's)
    POST   /api/matches/<code>/join       -> {corner}
    POST   /api/matches/<code>/seed       {seed}: the caller's client seed, before the start
    POST   /api/matches/<code>/actions    a client frame of the wire format (roll, move, resign,
                                          undo)
    GET    /api/matches/<code>/replay     the full record; the dice proof once finished
    GET    /api/matches/<code>/qr.svg     the join link as a QR code

Every error is ``{"code", "message"}`` with a matching HTTP status, and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth import login, logout
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware, get_token
from django.views.decorators.csrf import csrf_exempt

from accounts.addresses import client_ip
from accounts.forms import SignInForm
from accounts.models import is_guest
from accounts.views import signed_in
from games import services
from games.live import watchers
from games.live.wire import WireError, loads, parse
from games.match import dice, rooms
from games.match.errors import ServiceError
from games.match.reports import report_for
from games.match.selectors import match_by_code, room_snapshot, visible_events
from games.models import Move, Roll

STATUS = {
    "bad_message": 400,
    "bad_request": 400,
    "ranked_no_bots": 400,
    "unauthenticated": 401,
    "csrf_failed": 403,
    "not_seated": 403,
    "forbidden": 403,
    "ranked_by_matchmaking": 403,
    "ranked_busy": 409,
    "not_found": 404,
    "method_not_allowed": 405,
    "not_your_turn": 409,
    "stale": 409,
    "illegal": 409,
    "full": 409,
    "already_seated": 409,
    "over": 409,
    "no_undo": 409,
    "pause": 409,
    "too_large": 413,
    "rate_limited": 429,
    "too_many_guests": 429,
    "too_many_rooms": 429,
}
MAX_BODY_BYTES = 8192

View = Callable[..., HttpResponse]


class ApiError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def error(code: str, message: str, text: str | None = None) -> JsonResponse:
    """A refusal: its code, the English `message` (kept for the clients that read it) and,
    for a service's refusal, `text` in the request's language (issue 29)."""
    body = {"code": code, "message": message}
    if text is not None:
        body["text"] = text
    return JsonResponse(body, status=STATUS.get(code, 400))


class _JsonCsrf(CsrfViewMiddleware):
    """Django's CSRF check, answering a refusal in JSON instead of the HTML page."""

    def _reject(self, request: HttpRequest, reason: str) -> HttpResponse:
        return error("csrf_failed", f"CSRF check failed: {reason}")


_csrf = _JsonCsrf(lambda request: HttpResponse())


def api(*methods: str, auth: bool = False) -> Callable[[View], View]:
    """An API view: allowed methods, CSRF on unsafe ones, sign-in if `auth`, JSON errors."""

    def wrap(view: View) -> View:
        @csrf_exempt  # checked below, so that a refusal is JSON too
        @wraps(view)
        def inner(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.method not in methods:
                response = error("method_not_allowed", f"Use {' or '.join(methods)}")
                response["Allow"] = ", ".join(methods)
                return response
            if request.method not in ("GET", "HEAD", "OPTIONS"):
                refused = _csrf.process_view(request, None, (), {})
                if refused is not None:
                    return refused
            if auth and not request.user.is_authenticated:
                return error("unauthenticated", "Sign in first")
            try:
                return view(request, *args, **kwargs)
            except ServiceError as e:
                return error(e.code, e.message, e.text())
            except (ApiError, WireError) as e:
                return error(e.code, e.message)

        return inner

    return wrap


def _body(request: HttpRequest) -> dict[str, Any]:
    if len(request.body) > MAX_BODY_BYTES:
        raise ApiError("too_large", f"Bodies are at most {MAX_BODY_BYTES} bytes")
    if not request.body:
        return {}
    data = loads(request.body, what="body")
    if not isinstance(data, dict):
        raise ApiError("bad_message", "The body must be a JSON object")
    return data


def _code(text: str) -> str:
    code = rooms.normalise(text)
    if code is None:
        raise ApiError("not_found", "There is no room with that code")
    return code


def match_for_code(code: str) -> Any:
    """The match of a room code as typed (any case, with or without its dash), or the API's
    `not_found`: for every endpoint of /api/matches/<code>/ (the Hint's too)."""
    return match_by_code(_code(code))


def _links(request: HttpRequest, code: str) -> dict[str, str]:
    return {
        "code": code,
        "url": request.build_absolute_uri(rooms.join_path(code)),
        "ws": f"/ws/match/{code}/",
        "qr": f"/api/matches/{code}/qr.svg",
    }


# ---------------------------------------------------------------------------- session


@api("GET", "POST", "DELETE")
def session(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        data = _body(request)
        username, password = data.get("username"), data.get("password")
        if not isinstance(username, str) or not isinstance(password, str):
            raise ApiError("bad_request", "Send a username and a password")
        _sign_in(request, username, password)
    elif request.method == "DELETE":
        logout(request)
    user = request.user
    return JsonResponse(
        {
            "user": user.get_username() if user.is_authenticated else None,
            "id": user.pk if user.is_authenticated else None,
            "csrf": get_token(request),
        }
    )


def _sign_in(request: HttpRequest, username: str, password: str) -> None:
    """The sign-in form's own checks (`accounts.forms.SignInForm`: the attempt limits per
    username and address, the audit of failures and refusals), then its after-effects
    (`accounts.views.signed_in`): the API is no way around them."""
    guest = request.user if is_guest(request.user) else None
    form = SignInForm(request, data={"username": username, "password": password})
    if not form.is_valid():
        errors = form.errors.as_data()
        refusals = errors.get("__all__", [])
        if any(e.code == "limited" for e in refusals):
            raise ApiError("rate_limited", " ".join(form.non_field_errors()))
        if refusals:
            raise ApiError("unauthenticated", " ".join(form.non_field_errors()))
        raise ApiError("bad_request", "Send a username (at most 150 characters) and a password")
    user = form.get_user()
    login(request, user)
    signed_in(request, user, guest=guest)


# ---------------------------------------------------------------------------- matches


def _str_list(value: Any, name: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ApiError("bad_request", f'"{name}" must be a list of names')
    return list(value)


def _bots(value: Any) -> dict[str, Any] | list[int] | None:
    """``"bots"``: a list of corners, or an object from corners to levels (a level may be
    null: the default one); anything else (a null corner, a corner that is no number) is a
    bad request, not a crash in the service."""
    wrong = ApiError("bad_request", '"bots" maps corners (numbers) to bot levels')
    if value is None:
        return None
    if isinstance(value, list):
        if not all(isinstance(c, int) and not isinstance(c, bool) for c in value):
            raise wrong
        return value
    if isinstance(value, dict):
        for corner, level in value.items():
            if not str(corner).isdigit() or not (level is None or isinstance(level, str)):
                raise wrong
        return value
    raise wrong


@api("POST", auth=True)
def matches(request: HttpRequest) -> HttpResponse:
    data = _body(request)
    ruleset, players, mode = data.get("ruleset"), data.get("players"), data.get("mode")
    if not isinstance(ruleset, str) or not isinstance(mode, str):
        raise ApiError("bad_request", 'Send "ruleset" and "mode"')
    if not isinstance(players, int) or isinstance(players, bool):
        raise ApiError("bad_request", '"players" must be a number from 2 to 4')
    bots = _bots(data.get("bots"))
    match = services.match_create(
        ruleset=ruleset,
        players=players,
        mode=mode,
        house_rules=_str_list(data.get("house_rules"), "house_rules"),
        options=_str_list(data.get("options"), "options"),
        host=request.user,
        bots=bots,
        ip=client_ip(request),
        user_agent=request.META.get("HTTP_USER_AGENT", ""),
    )
    # Where the host sits (issue 27: a client had to read the snapshot to learn it).
    corner = match.seats.filter(user_id=request.user.pk).order_by("corner").first()
    return JsonResponse(
        {**_links(request, match.code), "corner": corner.corner if corner else None}, status=201
    )


@api("GET")
def match_detail(request: HttpRequest, code: str) -> HttpResponse:
    match = match_for_code(code)
    user = request.user if request.user.is_authenticated else None
    # The snapshot a socket is sent (`selectors.room_snapshot`), the watchers counted as the
    # live edge counts them.
    return JsonResponse(room_snapshot(match, viewer_user=user, watchers=watchers.count(match.pk)))


@api("POST", auth=True)
def match_join(request: HttpRequest, code: str) -> HttpResponse:
    seat = services.match_join(
        code=_code(code),
        user=request.user,
        ip=client_ip(request),
        user_agent=request.META.get("HTTP_USER_AGENT", ""),
    )
    return JsonResponse({"corner": seat.corner, **_links(request, seat.match.code)})


@api("POST", auth=True)
def match_seed(request: HttpRequest, code: str) -> HttpResponse:
    seed = _body(request).get("seed")
    if not isinstance(seed, str):
        raise ApiError("bad_request", 'Send "seed", a string')
    services.match_set_client_seed(code=_code(code), user=request.user, seed=seed)
    return JsonResponse({"seed": seed})


@api("POST", auth=True)
def match_action(request: HttpRequest, code: str) -> HttpResponse:
    if len(request.body) > MAX_BODY_BYTES:
        raise ApiError("too_large", f"Bodies are at most {MAX_BODY_BYTES} bytes")
    intent = parse(request.body.decode("utf-8", "replace"))
    match = match_for_code(code)
    if intent.t == "resync":
        raise ApiError("bad_message", f"GET /api/matches/{match.code} for the snapshot")
    result = services.match_act(match_id=match.pk, user=request.user, intent=intent)
    # A resignation answers {"ok": true} alone, as it always has (a reaction too).
    return JsonResponse(_result(None if intent.t == "resign" else result))


def _result(result: Any) -> dict[str, Any]:
    if result is None:
        return {"ok": True}
    fields = getattr(result, "_asdict", None)
    if fields is not None:
        return {"ok": True, **fields()}
    return {"ok": True, **{k: v for k, v in vars(result).items() if not k.startswith("_")}}


def my_corners(request: HttpRequest, match: Any) -> set[int]:
    """The corners the signed-in requester holds in `match` (none for an anonymous one)."""
    if not request.user.is_authenticated:
        return set()
    return set(match.seats.filter(user_id=request.user.pk).values_list("corner", flat=True))


@api("GET")
def match_replay(request: HttpRequest, code: str) -> HttpResponse:
    match = match_for_code(code)
    rolls = list(Roll.objects.filter(match=match).order_by("n"))
    record: dict[str, Any] = {
        "code": match.code,
        "rules": match.options.get("rules", match.ruleset),
        "mode": match.mode,
        "players": match.players,
        "status": match.get_status_display().lower(),
        "first": match.first,
        "seats": [
            {
                "corner": s.corner,
                "user": s.user.get_username() if s.user is not None else None,
                "bot": s.bot,
                "place": s.place,
                "left": s.left,
            }
            for s in match.seats.select_related("user").order_by("corner")
        ],
        # Another player's Power picks are withheld until the match is over (their stock).
        "events": visible_events(
            (e.as_wire() for e in match.events.order_by("seq")),
            mine=my_corners(request, match),
            ended=match.ended,
        ),
        "rolls": [
            {
                "n": r.n,
                # The dice number its face comes from (n, except a roll replayed after an
                # undo in local play).
                "die": r.dice_number,
                "seq": r.seq,
                "turn": r.turn,
                "corner": r.corner,
                "face": r.face,
                "bonus": r.bonus,
                "by": r.by,
                "at": r.at.isoformat(),
            }
            for r in rolls
        ],
        "moves": [
            {
                "seq": m.seq,
                "turn": m.turn,
                "corner": m.corner,
                "pawn_corner": m.pawn_corner,
                "pawn": m.pawn,
                "from": m.frm,
                "to": m.to,
                "captures": m.captures,
                "shield": m.shield,
                "by": m.by,
                "at": m.at.isoformat(),
            }
            for m in Move.objects.filter(match=match).order_by("seq")
        ],
        "proof": {"commitment": match.commitment, "client_seed": match.client_seed},
        # Issue 31: luck and decisions per seat, chances after every turn (games.bots.analysis).
        "report": report_for(match),
    }
    if match.ended:
        # The seed is revealed only once the match is over (docs/architecture.md, "Dice:
        # commit, reveal, verify").
        mismatches = dice.verify(
            match.commitment,
            match.server_seed,
            match.client_seed,
            [
                (r.dice_number, r.face, r.bonus) for r in rolls
            ],  # Dice control faces are chosen, not derived
        )
        record["proof"].update(
            server_seed=match.server_seed,
            verified=not mismatches,
            mismatches=[m._asdict() for m in mismatches],
        )
    return JsonResponse(record)


@api("GET")
def match_qr(request: HttpRequest, code: str) -> HttpResponse:
    match = match_for_code(code)
    svg = rooms.qr_svg(request.build_absolute_uri(rooms.join_path(match.code)))
    return HttpResponse(svg, content_type="image/svg+xml")
