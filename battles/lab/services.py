"""The lab's writes: creating a lab (and its "what if" twin), opening battle i in the
viewer, and sharing. Each write is one transaction. Running its chunks is tasks.py's.

Fair shares of the bulk queue (issue 18.2): a person has at most QUEUED_PER_PERSON chunks
in the task queue at a time, across all their labs (oldest lab first); each chunk counted
queues that person's next one, at the back. So people's labs take turns, however big, and
the queue holds a few chunks per person rather than hundreds. The per-person counts (labs
running, chunks queued) are taken under a lock on the person's row, never check-then-create.
"""

import copy

from django.core.exceptions import ValidationError
from django.db import transaction

from cards.models import VISIBILITY_ORDER, Party, visibility_rank, visible_to

from ..choices import level_name
from ..engine.policies import current_versions
from ..engine.run import simulate_keeping_plans
from ..engine.state import round_frames
from ..models import Battle, BattleVisibility, new_share_token
from ..services import limit_rule, visibility_refusal
from ..snapshot import _character_from_model, battle_snapshot
from . import stats
from .models import Lab, LabBattle, LabChunk, LabMatchup, LabStatus
from .runner import roster
from .tasks import ACTIVE, dispatch, lock_person, run_chunk, run_inline  # noqa: F401 (callers)

MIN_BATTLES = 100
MAX_BATTLES = 20_000
# Against the field, every opponent gets the full number; this bounds the whole lab.
MAX_TOTAL = 200_000
# About half a second of battles: progress moves often, and the per-task cost stays small.
CHUNK = 500
# Labs one person may have waiting or running at once, so nobody fills the queue alone.
MAX_RUNNING = 3
# A lookahead plan costs over a thousand greedy plans (make bench: tests/bench/policies.py):
# a demo battle with lookahead (version 2) on one side takes about a second of CPU, so a
# lab with lookahead is bounded to what one worker does in about four minutes: this many
# battles in all with lookahead on one side, half as many with it on both.
MAX_LOOKAHEAD_BATTLES = 250
THINKER, GREEDY = level_name("lookahead"), level_name("greedy")


def lookahead_refusal(policies, total: int) -> str | None:
    """Why a lab of `total` battles with these policies is too big for lookahead, or None."""
    sides = sum(1 for p in policies if p == "lookahead")
    if sides and total * sides > MAX_LOOKAHEAD_BATTLES:
        most = MAX_LOOKAHEAD_BATTLES // sides
        where = "both sides" if sides == 2 else "one side"
        return (
            f"With the {THINKER} on {where} a lab runs at most {most:,} battles in all"
            f" (this one would run {total:,}): the {THINKER} thinks about a thousand times"
            f" longer than {GREEDY}. Lower the number, or let {GREEDY} play."
        )
    return None


def lab_parties_for(user):
    """The parties a person may put into a lab: those they can see (cards.visible_to)."""
    return Party.objects.filter(visible_to(user)).select_related("owner")


def field_opponents(user, party_a: Party, visibility: str = BattleVisibility.PRIVATE):
    """Every party the person can see, but side A itself, that has a Memeyori to fight and
    is at least as visible as the lab (issue 18.6: a public lab lists no table's party)."""
    level = visibility_rank(visibility)
    enough = [v for v in VISIBILITY_ORDER if visibility_rank(v) >= level]
    return list(
        lab_parties_for(user)
        .exclude(pk=party_a.pk)
        .filter(visibility__in=enough)
        .filter(slots__isnull=False)
        .distinct()
        .order_by("name", "pk")
    )


def _check_party(user, party: Party) -> None:
    if not lab_parties_for(user).filter(pk=party.pk).exists():
        raise ValidationError("You can only put parties you can see into a lab.")


def _create(
    *, owner, name_a, party_a, against_field, battles, seed, policy_a, policy_b, visibility,
    matchups, base=None, change="", versions=None,
) -> Lab:  # fmt: skip
    if versions is None:
        versions = current_versions((policy_a, policy_b))
    lab = Lab.objects.create(
        policy_version_a=versions[0],
        policy_version_b=versions[1],
        owner=owner,
        party_a=party_a,
        name_a=name_a,
        against_field=against_field,
        battles=battles,
        seed=seed,
        policy_a=policy_a,
        policy_b=policy_b,
        visibility=visibility,
        share_token=None if visibility == BattleVisibility.PRIVATE else new_share_token(),
        total=battles * len(matchups),
        base=base,
        change=change,
    )
    for index, (party_b, name_b, snap) in enumerate(matchups):
        matchup = LabMatchup.objects.create(
            lab=lab, index=index, party_b=party_b, name_b=name_b, snapshot=snap,
            roster=roster(snap),
        )  # fmt: skip
        if not lab.log_format:
            lab.log_format = matchup.roster["format"]
            lab.save(update_fields=["log_format"])
        LabChunk.objects.bulk_create(
            LabChunk(lab=lab, matchup=matchup, start=start, end=min(start + CHUNK, battles))
            for start in range(0, battles, CHUNK)
        )
    dispatch(owner.pk)
    return lab


def _check_running(owner) -> None:
    """Inside the transaction that creates the lab: the count holds until it commits."""
    lock_person(owner.pk)
    running = Lab.objects.filter(owner=owner, status__in=ACTIVE).count()
    if running >= MAX_RUNNING:
        raise ValidationError(
            f"You have {running} labs running; start another when one of them is done."
        )


def _check_size(battles: int, matchups: int) -> None:
    if not MIN_BATTLES <= battles <= MAX_BATTLES:
        raise ValidationError(f"Run from {MIN_BATTLES} to {MAX_BATTLES:,} battles.")
    if battles * matchups > MAX_TOTAL:
        raise ValidationError(
            f"That is {battles * matchups:,} battles in all; a lab runs at most {MAX_TOTAL:,}."
        )


def lab_create(
    *, owner, party_a: Party, party_b: Party | None, battles: int, seed: int,
    policy_a: str = "greedy", policy_b: str = "greedy",
    visibility: str = BattleVisibility.PRIVATE, draw_at_limit: bool = False,
) -> Lab:  # fmt: skip
    """A lab of side A against party_b, or against every party the owner can see (None).
    Its battles are decided at the round limit (R9.6) unless `draw_at_limit`: the rule is
    in each matchup's snapshot, so every battle of the lab (and its what-ifs) follows it."""
    _check_party(owner, party_a)
    if party_b is not None:
        _check_party(owner, party_b)
        opponents = [party_b]
    else:
        opponents = field_opponents(owner, party_a, visibility)
        if not opponents:
            raise ValidationError(
                "There is no other party you can see with a Memeyori in it"
                + (
                    "."
                    if visibility == BattleVisibility.PRIVATE
                    else f" at least as visible as a {visibility} lab."
                )  # fmt: skip
            )
    if refusal := visibility_refusal(visibility, [party_a, *opponents], what="lab"):
        raise ValidationError(refusal)
    _check_size(battles, len(opponents))
    if refusal := lookahead_refusal((policy_a, policy_b), battles * len(opponents)):
        raise ValidationError(refusal)
    with transaction.atomic():
        _check_running(owner)
        matchups = []
        for opponent in opponents:
            snap = battle_snapshot(party_a, opponent, limit=limit_rule(draw_at_limit=draw_at_limit))
            for side in snap["sides"]:
                if not side["memeyori"]:
                    raise ValidationError(f"{side['name']} needs at least one Memeyori.")
            matchups.append((opponent, opponent.name, snap))
        return _create(
            owner=owner, name_a=party_a.name, party_a=party_a, against_field=party_b is None,
            battles=battles, seed=seed, policy_a=policy_a, policy_b=policy_b,
            visibility=visibility, matchups=matchups,
        )  # fmt: skip


# ---- "What if": side A with one change, against the same opponents on the same seeds.

WHAT_IF_KINDS = ("replace", "remove", "add", "archon")


def what_if_side(side: dict, *, kind: str, slot: int | None, character) -> tuple[dict, str]:
    """Side A's snapshot with one change, and the change in words. `slot` counts from 1."""
    side = copy.deepcopy(side)
    members = side["memeyori"]
    if kind in ("replace", "remove"):
        if slot is None or not 1 <= slot <= len(members):
            raise ValidationError(f"Choose a slot from 1 to {len(members)}.")
        old = members[slot - 1]["name"]
    if kind == "replace":
        row = _character_from_model(character)
        members[slot - 1] = row
        return side, f"{row['name']} instead of {old} (slot {slot})"
    if kind == "remove":
        if len(members) == 1:
            raise ValidationError("A party needs at least one Memeyori to battle.")
        del members[slot - 1]
        return side, f"without {old} (slot {slot})"
    if kind == "add":
        room = min(side["sp"], 6)  # R8: at most min(SP, 6) Memeyori
        if len(members) >= room:
            raise ValidationError(f"This party holds at most {room} Memeyori (R8).")
        row = _character_from_model(character)
        members.append(row)
        return side, f"with {row['name']} added"
    if kind == "archon":
        before = side["archon"]["name"] if side["archon"] else "no Archon"
        if character is None:
            side["archon"] = None
            return side, f"no Archon instead of {before}"
        row = _character_from_model(character)
        side["archon"] = row
        return side, f"{row['name']} instead of {before} as Archon"
    raise ValidationError("Unknown change.")


def lab_what_if(*, owner, base: Lab, kind: str, slot: int | None = None, character=None) -> Lab:
    """Run `base` again with one change to side A: the same opponents (their snapshots as
    they fought), the same number of battles, policies and seeds, so battle i differs only
    by the change."""
    if base.owner_id != owner.pk:
        raise ValidationError("Only the lab's owner can ask it what if.")
    with transaction.atomic():
        _check_running(owner)
        matchups, change = [], ""
        for m in base.matchups.order_by("index"):
            snap = copy.deepcopy(m.snapshot)
            snap["sides"][0], change = what_if_side(
                snap["sides"][0], kind=kind, slot=slot, character=character
            )
            matchups.append((m.party_b, m.name_b, snap))
        return _create(
            owner=owner, name_a=base.name_a, party_a=base.party_a,
            against_field=base.against_field, battles=base.battles, seed=base.seed,
            policy_a=base.policy_a, policy_b=base.policy_b, visibility=base.visibility,
            matchups=matchups, base=base, change=change, versions=base.policy_versions,
        )  # fmt: skip


def lab_resume(*, lab: Lab) -> Lab:
    """Queue the chunks not yet counted again: after a failure that has been fixed, or
    whenever a running lab's owner asks (their queue is topped up). Safe at any time, as a
    chunk is counted once however often it runs."""
    with transaction.atomic():
        lock_person(lab.owner_id)
        lab = Lab.objects.select_for_update().get(pk=lab.pk)
        if lab.status == LabStatus.DONE:
            return lab
        if lab.status == LabStatus.FAILED:
            lab.status, lab.error = LabStatus.RUNNING, ""
            lab.save(update_fields=["status", "error"])
            lab.chunks.filter(finished=False).update(queued=False)
        dispatch(lab.owner_id)
    return lab


# ---- Battle i in the viewer


def _sync_battle(battle: Battle, lab: Lab) -> None:
    """An opened battle is shared exactly as its lab is, each with a token of its own."""
    battle.visibility = lab.visibility
    if lab.visibility == BattleVisibility.PRIVATE or not lab.share_token:
        battle.share_token = None
    elif not battle.share_token:
        battle.share_token = new_share_token()


def stored_battle(*, matchup: LabMatchup, i: int) -> Battle | None:
    """Battle i of a matchup, if its owner kept it (lab_open_battle)."""
    opened = LabBattle.objects.select_related("battle").filter(matchup=matchup, i=i).first()
    return opened.battle if opened else None


def lab_battle(*, lab: Lab, matchup: LabMatchup, i: int) -> Battle:
    """Battle i of a matchup, played from the matchup's snapshot with the lab's policies
    and battle_seed(lab.seed, i), as an unsaved Battle: the viewer shows it and nothing is
    stored (issue 18.9: opening a lab's battle by GET creates no row)."""
    if not 0 <= i < lab.battles:
        raise ValidationError(f"Choose a battle from 0 to {lab.battles - 1}.")
    seed = stats.battle_seed(lab.seed, i)
    snap = matchup.snapshot
    # A thinking AI's plans are kept for a fork (Battle.plans).
    log, plans = simulate_keeping_plans(
        snap, seed=seed, policies=lab.policies, versions=lab.policy_versions
    )
    if lab.log_format and log["format"] != lab.log_format:
        raise ValidationError(
            f"This lab ran on an earlier engine ({lab.log_format}); today's "
            f"({log['format']}) plays by other rulings, so its battles cannot be replayed "
            "exactly. Run the lab again to watch its battles."
        )
    battle = Battle(
        owner_id=lab.owner_id,
        party_a=lab.party_a,
        party_b=matchup.party_b,
        name_a=snap["sides"][0]["name"][:60],
        name_b=matchup.name_b,
        snapshot=snap,
        seed=seed,
        policy_a=lab.policy_a,
        policy_b=lab.policy_b,
        log=log,
        plans=plans,
        frames=round_frames(log),
        winner=log["result"]["winner"],
        rounds=log["result"]["rounds"],
    )
    _sync_battle(battle, lab)
    return battle


def lab_open_battle(*, lab: Lab, matchup: LabMatchup, i: int) -> Battle:
    """Keep battle i of a matchup as a Battle record (made once, then reused), owned by the
    lab's owner, shared exactly as the lab is: the owner's POST, to share or present it."""
    battle = lab_battle(lab=lab, matchup=matchup, i=i)
    with transaction.atomic():
        opened = LabBattle.objects.select_related("battle").filter(matchup=matchup, i=i).first()
        if opened:
            return opened.battle
        battle.save()
        LabBattle.objects.create(matchup=matchup, i=i, battle=battle)
    return battle


# ---- Sharing, as for battles: every new sharing gets a fresh token.


def _sync_opened(lab: Lab, *, fresh_tokens: bool = False) -> None:
    for opened in LabBattle.objects.select_related("battle").filter(matchup__lab=lab):
        battle = opened.battle
        if fresh_tokens:
            battle.share_token = None
        _sync_battle(battle, lab)
        battle.save(update_fields=["visibility", "share_token"])


def lab_set_visibility(*, lab: Lab, visibility: str) -> Lab:
    if visibility not in BattleVisibility.values:
        raise ValidationError("Choose private, unlisted or public.")
    parties = [lab.party_a, *(m.party_b for m in lab.matchups.select_related("party_b__owner"))]
    if refusal := visibility_refusal(visibility, parties, what="lab"):
        raise ValidationError(refusal)
    with transaction.atomic():
        was_private = lab.visibility == BattleVisibility.PRIVATE
        lab.visibility = visibility
        if visibility == BattleVisibility.PRIVATE:
            lab.share_token = None
        elif was_private or not lab.share_token:
            lab.share_token = new_share_token()
        lab.save(update_fields=["visibility", "share_token"])
        _sync_opened(lab, fresh_tokens=was_private)
    return lab


def lab_share_regenerate(*, lab: Lab) -> Lab:
    """A new link; the old one (and its opened battles' links) are a 404 from now on."""
    with transaction.atomic():
        lab.share_token = new_share_token()
        lab.save(update_fields=["share_token"])
        _sync_opened(lab, fresh_tokens=True)
    return lab


def lab_share_revoke(*, lab: Lab) -> Lab:
    with transaction.atomic():
        lab.share_token = None
        lab.save(update_fields=["share_token"])
        _sync_opened(lab)
    return lab
