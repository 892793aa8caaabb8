"""The comparison: the score-heatmap-with-a-slider view written as a small, idiomatic Dash app.

What a user would otherwise pick: a Dash callback recomputes the RoPE score matrix (with the same
numpy core as the explorer, so the numbers are identical) and returns a ``plotly.graph_objects``
figure, which Dash serialises to JSON and the browser redraws with ``Plotly.react``.

The slider is a ``dcc.Input(type="range")`` (an ``<input type=range>`` like the explorer's), so
the benchmark drives both apps with the same input event.  ``?seq_len=`` in the address picks L.

Runs in its own virtual environment (``bench/.venv-dash``, made by ``make bench``): Dash installs a
pytest plugin that breaks the project's test suite (warnings are errors there).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from urllib.parse import parse_qs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import plotly.graph_objects as go
from dash import Dash, Input, Output, dcc, html

from app.core.frequencies import inverse_frequencies
from app.core.scores import content_vectors, score_matrix

MAX_CELLS = 512

app = Dash(__name__, title="Score matrix (Dash)")
app.layout = html.Div(
    [
        dcc.Location(id="url"),
        html.H1("Score matrix"),
        html.Label(["Head dimension d ", dcc.Input(id="head_dim", type="range", min=2, max=256, step=2, value=64)]),
        dcc.Graph(id="heatmap", style={"height": "600px"}),
    ]
)


@app.callback(Output("heatmap", "figure"), Input("head_dim", "value"), Input("url", "search"))
def update(head_dim, search):
    head_dim = int(head_dim)
    seq_len = int(parse_qs((search or "").lstrip("?")).get("seq_len", ["64"])[0])
    inv_freq = inverse_frequencies(head_dim, 10000.0)
    q, k = content_vectors("repeated", seq_len, head_dim, 0)
    scores = score_matrix(q, k, inv_freq, "interleaved", seq_len, MAX_CELLS)["scores"]
    figure = go.Figure(go.Heatmap(z=scores, colorscale="RdBu", reversescale=True, zmid=0))
    figure.update_layout(
        title=f"s_mn for L = {seq_len}, d = {head_dim}",
        xaxis_title="key position n",
        yaxis_title="query position m",
        yaxis_autorange="reversed",
    )
    return figure


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8050)
    args = parser.parse_args()
    app.run(host="127.0.0.1", port=args.port, debug=False)
