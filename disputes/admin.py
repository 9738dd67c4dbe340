"""Disputes in the admin, read-only: `disputes.services` owns every write, and moderators
settle from the review page (which audits what they see)."""

from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from games.admin import ReadOnlyAdmin

from .models import Dispute


@admin.register(Dispute)
class DisputeAdmin(ReadOnlyAdmin):
    list_display = [
        "id",
        "match",
        "player",
        "reason",
        "status",
        "opened_at",
        "settled_at",
        "review",
    ]
    list_filter = ["status", "reason"]
    search_fields = ["match__code", "player__username"]
    ordering = ["opened_at"]
    readonly_fields = [f.name for f in Dispute._meta.fields]

    @admin.display(description="Review")
    def review(self, obj: Dispute) -> str:
        return format_html('<a href="{}">Review</a>', reverse("disputes:review", args=[obj.pk]))
