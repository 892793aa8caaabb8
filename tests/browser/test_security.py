"""Every page works under its Content-Security-Policy, in a real browser.

For every registered view (embed mode on a sample: see SAMPLE): a ``securitypolicyviolation`` listener is
installed before any script runs; the page draws all its plots, the pointer hovers each plot
(plotly's hover labels) and a slider moves (fetch of the JSON twin, redraw); then no violation
was reported and the console has no CSP message (the ``page`` fixture also fails on those).
Framing is refused for normal pages and allowed in embed mode.

``style-src 'unsafe-inline'`` stays: ``test_plotly_still_needs_inline_styles`` serves a page
without it and sees plotly.js blocked (it inserts a ``<style>`` element and sets ``style``
attributes through ``setAttribute``).  Styles cannot run code, and scripts stay ``'self'`` only.
If that test starts failing, plotly no longer needs it: drop it from app/web/security.py.
"""

from __future__ import annotations

import pytest

from app.main import create_app  # noqa: F401  (registers every view)
from app.web.views import discover
from tests.browser.helpers import ALL_PLOTS_DRAWN

NAMES = [view.name for view in discover()]
# Embed mode and framing differ from a normal page only in headers (frame-ancestors), which
# tests/api/test_contract.py checks on every page; here the browser's enforcement of them is shown
# on a heatmap page and on the many-panel page.
SAMPLE = ["scores", "compare"]

LISTEN = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (event) => {
  window.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`);
});
"""


# Every plot on show drawn: in embed mode the stage puts the figures it does not show away
# (data-stage-off), and those are drawn when they are shown (tests/browser/test_lecture.py).
SHOWN_PLOTS_DRAWN = ALL_PLOTS_DRAWN.replace(".plot[data-pending]", ".plot[data-pending]:not([data-stage-off] .plot, [data-stage-off])").replace(
    "document.querySelectorAll('.plot')", "document.querySelectorAll('.plot:not([data-stage-off] .plot, [data-stage-off])')")


# Whether a parameter is computed by the server (else it only changes what is drawn).
COMPUTED_JS = """(name) => JSON.parse(document.getElementById('page-data').textContent)
    .fields.some((field) => field.name === name && field.role === 'compute')"""


def exercise(page) -> None:
    """Hover every plot, then move the first slider and wait for the address to change."""
    page.wait_for_function(ALL_PLOTS_DRAWN)
    for plot in page.locator(".plot").all():
        box = plot.bounding_box()
        if box and box["width"] > 0:
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.mouse.move(box["x"] + box["width"] / 3, box["y"] + box["height"] / 3)
    slider = page.locator('input[type="range"]')
    folded = page.locator("details.controls-box:not([open]) > summary")
    if folded.count():  # embed mode (the stage) starts with its controls in a closed drawer
        folded.first.click()
    if slider.count():
        before = page.url
        name = slider.first.get_attribute("data-param")
        computed = page.evaluate(COMPUTED_JS, name)
        slider.first.focus()
        if computed:  # a computed parameter: the page asks its JSON twin, under the same policy
            with page.expect_response(lambda response: "/api/" in response.url and f"{name}=" in response.url):
                slider.first.press("ArrowRight")
        else:
            slider.first.press("ArrowRight")
        page.wait_for_function("(before) => window.location.href !== before", arg=before)
        page.wait_for_function(SHOWN_PLOTS_DRAWN)


@pytest.mark.parametrize(
    ("name", "mode"), [(name, "normal") for name in NAMES] + [(name, "embed") for name in SAMPLE]
)
def test_page_works_under_its_content_security_policy(page, base_url, name, mode):
    csp_messages = []
    page.on("console", lambda msg: csp_messages.append(msg.text) if "Content Security Policy" in msg.text else None)
    page.add_init_script(LISTEN)
    response = page.goto(f"{base_url}/{name}" + ("?embed=true" if mode == "embed" else ""))
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-eval" not in policy
    assert ("frame-ancestors *" if mode == "embed" else "frame-ancestors 'none'") in policy
    exercise(page)
    assert page.evaluate("() => window.__cspViolations") == []
    assert csp_messages == []


def _frame_host(context, base_url: str, target: str) -> str:
    """A page of this origin (served by the browser, not the app) that frames ``target``."""
    host = f"{base_url}/__frame_host__"
    html = f'<!doctype html><title>host</title><iframe src="{target}" width="1200" height="800"></iframe>'
    context.route(host, lambda route: route.fulfill(status=200, content_type="text/html", body=html))
    return host


@pytest.mark.parametrize("name", SAMPLE)
def test_framing_is_allowed_only_in_embed_mode(context, base_url, name):
    page = context.new_page()
    messages = []
    page.on("console", lambda msg: messages.append(msg.text))

    page.goto(_frame_host(context, base_url, f"{base_url}/{name}?embed=true"))
    frame = page.frame_locator("iframe")
    frame.locator(".plot").first.wait_for()
    page.frames[1].wait_for_function(ALL_PLOTS_DRAWN)
    assert not [m for m in messages if "frame-ancestors" in m]

    with page.expect_console_message(lambda msg: "frame-ancestors" in msg.text):
        page.goto(_frame_host(context, base_url, f"{base_url}/{name}"))
    page.wait_for_load_state("load")
    assert page.frames[1].evaluate("() => document.querySelectorAll('.plot').length") == 0
    page.close()


def test_plotly_still_needs_inline_styles(context, base_url):
    """The one page served without 'unsafe-inline' in style-src: plotly.js is blocked."""

    def strict(route):
        response = route.fetch()
        headers = dict(response.headers)
        headers["content-security-policy"] = headers["content-security-policy"].replace(" 'unsafe-inline'", "")
        route.fulfill(response=response, headers=headers)

    context.route(f"{base_url}/{NAMES[0]}", strict)
    page = context.new_page()
    page.add_init_script(LISTEN)
    page.goto(f"{base_url}/{NAMES[0]}")
    page.wait_for_function(ALL_PLOTS_DRAWN)
    violations = page.evaluate("() => window.__cspViolations")
    assert any(v.startswith(("style-src-elem", "style-src-attr")) and "plotly" in v for v in violations), violations
    page.close()
