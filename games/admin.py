"""Matches in the admin, read-only: services own every write. The server seed is shown only
once the match has ended."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from games.models import Match, MatchEvent, Move, Roll, Seat, Turn


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = ("corner", "user", "bot", "client_seed", "connected", "missed_turns", "place", "left")
    readonly_fields = fields


@admin.register(Match)
class MatchAdmin(ReadOnlyAdmin):
    list_display = ("code", "ruleset", "mode", "status", "players", "seq", "created_at")
    list_filter = ("status", "mode", "ruleset")
    search_fields = ("code",)
    date_hierarchy = "created_at"
    inlines = [SeatInline]
    # Never `server_seed` itself: it is secret until the match ends.
    fields = (
        "code",
        "ruleset",
        "options",
        "players",
        "mode",
        "status",
        "host",
        "commitment",
        "revealed_seed",
        "client_seed",
        "first",
        "seq",
        "turn_seq",
        "turn_deadline",
        "snapshot",
        "created_at",
        "started_at",
        "finished_at",
    )
    readonly_fields = fields

    @admin.display(description="server seed")
    def revealed_seed(self, obj: Match) -> str:
        return obj.server_seed if obj.ended else "(secret until the match ends)"


@admin.register(Turn)
class TurnAdmin(ReadOnlyAdmin):
    list_display = ("match", "n", "corner", "seq", "started_at")
    list_select_related = ("match",)
    search_fields = ("match__code",)


@admin.register(Roll)
class RollAdmin(ReadOnlyAdmin):
    list_display = ("match", "n", "turn", "corner", "face", "bonus", "by", "seq", "at")
    list_filter = ("by", "face")
    list_select_related = ("match",)
    search_fields = ("match__code",)


@admin.register(Move)
class MoveAdmin(ReadOnlyAdmin):
    list_display = ("match", "seq", "turn", "corner", "pawn_corner", "pawn", "frm", "to", "by")
    list_filter = ("by",)
    list_select_related = ("match",)
    search_fields = ("match__code",)


@admin.register(MatchEvent)
class MatchEventAdmin(ReadOnlyAdmin):
    list_display = ("match", "seq", "kind", "change", "at")
    list_filter = ("kind",)
    list_select_related = ("match",)
    search_fields = ("match__code",)
