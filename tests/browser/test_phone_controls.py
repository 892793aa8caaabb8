"""On a 390 × 844 phone, every lesson: a stepper moves its slider by exactly one step, the page
follows, and the figure that control drives is inside the viewport right after it was touched."""

import pytest

from app.web.views import discover

pytestmark = pytest.mark.browser

PAGES = [view.name for view in discover()]


@pytest.fixture(scope="module")
def phone(browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("name", PAGES)
def test_figure_stays_in_view_while_a_control_moves(phone, base_url, name):
    phone.goto(f"{base_url}/{name}")
    details = phone.locator("details.controls-box")
    if details.count() and details.get_attribute("open") is None:
        phone.locator("details.controls-box > summary").tap()
    steppers = phone.locator(".controls .stepper")
    assert steppers.count() > 0, f"/{name} has no slider with a stepper"
    plus = phone.locator(".controls .stepper + input[type=range] + .stepper, .controls input[type=range] + .stepper").first
    rng = plus.locator("xpath=preceding-sibling::input[@type='range'][1]")
    before = float(rng.input_value())
    step = rng.get_attribute("step")
    top = float(rng.get_attribute("max"))
    if before >= top:
        plus = plus.locator("xpath=preceding-sibling::button[contains(@class,'stepper')][1]")
    plus.tap()
    after = float(rng.input_value())
    assert after != before
    if step and step != "any":
        assert abs(abs(after - before) - float(step)) < 1e-9
    figure = phone.locator(".figures .plot, .figures .data-scroll").first  # /calculator draws a table
    box = figure.bounding_box()
    assert box is not None and box["y"] < 844 and box["y"] + box["height"] > 0, f"/{name}: figure at {box}"
    sheet = phone.locator(".controls").bounding_box()
    visible_top = max(box["y"], 0)
    assert visible_top < sheet["y"], f"/{name}: the figure is hidden under the controls"
