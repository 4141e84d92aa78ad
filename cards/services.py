"""Writes to characters and parties: small keyword-only functions, each one transaction."""

from django.db import transaction

from .models import Memeyori, Party, PartySlot, check_party_memeyori


@transaction.atomic
def party_set_memeyori(*, party: Party, memeyori: list[Memeyori]) -> None:
    """Replace the party's slots with these Memeyori, in this order (R8 checks first)."""
    party.full_clean()
    check_party_memeyori(party, memeyori)
    party.slots.all().delete()
    PartySlot.objects.bulk_create(
        PartySlot(party=party, memeyori=m, position=i) for i, m in enumerate(memeyori)
    )
