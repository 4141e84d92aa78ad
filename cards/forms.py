"""Forms for the builder, the card editor, parties, the type chart and imports.

Every bad value is refused with a message that names the field (R1), next to that field.
"""

import uuid

from django import forms
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile

from . import stats
from .models import (
    ART_VARIANTS,
    Archon,
    Card,
    Effect,
    Memeyori,
    Party,
    Type,
    check_party_memeyori,
    visible_to,
)
from .odds import DEFAULT_REFERENCE
from .printing.portraits import MEGAPIXELS, portrait_check


def _range_messages(label: str, low: int, high: int) -> dict[str, str]:
    """Error messages naming the field, for 0, 21, 2.5, 'abc' and empty alike (R1)."""
    whole = f"{label} must be a whole number from {low} to {high}."
    return {
        "required": f"{label} is required (a whole number from {low} to {high}).",
        "invalid": whole,
        "min_value": whole,
        "max_value": whole,
        "step_size": whole,
    }


def _number_field(label: str, low: int, high: int, *, required=True, help_text="") -> forms.Field:
    return forms.IntegerField(
        label=label,
        min_value=low,
        max_value=high,
        required=required,
        help_text=help_text,
        error_messages=_range_messages(label, low, high),
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "step": 1}),
    )


class LimitsShown:
    """Text fields say how long they may be and refuse a longer value with a message by the
    field. No maxlength attribute: a browser silently cuts a paste at it (issue 21.9), so
    the limit rides in data-limit for static/js/limits.js to count against."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name, field in self.fields.items():
            limit = getattr(field, "max_length", None)
            if not isinstance(field, forms.CharField) or not limit or field.widget.is_hidden:
                continue
            field.widget.attrs.pop("maxlength", None)
            field.widget.attrs["data-limit"] = limit
            label = field.label or name.replace("_", " ").capitalize()
            field.error_messages["max_length"] = (
                f"{label} can be at most {limit} characters; this one has %(show_value)d."
                " Shorten it."
            )
            shown = f"At most {limit} characters."
            if f"at most {limit} characters" in str(field.help_text).lower():
                continue  # the field's own help says it already
            field.help_text = f"{field.help_text} {shown}" if field.help_text else shown


class TypeChoiceField(forms.ModelChoiceField):
    """A Type picker that can check against Types the view has already loaded.

    The live stats endpoint checks two Type fields per keystroke; one query for all the
    Types replaces one query per field.
    """

    known: dict | None = None

    def label_from_instance(self, obj):
        return f"{obj.symbol} {obj.name}"

    def use_types(self, types) -> None:
        key = self.to_field_name
        self.known = {str(getattr(t, key) if key else t.pk): t for t in types}

    def to_python(self, value):
        if self.known is None:
            return super().to_python(value)
        if value in self.empty_values:
            return None
        try:
            return self.known[str(value)]
        except KeyError:
            raise ValidationError(
                self.error_messages["invalid_choice"],
                code="invalid_choice",
                params={"value": value},
            ) from None


class ShownPortrait:
    """The current portrait as ClearableFileInput shows it: its name, linked to the view."""

    def __init__(self, character):
        self.url = character.portrait_full_url
        self.name = character.portrait.name

    def __str__(self):
        return self.name.rpartition("/")[2]


class LookRadioSelect(forms.RadioSelect):
    """The art variant's looks: an error summary links to the first look (GOV.UK does so
    for radios; Django's RadioSelect gives no id to link to)."""

    def id_for_label(self, id_, index="0"):
        return super().id_for_label(id_, index)


class CharacterForm(LimitsShown, forms.ModelForm):
    """The builder's form for a Memeyori or an Archon (R1, R2).

    The live stats endpoint validates with this same form, so the panel and the save
    refuse exactly the same values.
    """

    # Declared once here rather than per instance: the live stats endpoint builds this
    # form on every keystroke.
    strength = _number_field("Strength", stats.ATTRIBUTE_MIN, stats.ATTRIBUTE_MAX)
    endurance = _number_field("Endurance", stats.ATTRIBUTE_MIN, stats.ATTRIBUTE_MAX)
    iq = _number_field("IQ", stats.ATTRIBUTE_MIN, stats.ATTRIBUTE_MAX)
    wit = _number_field("Wit", stats.ATTRIBUTE_MIN, stats.ATTRIBUTE_MAX)
    speed = _number_field("Speed", stats.ATTRIBUTE_MIN, stats.ATTRIBUTE_MAX)
    aura = _number_field("Aura", stats.ATTRIBUTE_MIN, stats.ATTRIBUTE_MAX)
    # A FileField: the print pipeline's portrait_check is the one check (format whitelist,
    # size, pixel count from the header); the one decode runs later, in a task (issue 11.4).
    portrait = forms.FileField(
        required=False,
        help_text=f"PNG, JPEG or WebP, at most 10 MB and {MEGAPIXELS} megapixels.",
        widget=forms.ClearableFileInput(attrs={"accept": "image/png,image/jpeg,image/webp"}),
    )

    # Optional in a post (0 when left out), so a client that predates it still saves. The
    # builder shows each value as a thumbnail of its look (builder.html, "art-picker"),
    # named "Look 1" to "Look 8"; the value stays 0 to ART_VARIANTS - 1, as exports have it.
    art_variant = forms.IntegerField(
        label="Art variant",
        min_value=0,
        max_value=ART_VARIANTS - 1,
        required=False,
        help_text=(
            f"Without a portrait the cards show art drawn for this character: "
            f"pick one of {ART_VARIANTS} looks."
        ),
        error_messages=_range_messages("Art variant", 0, ART_VARIANTS - 1),
        widget=LookRadioSelect(choices=[(v, f"Look {v + 1}") for v in range(ART_VARIANTS)]),
    )
    # A new character's code, chosen when the builder first shows it and signed, so that
    # the art previewed while it is typed (drawn from the code, the name, the Type and the
    # attributes: art.look) is the art it is saved with. Ignored for a saved character, and
    # when forged or already taken (then the code is a fresh one, as before).
    draft_code = forms.CharField(required=False, widget=forms.HiddenInput)

    class Meta:
        model = Memeyori
        fields = ["name", "type", *stats.ATTRIBUTES, "flavour", "art_variant", "visibility"]
        field_classes = {"type": TypeChoiceField}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.portrait:
            # ClearableFileInput then shows the current file and a "Clear" box.
            # Its link goes through the portrait view: /media/ is not served (issue 11.5).
            self.fields["portrait"].initial = ShownPortrait(self.instance)
        if self.instance.pk is None:
            # A new character starts from the model's defaults (a human average of 2).
            for name in (*stats.ATTRIBUTES, "rank", "visibility"):
                if name in self.fields:
                    self.initial.setdefault(name, getattr(self.instance, name))
        self.fields["name"].error_messages["required"] = "Give your character a name."
        self.fields["type"].error_messages["invalid_choice"] = "Pick one of the Types listed."
        self.fields["type"].empty_label = None
        self.fields["flavour"].widget.attrs["rows"] = 3
        if self.instance.pk is None:
            self.initial.setdefault("draft_code", sign_draft_code(self.instance.code))

    # The live stats endpoint sets this. The form fields above already check every bound
    # the model checks; the model's own pass adds a query per CheckConstraint and one for
    # the Type's existence. A save always runs it.
    live = False

    def _post_clean(self):
        if not self.live:
            super()._post_clean()

    def clean_art_variant(self):
        value = self.cleaned_data.get("art_variant")
        return 0 if value is None else value

    def clean_draft_code(self) -> uuid.UUID | None:
        if self.instance.pk is not None:
            return None
        code = unsign_draft_code(self.cleaned_data.get("draft_code") or "")
        if code is None:
            return None
        # A code already taken (the page saved twice) gets a fresh one. The live endpoint
        # saves nothing, so it spares its keystrokes the query.
        if not self.live and type(self.instance).objects.filter(code=code).exists():
            return None
        # The character is saved under the code its art was previewed with.
        self.instance.code = code
        return code

    def art_inputs(self, code=None) -> dict | None:
        """What art.look draws this character's picture from, as typed (the stored values
        where a typed one is not valid), for `code` or the form's own, and the Type's
        symbol art.look_svg draws with: None without a valid Type. The same inputs as
        art.character_look gives the saved character."""
        t = self.chosen_type()
        if t is None and not self.is_bound:
            t = self.fields["type"].queryset.first()  # what the fresh page's select shows
        if t is None:
            return None
        typed = getattr(self, "cleaned_data", {}) if self.is_bound else {}
        errors = self.errors if self.is_bound else {}

        def value(name):
            if name in typed and name not in errors:
                return typed[name]
            return self.initial.get(name, getattr(self.instance, name))

        if code is None:
            code = typed.get("draft_code") or self.instance.code
        return {
            "kind": self.instance.kind,
            "code": code,
            "name": value("name"),
            "colour": t.colour,
            "attributes": {name: value(name) for name in stats.ATTRIBUTES},
            "symbol": t.symbol,  # for art.look_svg, beside the look
        }

    def clean_portrait(self):
        upload = self.cleaned_data.get("portrait")
        if upload and isinstance(upload, UploadedFile):
            portrait_check(upload)  # raises ValidationError with the player's message
        return upload

    def attribute_values(self) -> dict[str, int] | None:
        """The validated attributes (and Rank) for stats.explain, or None if any is bad."""
        names = [*stats.ATTRIBUTES, *(["rank"] if "rank" in self.fields else [])]
        if not self.is_bound:
            # A fresh page shows the stats of the stored (or default) values.
            try:
                return {name: int(self[name].value()) for name in names}
            except (TypeError, ValueError):
                return None
        if any(name in self.errors for name in names):
            return None
        return {name: self.cleaned_data[name] for name in names}

    def chosen_type(self) -> Type | None:
        if not self.is_bound:
            return self.instance.type if self.instance.type_id else None
        return self.cleaned_data.get("type") if not self.has_error("type") else None


DRAFT_CODE_SALT = "cards.builder.draft-code"


def sign_draft_code(code) -> str:
    return signing.dumps(str(code), salt=DRAFT_CODE_SALT)


def unsign_draft_code(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(signing.loads(value, salt=DRAFT_CODE_SALT))
    except (signing.BadSignature, ValueError, TypeError):
        return None


def error_messages(form) -> list[str]:
    """Every error of a form as one line that names its field, for the live panels."""
    lines = []
    for name, errors in form.errors.items():
        label = str(form.fields[name].label) if name in form.fields else ""
        for message in errors:
            named = not label or message.startswith(label) or label.lower() in message.lower()
            lines.append(message if named else f"{label}: {message}")
    return lines


class MemeyoriForm(CharacterForm):
    rank = _number_field(
        "Rank", stats.RANK_MIN, stats.RANK_MAX, help_text="At Rank 6 every attribute is +1."
    )

    class Meta(CharacterForm.Meta):
        model = Memeyori
        fields = [
            "name", "type", "rank", *stats.ATTRIBUTES, "flavour", "art_variant", "visibility",
        ]  # fmt: skip


class ArchonForm(CharacterForm):
    class Meta(CharacterForm.Meta):
        model = Archon


CHARACTER_FORMS = {"memeyori": MemeyoriForm, "archon": ArchonForm}


class ReferenceDefenderForm(forms.Form):
    """The odds panel's reference defender, edited in place beside the builder.

    The default is a human-average defender (every attribute 2, R1): Evasion 2,
    Defense 2, Resistance 2, of the neutral Type.
    """

    vs_evasion = _number_field("Defender Evasion", 0, 40)
    vs_defense = _number_field("Defender Defense", 0, 40)
    vs_resistance = _number_field("Defender Resistance", 0, 40)
    vs_type = TypeChoiceField(
        queryset=Type.objects.all(), label="Defender Type", required=False, to_field_name="slug"
    )

    DEFAULTS = {**DEFAULT_REFERENCE, "vs_type": ""}

    def __init__(self, data=None, **kwargs):
        # Missing values fall back to the defaults so a bare GET still shows odds.
        if data is not None:
            merged = dict(self.DEFAULTS)
            merged.update({k: data.get(k) for k in self.DEFAULTS if data.get(k) not in (None,)})
            data = merged
        super().__init__(data, initial=self.DEFAULTS, **kwargs)
        self.fields["vs_type"].empty_label = "Ether (neutral)"


class SearchForm(forms.Form):
    q = forms.CharField(label="Name contains", required=False, max_length=60)
    type = forms.ModelChoiceField(
        queryset=Type.objects.all(),
        required=False,
        to_field_name="slug",
        label="Type",
        empty_label="Any Type",
    )


class CardForm(LimitsShown, forms.ModelForm):
    """Every R7 field of a card."""

    class Meta:
        model = Card
        fields = [
            "name",
            "type",
            "category",
            "power",
            "mp_cost",
            "quick",
            "unlock_rank",
            "text",
            "tier2_power",
            "tier2_text",
            "tier3_power",
            "tier3_text",
            "flavour",
        ]
        field_classes = {"type": TypeChoiceField}
        widgets = {
            "text": forms.Textarea(attrs={"rows": 2}),
            "tier2_text": forms.Textarea(attrs={"rows": 2}),
            "tier3_text": forms.Textarea(attrs={"rows": 2}),
            "flavour": forms.Textarea(attrs={"rows": 2}),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["power"] = _number_field("Power", 0, 99)
        self.fields["mp_cost"] = _number_field("MP cost", 0, 20)
        self.fields["unlock_rank"] = _number_field(
            "Unlocks at Rank", stats.RANK_MIN, stats.RANK_MAX
        )
        self.fields["tier2_power"] = _number_field("Tier 2 power", 0, 99, required=False)
        self.fields["tier3_power"] = _number_field("Tier 3 power", 0, 99, required=False)
        # The replaced fields lost the model's defaults; a new card starts from them.
        for name in ("power", "mp_cost", "unlock_rank"):
            self.fields[name].initial = Card._meta.get_field(name).default
        self.fields["name"].error_messages["required"] = "Give the card a name."
        self.fields["type"].empty_label = None


class PartyForm(LimitsShown, forms.ModelForm):
    """R8: an Archon, up to six Memeyori in slot order, the Party Level and its DP."""

    class Meta:
        model = Party
        fields = ["name", "archon", "level", "dp_sp", "dp_mp", "dp_draw", "visibility"]

    # Checked like a portrait (format whitelist, size, pixels, from the header alone); the
    # decode and the resize to card size run in cards.tasks.process_party_back.
    back_image = forms.FileField(
        required=False,
        label="Back image",
        help_text=(
            "Printed on the card backs of this party's sheet. PNG, JPEG or WebP, at most "
            f"10 MB and {MEGAPIXELS} megapixels; cropped to the card from its centre."
        ),
        widget=forms.FileInput(attrs={"accept": "image/png,image/jpeg,image/webp"}),
    )
    remove_back_image = forms.BooleanField(
        required=False, label="Remove the back image (the backs go back to the plain design)"
    )

    def __init__(self, *args, owner, **kwargs):
        super().__init__(*args, **kwargs)
        self.owner = owner
        self.instance.owner = owner
        if not self.instance.back_image:
            del self.fields["remove_back_image"]
        self.fields["archon"].queryset = Archon.objects.filter(owner=owner)
        self.fields["archon"].empty_label = "No Archon"
        self.fields["level"] = _number_field("Party Level", 1, 100)
        self.fields["dp_sp"] = _number_field("DP on SP", 0, 99)
        self.fields["dp_mp"] = _number_field("DP on MP", 0, 99)
        self.fields["dp_draw"] = _number_field("DP on Draw", 0, 99)
        for name in ("level", "dp_sp", "dp_mp", "dp_draw"):
            # Replaced fields lose the model's defaults; a new party starts at Level 1.
            self.initial.setdefault(name, getattr(self.instance, name))
        mine = Memeyori.objects.filter(owner=owner).select_related("type")
        current = self.instance.memeyori_in_order() if self.instance.pk else []
        for i in range(stats.PARTY_MAX_MEMEYORI):
            self.fields[f"slot_{i + 1}"] = forms.ModelChoiceField(
                queryset=mine,
                required=False,
                to_field_name="code",
                label=f"Slot {i + 1}",
                empty_label="(empty)",
                initial=current[i].code if i < len(current) else None,
            )

    def clean_back_image(self):
        upload = self.cleaned_data.get("back_image")
        if upload and isinstance(upload, UploadedFile):
            portrait_check(upload)  # raises ValidationError with the player's message
        return upload

    def slot_fields(self):
        return [self[f"slot_{i + 1}"] for i in range(stats.PARTY_MAX_MEMEYORI)]

    def chosen_memeyori(self) -> list[Memeyori]:
        """The filled slots in order; empty slots close up (R8 slot order)."""
        return [
            m
            for i in range(stats.PARTY_MAX_MEMEYORI)
            if (m := self.cleaned_data.get(f"slot_{i + 1}")) is not None
        ]

    def totals(self) -> stats.PartyTotals | None:
        data = self.cleaned_data if hasattr(self, "cleaned_data") else {}
        try:
            return stats.party_totals(
                level=data["level"],
                dp_sp=data["dp_sp"],
                dp_mp=data["dp_mp"],
                dp_draw=data["dp_draw"],
            )
        except (KeyError, ValueError):
            return None

    def clean(self):
        cleaned = super().clean()
        if any(f"slot_{i + 1}" in self.errors for i in range(stats.PARTY_MAX_MEMEYORI)):
            return cleaned
        if self.totals() is None:
            return cleaned
        # clean() runs before the instance gets the new values, so check a stand-in.
        draft = Party(
            owner=self.owner,
            archon=cleaned.get("archon"),
            visibility=cleaned.get("visibility") or Party._meta.get_field("visibility").default,
            level=cleaned["level"],
            dp_sp=cleaned["dp_sp"],
            dp_mp=cleaned["dp_mp"],
            dp_draw=cleaned["dp_draw"],
        )
        try:
            check_party_memeyori(draft, self.chosen_memeyori())
        except ValidationError as error:
            self.add_error(None, error)
        return cleaned


class TypeChartForm(forms.Form):
    """The whole chart as one select per (attacking, defending) pair (R6)."""

    def __init__(self, *args, types: list[Type], effects: dict, **kwargs):
        super().__init__(*args, **kwargs)
        self.types = types
        for attacker in types:
            for defender in types:
                name = self.cell_name(attacker, defender)
                self.fields[name] = forms.ChoiceField(
                    choices=Effect.choices,
                    label=f"{attacker.name} attacking {defender.name}",
                    initial=effects.get((attacker.id, defender.id), Effect.NEUTRAL),
                )

    @staticmethod
    def cell_name(attacker: Type, defender: Type) -> str:
        return f"cell-{attacker.slug}-{defender.slug}"

    def clean(self):
        cleaned = super().clean()
        for attacker in self.types:
            for defender in self.types:
                name = self.cell_name(attacker, defender)
                effect = cleaned.get(name)
                # R6: Ether is weak to nothing and strong against nothing.
                if (
                    effect
                    and effect != Effect.NEUTRAL
                    and "ether" in (attacker.slug, defender.slug)
                ):
                    self.add_error(name, "Ether is neutral: its matchups stay x1 (R6).")
        return cleaned

    def changes(self) -> dict[tuple[int, int], str]:
        return {
            (a.id, d.id): self.cleaned_data[self.cell_name(a, d)]
            for a in self.types
            for d in self.types
        }


class ImportForm(forms.Form):
    file = forms.FileField(
        label="Export file (.json)",
        required=False,
        widget=forms.ClearableFileInput(attrs={"accept": "application/json,.json"}),
    )
    # The preview page posts the checked text back; it is checked again before creating.
    payload = forms.CharField(required=False, widget=forms.HiddenInput)

    def clean(self):
        cleaned = super().clean()
        if not cleaned.get("file") and not cleaned.get("payload"):
            raise ValidationError("Choose a Memeyori export file to import.")
        return cleaned


class DefenderPickForm(forms.Form):
    """The reference defender by name: any Memeyori or Archon the player can see, like
    choosing the defender in a damage calculator. Empty means the numbers typed below."""

    LIMIT = 300  # a long select is still usable; more than this is a search, not a list

    vs_pick = forms.ChoiceField(label="Defender", required=False)

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        choices = [("", "The numbers below (human average unless changed)")]
        for model in (Memeyori, Archon):
            rows = (
                model.objects.filter(visible_to(user))
                .select_related("owner")
                .order_by("name", "pk")[: self.LIMIT]
            )
            label = model._meta.verbose_name_plural.title()
            choices.append(
                (
                    label,
                    [(f"{model.kind}:{c.code}", f"{c.name} ({c.owner.username})") for c in rows],
                )
            )
        self.fields["vs_pick"].choices = choices
