"""Matches in the admin, read-only: services own every write. The server seed is shown only
once the match has ended."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join

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
    fields = (
        "corner",
        "user",
        "bot",
        "client_seed",
        "connected",
        "missed_turns",
        "place",
        "left",
        "rating_change",
        "rating_protected",
        "ip",
        "device",
        "user_agent",
    )
    readonly_fields = fields


@admin.register(Match)
class MatchAdmin(ReadOnlyAdmin):
    list_display = ("code", "ruleset", "mode", "status", "players", "created_at", "links")
    list_filter = ("status", "mode", "ruleset")
    # By room code, or by a player's username or display name.
    search_fields = ("code", "seats__user__username", "seats__user__display_name")
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
        "voided_at",
        "void_reason",
        "links",
    )
    readonly_fields = fields

    def get_search_results(self, request: HttpRequest, queryset: Any, search_term: str) -> Any:
        found, _ = super().get_search_results(request, queryset, search_term)
        return found.distinct(), False  # a player seated twice is one row

    @admin.display(description="replay and disputes")
    def links(self, obj: Match) -> str:
        replay = format_html('<a href="{}">Replay</a>', reverse("replay", args=[obj.code]))
        disputes = format_html_join(
            " ",
            '<a href="{}">dispute {}</a>',
            (
                (reverse("disputes:review", args=[pk]), pk)
                for pk in obj.disputes.values_list("pk", flat=True)
            ),
        )
        return format_html("{} {}", replay, disputes)

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
    list_display = ("match", "n", "turn", "corner", "face", "bonus", "by", "think_ms", "at")
    list_filter = ("by", "face")
    list_select_related = ("match",)
    search_fields = ("match__code",)


@admin.register(Move)
class MoveAdmin(ReadOnlyAdmin):
    list_display = (
        "match",
        "seq",
        "turn",
        "corner",
        "pawn_corner",
        "pawn",
        "frm",
        "to",
        "by",
        "think_ms",
    )
    list_filter = ("by",)
    list_select_related = ("match",)
    search_fields = ("match__code",)


@admin.register(MatchEvent)
class MatchEventAdmin(ReadOnlyAdmin):
    list_display = ("match", "seq", "kind", "change", "at")
    list_filter = ("kind",)
    list_select_related = ("match",)
    search_fields = ("match__code",)
