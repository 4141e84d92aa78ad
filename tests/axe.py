"""axe-core in the browser journeys: every page they visit, no serious or critical issue.

`screenshot()` in tests/browser.py calls `check_a11y` first, so each step a journey
records is also checked; pages a journey visits without a screenshot call it directly.
"""

from axe_playwright_python.sync_playwright import Axe

FAILING_IMPACTS = {"serious", "critical"}
_axe = Axe()


def a11y_violations(page) -> list[str]:
    """One line per serious or critical violation: rule, impact, the first few targets."""
    # A page still loading has no document for axe to read (a race seen under CI's load).
    page.wait_for_load_state("load")
    results = _axe.run(page, options={"resultTypes": ["violations"]})
    lines = []
    for violation in results.response["violations"]:
        if violation["impact"] not in FAILING_IMPACTS:
            continue
        targets = [" ".join(map(str, node["target"])) for node in violation["nodes"][:3]]
        lines.append(f"{violation['id']} ({violation['impact']}): {violation['help']} at {targets}")
    return lines


def check_a11y(page):
    found = a11y_violations(page)
    assert not found, f"axe-core on {page.url}:\n" + "\n".join(found)
