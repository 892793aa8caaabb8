"""Script payloads in every parameter of every page never execute, in a real browser.

Each page is opened with every computed and display parameter set to a payload that would set
``window.__pwned`` and open an alert if it ever ran (an ``<img onerror>``, a ``<script>``, a
``</script>`` break-out, a ``javascript:`` URL, a quote break-out), plus unknown parameters
named by the payloads.  Nothing may run: no dialog opens and the flag stays unset.  The page
still renders: its error list or the controls' error slots show the messages, and the plots are
drawn from the defaults.

Twice per page: under the app's Content-Security-Policy (where a leak would also be a CSP
violation, which the ``page`` fixture fails on), and with the policy removed, so escaping is
checked on its own and not only hidden behind the CSP.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from app.main import create_app  # noqa: F401  (registers every view)
from app.web.views import discover
from tests.browser.helpers import ALL_PLOTS_DRAWN

VIEWS = {view.name: view for view in discover()}
PAYLOADS = [
    '"><img src=x onerror="window.__pwned=1;alert(1)">',
    "<script>window.__pwned=1;alert(1)</script>",
    "</script><script>window.__pwned=1;alert(1)</script>",
    "javascript:window.__pwned=1;alert(1)",
    "'-(window.__pwned=1)-'",
    "{{7*7}}",
]


def attack_url(base_url: str, name: str) -> str:
    view = VIEWS[name]
    fields = [*view.params.model_fields, *view.display.model_fields]
    items = [(field, PAYLOADS[i % len(PAYLOADS)]) for i, field in enumerate(fields)]
    items += [(payload, payload) for payload in PAYLOADS]  # unknown names, reflected in the error list
    return f"{base_url}/{name}?{urlencode(items)}"


def without_csp(route):
    response = route.fetch()
    headers = {k: v for k, v in response.headers.items() if k.lower() != "content-security-policy"}
    route.fulfill(response=response, headers=headers)


# Without its Content-Security-Policy on every page: escaping alone must keep the payloads inert.
# With it on a few (tests/browser/test_security.py checks every page works under its policy).
WITH_CSP = ["why", "scores", "compare"]


@pytest.mark.parametrize(
    "name, policy", [(name, "without-csp") for name in VIEWS] + [(name, "with-csp") for name in WITH_CSP]
)
def test_payloads_never_execute_and_the_page_shows_the_errors(page, base_url, name, policy):
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    if policy == "without-csp":
        page.route(f"{base_url}/{name}?*", without_csp)
    page.watch.expect_status(422)  # the page itself answers 422: some parameters were refused
    response = page.goto(attack_url(base_url, name))  # returns after the load event
    assert response.status == 422
    assert ("content-security-policy" in response.headers) == (policy == "with-csp")
    # the page's script has run and drawn every plot from the defaults: everything it writes,
    # the error list included, is in the document now
    page.wait_for_function(ALL_PLOTS_DRAWN)
    assert page.evaluate("() => window.__pwned") is None
    assert dialogs == []
    # an <img src=x> that ever reached the document asked this server for /x (even if removed since)
    assert [url for url in requested if url.split("?")[0] == f"{base_url}/x"] == []
    # the messages are shown: the unknown names in the page's error list, each refused field next
    # to its control (or in that list when it has no control)
    errors = page.locator(".page-errors").inner_text()
    for payload in PAYLOADS:
        assert payload in errors  # shown as text, exactly as typed
    shown = page.evaluate(
        "() => [...document.querySelectorAll('.control-error')].filter((el) => el.textContent.trim()).length"
    )
    assert shown >= 1
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("a[href^='javascript:' i]").count() == 0
