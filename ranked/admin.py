"""Ratings and queue entries in the admin, read-only: ratings change only through matches
(and re-rating after a void), queue entries only through the queue."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from .models import Entry, Rating


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Rating)
class RatingAdmin(ReadOnly):
    list_display = ("user", "queue", "ordinal", "mu", "sigma", "games", "wins", "updated_at")
    list_filter = ("queue",)
    search_fields = ("user__username", "user__display_name")
    ordering = ("queue", "-ordinal")


@admin.register(Entry)
class EntryAdmin(ReadOnly):
    list_display = ("user", "queue", "ranked", "state", "ordinal", "ip", "joined_at", "match")
    list_filter = ("queue", "ranked", "state")
    search_fields = ("user__username",)
    date_hierarchy = "joined_at"
