"""The rule-of-thumb bots: beginner, greedy, and easy, medium, hard on the "best pawn" order
(docs/rules.md, "Around the board")."""

from __future__ import annotations

import random

from games.engine import STORED_BONUSES, YARD, Move, State, legal_moves, roll

from .threats import can_be_captured, threat
from .words import describe, say


def _furthest(moves: list[Move] | tuple[Move, ...]) -> Move:
    """The move that ends furthest along; ties to the lowest pawn number."""
    return max(moves, key=lambda m: (m.to, -m.pawn))


class Bot:
    """A bot policy: picks a move for the roll in hand and says why in a short sentence."""

    name = ""
    label = ""
    about = ""  # how it plays, in a few honest words for the level picker

    def choose(self, state: State, rng: random.Random) -> tuple[Move, str]:
        """One of `legal_moves(state)` and the reason, for a state in phase "move"."""
        raise NotImplementedError

    def choose_bonus(self, state: State, rng: random.Random) -> str:
        """Power, before rolling: "" or a bonus in stock ("double", "control", "shield")."""
        return ""

    def choose_face(self, state: State, rng: random.Random) -> int:
        """Power, after `choose_bonus` said "control": the face to roll."""
        return 6

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def _moves(state: State) -> tuple[Move, ...]:
    moves = legal_moves(state)
    if state.phase != "move" or not moves:
        raise ValueError("A bot chooses a move only with a roll in hand and a legal move")
    return moves


class RandomBot(Bot):
    """Any legal move, uniformly: the yardstick the tournament measures the others against."""

    name = "random"
    label = "Random BOT"
    about = "any legal move, at random"

    def choose(self, state: State, rng: random.Random) -> tuple[Move, str]:
        m = rng.choice(_moves(state))
        return m, describe(state, m)


class Greedy(Bot):
    """The classic one-device computer: home if it can, else a capture, else out of the yard,
    else the pawn furthest along; it says which of these it did."""

    name = "greedy"
    label = "Greedy BOT"
    about = "always the obvious move: home, capture, out of the yard, else furthest along"

    def choose(self, state: State, rng: random.Random) -> tuple[Move, str]:
        moves = _moves(state)
        home = [m for m in moves if m.home]
        if home:
            m = min(home, key=lambda m: m.pawn)
            return m, say(state, m, "home")
        capturing = [m for m in moves if m.captures]
        if capturing:
            m = _furthest(capturing)
            return m, say(state, m, "capture")
        out = [m for m in moves if m.frm == YARD]
        if out:
            m = min(out, key=lambda m: m.pawn)
            return m, say(state, m, "out")
        m = _furthest(moves)
        return m, say(state, m, "along")


def _lands_safe(state: State, m: Move) -> bool:
    """`m` takes a pawn from where a rival may capture it to where none can."""
    return can_be_captured(state, m.corner, m.frm) and not can_be_captured(state, m.corner, m.to)


class Beginner(Bot):
    """Gentle, for a first game: it keeps its pawns together (a pawn out of the yard on a 6,
    else the pawn furthest behind) and notices a capture or a safe square only half the time;
    when it misses one, its reason says so."""

    name = "beginner"
    label = "Beginner BOT"
    about = "gentle: moves the pawn furthest behind, misses captures and safe squares half the time"
    notice = 0.5

    def choose(self, state: State, rng: random.Random) -> tuple[Move, str]:
        moves = _moves(state)
        missed = ""
        capturing = [m for m in moves if m.captures]
        if capturing:
            if rng.random() < self.notice:
                m = _furthest(capturing)
                return m, say(state, m, "capture")
            missed = "capture"
        safe = [m for m in moves if not m.captures and _lands_safe(state, m)]
        if safe:
            if rng.random() < self.notice:
                m = max(safe, key=lambda m: (threat(state, m.corner, m.frm), m.to, -m.pawn))
                where = "to_column" if m.to > state.rules.last_track else "safe"
                return m, say(state, m, where)
            missed = missed or "safe"
        out = [m for m in moves if m.frm == YARD]
        if out:
            m = min(out, key=lambda m: m.pawn)
            reason = say(state, m, "out")
        else:
            m = min(moves, key=lambda m: (m.frm, m.pawn))
            reason = describe(state, m) if m.home else say(state, m, "behind")
        if missed and not (m.captures or _lands_safe(state, m)):
            words = {"capture": "a capture", "safe": "a safe square"}[missed]
            reason = reason.plus("missed", f" (it missed {words})", missed=missed)
        return m, reason


def best_pawn(state: State) -> tuple[Move, str]:
    """The "best pawn": the one that captures, else gets home, else lands safe, else
    comes out of the yard, else runs from a rival; else the pawn that ends furthest along."""
    moves = _moves(state)
    capturing = [m for m in moves if m.captures]
    if capturing:
        m = max(capturing, key=lambda m: (len(m.captures), m.frm, m.to, -m.pawn))
        return m, say(state, m, "capture")
    home = [m for m in moves if m.home]
    if home:
        m = min(home, key=lambda m: m.pawn)
        return m, say(state, m, "home")
    # Landing safe: from a square where it could be captured to one where it cannot.
    safe = [m for m in moves if _lands_safe(state, m)]
    if safe:
        m = max(safe, key=lambda m: (threat(state, m.corner, m.frm), m.to, -m.pawn))
        where = "to_column" if m.to > state.rules.last_track else "safe"
        return m, say(state, m, where)
    out = [m for m in moves if m.frm == YARD]
    if out:
        m = min(out, key=lambda m: m.pawn)
        return m, say(state, m, "out")
    runs = []
    for m in moves:
        before = threat(state, m.corner, m.frm)
        if before:
            pawns = list(state.pawns)
            row = list(pawns[m.corner])
            row[m.pawn] = m.to
            pawns[m.corner] = tuple(row)
            after = threat(state, m.corner, m.to, tuple(pawns))
            if after < before:
                runs.append((before, -after, m.to, -m.pawn, m))
    if runs:
        m = max(runs, key=lambda r: r[:4])[4]
        return m, say(state, m, "away")
    m = _furthest(moves)
    return m, say(state, m, "along")


class Levelled(Bot):
    """Plays the best pawn (`best_pawn`) with probability `skill`, else a random legal move."""

    def __init__(self, name: str, skill: float, about: str = "") -> None:
        self.name = name
        self.label = f"{name.capitalize()} BOT"
        self.skill = skill
        self.about = about

    def choose(self, state: State, rng: random.Random) -> tuple[Move, str]:
        moves = _moves(state)
        if self.skill >= 1 or rng.random() < self.skill:
            return best_pawn(state)
        m = rng.choice(moves)
        return m, describe(state, m).plus("hunch", " on a hunch")

    def choose_bonus(self, state: State, rng: random.Random) -> str:
        """Hard (and the others when they play well) spend Dice control on a capture."""
        if self.skill >= 1 or rng.random() < self.skill:
            return "control" if self._capturing_face(state) else ""
        return ""

    def choose_face(self, state: State, rng: random.Random) -> int:
        return self._capturing_face(state) or 6

    def _capturing_face(self, state: State) -> int:
        """The face, if any, that lets a pawn capture after Dice control (the lowest such)."""
        rules = state.rules
        if not rules.power or state.bonus or state.phase != "roll":
            return 0
        if state.stock[state.to_play][STORED_BONUSES.index("control")] < 1:
            return 0
        for face in range(1, 7):
            after, _ = roll(state, face, bonus="control")
            if after.phase == "move" and any(m.captures for m in legal_moves(after)):
                return face
        return 0
