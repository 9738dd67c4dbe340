"""Disputes in the admin, read-only: `disputes.services` owns every write, and moderators
settle from the review page (which audits what they see)."""

from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from games.admin import ReadOnlyAdmin

from .models import CaseEntry, Dispute


@admin.register(Dispute)
class DisputeAdmin(ReadOnlyAdmin):
    # Few, short columns: the list fits a 1280 px screen.
    list_display = [
        "id",
        "match_code",
        "player",
        "reason",
        "status",
        "assignee",
        "opened_at",
        "review",
    ]
    list_select_related = ["match", "player", "assignee"]
    list_filter = ["status", "reason"]
    search_fields = ["match__code", "player__username", "player__display_name"]
    ordering = ["opened_at"]
    readonly_fields = [f.name for f in Dispute._meta.fields]

    @admin.display(description="Match", ordering="match__code")
    def match_code(self, obj: Dispute) -> str:
        return obj.match.code

    @admin.display(description="Review")
    def review(self, obj: Dispute) -> str:
        return format_html('<a href="{}">Review</a>', reverse("disputes:review", args=[obj.pk]))


@admin.register(CaseEntry)
class CaseEntryAdmin(ReadOnlyAdmin):
    """Case threads, read-only (moderators only: internal notes)."""

    list_display = ["dispute", "kind", "author", "at"]
    list_filter = ["kind"]
    list_select_related = ["dispute", "author"]
    search_fields = ["dispute__match__code", "dispute__player__username"]
