"""The handout in a real browser: every step's title, narration, question and answer on one page,
every step's figure drawn in its live view (without the stage's controls), and Chromium's
page.pdf() printing it on A4 pages with no controls."""

import re

import pytest

from app.lectures import lectures

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("name", ["rope", "families", "context"])
def test_handout_draws_every_figure(page, base_url, name):
    lecture = lectures()[name]
    page.goto(f"{base_url}/lecture/{name}/handout")
    steps = page.locator(".handout-step")
    assert steps.count() == len(lecture.steps)
    page.wait_for_function("() => { const h = document.querySelector('.handout'); return h.dataset.drawn === h.dataset.total; }", timeout=90_000)
    assert page.locator("[data-role=status]").inner_text() == f"All {len(lecture.steps)} figures are drawn."
    assert page.locator('[data-action="print"]').is_enabled()
    for index, step in enumerate(lecture.steps):
        block = steps.nth(index)
        assert block.locator("h2").inner_text() == f"{index + 1}. {step.heading}"
        if step.question:
            assert block.locator(".answer").inner_text() == f"Answer. {step.answer}"
            assert block.locator(".handout-question p").first.inner_text() == f"Question. {step.question}"
        assert block.locator(".handout-narration p").count() >= 1
        frame = block.locator("iframe.handout-view")
        assert frame.get_attribute("data-drawn") == ""
        inner = page.frame_locator(f"#step-{index + 1} iframe.handout-view")
        # the stage's bar and Controls drawer are not part of a handout's figure
        assert inner.locator(".controls").first.is_hidden()
        plot = inner.locator("[data-stage-figure]").first
        box = plot.bounding_box()
        assert box["width"] > 300 and box["height"] > 200


def test_handout_prints_on_pages(page, base_url, tmp_path):
    page.goto(f"{base_url}/lecture/families/handout")
    page.wait_for_function("() => { const h = document.querySelector('.handout'); return h.dataset.drawn === h.dataset.total; }", timeout=90_000)
    page.emulate_media(media="print")
    assert page.locator(".handout-actions").is_hidden() and page.locator(".site-header").is_hidden()
    pdf = page.pdf(format="A4")
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    assert pdf.startswith(b"%PDF") and pages >= 6  # 12 steps, about two to a page
    letter = page.pdf(format="Letter")
    assert len(re.findall(rb"/Type\s*/Page[^s]", letter)) >= 6
