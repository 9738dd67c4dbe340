"""Conflicts of interest: the one set of rules both desks keep (the dispute desk and the fair
play desk call it; neither keeps a copy).

A moderator never sees or acts on a case about
- themselves (reports about them, a dispute they filed);
- a player seen at one of their addresses (the server's own loopback left out);
- a player who reported them or disputed a match they played (no retaliation);
- a player they reported, or played in a match the player was reported over (fair play), a
  match they played or an appeal of their own decision (disputes).

A give-back of lost rating never touches the acting moderator's seats
(`fairplay.services.give_back`), and an appeal goes only to a moderator without a conflict,
who alone reads it.

`Conflicts` reads one moderator's side once (the matches they played, the accounts seen at
their addresses, who reported or disputed them): a desk page of many cases asks it about each
with no further query for the player rules, and one more for the players of many matches."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from disputes.addresses import addresses_of, sharing
from disputes.models import Dispute
from fairplay.models import Report
from games.match.errors import said
from games.models import Seat


class Conflicts:
    """One moderator's conflicts of interest, for one case or a page of them."""

    def __init__(self, moderator: Any) -> None:
        self.moderator = moderator
        self.pk = moderator.pk
        self._players: dict[int, set[int]] = {}

    # ------------------------------------------------------------------ the moderator's side

    @cached_property
    def played(self) -> set[int]:
        """The matches the moderator had a seat in."""
        return set(Seat.objects.filter(user_id=self.pk).values_list("match_id", flat=True))

    @cached_property
    def near(self) -> set[int]:
        """The accounts seen at one of the moderator's addresses."""
        return {seen.user_id for seen in sharing(self.pk, set(addresses_of(self.pk)))}

    @cached_property
    def reported_me(self) -> set[int]:
        """The players who reported the moderator."""
        rows = Report.objects.filter(reported_id=self.pk).values_list("reporter_id", flat=True)
        return set(rows)

    @cached_property
    def disputed_me(self) -> set[int]:
        """The players who disputed a match the moderator played."""
        mine = Seat.objects.filter(user_id=self.pk).values("match_id")
        rows = Dispute.objects.filter(match_id__in=mine).values_list("player_id", flat=True)
        return set(rows) - {self.pk}

    @cached_property
    def i_reported(self) -> set[int]:
        """The players the moderator reported."""
        rows = Report.objects.filter(reporter_id=self.pk).values_list("reported_id", flat=True)
        return set(rows)

    @cached_property
    def met(self) -> set[int]:
        """The players reported over a match the moderator played."""
        mine = Seat.objects.filter(user_id=self.pk).values("match_id")
        rows = Report.objects.filter(match_id__in=mine).values_list("reported_id", flat=True)
        return set(rows) - {self.pk}

    # ------------------------------------------------------------------ the rules

    def _as_player(self, user: Any) -> list[Promise]:
        """The rules about one player, whatever the case (their name in each sentence)."""
        why: list[Promise] = []
        name = str(user)
        if user.pk in self.near:
            why.append(said(_("%(name)s was seen at one of your addresses."), name=name))
        if user.pk in self.reported_me:
            why.append(said(_("%(name)s reported you."), name=name))
        if user.pk in self.disputed_me:
            why.append(said(_("%(name)s disputed a match you played."), name=name))
        return why

    def about(self, player: Any) -> list[Promise]:
        """Why the moderator must not see or act on `player`'s reports, record or sanctions
        (empty: they may), each reason a sentence in the reader's language."""
        if player.pk == self.pk:
            return [_("This is about you.")]
        why = self._as_player(player)
        if player.pk in self.i_reported:
            why.append(said(_("You reported %(name)s."), name=str(player)))
        if player.pk in self.met:
            why.append(
                said(_("You played %(name)s in a match they were reported over."), name=str(player))
            )
        return why

    def clear_of(self, player_ids: Iterable[int]) -> set[int]:
        """Of `player_ids`, those the moderator has no conflict with (the desk's list)."""
        barred = (
            self.near | self.reported_me | self.disputed_me | self.i_reported | self.met | {self.pk}
        )
        return set(player_ids) - barred

    def prime(self, match_ids: Iterable[int]) -> None:
        """Read the players of many matches in one query (a page of disputes)."""
        wanted = set(match_ids) - set(self._players)
        for match_id in wanted:
            self._players[match_id] = set()
        rows = Seat.objects.filter(match_id__in=wanted, user_id__isnull=False)
        for match_id, user_id in rows.values_list("match_id", "user_id"):
            self._players[match_id].add(user_id)

    def hidden_disputes(self) -> Q:
        """The disputes `of` bars, as a filter (the admin's lists): on a match the moderator
        or a player barred to them played, or appealing the moderator's own decision."""
        barred = self.near | self.reported_me | self.disputed_me | {self.pk}
        matches = Seat.objects.filter(user_id__in=barred).values("match_id")
        return (
            Q(match_id__in=matches)
            | Q(player_id=self.pk)
            | Q(appeal_of__settled_by_id=self.pk)
            | Q(appeal_of__proposed_by_id=self.pk)
        )

    def of(self, dispute: Dispute) -> list[Promise]:
        """Why the moderator must not handle `dispute` (empty: they may): the match, its filer,
        the decision it appeals, and every other player of the match (a void moves their
        ratings too)."""
        why: list[Promise] = []
        if dispute.match_id in self.played:
            why.append(_("You played in this match."))
        if dispute.player_id == self.pk:
            return [*why, _("You filed this dispute.")]
        original = dispute.appeal_of
        if original is not None and self.pk in (original.settled_by_id, original.proposed_by_id):
            why.append(_("This appeal contests your own decision."))
        why += self._as_player(dispute.player)
        self.prime([dispute.match_id])
        others = self._players[dispute.match_id] - {dispute.player_id, self.pk}
        if others & (self.near | self.reported_me | self.disputed_me):
            for other in get_user_model().objects.filter(pk__in=others).order_by("username"):
                why += self._as_player(other)
        return why


def conflicts_about(player: Any, moderator: Any) -> list[Promise]:
    """Why `moderator` must not see or act on `player`'s case (empty: they may)."""
    if moderator is None or not getattr(moderator, "is_authenticated", False):
        return [_("Nobody is signed in.")]
    return Conflicts(moderator).about(player)


def conflicts_of(dispute: Dispute, moderator: Any) -> list[Promise]:
    """Why `moderator` must not handle `dispute` (empty: they may)."""
    if moderator is None or not getattr(moderator, "is_authenticated", False):
        return [_("Nobody is signed in.")]
    return Conflicts(moderator).of(dispute)


# ---------------------------------------------------------------------------- from the case's side
# The same rules read from the other end: which accounts a case bars, in a few queries
# however many moderators there are (the lists of moderators a case may go to). A test holds
# the two readings equal (tests/fairplay/test_conflicts.py).


def _barred_as_players(player_ids: set[int]) -> set[int]:
    """The accounts `Conflicts._as_player` bars from these players' cases: seen at one of
    their addresses, reported by them, or who played a match they disputed."""
    barred: set[int] = set()
    for player_id in player_ids:
        barred |= {seen.user_id for seen in sharing(player_id)}
    barred |= set(
        Report.objects.filter(reporter_id__in=player_ids).values_list("reported_id", flat=True)
    )
    disputed = Dispute.objects.filter(player_id__in=player_ids).values("match_id")
    barred |= set(
        Seat.objects.filter(match_id__in=disputed, user_id__isnull=False).values_list(
            "user_id", flat=True
        )
    )
    return barred - player_ids


def barred_from_player(player: Any) -> set[int]:
    """The accounts that must not see or act on `player`'s case (`Conflicts.about`)."""
    barred = {player.pk} | _barred_as_players({player.pk})
    reports = Report.objects.filter(reported_id=player.pk)
    barred |= set(reports.values_list("reporter_id", flat=True))
    barred |= set(
        Seat.objects.filter(
            match_id__in=reports.filter(match__isnull=False).values("match_id"),
            user_id__isnull=False,
        ).values_list("user_id", flat=True)
    )
    return barred


def barred_from_dispute(dispute: Dispute) -> set[int]:
    """The accounts that must not handle `dispute` (`Conflicts.of`)."""
    seated = set(
        Seat.objects.filter(match_id=dispute.match_id, user_id__isnull=False).values_list(
            "user_id", flat=True
        )
    )
    barred = seated | {dispute.player_id} | _barred_as_players(seated | {dispute.player_id})
    original = dispute.appeal_of
    if original is not None:
        barred |= {original.settled_by_id, original.proposed_by_id} - {None}
    return barred
