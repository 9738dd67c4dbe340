"""Moderators' events: made in the admin (name, kind, queue, start, length, rounds, entry
conditions). Saving a new one checks it and audits it as the services do; standings and
games are read-only here (only the tournament services write them)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.core.exceptions import ValidationError
from django.forms import ModelForm
from django.http import HttpRequest

from . import services
from .models import Game, Player, Tournament

EDITABLE = (
    "name",
    "kind",
    "queue",
    "starts_at",
    "minutes",
    "rounds",
    "min_games",
    "min_rating",
    "max_rating",
    "min_account_days",
)


class TournamentForm(ModelForm):
    class Meta:
        model = Tournament
        fields = EDITABLE

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        candidate = Tournament(**{k: data.get(k) for k in EDITABLE if data.get(k) is not None})
        candidate.rounds = data.get("rounds") or 0
        candidate.minutes = data.get("minutes") or 0
        try:
            services.check(candidate)
        except services.TournamentError as e:
            raise ValidationError(e.message) from e
        return data


class PlayerInline(admin.TabularInline):
    model = Player
    extra = 0
    can_delete = False
    fields = ("user", "status", "rank", "score", "games", "wins", "streak", "byes", "buchholz")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    form = TournamentForm
    list_display = ("code", "name", "kind", "queue", "state", "starts_at", "schedule")
    list_filter = ("state", "kind", "queue", "schedule")
    search_fields = ("code", "name")
    inlines = [PlayerInline]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        fixed = ("code", "state", "round", "schedule", "created_by", "started_at", "finished_at")
        if obj is not None and obj.state != "upcoming":
            return fixed + EDITABLE  # a running or finished event is not changed
        return fixed

    def save_model(self, request: HttpRequest, obj: Tournament, form: Any, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        made = services.create(created_by=request.user, **{k: getattr(obj, k) for k in EDITABLE})
        obj.pk, obj.code = made.pk, made.code
        obj.refresh_from_db()


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("pk", "tournament", "round", "match", "status", "ended_at")
    list_filter = ("status",)
    readonly_fields = ("tournament", "round", "match", "users", "places", "status", "ended_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
