"""The database cache's table (rate-limit counts), made by `migrate` too, so that a site
started with plain `migrate` and no `createcachetable` still counts. Idempotent."""

from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor):
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    # createcachetable runs its own transaction.
    atomic = False

    dependencies = [("cards", "0002_render_store")]

    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
