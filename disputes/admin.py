"""Disputes in the admin, read-only: `disputes.services` owns every write, and moderators
settle from the review page (which audits what they see). A moderator's lists leave out the
disputes they have a conflict of interest with (`moderation.conflicts`), as the desk does."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from games.admin import ReadOnlyAdmin
from moderation.conflicts import Conflicts

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

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        rows = super().get_queryset(request)
        if request.user.is_superuser:
            return rows
        return rows.exclude(Conflicts(request.user).hidden_disputes())

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

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        rows = super().get_queryset(request)
        if request.user.is_superuser:
            return rows
        hidden = Dispute.objects.filter(Conflicts(request.user).hidden_disputes())
        return rows.exclude(dispute__in=hidden.values("pk"))
