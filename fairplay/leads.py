"""Leads for moderators, never verdicts: nothing here sanctions anyone.

- *Booster pairs*: two accounts that met in ranked matches far more often than chance, with
  one of them losing nearly every time, early (it left: resigned, timed out, disconnected)
  or within a few turns.
- *Far from their own history*: accounts whose recent matches' think times or Expert
  agreement stand far from their own earlier matches.

Each lead carries the figures behind it; `population` gives the site's figures to read them
beside. ``manage.py fairplay_leads`` prints them.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _

from disputes import evidence
from games.models import ENDED, Match, MatchEvent, Mode, Seat, Status

MIN_MEETINGS = 4  # fewer meetings between two accounts: no booster lead
MEET_RATIO = 5.0  # meetings at least this many times what chance gives
LOSER_SHARE = 0.8  # one side lost at least this share of their meetings
EARLY_TURNS = 20  # a match this short counts as lost early
RECENT = evidence.RECENT_MATCHES  # the matches compared with the player's history
HISTORY = 10  # the earlier matches they are compared with
MIN_HISTORY = 3
THINK_RATIO = 3.0  # recent median think time this many times quicker than their history
AGREE_SHIFT = 0.25  # recent Expert agreement this much above their history


@dataclass(frozen=True)
class BoosterPair:
    winner: Any
    loser: Any
    meetings: int
    expected: float  # meetings chance gives, from how much each played
    loser_lost: int
    early: int  # of the loser's losses: left the match, or it ended within EARLY_TURNS

    @property
    def ratio(self) -> float:
        return self.meetings / self.expected if self.expected else float("inf")


@dataclass(frozen=True)
class FarFromHistory:
    player: Any
    recent_think: float | None  # median ms over the recent matches
    history_think: float | None
    recent_agree: float | None  # Expert agreement share
    history_agree: float | None
    recent_actions: int
    recent_decisions: int
    why: tuple[str, ...]


def _ranked_matches() -> list[Match]:
    return list(
        Match.objects.filter(mode=Mode.RANKED, status=Status.FINISHED).prefetch_related("seats")
    )


def booster_pairs() -> list[BoosterPair]:
    matches = _ranked_matches()
    played: Counter[int] = Counter()
    met: dict[frozenset[int], list[Match]] = defaultdict(list)
    sizes = []
    for match in matches:
        people = [s.user_id for s in match.seats.all() if s.user_id is not None and not s.bot]
        sizes.append(len(people))
        played.update(people)
        for a, b in combinations(sorted(people), 2):
            met[frozenset((a, b))].append(match)
    seats = sum(played.values())
    if not seats:
        return []
    others = statistics.mean(sizes) - 1  # each seat meets this many others
    early_left = set(
        MatchEvent.objects.filter(match__in=matches, kind="leave").values_list(
            "match_id", "data__corner"
        )
    )
    users = get_user_model().objects.in_bulk(list(played))
    out = []
    for pair, together in met.items():
        if len(together) < MIN_MEETINGS:
            continue
        a, b = sorted(pair)
        expected = played[a] * played[b] * others / max(1, seats - 1)
        if len(together) < MEET_RATIO * expected:
            continue
        for loser, winner in ((a, b), (b, a)):
            lost = early = 0
            for match in together:
                seat = next(s for s in match.seats.all() if s.user_id == loser)
                rival = next(s for s in match.seats.all() if s.user_id == winner)
                if seat.place is not None and rival.place is not None and seat.place > rival.place:
                    lost += 1
                    turns = match.snapshot.get("turn", 0) if match.snapshot else 0
                    if (match.pk, seat.corner) in early_left or turns <= EARLY_TURNS:
                        early += 1
            if lost >= LOSER_SHARE * len(together) and early * 2 >= lost:
                out.append(
                    BoosterPair(users[winner], users[loser], len(together), expected, lost, early)
                )
    out.sort(key=lambda p: -p.ratio)
    return out


def _seats(user_id: int, limit: int) -> list[Seat]:
    return list(
        Seat.objects.filter(user_id=user_id, bot__isnull=True, match__status__in=ENDED)
        .exclude(match__mode=Mode.LOCAL)
        .select_related("match")
        .order_by("-match__finished_at", "-match_id")[:limit]
    )


def _figures(seats: list[Seat]) -> tuple[list[int], evidence.Agreement]:
    think: list[int] = []
    agree = evidence.NONE
    for seat in seats:
        think += evidence.seat_think_ms(seat.match, seat)
        agree = agree + evidence.agreement(seat.match, seat)
    return think, agree


def far_from_history(user: Any) -> FarFromHistory | None:
    seats = _seats(user.pk, RECENT + HISTORY)
    recent, earlier = seats[:RECENT], seats[RECENT:]
    if len(recent) < RECENT or len(earlier) < MIN_HISTORY:
        return None
    r_think, r_agree = _figures(recent)
    h_think, h_agree = _figures(earlier)
    r_med = statistics.median(r_think) if r_think else None
    h_med = statistics.median(h_think) if h_think else None
    why = []
    if (
        r_med is not None
        and h_med is not None
        and len(r_think) >= evidence.MIN_ACTIONS
        and r_med * THINK_RATIO <= h_med
    ):
        why.append(
            _("median think time %(now).0f ms, against %(before).0f ms before")
            % {"now": r_med, "before": h_med}
        )
    rs, hs = r_agree.share, h_agree.share
    if (
        rs is not None
        and hs is not None
        and r_agree.decisions >= evidence.MIN_DECISIONS
        and h_agree.decisions >= evidence.MIN_DECISIONS
        and rs - hs >= AGREE_SHIFT
    ):
        why.append(
            _("Expert agreement %(now)d%%, against %(before)d%% before")
            % {"now": round(100 * rs), "before": round(100 * hs)}
        )
    if not why:
        return None
    return FarFromHistory(user, r_med, h_med, rs, hs, len(r_think), r_agree.decisions, tuple(why))


def far_from_their_history() -> list[FarFromHistory]:
    ids = (
        Seat.objects.filter(user__isnull=False, bot__isnull=True, match__status__in=ENDED)
        .exclude(match__mode=Mode.LOCAL)
        .values_list("user_id", flat=True)
        .distinct()
    )
    users = get_user_model().objects.in_bulk(list(ids))
    found = [far_from_history(u) for u in users.values()]
    return [f for f in found if f is not None]


def population() -> dict[str, Any]:
    """The site's figures to read the leads beside."""
    think = evidence.think_stats(evidence.population_think_ms())
    agree, _shares = evidence.population_agreement()
    ranked = _ranked_matches()
    people: Counter[int] = Counter(
        s.user_id for m in ranked for s in m.seats.all() if s.user_id is not None and not s.bot
    )
    pairs: Counter[frozenset[int]] = Counter()
    for m in ranked:
        ids = sorted(s.user_id for s in m.seats.all() if s.user_id is not None and not s.bot)
        pairs.update(frozenset(p) for p in combinations(ids, 2))
    return {
        "players": len(people),
        "ranked_matches": len(ranked),
        "median_think_ms": think.median,
        "expert_agreement": agree.share,
        "most_meetings": max(pairs.values(), default=0),
        "median_meetings": statistics.median(pairs.values()) if pairs else 0,
    }
