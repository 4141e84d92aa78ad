"""The matchup lab: Wilson intervals, tallies that merge, chunks counted once, progress
while running, battle i in the viewer, "what if", sharing and the command line."""

import json
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.urls import reverse
from hypothesis import given, settings
from hypothesis import strategies as st

from battles.engine.summary import simulate_summary
from battles.lab import services, stats, tasks
from battles.lab.models import Lab, LabBattle, LabStatus
from battles.lab.runner import run_range
from battles.models import Battle
from battles.snapshot import demo_snapshot
from cards.demo import seed_demo
from cards.models import Memeyori, Party

# ---- Wilson and Newcombe against published values


@pytest.mark.parametrize(
    ("x", "n", "low", "high"),
    [
        # Newcombe (1998), "Two-sided confidence intervals for the single proportion",
        # Table I, method 3 (Wilson score without continuity correction).
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
        # 5 of 10: symmetric about one half.
        (5, 10, 0.2366, 0.7634),
    ],
)
def test_wilson_intervals_match_published_values(x, n, low, high):
    lo, hi = stats.wilson(x, n)
    assert lo == pytest.approx(low, abs=5e-5)
    assert hi == pytest.approx(high, abs=5e-5)


def test_newcombes_difference_interval_matches_his_worked_example():
    # Newcombe (1998), "Interval estimation for the difference between independent
    # proportions", example (a): 56/70 - 48/80, method 10: +0.0524 to +0.3339.
    d, low, high = stats.newcombe_difference(56, 70, 48, 80)
    assert d == pytest.approx(0.2)
    assert low == pytest.approx(0.0524, abs=5e-5)
    assert high == pytest.approx(0.3339, abs=5e-5)


@given(st.integers(1, 5000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_a_wilson_interval_holds_the_observed_rate_inside_zero_to_one(xn):
    x, n = xn
    low, high = stats.wilson(x, n)
    assert 0.0 <= low <= x / n <= high <= 1.0
    # Twice the battles, the same rate: a narrower interval.
    low2, high2 = stats.wilson(2 * x, 2 * n)
    assert high2 - low2 < high - low


@given(st.integers(1, 2000), st.integers(1, 2000), st.data())
def test_a_difference_interval_holds_the_difference_inside_minus_one_to_one(n1, n2, data):
    x1 = data.draw(st.integers(0, n1))
    x2 = data.draw(st.integers(0, n2))
    d, low, high = stats.newcombe_difference(x1, n1, x2, n2)
    assert -1.0 <= low <= d <= high <= 1.0
    assert d == pytest.approx(x1 / n1 - x2 / n2)


def test_battle_seeds_follow_the_documented_rule():
    import hashlib

    digest = hashlib.sha256(b"memeyori-lab/1:7:0").digest()
    assert stats.battle_seed(7, 0) == int.from_bytes(digest[:4], "big")
    seeds = {stats.battle_seed(7, i) for i in range(1000)}
    assert len(seeds) == 1000
    assert all(0 <= s < 2**32 for s in seeds)
    assert stats.battle_seed(8, 0) not in seeds


# ---- Tallies


SNAP = demo_snapshot("Sunrise Squad", "Night Shift")


@settings(max_examples=8, deadline=None)
@given(st.lists(st.integers(1, 39), max_size=4, unique=True), st.randoms())
def test_chunks_merged_in_any_order_equal_one_run(cuts, rnd):
    whole = run_range(SNAP, lab_seed=3, start=0, end=40, policies=("greedy", "random"))
    bounds = [0, *sorted(cuts), 40]
    parts = [
        run_range(SNAP, lab_seed=3, start=a, end=b, policies=("greedy", "random"))
        for a, b in zip(bounds, bounds[1:], strict=False)
    ]
    rnd.shuffle(parts)
    assert stats.merge_all(parts) == whole


def test_a_tally_counts_what_the_summaries_say():
    tally = run_range(SNAP, lab_seed=11, start=0, end=30, policies=("greedy", "greedy"))
    summaries = [
        simulate_summary(SNAP, seed=stats.battle_seed(11, i), policies=("greedy", "greedy"))
        for i in range(30)
    ]
    assert tally["battles"] == 30
    assert tally["wins"] == [
        sum(s["winner"] == 0 for s in summaries),
        sum(s["winner"] == 1 for s in summaries),
    ]
    assert tally["draws"] == sum(s["winner"] is None for s in summaries)
    assert tally["rounds_sum"] == sum(s["rounds"] for s in summaries)
    assert tally["combatants"]["A1"]["damage_dealt"] == sum(
        s["combatants"]["A1"]["damage_dealt"] for s in summaries
    )
    # The closest battle: among decided ones, the winner kept the least of its HP.
    decided = [(s["hp_left"][s["winner"]], -s["rounds"], i) for i, s in enumerate(summaries)
               if s["winner"] is not None]  # fmt: skip
    assert tally["closest"]["i"] == min(decided)[2]


def summary_of(winner, rounds, hp, seed=0):
    side = dict.fromkeys(stats.SIDE_KEYS, 0)
    return {"seed": seed, "winner": winner, "rounds": rounds, "hp_left": hp,
            "sides": [dict(side), dict(side)], "combatants": {}, "cards": {}}  # fmt: skip


def test_the_biggest_upset_is_the_underdogs_most_one_sided_win():
    tally = stats.empty_tally()
    battles = [
        (0, 5, [0.9, 0]), (0, 6, [0.2, 0]), (0, 7, [0.5, 0]),
        (1, 9, [0, 0.3]), (1, 4, [0, 0.7]), (None, 30, [0, 0]),
    ]  # fmt: skip
    for i, (w, r, hp) in enumerate(battles):
        stats.add_summary(tally, summary_of(w, r, hp, seed=100 + i), i)
    assert stats.upset(tally)["i"] == 4  # side B wins less often; its 70% win
    assert tally["closest"]["i"] == 1  # side A won keeping only 20%
    even = stats.empty_tally()
    stats.add_summary(even, summary_of(0, 5, [0.5, 0]), 0)
    stats.add_summary(even, summary_of(1, 5, [0, 0.5]), 1)
    assert stats.upset(even) is None


# ---- The lab in the database


@pytest.fixture
def demo(db):
    seed_demo()
    return {p.name: p for p in Party.objects.all()}


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(services, "CHUNK", 50)


def new_lab(user, demo, *, run=True, battles=100, b="Night Shift", **kw) -> Lab:
    lab = services.lab_create(
        owner=user, party_a=demo["Sunrise Squad"], party_b=demo[b] if b else None,
        battles=battles, seed=7, **kw,
    )  # fmt: skip
    if run:
        services.run_inline(lab)
    lab.refresh_from_db()
    return lab


def test_progress_is_reported_while_the_lab_runs(
    client, alice, demo, small_chunks, django_capture_on_commit_callbacks
):
    client.force_login(alice)
    # The tasks are enqueued on commit; hold them back and run the chunks one by one.
    with django_capture_on_commit_callbacks(execute=False):
        response = client.post(
            reverse("lab_new"),
            {"party_a": demo["Sunrise Squad"].code, "against": "one",
             "party_b": demo["Night Shift"].code, "battles": 150, "seed": 7,
             "policy_a": "greedy", "policy_b": "greedy", "visibility": "private"},
        )  # fmt: skip
    lab = Lab.objects.get()
    assert response.url == lab.get_absolute_url()
    page = client.get(response.url)
    assert 'max="150" value="0"' in page.content.decode()
    assert '<noscript><meta http-equiv="refresh"' in page.content.decode()
    chunks = list(lab.chunks.values_list("start", flat=True))
    assert chunks == [0, 50, 100]
    services.run_chunk(lab_code=str(lab.code), matchup=0, start=50)
    poll = client.get(response.url, {"progress": 1}, headers={"HX-Request": "true"})
    assert "50 of 150 battles (33%)" in poll.content.decode()
    assert "<h1>" not in poll.content.decode()  # only the partial
    lab.refresh_from_db()
    assert lab.status == LabStatus.RUNNING
    services.run_inline(lab)
    lab.refresh_from_db()
    assert (lab.status, lab.done) == (LabStatus.DONE, 150)
    poll = client.get(response.url, {"progress": 1}, headers={"HX-Request": "true"})
    assert poll.headers["HX-Refresh"] == "true"
    page = client.get(response.url).content.decode()
    assert "The closest battle" in page
    assert "Outcomes with 95% Wilson intervals" in page
    assert "<svg" in page


def test_the_tasks_run_the_whole_lab_with_the_default_backend(
    alice, demo, small_chunks, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        lab = new_lab(alice, demo, run=False)
    lab.refresh_from_db()
    assert (lab.status, lab.done, lab.total) == (LabStatus.DONE, 100, 100)


def test_a_chunk_run_twice_is_counted_once(alice, demo, small_chunks):
    lab = new_lab(alice, demo, run=False)
    assert services.run_chunk(lab_code=str(lab.code), matchup=0, start=0)
    assert not services.run_chunk(lab_code=str(lab.code), matchup=0, start=0)
    lab.refresh_from_db()
    assert lab.done == 50


def test_the_labs_numbers_are_the_command_lines_numbers(alice, demo, small_chunks):
    lab = new_lab(alice, demo, battles=120)
    out = StringIO()
    call_command("lab", "Sunrise Squad", "Night Shift", "--battles", "120", "--seed", "7",
                 "--json", stdout=out)  # fmt: skip
    result = json.loads(out.getvalue())
    tally = lab.matchups.get().tally
    assert (result["battles"], result["wins_a"], result["wins_b"], result["draws"]) == (
        120, tally["wins"][0], tally["wins"][1], tally["draws"],
    )  # fmt: skip
    low, high = stats.wilson(tally["wins"][0], 120)
    assert result["ci95_a"] == [round(low, 6), round(high, 6)]
    assert {"rounds", "combatants", "cards", "sides", "closest", "upset"} <= set(result)
    assert result["combatants"][0]["name"] == "Glimmerfox"


def test_battle_i_opens_in_the_viewer_with_the_labs_result(client, alice, demo, small_chunks):
    lab = new_lab(alice, demo)
    matchup = lab.matchups.get()
    closest = matchup.tally["closest"]
    client.force_login(alice)
    url = reverse("lab_open", kwargs={"code": lab.code})
    # Shown at its lab's address, played from the snapshot and stored nowhere (18.9).
    winner = "Sunrise Squad" if closest["winner"] == 0 else "Night Shift"
    query = {"m": 0, "i": closest["i"], "round": closest["rounds"], "step": 999}
    viewer = client.get(url, query).content.decode()
    assert f"★ {winner} wins." in viewer
    assert f"seed <code>{closest['seed']}</code>" in viewer
    assert f'href="{url}?m=0&amp;i={closest["i"]}&amp;round=' in viewer  # steps keep m, i
    assert Battle.objects.count() == 0
    # Its owner may keep it, to share or present it: one record, reused after.
    response = client.post(url + f"?m=0&i={closest['i']}")
    battle = Battle.objects.get()
    assert response.url == battle.get_absolute_url()
    assert (battle.winner, battle.rounds, battle.seed) == (
        closest["winner"], closest["rounds"], closest["seed"],
    )  # fmt: skip
    assert client.get(url, {"m": 0, "i": closest["i"]}).url == battle.get_absolute_url()
    # Any battle: the one the lab counted, to the summary.
    i = 37
    client.post(url + f"?m=0&i={i}")
    opened = LabBattle.objects.get(i=i).battle
    expected = simulate_summary(
        matchup.snapshot, seed=stats.battle_seed(7, i), policies=("greedy", "greedy")
    )
    assert (opened.winner, opened.rounds) == (expected["winner"], expected["rounds"])
    client.post(url + f"?m=0&i={i}")
    assert Battle.objects.count() == 2
    assert client.get(url, {"m": 0, "i": 100}).status_code == 404
    assert client.get(url, {"m": 0, "i": "x"}).status_code == 400


def test_the_form_says_what_is_wrong_next_to_the_field(client, alice, demo):
    client.force_login(alice)
    response = client.post(
        reverse("lab_new"),
        {"party_a": demo["Sunrise Squad"].code, "against": "one", "battles": 50,
         "seed": 7, "policy_a": "greedy", "policy_b": "greedy", "visibility": "private"},
    )  # fmt: skip
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert "Choose side B" in errors["party_b"][0]
    assert "100" in errors["battles"][0]
    assert not Lab.objects.exists()


def test_the_form_refuses_a_party_the_person_cannot_see(client, alice, bob, demo):
    hidden = Party.objects.create(owner=bob, name="Bob's secret")
    client.force_login(alice)
    response = client.post(
        reverse("lab_new"),
        {"party_a": hidden.code, "against": "one", "party_b": demo["Night Shift"].code,
         "battles": 100, "seed": 7, "policy_a": "greedy", "policy_b": "greedy",
         "visibility": "private"},
    )  # fmt: skip
    assert "party_a" in response.context["form"].errors
    assert not Lab.objects.exists()


def test_a_lab_against_the_field_meets_every_visible_party(client, alice, demo, small_chunks):
    lab = new_lab(alice, demo, b=None)
    names = [m.name_b for m in lab.matchups.all()]
    assert names == sorted(set(demo) - {"Sunrise Squad"})
    assert lab.total == 100 * len(names)
    client.force_login(alice)
    page = client.get(lab.get_absolute_url()).content.decode()
    assert "Results by opponent" in page and "All opponents together" in page
    page = client.get(lab.get_absolute_url(), {"vs": 1}).content.decode()
    assert f"Sunrise Squad vs {names[1]}" in page


def test_what_if_runs_one_change_on_the_same_seeds(client, alice, demo, small_chunks):
    lab = new_lab(alice, demo)
    newcomer = Memeyori.objects.exclude(
        code__in=[row["code"] for row in lab.matchups.get().snapshot["sides"][0]["memeyori"]]
    ).first()
    client.force_login(alice)
    url = reverse("lab_what_if", kwargs={"code": lab.code})
    refused = client.post(url, {"kind": "replace", "memeyori": newcomer.code})
    assert "Choose which Memeyori" in refused.content.decode()
    response = client.post(url, {"kind": "replace", "slot": 1, "memeyori": newcomer.code})
    variant = Lab.objects.get(base=lab)
    services.run_inline(variant)
    assert response.url == variant.get_absolute_url()
    side = variant.matchups.get().snapshot["sides"][0]
    assert side["memeyori"][0]["name"] == newcomer.name
    assert variant.matchups.get().snapshot["sides"][1] == lab.matchups.get().snapshot["sides"][1]
    assert (variant.seed, variant.battles) == (lab.seed, lab.battles)
    page = client.get(variant.get_absolute_url()).content.decode()
    assert f"{newcomer.name} instead of Glimmerfox" in page
    assert "Side by side" in page


def test_each_new_sharing_gets_a_fresh_token_and_opened_battles_follow(
    client, alice, demo, small_chunks
):
    lab = new_lab(alice, demo)
    assert lab.share_token is None
    services.lab_set_visibility(lab=lab, visibility="unlisted")
    first = lab.share_token
    assert len(first) >= 43
    client.force_login(alice)
    client.post(reverse("lab_open", kwargs={"code": lab.code}) + "?m=0&i=3")
    battle = Battle.objects.get()
    assert battle.visibility == "unlisted" and battle.share_token
    services.lab_set_visibility(lab=lab, visibility="private")
    battle.refresh_from_db()
    assert (lab.share_token, battle.share_token, battle.visibility) == (None, None, "private")
    services.lab_set_visibility(lab=lab, visibility="unlisted")
    assert lab.share_token and lab.share_token != first
    client.logout()
    shared = reverse("lab_shared", kwargs={"token": lab.share_token})
    page = client.get(shared).content.decode()
    assert "Outcomes with 95% Wilson intervals" in page
    assert "Sharing" not in page and "What if" not in page  # the owner's controls
    opened = client.get(reverse("lab_shared_open", kwargs={"token": lab.share_token}),
                        {"m": 0, "i": 3})  # fmt: skip
    battle.refresh_from_db()
    assert opened.url == battle.share_url()
    assert client.get(opened.url).status_code == 200
    services.lab_share_revoke(lab=lab)
    assert client.get(shared).status_code == 404
    assert client.get(opened.url).status_code == 404


def test_a_random_policy_lab_is_reproducible(alice, demo, small_chunks):
    a = new_lab(alice, demo, policy_b="random")
    b = new_lab(alice, demo, policy_b="random")
    assert a.matchups.get().tally == b.matchups.get().tally


def test_a_failing_chunk_marks_the_lab_failed_and_says_why(client, alice, demo, small_chunks,
                                                           monkeypatch):  # fmt: skip
    lab = new_lab(alice, demo, run=False)

    def broken(*args, **kwargs):
        raise RuntimeError("engine fell over")

    monkeypatch.setattr(tasks, "run_range", broken)
    with pytest.raises(RuntimeError):
        services.run_chunk(lab_code=str(lab.code), matchup=0, start=0)
    lab.refresh_from_db()
    assert lab.status == LabStatus.FAILED
    # The other chunks see the failure and do nothing.
    assert not services.run_chunk(lab_code=str(lab.code), matchup=0, start=50)
    client.force_login(alice)
    page = client.get(lab.get_absolute_url()).content.decode()
    assert "The lab failed" in page and "engine fell over" in page


def test_one_person_runs_at_most_three_labs_at_once(alice, demo, small_chunks):
    for _ in range(services.MAX_RUNNING):
        new_lab(alice, demo, run=False)
    with pytest.raises(ValidationError, match="labs running"):
        new_lab(alice, demo, run=False)


def test_a_stuck_or_failed_lab_resumes_without_counting_twice(
    client, alice, demo, small_chunks, monkeypatch, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False):
        lab = new_lab(alice, demo, run=False)
    services.run_chunk(lab_code=str(lab.code), matchup=0, start=0)
    Lab.objects.filter(pk=lab.pk).update(status=LabStatus.FAILED, error="worker died")
    client.force_login(alice)
    page = client.get(lab.get_absolute_url()).content.decode()
    assert "Try the unfinished battles again" in page
    with django_capture_on_commit_callbacks(execute=True) as queued:
        response = client.post(reverse("lab_resume", kwargs={"code": lab.code}))
    assert response.status_code == 302
    assert len(queued) == 1  # one callback that enqueues the one unfinished chunk
    lab.refresh_from_db()
    assert (lab.status, lab.done, lab.error) == (LabStatus.DONE, 100, "")


def test_a_lab_from_an_earlier_engine_says_so_instead_of_showing_another_battle(
    client, alice, demo, small_chunks
):
    lab = new_lab(alice, demo)
    assert lab.log_format.startswith("memeyori-battle-log/")
    Lab.objects.filter(pk=lab.pk).update(log_format="memeyori-battle-log/0")
    client.force_login(alice)
    response = client.get(reverse("lab_open", kwargs={"code": lab.code}), {"m": 0, "i": 3})
    assert response.url == lab.get_absolute_url()
    assert not Battle.objects.exists()
    page = client.get(response.url).content.decode()
    assert "ran on an earlier engine" in page


def test_a_visitor_opening_battle_i_stores_nothing_and_cannot_keep_it(
    client, bob, alice, demo, small_chunks
):
    lab = new_lab(alice, demo)
    services.lab_set_visibility(lab=lab, visibility="public")
    url = reverse("lab_open", kwargs={"code": lab.code})
    for who in (None, bob):
        if who:
            client.force_login(who)
        for i in range(5):
            page = client.get(url, {"m": 0, "i": i})
            assert page.status_code == 200
            assert "Keep this battle" not in page.content.decode()
        assert client.post(url + "?m=0&i=1").status_code == 404
    assert Battle.objects.count() == LabBattle.objects.count() == 0
