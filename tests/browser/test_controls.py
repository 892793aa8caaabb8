"""Controls that cannot break the view (issue 14): every control offers only what the server
accepts given the other controls, a refused value costs no request and freezes nothing, and
typed numbers apply when the user pauses.

The page learns the cross-field rules from the server (app/web/rules.py → static/js/lib/rules.js);
these tests drive the real controls and watch the network, so they fail if the page sends a value
the server refuses (any 4xx is recorded) or a request per keystroke.
"""

from __future__ import annotations

import pytest

from app.main import create_app  # noqa: F401  (registers every view)
from app.web.views import discover
from tests.browser.helpers import (
    ALL_PLOTS_DRAWN,
    api_sent,
    count_api,
    set_box,
    snapshot,
    track_api,
    wait_for_data_change,
    wait_for_plot,
    wait_for_query,
    wait_for_quiet_api,
)

pytestmark = pytest.mark.browser

VIEWS = discover()
NAMES = [view.name for view in VIEWS]


def watch_api(page):
    """Every /api/ request the page sends (url) and every refused one (status ≥ 400)."""
    sent, refused = [], []
    track_api(page)
    page.on("request", lambda request: "/api/" in request.url and sent.append(request.url))
    page.on("response", lambda response: "/api/" in response.url and response.status >= 400 and refused.append(response.url))
    return sent, refused


SLIDERS_JS = """() => [...document.querySelectorAll('#controls input[type=range][data-param]')]
    .filter((el) => !el.disabled).map((el) => el.dataset.param)"""

# Put a range input at its current min or max (as a drag to the end does) and commit it.
SLIDE_TO_END_JS = """([name, end]) => {
  const input = document.querySelector(`#controls input[type=range][data-param="${name}"]`);
  input.value = end === 'min' ? input.min : input.max;
  input.dispatchEvent(new Event('input', { bubbles: true }));
  input.dispatchEvent(new Event('change', { bubbles: true }));
  return input.value;
}"""

ERRORS_JS = """() => [...document.querySelectorAll('.control-error')]
    .filter((el) => el.textContent && !el.classList.contains('is-note')).map((el) => el.id + ': ' + el.textContent)"""


@pytest.mark.parametrize("name", NAMES)
def test_every_slider_can_go_to_both_ends_and_the_server_accepts_them(page, base_url, name):
    sent, refused = watch_api(page)
    # Each end is asked for once: the neighbours prefetched around it (tested on their own below)
    # would triple the server's work at the most expensive settings.
    page.add_init_script("window.__noPrefetch = true")
    page.goto(f"{base_url}/{name}")
    page.wait_for_function(ALL_PLOTS_DRAWN)
    for slider in page.evaluate(SLIDERS_JS):
        for end in ("max", "min"):
            page.evaluate(SLIDE_TO_END_JS, [slider, end])
            page.wait_for_function("() => !document.querySelector('.figures.is-busy')")
            # a change is sent at once (no pause to wait out), so a short quiet spell is enough
            wait_for_quiet_api(page, quiet_ms=150)
            assert page.evaluate(ERRORS_JS) == [], f"{slider} at its {end}"
    assert refused == [], refused
    assert sent, "no slider move reached the server"


def slider_max(page, name):
    return float(page.locator(f'#controls input[type=range][data-param="{name}"]').get_attribute("max"))


def box_value(page, name):
    return page.locator(f'[data-param="{name}"][data-role="box"]').input_value()


def test_the_hand_slider_ends_at_the_last_pair_of_the_head(page, base_url):
    _sent, refused = watch_api(page)
    page.goto(f"{base_url}/offsets?head_dim=128")
    wait_for_plot(page, "plot-offsets")
    assert slider_max(page, "hand") == 63  # d = 128: pairs 0 … 63
    set_box(page, "hand", "63")
    wait_for_query(page, "hand=63")
    set_box(page, "head_dim", "32")
    wait_for_query(page, "head_dim=32")
    assert slider_max(page, "hand") == 15
    assert box_value(page, "hand") == "15"  # moved with the head, and said why
    assert "head_dim/2 = 16 pairs" in page.locator("#err-hand").text_content()
    wait_for_query(page, "hand=15")
    wait_for_quiet_api(page)
    assert refused == []


def test_the_word_slider_ends_at_the_last_word_of_the_sentence(page, base_url):
    _sent, refused = watch_api(page)
    page.goto(f"{base_url}/why")
    wait_for_plot(page, "plot-none")
    assert slider_max(page, "word") == 2  # "dog bites man"
    set_box(page, "sentence", "the cat saw the dog")
    wait_for_query(page, "sentence=the+cat+saw+the+dog")
    assert slider_max(page, "word") == 4
    set_box(page, "word", "4")
    wait_for_query(page, "word=4")
    set_box(page, "sentence", "dog bites")
    wait_for_query(page, "sentence=dog+bites")
    assert box_value(page, "word") == "1" and slider_max(page, "word") == 1
    wait_for_quiet_api(page)
    assert refused == []


def test_a_cost_cap_is_the_controls_maximum(page, base_url):
    """Random content draws vectors at every position: the score page caps seq_len × head_dim, and
    the cap is what the head_dim slider and the seq_len slider offer."""
    _sent, refused = watch_api(page)
    page.goto(f"{base_url}/scores")
    wait_for_plot(page, "plot-scores")
    page.select_option('select[data-param="content"]', "random")
    wait_for_query(page, "content=random")
    set_box(page, "seq_len", "4096")
    wait_for_query(page, "seq_len=4096")
    assert slider_max(page, "head_dim") == 32  # 131072 // 4096
    assert box_value(page, "head_dim") == "32"
    assert page.locator("#range-head_dim").text_content() == "2 – 32"  # the range shown beside it
    seq_max = float(page.locator('#controls input[type=range][data-param="seq_len"]').get_attribute("max"))
    assert 10**seq_max == pytest.approx(4096)
    wait_for_quiet_api(page)
    assert refused == []


def test_rotary_fraction_slider_skips_odd_rotary_dimensions(page, base_url):
    _sent, refused = watch_api(page)
    page.goto(f"{base_url}/precision?head_dim=128")
    wait_for_plot(page, "plot-angle")
    page.evaluate(SLIDE_TO_END_JS, ["partial_rotary_factor", "min"])
    wait_for_quiet_api(page)
    value = float(box_value(page, "partial_rotary_factor"))
    rotary = int(128 * value)
    assert rotary >= 2 and rotary % 2 == 0, value
    assert page.evaluate(ERRORS_JS) == []
    assert refused == []


def test_base_slider_never_offers_base_one(page, base_url):
    _sent, refused = watch_api(page)
    page.goto(f"{base_url}/ladder")
    wait_for_plot(page, "plot-wavelength")
    page.evaluate(SLIDE_TO_END_JS, ["base", "min"])
    wait_for_quiet_api(page)
    assert float(box_value(page, "base")) > 1
    assert page.evaluate(ERRORS_JS) == [] and refused == []


def test_typing_sends_one_request_when_the_typing_pauses(page, base_url):
    sent, refused = watch_api(page)
    count_api(page)
    page.goto(f"{base_url}/offsets")
    wait_for_plot(page, "plot-offsets")
    wait_for_quiet_api(page)
    sent.clear()
    box = page.locator('[data-param="max_offset"][data-role="box"]')
    box.fill("")
    before = len(api_sent(page))
    box.type("50000", delay=120)  # five keystrokes, well inside the pause
    assert api_sent(page)[before:] == [], "a request went out while the number was being typed"  # the page's own record, exact now
    wait_for_query(page, "max_offset=50000")
    wait_for_quiet_api(page)
    assert len([url for url in sent if "max_offset=50000" in url]) == 1 and len(sent) <= 4  # the view, then at most 3 prefetched neighbours
    assert refused == []


def test_a_refused_typed_value_keeps_the_last_view_and_every_other_control_working(page, base_url):
    sent, refused = watch_api(page)
    page.goto(f"{base_url}/offsets?head_dim=128")
    wait_for_plot(page, "plot-offsets")
    before = snapshot(page, "plot-offsets")
    wait_for_quiet_api(page)
    sent.clear()
    set_box(page, "hand", "400")  # d = 128 has 64 pairs
    page.wait_for_function("() => document.getElementById('err-hand').textContent.includes('at most 63')")
    assert box_value(page, "hand") == "400"  # what the user typed stays in the box
    assert snapshot(page, "plot-offsets") == before and sent == []
    set_box(page, "max_offset", "8192")  # another control still works, with the last good hand
    wait_for_query(page, "max_offset=8192")
    wait_for_data_change(page, "plot-offsets", before)
    assert "hand=" not in page.url
    assert box_value(page, "hand") == "400" and "at most 63" in page.locator("#err-hand").text_content()
    wait_for_quiet_api(page)
    assert refused == []


def test_a_link_with_a_refused_value_shows_it_beside_its_control(page, base_url):
    page.watch.expect_status(422)  # the page itself answers 422 for such a link
    page.goto(f"{base_url}/offsets?hand=100&max_offset=4096")
    wait_for_plot(page, "plot-offsets")
    assert box_value(page, "hand") == "100"
    assert "hand" in page.locator("#err-hand").text_content()
    _sent, refused = watch_api(page)
    set_box(page, "seeds", "3")
    page.select_option('select[data-param="content"]', "random")
    wait_for_query(page, "content=random")
    assert "max_offset=4096" in page.url  # the link's valid values were kept
    wait_for_quiet_api(page)
    assert refused == []


FIRST_BOX_JS = """() => {
  const range = [...document.querySelectorAll('#controls input[type=range][data-param]')].find((r) => r.dataset.scale !== 'log');
  if (!range) return null;
  const step = range.step === 'any' ? (range.max - range.min) / 100 : Number(range.step);
  const up = Number(range.value) + step;
  const next = up <= Number(range.max) ? up : Number(range.value) - step;
  const fields = JSON.parse(document.getElementById('page-data').textContent).fields;
  const role = fields.find((f) => f.name === range.dataset.param).role;
  return { name: range.dataset.param, value: String(Number(next.toPrecision(10))), role };
}"""


@pytest.mark.parametrize("name", NAMES)
def test_typing_a_value_sends_one_request_after_the_pause_on_every_page(page, base_url, name):
    sent, refused = watch_api(page)
    count_api(page)
    page.goto(f"{base_url}/{name}")
    page.wait_for_function(ALL_PLOTS_DRAWN)
    target = page.evaluate(FIRST_BOX_JS)
    if target is None:
        pytest.fail(f"/{name} has no linear slider with a box to type into")
    wait_for_quiet_api(page)
    sent.clear()
    box = page.locator(f'[data-param="{target["name"]}"][data-role="box"]')
    box.fill("")
    before = len(api_sent(page))
    box.type(target["value"], delay=90)
    assert api_sent(page)[before:] == [], f"requests while typing {target}: {api_sent(page)[before:]}"
    wait_for_query(page, f"{target['name']}={target['value']}")  # applied once the typing pauses
    wait_for_quiet_api(page)
    assert refused == [] and page.evaluate(ERRORS_JS) == []
    assert f"{target['name']}={target['value']}" in page.url
    if target["role"] == "compute":
        # one request for the view, then at most three neighbouring values fetched ahead
        view = [url for url in sent if f"{target['name']}={target['value']}" in url]
        assert len(view) == 1 and len(sent) <= 4, (target, sent)


# A drag: input events a frame apart, each waiting for nothing, then the change that ends it.
DRAG_JS = """async ([name, steps]) => {
  const input = document.querySelector(`#controls input[type=range][data-param="${name}"]`);
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  for (let i = 0; i < steps; i++) {
    input.stepUp();
    input.dispatchEvent(new Event('input', { bubbles: true }));
    await frame();
  }
  input.dispatchEvent(new Event('change', { bubbles: true }));
  return input.value;
}"""


def test_a_drag_is_one_history_entry_and_its_link_is_the_dragged_view(page, base_url):
    """The address is written after the draw (page-history.js), not in the input handler: a drag
    still leaves one entry, the address ends at the value dragged to, a link copied at once is
    that view, and Back returns to the view before the drag."""
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    page.goto(f"{base_url}/scores")
    page.wait_for_function(ALL_PLOTS_DRAWN)
    wait_for_quiet_api(page)
    length = page.evaluate("history.length")
    value = page.evaluate(DRAG_JS, ["head_dim", 5])
    page.click('[data-action="copy-link"]')  # at once: copying writes what is pending
    link = page.evaluate("() => navigator.clipboard.readText()")
    assert f"head_dim={value}" in link
    wait_for_query(page, f"head_dim={value}")
    assert page.evaluate("history.length") == length + 1
    page.go_back()
    page.wait_for_function("() => !location.search.includes('head_dim')")
    page.wait_for_function(
        "() => document.querySelector('#controls input[type=range][data-param=head_dim]').value === "
        "String(document.querySelector('#controls input[type=range][data-param=head_dim]').defaultValue)"
    )
