"""Spectrum, presets, config paste, precision and calculator pages in a real browser, with URL state."""

from __future__ import annotations

import json
import math
import re

import numpy as np

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
    attention = math.sqrt(1 + math.log(32) / math.log(4096))  # LongRoPE's default, s = 32, L0 = 4096
    assert _out(page, "attention") == f"≈ {attention:.8g} (logits × ≈ {attention ** 2:.6g})"


def _paste(page, config):
    page.locator("#paste-config").fill(json.dumps(config))
    page.locator("#paste-form button[type=submit]").click()


def _report(page):
    """The report under the paste box: {label: text} of its list, and its notes."""
    page.wait_for_function("() => document.querySelector('#paste-report dl') !== null")
    rows = page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('#paste-report dl > div')]"
        ".map((d) => [d.querySelector('dt').textContent, d.querySelector('dd').textContent]))"
    )
    return rows, page.locator("#paste-report li").all_inner_texts()


def test_paste_valid_config_becomes_a_shareable_url(page, base_url):
    page.goto(f"{base_url}/spectrum")
    _paste(page, LLAMA31)
    wait_for_query(page, "rope_type=llama3")
    wait_for_plot(page, "plot-scale")
    assert "base=500000" in page.url and "original_max_position_embeddings=8192" in page.url and "head_dim=128" in page.url
    assert "rope_scaling" not in page.url and "vocab_size" not in page.url
    page.wait_for_function("() => document.querySelector('[data-out=bands]').textContent === '29 / 6 / 29'")
    rows, _ = _report(page)
    assert rows["Head and rotated dimensions"].startswith("128 of 128 dimensions rotate (64 pairs")
    shared = page.url
    page.reload()  # the plots are the address: the same view after a reload
    wait_for_plot(page, "plot-scale")
    assert page.url == shared and _out(page, "bands") == "29 / 6 / 29"


# Published configs, their RoPE fields (google/gemma-3-4b-it, HuggingFaceTB/SmolLM3-3B,
# Qwen/Qwen2.5-VL-7B-Instruct, microsoft/Phi-3-mini-128k-instruct, deepseek-ai/DeepSeek-V3); Phi-3's two
# lists of 48 factors are replaced by constant ones here: which set is drawn depends on the length alone.
GEMMA3 = {"model_type": "gemma3", "text_config": {"model_type": "gemma3_text", "hidden_size": 2560, "num_attention_heads": 8,
          "head_dim": 256, "num_hidden_layers": 34, "rope_scaling": {"factor": 8.0, "rope_type": "linear"}}}
SMOLLM3 = {"model_type": "smollm3", "hidden_size": 2048, "num_attention_heads": 16, "num_hidden_layers": 36,
           "max_position_embeddings": 65536, "rope_theta": 5000000.0, "no_rope_layer_interval": 4,
           "no_rope_layers": [0 if (i + 1) % 4 == 0 else 1 for i in range(36)]}
QWEN25VL = {"model_type": "qwen2_5_vl", "hidden_size": 3584, "num_attention_heads": 28, "max_position_embeddings": 128000,
            "rope_theta": 1000000.0, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}}
PHI3 = {"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 131072,
        "original_max_position_embeddings": 4096, "rope_theta": 10000.0,
        "rope_scaling": {"type": "longrope", "short_factor": [1.5] * 48, "long_factor": [4.0] * 48}}
DEEPSEEK_V3 = {"model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128, "qk_nope_head_dim": 128,
               "qk_rope_head_dim": 64, "max_position_embeddings": 163840, "rope_theta": 10000,
               "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
                                "original_max_position_embeddings": 4096, "type": "yarn"}}


def test_paste_report_shows_every_setting_the_config_gives(page, base_url):
    page.goto(f"{base_url}/spectrum")
    _paste(page, GEMMA3)
    wait_for_query(page, "rope_type=linear")
    rows, notes = _report(page)
    settings = page.locator("#paste-report table tbody tr").all_inner_texts()
    assert len(settings) == 2
    assert "sliding_attention" in settings[1] and "10000" in settings[1] and "draw this setting" in settings[1]
    assert "full_attention" in settings[0] and "1000000" in settings[0] and "drawn above" in settings[0]
    assert any("rope_local_base_freq = 10000" in note for note in notes)
    assert rows["Layer types"].startswith("sliding_attention: 0, 1, 2, 3, 4, 6")

    _paste(page, SMOLLM3)
    wait_for_query(page, "base=5000000")
    rows, notes = _report(page)
    assert rows["Layers without RoPE (NoPE)"] == "3, 7, 11, 15, 19, 23, 27, 31, 35"
    assert any(note.startswith("NoPE layers: 9 of 36") for note in notes)

    _paste(page, QWEN25VL)
    wait_for_query(page, "base=1000000")
    page.wait_for_function("() => document.querySelector('#paste-report a[href^=\"/mrope\"]') !== null")
    rows, _ = _report(page)
    assert rows["M-RoPE sections"].startswith("16 / 24 / 24 pairs on t / h / w (consecutive blocks)")
    href = page.locator('#paste-report a[href^="/mrope"]').get_attribute("href")
    assert "mrope_section=16&mrope_section=24&mrope_section=24" in href and "head_dim=128" in href

    _paste(page, PHI3)
    wait_for_query(page, "rope_type=longrope")
    rows, _ = _report(page)
    assert rows["LongRoPE factors drawn"].startswith("long_factor: T = 131,072 > original_max_position_embeddings = 4,096")
    page.wait_for_function("() => document.querySelector('[data-out=method]').textContent.includes('long_factor at T = 131,072')")

    _paste(page, DEEPSEEK_V3)
    wait_for_query(page, "mscale_all_dim=1")
    rows, notes = _report(page)
    assert rows["Head and rotated dimensions"].startswith("64 of 64 dimensions rotate (32 pairs")
    assert any("qk_rope_head_dim = 64" in note for note in notes)


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
    # 0.1·ln 4 + 1 = 1.13862943…, shown to 8 significant digits and marked as rounded; logits × its square
    assert yarn == f"≈ {0.1 * math.log(4) + 1:.8g} (logits × ≈ {(0.1 * math.log(4) + 1) ** 2:.6g})"
    page.reload()
    page.wait_for_function("() => document.querySelector('[data-out=scale]').textContent === '4'")
    assert _out(page, "yarn") == yarn
    assert page.locator("math").count() >= 10  # every row shows its formula as MathML


# ---- the Men et al. criterion, checked by brute force: B_m = Σ_j cos(m·θ_j) at every m ----------


def _margin(base: float, head_dim: int, length: int) -> np.ndarray:
    """B_m for m = 0 … length−1, straight from the definition (one cosine per pair and distance)."""
    theta = 1.0 / base ** (np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)
    return np.cos(np.arange(length, dtype=np.float64)[:, None] * theta[None, :]).sum(axis=1)


def _first_failing(base: float, head_dim: int, length: int) -> int | None:
    negative = np.flatnonzero(_margin(base, head_dim, length) < 0)
    return int(negative[0]) if negative.size else None


def _grid(upto: float) -> list[float]:
    """Bases with four significant digits from 1.000 up to ``upto``, in increasing order."""
    values: list[float] = []
    for exponent in range(0, 16):
        for k in range(1000, 10000):
            value = float(f"{k}e{exponent - 3}")
            if value > upto:
                return values
            values.append(value)
    return values


def test_calculator_verdict_and_smallest_base_follow_the_definition(page, base_url):
    """d = 128, T = 4096: 26 960 passes and 26 950 just below it fails; 27 000 fails at m = 4079,
    28 700 passes; a base above 26 960 fails, so the page says larger bases can fail."""
    d, T = 128, 4096
    assert _first_failing(26960, d, T) is None and _first_failing(28700, d, T) is None
    assert _first_failing(27000, d, T) == 4079
    below = _first_failing(26950, d, T)
    assert below is not None

    page.goto(f"{base_url}/calculator?head_dim={d}&seq_len={T}&base=27000")
    wait_for_plot(page, "plot-margin")
    assert _out(page, "verdict") == "no: Bₘ < 0 first at m = 4,079"
    assert _out(page, "smallest") == "26,960 (from the precomputed table)"
    assert _out(page, "previous") == f"26,950 fails: Bₘ < 0 first at m = {below:,}"
    larger = _out(page, "larger")
    found = re.match(r"([\d,]+) fails: Bₘ < 0 at m = ([\d,]+)", larger)
    witness, at = (int(group.replace(",", "")) for group in found.groups())
    assert witness > 26960 and _margin(witness, d, T)[at] < 0
    note = _out(page, "interval_note")
    assert note.startswith("Larger bases can fail: 26,960 passes for T = 4,096") and f"{int(witness):,}" in note

    # The plot: B_m of b and of the smallest base, each as the lowest and highest value per column.
    traces = plot_data(page, "plot-margin")
    by_name = {}
    for trace in traces:
        by_name.setdefault(trace["name"], []).append(trace)
    chosen = by_name["b = 27,000 (fails at m = 4,079)"]
    smallest = by_name["smallest passing base 26,960 (passes)"]
    assert any(t["name"] == "B<sub>m</sub> = 0" and set(t["y"]) == {0} for t in traces)
    for base, (low, high) in ((27000, chosen), (26960, smallest)):
        starts = np.array(low["x"], dtype=np.int64)
        values = _margin(base, d, T)
        np.testing.assert_allclose(low["y"], np.minimum.reduceat(values, starts), atol=1e-9)
        np.testing.assert_allclose(high["y"], np.maximum.reduceat(values, starts), atol=1e-9)

    set_box(page, "base", "28700")
    wait_for_query(page, "base=28700")
    page.wait_for_function("() => document.querySelector('[data-out=verdict]').textContent.startsWith('yes')")
    assert _out(page, "verdict") == "yes: Bₘ ≥ 0 for every m < 4,096"
    lowest = _margin(28700, d, T)
    assert f"lowest Bₘ ≈ {lowest.min():.4g} at m = {int(lowest.argmin()):,}" in _out(page, "verdict_detail")


def test_calculator_searches_a_small_case_live_and_it_is_the_smallest(page, base_url):
    """d = 10, T = 20 is not tabulated: searched for the request; an exhaustive walk over the grid
    from 1.000 finds the same base."""
    d, T = 10, 20
    expected = next(b for b in _grid(1e6) if _first_failing(b, d, T) is None)
    page.goto(f"{base_url}/calculator?head_dim={d}&seq_len={T}&original_max_position_embeddings=8")
    wait_for_plot(page, "plot-margin")
    assert _out(page, "smallest") == f"{expected:g} (searched for this request)"
    grid = _grid(expected)
    previous = grid[-2]
    assert _out(page, "previous") == f"{previous:g} fails: Bₘ < 0 first at m = {_first_failing(previous, d, T)}"
    assert "d = 10 is not tabulated" in _out(page, "table_note")

    set_box(page, "seq_len", "200000")
    wait_for_query(page, "seq_len=200000")
    page.wait_for_function("() => document.querySelector('[data-out=smallest]').textContent.startsWith('not given')")
    assert "d = 10 is not among the precomputed head dims" in _out(page, "smallest")


def test_calculator_below_the_training_length_says_nothing_is_extended(page, base_url):
    page.goto(f"{base_url}/calculator?head_dim=128")
    wait_for_plot(page, "plot-margin")
    assert _out(page, "extends_note") == ""
    set_box(page, "seq_len", "2048")
    wait_for_query(page, "seq_len=2048")
    page.wait_for_function("() => document.querySelector('[data-out=extends_note]').textContent !== ''")
    note = _out(page, "extends_note")
    # NTK's formula at s = 0.5 would lower the base: 10000·0.5^(128/126)
    lowered = 10000 * 0.5 ** (128 / 126)
    assert note.startswith("The target length T = 2,048 is below the training length L0 = 4,096 (T/L0 = 0.5)")
    assert "nothing is extended" in note and f"lower b to ≈ {lowered:,.2f}" in note
    assert _out(page, "ntk_base") == f"not an extension (s ≤ 1): the formula would give ≈ {lowered:,.2f}"
    assert _out(page, "yarn") == "1 (logits × 1)"
    set_box(page, "seq_len", "4096")
    wait_for_query(page, "seq_len=4096")
    page.wait_for_function("() => document.querySelector('[data-out=extends_note]').textContent.includes('equals')")


def test_calculator_says_how_far_the_curve_reaches(page, base_url):
    """T·d/2 above 2^24: B_m is drawn for the first 2^24/(d/2) distances and the page says so."""
    page.goto(f"{base_url}/calculator?head_dim=128&seq_len=4194304&base=1000000000")
    wait_for_plot(page, "plot-margin")
    shown = (1 << 24) // 64
    note = _out(page, "coverage_note")
    assert note.startswith(f"Drawn for m < {shown:,} only, of the 4,194,304 distances below T")
    xs = [x for trace in plot_data(page, "plot-margin") for x in trace["x"]]
    assert max(xs) == shown - 1
    # b = 10^9 has no failure in the first 2^26/(d/2) distances, and checking all of T is too costly.
    assert _out(page, "verdict") == f"not decided: no failure among the first {(1 << 26) // 64:,} of the 4,194,304 distances (checking them all is more than one request's work)"
    assert _first_failing(1e9, 128, 1 << 16) is None


def test_precision_pairs_follow_the_work_limit_of_the_length(page, base_url):
    """seq_len × pairs is bounded: a longer length keeps as many pairs as it allows, says so beside
    the pairs box, and no refused request is sent."""
    refused = []
    page.on("response", lambda response: response.status >= 400 and refused.append(response.url))
    page.goto(f"{base_url}/precision?head_dim=128")
    wait_for_plot(page, "plot-angle")
    set_box(page, "seq_len", "524288")
    wait_for_query(page, "seq_len=524288")
    wait_for_query(page, "pairs=0")
    assert page.locator('[data-param="pairs"][data-role="box"]').input_value() == "0"
    assert "at most 1 item" in page.locator("#err-pairs").text_content()
    page.wait_for_function("() => window.plotShown?.(document.getElementById('plot-angle'))?.traces.length === 3")  # one pair × 3 dtypes
    set_box(page, "pairs", "63")
    wait_for_query(page, "pairs=63")
    page.wait_for_function("() => document.getElementById('err-pairs').textContent === ''")
    set_box(page, "pairs", "0, 63")
    page.wait_for_function("() => document.getElementById('err-pairs').textContent.includes('at most 1 item')")
    assert "pairs=63" in page.url and refused == []
