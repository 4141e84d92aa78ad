"""Battle records, the viewer, sharing and growth, through the site."""

import io
import json

import pytest
from django.urls import reverse
from PIL import Image

from battles import services, viewer
from battles.models import Battle, BattleVisibility, Growth
from battles.services import battle_run
from cards.models import Memeyori, TableMembership
from cards.services import party_set_memeyori
from cards.tables.services import table_create
from tests.conftest import make_card, make_memeyori, make_party


def make_team(owner, types, name, *, visibility="public", size=2, rank=1, support_only=False):
    party = make_party(owner, name=name, visibility=visibility)
    team = []
    for i in range(size):
        # Members at least as visible as their party (issue 11.2).
        m = make_memeyori(
            owner, types["Blaze"], name=f"{name} {i + 1}", rank=rank, visibility=visibility
        )
        if support_only:
            make_card(m, types["Ether"], name="Nap", category="support", power=2)
        else:
            make_card(m, types["Blaze"], name="Cinder Nip", power=6)
        team.append(m)
    party_set_memeyori(party=party, memeyori=team)
    return party


@pytest.fixture
def alice_party(alice, types):
    return make_team(alice, types, "Sunrise")


@pytest.fixture
def bob_party(bob, types):
    return make_team(bob, types, "Night", visibility="public")


def run(owner, a, b, **kw):
    return battle_run(owner=owner, party_a=a, party_b=b, seed=kw.pop("seed", 42), **kw)


def test_alice_runs_a_battle_and_lands_on_its_viewer(client, alice, alice_party, bob_party):
    client.force_login(alice)
    response = client.post(
        "/battles/new/",
        {
            "party_a": alice_party.code,
            "party_b": bob_party.code,
            "seed": 7,
            "policy_a": "greedy",
            "policy_b": "random",
            "visibility": "private",
        },  # fmt: skip
    )
    battle = Battle.objects.get()
    assert response.status_code == 302 and response["Location"] == battle.get_absolute_url()
    assert (battle.seed, battle.policy_a, battle.policy_b) == (7, "greedy", "random")
    assert battle.snapshot["sides"][0]["name"] == "Sunrise"
    assert battle.log["result"]["winner"] == battle.winner
    page = client.get(battle.get_absolute_url())
    assert page.status_code == 200 and b"Sunrise" in page.content


def test_the_new_battle_form_shows_a_random_seed(client, alice, alice_party):
    client.force_login(alice)
    seeds = {client.get("/battles/new/").context["form"].initial["seed"] for _ in range(3)}
    assert len(seeds) > 1


def test_it_refuses_a_party_bob_keeps_private(client, alice, bob, types, alice_party):
    hidden = make_team(bob, types, "Secret", visibility="private")
    client.force_login(alice)
    response = client.post(
        "/battles/new/",
        {
            "party_a": alice_party.code,
            "party_b": hidden.code,
            "seed": 1,
            "policy_a": "greedy",
            "policy_b": "greedy",
            "visibility": "private",
        },  # fmt: skip
    )
    assert response.status_code == 400 and "party_b" in response.context["form"].errors
    assert not Battle.objects.exists()


def test_it_refuses_growth_outside_a_table(client, bob, types, alice, bob_party):
    other = make_team(alice, types, "Open", visibility="public")
    client.force_login(bob)
    response = client.post(
        "/battles/new/",
        {
            "party_a": other.code,
            "party_b": bob_party.code,
            "seed": 1,
            "policy_a": "greedy",
            "policy_b": "greedy",
            "visibility": "private",
            "counts_for_growth": "on",
        },  # fmt: skip
    )
    assert "counts_for_growth" in response.context["form"].errors
    assert not Battle.objects.exists()


def test_it_refuses_a_party_without_memeyori(client, alice, alice_party):
    empty = make_party(alice, name="Empty")
    client.force_login(alice)
    response = client.post(
        "/battles/new/",
        {
            "party_a": alice_party.code,
            "party_b": empty.code,
            "seed": 1,
            "policy_a": "greedy",
            "policy_b": "greedy",
            "visibility": "private",
        },  # fmt: skip
    )
    assert "needs one to battle" in response.content.decode()
    assert not Battle.objects.exists()


def test_anonymous_visitors_are_sent_to_log_in_before_running_a_battle(client, settings, db):
    settings.LOGIN_URL = "/accounts/login/"
    response = client.get("/battles/new/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_a_private_battle_is_a_404_for_bob_and_for_anonymous(client, alice, bob, alice_party):
    battle = run(alice, alice_party, alice_party)
    for path in ("", "log.json", "og.png"):
        url = f"{battle.get_absolute_url()}{path}"
        assert client.get(url).status_code == 404
        client.force_login(bob)
        assert client.get(url).status_code == 404
        client.logout()


def test_a_public_battle_is_listed_and_open_to_anyone(client, alice, alice_party, bob_party):
    battle = run(alice, alice_party, bob_party, visibility=BattleVisibility.PUBLIC)
    run(alice, alice_party, bob_party)  # private: not listed
    listed = client.get("/battles/public/")
    assert list(listed.context["battles"]) == [battle]
    assert client.get(battle.get_absolute_url()).status_code == 200


def test_my_battles_lists_only_mine(client, alice, bob, alice_party, bob_party):
    mine = run(alice, alice_party, bob_party)
    run(bob, bob_party, bob_party)
    client.force_login(alice)
    assert list(client.get("/battles/").context["battles"]) == [mine]


def test_an_unlisted_battles_share_link_works_logged_out(client, alice, alice_party):
    battle = run(alice, alice_party, alice_party, visibility=BattleVisibility.UNLISTED)
    assert len(battle.share_token) >= 43  # 32 random bytes
    assert client.get(battle.get_absolute_url()).status_code == 404  # the code alone is not enough
    shared = client.get(battle.share_url())
    assert shared.status_code == 200 and b"Sunrise" in shared.content
    assert json.loads(client.get(f"{battle.share_url()}log.json").content) == battle.log
    assert client.get(f"{battle.share_url()}og.png")["Content-Type"] == "image/png"


def test_a_revoked_link_is_a_404_and_a_new_link_works(client, alice, alice_party):
    battle = run(alice, alice_party, alice_party, visibility=BattleVisibility.UNLISTED)
    old = battle.share_url()
    client.force_login(alice)
    client.post(f"{battle.get_absolute_url()}share/", {"action": "revoke"})
    battle.refresh_from_db()
    assert battle.share_token is None
    client.logout()
    assert client.get(old).status_code == 404
    client.force_login(alice)
    client.post(f"{battle.get_absolute_url()}share/", {"action": "regenerate"})
    battle.refresh_from_db()
    client.logout()
    assert battle.share_url() != old
    assert client.get(old).status_code == 404
    assert client.get(battle.share_url()).status_code == 200


def test_making_a_battle_private_closes_its_share_link(client, alice, alice_party):
    battle = run(alice, alice_party, alice_party, visibility=BattleVisibility.UNLISTED)
    url = battle.share_url()
    client.force_login(alice)
    client.post(
        f"{battle.get_absolute_url()}share/", {"action": "visibility", "visibility": "private"}
    )
    client.logout()
    assert client.get(url).status_code == 404


def test_bob_cannot_change_alices_sharing(client, alice, bob, alice_party, bob_party):
    battle = run(alice, alice_party, bob_party, visibility=BattleVisibility.PUBLIC)
    token = battle.share_token
    client.force_login(bob)
    response = client.post(f"{battle.get_absolute_url()}share/", {"action": "revoke"})
    assert response.status_code == 404
    battle.refresh_from_db()
    assert battle.share_token == token
    assert b"Revoke the link" not in client.get(battle.get_absolute_url()).content


def test_a_never_issued_token_is_a_404(client, db):
    assert client.get("/battles/s/not-a-real-token-at-all/").status_code == 404


def test_the_viewer_opens_any_round_as_a_plain_page(client, alice, alice_party, bob_party):
    battle = run(alice, alice_party, bob_party, visibility=BattleVisibility.PUBLIC)
    page = client.get(battle.get_absolute_url(), {"round": 1, "step": 0})
    assert page.context["view"]["round"] == 1 and page.context["view"]["step"] == 0
    assert b"<html" in page.content and b"Round 1" in page.content
    assert client.get(battle.get_absolute_url(), {"round": "x"}).status_code == 400
    # A round past the end shows the last one.
    assert client.get(battle.get_absolute_url(), {"round": 99}).context["view"]["round"] == (
        battle.rounds
    )


def test_an_htmx_step_returns_only_the_viewer_partial(client, alice, alice_party, bob_party):
    battle = run(alice, alice_party, bob_party, visibility=BattleVisibility.PUBLIC)
    page = client.get(
        battle.get_absolute_url(), {"round": 1, "step": 3}, headers={"HX-Request": "true"}
    )
    assert page.status_code == 200
    assert page.content.lstrip().startswith(b'<section id="viewer"')
    assert "HX-Request" in page["Vary"]


def test_attacks_show_their_dice_and_odds(client, alice, alice_party, bob_party):
    battle = run(alice, alice_party, bob_party, visibility=BattleVisibility.PUBLIC)
    first_attack = next(e for e in battle.log["events"] if e["kind"] == "attack")
    frame = battle.frames[first_attack["round"]]
    step = battle.log["events"].index(first_attack) - frame["first_event"] + 1
    page = client.get(battle.get_absolute_url(), {"round": first_attack["round"], "step": step})
    html = page.content.decode()
    assert "Before the roll: land" in html and 'class="die' in html


def test_the_viewer_of_a_thirty_round_battle_takes_at_most_ten_queries(
    client, alice, types, django_assert_max_num_queries
):
    calm = make_team(alice, types, "Calm", support_only=True)
    battle = run(alice, calm, calm, visibility=BattleVisibility.PUBLIC)
    assert battle.rounds == 30 and battle.winner is None
    client.force_login(alice)
    with django_assert_max_num_queries(10):
        assert client.get(battle.get_absolute_url(), {"round": 17}).status_code == 200
    with django_assert_max_num_queries(10):
        client.get(battle.share_url(), {"round": 30, "step": 2}, headers={"HX-Request": "true"})


def test_the_preview_image_is_a_1200_by_630_png(client, alice, alice_party, bob_party):
    battle = run(alice, alice_party, bob_party, visibility=BattleVisibility.PUBLIC)
    response = client.get(f"{battle.get_absolute_url()}og.png")
    image = Image.open(io.BytesIO(response.content))
    assert (image.format, image.size) == ("PNG", (1200, 630))
    page = client.get(battle.get_absolute_url()).content.decode()
    assert 'property="og:image" content="http://testserver/battles/' in page


def test_hostile_names_are_escaped_in_the_viewer(client, alice, types):
    party = make_team(alice, types, "<script>alert(1)</script>", visibility="public")
    battle = run(alice, party, party, visibility=BattleVisibility.PUBLIC)
    html = client.get(battle.get_absolute_url()).content.decode()
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)" in html


def test_growth_raises_only_the_table_members_memeyori_in_the_same_transaction(
    alice, bob, types, alice_party
):
    table = table_create(gm=alice, name="Alone")
    rival = make_team(bob, types, "Rival", visibility="public", rank=3)
    before = {m.pk: m.rank for m in Memeyori.objects.all()}
    for seed in range(40):
        battle = run(alice, alice_party, rival, seed=seed, counts_for_growth=True, table=table)
        if battle.winner is not None and battle.log["result"]["growth"]:
            break
    assert battle.growth_applied, "some seed gives a decisive battle"
    after = {m.pk: m for m in Memeyori.objects.all()}
    grown = {g["memeyori"] for g in battle.growth_applied}
    for pk, m in after.items():
        if m.owner == bob:
            assert m.rank == 3  # R10 grants it, but bob does not sit at the table
        elif str(m.code) in grown:
            assert m.rank == before[pk] + 1
    # Each owner's history says what grew, from which battle.
    history = Growth.objects.filter(owner=alice)
    assert {str(g.memeyori.code) for g in history} == grown
    assert {g.battle_id for g in history} == {battle.pk}
    # History does not move: the snapshot keeps the Rank the battle was fought at.
    assert {row["rank"] for row in battle.snapshot["sides"][0]["memeyori"]} == {1}


def growth_battle(gm, member, types, gm_party):
    """A battle that member runs at gm's table against gm's party, one that would give
    growth if the GM counted it."""
    table = table_create(gm=gm, name="Sunday")
    TableMembership.objects.create(table=table, user=member)
    rival = make_team(member, types, "Rival", visibility="tables", rank=1)
    return next(
        b
        for seed in range(40)
        if (b := run(member, rival, alice_party_shared(gm_party), seed=seed, table=table)).log[
            "result"
        ]["growth"]
    )


def test_only_the_tables_gm_marks_a_battle_as_counting(client, alice, bob, types, alice_party):
    battle = growth_battle(alice, bob, types, alice_party)
    client.force_login(bob)
    assert client.post(f"{battle.get_absolute_url()}growth/").status_code == 404
    battle.refresh_from_db()
    assert not battle.counts_for_growth and not Growth.objects.exists()
    client.force_login(alice)
    assert client.post(f"{battle.get_absolute_url()}growth/").status_code == 302
    battle.refresh_from_db()
    assert battle.counts_for_growth and battle.growth_applied
    # Both members' Memeyori grow in their own collections.
    owners = set(Growth.objects.values_list("owner__username", flat=True))
    for growth in Growth.objects.select_related("memeyori"):
        assert growth.memeyori.owner_id == growth.owner_id
        assert growth.memeyori.rank == growth.rank_after
    assert owners and owners <= {"alice", "bob"}
    # Twice is refused, and nothing grows again.
    count = Growth.objects.count()
    client.post(f"{battle.get_absolute_url()}growth/")
    assert Growth.objects.count() == count


def alice_party_shared(party):
    party.visibility = "tables"
    party.save(update_fields=["visibility"])
    return party


def test_a_battle_that_fails_half_way_leaves_nothing_behind(
    alice, bob, types, alice_party, monkeypatch
):
    table = table_create(gm=alice, name="Alone")
    rival = make_team(bob, types, "Rival", visibility="public", rank=3)

    def broken(**kwargs):
        Memeyori.objects.filter(owner=alice).update(rank=5)
        raise RuntimeError("disk full")

    monkeypatch.setattr(services, "_apply_growth", broken)
    with pytest.raises(RuntimeError):
        run(alice, alice_party, rival, counts_for_growth=True, table=table)
    assert not Battle.objects.exists()
    assert set(Memeyori.objects.filter(owner=alice).values_list("rank", flat=True)) == {1}


def test_the_viewer_shows_portrait_thumbnails_or_the_generated_art(client, alice, types):
    party = make_team(alice, types, "Faces", visibility="public")
    pictured = party.slots.first().memeyori
    pictured.portrait_thumb.name = "portraits/thumbs/face.png"
    pictured.save(update_fields=["portrait_thumb"])
    battle = run(alice, party, party, visibility=BattleVisibility.PUBLIC)
    html = client.get(battle.get_absolute_url(), {"round": 0, "step": 0}).content.decode()
    # Through the portrait view, which applies the character's visibility (issue 11.5).
    thumb = reverse(
        "character_portrait", kwargs={"kind": "memeyori", "code": pictured.code, "size": "thumb"}
    )
    assert f'src="{thumb}?v=face' in html
    # The others show their generated art, as their cards do (issue 41.9), never the Type's
    # symbol in a circle; the art view answers with the picture.
    assert "portrait placeholder" not in html
    other = party.slots.last().memeyori
    art = reverse(
        "print_default_art", kwargs={"kind": "memeyori", "code": other.code, "look": "today"}
    )
    assert f'src="{art}"' in html
    response = client.get(art)
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    # A made-up snapshot's character (no code) keeps the symbol.
    assert viewer._portrait_url({"kind": "memeyori", "code": "", "portrait": ""}) == ""


def test_the_viewer_opens_on_the_teams_before_round_1(client, alice, alice_party, bob_party):
    battle = run(alice, alice_party, bob_party, visibility=BattleVisibility.PUBLIC)
    view = client.get(battle.get_absolute_url()).context["view"]
    setup_length = battle.frames[1]["first_event"]
    assert (view["round"], view["step"]) == (0, setup_length)
    assert not view["ended"] and all(side["field"] for side in view["sides"])


def test_the_result_stays_hidden_until_the_viewer_reaches_it(client, alice, alice_party, bob_party):
    battle = next(
        b
        for seed in range(40)
        if (b := run(alice, alice_party, bob_party, seed=seed, visibility="public")).winner
        is not None
    )
    winner = battle.name_a if battle.winner == 0 else battle.name_b
    start = client.get(battle.get_absolute_url()).content.decode()
    assert "wins" not in start and f"{battle.rounds} rounds" in start
    assert "wins" not in client.get("/battles/public/").content.decode()
    end = client.get(battle.get_absolute_url(), {"round": battle.rounds, "step": 999})
    assert f"{winner} wins." in end.content.decode()


def test_the_owner_may_show_the_result_in_previews(client, alice, alice_party, bob_party):
    battle = run(alice, alice_party, bob_party, visibility=BattleVisibility.PUBLIC)
    hidden = client.get("/battles/public/").content.decode()
    client.force_login(alice)
    response = client.post(
        f"{battle.get_absolute_url()}share/", {"action": "show_result", "show_result": "on"}
    )
    assert response.status_code == 302
    battle.refresh_from_db()
    assert battle.show_result
    shown = client.get("/battles/public/").content.decode()
    assert battle.result_text not in hidden and battle.result_text in shown


def test_the_preview_image_hides_the_winner_unless_shown(alice, alice_party, bob_party):
    from battles import og

    battle = next(
        b
        for seed in range(40)
        if (b := run(alice, alice_party, bob_party, seed=seed)).winner is not None
    )
    hidden = og.render(battle)
    battle.show_result = True
    assert og.render(battle) != hidden


def test_round_navigation_lands_on_a_rounds_first_event(client, alice, alice_party, bob_party):
    battle = run(alice, alice_party, bob_party, visibility=BattleVisibility.PUBLIC)
    assert battle.rounds >= 2
    page = client.get(battle.get_absolute_url(), {"round": 1, "step": 4})
    links = page.context["links"]
    assert links["next_round"].endswith("?round=2&step=1")
    assert links["prev_round"].endswith("?round=1&step=1")
    jumped = client.get(battle.get_absolute_url(), {"round": 2}).context["view"]
    assert (jumped["round"], jumped["step"]) == (2, 1)
    assert jumped["events"][0]["current"] and not jumped["events"][1]["done"]


def test_controls_that_need_javascript_are_hidden_without_it(client, alice, alice_party):
    battle = run(alice, alice_party, alice_party, visibility=BattleVisibility.PUBLIC)
    html = client.get(battle.get_absolute_url()).content.decode()
    assert '<div class="viewer-controls" data-viewer-controls hidden>' in html
    assert "Skip to the result" in html


def test_it_refuses_growth_at_a_table_from_a_member_who_is_not_its_gm(
    client, alice, bob, types, alice_party, bob_party
):
    table = table_create(gm=alice, name="Sunday")
    TableMembership.objects.create(table=table, user=bob)
    client.force_login(bob)
    response = client.post(
        "/battles/new/",
        {
            "party_a": bob_party.code,
            "party_b": bob_party.code,
            "seed": 1,
            "policy_a": "greedy",
            "policy_b": "greedy",
            "visibility": "private",
            "table": table.code,
            "counts_for_growth": "on",
        },  # fmt: skip
    )
    assert response.status_code == 400
    assert "Only the table's GM" in response.context["form"].errors["counts_for_growth"][0]
    assert not Battle.objects.exists()


def test_my_battles_come_fifty_to_a_page_newest_first(client, alice, db):
    from battles.models import Battle
    from battles.views import PAGE_SIZE

    client.force_login(alice)
    Battle.objects.bulk_create(
        Battle(
            owner=alice,
            name_a=f"A{n}",
            name_b="B",
            snapshot={},
            seed=n,
            log={},
            frames=[],
            rounds=1,
        )
        for n in range(PAGE_SIZE + 3)
    )
    first = client.get(reverse("battle_list")).content.decode()
    assert first.count("<tr><td>") == PAGE_SIZE
    assert "Page 1 of 2" in first and "?page=2" in first
    second = client.get(reverse("battle_list"), {"page": 2}).content.decode()
    assert second.count("<tr><td>") == 3
    assert client.get(reverse("battle_list"), {"page": "x"}).status_code == 200
