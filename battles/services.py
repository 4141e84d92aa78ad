"""Battle writes: small keyword-only functions, each one transaction."""

import secrets
import uuid

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F

from cards.models import (
    Memeyori,
    Party,
    Table,
    TableMembership,
    Visibility,
    visibility_rank,
    visible_to,
)
from memeyori_site import live

from .engine.battle import ENGINE_VERSION
from .engine.model import LIMIT_DECIDE, LIMIT_DRAW
from .engine.run import simulate_keeping_plans
from .engine.state import round_frames
from .models import Battle, BattleVisibility, Growth, Presentation, new_share_token
from .snapshot import battle_snapshot

SEED_MAX = 2**32 - 1


def battle_channel(battle: Battle) -> str:
    """The live channel of a battle: its presentation moved, started or stopped, or who may
    watch it changed (memeyori_site/live.py)."""
    return channel_for_code(battle.code)


def channel_for_code(code) -> str:
    # The database hands a UUID back as an object or as 32 hex digits: one spelling here.
    return f"battle:{uuid.UUID(str(code))}"


def random_seed() -> int:
    return secrets.randbelow(SEED_MAX + 1)


def parties_for(user):
    """Parties a user may send into battle: any they may see (their own, their tables',
    public ones)."""
    return Party.objects.filter(visible_to(user)).select_related("owner")


def visibility_refusal(visibility: str, parties, *, what: str = "battle", table=None) -> str:
    """Issue 18.6: a battle or lab can be no more visible than the least visible party in
    it, as a party can be no more visible than its members (cards.models.VISIBILITY_ORDER:
    private < my tables < unlisted < public). A battle run at a table is open to that
    table's members too, so a "my tables" party in it must be of someone who sits there.
    Why not, naming the parties, or "" when it may."""
    level = visibility_rank(visibility)
    seen, hidden = set(), []
    for party in parties:
        if party is None or party.pk in seen:
            continue
        seen.add(party.pk)
        if visibility_rank(party.visibility) < level:
            hidden.append(party)
        elif (
            table is not None
            and party.visibility == Visibility.TABLES
            and not TableMembership.objects.filter(table=table, user_id=party.owner_id).exists()
        ):
            return (
                f"{party.name} ({party.owner.username}'s) is shared only with its owner's "
                f"tables, and {party.owner.username} does not sit at {table.name}: its "
                "members could watch it here. Run it away from the table, or ask for a "
                "public party."
            )
    if not hidden:
        return ""
    names = ", ".join(f"{p.name} ({p.get_visibility_display().split(' (')[0].lower()})"
                      for p in hidden)  # fmt: skip
    article = "An" if visibility[0] in "aeiou" else "A"
    return (
        f"{article} {visibility} {what} cannot show {names}: a {what} can be no more visible than "
        f"the least visible party in it. Make it private, or choose parties at least as "
        f"visible."
    )


def growth_refusal(party_a: Party, party_b: Party) -> str | None:
    """Why a battle of these two parties can never count for growth (R10), or None.

    A party against itself, or two parties sharing a Memeyori, would let one Memeyori
    "beat" itself into Ranks, so such a battle never counts."""
    if party_a.pk == party_b.pk:
        return "A party against itself never counts for growth (R10)."
    shared = list(
        Memeyori.objects.filter(slots__party=party_a)
        .filter(slots__party=party_b)
        .order_by("name", "pk")
        .values_list("name", flat=True)
        .distinct()
    )
    if shared:
        return (
            f"These parties share {', '.join(shared)}: a battle between them never counts"
            " for growth (R10)."
        )
    return None


def limit_rule(*, table=None, draw_at_limit: bool | None = None) -> str:
    """R9.6's rule for a new battle or game: at a table its GM's (Table.draw_at_limit),
    elsewhere what whoever starts it chose; the round limit decides unless a draw was
    chosen."""
    if table is not None:
        draw_at_limit = table.draw_at_limit
    return LIMIT_DRAW if draw_at_limit else LIMIT_DECIDE


def limit_refusal(*, table, draw_at_limit: bool) -> str | None:
    """Why a choice of rule at the limit conflicts with the table's GM's, or None."""
    if table is None or bool(draw_at_limit) == table.draw_at_limit:
        return None
    if table.draw_at_limit:
        return "At this table its GM chose a draw at the limit: leave this ticked."
    return "At this table its GM chose that the round limit decides (R9.6): leave this unticked."


def battle_check(
    *, owner, party_a: Party, party_b: Party, counts_for_growth: bool = False,
    visibility: str = BattleVisibility.PRIVATE, table: Table | None = None, sides: bool = True,
) -> None:  # fmt: skip
    """Why this battle may not be run, as a ValidationError (battle_run, and a page that
    hands the battle to a task worker, which asks before queueing and again when it runs)."""
    visible = set(
        parties_for(owner).filter(pk__in=[party_a.pk, party_b.pk]).values_list("pk", flat=True)
    )
    if {party_a.pk, party_b.pk} - visible:
        raise ValidationError("You can only battle with parties you can see.")
    if table is not None and not table.memberships.filter(user=owner).exists():
        raise ValidationError("You can only run a battle at a table you sit at.")
    if refusal := visibility_refusal(visibility, [party_a, party_b], table=table):
        raise ValidationError(refusal)
    if counts_for_growth and (refusal := growth_refusal(party_a, party_b)):
        raise ValidationError(refusal)
    if sides:
        _check_sides(battle_snapshot(party_a, party_b))


def _check_sides(snap: dict) -> None:
    for side in snap["sides"]:
        if not side["memeyori"]:
            raise ValidationError(f"{side['name']} needs at least one Memeyori to battle.")


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
    table: Table | None = None,
    draw_at_limit: bool = False,
) -> Battle:
    """Run a battle and save it, with its R10 growth when it counts: the whole or nothing.
    At round 30 the round limit decides (R9.6), unless `draw_at_limit` (outside a table) or
    the table's GM chose a draw at the limit (limit_rule)."""
    battle_check(
        owner=owner, party_a=party_a, party_b=party_b, counts_for_growth=counts_for_growth,
        visibility=visibility, table=table, sides=False,
    )  # fmt: skip
    limit = limit_rule(table=table, draw_at_limit=draw_at_limit)
    snap = battle_snapshot(party_a, party_b, limit=limit)
    _check_sides(snap)
    # Played outside any transaction: a lookahead battle thinks for seconds, and on SQLite
    # a write transaction holds the one write lock all that time (every page that writes
    # a session or a cache row waited on it: tests/bench/heavy.py).
    # A thinking AI's plans are kept for a fork (Battle.plans).
    log, plans = simulate_keeping_plans(snap, seed=seed, policies=(policy_a, policy_b))
    with transaction.atomic():
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
            log=log,
            plans=plans,
            engine_version=ENGINE_VERSION,
            frames=round_frames(log),
            winner=log["result"]["winner"],
            rounds=log["result"]["rounds"],
            visibility=visibility,
            share_token=None if visibility == BattleVisibility.PRIVATE else new_share_token(),
            table=table,
        )
        if counts_for_growth:
            battle = battle_count_for_growth(battle=battle, by=owner)
    return battle


def growth_call_refusal(battle: Battle, by) -> str | None:
    """Why `by` may not make this stored battle count for growth (R10), or None when they
    may. The sides are judged by the battle's snapshot, as they fought, not by the parties
    as they are now (`growth_refusal` judges those before a battle is run)."""
    if battle.table_id is None:
        return (
            "Outside a table no battle counts for growth: run it at a table "
            "(a table of one will do)."
        )
    if battle.table.gm_id != by.pk:
        return "Only the table's GM can make a battle count for growth."
    if battle.counts_for_growth:
        return "This battle already counts for growth."
    sides = [{row["code"] for row in side["memeyori"]} for side in battle.snapshot["sides"]]
    if battle.party_a_id is not None and battle.party_a_id == battle.party_b_id:
        return "A party against itself never counts for growth (R10)."
    if sides[0] & sides[1]:
        return "A Memeyori on both sides: a battle between them never counts for growth (R10)."
    return None


def battle_count_for_growth(*, battle: Battle, by) -> Battle:
    """The GM's call (R10): the battle counts, and each Memeyori the rules grant a Rank to
    gains it, if its owner still sits at the table. Nobody's else's rows change."""
    refusal = growth_call_refusal(battle, by)
    if refusal:
        raise ValidationError(refusal)
    with transaction.atomic():
        battle = Battle.objects.select_for_update().get(pk=battle.pk)
        if battle.counts_for_growth:
            raise ValidationError("This battle already counts for growth.")
        battle.counts_for_growth = True
        battle.growth_applied = _apply_growth(battle=battle)
        battle.save(update_fields=["counts_for_growth", "growth_applied"])
    return battle


def _growth_targets(battle: Battle, *, lock: bool):
    """(grant, the live Memeyori it raises or None) for each Rank R10 grants: a Memeyori
    grows if its owner sits at the table and it is below Rank 6; each one once."""
    snap, log = battle.snapshot, battle.log
    codes = {}
    for letter, side in zip("AB", snap["sides"], strict=True):
        for n, row in enumerate(side["memeyori"], start=1):
            codes[f"{letter}{n}"] = row["code"]
    members = TableMembership.objects.filter(table_id=battle.table_id).values("user")
    rows = Memeyori.objects.select_for_update() if lock else Memeyori.objects.all()
    done = set()
    for grant in log["result"]["growth"]:
        code = codes.get(grant["combatant"])
        if code in done:
            continue
        done.add(code)
        yield grant, rows.filter(code=code, owner__in=members, rank__lt=6).first()


def growth_preview(battle: Battle) -> tuple[list[str], list[str]]:
    """What counting this battle would do now: the Ranks gained, and the grants that change
    nothing (the owner left the table, or the Memeyori is at Rank 6)."""
    names = {c["id"]: c["name"] for side in battle.log["sides"] for c in side["combatants"]}
    gains, none = [], []
    for grant, row in _growth_targets(battle, lock=False):
        name = names.get(grant["combatant"], grant["combatant"])
        if row is None:
            none.append(f"{name}: no Rank (its owner does not sit at the table, or it is Rank 6)")
        else:
            gains.append(f"{row.name}: Rank {row.rank} -> {row.rank + 1}")
    return gains, none


def _apply_growth(*, battle: Battle) -> list[dict]:
    """R10 on the row rows of the table's members: each owner's own Memeyori grow."""
    applied = []
    for _grant, row in _growth_targets(battle, lock=True):
        if row is None:
            continue
        Memeyori.objects.filter(pk=row.pk).update(rank=F("rank") + 1)
        Growth.objects.create(
            battle=battle,
            memeyori=row,
            owner_id=row.owner_id,
            rank_before=row.rank,
            rank_after=row.rank + 1,
        )
        applied.append(
            {"memeyori": str(row.code), "rank_before": row.rank, "rank_after": row.rank + 1}
        )
    return applied


def battle_set_visibility(*, battle: Battle, visibility: str) -> Battle:
    """Private drops the share link for good; unlisted and public issue a fresh one when
    there is none, so a link closed once never comes back (issue 11.6)."""
    if visibility not in BattleVisibility.values:
        raise ValidationError("Choose private, unlisted or public.")
    # The parties as they are now (one made private since is not shown wider for it).
    parties = Party.objects.filter(pk__in=[battle.party_a_id, battle.party_b_id])
    if refusal := visibility_refusal(visibility, parties.select_related("owner")):
        raise ValidationError(refusal)
    with transaction.atomic():
        battle.visibility = visibility
        if visibility == BattleVisibility.PRIVATE:
            battle.share_token = None
        elif not battle.share_token:
            battle.share_token = new_share_token()
        battle.save(update_fields=["visibility", "share_token"])
        live.publish(battle_channel(battle))  # followers who may no longer watch stop
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
        live.publish(battle_channel(battle))
    return battle


def battle_share_revoke(*, battle: Battle) -> Battle:
    """No share link at all until the owner makes a new one."""
    with transaction.atomic():
        battle.share_token = None
        battle.save(update_fields=["share_token"])
        live.publish(battle_channel(battle))
    return battle


def presentation_lead(battle: Battle) -> int:
    """Who may take over a running presentation: the table's GM, or away from a table the
    battle's owner."""
    return battle.table.gm_id if battle.table_id else battle.owner_id


def may_take_over(battle: Battle, presentation: Presentation | None, user) -> bool:
    """Whether `user` may start presenting now (a control shows only then, issue 21.3)."""
    if not may_present(battle, user):
        return False
    return presentation is None or user.pk in (presentation.presenter_id, presentation_lead(battle))


def may_present(battle: Battle, user) -> bool:
    """The owner, or anyone who sits at the battle's table."""
    if not user.is_authenticated:
        return False
    if battle.owner_id == user.pk:
        return True
    return (
        battle.table_id is not None
        and TableMembership.objects.filter(table_id=battle.table_id, user=user).exists()
    )


def presentation_start(
    *, battle: Battle, by, round_no: int, step: int, html: str, html_shared: str
):
    """Start presenting, with new poll tokens. Ruling: the table's GM (or, away from a
    table, the owner) may take over a running presentation; other members wait for it to
    stop."""
    if not may_present(battle, by):
        raise ValidationError("Only the owner or a member of the battle's table can present it.")
    return start_presenting(
        {"battle": battle}, lead=presentation_lead(battle), channel=battle_channel(battle),
        by=by, round_no=round_no, step=step, html=html, html_shared=html_shared,
    )  # fmt: skip


def presentation_move(*, battle: Battle, by, round_no: int, step: int, html: str, html_shared: str):
    """The presenter's new step: pushed to streaming followers, and polls see it next."""
    move_presenting(
        {"battle": battle}, channel=battle_channel(battle), by=by, round_no=round_no, step=step,
        html=html, html_shared=html_shared,
    )  # fmt: skip


def presentation_stop(*, battle: Battle, by) -> None:
    stop_presenting(
        {"battle": battle}, lead=presentation_lead(battle), channel=battle_channel(battle), by=by
    )


# What a presentation is of ({"battle": b} or, for a played game, {"game": g}), who leads
# it and the live channel its followers listen on: the rest is the same for both.


def _what(of: dict) -> str:
    return "battle" if "battle" in of else "game"


def start_presenting(
    of: dict, *, lead: int, channel: str, by, round_no: int, step: int, html: str, html_shared: str
):
    with transaction.atomic():
        current = Presentation.objects.select_for_update().filter(**of).first()
        if current and by.pk not in (current.presenter_id, lead):
            raise ValidationError(f"{current.presenter.username} is presenting this {_what(of)}.")
        if current:
            current.delete()
        try:
            # The one-to-one key holds "one presentation" when two start at once.
            with transaction.atomic():
                presentation = Presentation.objects.create(
                    **of, presenter=by, round=round_no, step=step, version=1, html=html,
                    html_shared=html_shared,
                )  # fmt: skip
        except IntegrityError:
            raise ValidationError(f"Someone else started presenting this {_what(of)}.") from None
        live.publish(channel)
        return presentation


def move_presenting(
    of: dict, *, channel: str, by, round_no: int, step: int, html: str, html_shared: str
) -> None:
    with transaction.atomic():
        moved = Presentation.objects.filter(**of, presenter=by).update(
            round=round_no, step=step, version=F("version") + 1, html=html,
            html_shared=html_shared,
        )  # fmt: skip
        if moved:
            live.publish(channel)
    if not moved:
        raise ValidationError(f"You are not presenting this {_what(of)}.")


def stop_presenting(of: dict, *, lead: int, channel: str, by) -> None:
    with transaction.atomic():
        current = Presentation.objects.filter(**of).first()
        if current is None:
            return
        if by.pk not in (current.presenter_id, lead):
            raise ValidationError(f"{current.presenter.username} is presenting this {_what(of)}.")
        current.delete()
        live.publish(channel)
