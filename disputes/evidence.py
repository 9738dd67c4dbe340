"""Evidence for "my opponent used a bot", per seat: how long the player took to act (from the
moment they could act to their roll or move, stored on every row), and how often their move
was the one the Expert bot would have played in that position. Both are put next to the
same figures over the player's recent matches and over the site's population, and extremes
are flagged, as leads to look into: one number proves nothing (a fast, strong player exists).

The Expert's choice is deterministic here: its time budget is switched off (a clock that
never moves) and only its node budget bounds the search, so a busy server gives the same
answer. Figures for a finished match never change and are cached.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import cache
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.bots import TABLE_SETTINGS, Expert
from games.engine import State, legal_moves, move
from games.match.replay import initial_state, load_actions, steps
from games.models import ENDED, Match, Mode, Seat
from games.models import Move as MoveRow
from games.models import Roll as RollRow

RECENT_MATCHES = 5  # the player's matches the figures are compared with
POPULATION_ROWS = 5000  # the site's latest player actions, for think times
POPULATION_SEATS = 12  # the site's latest finished human seats, for Expert agreement
MIN_ACTIONS = 20  # fewer timed actions: no flag
MIN_DECISIONS = 10  # fewer real choices of move: no flag
FAST_MS = 250  # an action this quick is faster than people usually see, think and click
CACHE_SECONDS = 24 * 3600

# (upper bound in ms, label); the last bucket is open.
BUCKETS = [
    (100, "< 0.1 s"),
    (250, "0.1–0.25 s"),
    (500, "0.25–0.5 s"),
    (1000, "0.5–1 s"),
    (2000, "1–2 s"),
    (5000, "2–5 s"),
    (10000, "5–10 s"),
    (None, "≥ 10 s"),
]


def _expert() -> Expert:
    # As players meet it: with its own settings at each table of four (`TABLE_SETTINGS`).
    return Expert(depth=2, max_nodes=3000, clock=lambda: 0.0, tables=TABLE_SETTINGS)


# ---------------------------------------------------------------------------- think times


@dataclass(frozen=True)
class ThinkStats:
    n: int
    median: float | None = None  # ms
    p10: float | None = None
    p90: float | None = None
    fast: float | None = None  # share of actions under FAST_MS
    cv: float | None = None  # spread: standard deviation over mean (people vary a lot)
    buckets: list[tuple[str, int, float]] = field(default_factory=list)  # label, count, share


def _quantile(ordered: list[int], q: float) -> float:
    if len(ordered) == 1:
        return float(ordered[0])
    return float(statistics.quantiles(ordered, n=100, method="inclusive")[round(q * 100) - 1])


def think_stats(values: list[int]) -> ThinkStats:
    """The distribution of think times (ms): quantiles, the quick share, and buckets."""
    values = sorted(v for v in values if v is not None)
    n = len(values)
    if not n:
        return ThinkStats(0)
    counts = [0] * len(BUCKETS)
    for v in values:
        counts[next(i for i, (top, _) in enumerate(BUCKETS) if top is None or v < top)] += 1
    mean = statistics.fmean(values)
    return ThinkStats(
        n=n,
        median=float(statistics.median(values)),
        p10=_quantile(values, 0.10),
        p90=_quantile(values, 0.90),
        fast=sum(v < FAST_MS for v in values) / n,
        cv=(statistics.pstdev(values) / mean) if mean > 0 else 0.0,
        buckets=[(label, c, c / n) for (_, label), c in zip(BUCKETS, counts, strict=True)],
    )


def _by(seat: Seat) -> str:
    """Whose actions count for the seat: a bot's for a bot seat, else the player's own (not
    the server's on a timeout, nor the computer's while they were away)."""
    return "bot" if seat.bot else "player"


def seat_think_ms(match: Match, seat: Seat) -> list[int]:
    by = _by(seat)
    out: list[int] = []
    for model in (RollRow, MoveRow):
        rows = model.objects.filter(match=match, corner=seat.corner, by=by, think_ms__isnull=False)
        out += list(rows.values_list("think_ms", flat=True))
    return out


def _recent_seats(user: Any, exclude: Match | None, limit: int = RECENT_MATCHES) -> list[Seat]:
    seats = (
        Seat.objects.filter(user=user, bot__isnull=True, match__status__in=ENDED)
        .exclude(match__mode=Mode.LOCAL)
        .select_related("match")
        .order_by("-match__finished_at", "-match_id")
    )
    if exclude is not None:
        seats = seats.exclude(match=exclude)
    return list(seats[:limit])


def recent_think_ms(user: Any, exclude: Match | None = None) -> list[int]:
    out: list[int] = []
    for seat in _recent_seats(user, exclude):
        out += seat_think_ms(seat.match, seat)
    return out


def population_think_ms() -> list[int]:
    """The site's latest actions by people (not bots, not the server), cached a while."""
    key = "desk:population:think"
    found = cache.get(key)
    if found is not None:
        return list(found)
    out: list[int] = []
    for model in (RollRow, MoveRow):
        rows = model.objects.filter(by="player", think_ms__isnull=False).exclude(
            match__mode=Mode.LOCAL
        )
        out += list(rows.order_by("-id").values_list("think_ms", flat=True)[:POPULATION_ROWS])
    cache.set(key, out, 600)
    return out


# ---------------------------------------------------------------------------- Expert agreement


@dataclass(frozen=True)
class Agreement:
    decisions: int  # positions where the seat had a real choice of move
    agreed: int  # ... and played what the Expert would have

    @property
    def share(self) -> float | None:
        return self.agreed / self.decisions if self.decisions else None

    def __add__(self, other: Agreement) -> Agreement:
        return Agreement(self.decisions + other.decisions, self.agreed + other.agreed)


NONE = Agreement(0, 0)


def _choices(state: State) -> dict[Any, list[Any]]:
    """The legal moves grouped by the position they lead to (moving either of two pawns in
    the yard is one choice)."""
    groups: dict[Any, list[Any]] = {}
    for m in legal_moves(state):
        after = move(state, m)[0]
        groups.setdefault((after.pawns, after.to_play, after.phase), []).append(m)
    return groups


def agreement(match: Match, seat: Seat) -> Agreement:
    """Replay the match and, at each of the seat's own moves where it had a real choice, ask
    the Expert what it would have played. Cached per match and seat once the match ended."""
    key = f"desk:agree:{match.pk}:{seat.corner}:{match.seq}"
    if match.status in ENDED:
        found = cache.get(key)
        if found is not None:
            return Agreement(*found)
    start = initial_state(match)
    if start is None:
        return NONE
    by = _by(seat)
    expert = _expert()
    decisions = agreed = 0
    before = start
    for step in steps(match, load_actions(match), start=start):
        row = step.action.row
        if (
            step.action.kind == "move"
            and row.corner == seat.corner
            and getattr(row, "by", "") == by
            and before.phase == "move"
        ):
            groups = _choices(before)
            if len(groups) > 1:
                best = expert.rank(before)[0][1]
                played = (row.pawn_corner, row.pawn)
                decisions += 1
                same = next(
                    (ms for ms in groups.values() if any((m.corner, m.pawn) == played for m in ms)),
                    [],
                )
                agreed += best in same
        before = step.state
    found = Agreement(decisions, agreed)
    if match.status in ENDED:
        cache.set(key, (found.decisions, found.agreed), CACHE_SECONDS)
    return found


def recent_agreement(user: Any, exclude: Match | None = None) -> Agreement:
    total = NONE
    for seat in _recent_seats(user, exclude):
        total = total + agreement(seat.match, seat)
    return total


def population_agreement() -> tuple[Agreement, list[float]]:
    """Expert agreement over the site's latest finished human seats: the total, and each
    seat's share (for where a seat stands among them). Cached a while."""
    key = "desk:population:agree"
    found = cache.get(key)
    if found is not None:
        return Agreement(*found[0]), list(found[1])
    seats = (
        Seat.objects.filter(user__isnull=False, bot__isnull=True, match__status__in=ENDED)
        .exclude(match__mode=Mode.LOCAL)
        .select_related("match")
        .order_by("-match__finished_at", "-id")[:POPULATION_SEATS]
    )
    total, shares = NONE, []
    for seat in seats:
        one = agreement(seat.match, seat)
        total = total + one
        if one.decisions >= MIN_DECISIONS and one.share is not None:
            shares.append(one.share)
    cache.set(key, ((total.decisions, total.agreed), shares), 600)
    return total, shares


# ---------------------------------------------------------------------------- flags


def _fast_flags(think: ThinkStats, population: ThinkStats) -> list[str]:
    """The timing leads that say "fast": most actions within FAST_MS, or a median under a
    quarter of the site's."""
    out: list[str] = []
    if think.n < MIN_ACTIONS or think.fast is None or think.median is None:
        return out
    if think.fast >= 0.5:
        out.append(
            _("%(share)s of actions came within %(ms)s ms")
            % {"share": _percent(think.fast), "ms": FAST_MS}
        )
    if population.median and think.median < population.median / 4:
        out.append(
            _("median think time %(median)s ms, under a quarter of the site's %(site)s ms")
            % {"median": f"{think.median:.0f}", "site": f"{population.median:.0f}"}
        )
    return out


def _even_flags(think: ThinkStats) -> list[str]:
    if think.n < MIN_ACTIONS or think.fast is None or think.median is None:
        return []
    if think.cv is not None and think.cv < 0.25:
        return [
            _("unusually even timing (spread %(cv)s; people vary far more)")
            % {"cv": f"{think.cv:.2f}"}
        ]
    return []


def _strong_flags(agree: Agreement, pop_agree: Agreement) -> list[str]:
    """The leads that say "strong": the Expert's move nearly always, or far more often than
    the site's players."""
    share, pop = agree.share, pop_agree.share
    if agree.decisions < MIN_DECISIONS or share is None:
        return []
    if share >= 0.95:
        return [
            _("played the Expert's move %(share)s of %(choices)s choices")
            % {"share": _percent(share), "choices": agree.decisions}
        ]
    if pop is not None and share - pop >= 0.25:
        return [
            _("Expert agreement %(share)s against the site's %(site)s")
            % {"share": _percent(share), "site": _percent(pop)}
        ]
    return []


def _percent(share: float) -> str:
    """A share as a whole percentage, written the reader's way ("56%", "%56", "56 %"), as
    `games.web.ladder.percent` writes it."""
    return _("%(n)s%%") % {"n": number_format(round(share * 100))}


def flags(
    think: ThinkStats, agree: Agreement, population: ThinkStats, pop_agree: Agreement
) -> list[str]:
    """What stands out, each as a lead (never a verdict): needs enough actions to say. In the
    reader's language."""
    return _fast_flags(think, population) + _even_flags(think) + _strong_flags(agree, pop_agree)


def fast_and_strong(
    think: ThinkStats, agree: Agreement, population: ThinkStats, pop_agree: Agreement
) -> bool:
    """Two leads that agree (fast and strong) say more than either."""
    return bool(_fast_flags(think, population)) and bool(_strong_flags(agree, pop_agree))


def device_flags(devices: list[str]) -> list[str]:
    """The seats' device hints that stand out: a tool's User-Agent instead of a browser's."""
    scripted = sum(d == "script" for d in devices)
    if not scripted:
        return []
    if len(devices) == 1:
        return [_("device: script (the browser header named a tool, not a browser)")]
    return [
        ngettext(
            "device: script (the browser header named a tool, not a browser) in %(n)d of "
            "%(of)d match",
            "device: script (the browser header named a tool, not a browser) in %(n)d of "
            "%(of)d matches",
            len(devices),
        )
        % {"n": scripted, "of": len(devices)}
    ]


def player_evidence(user: Any) -> dict[str, Any]:
    """The record's evidence over the player's last RECENT_MATCHES matches: the very figures,
    thresholds and flags the review page shows for one seat (`seat_evidence`), over those
    seats; one match gives the same flags as its seat on the review page."""
    seats = _recent_seats(user, None)
    think = think_stats([ms for seat in seats for ms in seat_think_ms(seat.match, seat)])
    agree = NONE
    for seat in seats:
        agree = agree + agreement(seat.match, seat)
    population = think_stats(population_think_ms())
    pop_agree, _ = population_agreement()
    found = flags(think, agree, population, pop_agree)
    found += device_flags([seat.device for seat in seats])
    return {
        "think": think,
        "agree": agree,
        "population": population,
        "pop_agree": pop_agree,
        "flags": found,
        "recent_seats": seats,
    }


def seat_evidence(match: Match, seat: Seat) -> dict[str, Any]:
    """Everything the review page and the player record show for one seat."""
    population = think_stats(population_think_ms())
    pop_agree, pop_shares = population_agreement()
    think = think_stats(seat_think_ms(match, seat))
    agree = agreement(match, seat)
    out: dict[str, Any] = {
        "think": think,
        "agree": agree,
        "population": population,
        "pop_agree": pop_agree,
        "flags": flags(think, agree, population, pop_agree) + device_flags([seat.device]),
        "recent_think": None,
        "recent_agree": None,
    }
    if agree.share is not None and pop_shares:
        out["rank"] = sum(s < agree.share for s in pop_shares) / len(pop_shares)
    if seat.user_id is not None and not seat.bot:
        out["recent_think"] = think_stats(recent_think_ms(seat.user, exclude=match))
        out["recent_agree"] = recent_agreement(seat.user, exclude=match)
    # Two leads that agree (fast and strong) say more than either: show it as its own line.
    out["both"] = fast_and_strong(think, agree, population, pop_agree)
    return out
