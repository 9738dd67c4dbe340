"""python manage.py verify_audit: check the whole audit chain; exit 1 naming the first break."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from audit.chain import first_problem
from audit.models import AuditEntry


class Command(BaseCommand):
    help = "Check the audit log's hash chain; exit 1 naming the first entry that breaks it."

    def handle(self, *args: Any, **options: Any) -> None:
        found = first_problem()
        if found is not None:
            raise CommandError(found[1], returncode=1)
        count = AuditEntry.objects.count()
        last = AuditEntry.objects.order_by("-id").values_list("id", "hash").first()
        head = f", head #{last[0]} {last[1][:12]}" if last else ""
        self.stdout.write(f"audit chain ok: {count} entries{head}")
