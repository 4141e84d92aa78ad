"""`make bench` figures for the opponent picker (issue 31.4, battles/play/fair.py): three
newcomer parties (Level 1, every Memeyori Rank 1, made with the tests' factories) against
the demo's parties at every AI level. For each: the picker's prediction of the player's
chance (measured, or for the Thinker predicted from greedy's and the levels' ratings), the fair
fight it offers, and beside each prediction what a lab of LAB battles on other seeds says
(lookahead's only for the fair fight: a lookahead battle costs about 600 greedy ones).

Run alone: `.venv/bin/python -m tests.bench fair`.
"""

from tests.bench import sized

LAB = int(sized(2000, 4))
LAB_SEEDS = 700_000  # other seeds than the estimates'


def _newcomers():
    """Three newcomers, each with one party, so that each sees only the demo's besides."""
    from cards.models import Type
    from cards.services import party_set_memeyori
    from tests.conftest import make_card, make_memeyori, make_party, make_user
    from tests.playing import make_side

    types = {t.name: t for t in Type.objects.all()}
    owner = make_user("first")
    first = make_side(owner, types, "First Steps", prefix="Step")
    first.level, first.dp_sp = 1, 0
    first.save()
    # The factories' defaults: one Emberpup with one Cinder Nip.
    owner = make_user("lone")
    lone = make_party(owner, name="Lone Pup", level=1)
    pup = make_memeyori(owner, types["Blaze"])
    make_card(pup, types["Blaze"])
    party_set_memeyori(party=lone, memeyori=[pup])
    # Three Types, each the factory's Memeyori with an attack of its Type and a heal.
    owner = make_user("trio")
    trio = make_party(owner, name="Mixed Trio", level=1)
    team = []
    for name in ("Tide", "Verdant", "Volt"):
        m = make_memeyori(owner, types[name], name=f"{name} pup")
        make_card(m, types[name], name=f"{name} nip")
        make_card(m, types["Ether"], name=f"{name} mend", category="support", power=3)
        team.append(m)
    party_set_memeyori(party=trio, memeyori=team)
    return [first, lone, trio]


def bench_fair() -> None:
    from battles.engine.policies import GREEDY, POLICIES
    from battles.lab.stats import wilson
    from battles.play import fair, fair_tasks
    from cards.demo import seed_demo
    from tests.bench import throwaway_database

    if sized(0, 1):  # quick: a handful of battles a measurement
        fair.BATTLES_BY_POLICY = {"greedy": 4, "beginner": 2, "random": 2}
    with throwaway_database("fair.sqlite3"):
        seed_demo()
        for party in _newcomers()[: int(sized(3, 1))]:
            newcomer = party.owner
            picker = fair.picker(newcomer, party)
            for opponent in picker.opponents:
                for estimate in opponent.measured.values():
                    fair_tasks.run_estimate(estimate.pk)
            picker = fair.picker(newcomer, party)
            pick = picker.fair
            print(
                f"fair: {party.name} (Level {picker.level}, Rank {picker.ranks[0]}): the fair"
                + (
                    f" fight is {pick.party.name} by {pick.label}, where it wins {pick.words}"
                    if pick
                    else " fight: none is close yet"
                )
            )
            for opponent in picker.opponents:
                for choice in opponent.choices:
                    e = choice.estimate or opponent.measured["greedy"]
                    how = "measured" if choice.estimate else "predicted from greedy's"
                    line = (
                        f"fair:   vs {choice.party.name} by {choice.label}: {how}"
                        f" {e.wins}/{e.battles} won, {e.draws} drawn:"
                        f" {choice.outcome.won:.1%} ({choice.words})"
                    )
                    if choice.policy != "lookahead" or choice is pick:
                        ai = POLICIES[choice.policy]
                        won, lost, drawn = fair_tasks.tally(e.snapshot, GREEDY, ai, LAB, LAB_SEEDS)
                        low, high = wilson(won, LAB)
                        line += (
                            f"; a lab of {LAB:,}: {won:,} won, {drawn:,} drawn:"
                            f" {won / LAB:.1%} (95% Wilson {low:.1%}-{high:.1%},"
                            f" {fair.in_words(won / LAB)})"
                        )
                    print(line)


BENCHES = [bench_fair]
