"""python manage.py grant_site_role ROLE: as the tables' owner (after every migrate), give the
site's own database role its rights: every table but the audit log read and written, the
audit log read and appended to only (audit.roles)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from audit.roles import grant


class Command(BaseCommand):
    help = (
        "Give ROLE (the role the site connects as) its rights, run as the tables' owner after "
        "every migrate: all tables read and written, the audit log only read and appended to."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("role")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            grant(options["role"])
        except ValueError as e:
            raise CommandError(str(e)) from None
        self.stdout.write(f"{options['role']}: tables read and written, audit log append-only")
