from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("battles", "0001_initial"),
    ]

    operations = [
        # Every battle stored before this field was written by engine 1 (/1 logs).
        migrations.AddField(
            model_name="battle",
            name="engine_version",
            field=models.PositiveSmallIntegerField(default=1),
        ),
        migrations.AlterField(
            model_name="battle",
            name="engine_version",
            field=models.PositiveSmallIntegerField(default=2),
        ),
    ]
