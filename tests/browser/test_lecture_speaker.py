"""The speaker view in a real browser: S on the lecture opens it on the same step with notes, the
answer, the next step's title and preview and a running timer; stepping either window steps the
other (BroadcastChannel, two pages of one context)."""

import re

import pytest

pytestmark = pytest.mark.browser


def progress(page) -> str:
    return page.locator(".speaker-progress, .lecture-progress").first.inner_text()


def test_s_opens_the_speaker_view_and_the_windows_step_together(page, base_url):
    page.goto(f"{base_url}/lecture/rope?step=3")
    with page.expect_popup() as opened:
        page.keyboard.press("s")
    speaker = opened.value
    speaker.wait_for_load_state()
    assert re.search(r"/lecture/rope/speaker\?step=3&start=\d{13}$", speaker.url)
    assert progress(speaker) == "step 3 of 14"
    assert speaker.locator(".speaker-notes").inner_text().startswith("Notes")
    assert "hour" not in speaker.locator(".speaker-notes").inner_text()  # the notes, not the narration
    assert "Point at the first and the last bar" in speaker.locator(".speaker-notes").inner_text()
    answer = speaker.locator(".speaker-question .answer")
    assert answer.is_visible() and re.search(r"\d+ of the 32 pairs", answer.inner_text())
    assert speaker.locator("#next-title").inner_text() == "Next: A rotation in the plane"
    # the preview is the next step's live view, scaled into its box: its figure is drawn
    preview = speaker.frame_locator(".speaker-preview")
    preview.locator(".js-plotly-plot .main-svg").first.wait_for()
    box = speaker.locator(".preview-box").bounding_box()
    frame_box = speaker.locator(".speaker-preview").bounding_box()
    assert frame_box["width"] == pytest.approx(box["width"], abs=2) and frame_box["height"] <= box["height"] + 2
    # the timer runs from the start time in the URL
    first = speaker.locator('[data-role="timer"]').inner_text()
    assert re.fullmatch(r"\d+:\d\d", first)
    speaker.wait_for_function("(first) => document.querySelector('[data-role=timer]').textContent !== first", arg=first, timeout=5000)

    # the speaker steps: the audience window follows
    speaker.keyboard.press("ArrowRight")
    speaker.wait_for_url(re.compile(r"step=4&start="))
    page.wait_for_url(re.compile(r"/lecture/rope\?step=4"))
    assert progress(page) == "step 4 of 14"
    speaker.keyboard.press("PageDown")
    page.wait_for_url(re.compile(r"/lecture/rope\?step=5"))
    # the audience steps: the speaker view follows, keeping its start time
    start = re.search(r"start=(\d+)", speaker.url).group(1)
    page.keyboard.press("ArrowLeft")
    page.wait_for_url(re.compile(r"step=4"))
    speaker.wait_for_url(re.compile(rf"/speaker\?step=4&start={start}$"))
    page.keyboard.press("End")
    speaker.wait_for_url(re.compile(r"step=14&"))
    assert speaker.locator("#next-title").inner_text() == "Next: nothing, this is the last step"
    # quick steps on the audience side while the speaker is still loading: it ends on the same step
    page.keyboard.press("Home")
    page.wait_for_url(re.compile(r"step=1(&|$)"))
    page.keyboard.press("ArrowRight")
    page.wait_for_url(re.compile(r"step=2(&|$)"))
    page.keyboard.press("ArrowRight")
    page.wait_for_url(re.compile(r"step=3(&|$)"))
    speaker.wait_for_url(re.compile(r"step=3&"))
    speaker.wait_for_timeout(500)
    assert progress(speaker) == "step 3 of 14" and progress(page) == "step 3 of 14"
    speaker.close()


def test_speaker_link_keys_list_and_markdown(page, base_url):
    page.goto(f"{base_url}/lecture/rope?step=4")
    link = page.locator('[data-action="speaker"]')
    assert link.is_visible() and link.get_attribute("href").startswith("/lecture/rope/speaker?step=4")
    page.keyboard.press("?")
    assert "speaker view" in page.locator("#keys").inner_text()
    page.keyboard.press("Escape")
    # narration written in Markdown: math drawn as MathML, emphasis as emphasis
    narration = page.locator(".lecture-narration")
    assert narration.locator("math").count() >= 4 and narration.locator("em").inner_text() == "only"
    page.frame_locator("iframe.lecture-view").locator(".js-plotly-plot .main-svg").first.wait_for()


def test_speaker_view_without_start_sets_one(page, base_url):
    page.goto(f"{base_url}/lecture/families/speaker?step=12")
    page.wait_for_url(re.compile(r"step=12&start=\d{13}$"))
    assert page.locator("#next-title").inner_text().startswith("Next: nothing")
    assert page.locator(".speaker-preview").count() == 0
    assert page.locator('[data-step="next"]').count() == 0
    assert "start=" in page.locator('[data-step="prev"]').get_attribute("href")
