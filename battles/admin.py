from django.contrib import admin

from .models import Battle


@admin.register(Battle)
class BattleAdmin(admin.ModelAdmin):
    list_display = ("__str__", "owner", "winner", "rounds", "seed", "visibility", "created")
    list_filter = ("visibility", "counts_for_growth", "policy_a", "policy_b")
    search_fields = ("name_a", "name_b", "owner__username", "code")
    # History is immutable: the admin may read a battle, change who sees it, or delete it.
    readonly_fields = (
        "code",
        "owner",
        "party_a",
        "party_b",
        "name_a",
        "name_b",
        "snapshot",
        "seed",
        "policy_a",
        "policy_b",
        "counts_for_growth",
        "log",
        "frames",
        "winner",
        "rounds",
        "growth_applied",
        "created",
    )
