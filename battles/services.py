"""Battle writes: small keyword-only functions, each one transaction."""

import secrets

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F

from cards.models import Memeyori, Party, Visibility, visible_to

from .engine.run import simulate
from .engine.state import round_frames
from .models import Battle, BattleVisibility, new_share_token
from .snapshot import battle_snapshot

SEED_MAX = 2**32 - 1


def random_seed() -> int:
    return secrets.randbelow(SEED_MAX + 1)


def parties_for(user):
    """Parties a user may send into battle: their own and anyone's public ones."""
    return Party.objects.filter(visible_to(user)).select_related("owner")


def battle_run(
    *,
    owner,
    party_a: Party,
    party_b: Party,
    seed: int,
    policy_a: str = "greedy",
    policy_b: str = "greedy",
    counts_for_growth: bool = False,
    visibility: str = BattleVisibility.PRIVATE,
) -> Battle:
    """Run a battle and save it with its R10 growth: the whole record or nothing."""
    for party in (party_a, party_b):
        if party.owner_id != owner.pk and party.visibility != Visibility.PUBLIC:
            raise ValidationError("You can only battle with your own parties or public ones.")
    if counts_for_growth and owner.pk not in (party_a.owner_id, party_b.owner_id):
        # Ruling: growth changes live Memeyori, so only someone who owns one side may ask.
        raise ValidationError("Growth counts only in a battle with one of your own parties.")
    with transaction.atomic():
        snap = battle_snapshot(party_a, party_b)
        for side in snap["sides"]:
            if not side["memeyori"]:
                raise ValidationError(f"{side['name']} needs at least one Memeyori to battle.")
        log = simulate(snap, seed=seed, policies=(policy_a, policy_b))
        battle = Battle.objects.create(
            owner=owner,
            party_a=party_a,
            party_b=party_b,
            name_a=party_a.name,
            name_b=party_b.name,
            snapshot=snap,
            seed=seed,
            policy_a=policy_a,
            policy_b=policy_b,
            counts_for_growth=counts_for_growth,
            log=log,
            frames=round_frames(log),
            winner=log["result"]["winner"],
            rounds=log["result"]["rounds"],
            visibility=visibility,
            share_token=None if visibility == BattleVisibility.PRIVATE else new_share_token(),
        )
        if counts_for_growth:
            battle.growth_applied = _apply_growth(owner=owner, snap=snap, log=log)
            battle.save(update_fields=["growth_applied"])
    return battle


def _apply_growth(*, owner, snap: dict, log: dict) -> list[dict]:
    """R10 on the live rows. Ruling: only the runner's own Memeyori grow; nobody changes
    what is not theirs, and the log still says what the rules granted."""
    codes = {}
    for letter, side in zip("AB", snap["sides"], strict=True):
        for n, row in enumerate(side["memeyori"], start=1):
            codes[f"{letter}{n}"] = row["code"]
    applied = []
    done = set()
    for grant in log["result"]["growth"]:
        code = codes.get(grant["combatant"])
        if code in done:
            continue  # one Memeyori on both sides (a party against itself) grows once
        done.add(code)
        live = (
            Memeyori.objects.select_for_update().filter(code=code, owner=owner, rank__lt=6).first()
        )
        if live is None:
            continue
        Memeyori.objects.filter(pk=live.pk).update(rank=F("rank") + 1)
        applied.append(
            {"memeyori": str(live.code), "rank_before": live.rank, "rank_after": live.rank + 1}
        )
    return applied


def battle_set_visibility(*, battle: Battle, visibility: str) -> Battle:
    """Private hides the share link; unlisted and public issue one when there is none."""
    if visibility not in BattleVisibility.values:
        raise ValidationError("Choose private, unlisted or public.")
    with transaction.atomic():
        battle.visibility = visibility
        if visibility != BattleVisibility.PRIVATE and not battle.share_token:
            battle.share_token = new_share_token()
        battle.save(update_fields=["visibility", "share_token"])
    return battle


def battle_set_show_result(*, battle: Battle, show: bool) -> Battle:
    """Whether headers, lists and the preview image name the winner."""
    with transaction.atomic():
        battle.show_result = show
        battle.save(update_fields=["show_result"])
    return battle


def battle_share_regenerate(*, battle: Battle) -> Battle:
    """A new share link; the old one is a 404 from now on."""
    with transaction.atomic():
        battle.share_token = new_share_token()
        battle.save(update_fields=["share_token"])
    return battle


def battle_share_revoke(*, battle: Battle) -> Battle:
    """No share link at all until the owner makes a new one."""
    with transaction.atomic():
        battle.share_token = None
        battle.save(update_fields=["share_token"])
    return battle
