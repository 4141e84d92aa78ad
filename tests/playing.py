"""Parties and moves for the play page tests: every card name is its side's own, so a
test can look for one side's hand in what the other side is sent."""

import re

from cards.models import TableMembership
from cards.services import party_set_memeyori
from cards.tables.services import table_create
from tests.conftest import make_archon, make_card, make_memeyori, make_party, make_user

CARDS = [
    # (name, category, power, mp_cost, quick)
    ("Strike", "physical", 5, 2, False),
    ("Jab", "physical", 3, 1, True),
    ("Bolt", "magic", 6, 3, False),
    ("Mend", "support", 3, 1, False),
]


def make_side(owner, types, name, *, prefix, size=3, visibility="private", archon=False):
    """A party of `size` Memeyori with four cards each, named `<prefix> <card> <n>`."""
    # A fourth Memeyori needs a DP on SP (R8): Level 3 has two to spend.
    party = make_party(owner, name=name, visibility=visibility, level=3, dp_sp=max(0, size - 3))
    team = []
    for i in range(size):
        m = make_memeyori(
            owner, types["Blaze"], name=f"{prefix} Mon {i + 1}", visibility=visibility,
            strength=6, endurance=4, iq=5, wit=3, speed=4 + i, aura=3,
        )  # fmt: skip
        for card, category, power, cost, quick in CARDS:
            make_card(
                m, types["Blaze"] if category != "support" else types["Ether"],
                name=f"{prefix} {card} {i + 1}", category=category, power=power,
                mp_cost=cost, quick=quick, tier2_power=power + 3,
            )  # fmt: skip
        team.append(m)
    if archon:
        a = make_archon(owner, types["Blaze"], name=f"{prefix} Archon", visibility=visibility)
        make_card(a, types["Blaze"], name=f"{prefix} Archon Blast", power=7, mp_cost=2)
        party.archon = a
        party.save()
    party_set_memeyori(party=party, memeyori=team)
    return party


def affordable_plan(state: dict) -> list[list]:
    """Cards in hand order while the MP lasts (R9.2's surcharge counted), each at Tier 1
    on its first target: a legal plan the tests can post."""
    mp = state["mp"]
    earlier: dict[str, int] = {}
    chosen = []
    for card in state["hand"]:
        if not card["targets"]:
            continue
        cost = card["mp_cost"] + earlier.get(card["user"], 0)
        if cost > mp:
            continue
        mp -= cost
        if not card["quick"]:
            earlier[card["user"]] = earlier.get(card["user"], 0) + 1
        chosen.append([card["id"], 1, card["targets"][0]["id"]])
    return chosen


def form_fields(state: dict, cards: list[list], **extra) -> dict:
    """The plan form's fields for these cards (the order they are given)."""
    data = {"round": state["round"], **extra}
    for order, (card_id, tier, target) in enumerate(cards, start=1):
        data[f"card_{card_id}"] = f"{tier}:{target}"
        data[f"order_{card_id}"] = order
    return data


def hand_words(state: dict) -> set[str]:
    """What of a side's hand may never reach the other side: its card ids and names."""
    return {c["id"] for c in state["hand"]} | {c["name"] for c in state["hand"]}


def leaks(text: str, words: set[str]) -> list[str]:
    """The words found in text, as whole tokens (A1.2 is not found in A1.20)."""
    return sorted(w for w in words if re.search(rf"(?<![\w.]){re.escape(w)}(?![\w.])", text))


TABLE_PEOPLE = ("gwen", "ana", "ben", "cal", "dee")


def table_game(types):
    """A table game: Gwen the GM pairs Ana's Sunrise and Ben's Night; Cal sits at the
    table, Dee does not. Returns (users by name, the table, the game)."""
    from battles.play import services

    users = {name: make_user(name) for name in TABLE_PEOPLE}
    table = table_create(gm=users["gwen"], name="Sunday")
    for name in ("ana", "ben", "cal"):
        TableMembership.objects.create(table=table, user=users[name])
    sun = make_side(users["ana"], types, "Sunrise", prefix="Sun", visibility="tables")
    moon = make_side(users["ben"], types, "Night", prefix="Moon", visibility="tables")
    game = services.start_game(
        user=users["gwen"], party=sun, opponent="table", party_b=moon, table=table
    )
    return users, table, with_seed(game, 3)


def with_seed(game, seed: int):
    """The game as if the server had drawn `seed`: a friend or table game's seed is the
    server's (services.SECRET_SEED), and a test wants the same deal every run."""
    from battles.play.models import Game

    Game.objects.filter(pk=game.pk).update(seed=seed)
    game.refresh_from_db()
    return game


def think(game) -> int:
    """Run the AI's thinking as a task worker would (battles/play/thinking.py): each round
    whose AI plan is pending, until none is (the tests' transaction keeps the queued
    task's on-commit hook from running). How many times it recorded a plan."""
    from battles.play.record import replay_game
    from battles.play.thinking import think_for_game

    runs = 0
    while (needed := replay_game(game).needed) is not None and needed.thinking:
        if not think_for_game.call(game.code, needed.round):
            break
        runs += 1
        game.refresh_from_db()
    return runs
