"""Every registered page, in a real browser: draws from embedded data with no console error,
loads plotly.js from this server, and reproduces the same plot data from its URL."""

import pytest

from app.main import create_app  # noqa: F401  (registers every view)
from app.web.views import discover
from tests.browser.helpers import ALL_PLOTS_DRAWN, plot_data

NAMES = [view.name for view in discover()]


def all_plots(page):
    ids = page.evaluate("() => [...document.querySelectorAll('.plot')].map((el) => el.id)")
    return {plot_id: plot_data(page, plot_id) for plot_id in ids}


def wait_all_plots(page):
    page.wait_for_function(ALL_PLOTS_DRAWN)


@pytest.mark.parametrize("name", NAMES)
def test_page_draws_every_plot_and_a_fresh_browser_draws_the_same(browser, page, base_url, name):
    scripts = []
    page.on("request", lambda request: scripts.append(request.url) if request.resource_type == "script" else None)
    page.goto(f"{base_url}/{name}")
    wait_all_plots(page)
    assert f"{base_url}/vendor/plotly.min.js" in scripts
    assert page.evaluate("() => typeof window.Plotly") == "object"
    # no WebGL traces: classroom laptops without GPU acceleration must draw everything
    types = page.evaluate("() => [...document.querySelectorAll('.plot')].flatMap((el) => (window.plotShown?.(el)?.traces || []).map((t) => t.type || 'scatter'))")
    assert not [t for t in types if t.endswith("gl") or t in ("heatmapgl", "pointcloud")]
    first = all_plots(page)
    # The same URL in a new browser context (empty cache, no history): the URL alone gives the view.
    fresh = browser.new_context()
    try:
        other = fresh.new_page()
        other.goto(page.url)
        wait_all_plots(other)
        assert all_plots(other) == first
    finally:
        fresh.close()


@pytest.mark.parametrize("name", NAMES)
def test_embed_and_presenter_modes_render(page, base_url, name):
    page.goto(f"{base_url}/{name}?embed=true")
    wait_all_plots(page)
    assert page.locator(".site-header").count() == 0
    assert page.locator(".embed-link a").count() == 1
    page.goto(f"{base_url}/{name}?presenter=true")
    wait_all_plots(page)
    assert "presenter" in page.evaluate("() => document.body.className")
