"""Tables: a group and its game master. Small keyword-only writes, each one transaction.

Who sees what is `cards.models.visible_to`; this module only changes who sits where.
"""

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from ..models import Archon, Card, Memeyori, Party, Table, TableMembership, Visibility

SHARED_WITH_TABLE = (Visibility.TABLES, Visibility.PUBLIC)


def _new_token() -> str:
    # 32 bytes: 256 bits, so an invite cannot be guessed.
    return secrets.token_urlsafe(32)


def tables_of(user):
    return Table.objects.filter(memberships__user=user).select_related("gm")


def get_table_for_member(user, code) -> Table | None:
    if not user.is_authenticated:
        return None
    return tables_of(user).filter(code=code).first()


def is_member(table: Table, user) -> bool:
    return table.memberships.filter(user=user).exists()


def table_create(*, gm, name: str, description: str = "", draw_at_limit: bool = False) -> Table:
    with transaction.atomic():
        table = Table.objects.create(
            gm=gm, name=name, description=description, draw_at_limit=draw_at_limit
        )
        TableMembership.objects.create(table=table, user=gm)
    return table


def table_set_rules(*, table: Table, draw_at_limit: bool) -> Table:
    """The GM's R9.6 rule for battles and games started at the table from now on (those
    already played keep the rule they were played under: it is in their snapshot)."""
    with transaction.atomic():
        table.draw_at_limit = draw_at_limit
        table.save(update_fields=["draw_at_limit"])
    return table


def table_invite_open(*, table: Table, days: int | None = None) -> Table:
    """A new invite link every time (the old one stops working), optionally expiring."""
    with transaction.atomic():
        table.invite_token = _new_token()
        table.invite_expires = timezone.now() + timedelta(days=days) if days else None
        table.save(update_fields=["invite_token", "invite_expires"])
    return table


def table_invite_revoke(*, table: Table) -> Table:
    with transaction.atomic():
        table.invite_token = None
        table.invite_expires = None
        table.save(update_fields=["invite_token", "invite_expires"])
    return table


def table_for_invite(token: str, *, now: datetime | None = None) -> Table | None:
    """The table a live invite opens; a revoked, expired or unknown one gives None alike."""
    if not token:
        return None
    table = Table.objects.filter(invite_token=token).select_related("gm").first()
    if table is None:
        return None
    if table.invite_expires is not None and table.invite_expires <= (now or timezone.now()):
        return None
    return table


def table_join(*, token: str, user) -> Table:
    with transaction.atomic():
        table = table_for_invite(token)
        if table is None:
            raise ValidationError("This invite link is no longer valid.")
        TableMembership.objects.get_or_create(table=table, user=user)
    return table


def _membership(table: Table, member) -> TableMembership:
    seat = TableMembership.objects.filter(table=table, user=member).first()
    if seat is None:
        raise ValidationError("They do not sit at this table.")
    return seat


def table_remove_member(*, table: Table, member) -> None:
    if member.pk == table.gm_id:
        raise ValidationError("The GM cannot be removed; hand the GM role to someone first.")
    with transaction.atomic():
        _membership(table, member).delete()


def table_hand_gm(*, table: Table, member) -> Table:
    with transaction.atomic():
        _membership(table, member)
        table.gm = member
        table.save(update_fields=["gm"])
    return table


def table_leave(*, table: Table, user) -> bool:
    """Leave; a GM alone at the table closes it. Returns True when the table is gone."""
    with transaction.atomic():
        seats = TableMembership.objects.filter(table=table)
        if user.pk == table.gm_id:
            if seats.exclude(user=user).exists():
                raise ValidationError("Hand the GM role to another member before you leave.")
            table.delete()
            return True
        _membership(table, user).delete()
    return False


def shared_with(table: Table, member=None):
    """What members share with the table: characters and parties at "my tables" or public."""
    owners = TableMembership.objects.filter(table=table).values("user")
    if member is not None:
        owners = owners.filter(user=member)
    shared = Q(owner__in=owners, visibility__in=SHARED_WITH_TABLE)
    return {
        "memeyori": Memeyori.objects.filter(shared).select_related("type", "owner"),
        "archons": Archon.objects.filter(shared).select_related("type", "owner"),
        "parties": Party.objects.filter(shared).select_related("owner"),
    }


def shared_card_count(table: Table, member=None) -> int:
    """How many cards the table's PDF prints: a Mastercard per shared character and a move
    card per card it owns (cards/printing/deck.character_faces)."""
    shared = shared_with(table, member)
    characters = shared["memeyori"].count() + shared["archons"].count()
    cards = Card.objects.filter(
        Q(memeyori__in=shared["memeyori"].values("pk"))
        | Q(archon__in=shared["archons"].values("pk"))
    ).count()
    return characters + cards


@dataclass(frozen=True)
class FeedItem:
    when: datetime
    text: str
    url: str


def table_feed(table: Table, *, limit: int = 30) -> list[FeedItem]:
    """New characters and parties shared with the table, its battles, and the growth they
    gave."""
    from battles.models import Battle, Growth

    items = []
    shared = shared_with(table)
    for kind in ("memeyori", "archons"):
        for c in shared[kind].order_by("-created")[:limit]:
            what = "Memeyori" if c.kind == "memeyori" else "Archon"
            items.append(
                FeedItem(
                    c.created,
                    f"{c.owner.username} shared the {what} {c.name}",
                    c.get_absolute_url(),
                )
            )
    for p in shared["parties"].order_by("-created")[:limit]:
        text = f"{p.owner.username} shared the party {p.name}"
        items.append(FeedItem(p.created, text, p.get_absolute_url()))
    for b in Battle.objects.filter(table=table).only(
        "code", "name_a", "name_b", "rounds", "created", "show_result", "winner"
    )[:limit]:
        items.append(FeedItem(b.created, f"Battle: {b.preview_text}", b.get_absolute_url()))
    for g in Growth.objects.filter(battle__table=table).select_related(
        "memeyori", "owner", "battle"
    )[:limit]:
        items.append(
            FeedItem(
                g.created,
                f"{g.memeyori.name} ({g.owner.username}) grew to Rank {g.rank_after}",
                g.battle.get_absolute_url(),
            )
        )
    items.sort(key=lambda item: item.when, reverse=True)
    return items[:limit]
