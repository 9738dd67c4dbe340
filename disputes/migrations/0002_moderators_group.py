"""The moderators group: its staff members review and settle disputes."""

from django.db import migrations

MODERATORS = "moderators"


def create(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Group.objects.get_or_create(name=MODERATORS)


def remove(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Group.objects.filter(name=MODERATORS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("disputes", "0001_initial"),
    ]

    operations = [migrations.RunPython(create, remove)]
