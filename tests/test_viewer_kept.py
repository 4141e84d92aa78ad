"""A stored battle's viewer at a step is rendered once per web process and kept
(CACHES["fragments"]): what every reader sees is kept, what depends on the reader or the
moment (presenting, whether the battle counts for growth) never comes from another's copy."""

import pytest

from battles import viewer
from battles.models import BattleVisibility

from .test_battle_pages import growth_battle, make_team, run


@pytest.fixture
def built(monkeypatch):
    """The (round, step) of each viewer the site builds, in order."""
    positions = []
    real_build = viewer.build
    monkeypatch.setattr(viewer, "build", lambda *a: positions.append(a[3:5]) or real_build(*a))
    return positions


def _public_battle(alice, bob, types):
    mine, theirs = make_team(alice, types, "Sunrise"), make_team(bob, types, "Night")
    return run(alice, mine, theirs, visibility=BattleVisibility.PUBLIC)


def _step(client, url, round_no, step):
    response = client.get(url, {"round": round_no, "step": step}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    return response.content.decode()


def test_a_step_is_built_once_and_served_again_unchanged(client, built, alice, bob, types):
    battle = _public_battle(alice, bob, types)
    url = battle.get_absolute_url()
    first = _step(client, url, 1, 2)
    again = _step(client, url, 1, 2)
    assert again == first and built == [(1, 2)]
    # Another step, and the same step behind the share link (whose links differ), are built.
    assert _step(client, url, 1, 3) != first
    shared = _step(client, battle.share_url(), 1, 2)
    assert built == [(1, 2), (1, 3), (1, 2)]
    assert f'href="{battle.share_url()}?round=1&amp;step=3"' in shared
    assert f'href="{url}?round=1&amp;step=3"' in first


def test_a_kept_step_shows_each_reader_only_the_presenting_controls_they_may_use(
    client, alice, bob, types
):
    battle = _public_battle(alice, bob, types)
    url = battle.get_absolute_url()
    present = "Present this battle"
    client.force_login(alice)
    assert present in _step(client, url, 1, 1)
    client.force_login(bob)
    assert present not in _step(client, url, 1, 1)
    # And the other way round, at a step bob fills first.
    assert present not in _step(client, url, 1, 2)
    client.force_login(alice)
    owners = _step(client, url, 1, 2)
    assert present in owners and 'name="round" value="1"' in owners
    assert 'name="step" value="2"' in owners


def test_the_growth_heading_follows_the_gm_after_the_last_step_was_kept(client, alice, bob, types):
    battle = growth_battle(alice, bob, types, make_team(alice, types, "Sunrise"))
    last = len(battle.frames) - 1
    end = len(battle.log["events"]) - battle.frames[last]["first_event"]
    url = battle.get_absolute_url()
    client.force_login(alice)
    assert "Growth this battle would have given" in _step(client, url, last, end)
    assert client.post(f"{url}growth/").status_code == 302
    counted = _step(client, url, last, end)
    assert "<h3>Growth</h3>" in counted and "would have given" not in counted


def test_a_template_edited_under_the_dev_server_is_seen_at_once(
    client, built, settings, alice, bob, types
):
    from django.utils.autoreload import file_changed

    battle = _public_battle(alice, bob, types)
    url = battle.get_absolute_url()
    _step(client, url, 1, 1)
    # What the autoreloader sends when a file it watches changes.
    file_changed.send(sender=None, file_path=settings.BASE_DIR / "templates/battles/viewer.html")
    _step(client, url, 1, 1)
    assert built == [(1, 1), (1, 1)]
