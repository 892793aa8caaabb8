"""Spectrum, presets, config paste, precision and calculator pages in a real browser, with URL state."""

from __future__ import annotations

import json

from tests.browser.helpers import plot_data, set_box, snapshot, wait_for_data_change, wait_for_plot, wait_for_query

LLAMA31 = {
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "max_position_embeddings": 131072,
    "rope_theta": 500000.0,
    "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "vocab_size": 128256,
}


def _expected_422(page):
    """A rejected config is an HTTP 422 on purpose; Chromium logs it as a failed resource load."""
    page.watch.problems[:] = [p for p in page.watch.problems if "status of 422" not in p]


def _out(page, name):
    return page.locator(f'[data-out="{name}"]').inner_text()


def test_spectrum_control_changes_plot_and_url_and_reload_restores(page, base_url):
    page.goto(f"{base_url}/spectrum")
    wait_for_plot(page, "plot-scale")
    before = snapshot(page, "plot-scale")
    set_box(page, "factor", "16")
    wait_for_query(page, "factor=16")
    wait_for_data_change(page, "plot-scale", before)
    linear = next(t for t in plot_data(page, "plot-scale") if t["name"] == "linear")
    assert all(abs(y - 1 / 16) < 1e-12 for y in linear["y"])
    after = snapshot(page, "plot-scale")
    page.reload()
    wait_for_plot(page, "plot-scale")
    assert snapshot(page, "plot-scale") == after
    assert page.locator('[data-param="factor"][data-role="box"]').input_value() == "16"


def test_spectrum_bad_value_is_shown_beside_its_control(page, base_url):
    page.goto(f"{base_url}/spectrum")
    wait_for_plot(page, "plot-scale")
    page.locator('select[data-param="rope_type"]').select_option("llama3")
    wait_for_query(page, "rope_type=llama3")
    set_box(page, "high_freq_factor", "0.5")
    page.wait_for_function("() => document.getElementById('err-high_freq_factor').textContent.includes('low_freq_factor = 1')")
    _expected_422(page)


def test_preset_link_opens_the_model(page, base_url):
    page.goto(f"{base_url}/spectrum")
    page.locator('a[data-preset="Llama 3.1 8B"]').click()
    wait_for_query(page, "rope_type=llama3")
    wait_for_plot(page, "plot-scale")
    assert _out(page, "bands") == "29 / 6 / 29"
    chosen = next(t for t in plot_data(page, "plot-scale") if t["name"] == "chosen: llama3")
    assert abs(min(chosen["y"]) - 1 / 8) < 1e-12 and max(chosen["y"]) == 1.0
    page.goto(f"{base_url}/spectrum")
    page.locator('a[data-preset="Phi-3 mini 128k (LongRoPE)"]').click()
    wait_for_query(page, "rope_type=longrope")
    wait_for_plot(page, "plot-scale")
    assert _out(page, "attention").startswith("1.190238")


def test_paste_valid_config_becomes_a_shareable_url(page, base_url):
    page.goto(f"{base_url}/spectrum")
    page.locator("#paste-config").fill(json.dumps(LLAMA31))
    page.locator("#paste-form button[type=submit]").click()
    wait_for_query(page, "rope_type=llama3")
    wait_for_plot(page, "plot-scale")
    assert "base=500000" in page.url and "original_max_position_embeddings=8192" in page.url
    assert "rope_scaling" not in page.url and "vocab_size" not in page.url
    assert _out(page, "bands") == "29 / 6 / 29"


def test_paste_invalid_json_is_reported_inline(page, base_url):
    page.goto(f"{base_url}/spectrum")
    url = page.url
    page.locator("#paste-config").fill('{"hidden_size": 4096,, }')
    page.locator("#paste-form button[type=submit]").click()
    page.wait_for_function("() => document.getElementById('paste-error').textContent.startsWith('Invalid JSON')")
    assert page.url == url


def test_paste_missing_field_is_named_inline(page, base_url):
    page.goto(f"{base_url}/spectrum")
    config = json.loads(json.dumps(LLAMA31))
    del config["rope_scaling"]["low_freq_factor"]
    page.locator("#paste-config").fill(json.dumps(config))
    page.locator("#paste-form button[type=submit]").click()
    page.wait_for_function("() => document.getElementById('paste-error').textContent.includes('rope_scaling.low_freq_factor')")
    _expected_422(page)


def test_precision_pairs_in_url(page, base_url):
    page.goto(f"{base_url}/precision")
    wait_for_plot(page, "plot-angle")
    before = snapshot(page, "plot-angle")
    set_box(page, "pairs", "0, 5")
    wait_for_query(page, "pairs=5")
    wait_for_data_change(page, "plot-angle", before)
    names = {t["name"] for t in plot_data(page, "plot-angle")}
    assert names == {f"pair {j}, {d}" for j in (0, 5) for d in ("float32", "bfloat16", "float16")}
    assert page.locator('td[data-dtype="bfloat16"]').first.inner_text().startswith("256")
    page.reload()
    wait_for_plot(page, "plot-angle")
    assert {t["name"] for t in plot_data(page, "plot-angle")} == names


def test_calculator_url_state(page, base_url):
    page.goto(f"{base_url}/calculator")
    page.wait_for_function("() => document.querySelector('[data-out=scale]').textContent === '8'")
    set_box(page, "seq_len", "16384")
    wait_for_query(page, "seq_len=16384")
    page.wait_for_function("() => document.querySelector('[data-out=scale]').textContent === '4'")
    yarn = _out(page, "yarn")
    assert yarn.startswith("1.138629")
    page.reload()
    page.wait_for_function("() => document.querySelector('[data-out=scale]').textContent === '4'")
    assert _out(page, "yarn") == yarn
    assert page.locator("math").count() >= 10  # every row shows its formula as MathML


def test_calculator_says_where_the_bound_comes_from(page, base_url):
    page.goto(f"{base_url}/calculator")
    page.wait_for_function("() => document.querySelector('[data-out=men_note]').textContent.includes('precomputed')")
    set_box(page, "seq_len", "15000")
    wait_for_query(page, "seq_len=15000")
    page.wait_for_function("() => document.querySelector('[data-out=men_note]').textContent.includes('searched for this request')")
    set_box(page, "seq_len", "40000")
    wait_for_query(page, "seq_len=40000")
    page.wait_for_function("() => document.querySelector('[data-out=men]').textContent.startsWith('not given for T = 40,000')")
    assert "16,384" in _out(page, "men")
    assert _out(page, "men_note") == "The one for L is read from a table that scripts/men_table.py precomputed with the same search."


def test_precision_pairs_follow_the_work_limit_of_the_length(page, base_url):
    """seq_len × pairs is bounded: a longer length keeps as many pairs as it allows, says so beside
    the pairs box, and no refused request is sent."""
    refused = []
    page.on("response", lambda response: response.status >= 400 and refused.append(response.url))
    page.goto(f"{base_url}/precision")
    wait_for_plot(page, "plot-angle")
    set_box(page, "seq_len", "524288")
    wait_for_query(page, "seq_len=524288")
    wait_for_query(page, "pairs=0")
    assert page.locator('[data-param="pairs"][data-role="box"]').input_value() == "0"
    assert "at most 1 item" in page.locator("#err-pairs").text_content()
    page.wait_for_function("() => document.getElementById('plot-angle')._shown.length === 3")  # one pair × 3 dtypes
    set_box(page, "pairs", "63")
    wait_for_query(page, "pairs=63")
    page.wait_for_function("() => document.getElementById('err-pairs').textContent === ''")
    set_box(page, "pairs", "0, 63")
    page.wait_for_function("() => document.getElementById('err-pairs').textContent.includes('at most 1 item')")
    assert "pairs=63" in page.url and refused == []
