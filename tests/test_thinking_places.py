"""Nothing thinks in a page (issue 39.2-3): a battle with a thinking policy is played by a
task worker, its page shows the progress, and a lab's lookahead battle opened from its
list is made once, by a worker, at its owner's asking, and kept; a visitor never starts
one. Battles of cheap policies (a few milliseconds each) still run in the page."""

import pytest
from django.urls import reverse
from django_tasks_db.models import DBTaskResult

from battles import making
from battles.lab import services as lab_services
from battles.lab.models import LabBattle
from battles.models import Battle, BattleJob, JobStatus
from cards import workers
from cards.demo import seed_demo
from cards.models import Party


@pytest.fixture
def demo(db):
    seed_demo()
    return {p.name: p for p in Party.objects.all()}


def post_battle(client, demo, policy_a="lookahead", policy_b="greedy", **fields):
    data = {"party_a": demo["Cold Front"].code, "party_b": demo["Wild Bunch"].code,
            "seed": 3, "policy_a": policy_a, "policy_b": policy_b, "visibility": "private",
            **fields}  # fmt: skip
    return client.post(reverse("battle_new"), data)


def run_queued(task_path_end: str) -> list:
    """Run, as a worker would, every queued task whose path ends so; returns their values."""
    values = []
    for row in DBTaskResult.objects.filter(status="READY").order_by("enqueued_at"):
        if row.task_path.endswith(task_path_end):
            values.append(row.task.call(*row.args_kwargs["args"], **row.args_kwargs["kwargs"]))
            DBTaskResult.objects.filter(pk=row.pk).update(status="SUCCESSFUL")
    return values


def test_a_lookahead_battle_is_played_by_a_worker_and_its_page_shows_the_wait(
    client, alice, demo, queued_tasks
):
    client.force_login(alice)
    response = post_battle(client, demo)
    job = BattleJob.objects.get()
    assert response.status_code == 302 and response.url == job.get_absolute_url()
    assert not Battle.objects.exists()  # nothing was played in the page
    row = DBTaskResult.objects.get(task_path="battles.making.make_battle")
    assert (row.queue_name, row.priority) == (workers.INTERACTIVE, workers.THINKING_PRIORITY)
    page = client.get(job.get_absolute_url())
    assert page.status_code == 200 and "A task worker plays it" in page.text
    partial = client.get(job.get_absolute_url(), {"progress": 1}, headers={"HX-Request": "true"})
    assert 'id="job-progress"' in partial.text and "<html" not in partial.text
    assert run_queued("make_battle") == [str(Battle.objects.get().code)]
    battle = Battle.objects.get()
    assert (battle.owner, battle.policy_a, battle.seed) == (alice, "lookahead", 3)
    assert client.get(job.get_absolute_url()).url == battle.get_absolute_url()
    done = client.get(job.get_absolute_url(), {"progress": 1}, headers={"HX-Request": "true"})
    assert done["HX-Redirect"] == battle.get_absolute_url()


def test_a_greedy_battle_is_still_run_in_the_page(client, alice, demo, queued_tasks):
    client.force_login(alice)
    response = post_battle(client, demo, policy_a="greedy")
    battle = Battle.objects.get()
    assert response.url == battle.get_absolute_url()
    assert not BattleJob.objects.exists()


def test_a_person_has_at_most_two_battles_being_played(client, alice, bob, demo, queued_tasks):
    client.force_login(alice)
    for _ in range(making.ACTIVE_PER_PERSON):
        assert post_battle(client, demo).status_code == 302
    refused = post_battle(client, demo)
    assert refused.status_code == 400
    assert "You already have 2 battles being played" in refused.text
    assert BattleJob.objects.count() == making.ACTIVE_PER_PERSON
    client.force_login(bob)  # another person's turn is theirs
    assert post_battle(client, demo, party_a=demo["Wild Bunch"].code).status_code == 302


def test_a_refused_battle_says_why_on_the_form_and_queues_nothing(client, alice, demo):
    mine = Party.objects.create(owner=alice, name="Empty", level=1)
    client.force_login(alice)
    refused = post_battle(client, demo, party_a=mine.code)
    assert refused.status_code == 400 and "a party needs one to battle" in refused.text
    assert not BattleJob.objects.exists()


def test_a_battle_job_is_its_owners_alone(client, alice, bob, demo, queued_tasks):
    client.force_login(alice)
    post_battle(client, demo)
    job = BattleJob.objects.get()
    client.force_login(bob)
    assert client.get(job.get_absolute_url()).status_code == 404
    client.logout()
    assert client.get(job.get_absolute_url()).status_code == 302  # to the log-in page


def test_a_job_whose_party_went_away_fails_and_says_so(client, alice, demo, queued_tasks):
    client.force_login(alice)
    post_battle(client, demo, party_a=demo["Wild Bunch"].code)
    Party.objects.filter(pk=demo["Wild Bunch"].pk).delete()
    assert run_queued("make_battle") == [""]
    job = BattleJob.objects.get()
    assert job.status == JobStatus.FAILED and "deleted before it was played" in job.error
    assert "deleted before it was played" in client.get(job.get_absolute_url()).text


@pytest.mark.django_db(transaction=True)
def test_without_a_task_queue_the_battle_is_played_on_the_commit_and_opens(client, alice):
    """The immediate backend (no worker to wait for) runs the job as the request commits."""
    seed_demo()
    demo = {p.name: p for p in Party.objects.all()}
    client.force_login(alice)
    response = post_battle(client, demo)
    job = BattleJob.objects.get()
    assert job.status == JobStatus.DONE
    assert response.url == job.battle.get_absolute_url()


# ---- A lab's battles


def lookahead_lab(owner, demo, visibility="public"):
    """A lab of lookahead battles, not run (its battles open from the snapshot alone)."""
    lab = lab_services.lab_create(
        owner=owner, party_a=demo["Sunrise Squad"], party_b=demo["Night Shift"],
        battles=100, seed=7, policy_a="lookahead",
    )  # fmt: skip
    if visibility != "private":
        lab_services.lab_set_visibility(lab=lab, visibility=visibility)
        lab.refresh_from_db()
    DBTaskResult.objects.all().delete()  # its chunks: not what these tests are about
    return lab


def test_a_visitor_opening_a_lookahead_labs_battle_never_starts_it(
    client, alice, bob, demo, queued_tasks
):
    lab = lookahead_lab(alice, demo)
    urls = [
        reverse("lab_open", kwargs={"code": lab.code}),
        reverse("lab_shared_open", kwargs={"token": lab.share_token}),
    ]
    for who in (None, bob):
        if who:
            client.force_login(who)
        for url in urls:
            page = client.get(url, {"m": 0, "i": 3})
            assert page.status_code == 200
            assert "This battle is not made yet" in page.text
            assert "Only the lab's owner can make it" in page.text
            assert "<form" not in page.text.split('id="not-made"')[1]
        assert client.post(urls[0] + "?m=0&i=3").status_code == 404
    assert not Battle.objects.exists() and not BattleJob.objects.exists()
    assert not DBTaskResult.objects.exists()


def test_the_owner_has_a_lookahead_labs_battle_made_once_and_kept(
    client, alice, demo, queued_tasks
):
    lab = lookahead_lab(alice, demo, visibility="private")
    url = reverse("lab_open", kwargs={"code": lab.code}) + "?m=0&i=3"
    client.force_login(alice)
    page = client.get(url)
    assert "Make battle 3 and keep it" in page.text and not BattleJob.objects.exists()
    response = client.post(url)
    job = BattleJob.objects.get()
    assert response.url == job.get_absolute_url() and not Battle.objects.exists()
    assert client.post(url).url == job.get_absolute_url()  # asked twice: one job
    assert "follow its progress" in client.get(url).text
    run_queued("make_battle")
    kept = LabBattle.objects.get()
    assert (kept.i, kept.battle.seed) == (3, lab_services.stats.battle_seed(lab.seed, 3))
    assert client.get(url).url == kept.battle.get_absolute_url()
    assert client.post(url).url == kept.battle.get_absolute_url()
    assert BattleJob.objects.count() == 1 and Battle.objects.count() == 1


def test_a_greedy_labs_battle_still_opens_at_once(client, alice, demo, queued_tasks):
    lab = lab_services.lab_create(
        owner=alice, party_a=demo["Sunrise Squad"], party_b=demo["Night Shift"],
        battles=100, seed=7,
    )  # fmt: skip
    client.force_login(alice)
    page = client.get(reverse("lab_open", kwargs={"code": lab.code}), {"m": 0, "i": 3})
    assert page.status_code == 200 and "not made yet" not in page.text
    assert not BattleJob.objects.exists()
