"""Issue 21 item 2: every heatmap's colour range is honest, and the page says so in words.

A matrix that one cell dominates (its largest |value| more than twice the 99.5th percentile) is
clipped at that percentile, and its figure says so; a matrix whose values spread over under 1 % of
their size has its range stated in words.  Expected values come from the numbers the plot holds and
from the JSON twin, recomputed here with numpy.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.web.views import discover
from tests.browser.helpers import ALL_PLOTS_DRAWN, plot_data

STATIC_PAGES = Path(__file__).resolve().parents[2] / "static" / "js" / "pages"
# Pages whose script draws a heatmap (found from the script, so a new lesson is covered).
HEATMAP_VIEWS = [view.name for view in discover() if '"heatmap"' in (STATIC_PAGES / f"{view.name}.js").read_text(encoding="utf-8")]

# Each plot's heatmaps (z as lists) and the words of its figure (title, notes, axis titles).
HEATMAPS_JS = """() => [...document.querySelectorAll('.plot')].map((gd) => {
    const plain = (v) => (v && typeof v === 'object' && 'length' in v ? Array.from(v, plain) : (v === undefined ? null : v));
    const words = [gd.closest('figure') || gd.parentElement, gd].map((e) => e.innerText || '').join(' ')
        + ' ' + [...gd.querySelectorAll('svg text')].map((t) => t.textContent).join(' ');
    const title = document.getElementById(gd.id + '-title');
    return {id: gd.id, words: (title ? title.innerText : '') + ' ' + words,
            heatmaps: (window.plotShown?.(gd)?.traces || []).filter((t) => t.type === 'heatmap').map((t) => plain(t.z))};
})"""


def _finite(z) -> np.ndarray:
    values = np.array([[np.nan if v is None else v for v in row] for row in z], dtype=float)
    return values[np.isfinite(values)]


def _percentile_limit(values: np.ndarray) -> float:
    """The 99.5th percentile of |value| as the pages define it: the sorted value at floor(0.995 n)."""
    magnitudes = np.sort(np.abs(values))
    return float(magnitudes[min(len(magnitudes) - 1, int(0.995 * len(magnitudes)))])


@pytest.fixture(scope="module")
def wide_page(browser, base_url):
    ctx = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = ctx.new_page()
    yield page
    ctx.close()


def test_every_heatmap_states_a_clipped_or_narrow_range(wide_page, base_url):
    problems = []
    for view in HEATMAP_VIEWS:
        wide_page.goto(f"{base_url}/{view}")
        wide_page.wait_for_function(ALL_PLOTS_DRAWN)
        for plot in wide_page.evaluate(HEATMAPS_JS):
            for k, z in enumerate(plot["heatmaps"]):
                values = _finite(z)
                if values.size < 2:
                    continue
                limit, largest = _percentile_limit(values), float(np.abs(values).max())
                lo, hi = float(values.min()), float(values.max())
                where = f"/{view} #{plot['id']} heatmap {k}"
                if limit > 0 and largest > 2 * limit and "percentile" not in plot["words"]:
                    problems.append(f"{where}: one cell dominates (largest {largest:.4g}, 99.5th percentile {limit:.4g}) and no clip is stated")
                if hi > lo and hi - lo < 0.01 * max(abs(lo), abs(hi)) and " %" not in plot["words"]:
                    problems.append(f"{where}: values spread over {100 * (hi - lo) / max(abs(lo), abs(hi)):.3g} % of their size, not stated")
    assert problems == [], "\n".join(problems)


# The drawn colour range of the page's k-th heatmap: Plotly's own heatmap trace where it draws one,
# else the image heatmap the drawing library made of it.
DRAWN_RANGE_JS = """([id, k]) => {
    const gd = document.getElementById(id);
    // (an image heatmap's carrier, transparent, spans 0 … 1: its bar's ticks carry the values)
    const native = (gd._fullData || []).filter((t) => t.type === 'heatmap' && t.opacity !== 0);
    const count = (window.plotShown?.(gd)?.traces || []).filter((t) => t.type === 'heatmap').length;
    if (native.length === count) return [native[k].zmin, native[k].zmax];
    const entry = window.plotShown?.(gd)?.heatmaps[k];
    return [entry.colour.zmin, entry.colour.zmax];
}"""


def test_compare_learned_panel_is_clipped_at_the_stated_percentile(wide_page, base_url):
    """/compare's learned P·Pᵀ: cell (0, 0) is 17× the 99.5th percentile of |value|, so a full ramp
    leaves every other cell white; its colours stop at ±that percentile and the title says so."""
    twin = wide_page.request.get(f"{base_url}/api/compare").json()
    values = _finite(twin["heatmaps"]["learned"])
    limit = _percentile_limit(values)
    assert np.abs(values).max() > 10 * limit  # the defect's precondition: one cell dominates
    k = twin["families"].index("learned")
    wide_page.goto(f"{base_url}/compare")
    wide_page.locator("#plot-heatmaps").scroll_into_view_if_needed()
    wide_page.wait_for_function(ALL_PLOTS_DRAWN)
    assert np.allclose(_finite(plot_data(wide_page, "plot-heatmaps")[k]["z"]), values)
    zmin, zmax = wide_page.evaluate(DRAWN_RANGE_JS, ["plot-heatmaps", k])
    assert zmax == pytest.approx(limit, rel=1e-12) and zmin == pytest.approx(-limit, rel=1e-12)
    title = wide_page.locator("#plot-heatmaps-title").inner_text()
    assert "99.5th percentile" in title and f"±{limit:.3g}" in title
