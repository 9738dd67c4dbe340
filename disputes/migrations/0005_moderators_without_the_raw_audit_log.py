"""Moderators no longer read the raw audit log in the admin: it holds every player's addresses
and every report, who made it and about whom, with no conflict-of-interest rule between them.
The desks show what a case needs under those rules (`moderation.conflicts`); the operator
(a superuser) keeps the whole log."""

from django.db import migrations

MODERATORS = "moderators"


def revoke(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.filter(name=MODERATORS).first()
    if group is not None:
        group.permissions.remove(
            *Permission.objects.filter(content_type__app_label="audit", codename="view_auditentry")
        )


def grant(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.filter(name=MODERATORS).first()
    if group is not None:
        group.permissions.add(
            *Permission.objects.filter(content_type__app_label="audit", codename="view_auditentry")
        )


class Migration(migrations.Migration):
    dependencies = [("disputes", "0004_moderators_view_permissions"), ("audit", "0011_rating_unprotected_action")]

    operations = [migrations.RunPython(revoke, grant)]
