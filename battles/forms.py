import uuid

from django import forms

from cards.models import Table

from .engine.policies import LEVELS, POLICIES
from .models import BattleVisibility
from .play import levels
from .services import SEED_MAX, growth_refusal, limit_refusal, parties_for, random_seed


def _level_choice(name: str, label: str, line: str) -> str:
    """ "Thinker (wins about 6 in 10 against Greedy): Plays ...": the level's place on the
    one strength scale (play/levels.py, issue 41.3), when it is rated."""
    rated = levels.kept({n: p.version for n, p in POLICIES.items()})
    strength = levels.strength(name, rated, LEVELS[levels.ANCHOR][0])
    return f"{label} ({strength}): {line}" if strength else f"{label}: {line}"


# The AI levels, weakest first, each with its strength and its one line (engine.policies).
POLICY_CHOICES = [(name, _level_choice(name, *row)) for name, row in LEVELS.items()]


# R9.6's choice, on every form that starts a battle or a game (here, play and the lab).
DRAW_AT_LIMIT = {
    "label": "A draw at the limit",
    "help_text": "When round 30 ends with both sides standing, a draw, as before R9.6. Left "
    "off, the round limit decides: more combatants standing wins, then more HP left. At a "
    "table, its GM's choice.",
}


def _is_uuid(value) -> bool:
    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return True


class PartyChoice(forms.ModelChoiceField):
    def label_from_instance(self, party):
        return f"{party.name} ({party.owner.username})"


class BattleForm(forms.Form):
    # Parties are chosen by their public code, never by integer key.
    party_a = PartyChoice(queryset=None, label="Side A", to_field_name="code")
    party_b = PartyChoice(queryset=None, label="Side B", to_field_name="code")
    seed = forms.IntegerField(
        min_value=0,
        max_value=SEED_MAX,
        help_text="The same parties, policies and seed replay the same battle to the die.",
    )
    policy_a = forms.ChoiceField(choices=POLICY_CHOICES, initial="greedy", label="Side A plays")
    policy_b = forms.ChoiceField(choices=POLICY_CHOICES, initial="greedy", label="Side B plays")
    table = forms.ModelChoiceField(
        queryset=None,
        to_field_name="code",
        required=False,
        empty_label="Not at a table",
        label="At a table",
        help_text="Its members can watch it. Only its GM can make it count for growth.",
    )
    counts_for_growth = forms.BooleanField(
        required=False,
        label="Counts for growth",
        help_text="With a winner, the Memeyori that fought gain a Rank against equal or "
        "stronger opponents (see the Rules page), each in its owner's own collection. The "
        "table's GM's call: outside a table no battle counts.",
    )
    visibility = forms.ChoiceField(
        choices=BattleVisibility.choices, initial=BattleVisibility.PRIVATE
    )
    draw_at_limit = forms.BooleanField(required=False, **DRAW_AT_LIMIT)

    PREFILL = ("party_a", "party_b", "seed", "policy_a", "policy_b", "draw_at_limit")

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user
        parties = parties_for(user).order_by("name", "pk")
        self.fields["party_a"].queryset = parties
        self.fields["party_b"].queryset = parties
        self.fields["table"].queryset = Table.objects.filter(memberships__user=user).order_by(
            "name", "pk"
        )
        if not self.is_bound:
            self.initial.setdefault("seed", random_seed())
            # Opened from a table's page: its GM's rule at the limit, ticked or not.
            table = (
                self.fields["table"]
                .queryset.filter(code__in=[c for c in [self.initial.get("table")] if _is_uuid(c)])
                .first()
            )
            if table is not None:
                self.initial.setdefault("draw_at_limit", table.draw_at_limit)

    def clean(self):
        data = super().clean()
        a, b = data.get("party_a"), data.get("party_b")
        for field, party in (("party_a", a), ("party_b", b)):
            if party is not None and not party.slots.exists():
                self.add_error(field, "This party has no Memeyori; a party needs one to battle.")
        if data.get("counts_for_growth"):
            table = data.get("table")
            if table is None:
                self.add_error(
                    "counts_for_growth",
                    "Outside a table no battle counts for growth: choose a table "
                    "(a table of one will do).",
                )
            elif table.gm_id != self.user.pk:
                self.add_error(
                    "counts_for_growth", "Only the table's GM can make a battle count for growth."
                )
            elif a and b and (refusal := growth_refusal(a, b)):
                self.add_error("counts_for_growth", refusal)
        draw = data.get("draw_at_limit")
        if refusal := limit_refusal(table=data.get("table"), draw_at_limit=draw):
            self.add_error("draw_at_limit", refusal)
        return data


class ViewerForm(forms.Form):
    """?round=N&step=K: which round, and how many of its events have happened."""

    round = forms.IntegerField(min_value=0, required=False)
    step = forms.IntegerField(min_value=0, required=False)


class ShareForm(forms.Form):
    action = forms.ChoiceField(
        choices=[
            ("visibility", "visibility"),
            ("regenerate", "regenerate"),
            ("revoke", "revoke"),
            ("show_result", "show_result"),
        ]
    )
    visibility = forms.ChoiceField(choices=BattleVisibility.choices, required=False)
    show_result = forms.BooleanField(required=False)


class PresentForm(forms.Form):
    action = forms.ChoiceField(choices=[("start", "start"), ("step", "step"), ("stop", "stop")])
    round = forms.IntegerField(min_value=0, required=False)
    step = forms.IntegerField(min_value=0, required=False)
