"""Classroom use over every page: shared links, Back, exports that match the data, accessibility."""

import csv
import io
import json

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from app.main import create_app  # noqa: F401  (registers every view)
from app.web.views import discover
from tests.browser.helpers import ALL_PLOTS_DRAWN, DRAW_PENDING_JS, TRACES_JS, draw_pending

VIEWS = discover()
NAMES = [view.name for view in VIEWS]
BY_NAME = {view.name: view for view in VIEWS}

# What a student must see the same: every plot's data and every number written beside the plots.
SNAPSHOT_ALL = (
    f"() => JSON.stringify([[...document.querySelectorAll('.plot')].map({TRACES_JS}),"
    " [...document.querySelectorAll('[data-out]')].map((el) => el.textContent)])"
)


def change_a_control(page) -> None:
    """Change the first compute control the way a user would; wait until the URL records it."""
    before = page.url
    slider = page.locator('#controls input[type="range"]').first
    if slider.count():
        slider.focus()
        slider.press("ArrowRight")
        # (the address is written once the view is drawn, so the test waits for it, briefly)
        try:
            page.wait_for_function("(before) => window.location.href !== before", arg=before, timeout=1500)
        except PlaywrightTimeoutError:  # the slider was at its end
            slider.press("ArrowLeft")
            slider.press("ArrowLeft")
    else:
        select = page.locator("#controls select").first
        options = select.locator("option").all_inner_texts()
        current = select.input_value()
        select.select_option(next(o for o in options if o != current))
    page.wait_for_function("(before) => window.location.href !== before", arg=before)


def settle(page, previous_snapshot=None) -> str:
    """Every plot's drawn data once the page is idle; plots whose update waited for them to come
    into view are scrolled to first."""
    page.wait_for_function(ALL_PLOTS_DRAWN)
    if previous_snapshot is not None:
        page.wait_for_function(
            f"(before) => ({DRAW_PENDING_JS})() && ({SNAPSHOT_ALL})() !== before", arg=previous_snapshot
        )
    page.wait_for_function("() => !document.querySelector('.figures.is-busy')")
    draw_pending(page)
    return page.evaluate(SNAPSHOT_ALL)


@pytest.mark.parametrize("name", NAMES)
def test_copied_link_reproduces_the_view_and_back_restores(browser, page, base_url, name):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    page.goto(f"{base_url}/{name}")
    original = settle(page)
    change_a_control(page)
    changed = settle(page, original)

    page.click('[data-action="copy-link"]')
    page.wait_for_function("() => document.querySelector('[data-role=status]').textContent.includes('copied')")
    link = page.evaluate("() => navigator.clipboard.readText()")
    assert link == page.url and "?" in link

    fresh = browser.new_context()
    try:
        student = fresh.new_page()
        student.goto(link)
        assert settle(student) == changed
    finally:
        fresh.close()

    page.go_back()
    assert settle(page, changed) == original


def _csv_cell(value):
    """What a CSV cell holds for one value of a view's rows: numbers as numbers, a missing value empty."""
    if value is None:
        return ""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)


@pytest.mark.parametrize("name", NAMES)
def test_json_and_csv_downloads_are_the_plotted_data(page, base_url, name):
    view = BY_NAME[name]
    page.goto(f"{base_url}/{name}")
    settle(page)
    with page.expect_download() as info:
        page.click('[data-action="json"]')
    download = info.value
    assert download.suggested_filename.startswith(name) and download.suggested_filename.endswith(".json")
    downloaded = json.loads(download.path().read_text())
    twin = page.request.get(base_url + page.locator('[data-role="json-twin"]').get_attribute("href")).json()
    assert downloaded == twin
    embedded = page.evaluate("() => JSON.parse(document.getElementById('page-data').textContent).data")
    assert downloaded == embedded

    if view.csv is None:
        assert page.locator('[data-action="csv"]').count() == 0
        return
    with page.expect_download() as info:
        page.click('[data-action="csv"]')
    rows = list(csv.reader(io.StringIO(info.value.path().read_text())))
    header, expected = view.csv(twin)
    assert rows[0] == [str(h) for h in header]
    assert len(rows) == len(expected) + 1
    for got, want in zip(rows[1:], expected, strict=True):
        assert [float(g) if _number(g) else g for g in got] == [_csv_cell(w) for w in want]


def _number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


@pytest.mark.parametrize("fmt", ["png", "svg"])
def test_image_exports(page, base_url, fmt):
    page.goto(f"{base_url}/ladder?head_dim=32")
    settle(page)
    with page.expect_download() as info:
        page.click(f'[data-action="{fmt}"]')
    download = info.value
    assert download.suggested_filename.startswith("ladder_head_dim-32")
    content = download.path().read_bytes()
    if fmt == "png":
        assert content.startswith(b"\x89PNG")
    else:
        assert b"<svg" in content[:500]


@pytest.mark.parametrize("name", NAMES)
def test_no_serious_accessibility_violations(page, base_url, name):
    page.goto(f"{base_url}/{name}")
    settle(page)
    results = Axe().run(page)
    serious = [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes'][:3]]}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert serious == []


def test_presenter_shortcut_toggles_and_is_in_the_url(page, base_url):
    page.goto(f"{base_url}/ladder")
    settle(page)
    page.keyboard.press("p")
    page.wait_for_function("() => document.body.classList.contains('presenter') && location.search.includes('presenter=true')")
    assert page.locator('[data-action="presenter"]').get_attribute("aria-pressed") == "true"
    page.reload()
    settle(page)
    assert "presenter" in page.evaluate("() => document.body.className")
    page.keyboard.press("p")
    page.wait_for_function("() => !document.body.classList.contains('presenter') && !location.search.includes('presenter')")


def test_home_lists_every_lesson_in_teaching_order(page, base_url):
    page.goto(base_url + "/")
    links = page.locator(".lesson-list .cards a").evaluate_all("(els) => els.map((a) => a.getAttribute('href'))")
    assert links == [f"/{name}" for name in NAMES]
    nav = page.locator(".lesson-nav a").evaluate_all("(els) => els.map((a) => a.getAttribute('href'))")
    assert nav[: len(NAMES)] == [f"/{name}" for name in NAMES]


def test_busy_indicator_appears_only_for_slow_updates(page, base_url):
    page.goto(f"{base_url}/ladder")
    settle(page)
    # Delay the API by 600 ms: the quiet indicator must show, then go away with the new plot.
    page.route("**/api/rope/frequencies?*", lambda route: (page.wait_for_timeout(600), route.continue_()))
    slider = page.locator('input[type="range"][data-param="head_dim"]')
    slider.focus()
    slider.press("ArrowRight")
    page.wait_for_selector(".figures.is-busy")
    page.wait_for_selector(".figures:not(.is-busy)")
    # Requests still held by the route (the page fetches the neighbouring values ahead) end here.
    page.unroute_all(behavior="ignoreErrors")
