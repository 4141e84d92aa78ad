"""A Memeyori that cannot act: no cards, or none its Rank unlocks (R7). It still fights in
a party (R9 summons it and it takes blows) but plays nothing, so the builder, the party
pages and the battle and lab forms say so (issue 19.3) instead of letting it look fine."""

from django.db.models import Prefetch

from .models import Card, Party, PartySlot


def idle_reason(memeyori, cards=None) -> str:
    """Why this Memeyori can only wait, or "" when it has a card to play. `cards`: its
    cards when they are already loaded (a prefetch), else they are read."""
    cards = list(memeyori.cards.all()) if cards is None else list(cards)
    if not cards:
        return f"{memeyori.name} has no cards: it can only wait."
    rank = memeyori.rank or 1
    if any(c.unlock_rank <= rank for c in cards):
        return ""
    first = min(c.unlock_rank for c in cards)
    return (
        f"{memeyori.name} has no cards its Rank {rank} unlocks (the first comes at Rank "
        f"{first}): it can only wait."
    )


def party_idle_reasons(parties) -> list[str]:
    """Every idle Memeyori of these parties, named with its party, in slot order."""
    slots = PartySlot.objects.select_related("memeyori").prefetch_related(
        Prefetch("memeyori__cards", queryset=Card.objects.only("id", "memeyori_id", "unlock_rank"))
    )
    out = []
    for party in (
        Party.objects.filter(pk__in=[p.pk for p in parties])
        .prefetch_related(Prefetch("slots", queryset=slots))
        .order_by("name", "pk")
    ):
        for slot in party.slots.all():
            if reason := idle_reason(slot.memeyori, slot.memeyori.cards.all()):
                out.append(f"In {party.name}: {reason}")
    return out
