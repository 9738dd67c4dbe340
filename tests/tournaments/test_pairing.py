"""The pure pairing and scoring of tournaments (`tournaments.pairing`)."""

from __future__ import annotations

import itertools
import random

from tournaments.pairing import (
    ARENA,
    SWISS,
    ArenaPlayer,
    Game,
    SwissPlayer,
    pair_arena,
    pair_swiss_duels,
    pair_swiss_tables,
    standings,
)


def test_arena_pairs_by_score_then_rating() -> None:
    free = [
        ArenaPlayer(1, score=0, rating=5.0),
        ArenaPlayer(2, score=6, rating=1.0),
        ArenaPlayer(3, score=6, rating=9.0),
        ArenaPlayer(4, score=0, rating=7.0),
    ]
    assert pair_arena(free, 2) == [[3, 2], [4, 1]]


def test_arena_avoids_the_immediate_rematch() -> None:
    last = frozenset({1, 2})
    free = [
        ArenaPlayer(1, 4, 3.0, last),
        ArenaPlayer(2, 4, 2.0, last),
        ArenaPlayer(3, 2, 1.0, frozenset({3, 4})),
        ArenaPlayer(4, 2, 0.0, frozenset({3, 4})),
    ]
    tables = pair_arena(free, 2)
    assert sorted(map(sorted, tables)) == [[1, 3], [2, 4]]


def test_arena_lone_pair_that_just_met_waits() -> None:
    last = frozenset({1, 2})
    assert pair_arena([ArenaPlayer(1, 0, 0.0, last), ArenaPlayer(2, 0, 0.0, last)], 2) == []


def test_arena_lone_pair_meets_again_once_both_waited_past_the_limit() -> None:
    last = frozenset({1, 2})
    both = [ArenaPlayer(1, 0, 0.0, last, waited=True), ArenaPlayer(2, 0, 0.0, last, waited=True)]
    assert pair_arena(both, 2) == [[1, 2]]
    one = [ArenaPlayer(1, 0, 0.0, last, waited=True), ArenaPlayer(2, 0, 0.0, last)]
    assert pair_arena(one, 2) == []


def test_arena_player_who_waited_still_meets_someone_new_first() -> None:
    last = frozenset({1, 2})
    free = [
        ArenaPlayer(1, 4, 3.0, last, waited=True),
        ArenaPlayer(2, 4, 2.0, last, waited=True),
        ArenaPlayer(3, 2, 1.0, frozenset({3, 4})),
    ]
    assert pair_arena(free, 2) == [[1, 3]]


def test_arena_table_of_four_that_all_waited_sits_again() -> None:
    table = frozenset({1, 2, 3, 4})
    free = [ArenaPlayer(u, 10 - u, 0.0, table, waited=True) for u in (1, 2, 3, 4)]
    assert pair_arena(free, 4) == [[1, 2, 3, 4]]


def test_arena_table_of_four_is_not_the_same_table_again() -> None:
    table = frozenset({1, 2, 3, 4})
    free = [ArenaPlayer(u, 10 - u, 0.0, table) for u in (1, 2, 3, 4)]
    free.append(ArenaPlayer(5, 0, 0.0))
    tables = pair_arena(free, 4)
    assert tables == [[1, 2, 3, 5]]  # 4 waits with nobody: never the same four again


def test_arena_block_sits_the_blocker_out_and_changes_no_other_table() -> None:
    """1 blocked 2, the best-placed two: 1 waits rather than take 3 (a weaker player out of
    turn), 2 is paired with whoever else is left over, and 3-4 stand as they were."""
    free = [
        ArenaPlayer(1, 9, 0.0, blocked=frozenset({2})),
        ArenaPlayer(2, 8, 0.0),
        ArenaPlayer(3, 5, 0.0),
        ArenaPlayer(4, 4, 0.0),
        ArenaPlayer(5, 1, 0.0),
    ]
    assert pair_arena(free, 2) == [[3, 4], [2, 5]]
    assert pair_arena(free[:2], 2) == []  # only the two of them: neither plays
    # At a table of four, whoever blocked waits; the others sit with the next free player.
    four = [ArenaPlayer(u, 10 - u, 0.0) for u in range(1, 10)]
    four[3] = ArenaPlayer(4, 6, 0.0, blocked=frozenset({1}))
    assert pair_arena(four, 4) == [[5, 6, 7, 8], [1, 2, 3, 9]]


def test_arena_pairs_everyone_of_a_thousand_once() -> None:
    rng = random.Random(7)
    free = [ArenaPlayer(u, rng.randrange(40), rng.random() * 30) for u in range(1000)]
    tables = pair_arena(free, 4)
    seated = [u for t in tables for u in t]
    assert len(tables) == 250 and len(set(seated)) == 1000


def test_arena_points_and_streak_bonus() -> None:
    g = [
        Game((1, 2), {1: 1, 2: 2}),
        Game((1, 2), {1: 1, 2: 2}),
        Game((1, 2), {1: 1, 2: 2}),  # third win in a row: double
        Game((1, 2), {2: 1, 1: 2}),  # streak broken
        Game((1, 2), {1: 1, 2: 2}),
    ]
    rows = {r.user: r for r in standings(ARENA, 2, [1, 2], g)}
    assert rows[1].score == 2 + 2 + 4 + 0 + 2
    assert rows[1].streak == 1 and rows[1].wins == 4 and rows[1].games == 5
    assert rows[2].score == 2 and rows[1].rank == 1


def test_arena_table_of_four_places() -> None:
    rows = {
        r.user: r
        for r in standings(ARENA, 4, [1, 2, 3, 4], [Game((1, 2, 3, 4), {3: 1, 1: 2, 4: 3, 2: 4})])
    }
    assert [rows[u].score for u in (1, 2, 3, 4)] == [2, 0, 3, 1]


def test_a_voided_game_counts_nothing_and_keeps_the_streak() -> None:
    g = [
        Game((1, 2), {1: 1, 2: 2}),
        Game((1, 2), {1: 1, 2: 2}),
        Game((1, 2), None),  # voided
        Game((1, 2), {1: 1, 2: 2}),
    ]
    rows = {r.user: r for r in standings(ARENA, 2, [1, 2], g)}
    assert rows[1].score == 2 + 2 + 4 and rows[1].games == 3


def test_swiss_buchholz_breaks_ties() -> None:
    g = [
        Game((1, 2), {1: 1, 2: 2}, round=1),
        Game((3, 4), {3: 1, 4: 2}, round=1),
        Game((1, 3), {3: 1, 1: 2}, round=2),
        Game((2, 4), {2: 1, 4: 2}, round=2),
    ]
    rows = standings(SWISS, 2, [1, 2, 3, 4], g)
    # 3: 2 points; 1 and 2: 1 point each; Buchholz: 1 met 2 (1) and 3 (2) = 3,
    # 2 met 1 and 4 = 1, 4 met 3 and 2 = 3.
    assert [(r.user, r.score, r.buchholz) for r in rows] == [
        (3, 2, 1),
        (1, 1, 3),
        (2, 1, 1),
        (4, 0, 3),
    ]


def test_swiss_bye_points() -> None:
    rows = {r.user: r for r in standings(SWISS, 2, [1], [Game((1,), None, bye=True)])}
    assert rows[1].score == 1 and rows[1].byes == 1 and rows[1].games == 0
    rows = {r.user: r for r in standings(SWISS, 4, [1], [Game((1,), None, bye=True)])}
    assert rows[1].score == 2


def test_swiss_duels_pair_the_score_groups_and_give_one_bye() -> None:
    players = [SwissPlayer(u, score=s) for u, s in [(1, 2), (2, 2), (3, 1), (4, 1), (5, 0)]]
    made = pair_swiss_duels(players)
    assert made.tables == [[1, 2], [3, 4]] and made.byes == [5] and made.rematches == 0


def test_swiss_duels_avoid_rematches_by_backtracking() -> None:
    met = {1: {2}, 2: {1}, 3: {4}, 4: {3}}
    players = [SwissPlayer(u, score=1, met=frozenset(met[u])) for u in (1, 2, 3, 4)]
    made = pair_swiss_duels(players)
    assert made.tables == [[1, 3], [2, 4]] and made.rematches == 0


def test_swiss_duels_second_bye_goes_to_someone_else() -> None:
    players = [SwissPlayer(1, 2), SwissPlayer(2, 1), SwissPlayer(3, 1, byes=1)]
    assert pair_swiss_duels(players).byes == [2]


def test_swiss_duels_never_rematch_over_a_whole_event() -> None:
    """Ten players, nine rounds: a round robin is possible, and no pair meets twice."""
    users = list(range(10))
    met: dict[int, set[int]] = {u: set() for u in users}
    score = dict.fromkeys(users, 0)
    rng = random.Random(3)
    for _ in range(5):
        made = pair_swiss_duels([SwissPlayer(u, score[u], met=frozenset(met[u])) for u in users])
        assert made.rematches == 0 and not made.byes
        for a, b in made.tables:
            assert b not in met[a]
            met[a].add(b)
            met[b].add(a)
            score[rng.choice((a, b))] += 1


def test_swiss_tables_of_four_with_byes() -> None:
    players = [SwissPlayer(u, score=10 - u) for u in range(1, 11)]
    made = pair_swiss_tables(players)
    assert made.tables == [[1, 2, 3, 4], [5, 6, 7, 8]] and made.byes == [9, 10]


def test_swiss_tables_avoid_a_table_played_before() -> None:
    old = frozenset({1, 2, 3, 4})
    players = [
        SwissPlayer(u, score=10 - u, tables=frozenset({old}) if u <= 4 else frozenset())
        for u in range(1, 9)
    ]
    made = pair_swiss_tables(players)
    assert all(frozenset(t) != old for t in made.tables) and made.rematches == 0
    assert sorted(itertools.chain(*made.tables)) == list(range(1, 9))


# ---------------------------------------------------------------------------- Swiss and blocks


def _blocked(pairs: list[tuple[int, int]], u: int) -> frozenset[int]:
    """Whom `u` blocked, from (blocker, blocked) pairs."""
    return frozenset(b for a, b in pairs if a == u)


def test_swiss_duels_the_blocker_sits_out_and_the_other_gets_a_bye() -> None:
    """A Swiss event of four where one player blocked the other three: whoever the order
    pairs them with gets a bye, the blocker sits the round out (no game, no bye), and the
    other table is the one it would have been without any block."""
    blocks = [(1, 2), (1, 3), (1, 4)]
    players = [
        SwissPlayer(u, score=0, rating=10 - u, blocked=_blocked(blocks, u)) for u in (1, 2, 3, 4)
    ]
    plain = pair_swiss_duels([SwissPlayer(u, score=0, rating=10 - u) for u in (1, 2, 3, 4)])
    made = pair_swiss_duels(players)
    assert plain.tables == [[1, 2], [3, 4]]
    assert made.tables == [[3, 4]] and made.byes == [2] and made.unpaired == [1]
    # Blocked by the lowest-ordered player instead: the same, the other way round.
    players = [
        SwissPlayer(u, 0, rating=10 - u, blocked=_blocked([(2, 1)], u)) for u in (1, 2, 3, 4)
    ]
    made = pair_swiss_duels(players)
    assert made.tables == [[3, 4]] and made.byes == [1] and made.unpaired == [2]


def test_swiss_duels_two_who_blocked_each_other_both_sit_out() -> None:
    made = pair_swiss_duels(
        [SwissPlayer(1, 0, blocked=frozenset({2})), SwissPlayer(2, 0, blocked=frozenset({1}))]
    )
    assert made.tables == [] and made.byes == [] and sorted(made.unpaired) == [1, 2]
    made = pair_swiss_duels(
        [SwissPlayer(1, 2, blocked=frozenset({2})), SwissPlayer(2, 1), SwissPlayer(3, 0)]
    )
    assert made.byes == [3, 2] and made.tables == [] and made.unpaired == [1]


def test_swiss_duels_blocks_change_no_other_table() -> None:
    """Forty players, each blocking a random few, over six rounds: every table the blocks
    leave standing is a table of the pairing made without them; each table they break sits
    its blockers out and gives everyone else at it a bye; nobody is left without either."""
    rng = random.Random(7)
    users = list(range(40))
    pairs = [(a, b) for a in users for b in rng.sample(users, 3) if a != b]
    met: dict[int, set[int]] = {u: set() for u in users}
    for _ in range(6):
        plain = pair_swiss_duels([SwissPlayer(u, 0, met=frozenset(met[u])) for u in users])
        made = pair_swiss_duels(
            [SwissPlayer(u, 0, met=frozenset(met[u]), blocked=_blocked(pairs, u)) for u in users]
        )
        broken = [t for t in plain.tables if t not in made.tables]
        assert all(t in plain.tables for t in made.tables)
        for a, b in made.tables:
            assert (a, b) not in pairs and (b, a) not in pairs
        for a, b in broken:
            assert (a, b) in pairs or (b, a) in pairs
            assert {a, b} == {u for u in (a, b) if u in made.unpaired or u in made.byes}
        for u in made.unpaired:
            partner = next(o for t in broken if u in t for o in t if o != u)
            assert (u, partner) in pairs
        for u in made.byes:
            assert u in plain.byes or not any((u, o) in pairs for t in broken if u in t for o in t)
        assert sorted([*itertools.chain(*made.tables), *made.byes, *made.unpaired]) == users
        for a, b in made.tables:
            met[a].add(b)
            met[b].add(a)


def test_swiss_tables_of_four_break_only_the_blocked_table() -> None:
    blocks = [(1, 2), (5, 8)]
    players = [SwissPlayer(u, score=10 - u, blocked=_blocked(blocks, u)) for u in range(1, 13)]
    made = pair_swiss_tables(players)
    assert made.tables == [[9, 10, 11, 12]]
    assert sorted(made.unpaired) == [1, 5]
    assert sorted(made.byes) == [2, 3, 4, 6, 7, 8]


def test_swiss_table_of_four_with_one_blocker() -> None:
    players = [SwissPlayer(u, score=0, blocked=_blocked([(1, 4)], u)) for u in (1, 2, 3, 4)]
    made = pair_swiss_tables(players)
    assert made.tables == [] and made.unpaired == [1] and sorted(made.byes) == [2, 3, 4]
