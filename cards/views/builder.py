"""The live builder: one form for Memeyori and Archons, and the stats endpoint htmx calls
as the user types (R1-R5). Without JavaScript the same form posts and re-renders."""

import hashlib
from types import SimpleNamespace

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.vary import vary_on_headers

from memeyori_site.http import allow, require_safe

from .. import odds, stats
from ..forms import CHARACTER_FORMS, DefenderPickForm, ReferenceDefenderForm, error_messages
from ..idle import idle_reason
from ..models import ART_VARIANTS, Archon, Memeyori, get_readable_or_404
from ..printing import art
from ..services import character_save
from . import live
from .access import character_model, get_cards_for_owner, get_character_for_owner
from .cards_editor import editor_context

TEMPLATE = "cards/builder.html"
KIND_LABELS = {"memeyori": "Memeyori", "archon": "Archon"}


def _hints(form) -> list[dict]:
    """Beside each attribute: its R1 scale label, or its error."""
    names = [*(["rank"] if "rank" in form.fields else []), *stats.ATTRIBUTES]
    cleaned = getattr(form, "cleaned_data", None)
    rows = []
    for name in names:
        if form.is_bound and name in form.errors:
            text, error = " ".join(form.errors[name]), True
        elif name == "rank":
            text, error = "At Rank 6 every attribute is +1.", False
        else:
            value = cleaned.get(name) if cleaned else form[name].value()
            try:
                text, error = stats.scale_label(int(value)), False
            except (TypeError, ValueError):
                text, error = "", False
        # The hint beside the box is its description: the scale label, or the error.
        form.fields[name].widget.attrs["aria-describedby"] = f"hint-{name}"
        rows.append({"name": name, "field": form[name], "text": text, "error": error})
    return rows


def with_picked_defender(request, data):
    """The reference numbers of the defender picked by name, if it is one the player may
    see: its effective Evasion, Defense, Resistance and Type replace the typed ones."""
    pick = (data or {}).get("vs_pick") or ""
    kind, _, code = pick.partition(":")
    model = {"memeyori": Memeyori, "archon": Archon}.get(kind)
    if model is None:
        return data, None
    try:
        rows = model.objects.select_related("type", "owner")
        picked = get_readable_or_404(rows, request.user, code=code)
    except (Http404, ValidationError, ValueError):
        return data, None
    derived = picked.derived
    data = data.copy()
    data.update(
        vs_evasion=str(derived.evasion),
        vs_defense=str(derived.defense),
        vs_resistance=str(derived.resistance),
        vs_type=picked.type.slug,
    )
    return data, picked


def card_lines(rows: list[odds.CardRow]) -> list[dict]:
    """The odds panel's lines for the cards' rows (R5), as plain dicts of what it shows: the
    template looks a name up as a key first, which a dataclass answers only by raising."""
    lines = []
    for row in rows:
        line = {"name": row.card.name, "locked_at": None if row.unlocked else row.card.unlock_rank}
        if row.kind == "support":
            line["heal"] = row.heal
        else:
            line.update(
                heal=None,
                effect=row.effect,
                expected=row.expected.text,
                title=f"{row.expected.exact}; {row.multipliers}",
            )
        lines.append(line)
    return lines


def live_context(*, form, reference, cards=None, chart=None, oob=False, picked=None) -> dict:
    """Everything the stats and odds panels show, from already-bound forms."""
    context = {
        "form": form,
        "reference": reference,
        "hints": _hints(form),
        "oob": oob,
        "picked": picked,
        "errors": error_messages(form) if form.is_bound else [],
    }
    values = form.attribute_values()
    if values is None:
        return context
    rank = values.pop("rank", None)
    context["explained"] = stats.explain(**values, rank=rank or 1)
    derived = stats.derive(**values, rank=rank or 1)
    context["summary"] = derived
    # The template keeps the parts that show only the rules' numbers rendered, under all
    # they are computed from: the attributes and Rank; for the odds, the dice and the
    # reference Evasion. The same for anyone who types them, and never stale.
    context["stats_key"] = (*values.values(), rank or 1)
    if not reference.is_valid():
        return context
    ref = reference.cleaned_data
    context["ref"] = ref
    context["attacks"] = odds.attack_rows(derived, ref["vs_evasion"])
    context["odds_key"] = (
        derived.physical_accuracy, derived.magic_accuracy, derived.crit_rate, ref["vs_evasion"]
    )  # fmt: skip
    user_type = form.chosen_type()
    context["saved"] = cards is not None
    if cards is not None and user_type is not None:
        rows = odds.card_rows(
            cards=cards,
            derived=derived,
            user_type=user_type,
            rank=rank,
            reference=ref,
            chart=live.chart_against(ref["vs_type"]) if chart is None else chart,
        )
        context["card_rows"] = card_lines(rows)
    return context


def art_context(form, code=None, drawn: str = "") -> dict:
    """The generated art's looks for what is typed (art.look, as the cards draw them):
    every variant as a thumbnail, and the chosen one; nothing without a valid Type, nor
    when `drawn` (what the page shows, `art_drawn`) says the page has these already: the
    pictures cost some 0.7 ms each, and most keystrokes (Rank, flavour, the reference
    defender) change none."""
    inputs = form.art_inputs(code)
    if inputs is None:
        return {}
    symbol = inputs.pop("symbol")
    chosen = form.instance.art_variant  # the stored one, while a typed one is not valid
    if form.is_bound and "art_variant" not in form.errors:
        chosen = form.cleaned_data["art_variant"]
    elif not form.is_bound:
        chosen = form.initial.get("art_variant", chosen)
    chosen = chosen if chosen in range(ART_VARIANTS) else 0
    looks = [
        {"value": v, "number": v + 1, "look": art.look(**inputs, variant=v),
         "checked": v == chosen, "prefix": f"look-{v + 1}-"}
        for v in range(ART_VARIANTS)
    ]  # fmt: skip
    digest = hashlib.sha256(repr((symbol, chosen, *(x["look"] for x in looks))).encode())
    digest = digest.hexdigest()[:16]
    if drawn == digest:
        return {}
    return {"art_looks": looks, "art_chosen": looks[chosen]["look"], "art_number": chosen + 1,
            "art_symbol": symbol, "art_drawn": digest}  # fmt: skip


def _page(request, *, kind, form, reference, character=None, data=None):
    cards = list(character.cards.all()) if character is not None else None
    data, picked = with_picked_defender(request, data)
    if picked is not None:
        reference = ReferenceDefenderForm(data)
    context = live_context(form=form, reference=reference, cards=cards, picked=picked)
    context.update(
        pick=DefenderPickForm(data if picked else None, user=request.user),
        kind=kind,
        kind_label=KIND_LABELS[kind],
        character=character,
        stats_url=(
            reverse("character_stats", kwargs={"kind": kind, "code": character.code})
            if character
            else reverse("builder_stats", kwargs={"kind": kind})
        ),
    )
    if character is not None:
        context.update(editor_context(character))
    if character is None or not character.portrait:  # a portrait always wins (issue 34)
        context.update(art_context(form))
    return render(request, TEMPLATE, context)


def _save_or_render(request, *, kind, instance, character=None):
    form = CHARACTER_FORMS[kind](request.POST, request.FILES, instance=instance)
    reference = ReferenceDefenderForm(request.POST)
    if "preview" in request.POST or not form.is_valid():
        return _page(
            request,
            kind=kind,
            form=form,
            reference=reference,
            character=character,
            data=request.POST,
        )
    try:
        saved = character_save(
            character=form.save(commit=False), portrait=form.cleaned_data.get("portrait")
        )
    except ValidationError as error:  # the person's bounds (issue 18.4), said on the page
        form.add_error(None, error)
        return _page(
            request, kind=kind, form=form, reference=reference, character=character,
            data=request.POST,
        )  # fmt: skip
    messages.success(request, f"Saved {saved.name}.")
    return redirect("character_edit", kind=kind, code=saved.code)


# What a visitor typed survives logging in or signing up: it waits in the session (which
# login() keeps, under a new key) until the builder shows it again and it is saved.
# Only the builder's own fields are kept, each at most DRAFT_VALUE characters, so a crafted
# post stores a few kilobytes at most (issue 18.3: field names of 210,000 characters once
# stored 10 MB a request); a visitor's session with a draft lives a day, and
# `manage.py clearsessions` (run by the task worker, cards/tasks.py) removes expired ones.
DRAFT_KEY = "builder_draft"
DRAFT_VALUE = 2000  # the longest field, the flavour text
DRAFT_MAX_CHARS = 8000  # the whole draft; the form's own fields fill about 2,100
DRAFT_LIFETIME = 24 * 3600


def _draft_fields(kind) -> set[str]:
    return {
        *CHARACTER_FORMS[kind].base_fields,
        *ReferenceDefenderForm.base_fields,
        *DefenderPickForm.base_fields,
    } - {"portrait"}


def _draft_stash(request, kind):
    fields = _draft_fields(kind)
    draft = {k: v[:DRAFT_VALUE] for k, v in request.POST.items() if k in fields}
    if sum(len(k) + len(v) for k, v in draft.items()) > DRAFT_MAX_CHARS:
        return  # not a draft anyone typed: keep nothing rather than a part
    request.session[DRAFT_KEY] = {"kind": kind, "data": draft}
    if not request.user.is_authenticated:
        request.session.set_expiry(DRAFT_LIFETIME)


def _draft_for(request, kind) -> dict | None:
    draft = request.session.get(DRAFT_KEY)
    if isinstance(draft, dict) and draft.get("kind") == kind:
        return draft.get("data")
    return None


@allow("GET", "POST")
def builder_new(request, kind):
    """Anyone may try the builder; saving needs an account, and the draft waits for it."""
    model = character_model(kind)
    if request.method == "POST" and "preview" not in request.POST:
        if not request.user.is_authenticated:
            _draft_stash(request, kind)
            messages.info(request, "Your draft is kept: log in or sign up and it comes back.")
            target = "signup" if request.POST.get("save") == "signup" else "login"
            return redirect_to_login(request.path, login_url=reverse(target))
        response = _save_or_render(request, kind=kind, instance=model(owner=request.user))
        if response.status_code == 302 and request.session.pop(DRAFT_KEY, None) is not None:
            request.session.set_expiry(None)  # a draft's day is over: the usual lifetime
        return response
    if request.method == "POST":
        return _save_or_render(request, kind=kind, instance=model())
    draft = _draft_for(request, kind)
    if draft is not None:
        return _page(
            request,
            kind=kind,
            form=CHARACTER_FORMS[kind](draft),
            reference=ReferenceDefenderForm(draft),
            data=draft,
        )
    return _page(
        request,
        kind=kind,
        form=CHARACTER_FORMS[kind](),
        reference=ReferenceDefenderForm({}),
    )


@allow("GET", "POST")
@login_required
def character_edit(request, kind, code):
    character = get_character_for_owner(request, kind, code)
    if request.method == "POST":
        return _save_or_render(request, kind=kind, instance=character, character=character)
    return _page(
        request,
        kind=kind,
        form=CHARACTER_FORMS[kind](instance=character),
        reference=ReferenceDefenderForm({}),
        character=character,
    )


def _idle_now(kind: str, form, cards) -> str | None:
    """A saved Memeyori's "can only wait" as its cards and the typed Rank stand now (the
    live panels bring it, so adding a card clears it without a reload); None elsewhere."""
    if kind != "memeyori" or cards is None:
        return None
    typed = getattr(form, "cleaned_data", {})
    shown = SimpleNamespace(name=typed.get("name") or form.data.get("name", ""),
                            rank=typed.get("rank") or 1)  # fmt: skip
    return idle_reason(shown, cards)


@require_safe
@vary_on_headers("HX-Request")
def builder_stats(request, kind, code=None):
    """The stats and odds panels for what is typed so far; saves nothing.

    Called on every keystroke (after a short delay), so it reads only what it shows: the
    character's cards when it has been saved, the Type rows the form checks, and the
    chart column of the reference defender's Type.
    """
    character_model(kind)
    cards = get_cards_for_owner(request, kind, code) if code else None
    form = CHARACTER_FORMS[kind](request.GET)
    form.live = True
    data, picked = with_picked_defender(request, request.GET)
    reference = ReferenceDefenderForm(data)
    types, chart = live.types_and_chart(data.get("vs_type", ""))
    form.fields["type"].use_types(types)
    reference.fields["vs_type"].use_types(types)
    context = live_context(
        form=form,
        reference=reference,
        cards=cards,
        chart=chart,
        oob=bool(request.htmx),
        picked=picked,
    )
    context.update(kind=kind, code=code, idle=_idle_now(kind, form, cards))
    if request.htmx and "art_picker" in request.GET:
        # Only a page that shows the looks (no portrait) sends the picker's marker.
        context.update(art_context(form, code, request.GET.get("art_drawn", "")))
    name = TEMPLATE + "#live-panels" if request.htmx else "cards/live_page.html"
    return render(request, name, context)
