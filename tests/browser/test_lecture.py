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


# ---------------------------------------------------------------------------------------------
# One step, one screen (issue 36 item 1): every step of every shipped lecture at the three sizes.

from app.lectures import lectures  # noqa: E402
from app.main import create_app  # noqa: E402,F401  (registers every view)
from app.web.views import discover  # noqa: E402
from tests.browser.conftest import ConsoleWatch  # noqa: E402
from tests.browser.helpers import page_sized  # noqa: E402

discover()
STEPS = [(name, number, getattr(step, "figure", "") or "")
         for name, lecture in lectures().items() for number, step in enumerate(lecture.steps, start=1)]
SIZES = [(1280, 800), (1920, 1080), (390, 844)]

# What the first screen shows of a lecture step, measured in the top window's coordinates: the
# share of the step's figure inside both the page's viewport and the frame's, whether the figure
# is drawn, and whether the question (and the heading) is whole: inside the viewport, not clipped
# by a box around it, not scrolled away inside it, not hidden by visibility/opacity, and on top
# where it is (the browser's own hit test at points across it).
FIT_JS = """(figureId) => {
  const problems = [];
  const vw = document.documentElement.clientWidth, vh = document.documentElement.clientHeight;
  const top = document.scrollingElement;
  if (top.scrollHeight > vh + 1) problems.push(`the page scrolls down ${top.scrollHeight - vh} px`);
  if (top.scrollWidth > vw + 1) problems.push(`the page scrolls sideways ${top.scrollWidth - vw} px`);
  const inter = (a, b) => ({l: Math.max(a.l, b.l), t: Math.max(a.t, b.t), r: Math.min(a.r, b.r), b: Math.min(a.b, b.b)});
  const area = (a) => Math.max(0, a.r - a.l) * Math.max(0, a.b - a.t);
  const rect = (el, dx = 0, dy = 0) => { const r = el.getBoundingClientRect(); return {l: r.left + dx, t: r.top + dy, r: r.right + dx, b: r.bottom + dy}; };
  const screen = {l: 0, t: 0, r: vw, b: vh};
  // Boxes that clip what is inside them (overflow other than visible) up to the document.
  const clipped = (el, box, dx, dy) => {
    let out = box;
    for (let p = el.parentElement; p && p !== el.ownerDocument.documentElement; p = p.parentElement) {
      const style = p.ownerDocument.defaultView.getComputedStyle(p);
      if (style.overflowX !== 'visible' || style.overflowY !== 'visible') out = inter(out, rect(p, dx, dy));
    }
    return out;
  };
  const shown = (el) => {
    const view = el.ownerDocument.defaultView;
    for (let p = el; p; p = p.parentElement) {
      const s = view.getComputedStyle(p);
      if (s.display === 'none' || s.visibility !== 'visible' || Number(s.opacity) < 0.5 || p.hidden) return false;
    }
    return true;
  };
  const whole = (el, label) => {
    if (!el) return;
    if (!shown(el)) { problems.push(`${label} is hidden`); return; }
    const box = rect(el);
    if (area(box) === 0) { problems.push(`${label} has no size`); return; }
    const seen = inter(clipped(el, box, 0, 0), screen);
    if (area(seen) < area(box) - 1) problems.push(`${label} is cut: ${Math.round(100 * area(seen) / area(box))}% in the first screen`);
    if (el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1) problems.push(`${label} overflows its own box`);
    for (const [fx, fy] of [[0.1, 0.5], [0.5, 0.5], [0.9, 0.5], [0.5, 0.15], [0.5, 0.85]]) {
      const x = box.l + fx * (box.r - box.l), y = box.t + fy * (box.b - box.t);
      if (x < 0 || y < 0 || x >= vw || y >= vh) continue;
      const hit = document.elementFromPoint(x, y);
      if (hit && hit !== el && !el.contains(hit)) { problems.push(`${label} is covered by ${hit.tagName}.${hit.className}`); break; }
    }
  };
  whole(document.querySelector('.lecture-head h1'), 'the heading');
  whole(document.querySelector('.lecture-question .question'), 'the question');
  const frame = document.querySelector('iframe.lecture-view');
  if (!frame) return {share: 0, problems: [...problems, 'no frame']};
  const doc = frame.contentDocument;
  const fr = frame.getBoundingClientRect();
  const dx = fr.left + frame.clientLeft, dy = fr.top + frame.clientTop;
  const fw = doc.documentElement.clientWidth, fh = doc.documentElement.clientHeight;
  const inner = doc.scrollingElement;
  if (inner.scrollHeight > fh + 1) problems.push(`the view scrolls down ${inner.scrollHeight - fh} px`);
  if (inner.scrollWidth > fw + 1) problems.push(`the view scrolls sideways ${inner.scrollWidth - fw} px`);
  const plot = figureId ? doc.getElementById(figureId) : doc.querySelector('.plot');
  if (!plot) return {share: 0, problems: [...problems, `no figure ${figureId || '.plot'}`]};
  if (!shown(plot)) problems.push(`the figure ${plot.id} is hidden`);
  if (!(plot._fullLayout && plot._shown && plot._shown.length) || plot.dataset.pending !== undefined) problems.push(`the figure ${plot.id} is not drawn`);
  const box = rect(plot, dx, dy);
  const frameBox = inter({l: dx, t: dy, r: dx + fw, b: dy + fh}, screen);
  const seen = inter(inter(clipped(plot, box, dx, dy), frameBox), clipped(frame, frameBox, 0, 0));
  const share = area(box) ? area(seen) / area(box) : 0;
  if (share < 0.9) problems.push(`${Math.round(100 * share)}% of the figure ${plot.id} (${Math.round(box.r - box.l)}×${Math.round(box.b - box.t)}) in the first screen`);
  return {share, problems};
}"""

FIGURE_DRAWN_JS = """(figureId) => {
  const frame = document.querySelector('iframe.lecture-view');
  const doc = frame && frame.contentDocument;
  if (!doc || doc.readyState !== 'complete') return false;
  const plot = figureId ? doc.getElementById(figureId) : doc.querySelector('.plot');
  return Boolean(plot && plot._fullLayout && plot._shown && plot._shown.length && plot.dataset.pending === undefined);
}"""


def step_fit(page, base_url, name, number, figure):
    """The problems of one step's first screen (an empty list when it fits)."""
    page.goto(f"{base_url}/lecture/{name}?step={number}")
    try:
        page.wait_for_function(FIGURE_DRAWN_JS, arg=figure, timeout=8000)
    except Exception:  # noqa: BLE001  (measured below: the figure is reported as not drawn)
        pass
    page.wait_for_timeout(120)  # a resize that the first draw caused is drawn
    return page.evaluate(FIT_JS, figure)["problems"]


@pytest.mark.parametrize(("width", "height"), SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_every_step_fits_one_screen(warm_context, base_url, width, height):
    page = page_sized(warm_context, width, height)
    watch = ConsoleWatch(page, base_url)
    try:
        failures = []
        for name, number, figure in STEPS:
            problems = step_fit(page, base_url, name, number, figure)
            if problems:
                failures.append(f"{name} step {number}: " + "; ".join(problems))
        assert failures == [], f"{len(failures)} of {len(STEPS)} steps do not fit {width}x{height}:\n" + "\n".join(failures)
        assert watch.problems == [] and watch.foreign == []
    finally:
        page.close()
