"""Each RoPE lesson in a real browser: change a control, see the plot data and the address change,
reload the address and get the same view, with no console error (the `page` fixture checks that)."""

import math
import re

from tests.browser.helpers import (
    nudge_slider,
    plot_data,
    set_box,
    snapshot,
    wait_for_data_change,
    wait_for_plot,
    wait_for_query,
)


def readout(page, name: str) -> str:
    return page.locator(f'[data-out="{name}"]').inner_text()


def reload_and_compare(page, plot_id: str, drawn: str) -> None:
    url = page.url
    page.reload()
    wait_for_plot(page, plot_id)
    assert page.url == url
    assert snapshot(page, plot_id) == drawn


def test_rotation_shift_moves_the_arrows_but_not_the_angle(page, base_url):
    page.goto(f"{base_url}/rotation")
    wait_for_plot(page, "plot-planes")
    before = snapshot(page, "plot-planes")
    nudge_slider(page, "shift")
    wait_for_query(page, "shift=5")
    wait_for_data_change(page, "plot-planes", before)
    after = snapshot(page, "plot-planes")
    # the shifted panel's angle equals the first one's up to floating-point rounding, and says so
    assert readout(page, "angle_left") == "110°"
    right = readout(page, "angle_right")
    assert right == "110° (the first panel's, exactly)" or right.startswith("≈ 110° (the first panel's up to floating-point rounding")
    reload_and_compare(page, "plot-planes", after)
    assert page.locator('input[data-param="shift"][data-role="box"]').input_value() == "5"

    # The lecture's example is one click away.
    page.click('a[data-preset="lecture"]')
    wait_for_query(page, "k_angle=30")
    wait_for_plot(page, "plot-planes")
    # 30° + 3·(π/6 in floating point) lands a hair off 120°: rounded, and marked as rounded
    assert readout(page, "angle_left") == "≈ 120°" and readout(page, "angle_right").startswith("≈ 120° (the first panel's")
    traces = plot_data(page, "plot-planes")
    rotated_q = next(t for t in traces if t["name"] and t["name"].startswith("R<sub>m</sub> q"))
    assert abs(rotated_q["x"][1] - 0.5) < 1e-12  # R_2 q points at 60°: x = cos 60°


def test_clock_position_and_play_live_in_the_address(page, base_url):
    page.goto(f"{base_url}/clock")
    wait_for_plot(page, "plot-clock")
    before = snapshot(page, "plot-clock")
    set_box(page, "position", "7")
    wait_for_query(page, "position=7")
    wait_for_data_change(page, "plot-clock", before)
    seven = snapshot(page, "plot-clock")
    hands = next(t for t in plot_data(page, "plot-clock") if t["name"] == "hands")
    # Hand 0 (θ = 1) of the first dial points at 7 mod 2π rad.
    angle = math.atan2(hands["y"][1] - hands["y"][0], hands["x"][1] - hands["x"][0]) % (2 * math.pi)
    assert abs(angle - (7 % (2 * math.pi))) < 1e-9
    reload_and_compare(page, "plot-clock", seven)
    assert readout(page, "position_now") == "7"

    # Play advances the position and writes it to the address; pause stops it.
    page.click('[data-clock="play"]')
    page.wait_for_function("() => Number(new URLSearchParams(location.search).get('position')) > 7")
    page.click('[data-clock="play"]')
    assert page.locator('[data-clock="play"]').get_attribute("aria-pressed") == "false"
    page.wait_for_timeout(400)
    stopped = int(re.search(r"position=(\d+)", page.url).group(1))
    page.wait_for_timeout(600)
    assert int(re.search(r"position=(\d+)", page.url).group(1)) == stopped
    assert readout(page, "position_now") == str(stopped)
    page.click('[data-clock="step"]')
    wait_for_query(page, f"position={stopped + 1}")


def test_scores_length_and_what_if_change_the_heatmap(page, base_url):
    page.goto(f"{base_url}/scores")
    wait_for_plot(page, "plot-scores")
    before = snapshot(page, "plot-scores")
    set_box(page, "seq_len", "40")
    wait_for_query(page, "seq_len=40")
    wait_for_data_change(page, "plot-scores", before)
    z = plot_data(page, "plot-scores")[0]["z"]
    assert len(z) == 40 and len(z[0]) == 40
    page.select_option('select[data-param="theta_override"]', "zero")
    wait_for_query(page, "theta_override=zero")
    page.wait_for_function("() => document.querySelector('[data-out=what_if]').textContent.includes('θⱼ = 0')")
    flat = plot_data(page, "plot-scores")[0]["z"]
    values = {round(v, 12) for row in flat for v in row}
    assert len(values) == 1  # position has vanished: one value everywhere
    drawn = snapshot(page, "plot-scores")
    reload_and_compare(page, "plot-scores", drawn)
    assert page.locator('select[data-param="theta_override"]').input_value() == "zero"


def test_offsets_range_and_bases_change_the_curves(page, base_url):
    page.goto(f"{base_url}/offsets")
    wait_for_plot(page, "plot-offsets")
    before = snapshot(page, "plot-offsets")
    set_box(page, "max_offset", "4096")
    wait_for_query(page, "max_offset=4096")
    wait_for_data_change(page, "plot-offsets", before)
    set_box(page, "bases", "100, 10000, 500000")
    wait_for_query(page, "bases=100&bases=10000&bases=500000")
    page.wait_for_function("() => document.querySelectorAll('[data-out=base_rows] tr').length === 3")
    drawn = snapshot(page, "plot-offsets")
    traces = plot_data(page, "plot-offsets")
    assert max(max(t["x"]) for t in traces) <= 4096
    reload_and_compare(page, "plot-offsets", drawn)
    assert page.locator('input[data-param="bases"]').input_value() == "100, 10000, 500000"


def test_offsets_bad_input_shows_beside_the_control_and_keeps_the_plot(page, base_url):
    page.watch.expect_status(422)
    page.goto(f"{base_url}/offsets")
    wait_for_plot(page, "plot-offsets")
    before = snapshot(page, "plot-offsets")
    set_box(page, "hand", "200")
    page.wait_for_function("() => document.getElementById('err-hand').textContent.includes('head_dim/2')")
    assert snapshot(page, "plot-offsets") == before


def test_conventions_head_dim_changes_the_wiring_and_matrices(page, base_url):
    page.goto(f"{base_url}/conventions?head_dim=8")
    wait_for_plot(page, "plot-matrices")
    before = snapshot(page, "plot-wiring")
    nudge_slider(page, "head_dim")
    wait_for_query(page, "head_dim=10")
    wait_for_data_change(page, "plot-wiring", before)
    assert readout(page, "permutation") == "[0, 2, 4, 6, 8, 1, 3, 5, 7, 9]"
    assert float(readout(page, "diff_permuted")) < 1e-12 and float(readout(page, "diff_raw")) > 0.01
    drawn = snapshot(page, "plot-matrices")
    reload_and_compare(page, "plot-matrices", drawn)
    assert page.locator('input[data-param="head_dim"][data-role="box"]').input_value() == "10"


def test_conventions_matrices_share_a_scale_centred_on_zero_at_equal_sizes(page, base_url):
    # At head_dim = 68 every score is of one sign: the scale still runs from −m to m (white = 0),
    # the same for the three matrices, which are drawn at one size (the middle one was narrower).
    page.goto(f"{base_url}/conventions?head_dim=68")
    wait_for_plot(page, "plot-matrices")
    scores = page.request.get(f"{base_url}/api/rope/conventions?head_dim=68").json()["scores"]
    largest = max(abs(v) for key in ("interleaved", "half_permuted", "half_raw") for row in scores[key] for v in row)
    drawn = page.evaluate(
        """() => {
          const el = document.getElementById('plot-matrices');
          return {
            ranges: window.plotShown?.(el)?.heatmaps.map((entry) => [entry.colour.zmin, entry.colour.zmax]),
            widths: [...el.querySelectorAll('svg image')].filter((image) => (image.getAttribute('href') || '').startsWith('blob:')).map((image) => image.getBoundingClientRect().width),
          };
        }"""
    )
    assert len(drawn["ranges"]) == 3 and len({tuple(r) for r in drawn["ranges"]}) == 1
    low, high = drawn["ranges"][0]
    assert low == -high and high >= largest
    assert len(drawn["widths"]) == 3 and max(drawn["widths"]) - min(drawn["widths"]) < 1
