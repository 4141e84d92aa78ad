from django.contrib import admin

from .models import Archon, Card, Matchup, Memeyori, Party, PartySlot, TaskWorker, Type


class MatchupInline(admin.TabularInline):
    model = Matchup
    fk_name = "attacking"
    extra = 0


@admin.register(Type)
class TypeAdmin(admin.ModelAdmin):
    list_display = ["name", "symbol", "colour", "position"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [MatchupInline]


@admin.register(Matchup)
class MatchupAdmin(admin.ModelAdmin):
    list_display = ["attacking", "defending", "effect"]
    list_filter = ["effect", "attacking"]


class CardInline(admin.StackedInline):
    model = Card
    extra = 0


@admin.register(Memeyori)
class MemeyoriAdmin(admin.ModelAdmin):
    list_display = ["name", "type", "rank", "owner", "visibility"]
    list_filter = ["type", "visibility", "rank"]
    search_fields = ["name"]
    inlines = [CardInline]


@admin.register(Archon)
class ArchonAdmin(admin.ModelAdmin):
    list_display = ["name", "type", "owner", "visibility"]
    list_filter = ["type", "visibility"]
    search_fields = ["name"]
    inlines = [CardInline]


@admin.register(Card)
class CardAdmin(admin.ModelAdmin):
    list_display = ["name", "type", "category", "power", "mp_cost", "quick", "unlock_rank"]
    list_filter = ["category", "type", "quick"]
    search_fields = ["name"]


class PartySlotInline(admin.TabularInline):
    model = PartySlot
    extra = 0


@admin.register(Party)
class PartyAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "level", "archon", "visibility"]
    search_fields = ["name"]
    inlines = [PartySlotInline]


@admin.register(TaskWorker)
class TaskWorkerAdmin(admin.ModelAdmin):
    """The task workers that beat (cards/workers.py); one silent for long is taken for dead."""

    list_display = ["worker_id", "queues", "host", "pid", "started_at", "beat_at"]
    list_filter = ["queues", "host"]
