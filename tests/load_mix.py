"""The traffic `make load` sends: which endpoints, how often, with which demo objects."""

from tests.load import Client, Endpoint, codes_on

CREDENTIALS = ("demo", "memeyori-demo")
LOGIN_PATH = "/accounts/login/"


def endpoints(client: Client) -> list[Endpoint]:
    characters = codes_on(client, "/", r'href="(/c/memeyori/[0-9a-f-]+/)"')
    return [
        Endpoint("home", "GET", "/", 2),
        Endpoint("type chart", "GET", "/types/", 1),
        *[Endpoint("character page", "GET", path, 1) for path in characters[:6]],
    ]
