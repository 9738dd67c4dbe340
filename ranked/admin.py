"""Ratings and queue entries in the admin, read-only: ratings change only through matches
(and re-rating after a void), queue entries only through the queue."""

from __future__ import annotations

from django.contrib import admin

from games.admin import ReadOnlyAdmin

from .models import Entry, Rating


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    list_display = ("user", "queue", "ordinal", "mu", "sigma", "games", "wins", "updated_at")
    list_filter = ("queue",)
    search_fields = ("user__username", "user__display_name")
    ordering = ("queue", "-ordinal")


@admin.register(Entry)
class EntryAdmin(ReadOnlyAdmin):
    list_display = ("user", "queue", "ranked", "state", "ordinal", "ip", "joined_at", "match")
    list_filter = ("queue", "ranked", "state")
    search_fields = ("user__username",)
    date_hierarchy = "joined_at"
