"""Print the fair play leads (booster pairs, accounts far from their own history) with the
figures behind each, beside the site's population. Leads, never verdicts."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from fairplay import leads


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.0%}"


def _ms(x: float | None) -> str:
    return "-" if x is None else f"{x:.0f} ms"


class Command(BaseCommand):
    help = "List fair play leads for moderators, with their figures beside the site's."

    def handle(self, *args: Any, **options: Any) -> None:
        pop = leads.population()
        out = self.stdout
        out.write(
            f"population: {pop['players']} players, {pop['ranked_matches']} ranked matches; "
            f"median think {_ms(pop['median_think_ms'])}; Expert agreement "
            f"{_pct(pop['expert_agreement'])}; meetings per pair: median "
            f"{pop['median_meetings']}, most {pop['most_meetings']}"
        )
        pairs = leads.booster_pairs()
        out.write(f"booster pairs: {len(pairs)}")
        for p in pairs:
            out.write(
                f"  {p.winner.username} beat {p.loser.username}: met {p.meetings} times "
                f"(chance: {p.expected:.2f}, x{p.ratio:.0f}); {p.loser.username} lost "
                f"{p.loser_lost}, {p.early} of them early"
            )
        far = leads.far_from_their_history()
        out.write(f"far from their own history: {len(far)}")
        for f in far:
            out.write(
                f"  {f.player.username}: think {_ms(f.recent_think)} recently against "
                f"{_ms(f.history_think)} before ({f.recent_actions} actions); Expert agreement "
                f"{_pct(f.recent_agree)} against {_pct(f.history_agree)} "
                f"({f.recent_decisions} choices): {'; '.join(f.why)}"
            )
