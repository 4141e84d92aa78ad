"""Share links and preview images: a link once closed stays closed; private images stay private."""

import pytest
from django.urls import reverse

from battles.models import BattleVisibility
from tests.test_battle_pages import make_team, run


@pytest.fixture
def alice_party(alice, types):
    # Public: a battle is no more visible than its parties (issue 18.6), and these share.
    return make_team(alice, types, "Sunrise", visibility="public")


def share(client, battle, visibility):
    client.post(
        f"{battle.get_absolute_url()}share/", {"action": "visibility", "visibility": visibility}
    )
    battle.refresh_from_db()


def test_sharing_again_after_private_gives_a_fresh_link(client, alice, alice_party):  # noqa: F811
    battle = run(alice, alice_party, alice_party, visibility=BattleVisibility.UNLISTED)
    old = battle.share_url()
    client.force_login(alice)
    share(client, battle, "private")
    share(client, battle, "unlisted")
    assert battle.share_url() and battle.share_url() != old
    client.logout()
    assert client.get(old).status_code == 404
    assert client.get(f"{old}og.png").status_code == 404
    assert client.get(battle.share_url()).status_code == 200


def test_a_revoked_link_stays_dead_through_any_visibility_change(
    client,
    alice,
    alice_party,  # noqa: F811
):
    battle = run(alice, alice_party, alice_party, visibility=BattleVisibility.UNLISTED)
    old = battle.share_url()
    client.force_login(alice)
    client.post(f"{battle.get_absolute_url()}share/", {"action": "revoke"})
    for visibility in ("public", "private", "unlisted", "public"):
        share(client, battle, visibility)
        assert client.get(old).status_code == 404


def test_preview_images_of_private_and_unlisted_battles_are_never_stored(
    client,
    alice,
    alice_party,  # noqa: F811
):
    battle = run(alice, alice_party, alice_party)
    client.force_login(alice)
    private = client.get(reverse("battle_og", kwargs={"code": battle.code}))
    assert private.status_code == 200
    assert "no-store" in private["Cache-Control"] and "private" in private["Cache-Control"]
    assert "public" not in private["Cache-Control"]

    share(client, battle, "unlisted")
    client.logout()
    shared = client.get(f"{battle.share_url()}og.png")
    assert shared.status_code == 200
    # A revocable link: a shared cache must not keep answering after it is revoked.
    assert "no-store" in shared["Cache-Control"] and "public" not in shared["Cache-Control"]


def test_the_preview_image_of_a_public_battle_may_be_cached(client, alice, alice_party):  # noqa: F811
    battle = run(alice, alice_party, alice_party, visibility=BattleVisibility.PUBLIC)
    response = client.get(reverse("battle_og", kwargs={"code": battle.code}))
    assert response["Cache-Control"] == "public, max-age=3600"
