"""Writes to characters, cards, parties and the type chart: small keyword-only functions,
each one transaction."""

import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.db.models import Max, Q

from .media import FILE_FIELDS, PORTRAIT_FIELDS, delete_on_commit
from .models import (
    Archon,
    Card,
    Character,
    Effect,
    HeldUpload,
    Matchup,
    Memeyori,
    Party,
    PartySlot,
    Visibility,
    check_party_memeyori,
    visibility_rank,
)
from .printing import portrait_uploads, portraits
from .tasks import keep_upload

# ---- What one person may own (issue 18.4, 18.5) ------------------------------------------


def bounds() -> dict[str, int]:
    return settings.PERSON_BOUNDS


def owned(owner) -> dict[str, int]:
    return {
        "characters": Memeyori.objects.filter(owner=owner).count()
        + Archon.objects.filter(owner=owner).count(),
        "cards": Card.objects.filter(Q(memeyori__owner=owner) | Q(archon__owner=owner)).count(),
        "parties": Party.objects.filter(owner=owner).count(),
    }


def reserve(owner, *, characters: int = 0, cards: int = 0, parties: int = 0) -> None:
    """Inside the transaction that creates them: lock the person's row, so that two
    requests at once count one after the other (never check-then-create), and refuse what
    would take them past PERSON_BOUNDS, saying what and how many."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("reserve() belongs inside the transaction that creates the rows")
    get_user_model().objects.select_for_update().filter(pk=owner.pk).first()
    have, most = owned(owner), bounds()
    asked = {"characters": characters, "cards": cards, "parties": parties}
    over = [k for k, n in asked.items() if n and have[k] + n > most[k]]
    if over:
        raise ValidationError(
            " ".join(
                f"You have {have[k]:,} {k} of the {most[k]:,} one person may keep, and this "
                f"would add {asked[k]:,}."
                for k in over
            )
            + " Delete some first.",
            code="person_bound",
        )


def unique_names(names: list[str], taken: set[str], max_length: int = 60) -> list[str]:
    """Each name, or if it is taken (or came earlier in the list) "<name> (copy)", then
    "(copy 2)" and on, as a duplicate is named (issue 21.7): no two of a person's
    characters, or parties, look alike."""
    taken = set(taken)
    out = []
    for name in names:
        fresh, n = name, 1
        while fresh in taken:
            tail = " (copy)" if n == 1 else f" (copy {n})"
            fresh = name[: max_length - len(tail)] + tail
            n += 1
        taken.add(fresh)
        out.append(fresh)
    return out


@transaction.atomic
def party_set_memeyori(*, party: Party, memeyori: list[Memeyori]) -> None:
    """Replace the party's slots with these Memeyori, in this order (R8 checks first)."""
    _lock_members(party, memeyori)
    party.full_clean()
    check_party_memeyori(party, memeyori)
    party.slots.all().delete()
    PartySlot.objects.bulk_create(
        PartySlot(party=party, memeyori=m, position=i) for i, m in enumerate(memeyori)
    )


def _lock_members(party: Party, memeyori: list[Memeyori]) -> None:
    """Lock the members and read their visibility as committed, so a member made private
    at the same moment cannot slip into a public party (issue 11.2). A member's own save
    locks its row first too, so the two wait for each other in the same order."""
    fresh = dict(
        Memeyori.objects.select_for_update()
        .filter(pk__in=[m.pk for m in memeyori])
        .values_list("pk", "visibility")
    )
    for m in memeyori:
        m.visibility = fresh.get(m.pk, m.visibility)
    if party.archon_id:
        party.archon.visibility = (
            Archon.objects.select_for_update()
            .filter(pk=party.archon_id)
            .values_list("visibility", flat=True)
            .first()
            or party.archon.visibility
        )


@transaction.atomic
def party_save(
    *, party: Party, memeyori: list[Memeyori], back_image=None, remove_back_image=False
) -> Party:
    """Save a party and its slots together: both or neither (R8). A `back_image` upload
    (its header already checked by PartyForm) is stored after the commit and made
    card-sized by cards.tasks.process_party_back."""
    if party.pk is None:
        reserve(party.owner, parties=1)
    _lock_members(party, memeyori)
    party.full_clean()
    check_party_memeyori(party, memeyori)
    if remove_back_image and party.back_image:
        _delete_files_on_commit([party.back_image.name])
        party.back_image = ""
        party.save()
    elif party.pk:
        # The back image is written by its task: an edit begun before the task finished
        # must not put the old name back.
        party.save(update_fields=[f.name for f in _PARTY_EDITED])
    else:
        party.save()
    party_set_memeyori(party=party, memeyori=memeyori)
    if back_image:
        data, fmt = portraits.portrait_check(back_image)
        incoming = f"backs/incoming/{party.code}-{secrets.token_hex(6)}.{fmt.lower()}"
        # Stored and made card-sized by a worker, never in this request (issue 39.5).
        keep_upload(kind=HeldUpload.Kind.BACK, code=str(party.code), name=incoming, data=data)
    return party


_PARTY_EDITED = [
    f for f in Party._meta.concrete_fields if not f.primary_key and f.name != "back_image"
]


def party_sharing(party: Party) -> list:
    """What sharing `party` with the owner's tables would change: each of its Archon and
    Memeyori, then the party itself, that is less visible than "My tables" (issue 41.9)."""
    level = visibility_rank(Visibility.TABLES)
    archon = [party.archon] if party.archon_id else []
    return [
        thing
        for thing in [*archon, *party.memeyori_in_order(), party]
        if visibility_rank(thing.visibility) < level
    ]


@transaction.atomic
def party_share_with_tables(*, party: Party) -> list:
    """Share a party with the members of the owner's tables in one step (issue 41.9): its
    Archon and Memeyori first, then the party (a party can be no more visible than its
    members, issue 11.2), each raised to "My tables" where it was private. Whatever is
    public stays so. Both or neither: one transaction, the rows locked before they are
    read. Returns what changed, the party last."""
    members = [m.pk for m in party.memeyori_in_order()]
    list(Memeyori.objects.select_for_update().filter(pk__in=members).values("pk"))
    if party.archon_id:
        list(Archon.objects.select_for_update().filter(pk=party.archon_id).values("pk"))
    party = Party.objects.select_for_update().get(pk=party.pk)
    changed = party_sharing(party)
    for thing in changed:
        thing.visibility = Visibility.TABLES
        thing.save(update_fields=["visibility", "updated"])  # raising never refuses
    return changed


def _delete_files_on_commit(names: list[str]) -> None:
    # A party's back files are its own (a fresh name per upload): nothing else names them.
    transaction.on_commit(lambda: [default_storage.delete(n) for n in names if n], robust=True)


@transaction.atomic
def party_delete(*, party: Party) -> None:
    if party.back_image:
        _delete_files_on_commit([party.back_image.name])
    party.delete()


def character_set_portrait(*, character: Character, image) -> None:
    """Store an uploaded portrait, already checked by CharacterForm (PNG/JPEG/WebP, 10 MB),
    or clear it when `image` is False (the form's "Clear" box). Anything else leaves it.

    The one place an upload lands, so the print pipeline can add its crops and thumbnail
    here. Runs inside the caller's transaction.
    """
    if image is False:
        # The derived images belong to the old portrait, so they go with it.
        # So does an upload still waiting to be processed (its task finds it superseded).
        names = [getattr(character, name) for name in FILE_FIELDS]
        delete_on_commit([getattr(n, "name", n) for n in names])
        for name in FILE_FIELDS:
            setattr(character, name, "")
        character.save(update_fields=[*FILE_FIELDS, "updated"])
        return
    if not isinstance(image, UploadedFile):
        return
    # Cleaned, cropped around the focal point, with print and thumbnail sizes (R: issue 4).
    portrait_uploads.character_set_portrait(character=character, upload=image)


@transaction.atomic
def character_save(*, character: Character, portrait=None) -> Character:
    """Validate and save a Memeyori or Archon from the builder (R1, R2)."""
    if character.pk is None:
        reserve(character.owner, characters=1)
    else:
        # Locked before clean() reads its parties (issue 11.2; see _lock_members).
        list(type(character).objects.select_for_update().filter(pk=character.pk).values("pk"))
    character.full_clean(exclude=list(PORTRAIT_FIELDS))
    character.save()
    character_set_portrait(character=character, image=portrait)
    return character


@transaction.atomic
def character_duplicate(*, character: Character, owner, origin: str = "") -> Character:
    """A private copy, with its cards, for `owner` (its own owner, or anyone who may see it:
    issue 21.8, with `origin` saying whose it was), counted against their bounds.

    The copy names the same portrait files (issue 18.5): a copy writes no bytes, so a
    flood of duplicates stores nothing more. Every file is deleted only when no row names
    it (cards.media), and a new upload or crop gets fresh names, so the two never touch
    each other's pictures. An upload still waiting is not shared.
    """
    model = type(character)
    cards = list(character.cards.all())
    reserve(owner, characters=1, cards=len(cards))
    skip = {"id", "code", "owner", "created", "updated", "visibility", "name", "portrait_error"}
    skip.add("portrait_pending")
    concrete = model._meta.concrete_fields
    fields = {f.name: getattr(character, f.name) for f in concrete if f.name not in skip}
    taken = set(model.objects.filter(owner=owner).values_list("name", flat=True))
    copy = model(
        **fields,
        owner=owner,
        name=unique_names([character.name], taken)[0],
        visibility=Visibility.PRIVATE,
    )
    if origin:
        copy.origin = origin[: model._meta.get_field("origin").max_length]
    _save_copy(cards, copy)
    return copy


def copied_from(original) -> str:
    """What a copy of someone else's notes (issue 21.8): "from alice's Fizzlet"."""
    return f"from {original.owner.username}'s {original.name}"


@transaction.atomic
def party_copy(*, party: Party, owner) -> Party:
    """A private copy of a party someone may see, with copies of its Archon and Memeyori
    (a party holds only its owner's characters), all counted against their bounds."""
    theirs = party.owner_id != owner.pk

    def copy(character):
        origin = copied_from(character) if theirs else ""
        return character_duplicate(character=character, owner=owner, origin=origin)

    members = [copy(m) for m in party.memeyori_in_order()]
    archon = copy(party.archon) if party.archon_id else None
    taken = set(Party.objects.filter(owner=owner).values_list("name", flat=True))
    new = Party(
        owner=owner,
        name=unique_names([party.name], taken)[0],
        archon=archon,
        level=party.level,
        dp_sp=party.dp_sp,
        dp_mp=party.dp_mp,
        dp_draw=party.dp_draw,
        visibility=Visibility.PRIVATE,
        origin=copied_from(party) if theirs else "",
    )
    return party_save(party=new, memeyori=members)


def _save_copy(cards: list[Card], copy: Character) -> None:
    copy.save()
    for card in cards:
        card.pk = None
        card.id = None
        card._state.adding = True
        card.code = Card._meta.get_field("code").default()
        card.memeyori = copy if isinstance(copy, Memeyori) else None
        card.archon = copy if isinstance(copy, Archon) else None
    Card.objects.bulk_create(cards)


@transaction.atomic
@transaction.atomic
def character_delete(*, character: Character) -> None:
    """Delete a character and its cards; its party slots go too, an Archon's party keeps going.
    Its portrait files go once that commits (unless another row still names one)."""
    files = [getattr(character, field).name for field in PORTRAIT_FIELDS]
    delete_on_commit([*files, character.portrait_pending])
    character.delete()


@transaction.atomic
def card_save(*, card: Card) -> Card:
    """Validate and save one card (R7); a new card goes to the end of its holder's list."""
    if card.pk is None:
        holder = card.holder
        reserve(holder.owner, cards=1)
        last = holder.cards.aggregate(last=Max("position"))["last"]
        card.position = 0 if last is None else last + 1
    card.full_clean()
    card.save()
    return card


def _renumber(cards: list[Card]) -> None:
    for position, card in enumerate(cards):
        card.position = position
    Card.objects.bulk_update(cards, ["position"])


@transaction.atomic
def card_move(*, card: Card, offset: int) -> None:
    """Move a card up (-1) or down (+1) in its holder's list; the ends stay put."""
    cards = list(card.holder.cards.select_for_update().order_by("position", "id"))
    index = next(i for i, c in enumerate(cards) if c.pk == card.pk)
    target = index + offset
    if 0 <= target < len(cards):
        cards[index], cards[target] = cards[target], cards[index]
    _renumber(cards)


@transaction.atomic
def card_delete(*, card: Card) -> None:
    holder = card.holder
    card.delete()
    _renumber(list(holder.cards.order_by("position", "id")))


@transaction.atomic
def type_chart_set(*, changes: dict[tuple[int, int], str]) -> int:
    """Write the chart cells that changed (R6); neutral cells are stored as no row.

    Returns how many cells changed. The chart is read fresh on every request, so odds
    and later battles see the change at once.
    """
    current = {(m.attacking_id, m.defending_id): m for m in Matchup.objects.all()}
    changed = 0
    for (attacking, defending), effect in changes.items():
        row = current.get((attacking, defending))
        before = row.effect if row else Effect.NEUTRAL
        if before == effect:
            continue
        changed += 1
        if effect == Effect.NEUTRAL:
            row.delete()
        elif row:
            row.effect = effect
            row.save(update_fields=["effect"])
        else:
            Matchup.objects.create(attacking_id=attacking, defending_id=defending, effect=effect)
    return changed
