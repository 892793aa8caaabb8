"""Sentences that state a number follow the controls (issue 15): each test moves a control and
checks the sentence against values computed here, independently of the app (rotation matrices,
complex numbers, explicit loops, the reference formulas)."""

from __future__ import annotations

import math
import re
from urllib.parse import parse_qsl, urlsplit

import numpy as np

from tests.browser.helpers import plot_data, set_box, wait_for_plot, wait_for_query

NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?")


def _out(page, name: str) -> str:
    return page.locator(f'[data-out="{name}"]').first.inner_text()


def _numbers(text: str) -> list[float]:
    return [float(n.replace(",", "")) for n in NUMBER.findall(text)]


def _wait_text(page, name: str, fragment: str) -> None:
    page.wait_for_function(
        "([name, fragment]) => (document.querySelector(`[data-out=\"${name}\"]`)?.textContent || '').includes(fragment)",
        arg=[name, fragment],
    )


def _close(shown: float, exact: float, digits: int) -> bool:
    """``shown`` is ``exact`` rounded to ``digits`` significant digits."""
    return shown == float(f"{exact:.{digits}g}")


# ---- /rotation: "θ and a gap of n − m add (n − m)θ" --------------------------------------------------


def _rotated_angle(q_angle, k_angle, m, n, theta):
    rot = lambda a: np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    q = rot(m * theta) @ [math.cos(math.radians(q_angle)), math.sin(math.radians(q_angle))]
    k = rot(n * theta) @ [math.cos(math.radians(k_angle)), math.sin(math.radians(k_angle))]
    return math.degrees(math.atan2(q[0] * k[1] - q[1] * k[0], q @ k))


def test_rotation_notes_follow_the_gap_and_theta(page, base_url):
    page.goto(f"{base_url}/rotation")
    wait_for_plot(page, "plot-planes")
    sentence = _out(page, "gap_sentence")
    # defaults: θ = π/6, q at 20°, k at 70°, m = 1, n = 3
    assert "the gap n − m = 2, so the turn adds ≈ 60°" in sentence
    assert sentence.endswith(f"is 50° plus that, {round(_rotated_angle(20, 70, 1, 3, math.pi / 6), 9):g}°.")

    set_box(page, "n", "7")  # gap 6: 50° + 180° = 230°, which is −130° in (−180°, 180°]
    wait_for_query(page, "n=7")
    _wait_text(page, "gap_sentence", "n − m = 6")
    sentence = _out(page, "gap_sentence")
    turn = math.degrees(6 * (math.pi / 6))
    angle = _rotated_angle(20, 70, 1, 7, math.pi / 6)
    assert f"adds {'' if turn == 180 else '≈ '}180°" in sentence
    assert "which is" in sentence and "brought into (−180°, 180°]" in sentence
    assert _close(_numbers(sentence.split("which is")[1])[0], angle, 6)
    assert round(angle) == -130

    set_box(page, "theta", "1")  # θ = 1 rad = 57.2958…°: the gap of 6 turns by 343.775°
    wait_for_query(page, "theta=1")
    _wait_text(page, "gap_sentence", "θ ≈ 57.2958° per token")
    sentence = _out(page, "gap_sentence")
    assert _close(_numbers(sentence.split("adds")[1])[0], math.degrees(6), 6)


# ---- /offsets: the random-content band, measured --------------------------------------------------


def _random_offset_curves(head_dim, base, seeds, count):
    theta = base ** (-np.arange(0, head_dim, 2) / head_dim)
    phase = np.exp(1j * np.outer(np.arange(count), theta))
    curves = []
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        q, k = rng.standard_normal(head_dim), rng.standard_normal(head_dim)
        curves.append((phase @ (np.conj(q[0::2] + 1j * q[1::2]) * (k[0::2] + 1j * k[1::2]))).real / math.sqrt(head_dim))
    return np.array(curves)


def test_offsets_note_gives_the_near_and_far_numbers_of_the_draws(page, base_url):
    page.goto(f"{base_url}/offsets?head_dim=128&content=random&max_offset=8192&bases=10000&seeds=4")
    wait_for_plot(page, "plot-offsets")
    _wait_text(page, "content_note", "random content")
    curves = _random_offset_curves(128, 10000.0, 4, 8193)
    mean, std = curves.mean(axis=0), curves.std(axis=0)
    near, far = slice(1, 21), slice(8193 - 819, 8193)
    rms = lambda values: float(np.sqrt(np.mean(values**2)))
    note = _out(page, "content_note")
    assert "over Δ = 1 … 20" in note and "over Δ = 7,374 … 8,192" in note
    values = _numbers(note.split("root-mean-square is")[1])
    # "≈ a over Δ = 1 … 20 and ≈ b over Δ = 7,374 … 8,192"
    assert _close(values[0], rms(mean[near]), 4) and _close(values[3], rms(mean[far]), 4)
    spread = _numbers(note.split("(root-mean-square) of")[1])
    assert _close(spread[0], rms(std[near]), 4) and _close(spread[1], rms(std[far]), 4)

    set_box(page, "seeds", "16")  # another set of draws: the numbers follow
    wait_for_query(page, "seeds=16")
    _wait_text(page, "content_note", "the mean of 16 random draws")
    curves = _random_offset_curves(128, 10000.0, 16, 8193)
    values = _numbers(_out(page, "content_note").split("root-mean-square is")[1])
    assert _close(values[0], rms(curves.mean(axis=0)[near]), 4)

    page.select_option('select[data-param="content"]', "constant")  # the default: it leaves the address
    _wait_text(page, "content_note", "constant content")
    # s(0) = 2·(d/2)/√d = √d·… for q = k = 1: 128/√128
    assert f"s(0) ≈ {128 / math.sqrt(128):.6g}" in _out(page, "content_note")


def test_offsets_fastest_hand_returns_where_the_intro_says(page, base_url):
    """θ_0 = b⁰ = 1 for every base: the records of |wrap(Δ)| are 6, 19, 25, 44, … as written."""
    wrap = lambda x: x - 2 * math.pi * round(x / (2 * math.pi))
    records, best = [], math.inf
    for delta in range(1, 400):
        if abs(wrap(delta)) < best:
            best = abs(wrap(delta))
            if delta > 1:
                records.append(delta)
    assert records[:4] == [6, 19, 25, 44]
    page.goto(f"{base_url}/offsets?bases=123456")
    wait_for_plot(page, "plot-offsets")
    assert "Δ = 6, 19, 25, 44, …" in page.locator(".intro").inner_text()
    assert _out(page, "first_return").startswith("Δ = 6,")


# ---- /ladder: rounded honestly ---------------------------------------------------------------------


def test_ladder_longest_wavelength_is_not_printed_as_exact(page, base_url):
    page.goto(f"{base_url}/ladder")
    wait_for_plot(page, "plot-wavelength")
    longest = 2 * math.pi * 10000 ** (62 / 64)  # 47 117.2…
    assert _out(page, "longest") == f"≈ {round(longest):,} tokens"
    set_box(page, "base", "500000")
    wait_for_query(page, "base=500000")
    _wait_text(page, "longest", "e+")
    shown = _out(page, "longest")
    assert shown.startswith("≈ ") and _close(_numbers(shown)[0], 2 * math.pi * 500000 ** (62 / 64), 4)
    set_box(page, "head_dim", "2")  # one pair, θ_0 = 1: the wavelength 2π
    wait_for_query(page, "head_dim=2")
    _wait_text(page, "longest", "6.283")
    assert _out(page, "theta_first").startswith("1 rad/token (≈ 57.3° per token)")


# ---- /spectrum: DeepSeek's two factors, T ≤ L0, LongRoPE --------------------------------------------


def _mscale(s, k=1.0):
    return 1.0 if s <= 1 else 0.1 * k * math.log(s) + 1


def test_spectrum_deepseek_shows_both_temperature_factors(page, base_url):
    page.goto(f"{base_url}/spectrum")
    page.locator('a[data-preset="DeepSeek-V2 (YaRN)"]').click()
    wait_for_query(page, "mscale_all_dim=0.707")
    wait_for_plot(page, "plot-temperature")
    multiplier = _mscale(40, 0.707) ** 2  # 1.5896…: DeepSeek multiplies its softmax scale by it
    assert _out(page, "attention") == "1 (logits × 1)"
    assert _out(page, "softmax") == f"≈ {multiplier:.6g} = get_mscale(40, 0.707)²"
    assert _out(page, "logits_total") == f"≈ {multiplier:.6g}"
    factors = page.locator('[data-out="factor_notes"] li').all_inner_texts()
    assert factors[0].startswith("attention_factor = 1: transformers' rotary module multiplies cos and sin")
    assert factors[1].startswith(f"softmax_scale_multiplier ≈ {multiplier:.6g}: DeepSeek-V2/V3 attention multiplies its softmax scale")
    traces = {t["name"]: t for t in plot_data(page, "plot-temperature")}
    deepseek = next(t for name, t in traces.items() if name.startswith("DeepSeek"))
    for s, y in zip(deepseek["x"], deepseek["y"], strict=True):
        assert abs(y - _mscale(s, 0.707) ** 2) < 1e-12
    configured = next(t for name, t in traces.items() if name.startswith("this config's attention_factor"))
    assert set(configured["y"]) == {1.0}
    note = _out(page, "temperature_note")
    assert f"the logits are multiplied by ≈ {multiplier:.6g} in all" in note

    set_box(page, "mscale", "1")  # mscale 1, mscale_all_dim 0.707: attention_factor = ratio of the two
    wait_for_query(page, "mscale=1")
    ratio = _mscale(40, 1) / _mscale(40, 0.707)
    _wait_text(page, "attention", f"{ratio:.8g}")
    assert _out(page, "logits_total") == f"≈ {ratio**2 * multiplier:.6g}"


def test_spectrum_without_deepseek_says_the_softmax_multiplier_does_not_apply(page, base_url):
    page.goto(f"{base_url}/spectrum?rope_type=yarn")
    wait_for_plot(page, "plot-scale")
    assert _out(page, "softmax").startswith("none: plain 1/√d attention")  # the multiplier is latent attention's alone
    yarn = 0.1 * math.log(8) + 1
    assert _out(page, "attention") == f"≈ {yarn:.8g} (logits × ≈ {yarn**2:.6g})"
    assert _out(page, "logits_total") == f"≈ {yarn**2:.6g}"


def test_spectrum_below_the_training_length_says_nothing_is_extended(page, base_url):
    page.goto(f"{base_url}/spectrum")
    wait_for_plot(page, "plot-scale")
    assert _out(page, "extends_note") == ""
    set_box(page, "seq_len", "1024")
    wait_for_query(page, "seq_len=1024")
    _wait_text(page, "extends_note", "nothing is extended")
    note = _out(page, "extends_note")
    assert note.startswith("The target length T = 1,024 is below the training length L0 = 4,096 (T/L0 = 0.25)")
    dynamic = next(t for t in plot_data(page, "plot-scale") if t["name"].startswith("dynamic"))
    assert set(dynamic["y"]) == {1.0}  # below max_position_embeddings the base is b
    assert "dynamic leaves every pair as it is" in note and "linear" in note.split("The others")[1]


def test_spectrum_longrope_draws_both_factor_sets_and_the_switch(page, base_url):
    page.goto(f"{base_url}/spectrum")
    page.locator('a[data-preset="Phi-3 mini 128k (LongRoPE)"]').click()
    wait_for_query(page, "rope_type=longrope")
    wait_for_plot(page, "plot-longrope")
    query = parse_qsl(urlsplit(page.url).query)
    short = [float(v) for k, v in query if k == "short_factor"]
    long = [float(v) for k, v in query if k == "long_factor"]
    traces = plot_data(page, "plot-longrope")
    by_name = {t["name"]: t for t in traces}
    short_trace = next(t for name, t in by_name.items() if name.startswith("short_factor"))
    long_trace = next(t for name, t in by_name.items() if name.startswith("long_factor"))
    np.testing.assert_allclose(short_trace["y"], [1 / f for f in short], rtol=1e-12)
    np.testing.assert_allclose(long_trace["y"], [1 / f for f in long], rtol=1e-12)
    assert long_trace["name"].endswith("(in use at T)")
    pair0 = by_name["pair 0 against the current length"]
    for n, y in zip(pair0["x"], pair0["y"], strict=True):
        assert abs(y - 1 / (long[0] if n > 4096 else short[0])) < 1e-12  # long only once seq_len > L0
    assert _out(page, "longrope_in_use") == "long_factor: T = 131,072 > L0 = 4,096"

    set_box(page, "seq_len", "4096")  # exactly L0: still the short factors
    wait_for_query(page, "seq_len=4096")
    _wait_text(page, "longrope_in_use", "short_factor")
    assert _out(page, "longrope_in_use").startswith("short_factor: T = 4,096 ≤ L0 = 4,096")

    page.select_option('select[data-param="rope_type"]', "yarn")  # the default: it leaves the address
    page.wait_for_function("() => document.getElementById('plot-longrope') === null")


# ---- /clock: the alias sentence and the slowest hands of two bases ----------------------------------------


def test_clock_alias_sentence_follows_the_fast_hand(page, base_url):
    page.goto(f"{base_url}/clock")
    wait_for_plot(page, "plot-alias")
    wrap = lambda x: x - 2 * math.pi * round(x / (2 * math.pi))
    delta = min(range(1, 16), key=lambda d: abs(wrap(d * 1.0)))
    assert delta == 6
    sentence = _out(page, "alias_sentence")
    assert f"positions 0 and 6 come within ≈ {abs(wrap(6)):.4g} rad" in sentence
    span = 15 * 0.1  # 1.5000000000000002 in floating point: shown as ≈ 1.5
    assert "wrap around the dial and land out of order" in sentence
    assert f"fan out in order over {'' if span == 1.5 else '≈ '}1.5 rad" in sentence
    set_box(page, "fast_theta", "0.3")  # 15 × 0.3 = 4.5 rad < 2π: in order, and position 1 is closest
    wait_for_query(page, "fast_theta=0.3")
    _wait_text(page, "alias_sentence", "θ = 0.3")
    sentence = _out(page, "alias_sentence")
    assert "stay in order" in sentence and "positions 0 and 1 come within 0.3 rad" in sentence


def test_clock_draws_the_slowest_hands_of_two_bases(page, base_url):
    page.goto(f"{base_url}/clock?head_dim=64&second_base=500000&position=9000")
    wait_for_plot(page, "plot-slow")
    traces = [t for t in plot_data(page, "plot-slow") if (t["name"] or "").endswith("at position m")]
    assert [t["name"] for t in traces] == [f"hand {j} at position m" for j in (29, 30, 31)] * 2
    for trace, base, j in zip(traces, [10000.0] * 3 + [500000.0] * 3, [29, 30, 31] * 2, strict=True):
        angle = math.atan2(trace["y"][1], trace["x"][1]) % (2 * math.pi)
        assert abs(angle - (9000 * base ** (-2 * j / 64)) % (2 * math.pi)) < 1e-9
    ratio = (500000 / 10000) ** (62 / 64)  # periods of the slowest hands, 2π·b^(62/64)
    assert f"≈ {ratio:.4g} times slower" in _out(page, "slow_ratio")
    set_box(page, "second_base", "100")
    wait_for_query(page, "second_base=100")
    _wait_text(page, "slow_ratio", "faster")
    assert f"≈ {(10000 / 100) ** (62 / 64):.4g} times faster" in _out(page, "slow_ratio")


# ---- /scores: what the causal mask does and what RoPE does ----------------------------------------------


def test_scores_causal_sentence_follows_the_length(page, base_url):
    page.goto(f"{base_url}/scores")
    wait_for_plot(page, "plot-scores")
    assert _out(page, "causal_note") == ""
    page.locator('[data-param="causal"]').check()
    wait_for_query(page, "causal=true")
    _wait_text(page, "causal_note", "Causal mask")
    z = plot_data(page, "plot-scores")[0]["z"]
    masked = sum(value is None for row in z for value in row)
    assert masked == 64 * 63 // 2
    note = _out(page, "causal_note")
    assert f"the {64 * 63 // 2:,} cells with n > m (of {64 * 64:,}) are masked" in note
    assert "RoPE knows nothing of the mask" in note and "n − m ≤ 0" in note
    set_box(page, "seq_len", "100")
    wait_for_query(page, "seq_len=100")
    _wait_text(page, "causal_note", f"{100 * 99 // 2:,} cells")


# ---- /relative: Shaw's term for stand-ins ------------------------------------------------------------------


def test_relative_shaw_term_is_the_dot_product_of_the_stand_ins(page, base_url):
    page.goto(f"{base_url}/relative?query_len=5&key_len=9&max_relative_position=2&shaw_dim=4&seed=3")
    wait_for_plot(page, "plot-shaw-term")
    twin = page.request.get(f"{base_url}/api/relative?query_len=5&key_len=9&max_relative_position=2&shaw_dim=4&seed=3").json()
    queries = twin["shaw"]["stand_in"]["queries"]
    table = twin["shaw"]["stand_in"]["table"]
    z = plot_data(page, "plot-shaw-term")[0]["z"]
    for i in range(5):
        for j in range(9):
            row = table[min(max(j - (4 + i), -2), 2) + 2]
            assert abs(z[i][j] - sum(q * a for q, a in zip(queries[i], row, strict=True)) / 2.0) < 1e-12
    # the last query (position 8): keys 0 … 6 are 2 or more back and share one value
    far = _out(page, "shaw_term_far")
    assert far.startswith("query 8: keys 0 … 6 (offset ≤ −2) all get")
    assert _close(_numbers(far.split("all get")[1])[0], z[4][0], 6)
    set_box(page, "max_relative_position", "5")
    wait_for_query(page, "max_relative_position=5")
    _wait_text(page, "shaw_term_far", "keys 0 … 3 (offset ≤ −5)")


# ---- /compare: a causal decoder without position still knows where it is --------------------------------


def test_compare_causal_nope_weights_are_one_over_m_plus_one(page, base_url):
    page.goto(f"{base_url}/compare")
    wait_for_plot(page, "plot-nope")
    traces = plot_data(page, "plot-nope")
    weights = traces[0]["z"]
    output = traces[1]["y"]
    for m in range(24):
        for n in range(24):
            assert weights[m][n] is None if n > m else abs(weights[m][n] - 1 / (m + 1)) < 1e-15
        assert abs(output[m] - 1 / (m + 1)) < 1e-14
    assert _out(page, "nope_recovered") == "m for every m < 24 (largest error 0)"
    assert _out(page, "nope_weights").endswith(f"row 23 ≈ {1 / 24:.6g} each")
    set_box(page, "seq_len", "40")
    wait_for_query(page, "seq_len=40")
    _wait_text(page, "nope_weights", "row 39")
    assert "falls from 1 at m = 0 to 0.025 at m = 39" in _out(page, "nope_note")  # 1/40 exactly
