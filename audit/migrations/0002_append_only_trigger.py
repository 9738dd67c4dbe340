"""On PostgreSQL, a trigger refuses UPDATE and DELETE on audit entries, whoever sends them.

TRUNCATE stays possible: the test runner and `flush` empty tables with it, and a role that may
truncate may also drop the trigger. The hash chain is what detects such a change.
"""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION audit_entry_refuse_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'audit entries are append-only: % of entry % refused', TG_OP, OLD.id
        USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER audit_entry_append_only
    BEFORE UPDATE OR DELETE ON audit_auditentry
    FOR EACH ROW EXECUTE FUNCTION audit_entry_refuse_change();
"""

DROP = """
DROP TRIGGER IF EXISTS audit_entry_append_only ON audit_auditentry;
DROP FUNCTION IF EXISTS audit_entry_refuse_change();
"""


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE, params=None)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP, params=None)


class Migration(migrations.Migration):
    dependencies = [("audit", "0001_initial")]

    operations = [migrations.RunPython(forwards, backwards)]
