"""A change redraws the plots whose figure changed, and only those (static/js/lib/paint.js).

Each Plotly redraw costs tens of milliseconds here, so a page that redrew every plot on every
change would lag by the sum of them.  Redraws are counted with Plotly's own events: plotly_afterplot
(every redraw, a full one or a heatmap whose image alone was swapped by Plotly.update) and plotly_animated
(traces moved without a redraw).
"""

import pytest

from tests.browser.helpers import (
    ALL_PLOTS_DRAWN,
    count_api,
    draw_pending,
    nudge_slider,
    set_box,
    settle,
    snapshot,
    wait_for_data_change,
    wait_for_plot,
    wait_for_query,
    wait_until_idle,
)

pytestmark = pytest.mark.browser

COUNT_REDRAWS_JS = """() => {
  window.__redraws = {};
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    window.__redraws[gd.id] = 0;
    gd.on('plotly_afterplot', () => { window.__redraws[gd.id] += 1; });
    gd.on('plotly_relayout', () => { window.__redraws[gd.id] += 1; });
    gd.on('plotly_animated', () => { window.__redraws[gd.id] += 1; });
  }
}"""


def test_the_same_figure_is_drawn_once_and_a_new_one_again(page, base_url):
    page.goto(f"{base_url}/ladder")
    counts = page.evaluate(
        """async () => {
          const { curves } = await import('/static/js/lib/marks/index.js');
          const el = document.createElement('div');
          el.className = 'plot';  // sized by the page's style, as every plot is, and in view
          document.querySelector('.figures').prepend(el);
          let drawn = 0;
          const figure = (y) => [[{ x: [0, 1, 2], y }], { title: 'probe' }];
          await curves(el, ...figure([1, 2, 3]));
          el.on('plotly_afterplot', () => { drawn += 1; });
          await curves(el, ...figure([1, 2, 3]));
          const afterSame = drawn;
          await curves(el, ...figure([1, 2, 4]));
          return { afterSame, afterNew: drawn, y: Array.from(el.data[0].y) };
        }"""
    )
    assert counts == {"afterSame": 0, "afterNew": 1, "y": [1, 2, 4]}


def test_switching_the_position_kind_leaves_the_no_position_plot_alone(page, base_url):
    count_api(page)
    page.goto(f"{base_url}/why")
    page.wait_for_function(ALL_PLOTS_DRAWN)
    page.evaluate(COUNT_REDRAWS_JS)
    page.select_option('select[data-param="position"]', "rope")
    draw_pending(page)
    page.wait_for_function("() => window.__redraws['plot-with'] >= 1 && window.__redraws['plot-scores'] >= 1")
    wait_until_idle(page)  # every fetch answered and drawn: a stray redraw of plot-none would be counted by now
    redraws = page.evaluate("window.__redraws")
    assert redraws["plot-none"] == 0, redraws
    assert "rope" in page.locator("#plot-with-title").text_content().lower()


def test_a_plot_out_of_view_is_updated_when_it_comes_into_view(page, base_url):
    # /why stacks three plots; in a 1280 × 900 window the third (plot-scores) starts ~1500 px down.
    count_api(page)
    page.goto(f"{base_url}/why")
    page.wait_for_function(ALL_PLOTS_DRAWN)
    page.evaluate("() => window.scrollTo(0, 0)")
    top = page.evaluate("() => document.getElementById('plot-scores').getBoundingClientRect().top")
    assert top > 900 + 200, "plot-scores should start below the window and its 200 px margin"
    page.evaluate(COUNT_REDRAWS_JS)
    before = page.evaluate("() => document.getElementById('plot-scores-title').textContent")
    page.select_option('select[data-param="position"]', "rope")
    page.wait_for_function("() => document.getElementById('plot-scores').dataset.pending !== undefined")
    wait_until_idle(page)  # the move fetched and drew all it was going to
    assert page.evaluate("window.__redraws['plot-scores']") == 0  # not drawn while out of view
    assert page.evaluate("() => document.getElementById('plot-scores-title').textContent") == before

    page.locator("#plot-scores").scroll_into_view_if_needed()
    page.wait_for_function("() => window.__redraws['plot-scores'] >= 1 && document.getElementById('plot-scores').dataset.pending === undefined")
    assert page.evaluate("() => document.getElementById('plot-scores-title').textContent") != before


def test_a_view_too_large_to_embed_is_fetched_and_drawn(page, base_url):
    """/sinusoidal at 512 × 512 is not embedded in its HTML; the page fetches the twin and draws it."""
    url = "/api/sinusoidal/table?seq_len=512&dim=512"
    with page.expect_response(lambda response: url in response.url) as response:
        page.goto(f"{base_url}/sinusoidal?seq_len=512&dim=512")
    assert response.value.ok
    page.wait_for_function("() => window.plotShown?.(document.getElementById('plot'))?.traces?.[0]?.z?.length === 512")
    drawn = page.evaluate(
        """async (url) => {
          const twin = await (await fetch(url, { headers: { Accept: 'application/json' } })).json();
          const z = window.plotShown?.(document.getElementById('plot'))?.traces[0].z;
          return { rows: z.length, cols: z[0].length, same: JSON.stringify(Array.from(z, (row) => Array.from(row))) === JSON.stringify(twin.table) };
        }""",
        url,
    )
    assert drawn == {"rows": 512, "cols": 512, "same": True}


def test_plotly_holds_the_pages_numbers_after_every_kind_of_redraw(page, base_url):
    """A move redraws through Plotly.react's transition (the page asks for it: traces that only
    moved) or a full react; whichever it was, what Plotly draws from is the page's data, number for
    number."""
    page.goto(f"{base_url}/rotation")
    page.wait_for_function(ALL_PLOTS_DRAWN)
    page.evaluate("() => window.scrollTo(0, 0)")
    page.evaluate(COUNT_REDRAWS_JS)
    page.evaluate("""() => { window.__kinds = [];
      const gd = document.getElementById('plot-planes');
      gd.on('plotly_transitioned', () => window.__kinds.push('animate'));  // the transition the page asks for
      gd.on('plotly_afterplot', () => window.__kinds.push('react')); }""")
    for key in ("ArrowRight", "ArrowRight", "ArrowLeft"):
        seen = page.evaluate("window.__kinds.length")
        slider = page.locator('input[type="range"][data-param="m"]')
        slider.focus()
        slider.press(key)
        # each move is drawn: one more of Plotly's events, within the bound
        page.wait_for_function("(seen) => window.__kinds.length > seen", arg=seen, timeout=5000)
    assert "animate" in page.evaluate("window.__kinds")  # the slider took the cheap path
    mismatches = page.evaluate("""() => {
      const gd = document.getElementById('plot-planes');
      const out = [];
      window.plotShown?.(gd)?.traces.forEach((trace, i) => {
        if (trace.mode === 'text') return;  // written as HTML over the plot
        const drawn = gd.data[i];
        for (const axis of ['x', 'y']) {
          if (JSON.stringify(Array.from(drawn[axis])) !== JSON.stringify(Array.from(trace[axis]))) out.push(`${i}.${axis}`);
        }
      });
      return out;
    }""")
    assert mismatches == []


RANGES_JS = """(id) => { const full = document.getElementById(id)._fullLayout;
  return [full.xaxis.range.map(Number), full.yaxis.range.map(Number)]; }"""


def _close(a, b, tol=1e-6):
    return all(abs(x - y) <= tol * max(1.0, abs(x), abs(y)) for pair_a, pair_b in zip(a, b, strict=True) for x, y in zip(pair_a, pair_b, strict=True))


@pytest.mark.parametrize(
    "path, plot_id, slider",
    [("/scores?seq_len=64", "plot-scores", "head_dim"), ("/precision", "plot-score", "base")],
    ids=["image heatmap", "curves"],
)
def test_a_zoom_stays_through_a_move_and_a_double_click_gives_the_view_of_its_address(page, base_url, path, plot_id, slider):
    page.goto(f"{base_url}{path}")
    page.wait_for_function(ALL_PLOTS_DRAWN)
    plot = page.locator(f"#{plot_id}")
    plot.scroll_into_view_if_needed()
    before = page.evaluate(RANGES_JS, plot_id)
    page.evaluate("""(id) => { window.__zooms = 0;
      document.getElementById(id).on('plotly_relayout', (change) => { if (Object.keys(change || {}).some((key) => key.includes('.range'))) window.__zooms += 1; }); }""", plot_id)
    box = plot.locator(".nsewdrag").first.bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(cx - box["width"] / 4, cy - box["height"] / 4)
    page.mouse.down()
    page.mouse.move(cx + box["width"] / 8, cy + box["height"] / 8, steps=6)
    page.mouse.up()
    page.wait_for_function("() => window.__zooms >= 1", timeout=5000)  # Plotly reported the reader's zoom
    zoomed = page.evaluate(RANGES_JS, plot_id)
    assert not _close(zoomed, before), (zoomed, before)

    shown = snapshot(page, plot_id)
    nudge_slider(page, slider)
    wait_for_data_change(page, plot_id, shown)
    settle(page)
    assert _close(page.evaluate(RANGES_JS, plot_id), zoomed), "the zoom was lost when a slider moved"

    page.mouse.dblclick(cx, cy)
    settle(page)
    reset = page.evaluate(RANGES_JS, plot_id)
    fresh = page.context.new_page()
    fresh.goto(page.url)
    fresh.wait_for_function(ALL_PLOTS_DRAWN)
    fresh.locator(f"#{plot_id}").scroll_into_view_if_needed()
    expected = fresh.evaluate(RANGES_JS, plot_id)
    fresh.close()
    assert _close(reset, expected), (reset, expected)
    assert not _close(reset, zoomed)


def test_a_heatmaps_axes_follow_every_move_of_its_length(page, base_url):
    # Moves whose cheap update swaps the image and moves the axes, between moves that only relabel
    # the colour bar: the axes span the new length each time (a library relayout once passed for the
    # reader's zoom, and the axes stopped following at the first move).
    page.goto(f"{base_url}/scores?seq_len=40")
    wait_for_plot(page, "plot-scores")
    for name, value, length in [("seq_len", "50", 50), ("head_dim", "48", 50), ("seq_len", "100", 100), ("head_dim", "40", 100), ("seq_len", "30", 30)]:
        set_box(page, name, value)
        wait_for_query(page, f"{name}={value}")
        page.wait_for_function(
            """(length) => {
              const el = document.getElementById('plot-scores');
              const x = el._fullLayout.xaxis.range, y = el._fullLayout.yaxis.range;
              return x[0] === -0.5 && x[1] === length - 0.5 && y[0] === length - 0.5 && y[1] === -0.5;
            }""",
            arg=length,
            timeout=5000,
        )
    assert not page.evaluate("() => window.plotShown?.(document.getElementById('plot-scores'))?.zoomed.length")
