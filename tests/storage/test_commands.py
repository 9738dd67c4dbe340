"""The management commands: simulate a match, verify it, verify the audit chain."""

from __future__ import annotations

import hashlib
import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from games.match import dice
from games.models import Match, Roll, Status

pytestmark = pytest.mark.django_db


def run(*args: str) -> list[str]:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue().splitlines()


def test_simulate_then_verify() -> None:
    lines = run("simulate_match", "--ruleset", "duel", "--players", "2", "--seed", "7")
    code = lines[-1]
    match = Match.objects.get(code=code)
    assert match.status == Status.FINISHED and match.mode == "practice"
    assert all(s.bot for s in match.seats.all())
    assert set(Roll.objects.filter(match=match).values_list("by", flat=True)) == {"bot"}
    (summary,) = run("verify_match", code.lower())
    assert summary.startswith(f"match {code} ok: duel, practice, 2 players")
    assert run("verify_audit")[0].startswith("audit chain ok")
    # --seed S fixes the server seed (sha256 of "simulate:S"); bots have fixed client seeds
    # and draw their choices from the server seed, so the whole match follows from S.
    seed = hashlib.sha256(b"simulate:7").hexdigest()
    assert match.server_seed == seed and match.client_seed == "bot0.bot2"
    faces = list(Roll.objects.filter(match=match).order_by("n").values_list("face", flat=True))
    assert faces == [dice.roll_face(seed, "bot0.bot2", n) for n in range(len(faces))]


def test_bad_arguments() -> None:
    with pytest.raises(CommandError):
        run("simulate_match", "--ruleset", "duel", "--players", "3")
    with pytest.raises(CommandError):
        run("simulate_match", "--ruleset", "chess", "--players", "2")
    with pytest.raises(CommandError) as err:
        run("verify_match", "NOSUCH")
    assert err.value.returncode == 2
