"""Parties for the played-game tests: Memeyori with Quick and non-Quick cards, Tiers, a
heal, a locked card and an Archon, so every R9.2 refusal can happen."""

from cards.services import party_set_memeyori
from tests.conftest import make_archon, make_card, make_memeyori, make_party

NAMES = ("Fizzlet", "Sparkit", "Boltkin", "Glowmote")
CARDS = ("Static Burst", "Zap", "Quick Jab", "Mend", "Thunderclap")
# A second party's cards have names of their own, so a test can look for the first's.
NIGHT_CARDS = ("Shadow Burst", "Nip", "Quick Nip", "Soothe", "Eclipse")


def play_party(owner, types, name="Storm Crew", *, visibility="private", archon=True, cards=CARDS):
    """Four Memeyori (Party Level 2, a DP on SP: SP 4), MP 3, Draw 2, and an Archon; each
    Memeyori's cards are, in order: a 2 MP magic attack with Tiers 2 and 3, a 1 MP attack,
    a Quick 1 MP attack, a 1 MP heal, and a card locked until Rank 3."""
    burst, zap, jab, mend, clap = cards
    party = make_party(owner, name=name, level=2, dp_sp=1, visibility=visibility)
    team = []
    for n in NAMES:
        m = make_memeyori(
            owner, types["Volt"], name=f"{n}" if name == "Storm Crew" else f"{name} {n}",
            rank=1, visibility=visibility,
        )  # fmt: skip
        make_card(m, types["Volt"], name=burst, category="magic", power=5, mp_cost=2,
                  quick=False, tier2_power=8, tier3_power=12)  # fmt: skip
        make_card(m, types["Volt"], name=zap, category="physical", power=3, mp_cost=1,
                  quick=False)  # fmt: skip
        make_card(m, types["Volt"], name=jab, category="physical", power=2, mp_cost=1,
                  quick=True)  # fmt: skip
        make_card(m, types["Ether"], name=mend, category="support", power=3, mp_cost=1)
        make_card(m, types["Volt"], name=clap, category="magic", power=9, mp_cost=2,
                  unlock_rank=3)  # fmt: skip
        team.append(m)
    party_set_memeyori(party=party, memeyori=team)
    if archon:
        vela = make_archon(owner, types["Ether"], name=f"{name} Vela", visibility=visibility)
        make_card(vela, types["Ether"], name=f"{burst} Light", category="magic", power=4,
                  mp_cost=1)  # fmt: skip
        party.archon = vela
        party.save()
    return party
