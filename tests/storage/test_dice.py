"""Server dice: known rolls from a known seed, no bias, rejection sampling, verification."""

from __future__ import annotations

import hashlib
import hmac

from games.match import dice

SEED = "9f" * 32
CLIENT = "alice.bob"


def reference_face(server_seed: str, client_seed: str, n: int) -> int:
    """The scheme as docs/architecture.md states it, written out again independently."""
    k = 0
    while True:
        message = f"{client_seed}:{n}" + (f":{k}" if k else "")
        digest = hmac.new(server_seed.encode(), message.encode(), hashlib.sha256).digest()
        accepted = [b for b in digest if b < 252]
        if accepted:
            return accepted[0] % 6 + 1
        k += 1


def test_a_known_seed_gives_known_rolls() -> None:
    faces = [dice.roll_face(SEED, CLIENT, n) for n in range(200)]
    assert faces == [reference_face(SEED, CLIENT, n) for n in range(200)]
    # And by hand for the first roll: the first digest byte below 252, mod 6, plus one.
    digest = hmac.new(SEED.encode(), b"alice.bob:0", hashlib.sha256).digest()
    first = next(b for b in digest if b < 252)
    assert faces[0] == first % 6 + 1


def test_bytes_of_252_and_above_are_rejected() -> None:
    """Find rolls whose first digest byte is rejected: the face comes from a later byte."""
    found = 0
    for n in range(5000):
        digest = hmac.new(SEED.encode(), f"{CLIENT}:{n}".encode(), hashlib.sha256).digest()
        if digest[0] >= 252:
            later = next(b for b in digest if b < 252)
            assert dice.roll_face(SEED, CLIENT, n) == later % 6 + 1
            found += 1
    assert found > 30  # about 4 in 256 of 5000


def test_an_exhausted_digest_continues_with_the_next_counter(monkeypatch) -> None:
    """If all 32 bytes were rejected, the draw goes on with HMAC over f"...:{n}:1"."""
    real_new = hmac.new
    calls = []

    class AllRejected:
        def digest(self) -> bytes:
            return bytes([255] * 32)

    def fake_new(key, msg, digestmod):
        calls.append(msg.decode())
        if msg.decode() == f"{CLIENT}:7":
            return AllRejected()
        return real_new(key, msg, digestmod)

    monkeypatch.setattr(dice.hmac, "new", fake_new)
    face = dice.roll_face(SEED, CLIENT, 7)
    assert calls == [f"{CLIENT}:7", f"{CLIENT}:7:1"]
    digest = real_new(SEED.encode(), f"{CLIENT}:7:1".encode(), hashlib.sha256).digest()
    assert face == next(b for b in digest if b < 252) % 6 + 1


def test_faces_are_uniform_chi_square() -> None:
    """60,000 rolls: chi-square with 5 degrees of freedom stays under 20.52 (p = 0.001).
    The seed is fixed, so this cannot flake."""
    n = 60_000
    counts = [0] * 7
    for i in range(n):
        counts[dice.roll_face(SEED, "chi", i)] += 1
    expected = n / 6
    chi2 = sum((counts[f] - expected) ** 2 / expected for f in range(1, 7))
    assert chi2 < 20.52, counts


def test_first_player_draw_is_uniform_over_seats() -> None:
    counts = {0: 0, 1: 0, 2: 0}
    for i in range(3000):
        counts[dice.draw_first(SEED, f"c{i}", (0, 1, 2))] += 1
    assert all(900 < c < 1100 for c in counts.values()), counts


def test_commitment_and_verify() -> None:
    seed = dice.new_server_seed()
    assert len(seed) == 64 and int(seed, 16) >= 0
    assert dice.new_server_seed() != seed
    commitment = dice.commitment(seed)
    assert commitment == hashlib.sha256(seed.encode()).hexdigest()
    rolls = [(n, dice.roll_face(seed, CLIENT, n)) for n in range(50)]
    assert dice.verify(commitment, seed, CLIENT, rolls) == []
    tampered = list(rolls)
    tampered[17] = (17, rolls[17][1] % 6 + 1)
    assert dice.verify(commitment, seed, CLIENT, tampered) == [
        dice.Mismatch(17, str(tampered[17][1]), str(rolls[17][1]))
    ]
    # A face chosen with Dice control is the player's, not the dice's: it is skipped.
    chosen = [(n, face, "") for n, face in rolls] + [
        (50, 7 - dice.roll_face(seed, CLIENT, 50), "control")
    ]
    assert dice.verify(commitment, seed, CLIENT, chosen) == []
    other = dice.new_server_seed()
    assert dice.verify(commitment, other, CLIENT, [])[0].n is None


def test_client_seed_joins_in_corner_order() -> None:
    assert dice.match_client_seed(["a", "b", "c"]) == "a.b.c"
    assert dice.CLIENT_SEED.fullmatch(dice.new_client_seed())
