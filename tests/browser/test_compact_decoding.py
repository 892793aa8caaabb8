"""The pages' fetch layer (static/js/lib/api.js) decodes the compact encoding to exactly what
JSON.parse gives for the plain JSON twin: every registered view at its defaults, plus large and
NaN-masked matrices.  Compared as JSON text (shortest round-trip numbers, null for non-finite)."""

import pytest

from app.main import create_app  # noqa: F401  (registers every view)
from app.web.views import discover

VIEWS = discover()

COMPARE_JS = """async (url) => {
  const { LatestRequest, COMPACT_TYPE } = await import('/static/js/lib/api.js');
  const plainResponse = await fetch(url, { headers: { Accept: 'application/json' } });
  const plain = await plainResponse.json();
  const result = await new LatestRequest().get(url);
  const probe = await fetch(url, { headers: { Accept: COMPACT_TYPE } });
  return {
    ok: result.ok,
    compactType: probe.headers.get('content-type'),
    plainType: plainResponse.headers.get('content-type'),
    same: JSON.stringify(result.body) === JSON.stringify(plain),
    typed: /"bdata"/.test(await probe.text()),
  };
}"""


@pytest.mark.parametrize("view", VIEWS, ids=[view.name for view in VIEWS])
def test_page_fetch_decodes_to_the_json_twin(page, base_url, view):
    page.goto(f"{base_url}/{view.name}")
    outcome = page.evaluate(COMPARE_JS, view.api_path)
    assert outcome["ok"]
    assert outcome["plainType"].startswith("application/json")
    assert outcome["compactType"].startswith("application/vnd.pe-explorer.compact+json")
    assert outcome["same"]


@pytest.mark.parametrize(
    "url",
    [
        "/api/rope/scores?seq_len=512&causal=true",  # Toeplitz: sent as its diagonals
        "/api/rope/scores?seq_len=300&content=random",
        "/api/sinusoidal/table?seq_len=512&dim=512",
        # every other view whose answer can hold a typed array (1024+ float64 values), moved there:
        # at their defaults only sinusoidal, scores, absolute, learned and relative send one
        "/api/rope/conventions?seq_len=64&head_dim=64",
        "/api/rope/mrope?grid_h=32&grid_w=32",
        "/api/relative/transformer-xl?query_len=64&key_len=64",
        "/api/rope/offsets?columns=2000&max_offset=100000",
        "/api/compare?max_offset=2000",
    ],
)
def test_large_matrices_decode_exactly(page, base_url, url):
    page.goto(f"{base_url}/scores")
    outcome = page.evaluate(COMPARE_JS, url)
    assert outcome["ok"] and outcome["typed"] and outcome["same"]


def test_slider_move_draws_the_same_plot_as_loading_the_address(page, base_url):
    """After a move the page drew decoded compact data; loading that address draws the JSON it embeds."""
    from tests.browser.helpers import nudge_slider, snapshot, wait_for_data_change, wait_for_plot

    page.goto(f"{base_url}/scores?seq_len=512&causal=true")
    wait_for_plot(page, "plot-scores")
    before = snapshot(page, "plot-scores")
    nudge_slider(page, "head_dim")
    wait_for_data_change(page, "plot-scores", before)
    page.wait_for_function("() => new URLSearchParams(location.search).has('head_dim')")  # the address of what is drawn
    moved = snapshot(page, "plot-scores")
    page.goto(page.url)
    wait_for_plot(page, "plot-scores")
    assert snapshot(page, "plot-scores") == moved
