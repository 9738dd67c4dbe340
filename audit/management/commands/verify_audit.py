"""python manage.py verify_audit [--anchor ID:HASH ...]: check the global audit chain and every
match's own chain, each match chain's anchors in the global chain, and that the log still
holds each --anchor's entry unchanged; exit 1 naming the first problem."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from audit.chain import anchor_problem, anchor_text, check_all, head, parse_anchor


class Command(BaseCommand):
    help = (
        "Check the audit log's hash chain, and each --anchor (a head printed or logged before: "
        "ID:HASH); exit 1 naming the first problem. Prints the head to keep as a new anchor."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--anchor",
            action="append",
            default=[],
            metavar="ID:HASH",
            help="an earlier head of the log (repeatable): detects entries cut off its end",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            anchors = [parse_anchor(text) for text in options["anchor"]]
        except ValueError as e:
            raise CommandError(str(e), returncode=2) from e
        walk, found = check_all()
        if found is not None:
            raise CommandError(found[1], returncode=1)
        for anchor in anchors:
            reason = anchor_problem(anchor)
            if reason is not None:
                raise CommandError(reason, returncode=1)
        count = walk.count
        now = head()
        checked = f", {len(anchors)} anchor(s) hold" if anchors else ""
        self.stdout.write(
            f"audit chain ok: {count} entries{checked}; {walk.match_chains} match chains, "
            f"{len(walk.anchors)} match chain anchors hold"
        )
        if now is not None:
            self.stdout.write(f"anchor: {anchor_text(now)}")
