"""The match's UPDATE made HOT (issue 27): ``turn_deadline``, which nearly every action
changes, is no longer indexed on ``games_match`` (an indexed column changed makes PostgreSQL
write every index of the row again); the due deadlines move to a narrow table,
``games_matchdeadline`` (match id, due; indexed by due), kept by a trigger on
``games_match``: a row while the match is active with a deadline, none otherwise. Filled here
from the matches stored before. On PostgreSQL the match table also keeps free room in each
page (fillfactor 70) for the new row versions of HOT updates."""

import django.db.models.deletion
from django.db import migrations, models

ACTIVE = 20  # games.models.Status.ACTIVE

PG_CREATE = f"""
CREATE OR REPLACE FUNCTION games_match_deadline_sync() RETURNS trigger AS $$
BEGIN
    IF NEW.status = {ACTIVE} AND NEW.turn_deadline IS NOT NULL THEN
        INSERT INTO games_matchdeadline (match_id, due) VALUES (NEW.id, NEW.turn_deadline)
        ON CONFLICT (match_id) DO UPDATE SET due = EXCLUDED.due;
    ELSIF TG_OP = 'UPDATE' THEN
        DELETE FROM games_matchdeadline WHERE match_id = NEW.id;
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER games_match_deadline_insert
    AFTER INSERT ON games_match
    FOR EACH ROW EXECUTE FUNCTION games_match_deadline_sync();

CREATE TRIGGER games_match_deadline_update
    AFTER UPDATE OF turn_deadline, status ON games_match
    FOR EACH ROW
    WHEN (OLD.turn_deadline IS DISTINCT FROM NEW.turn_deadline
          OR OLD.status IS DISTINCT FROM NEW.status)
    EXECUTE FUNCTION games_match_deadline_sync();

ALTER TABLE games_match SET (fillfactor = 70);
"""

PG_DROP = """
DROP TRIGGER IF EXISTS games_match_deadline_insert ON games_match;
DROP TRIGGER IF EXISTS games_match_deadline_update ON games_match;
DROP FUNCTION IF EXISTS games_match_deadline_sync();
ALTER TABLE games_match RESET (fillfactor);
"""

SQLITE_CREATE = [
    f"""
    CREATE TRIGGER games_match_deadline_insert AFTER INSERT ON games_match
    WHEN NEW.status = {ACTIVE} AND NEW.turn_deadline IS NOT NULL
    BEGIN
        INSERT OR REPLACE INTO games_matchdeadline (match_id, due)
        VALUES (NEW.id, NEW.turn_deadline);
    END
    """,
    f"""
    CREATE TRIGGER games_match_deadline_update AFTER UPDATE OF turn_deadline, status ON games_match
    BEGIN
        DELETE FROM games_matchdeadline WHERE match_id = NEW.id;
        INSERT INTO games_matchdeadline (match_id, due)
        SELECT NEW.id, NEW.turn_deadline
        WHERE NEW.status = {ACTIVE} AND NEW.turn_deadline IS NOT NULL;
    END
    """,
]

SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS games_match_deadline_insert",
    "DROP TRIGGER IF EXISTS games_match_deadline_update",
]

FILL = f"""
INSERT INTO games_matchdeadline (match_id, due)
SELECT id, turn_deadline FROM games_match
WHERE status = {ACTIVE} AND turn_deadline IS NOT NULL
"""


def forwards(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(PG_CREATE, params=None)
    elif vendor == "sqlite":
        for statement in SQLITE_CREATE:
            schema_editor.execute(statement, params=None)
    else:
        raise RuntimeError(f"games_matchdeadline needs its trigger written for {vendor}")
    schema_editor.execute(FILL, params=None)


def backwards(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(PG_DROP, params=None)
    elif vendor == "sqlite":
        for statement in SQLITE_DROP:
            schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0005_match_report'),
    ]

    operations = [
        migrations.CreateModel(
            name='MatchDeadline',
            fields=[
                ('match', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='+', serialize=False, to='games.match')),
                ('due', models.DateTimeField(db_index=True)),
            ],
        ),
        migrations.RemoveIndex(
            model_name='match',
            name='match_due_idx',
        ),
        migrations.AlterField(
            model_name='match',
            name='turn_deadline',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(forwards, backwards),
    ]
