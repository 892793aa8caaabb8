"""/learned in a real browser: the stored values drawn, the cliff, and a position past the table
refused with its reason beside the control."""

import re
from pathlib import Path

import numpy as np

from tests.browser.helpers import plot_data, set_box, snapshot, wait_for_data_change, wait_for_plot, wait_for_query

NPY = Path(__file__).resolve().parents[2] / "app" / "data" / "learned" / "all-minilm-l6-v2" / "table.npy"


def stored() -> np.ndarray:
    raw = NPY.read_bytes()
    length = int.from_bytes(raw[8:10], "little")
    return np.frombuffer(raw[10 + length :], dtype="<f4").reshape(512, 384)


def test_table_heatmap_shows_the_stored_values(page, base_url):
    page.goto(f"{base_url}/learned")
    wait_for_plot(page, "plot-table")
    heat = plot_data(page, "plot-table")[0]
    assert heat["type"] == "heatmap" and len(heat["z"]) == 64 and len(heat["z"][0]) == 64
    np.testing.assert_array_equal(np.array(heat["z"], dtype=np.float32), stored()[:64, :64])
    assert page.locator("#controls select[data-param='model']").count() == 1
    assert "4c347d866c9012e7" in page.locator('[data-out="sha"]').inner_text()


def test_position_past_the_end_is_explained_and_the_cliff_moves(page, base_url):
    page.watch.expect_status(422)
    page.goto(f"{base_url}/learned")
    wait_for_plot(page, "plot-cliff")
    before = snapshot(page, "plot-cliff")
    learned = plot_data(page, "plot-cliff")[0]
    assert learned["x"][-1] == 512 + 128 - 1 and learned["y"][511] is not None and learned["y"][512] is None
    sinusoid = plot_data(page, "plot-cliff")[1]
    assert sinusoid["y"][600] is not None  # the sinusoid goes on past the table

    set_box(page, "position", "600")
    error = page.locator("#err-position")
    error.wait_for(state="visible")
    assert "at most 511" in error.inner_text() and "no vector" in error.inner_text()
    assert snapshot(page, "plot-cliff") == before  # the last good plot stays

    set_box(page, "position", "300")
    wait_for_query(page, "position=300")
    wait_for_data_change(page, "plot-cliff", before)
    learned = plot_data(page, "plot-cliff")[0]
    assert learned["y"][300] == 1.0 or abs(learned["y"][300] - 1.0) < 1e-12
    page.wait_for_function("() => document.getElementById('err-position').textContent === ''")


def test_similarity_and_components_are_drawn_side_by_side(page, base_url):
    page.goto(f"{base_url}/learned?first_position=10&last_position=41")
    wait_for_plot(page, "plot-similarity")
    learned, sinusoid = plot_data(page, "plot-similarity")
    assert learned["x"] == list(range(10, 42)) and len(sinusoid["z"]) == 32
    z = np.array(sinusoid["z"])
    for offset in range(-31, 32):
        diagonal = np.diagonal(z, offset)
        assert np.all(diagonal == diagonal[0])  # the sinusoid's constant diagonals
    pca = plot_data(page, "plot-pca")
    assert len(pca[0]["x"]) == 32 and len(pca[1]["x"]) == 32
    bars = plot_data(page, "plot-variance")
    assert len(bars[0]["y"]) == 16 and abs(sum(bars[0]["y"][:2]) - 0.245) < 0.001


def test_variance_hover_prints_a_percentage(page, base_url):
    page.goto(f"{base_url}/learned")
    wait_for_plot(page, "plot-variance")
    bars = plot_data(page, "plot-variance")
    page.locator("#plot-variance").scroll_into_view_if_needed()
    box = page.locator("#plot-variance").bounding_box()
    label = page.locator("#plot-variance .hoverlayer .hovertext .nums")  # Plotly's own hover label (its text, not the name beside it)
    # the pointer low over the third pair of bars, where Plotly's axes put it
    where = page.evaluate("""() => { const gd = document.getElementById('plot-variance'), full = gd._fullLayout;
      const b = gd.getBoundingClientRect(), k = gd._fullData[0].x[2], low = Math.min(gd._fullData[0].y[2], gd._fullData[1].y[2]) / 3;
      return [b.left + full.xaxis._offset + full.xaxis.d2p(k), b.top + full.yaxis._offset + full.yaxis.d2p(low)]; }""")
    page.mouse.move(box["x"] + 2, box["y"] + 2)
    page.mouse.move(*where)
    page.wait_for_function("() => document.querySelector('#plot-variance .hoverlayer .hovertext .nums')?.textContent.startsWith('PC')")
    text = label.first.text_content() if label.count() else ""
    found = re.match(r"PC(\d+): (\d+\.\d\d)%", text)
    assert found, text  # %{y:.2%}: the share times 100, two decimals, a per cent sign
    k, shown = int(found.group(1)), found.group(2)
    assert any(f"{trace['y'][trace['x'].index(k)] * 100:.2f}" == shown for trace in bars)
