"""The moderators group may make events in the admin, as the README says they do: add, change
and view tournaments, and view their games and players (only the services write those)."""

from django.db import migrations

MODERATORS = "moderators"

GRANTS = ["add_tournament", "change_tournament", "view_tournament", "view_game", "view_player"]


def grant(apps, schema_editor):
    # Permissions are made after migrations run (post_migrate); make them now so a fresh
    # database's group is complete.
    from django.contrib.auth.management import create_permissions

    for config in apps.get_app_configs():
        config.models_module = True
        create_permissions(config, verbosity=0, apps=apps)
        config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name=MODERATORS)
    group.permissions.add(
        *Permission.objects.filter(content_type__app_label="tournaments", codename__in=GRANTS)
    )


def revoke(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.filter(name=MODERATORS).first()
    if group is not None:
        group.permissions.remove(
            *Permission.objects.filter(content_type__app_label="tournaments", codename__in=GRANTS)
        )


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0002_quick_queue"),
        ("disputes", "0004_moderators_view_permissions"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(grant, revoke)]
