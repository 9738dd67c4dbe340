"""The custom user model exists from the first migration and is in the admin."""

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.operations import CreateModel

from accounts.models import User


def test_user_model_is_accounts_user() -> None:
    assert get_user_model() is User
    assert User._meta.label == "accounts.User"


def test_user_is_created_in_first_migration() -> None:
    loader = MigrationLoader(None, ignore_no_migrations=True)
    first = loader.get_migration("accounts", "0001_initial")
    created = [op.name for op in first.operations if isinstance(op, CreateModel)]
    assert "User" in created


@pytest.mark.django_db
def test_no_missing_migrations() -> None:
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


@pytest.mark.django_db
def test_display_name_is_optional() -> None:
    plain = User.objects.create_user("bea", password="pw-for-tests")
    assert plain.display_name == ""
    assert plain.shown_name == "bea"
    assert str(plain) == "bea"
    named = User.objects.create_user("cy", password="pw-for-tests", display_name="Cy the Bold")
    assert named.shown_name == "Cy the Bold"


def test_user_is_registered_in_admin() -> None:
    assert admin.site.is_registered(User)
