"""Running battles for the lab: pure Python, no Django (the engine's summaries in, a tally out)."""

from ..engine.run import simulate
from ..engine.summary import simulate_summary, summarize
from .stats import REPLAYED, add_summary, battle_seed, empty_tally, merge_counts
from .verdict import log_counts


def run_range(
    snapshot: dict, *, lab_seed: int, start: int, end: int, policies, versions=None
) -> dict:
    """The tally of battles start..end-1, battle i fought with battle_seed(lab_seed, i),
    by the policies at `versions` (None: today's).

    Battles below stats.REPLAYED are played with a full log, summarized from it (the same
    summary, battles.engine.summary) and counted in the tally's `replayed` as well, so the
    first REPLAYED battles of a lab are counted from their logs whichever chunks hold them."""
    tally = empty_tally()
    policies = tuple(policies)
    for i in range(start, end):
        seed = battle_seed(lab_seed, i)
        if i < REPLAYED:
            log = simulate(snapshot, seed=seed, policies=policies, versions=versions)
            summary = summarize(log)
            tally["replayed"] = merge_counts(tally["replayed"], log_counts([log]))
        else:
            summary = simulate_summary(snapshot, seed=seed, policies=policies, versions=versions)
        add_summary(tally, summary, i)
    return tally


def roster(snapshot: dict) -> dict:
    """Names, kinds and Types by log id, read from one battle's `sides` (ids come from the
    engine, so the lab never numbers combatants or cards itself)."""
    log = simulate(snapshot, seed=0)
    combatants, cards = {}, {}
    for index, side in enumerate(log["sides"]):
        for c in side["combatants"]:
            combatants[c["id"]] = {
                "name": c["name"],
                "kind": c["kind"],
                "type": c["type"],
                "side": index,
            }
            for card in c["cards"]:
                cards[card["id"]] = {
                    "name": card["name"],
                    "type": card["type"],
                    "category": card["category"],
                    "owner": c["id"],
                    "side": index,
                }
    return {"combatants": combatants, "cards": cards, "format": log["format"]}
