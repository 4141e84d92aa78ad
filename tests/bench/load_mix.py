"""The traffic `make load` sends: which endpoints, how often, with which demo objects.

Everything is found on the demo's own pages (codes, share links), logged in as the demo
user, so the mix exercises the same paths a player's browser does.
"""

import re
from urllib.parse import urlencode

from tests.bench.load import DEMO_RUN_PASSWORD, Client, Endpoint, codes_on

CREDENTIALS = ("demo", DEMO_RUN_PASSWORD)
LOGIN_PATH = "/accounts/login/"


def _battle(client: Client, party_a: str, party_b: str, seed: int) -> str:
    """Run an unlisted demo battle through the site; return its viewer path."""
    client.request("GET", "/battles/new/")
    status, _ = client.request(
        "POST", "/battles/new/",
        {"party_a": party_a, "party_b": party_b, "seed": seed, "policy_a": "greedy",
         "policy_b": "greedy", "visibility": "unlisted",
         "csrfmiddlewaretoken": client.cookies.get("csrftoken", "")},
    )  # fmt: skip
    if status != 302:
        raise SystemExit(f"running a demo battle failed with {status}")
    _, html = client.request("GET", "/battles/")
    return re.findall(r'href="(/battles/[0-9a-f-]{36}/)"', html.decode())[0]


def endpoints(client: Client) -> list[Endpoint]:
    client.login(*CREDENTIALS, LOGIN_PATH)
    characters = codes_on(client, "/", r'href="(/c/memeyori/[0-9a-f-]{36}/)"')[:6]
    parties = codes_on(client, "/battles/new/", r'<option value="([0-9a-f-]{36})"')
    viewer = _battle(client, parties[0], parties[1], seed=7)
    _, html = client.request("GET", viewer)
    share = re.findall(r'href="[^"]*(/battles/s/[A-Za-z0-9_-]{43}/)"', html.decode())[0]
    jump = re.search(r'<select id="jump-round".*?</select>', html.decode(), re.S).group(0)
    rounds = max(int(r) for r in re.findall(r'<option value="(\d+)"', jump))
    type_pk = codes_on(client, "/build/memeyori/", r'<option value="(\d+)"')[0]
    typed = {"name": "Loadtest", "type": type_pk, "rank": 3, "strength": 6, "endurance": 5,
             "iq": 4, "wit": 3, "speed": 5, "aura": 4, "vs_evasion": 2}  # fmt: skip
    stats = [
        f"{path}stats/?" + urlencode({**typed, "strength": s}) for path in characters[:3]
        for s in (4, 7, 12)
    ]  # fmt: skip
    battle_body = {"party_a": parties[0], "party_b": parties[2], "seed": 11, "policy_a": "greedy",
                   "policy_b": "greedy", "visibility": "private"}  # fmt: skip
    return [
        *[Endpoint("live stats (htmx)", "GET", url, 6, htmx=True) for url in stats],
        *[Endpoint("character page", "GET", path, 2) for path in characters],
        *[
            Endpoint("viewer step (htmx)", "GET", f"{viewer}?round={r}&step=1", 1, htmx=True)
            for r in range(1, rounds + 1)
        ],  # fmt: skip
        Endpoint("viewer page", "GET", f"{viewer}?round=1", 2),
        Endpoint("share link", "GET", share, 4),
        Endpoint("home", "GET", "/", 2),
        Endpoint("mastercard pdf", "GET", f"/print{characters[0]}mastercard.pdf", 1),
        Endpoint("battle run", "POST", "/battles/new/", 1, body=battle_body),
    ]
