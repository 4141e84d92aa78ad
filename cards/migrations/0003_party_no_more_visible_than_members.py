"""Issue 11.2 for rows saved before the rule: a party more visible than one of its members
drops to that member's level. Battles keep their snapshots; nothing else changes."""

from django.db import migrations

# The order as it stood when this migration was written, least visible first.
ORDER = ["private", "public"]


def lower_parties(apps, schema_editor):
    Party = apps.get_model("cards", "Party")
    for party in Party.objects.select_related("archon").prefetch_related("slots__memeyori"):
        levels = [slot.memeyori.visibility for slot in party.slots.all()]
        if party.archon is not None:
            levels.append(party.archon.visibility)
        lowest = min((ORDER.index(v) for v in levels if v in ORDER), default=None)
        if lowest is not None and party.visibility in ORDER and ORDER.index(party.visibility) > lowest:
            party.visibility = ORDER[lowest]
            party.save(update_fields=["visibility"])


class Migration(migrations.Migration):
    dependencies = [("cards", "0002_refuse_control_characters")]

    operations = [migrations.RunPython(lower_parties, migrations.RunPython.noop)]
