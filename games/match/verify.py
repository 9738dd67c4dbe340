"""Check a stored match end to end and name the first row that does not agree.

What is checked, in this order:
1. the event stream numbers 1..seq without a gap;
2. the revealed server seed against the commitment (once the match has ended), and the
   commitment, client seed and first player against the "created" and "started" events;
3. every roll, move and leave, in event order, through the engine: each roll's face
   re-derived from the seed, its number, turn and corner; each move as the engine plays it;
   the engine's events equal to the stored ones; no engine event without its row; each undo
   (local games only) withdrawing a live person's roll or move up to the undo itself, and
   putting back the state before it (withdrawn rows are checked as they were played, and
   their rolls keep their dice numbers);
4. the turns derived by the replay against the stored Turn rows;
5. the cached snapshot, status and seat places against the replay;
6. the match's audit entries: each hash, each link to the entry before it, and their content.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from audit.actions import MATCH_CHAIN_ANCHORED
from audit.chain import chain_anchor_problems, problem_at
from audit.models import AuditEntry
from games.engine import IllegalAction, State, as_dict
from games.engine.events import TurnPassed
from games.match import dice
from games.match.replay import ENGINE_KINDS, Action, apply, initial_state, snapshot_of
from games.models import ENDED, Match, MatchEvent, Seat, Status, Turn
from games.models import Move as MoveRow
from games.models import Roll as RollRow


class Mismatch(Exception):
    """The first thing that does not agree, naming its row."""


@dataclass(frozen=True)
class Report:
    ok: bool
    line: str  # one line: the summary, or the first problem


def _wire(event: MatchEvent) -> dict[str, Any]:
    return {**event.data, "kind": event.kind}


def _row(action: Action) -> str:
    row = action.row
    if isinstance(row, RollRow):
        return f"roll n={row.n} (id {row.pk}, seq {row.seq})"
    if isinstance(row, MoveRow):
        return f"move id {row.pk} (seq {row.seq})"
    return f"match_event id {row.pk} (seq {row.seq}, {action.kind})"


class _Check:
    def __init__(self, match: Match) -> None:
        self.match = match
        self.revealed = match.status in ENDED
        self.events = list(MatchEvent.objects.filter(match=match).order_by("seq"))
        self.by_seq = {e.seq: e for e in self.events}
        self.rolls = list(RollRow.objects.filter(match=match))
        self.moves = list(MoveRow.objects.filter(match=match))
        self.turn_rows = list(Turn.objects.filter(match=match).order_by("n", "id"))
        self.seats = list(Seat.objects.filter(match=match).order_by("corner"))
        self.derived_turns: list[tuple[int, int, int]] = []  # (n, corner, seq)
        self.state: State | None = None
        self.n_rolls = 0
        self.turn = 0
        self.before: dict[int, tuple[State, Action]] = {}  # seq -> the state before an action
        self.gone: set[int] = set()  # seqs of the actions an undo withdrew
        self.roll_seqs = {r.seq for r in self.rolls}

    # ------------------------------------------------------------------ 1, 2

    def stream(self) -> None:
        for expected, event in enumerate(self.events, start=1):
            if event.seq != expected:
                raise Mismatch(
                    f"match_event seq {expected} is missing (the next stored is seq {event.seq}, "
                    f"id {event.pk})"
                )
        if len(self.events) != self.match.seq:
            raise Mismatch(
                f"match {self.match.code}: seq is {self.match.seq} but {len(self.events)} "
                "events are stored"
            )

    def seeds(self) -> MatchEvent | None:
        match = self.match
        if self.revealed and dice.commitment(match.server_seed) != match.commitment:
            raise Mismatch(
                f"match {match.code}: the revealed server seed does not match the commitment"
            )
        created = next((e for e in self.events if e.kind == "created"), None)
        if created is None:
            raise Mismatch(f"match {match.code}: no 'created' event")
        if created.data.get("commitment") != match.commitment:
            raise Mismatch(
                f"match_event id {created.pk} (created): commitment differs from the match's"
            )
        started = next((e for e in self.events if e.kind == "started"), None)
        if started is None:
            return None
        client = dice.match_client_seed(s.client_seed for s in self.seats)
        if started.data.get("client_seed") != client or match.client_seed != client:
            raise Mismatch(
                f"match_event id {started.pk} (started): client seed differs from the seats'"
            )
        first = int(started.data["first"])
        if match.first != first:
            raise Mismatch(f"match_event id {started.pk} (started): first player differs")
        rules = match.rules
        fixed = match.options.get("first")
        corners = rules.seats_for(match.players)
        if fixed is not None:
            want = int(fixed)
        elif not match.draws_first:
            want = corners[0]
        elif self.revealed:
            want = dice.draw_first(match.server_seed, client, corners)
        else:
            want = first
        if first != want:
            raise Mismatch(
                f"match_event id {started.pk} (started): corner {first} started, "
                f"the rules give {want}"
            )
        self.derived_turns.append((1, first, started.seq))
        return started

    # ------------------------------------------------------------------ 3

    def actions(self, started: MatchEvent) -> None:
        match = self.match
        actions: dict[int, Action] = {}
        listed = [Action(r.seq, "roll", r) for r in self.rolls]
        listed += [Action(m.seq, "move", m) for m in self.moves]
        listed += [Action(e.seq, "leave", e) for e in self.events if e.kind == "leave"]
        listed += [Action(e.seq, "undo", e) for e in self.events if e.kind == "undone"]
        for action in sorted(listed, key=lambda a: (a.seq, a.kind)):
            if action.seq in actions:
                raise Mismatch(f"{_row(action)} shares seq {action.seq} with another row")
            actions[action.seq] = action
        state = initial_state(match, started)
        assert state is not None
        self.state, self.turn = state, 1
        seq = 1
        used: set[int] = set()
        while seq <= match.seq:
            action = actions.get(seq)
            if action is None:
                event = self.by_seq[seq]
                if event.kind in ENGINE_KINDS:
                    raise Mismatch(
                        f"match_event id {event.pk} (seq {seq}, {event.kind}) has no roll, move "
                        "or leave row: a row is missing or was moved"
                    )
                if event.kind == "ended":
                    self.ended(event)
                seq += 1
                continue
            used.add(seq)
            seq = self.undo(action) if action.kind == "undo" else self.apply(action)
        for action in listed:
            if action.seq not in used:
                raise Mismatch(f"{_row(action)} is not where the event stream puts it")

    def apply(self, action: Action) -> int:
        """Apply one action, check it; return the seq after its events."""
        state = self.state
        assert state is not None
        row = action.row
        what = _row(action)
        first_event = action.seq + (1 if action.kind == "leave" else 0)
        self.before[action.seq] = (state, action)
        if isinstance(row, RollRow | MoveRow):
            if row.turn != self.turn:
                raise Mismatch(f"{what}: stored in turn {row.turn}, the replay is in {self.turn}")
            if row.corner != state.to_play:
                raise Mismatch(
                    f"{what}: stored for corner {row.corner}, corner {state.to_play} was to play"
                )
        if isinstance(row, RollRow):
            if row.n != self.n_rolls:
                raise Mismatch(f"{what}: numbered {row.n}, the replay is at roll {self.n_rolls}")
            # The dice number is the count of rolls still in play (an undo's withdrawn rolls
            # are replayed, games.services.kernel `dice_number`).
            live = self.n_rolls - len(self.gone & self.roll_seqs)
            if row.dice_number != live:
                raise Mismatch(f"{what}: dice number {row.dice_number}, the replay is at {live}")
            if self.revealed and row.bonus != "control":
                face = dice.roll_face(self.match.server_seed, self.match.client_seed, live)
                if row.face != face:
                    raise Mismatch(f"{what}: face {row.face} stored, the dice give {face}")
            self.n_rolls += 1
        try:
            after, events = apply(state, action)
        except (IllegalAction, KeyError, TypeError, ValueError) as exc:
            raise Mismatch(f"{what}: the rules refuse it: {exc}") from exc
        if isinstance(row, MoveRow):
            played = next(
                m for m in state.legal if m[:4] == (row.pawn_corner, row.pawn, row.frm, row.to)
            )
            if [list(c) for c in played.captures] != row.captures:
                raise Mismatch(
                    f"{what}: captures {row.captures} stored, the move captures "
                    f"{[list(c) for c in played.captures]}"
                )
        seq = first_event
        for e in events:
            stored = self.by_seq.get(seq)
            if stored is None or _wire(stored) != as_dict(e):
                where = f"match_event id {stored.pk}" if stored else "no event"
                raise Mismatch(
                    f"{what}: the replay gives {as_dict(e)} at seq {seq}, stored: {where} "
                    f"{_wire(stored) if stored else ''}".rstrip()
                )
            if isinstance(e, TurnPassed):
                self.turn += 1
                self.derived_turns.append((self.turn, e.to, seq))
            seq += 1
        self.state = after
        return seq

    def undo(self, action: Action) -> int:
        """Check an undo and put back the state it names; return the seq after it."""
        event = action.row
        assert isinstance(event, MatchEvent)
        what = _row(action)
        if self.match.mode != "local":
            raise Mismatch(f"{what}: an undo in a {self.match.mode} match (local games only)")
        low, high = int(event.data["from"]), int(event.data["to"])
        if high != event.seq - 1 or low > high:
            raise Mismatch(f"{what}: withdraws seqs {low}..{high}, not up to the undo itself")
        found = self.before.get(low)
        if found is None or low in self.gone:
            raise Mismatch(f"{what}: seq {low} is not a roll or move still in play")
        restored, target = found
        # A person's roll or move: one a player made (seats may switch kinds since).
        if target.kind not in ("roll", "move") or getattr(target.row, "by", "") != "player":
            raise Mismatch(f"{what}: seq {low} is not a person's roll or move")
        self.gone.update(s for s in self.before if low <= s <= high)
        self.turn += 1
        if event.data.get("corner") != restored.to_play or event.data.get("turn") != self.turn:
            raise Mismatch(
                f"{what}: gives turn {event.data.get('turn')} to corner "
                f"{event.data.get('corner')}, the replay gives turn {self.turn} to corner "
                f"{restored.to_play}"
            )
        self.derived_turns.append((self.turn, restored.to_play, event.seq))
        self.state = restored
        return event.seq + 1

    def ended(self, event: MatchEvent) -> None:
        state = self.state
        assert state is not None
        if state.phase != "over" or event.data.get("placings") != list(state.placings):
            raise Mismatch(
                f"match_event id {event.pk} (ended): placings {event.data.get('placings')}, "
                f"the replay has {list(state.placings) if state.phase == 'over' else 'no end'}"
            )
        if event.data.get("server_seed") != self.match.server_seed:
            raise Mismatch(f"match_event id {event.pk} (ended): server seed differs")

    # ------------------------------------------------------------------ 4, 5

    def turns(self) -> None:
        stored = [(t.n, t.corner, t.seq) for t in self.turn_rows]
        for row, got, want in zip(self.turn_rows, stored, self.derived_turns, strict=False):
            if got != want:
                raise Mismatch(
                    f"turn id {row.pk}: stored n={got[0]} corner {got[1]} seq {got[2]}, the "
                    f"replay has turn {want[0]} for corner {want[1]} from seq {want[2]}"
                )
        if len(stored) > len(self.derived_turns):
            extra = self.turn_rows[len(self.derived_turns)]
            raise Mismatch(f"turn id {extra.pk} (n={extra.n}) is not in the replay")
        if len(stored) < len(self.derived_turns):
            n, corner, seq = self.derived_turns[len(stored)]
            raise Mismatch(f"turn {n} (corner {corner}, seq {seq}) is missing")

    def final(self) -> None:
        match, state = self.match, self.state
        assert state is not None
        want = snapshot_of(state, rolls=self.n_rolls, turn=self.turn)
        if match.snapshot != want:
            raise Mismatch(
                f"match {match.code}: the stored snapshot {match.snapshot} is not the replay's "
                f"{want}"
            )
        if match.turn_seq != self.turn:
            raise Mismatch(f"match {match.code}: turn_seq {match.turn_seq}, replay {self.turn}")
        over = state.phase == "over"
        # A voided match was finished, then its results were cleared (games.services.match_void).
        if over != (match.status in (Status.FINISHED, Status.VOID)):
            raise Mismatch(
                f"match {match.code}: status {match.get_status_display()} but the replay "
                f"{'has ended' if over else 'is still playing'}"
            )
        counts = over and match.status == Status.FINISHED
        places = {c: i for i, c in enumerate(state.placings, start=1)} if counts else {}
        for seat in self.seats:
            if seat.place != places.get(seat.corner):
                raise Mismatch(
                    f"seat id {seat.pk} (corner {seat.corner}): place {seat.place}, the replay "
                    f"gives {places.get(seat.corner)}"
                )

    # ------------------------------------------------------------------ 6

    def audit(self) -> int:
        match = self.match
        entries = list(
            AuditEntry.objects.filter(object_type="games.match", object_id=str(match.pk)).order_by(
                "id"
            )
        )
        for entry in entries:
            reason = problem_at(entry)
            if reason is not None:
                raise Mismatch(reason)
        self.chain(entries)
        by_action: dict[str, AuditEntry] = {}
        for entry in entries:
            by_action.setdefault(entry.action, entry)
        created = by_action.get("match.created")
        if created is None:
            raise Mismatch(f"match {match.code}: no match.created audit entry")
        if created.extra_data.get("commitment") != match.commitment:
            raise Mismatch(
                f"audit entry {created.pk} (match.created): commitment differs from the match's"
            )
        if match.status >= Status.ACTIVE and match.started_at is not None:
            started = by_action.get("match.started")
            if started is None:
                raise Mismatch(f"match {match.code}: no match.started audit entry")
            if (
                started.extra_data.get("client_seed") != match.client_seed
                or started.extra_data.get("first") != match.first
            ):
                raise Mismatch(
                    f"audit entry {started.pk} (match.started): seeds or first player differ"
                )
        if match.status == Status.VOID and "match.voided" not in by_action:
            raise Mismatch(f"match {match.code}: void, but no match.voided audit entry")
        if match.status in (Status.FINISHED, Status.VOID):
            finished = by_action.get("match.finished")
            state = self.state
            assert state is not None
            if finished is None:
                raise Mismatch(f"match {match.code}: no match.finished audit entry")
            if finished.extra_data.get("placings") != list(state.placings) or (
                finished.extra_data.get("server_seed") != match.server_seed
            ):
                raise Mismatch(
                    f"audit entry {finished.pk} (match.finished): placings or seed differ"
                )
        return len(entries)

    def chain(self, entries: list[AuditEntry]) -> None:
        """The match's own chain (its entries checked above, each against the one before it)
        and its anchors in the global chain: each anchored head is still there as it was,
        and an ended match's chain was anchored at or after its last entry before the end."""
        match = self.match
        anchors = []
        for entry in entries:
            if entry.chain is None and entry.action == MATCH_CHAIN_ANCHORED:
                extra = entry.extra_data if isinstance(entry.extra_data, dict) else {}
                try:
                    anchors.append(
                        (entry.pk, int(extra["chain"]), int(extra["head_id"]), str(extra["head"]))
                    )
                except (KeyError, TypeError, ValueError):
                    raise Mismatch(
                        f"audit entry {entry.pk} ({entry.action}): it names no chain head"
                    ) from None
                if anchors[-1][1] != match.pk:
                    raise Mismatch(
                        f"audit entry {entry.pk} ({entry.action}): it anchors another match's chain"
                    )
            elif entry.chain is not None and entry.chain != match.pk:
                raise Mismatch(f"audit entry {entry.pk} ({entry.action}): in another chain")
        found = chain_anchor_problems(anchors)
        if found is not None:
            raise Mismatch(found[1])
        end = next(
            (
                e
                for e in entries
                if e.chain is None and e.action in ("match.finished", "match.aborted")
            ),
            None,
        )
        if end is None:
            return
        before_end = [e.pk for e in entries if e.chain is not None and e.pk < end.pk]
        anchored = max((head_id for _, _, head_id, _ in anchors), default=None)
        if before_end and (anchored is None or anchored < max(before_end)):
            raise Mismatch(
                f"match {match.code}: its own audit chain was not anchored when it ended "
                f"(entry {max(before_end)} is not covered by an anchor)"
            )


def verify_match(match: Match) -> Report:
    """Check `match`; the report's line is a one-line summary, or the first problem."""
    match = Match.objects.get(pk=match.pk)  # as stored, whatever the caller's copy says
    check = _Check(match)
    try:
        check.stream()
        started = check.seeds()
        if started is not None:
            check.actions(started)
            check.turns()
            check.final()
        elif check.rolls or check.moves or check.turn_rows:
            raise Mismatch(f"match {match.code}: rows are stored but it never started")
        audits = check.audit()
    except Mismatch as exc:
        return Report(False, str(exc))
    except (KeyError, TypeError, ValueError) as exc:
        # A row edited into a shape the code cannot read is a mismatch too.
        return Report(False, f"match {match.code}: a stored row cannot be read: {exc!r}")
    state = check.state
    rules = match.rules
    if state is not None and state.phase == "over":
        end = "placings " + " ".join(rules.colours[c] for c in state.placings)
    else:
        end = match.get_status_display().lower()
    if match.status == Status.VOID:
        # Checked like a finished match, but it does not count: say so on the one line.
        when = f" on {match.voided_at:%Y-%m-%d %H:%M} UTC" if match.voided_at else ""
        end += f"; VOID: voided by a moderator{when}, it does not count"
    dice_note = "dice verified" if check.revealed else "dice sealed until the end"
    return Report(
        True,
        f"match {match.code} ok: {match.options.get('rules', match.ruleset)}, {match.mode}, "
        f"{match.players} players, {len(check.rolls)} rolls, {len(check.moves)} moves, "
        f"{len(check.turn_rows)} turns, {len(check.events)} events, {audits} audit entries, "
        f"{dice_note}; {end}",
    )
