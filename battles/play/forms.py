"""The play pages' forms: starting a game, a table's game, joining, and a round's plan.

The plan form posts the JSON protocol's fields (PROTOCOL.md, `memeyori-play/1`) in form
shape: `round`, `switch` ("out:in" or empty), `summon`, and one `card_<id>` per card in
hand ("" for not played, else "tier:target"), with `order_<id>` saying where it goes in
the plan. The rules' own checks (services.preview_plan / submit_plan) judge the result.
"""

from django import forms

from battles.choices import level_name
from battles.engine.keyed import KEY_HEX
from battles.forms import DRAW_AT_LIMIT, POLICY_CHOICES, PartyChoice
from battles.services import parties_for
from cards.models import Party

from . import newcomer

# Off, 1, 2 or 5 minutes a round (issue 17): when it runs out, greedy plans for that side.
TIME_LIMITS = [(0, "Off"), (60, "1 minute"), (120, "2 minutes"), (300, "5 minutes")]
OPPONENTS = [
    ("ai", "The AI"),
    ("friend", "A friend (an invite link)"),
    ("hotseat", "Hot-seat: you plan both sides on this device"),
]


_NOT_YOURS = "Choose one of your own parties with a Memeyori in it."


def _playable(parties):
    return parties.filter(slots__isnull=False).distinct().order_by("name", "pk")


class NewGameForm(forms.Form):
    party = PartyChoice(
        queryset=None,
        label="Your party",
        to_field_name="code",
        error_messages={"required": "Choose your party.", "invalid_choice": _NOT_YOURS},
    )
    opponent = forms.ChoiceField(choices=OPPONENTS, initial="ai", widget=forms.RadioSelect)
    party_b = PartyChoice(
        queryset=None,
        label="The other party",
        to_field_name="code",
        required=False,
        help_text="The AI's party, or the second side in hot-seat. A friend brings their own.",
    )
    policy_b = forms.ChoiceField(
        choices=POLICY_CHOICES, initial="greedy", required=False, label="AI level"
    )
    time_limit = forms.TypedChoiceField(
        choices=TIME_LIMITS,
        coerce=int,
        initial=0,
        required=False,
        empty_value=0,
        label="Time to plan each round",
        help_text=f"When it runs out, the AI ({level_name('greedy')}) plans for the side that "
        "has not, and the log says so.",
    )
    # Text, not a number: a finished game's key (64 hex digits) replays its deal too.
    seed = forms.CharField(
        max_length=KEY_HEX,
        required=False,
        help_text="Against the AI or hot-seat only; leave empty for a random one. A friend's"
        " or table game gets a seed the server draws, shown when the game ends.",
    )
    draw_at_limit = forms.BooleanField(required=False, **DRAW_AT_LIMIT)

    # A friend rematch addresses the new invite to the same friend (rematch.py).
    challenge = forms.CharField(
        max_length=150,
        required=False,
        label="Challenge by user name",
        help_text="A friend game only: the invite shows in their games and works for them "
        "alone. Leave empty to send the link yourself.",
    )

    PREFILL = ("party", "party_b", "opponent", "policy_b", "seed", "time_limit", "challenge",
               "draw_at_limit")  # fmt: skip

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user
        own = _playable(Party.objects.filter(owner=user)).select_related("owner")
        self.fields["party"].queryset = own
        self.fields["party_b"].queryset = _playable(parties_for(user)).select_related("owner")
        if not self.is_bound and "party" not in self.initial and len(own[:2]) == 1:
            self.initial["party"] = own[0].code
        if not self.is_bound and "policy_b" not in self.initial:
            self.initial["policy_b"] = newcomer.default_level(user)  # issue 41.2

    def clean_seed(self):
        from .services import chosen_seed

        seed = self.cleaned_data["seed"]
        return chosen_seed(seed) if seed else ""

    def clean(self):
        data = super().clean()
        if data.get("opponent") in ("ai", "hotseat") and not data.get("party_b"):
            self.add_error("party_b", "Choose the other side's party.")
        data["policy_b"] = data.get("policy_b") or "greedy"  # optional, as in the protocol
        if data.get("opponent") == "friend":
            data["party_b"] = None
        else:
            data["challenge"] = ""
        return data


class TableGameForm(forms.Form):
    """The GM pairs two members' parties, or a member's against the GM's (issue 17)."""

    party_a = PartyChoice(queryset=None, label="Side A", to_field_name="code")
    party_b = PartyChoice(queryset=None, label="Side B", to_field_name="code")
    time_limit = NewGameForm.base_fields["time_limit"]
    # No seed: the server draws a table game's and keeps it until the end (SECRET_SEED).

    def __init__(self, *args, table, **kwargs):
        super().__init__(*args, **kwargs)
        members = table.memberships.values("user")
        # A member's party the GM can see: shared with the table, public, or the GM's own.
        parties = _playable(parties_for(table.gm).filter(owner__in=members)).select_related("owner")
        self.fields["party_a"].queryset = parties
        self.fields["party_b"].queryset = parties
        self.fields["party_a"].help_text = "Its owner plans this side."
        self.fields["party_b"].help_text = "Its owner plans this side."

    def clean(self):
        data = super().clean()
        a, b = data.get("party_a"), data.get("party_b")
        if a and b and a.owner_id == b.owner_id:
            self.add_error(
                "party_b",
                f"Both parties are {a.owner.username}'s: pick another member's party (or "
                "yours) for side B, so each side has its own player.",
            )
        return data


class JoinForm(forms.Form):
    party = NewGameForm.base_fields["party"]

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        own = _playable(Party.objects.filter(owner=user)).select_related("owner")
        self.fields["party"].queryset = own
        if not self.is_bound and len(own[:2]) == 1:
            self.initial["party"] = own[0].code


class ChallengeForm(forms.Form):
    username = forms.CharField(
        max_length=150,
        label="Or challenge someone by their user name",
        help_text="The game shows in their games, ready to join; the link works for them alone.",
        error_messages={"required": "Type the user name of the person you challenge."},
    )


class ShareGameForm(forms.Form):
    action = forms.ChoiceField(choices=[("share", "share"), ("revoke", "revoke")])


class StageForm(forms.Form):
    """ "Switch/summon now" (ruling 8): the plan form's own `round`, `switch` and `summon`,
    posted to the stage before the cards are chosen. The engine's checks judge them."""

    round = forms.IntegerField(min_value=1, error_messages={"required": "Which round is this?"})
    switch = forms.RegexField(
        regex=r"^([^:]+:[^:]+)?$",
        required=False,
        error_messages={"invalid": "Choose a Switch from the list."},
    )
    summon = forms.BooleanField(required=False)

    def stage(self) -> tuple[list[str] | None, bool]:
        switch = self.cleaned_data.get("switch") or ""
        return (switch.split(":", 1) if switch else None), bool(self.cleaned_data.get("summon"))


class PlanForm(forms.Form):
    """One round's plan, built from the side's state (its hand, switches, summon).

    `plan()` is the protocol's plan dict: {"switch", "summon", "cards"} with the cards in
    the order the player gave (ties in hand order)."""

    round = forms.IntegerField(min_value=1, widget=forms.HiddenInput)

    def __init__(self, *args, state: dict, **kwargs):
        super().__init__(*args, **kwargs)
        self.state = state
        self.fields["round"].initial = state["round"]
        names = {c["id"]: c["name"] for c in [*state["field"], *state["stored"]]}
        switches = [("", "No switch")] + [
            (f"{out}:{inn}", f"{names.get(out, out)} out, {names.get(inn, inn)} in")
            for out, inn in state["switches"]
        ]
        # Plain text behind a menu: whatever is posted, the engine's own checks judge it
        # and say why in words (a menu only offers what they would take).
        self.fields["switch"] = forms.CharField(
            required=False, label="Switch", widget=forms.Select(choices=switches)
        )
        self.fields["summon"] = forms.BooleanField(required=False, label="Summon the Archon")
        self.cards = []
        for position, card in enumerate(state["hand"], start=1):
            options = [("", "Not played")]
            for tier in card["tiers"]:
                for target in card["targets"]:
                    label = f"on {target['name']}"
                    if tier["tier"] > 1:
                        label = f"Tier {tier['tier']} ({tier['resonance']} Resonance) {label}"
                    options.append((f"{tier['tier']}:{target['id']}", label))
            name = f"card_{card['id']}"
            dom = card["id"].replace(".", "-")  # ids a CSS selector can name
            self.fields[name] = forms.RegexField(
                regex=r"^([123]:.+)?$",
                required=False,
                label=f"Play {card['name']}",
                widget=forms.Select(choices=options, attrs={"id": f"play-{dom}"}),
                error_messages={"invalid": "Choose a Tier and a target from the list."},
            )
            self.fields[f"order_{card['id']}"] = forms.IntegerField(
                min_value=1,
                max_value=99,
                required=False,
                initial=position,
                label="Order",
                widget=forms.NumberInput(attrs={"id": f"order-{dom}"}),
            )
            self.cards.append(card)

    def plan(self) -> dict:
        data = self.cleaned_data
        switch = data.get("switch") or ""
        chosen = []
        for position, card in enumerate(self.cards):
            value = data.get(f"card_{card['id']}") or ""
            if not value:
                continue
            tier, target = value.split(":", 1)
            order = data.get(f"order_{card['id']}") or position + 1
            chosen.append((order, position, [card["id"], int(tier), target]))
        chosen.sort(key=lambda row: row[:2])
        return {
            "switch": switch.split(":", 1) if switch else None,
            "summon": bool(data.get("summon")),
            "cards": [row[2] for row in chosen],
        }

    def card_fields(self):
        """(card, its choice field, its order field) for the template, in hand order."""
        return [
            (card, self[f"card_{card['id']}"], self[f"order_{card['id']}"]) for card in self.cards
        ]


FORK_OPPONENTS = [
    ("ai", "The AI"),
    ("hotseat", "Hot-seat: you plan both sides on this device"),
]


class ForkForm(forms.Form):
    """Play from a round of a battle (issue 32 §6): the round, the opponent, the side the
    reader plays against the AI, and the AI's level."""

    round = forms.TypedChoiceField(
        coerce=int,
        label="Play from the start of round",
        error_messages={"invalid_choice": "Choose a round this battle planned."},
    )
    opponent = forms.ChoiceField(
        choices=FORK_OPPONENTS, initial="ai", widget=forms.RadioSelect, label="Against"
    )
    side = forms.TypedChoiceField(
        coerce=int,
        initial=0,
        required=False,
        empty_value=0,
        widget=forms.RadioSelect,
        label="You play",
        help_text="Against the AI: the AI plays the other side. Hot-seat: you plan both.",
    )
    policy = forms.ChoiceField(
        choices=POLICY_CHOICES, initial="greedy", required=False, label="AI level"
    )

    def __init__(self, *args, rounds: list[int], names: tuple[str, str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["round"].choices = [(r, f"Round {r}") for r in rounds]
        self.fields["side"].choices = [(0, f"Side A: {names[0]}"), (1, f"Side B: {names[1]}")]

    def clean(self):
        data = super().clean()
        data["policy"] = data.get("policy") or "greedy"
        return data
