"""Server dice, provably fair: commit to a secret seed, derive every roll from it, reveal it at
the end so that anyone can re-derive every roll.

The scheme, so that it can be checked with any HMAC tool:

- ``server_seed``: 32 random bytes from `secrets`, written as 64 hex characters. It stays
  secret until the match ends (finished, aborted or void), then it is revealed.
- ``commitment = sha256(server_seed)``: the hex digest of the seed's 64 ASCII characters,
  shown from the match's creation.
- ``client_seed``: each seat has a client seed (letters, digits, ``_`` and ``-``; a random one
  unless the player sets theirs before the start). The match's client seed is the seats'
  client seeds joined with ``.`` in corner order, frozen when the match starts.
- Roll ``n`` (0 for the first roll of the match, counting every stored roll) is drawn from
  ``HMAC-SHA256(key=server_seed as ASCII, msg=f"{client_seed}:{n}")``: the digest's bytes are
  read in order and the first byte below 252 gives ``byte % 6 + 1`` (each face owns exactly
  42 of the 252 accepted values: no modulo bias). If all 32 bytes are 252 or more, the next
  digest is ``HMAC(server_seed, f"{client_seed}:{n}:{k}")`` for k = 1, 2, ...
- Where a preset draws the first player, it is drawn the same way from the message
  ``f"{client_seed}:first"`` over the seated corners in order (accepting bytes below
  ``256 - 256 % seats``).
- A face chosen with the Power bonus Dice control is the player's, not the dice's: its roll
  row says so and it is not derived.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable, Sequence
from typing import NamedTuple

CLIENT_SEED = re.compile(r"[A-Za-z0-9_-]{1,64}")


def new_server_seed() -> str:
    """A fresh secret seed: 32 bytes from the operating system's CSPRNG, as hex."""
    return secrets.token_hex(32)


def new_client_seed() -> str:
    """A default client seed for a seat that did not choose one."""
    return secrets.token_hex(8)


def commitment(server_seed: str) -> str:
    """The public commitment to `server_seed`: its SHA-256 hex digest."""
    return hashlib.sha256(server_seed.encode("ascii")).hexdigest()


def match_client_seed(seeds: Iterable[str]) -> str:
    """The match's client seed from the seats' client seeds, given in corner order."""
    return ".".join(seeds)


def _draw(server_seed: str, message: str, sides: int) -> int:
    """A uniform number in 0..sides-1 from the HMAC stream of `message` (rejection sampling)."""
    limit = 256 - 256 % sides
    key = server_seed.encode("ascii")
    k = 0
    while True:
        text = message if k == 0 else f"{message}:{k}"
        for byte in hmac.new(key, text.encode("utf-8"), hashlib.sha256).digest():
            if byte < limit:
                return byte % sides
        k += 1


def roll_face(server_seed: str, client_seed: str, n: int) -> int:
    """Face 1..6 of roll `n` (0-based, counting the match's rolls)."""
    return _draw(server_seed, f"{client_seed}:{n}", 6) + 1


def draw_first(server_seed: str, client_seed: str, seats: Sequence[int]) -> int:
    """The corner drawn to start, among the seated corners."""
    return seats[_draw(server_seed, f"{client_seed}:first", len(seats))]


class Mismatch(NamedTuple):
    """One thing that does not agree: roll `n` (None for the commitment itself)."""

    n: int | None
    stored: str
    derived: str


def verify(
    commitment_hex: str,
    server_seed: str,
    client_seed: str,
    rolls: Iterable[tuple[int, int] | tuple[int, int, str]],
) -> list[Mismatch]:
    """Check a revealed seed against its commitment and the rolls made from it.

    Each roll is ``(n, face)`` or ``(n, face, bonus)``; a roll whose bonus is "control" had
    its face chosen by the player (Power's Dice control) and is skipped. Returns every
    mismatch, the commitment first; an empty list means all agree.
    """
    found: list[Mismatch] = []
    derived_commitment = commitment(server_seed)
    if not hmac.compare_digest(derived_commitment, commitment_hex):
        found.append(Mismatch(None, commitment_hex, derived_commitment))
    for roll in rolls:
        n, face = roll[0], roll[1]
        if len(roll) > 2 and roll[2] == "control":
            continue
        expected = roll_face(server_seed, client_seed, n)
        if face != expected:
            found.append(Mismatch(n, str(face), str(expected)))
    return found
