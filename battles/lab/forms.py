from django import forms

from cards.models import Archon, Memeyori, visible_to

from ..forms import DRAW_AT_LIMIT, POLICY_CHOICES, PartyChoice
from ..models import BattleVisibility
from ..services import SEED_MAX, random_seed
from . import services


class LabForm(forms.Form):
    party_a = PartyChoice(
        queryset=None,
        label="Side A",
        to_field_name="code",
        empty_label="Choose a party",
        error_messages={"required": "Choose side A."},
    )
    against = forms.ChoiceField(
        choices=[("one", "One party (side B)"), ("field", "Every party I can see")],
        initial="one",
        widget=forms.RadioSelect,
        label="Against",
    )
    party_b = PartyChoice(queryset=None, label="Side B", to_field_name="code", required=False)
    battles = forms.IntegerField(
        min_value=services.MIN_BATTLES,
        max_value=services.MAX_BATTLES,
        initial=1000,
        label="Battles",
        help_text=f"From {services.MIN_BATTLES} to {services.MAX_BATTLES:,} "
        "(against the field: for each opponent).",
    )
    seed = forms.IntegerField(
        min_value=0,
        max_value=SEED_MAX,
        help_text="The lab's seed; battle i gets its own seed from it, so every battle replays.",
    )
    policy_a = forms.ChoiceField(choices=POLICY_CHOICES, initial="greedy", label="Side A plays")
    policy_b = forms.ChoiceField(
        choices=POLICY_CHOICES,
        initial="greedy",
        label="Side B plays",
        help_text=f"With the {services.THINKER} a lab runs at most "
        f"{services.MAX_LOOKAHEAD_BATTLES:,} battles in all "
        f"({services.MAX_LOOKAHEAD_BATTLES // 2:,} with the {services.THINKER} on both "
        "sides), what one worker plays in a few minutes.",
    )
    visibility = forms.ChoiceField(
        choices=BattleVisibility.choices, initial=BattleVisibility.PRIVATE
    )
    draw_at_limit = forms.BooleanField(
        required=False,
        label=DRAW_AT_LIMIT["label"],
        help_text="When round 30 ends with both sides standing, a draw, as before R9.6. Left "
        "off, the round limit decides: more combatants standing wins, then more HP left.",
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user
        parties = services.lab_parties_for(user).order_by("name", "pk")
        self.fields["party_a"].queryset = parties
        self.fields["party_b"].queryset = parties
        self.fields["party_b"].empty_label = "Choose a party"
        if not self.is_bound:
            self.initial.setdefault("seed", random_seed())

    def clean(self):
        data = super().clean()
        a, b = data.get("party_a"), data.get("party_b")
        for field, party in (("party_a", a), ("party_b", b)):
            if party is not None and not party.slots.exists():
                self.add_error(field, "This party has no Memeyori; a party needs one to battle.")
        against = data.get("against")
        policies = (data.get("policy_a"), data.get("policy_b"))
        if (
            against == "one"
            and data.get("battles")
            and (refusal := services.lookahead_refusal(policies, data["battles"]))
        ):
            self.add_error("battles", refusal)
        if against == "one" and b is None and "party_b" not in self.errors:
            self.add_error("party_b", "Choose side B, or run against every party you can see.")
        if against == "field" and a is not None:
            count = len(services.field_opponents(self.user, a))
            data["opponents"] = count
            if count == 0:
                self.add_error("against", "There is no other party you can see with a Memeyori.")
            elif data.get("battles") and data["battles"] * count > services.MAX_TOTAL:
                self.add_error(
                    "battles",
                    f"{count} opponents × {data['battles']:,} is "
                    f"{count * data['battles']:,} battles; a lab runs at most "
                    f"{services.MAX_TOTAL:,}. Lower the number.",
                )
            elif data.get("battles") and (
                refusal := services.lookahead_refusal(policies, data["battles"] * count)
            ):
                self.add_error("battles", refusal)
        return data


class CharacterChoice(forms.ModelChoiceField):
    def label_from_instance(self, c):
        rank = f", Rank {c.rank}" if getattr(c, "rank", None) else ""
        return f"{c.name} ({c.type.name}{rank}, {c.owner.username})"


class WhatIfForm(forms.Form):
    kind = forms.ChoiceField(
        choices=[
            ("replace", "Replace one Memeyori"),
            ("remove", "Remove one Memeyori"),
            ("add", "Add a Memeyori"),
            ("archon", "Change the Archon"),
        ],
        widget=forms.RadioSelect,
        label="The one change",
    )
    slot = forms.TypedChoiceField(coerce=int, required=False, label="Which Memeyori")
    memeyori = CharacterChoice(
        queryset=None,
        required=False,
        to_field_name="code",
        label="New Memeyori",
        empty_label="Choose a Memeyori",
    )
    archon = CharacterChoice(
        queryset=None,
        required=False,
        to_field_name="code",
        label="New Archon",
        empty_label="No Archon",
    )

    def __init__(self, *args, user, side: dict, **kwargs):
        super().__init__(*args, **kwargs)
        self.side = side
        self.fields["slot"].choices = [("", "Choose one")] + [
            (n, f"{n}. {row['name']}") for n, row in enumerate(side["memeyori"], start=1)
        ]
        self.fields["memeyori"].queryset = (
            Memeyori.objects.filter(visible_to(user)).select_related("type", "owner")
        ).order_by("name", "pk")
        self.fields["archon"].queryset = (
            Archon.objects.filter(visible_to(user)).select_related("type", "owner")
        ).order_by("name", "pk")

    def clean(self):
        data = super().clean()
        kind = data.get("kind")
        if kind in ("replace", "remove") and not data.get("slot"):
            self.add_error("slot", "Choose which Memeyori changes.")
        if kind in ("replace", "add") and not data.get("memeyori"):
            self.add_error("memeyori", "Choose the Memeyori that comes in.")
        m = data.get("memeyori")
        if (
            kind in ("replace", "add")
            and m is not None
            and str(m.code) in {row["code"] for row in self.side["memeyori"]}
        ):
            self.add_error("memeyori", f"{m.name} is already in this party.")
        return data
