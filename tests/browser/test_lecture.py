"""The lecture page in a real browser: keys move between steps and the URL follows (Back/Forward
too), Space reveals the answer, presenter mode stays on every step link, and the QR code, read by a
real decoder, opens the same view with the same plotted data in a fresh browser context."""

import contextlib
import re

import numpy as np
import pytest
import zxingcpp
from playwright.sync_api import Error as PlaywrightError

from app.lectures import lectures
from app.main import create_app  # noqa: F401  (registers every view)
from app.web.views import discover
from tests.browser.conftest import ConsoleWatch
from tests.browser.helpers import page_sized, plot_data, wait_for_plot

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
  if (!(plot._fullLayout && frame.contentWindow.plotShown?.(plot)?.traces && frame.contentWindow.plotShown?.(plot)?.traces.length) || plot.dataset.pending !== undefined) problems.push(`the figure ${plot.id} is not drawn`);
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
  return Boolean(plot && plot._fullLayout && frame.contentWindow.plotShown?.(plot)?.traces && frame.contentWindow.plotShown?.(plot)?.traces.length && plot.dataset.pending === undefined);
}"""


def step_fit(page, base_url, name, number, figure):
    """The problems of one step's first screen (an empty list when it fits)."""
    page.goto(f"{base_url}/lecture/{name}?step={number}")
    with contextlib.suppress(PlaywrightError):  # measured below: the figure is reported as not drawn
        page.wait_for_function(FIGURE_DRAWN_JS, arg=figure, timeout=8000)
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


# ---------------------------------------------------------------------------------------------
# Keys everywhere (issue 36 item 2): with the focus inside the embedded view too.

def frame_of(page):
    return next(f for f in page.frames if "embed=true" in f.url)


def click_into_view(page):
    """A click on the live view's figure, as a student or teacher would: the focus goes into the frame."""
    page.frame_locator("iframe.lecture-view").locator("[data-stage-figure] .plot-title").first.click()
    assert page.evaluate("() => document.activeElement === document.querySelector('iframe.lecture-view')")


def open_step(page, base_url, step):
    page.goto(f"{base_url}/lecture/rope?step={step}")
    page.frame_locator("iframe.lecture-view").locator("[data-stage-figure] .plot-title").first.wait_for()
    page.wait_for_function(FIGURE_DRAWN_JS, arg="")


def test_keys_step_and_reveal_with_the_focus_inside_the_view(page, base_url):
    open_step(page, base_url, 4)
    click_into_view(page)
    page.keyboard.press("ArrowRight")
    page.wait_for_url(re.compile(r"step=5(&|$)"))
    open_step(page, base_url, 5)
    click_into_view(page)
    page.keyboard.press("PageUp")
    page.wait_for_url(re.compile(r"step=4(&|$)"))
    open_step(page, base_url, 4)
    click_into_view(page)
    page.keyboard.press("ArrowLeft")
    page.wait_for_url(re.compile(r"step=3(&|$)"))
    open_step(page, base_url, 3)
    click_into_view(page)
    page.keyboard.press("End")
    page.wait_for_url(re.compile(r"step=14(&|$)"))
    open_step(page, base_url, 14)
    click_into_view(page)
    page.keyboard.press("Home")
    page.wait_for_url(re.compile(r"step=1(&|$)"))
    open_step(page, base_url, 1)
    click_into_view(page)
    answer = page.locator("#answer")
    assert answer.is_hidden()
    page.keyboard.press("Space")  # first Space: the answer
    answer.wait_for(state="visible")
    assert "step=1" in page.url
    page.keyboard.press("Space")  # the answer is out: the next step
    page.wait_for_url(re.compile(r"step=2(&|$)"))


def test_blackout_overview_and_help_from_the_page_and_from_the_view(page, base_url):
    open_step(page, base_url, 4)
    blackout = page.locator('[data-role="blackout"]')
    for key in ("b", "."):
        click_into_view(page)
        page.keyboard.press(key)
        blackout.wait_for(state="visible")
        box = blackout.bounding_box()
        assert box["width"] >= 1280 and box["height"] >= 900  # the whole screen, black
        assert blackout.evaluate("(el) => getComputedStyle(el).backgroundColor") == "rgb(0, 0, 0)"
        page.keyboard.press(key)  # back (the focus is on the page now: the same key)
        blackout.wait_for(state="hidden")
    # Overview: O from inside the view, Esc closes it; Esc opens it too; a step is one click away.
    overview = page.locator("#overview")
    click_into_view(page)
    page.keyboard.press("o")
    overview.wait_for(state="visible")
    assert page.evaluate("() => document.activeElement.getAttribute('aria-current')") == "step"  # the current step has the focus
    links = overview.locator(".overview-steps a")
    assert links.count() == 14 and links.nth(3).inner_text() == "A rotation in the plane"
    page.keyboard.press("Escape")
    overview.wait_for(state="hidden")
    click_into_view(page)
    page.keyboard.press("Escape")
    overview.wait_for(state="visible")
    page.keyboard.press("ArrowDown")  # walks the list
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"step=6(&|$)"))
    # ? lists the keys, from the view and from the button in the bar
    open_step(page, base_url, 6)
    keys = page.locator("#keys")
    click_into_view(page)
    page.keyboard.press("?")
    keys.wait_for(state="visible")
    text = keys.inner_text()
    for word in ("PageDown", "PageUp", "Home", "End", "Space", "Esc", "blank", "overview"):
        assert word in text, word
    page.keyboard.press("Escape")
    keys.wait_for(state="hidden")
    page.locator('[data-action="keys"]').click()
    keys.wait_for(state="visible")
    # while a dialog is open the step keys do not step
    page.keyboard.press("ArrowRight")
    page.wait_for_timeout(300)
    assert "step=6" in page.url


def test_a_focused_slider_keeps_its_arrows_and_the_clicker_still_steps(page, base_url):
    open_step(page, base_url, 4)
    view = page.frame_locator("iframe.lecture-view")
    view.locator(".controls-box > summary").click()
    slider = view.locator('input[type="range"][data-param="m"]')
    slider.wait_for(state="visible")
    before = slider.input_value()
    slider.focus()
    page.keyboard.press("ArrowRight")
    frame = frame_of(page)
    frame.wait_for_function("() => new URLSearchParams(location.search).get('m') === '2'")
    assert slider.input_value() != before and "step=4" in page.url
    page.keyboard.press("ArrowLeft")
    frame.wait_for_function("() => !new URLSearchParams(location.search).has('m') || new URLSearchParams(location.search).get('m') === '1'")
    assert "step=4" in page.url
    # a number box keeps its typing: '.', letters and Space do not blank or step the lecture
    box = view.locator('input[data-role="box"][data-param="theta"]')
    box.focus()
    page.keyboard.press(".")
    page.keyboard.press("b")
    page.keyboard.press("Space")
    assert page.locator('[data-role="blackout"]').is_hidden() and page.locator("#answer").is_hidden()
    # the clicker's PageDown steps even from the slider, and the slider does not take it: the
    # frame's last listener (window, bubbling) sees the key's default action prevented, and writes
    # that down where it survives the lecture's navigation (this origin's session storage)
    slider.focus()
    frame.evaluate("""() => addEventListener('keydown', (event) => {
        if (event.key === 'PageDown') sessionStorage.setItem('pagedown-prevented', String(event.defaultPrevented));
    })""")
    with page.expect_navigation(url=re.compile(r"step=5(&|$)")):
        page.keyboard.press("PageDown")
    assert page.evaluate("() => sessionStorage.getItem('pagedown-prevented')") == "true"


def test_messages_from_elsewhere_are_ignored(page, base_url):
    open_step(page, base_url, 4)
    # the lecture page posting to itself, and a message of the wrong shape from the frame
    page.evaluate("() => window.postMessage({ type: 'lecture-key', key: 'ArrowRight' }, location.origin)")
    frame_of(page).evaluate("() => parent.postMessage({ type: 'other', key: 'ArrowRight' }, location.origin)")
    frame_of(page).evaluate("() => parent.postMessage('ArrowRight', location.origin)")
    page.wait_for_timeout(400)
    assert "step=4" in page.url
    # the frame's own well-formed message does step (the path the keys take)
    frame_of(page).evaluate("() => parent.postMessage({ type: 'lecture-key', key: 'ArrowRight' }, location.origin)")
    page.wait_for_url(re.compile(r"step=5(&|$)"))


# ---------------------------------------------------------------------------------------------
# The site navigation never overflows; the stage serves embed=true on a course page too.

NAV_CUT_JS = """() => {
  const header = document.querySelector('.site-header');
  const vw = document.documentElement.clientWidth;
  const cut = [...document.querySelectorAll('.site-header a, .site-header button, .nav-section-name')].filter((el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && (r.left < -1 || r.right > vw + 1 || el.scrollWidth > el.clientWidth + 1);
  }).map((el) => el.textContent.trim());
  return {cut, scrolls: header.scrollWidth > header.clientWidth + 1 || document.documentElement.scrollWidth > vw + 1,
          visible: [...document.querySelectorAll('.lesson-nav a')].filter((a) => a.getBoundingClientRect().width > 0).length};
}"""


@pytest.mark.parametrize(("width", "height", "query"), [(1280, 800, "?presenter=true"), (1920, 1080, "?presenter=true"), (1280, 800, ""), (390, 844, "")])
def test_the_site_navigation_never_overflows(warm_context, base_url, width, height, query):
    page = page_sized(warm_context, width, height)
    try:
        page.goto(f"{base_url}/rotation{query}")
        total = page.locator(".lesson-nav a").count()
        state = page.evaluate(NAV_CUT_JS)
        assert state["cut"] == [] and not state["scrolls"], state
        toggle = page.locator(".nav-toggle")
        if state["visible"] == total:  # listed in the bar, wrapped
            assert not toggle.is_visible()
            return
        # folded into the menu: one button opens it, every lesson whole inside the screen
        assert state["visible"] == 0 and toggle.is_visible()
        toggle.click()
        page.locator("#site-nav").wait_for(state="visible")
        state = page.evaluate(NAV_CUT_JS)
        assert state["cut"] == [] and state["visible"] == total, state
        page.locator('.lesson-nav a[href^="/scores"]').first.click()
        page.wait_for_url(re.compile(r"/scores"))
    finally:
        page.close()


def test_the_stage_on_a_course_page(warm_context, base_url):
    """/rotation?embed=true in a course page's frame-sized window: one figure, sized to the window,
    no scrolling; the numbered links show the others (each drawn), and the fragment says which."""
    page = page_sized(warm_context, 800, 500)
    try:
        page.goto(f"{base_url}/rotation?embed=true")
        page.wait_for_function("() => { const el = document.querySelector('[data-stage-figure] .plot'); return el && window.plotShown?.(el)?.traces && window.plotShown?.(el)?.traces.length; }")
        ids = page.evaluate("() => [...document.querySelectorAll('.plot')].map((el) => el.id)")
        links = page.locator(".stage-picker a")
        assert links.count() == len(ids) == 3
        for i, plot_id in enumerate(ids):
            links.nth(i).click()
            page.wait_for_url(f"**#{plot_id}")
            page.wait_for_function("(id) => { const el = document.getElementById(id); return window.plotShown?.(el)?.traces && window.plotShown?.(el)?.traces.length && el.dataset.pending === undefined; }", arg=plot_id)
            page.wait_for_timeout(100)
            box = page.locator(f"#{plot_id}").bounding_box()
            assert box["y"] >= 0 and box["y"] + box["height"] <= 500 and box["width"] >= 760, box
            assert box["height"] >= 250  # the figure takes the frame's height, not a page's
            assert page.evaluate("() => document.scrollingElement.scrollHeight <= innerHeight && document.scrollingElement.scrollWidth <= innerWidth")
            shown = page.evaluate("() => [...document.querySelectorAll('.plot')].filter((el) => el.getBoundingClientRect().height > 0).map((el) => el.id)")
            assert shown == [plot_id]
        # the controls: a drawer the figure makes room for, its sliders working
        page.locator(".controls-box > summary").click()
        slider = page.locator('input[type="range"][data-param="m"]')
        slider.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_url(re.compile(r"m=2"))
        assert page.url.endswith(f"#{ids[-1]}")  # the address keeps the figure
        plot = page.locator(f"#{ids[-1]}").bounding_box()
        drawer = page.locator(".controls-list").bounding_box()
        assert plot["y"] + plot["height"] <= drawer["y"] + 1
        # a figure put away while the slider moved is drawn from the moved view when it is shown
        shown_js = "(id) => JSON.stringify(window.plotShown?.(document.getElementById(id))?.traces)"
        before = page.evaluate(shown_js, ids[0])
        assert page.locator(f"#{ids[0]}").get_attribute("data-pending") == ""  # waits, out of sight
        links.nth(0).click()
        page.wait_for_url(f"**#{ids[0]}")
        page.wait_for_function("(id) => document.getElementById(id).dataset.pending === undefined", arg=ids[0])
        assert page.evaluate(shown_js, ids[0]) != before
        assert page.url.endswith(f"#{ids[0]}") and "m=2" in page.url
        # a page with one plot has no figure links
        page.goto(f"{base_url}/sinusoidal?embed=true")
        assert page.locator(".stage-picker").is_hidden()
    finally:
        page.close()
