"""The audit log in the admin: read-only, with a check of the chain."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .chain import first_problem
from .models import AuditEntry


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    list_display = ("id", "event_time", "action", "actor_id", "ip", "object_type", "object_id")
    list_filter = ("action",)
    search_fields = ("object_id", "action")
    date_hierarchy = "event_time"
    readonly_fields = [f.name for f in AuditEntry._meta.fields]
    actions = ["check_chain"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.action(description=gettext_lazy("Check the whole chain"))
    def check_chain(self, request: HttpRequest, queryset: Any) -> None:
        found = first_problem()
        if found is None:
            self.message_user(request, _("The audit chain holds."), messages.SUCCESS)
        else:
            self.message_user(request, found[1], messages.ERROR)
