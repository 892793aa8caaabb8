"""The lecture page in a real browser: keys move between steps and the URL follows (Back/Forward
too), Space reveals the answer, presenter mode stays on every step link, and the QR code, read by a
real decoder, opens the same view with the same plotted data in a fresh browser context."""

import re

import numpy as np
import pytest
import zxingcpp

from tests.browser.helpers import plot_data, wait_for_plot

pytestmark = pytest.mark.browser

# The QR SVG drawn on a canvas, returned as grey levels (row-major) for the decoder.
RASTER_JS = """async () => {
  const svg = document.querySelector('[data-qr-url] svg');
  const text = new XMLSerializer().serializeToString(svg);
  const image = new Image();
  image.src = URL.createObjectURL(new Blob([text], {type: 'image/svg+xml'}));
  await image.decode();
  const size = 400, canvas = document.createElement('canvas');
  canvas.width = canvas.height = size;
  const g = canvas.getContext('2d');
  g.fillStyle = '#fff'; g.fillRect(0, 0, size, size);
  g.drawImage(image, 0, 0, size, size);
  const rgba = g.getImageData(0, 0, size, size).data, grey = [];
  for (let i = 0; i < rgba.length; i += 4) grey.push(rgba[i]);
  return {size, grey};
}"""


def test_keys_url_back_forward_and_reveal(page, base_url):
    page.goto(f"{base_url}/lecture/rope?step=2")
    assert page.locator(".lecture-progress").inner_text() == "step 2 of 14"
    page.keyboard.press("ArrowRight")
    page.wait_for_url("**/lecture/rope?step=3&presenter=true")
    page.keyboard.press("PageDown")
    page.wait_for_url(re.compile(r"step=4(&|$)"))
    page.keyboard.press("PageUp")
    page.wait_for_url(re.compile(r"step=3(&|$)"))
    page.keyboard.press("End")
    page.wait_for_url(re.compile(r"step=14(&|$)"))
    assert page.locator(".lecture-progress").inner_text() == "step 14 of 14"
    assert page.locator('[data-step="next"]').count() == 0
    page.go_back()
    page.wait_for_url(re.compile(r"step=3(&|$)"))
    assert page.locator("h1").inner_text() == "The frequency ladder"
    page.go_forward()
    page.wait_for_url(re.compile(r"step=14(&|$)"))
    page.keyboard.press("Home")
    page.wait_for_url(re.compile(r"step=1(&|$)"))
    answer = page.locator("#answer")
    assert answer.is_hidden()
    page.keyboard.press("Space")
    assert answer.is_visible() and "is 0" in answer.inner_text()
    # presenter mode is on by default, kept by every step link, and shown in the framed view
    assert "presenter" in page.locator("body").get_attribute("class")
    for href in page.locator(".lecture-steps a, .lecture-title a").evaluate_all("els => els.map(e => e.getAttribute('href'))"):
        assert "presenter=true" in href, href
    assert "presenter=true" in page.locator("iframe.lecture-view").get_attribute("src")
    assert page.locator(".loopback-note").is_visible()  # the test server is on 127.0.0.1


def test_qr_code_opens_the_same_view(page, browser, base_url):
    page.goto(f"{base_url}/lecture/rope?step=4")
    page.wait_for_selector("[data-qr-url]", state="attached")
    raster = page.evaluate(RASTER_JS)
    grey = np.array(raster["grey"], dtype=np.uint8).reshape(raster["size"], raster["size"])
    found = zxingcpp.read_barcodes(grey)
    assert len(found) == 1
    url = found[0].text
    assert url == f"{base_url}/rotation?theta=0.5235987755982988&m=1&n=3"
    frame = page.frame_locator("iframe.lecture-view")
    frame.locator("#plot-planes .main-svg").first.wait_for()
    framed = next(f for f in page.frames if "embed=true" in f.url)
    wait_for_plot(framed, "plot-planes")
    fresh = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        phone = fresh.new_page()
        phone.goto(url)
        wait_for_plot(phone, "plot-planes")
        assert plot_data(phone, "plot-planes") == plot_data(framed, "plot-planes")
    finally:
        fresh.close()


def test_presenter_mode_stays_on_every_link(page, base_url):
    def app_links():
        return page.locator("a[href^='/']").evaluate_all(
            "els => els.map(e => e.getAttribute('href')).filter(h => !/^\\/(api|static|s|docs|vendor)(\\/|$)/.test(h))"
        )

    page.goto(f"{base_url}/rotation?presenter=true")
    links = app_links()
    assert "/" in [h.split("?")[0] for h in links] and any(h.startswith("/scores") for h in links)
    assert any("Previous lesson" in t for t in page.locator(".previous-lesson").all_inner_texts())
    assert all("presenter=true" in h for h in links), [h for h in links if "presenter=true" not in h]
    page.locator("body").press("p")  # presenter off: the links lose it
    page.wait_for_function("() => !document.body.classList.contains('presenter')")
    assert not any("presenter=true" in h for h in app_links())
    page.goto(f"{base_url}/?presenter=true")
    assert "presenter" in page.locator("body").get_attribute("class")
    assert all("presenter=true" in h for h in app_links())
    page.locator(".start-button").click()
    page.wait_for_url(re.compile(r"presenter=true"))
    assert "presenter" in page.locator("body").get_attribute("class")


def test_guide_line_numbers_follow_the_view(page, base_url):
    page.goto(f"{base_url}/rotation?m=1&n=3&theta=0.5235987755982988")
    guide = page.locator(".guide")
    offset = guide.locator('[data-field="offset"]')
    turn = guide.locator('[data-field="gap_turn_degrees"]')
    page.wait_for_function("() => document.querySelector('[data-field=offset]').textContent === '2'")
    assert turn.inner_text() == "60"  # 2 tokens × 30°
    box = page.locator('input[name="n"][type="number"], input[data-role="box"][name="n"]').first
    box.fill("7")
    box.press("Enter")
    page.wait_for_function("() => document.querySelector('[data-field=offset]').textContent === '6'")
    assert offset.inner_text() == "6" and turn.inner_text() == "180"  # 6 × 30°
