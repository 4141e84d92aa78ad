"""JSON export and import of characters (with their cards) and parties (with their characters).

The format is versioned: `{"format": "memeyori-export/1", "memeyori": [...], "archons": [...],
"parties": [...]}`. Characters carry a file-local `ref` ("m1", "a1") that parties point at;
Types are named, and an unknown Type is refused (the importer never invents Types, which
a game master owns). Portraits are not exported: the file carries data, not images.

An import is checked completely before anything is written (size, nesting depth, version,
fields, value ranges, Types, R8), shown as a preview, then created in one transaction.
"""

import json
import math
import unicodedata
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from . import stats
from .forms import CHARACTER_FORMS, CardForm, PartyForm
from .models import Archon, Card, Memeyori, Party, PartySlot, Type, check_party_visibility
from .services import reserve, unique_names
from .validators import REFUSED_CATEGORIES

FORMAT = "memeyori-export/1"
MAX_BYTES = 1024 * 1024
# The format itself nests 5 deep (file > characters > character > cards > card).
MAX_DEPTH = 6
MAX_CHARACTERS = 100
MAX_CARDS = 40
# In all, in one file (issue 18.4): an export holds one character or one party (seven
# characters at most), so a thousand cards is many such files at once.
MAX_FILE_CARDS = 1000
MAX_PARTIES = 20

CHARACTER_FIELDS = {
    "name": str,
    "type": str,
    **dict.fromkeys(stats.ATTRIBUTES, int),
    "flavour": str,
    "visibility": str,
    "portrait_focus_x": (int, float),
    "portrait_focus_y": (int, float),
}
CARD_FIELDS = {
    "name": str,
    "type": str,
    "category": str,
    "power": int,
    "mp_cost": int,
    "quick": bool,
    "unlock_rank": int,
    "text": str,
    "tier2_power": (int, type(None)),
    "tier2_text": str,
    "tier3_power": (int, type(None)),
    "tier3_text": str,
}
# Fields a file may leave out (older exports predate them), with the kind of value each takes.
OPTIONAL_CHARACTER_FIELDS = {"art_variant": int}
OPTIONAL_CARD_FIELDS = {"flavour": str}
PARTY_FIELDS = {
    "name": str,
    "level": int,
    "dp_sp": int,
    "dp_mp": int,
    "dp_draw": int,
    "visibility": str,
    "archon": (str, type(None)),
    "memeyori": list,
}


class ImportRefused(ValueError):
    """A file the importer refuses; the message says why and where."""


# --- export -----------------------------------------------------------------------------


def _character_data(character, ref: str) -> dict:
    data = {"ref": ref, "name": character.name, "type": character.type.name}
    if isinstance(character, Memeyori):
        data["rank"] = character.rank
    data.update(character.attributes())
    data.update(
        flavour=character.flavour,
        art_variant=character.art_variant,
        visibility=character.visibility,
        portrait_focus_x=character.portrait_focus_x,
        portrait_focus_y=character.portrait_focus_y,
        cards=[
            {
                name: (getattr(card, name) if name != "type" else card.type.name)
                for name in (*CARD_FIELDS, *OPTIONAL_CARD_FIELDS)
            }
            for card in character.cards.select_related("type")
        ],
    )
    return data


def export_character(character) -> dict:
    key = "memeyori" if isinstance(character, Memeyori) else "archons"
    data = {"format": FORMAT, "memeyori": [], "archons": [], "parties": []}
    data[key].append(_character_data(character, f"{key[0]}1"))
    return data


def export_party(party: Party) -> dict:
    members = party.memeyori_in_order()
    memeyori = [_character_data(m, f"m{i + 1}") for i, m in enumerate(members)]
    archons = [_character_data(party.archon, "a1")] if party.archon else []
    return {
        "format": FORMAT,
        "memeyori": memeyori,
        "archons": archons,
        "parties": [
            {
                "name": party.name,
                "level": party.level,
                "dp_sp": party.dp_sp,
                "dp_mp": party.dp_mp,
                "dp_draw": party.dp_draw,
                "visibility": party.visibility,
                "archon": "a1" if party.archon else None,
                "memeyori": [row["ref"] for row in memeyori],
            }
        ],
    }


def dumps(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1)


# --- import -----------------------------------------------------------------------------


@dataclass
class ImportPlan:
    """A checked file: what will be created, and the text that was checked."""

    text: str
    memeyori: list[dict] = field(default_factory=list)
    # (kind, name in the file, name it will have): a name the person already uses is
    # changed as a duplicate's is (issue 21.7), and the preview says so.
    renamed: list[tuple[str, str, str]] = field(default_factory=list)
    archons: list[dict] = field(default_factory=list)
    parties: list[dict] = field(default_factory=list)

    def card_count(self) -> int:
        return sum(len(c["cards"]) for c in self.memeyori + self.archons)


def check_depth(text: str, limit: int = MAX_DEPTH) -> None:
    """Refuse deep nesting before json.loads recurses into it."""
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                raise ImportRefused(f"The file nests deeper than {limit} levels; refused.")
        elif ch in "]}":
            depth -= 1


def _shown(text: str) -> str:
    """Text from the file, safe to put in a message: controls and lone surrogates are
    written as escapes (a lone surrogate cannot even be sent as UTF-8)."""
    return "".join(
        f"\\u{ord(ch):04x}" if unicodedata.category(ch) in REFUSED_CATEGORIES else ch
        for ch in text[:40]
    )


def _check_fields(where: str, row, spec: dict, extra=(), optional: dict | None = None) -> None:
    if not isinstance(row, dict):
        raise ImportRefused(f"{where} must be an object.")
    optional = optional or {}
    allowed = set(spec) | set(extra) | set(optional)
    unknown = sorted(set(row) - allowed)
    if unknown:
        raise ImportRefused(f"{where} has unknown fields: {', '.join(map(_shown, unknown))}.")
    missing = [name for name in spec if name not in row]
    if missing:
        raise ImportRefused(f"{where} is missing {', '.join(missing)}.")
    for name, kinds in [*spec.items(), *((n, k) for n, k in optional.items() if n in row)]:
        value = row[name]
        kinds = kinds if isinstance(kinds, tuple) else (kinds,)
        # bool is an int subclass, but true is not a Strength of 1 (R1).
        if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
            raise ImportRefused(f"{where}.{name} has the wrong kind of value: {value!r:.40}.")


def _form_message(where: str, form) -> str:
    """Every error of a form, each after the path of the field it belongs to."""
    return " ".join(
        f"{where if name == '__all__' else f'{where}.{name}'}: {' '.join(errors)}"
        for name, errors in form.errors.items()
    )


def _check_focus(where: str, value) -> float:
    # JSON may hold 1e999 or a 4,000-digit integer; neither is a fraction of the image.
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        raise ImportRefused(f"{where} must be a number from 0 to 1.")
    return number


def _validation_message(where: str, error: ValidationError) -> str:
    if hasattr(error, "error_dict"):
        parts = [
            f"{where}.{name}: {' '.join(m for e in errors for m in e.messages)}"
            for name, errors in error.error_dict.items()
        ]
        return " ".join(parts)
    return f"{where}: {' '.join(error.messages)}"


def _type(where: str, name: str, types: dict[str, Type]) -> Type:
    try:
        return types[name]
    except KeyError:
        raise ImportRefused(
            f"{where}: unknown Type {name!r:.40}; this site has no such Type."
        ) from None


def _no_constraint_queries(form):
    """The page's own form, without its one query per CHECK constraint per row (a maximum
    file made thousands; issue 18.4): the bounds they check are the fields' own
    validators too, and the database enforces them on insert, where a refusal rolls the
    whole import back (import_create)."""
    form.validate_constraints = lambda: None
    return form


def _build_character(model, where: str, row, types, owner):
    spec = dict(CHARACTER_FIELDS)
    if model is Memeyori:
        spec["rank"] = int
    _check_fields(where, row, spec, extra=("ref", "cards"), optional=OPTIONAL_CHARACTER_FIELDS)
    if not isinstance(row.get("ref"), str) or not isinstance(row.get("cards"), list):
        raise ImportRefused(f"{where} needs a text ref and a list of cards.")
    if len(row["cards"]) > MAX_CARDS:
        raise ImportRefused(f"{where} has more than {MAX_CARDS} cards.")
    # The builder's own form: the same fields, bounds, validators and messages (issue 11.3).
    form_class = CHARACTER_FORMS[model.kind]
    data = {k: row[k] for k in form_class._meta.fields if k in row}
    data["type"] = _type(f"{where}.type", row["type"], types).pk
    form = _no_constraint_queries(form_class(data, instance=model(owner=owner)))
    form.fields["type"].use_types(types.values())
    if not form.is_valid():
        raise ImportRefused(_form_message(where, form))
    character = form.save(commit=False)
    character.portrait_focus_x = _check_focus(f"{where}.portrait_focus_x", row["portrait_focus_x"])
    character.portrait_focus_y = _check_focus(f"{where}.portrait_focus_y", row["portrait_focus_y"])
    try:
        character.full_clean(
            exclude=["portrait", "portrait_print", "portrait_thumb"], validate_constraints=False
        )
    except ValidationError as error:
        raise ImportRefused(_validation_message(where, error)) from None
    cards = []
    for i, card_row in enumerate(row["cards"]):
        card_where = f"{where}.cards[{i}]"
        _check_fields(card_where, card_row, CARD_FIELDS, optional=OPTIONAL_CARD_FIELDS)
        data = {k: v for k, v in card_row.items() if v is not None}
        data["type"] = _type(f"{card_where}.type", card_row["type"], types).pk
        # The holder does not exist yet; clean() only needs to know there is exactly one.
        form = CardForm(data, instance=Card(**{f"{model.kind}_id": 0}, position=i))
        _no_constraint_queries(form)
        form.fields["type"].use_types(types.values())
        if not form.is_valid():
            raise ImportRefused(_form_message(card_where, form))
        card = form.save(commit=False)
        setattr(card, f"{model.kind}_id", None)
        cards.append(card)
    return {"ref": row["ref"], "object": character, "cards": cards}


def _check_party(where, row, memeyori, archons, owner):
    """The party form's checks, then R8 and issue 11.2 against the file's own characters."""
    _check_fields(where, row, PARTY_FIELDS)
    form = PartyForm({k: row[k] for k in PartyForm._meta.fields if k != "archon"}, owner=owner)
    # The members are refs into the file, not rows yet: they are checked below.
    for name in ["archon", *(f"slot_{i + 1}" for i in range(stats.PARTY_MAX_MEMEYORI))]:
        del form.fields[name]
    if not form.is_valid():
        raise ImportRefused(_form_message(where, form))
    totals = form.totals()
    chosen = row["memeyori"]
    if not all(isinstance(ref, str) for ref in chosen):
        raise ImportRefused(f'{where}.memeyori must list refs (text such as "m1").')
    if len(chosen) > totals.max_memeyori:
        raise ImportRefused(
            f"{where}: SP {totals.sp} allows {totals.max_memeyori} Memeyori; "
            f"the file chose {len(chosen)}."
        )
    if len(set(chosen)) != len(chosen):
        raise ImportRefused(f"{where}.memeyori lists the same Memeyori twice.")
    for ref in chosen:
        if ref not in memeyori:
            raise ImportRefused(f"{where}.memeyori refers to {ref!r:.40}, which the file lacks.")
    if row["archon"] is not None and row["archon"] not in archons:
        raise ImportRefused(
            f"{where}.archon refers to {row['archon']!r:.40}, which the file lacks."
        )
    archon = archons[row["archon"]] if row["archon"] is not None else None
    try:
        check_party_visibility(form.instance, [memeyori[ref] for ref in chosen], archon)
    except ValidationError as error:
        raise ImportRefused(f"{where}: {' '.join(error.messages)}") from None
    return {**row, **form.cleaned_data}


def import_parse(raw: bytes | str, *, owner) -> ImportPlan:
    """Check a whole export file and return what it would create; raises ImportRefused."""
    if len(raw) > MAX_BYTES:
        raise ImportRefused(f"The file is larger than {MAX_BYTES // 1024} KB; refused.")
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ImportRefused("The file is not UTF-8 text.") from None
    else:
        text = raw
    check_depth(text)
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        raise ImportRefused(
            f"The file is not valid JSON (line {error.lineno}, column {error.colno})."
        ) from None
    except RecursionError:
        raise ImportRefused("The file nests too deeply; refused.") from None
    except ImportRefused:
        raise
    except ValueError:
        # Python refuses to read integers of more than 4,300 digits (a CPU cost guard).
        raise ImportRefused("The file holds a number with too many digits; refused.") from None
    if not isinstance(data, dict):
        raise ImportRefused("The file must hold one JSON object.")
    if data.get("format") != FORMAT:
        raise ImportRefused(
            f"This is not a {FORMAT} file (its format is {data.get('format')!r:.40})."
        )
    unknown = sorted(set(data) - {"format", "memeyori", "archons", "parties"})
    if unknown:
        raise ImportRefused(f"The file has unknown sections: {', '.join(unknown)}.")
    sections = {key: data.get(key, []) for key in ("memeyori", "archons", "parties")}
    for key, rows in sections.items():
        if not isinstance(rows, list):
            raise ImportRefused(f"{key} must be a list.")
    if len(sections["memeyori"]) + len(sections["archons"]) > MAX_CHARACTERS:
        raise ImportRefused(f"The file holds more than {MAX_CHARACTERS} characters.")
    cards = sum(
        len(row.get("cards", [])) if isinstance(row, dict) and isinstance(row.get("cards"), list)
        else 0
        for row in sections["memeyori"] + sections["archons"]
    )  # fmt: skip
    if cards > MAX_FILE_CARDS:
        raise ImportRefused(f"The file holds {cards:,} cards; one import takes at most "
                            f"{MAX_FILE_CARDS:,}.")  # fmt: skip
    if len(sections["parties"]) > MAX_PARTIES:
        raise ImportRefused(f"The file holds more than {MAX_PARTIES} parties.")
    if not any(sections.values()):
        raise ImportRefused("The file holds nothing to import.")

    types = {t.name: t for t in Type.objects.all()}
    plan = ImportPlan(text=text)
    for key, model in (("memeyori", Memeyori), ("archons", Archon)):
        for i, row in enumerate(sections[key]):
            getattr(plan, key).append(_build_character(model, f"{key}[{i}]", row, types, owner))
    refs = [c["ref"] for c in plan.memeyori + plan.archons]
    if len(set(refs)) != len(refs):
        raise ImportRefused("Two characters in the file share a ref.")
    memeyori = {c["ref"]: c["object"] for c in plan.memeyori}
    archons = {c["ref"]: c["object"] for c in plan.archons}
    for i, row in enumerate(sections["parties"]):
        plan.parties.append(_check_party(f"parties[{i}]", row, memeyori, archons, owner))
    _rename(plan, owner)
    return plan


def _rename(plan: ImportPlan, owner) -> None:
    """Names the person already uses, or that the file uses twice, get "(copy)" (21.7)."""
    groups = [
        ("Memeyori", Memeyori, [e["object"] for e in plan.memeyori]),
        ("Archon", Archon, [e["object"] for e in plan.archons]),
    ]
    for kind, model, objects in groups:
        taken = set(model.objects.filter(owner=owner).values_list("name", flat=True))
        for obj, name in zip(objects, unique_names([o.name for o in objects], taken), strict=False):
            if name != obj.name:
                plan.renamed.append((kind, obj.name, name))
                obj.name = name
    taken = set(Party.objects.filter(owner=owner).values_list("name", flat=True))
    names = unique_names([p["name"] for p in plan.parties], taken)
    for party, name in zip(plan.parties, names, strict=False):
        if name != party["name"]:
            plan.renamed.append(("Party", party["name"], name))
            party["name"] = name


def _refuse_constant(name: str):
    raise ImportRefused(f"The file holds {name}, which is not a number; refused.")


@transaction.atomic
def import_create(*, plan: ImportPlan, owner) -> dict[str, int]:
    """Create everything the plan holds, for `owner`, all or nothing: counted against the
    person's bounds under a lock on their row, and written in a few batch inserts, so the
    write holds the database for a moment, not seconds (issue 18.4)."""
    try:
        return _create(plan, owner)
    except ValidationError as error:
        # import_parse checked all of it; a refusal here (a race) still writes nothing.
        raise ImportRefused(" ".join(error.messages)) from None
    except IntegrityError:
        raise ImportRefused(
            "The file breaks one of the site's rules; nothing was imported."
        ) from None


def _create(plan: ImportPlan, owner) -> dict[str, int]:
    reserve(
        owner,
        characters=len(plan.memeyori) + len(plan.archons),
        cards=plan.card_count(),
        parties=len(plan.parties),
    )
    created = {}
    cards = []
    for entries, model in ((plan.memeyori, Memeyori), (plan.archons, Archon)):
        for entry in entries:
            entry["object"].owner = owner
        # bulk_create sets the primary keys (PostgreSQL and SQLite both return them).
        model.objects.bulk_create([e["object"] for e in entries])
        for entry in entries:
            character = entry["object"]
            for card in entry["cards"]:
                setattr(card, character.kind, character)
            cards += entry["cards"]
            created[entry["ref"]] = character
    Card.objects.bulk_create(cards)
    # Each party was checked against R8 and the visibility rule with the file's own
    # characters (import_parse); all of them are the person's own.
    parties = [
        Party(
            owner=owner,
            name=row["name"],
            level=row["level"],
            dp_sp=row["dp_sp"],
            dp_mp=row["dp_mp"],
            dp_draw=row["dp_draw"],
            visibility=row["visibility"],
            archon=created[row["archon"]] if row["archon"] else None,
        )
        for row in plan.parties
    ]
    for party in parties:
        party.full_clean()
    Party.objects.bulk_create(parties)
    PartySlot.objects.bulk_create(
        PartySlot(party=party, memeyori=created[ref], position=i)
        for party, row in zip(parties, plan.parties, strict=True)
        for i, ref in enumerate(row["memeyori"])
    )
    return {
        "memeyori": len(plan.memeyori),
        "archons": len(plan.archons),
        "cards": plan.card_count(),
        "parties": len(plan.parties),
    }
