"""The moderators group gets the admin's view permissions its "Admin" link implies: matches and
their rows, disputes and their case entries, the audit log, players and ratings. View only:
the services own every write, and the admin pages are read-only anyway."""

from django.db import migrations

MODERATORS = "moderators"

VIEW = {
    "games": ["match", "seat", "turn", "roll", "move", "matchevent"],
    "disputes": ["dispute", "caseentry"],
    "audit": ["auditentry"],
    "accounts": ["user"],
    "ranked": ["rating"],
}


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
    for app, models in VIEW.items():
        codenames = [f"view_{m}" for m in models]
        group.permissions.add(
            *Permission.objects.filter(content_type__app_label=app, codename__in=codenames)
        )


def revoke(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    group = Group.objects.filter(name=MODERATORS).first()
    if group is not None:
        group.permissions.clear()


class Migration(migrations.Migration):
    dependencies = [
        ("disputes", "0003_case_management"),
        ("games", "0004_think_time_device_rating_protection"),
        ("audit", "0006_desk_actions"),
        ("accounts", "0001_initial"),
        ("ranked", "0002_queue_entry"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(grant, revoke)]
