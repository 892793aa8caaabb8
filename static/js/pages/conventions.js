// Conventions: the interleaved→half permutation as a wiring diagram, and three score matrices.

import { startPage } from "../lib/page.js";
import { curves, plotly } from "../lib/marks/index.js";
import { COLORS, DIVERGING, fmt, lineWidth, panelGrid, plotSize, sized } from "../lib/plot.js";
import { out } from "../lib/numbers.js";
import { table } from "../lib/marks/table.js";

const pairText = (pair) => `(${pair[0]}, ${pair[1]})`;
const PAIR_COLUMNS = [
  { key: "j" },
  { key: "theta", format: (v) => fmt(v, 6) },
  { key: "interleaved", format: pairText },
  { key: "half", format: pairText },
];

function pairRows(data) {
  const rows = data.pairs.map((j, i) => ({ j, theta: data.inv_freq[i], interleaved: data.interleaved_pairs[i], half: data.half_pairs[i] }));
  table('[data-out="pair_rows"]', rows, PAIR_COLUMNS);
}

function wiring(data) {
  const d = data.head_dim;
  const r = data.rotary_dim;
  // Dimension c stands at (c + 0.8) / (d + 0.6) across the hidden x axis, whose range is 0 … 1
  // whatever d: the dimensions spread over the width as over the range −0.8 … d − 0.2, and a new
  // d moves the points alone (a moved range would draw every trace a second time, 14 ms a move).
  const at = (c) => (c + 0.8) / (d + 0.6);
  // One trace per colour (wires separated by gaps), not one per wire: a 128-dimensional head would
  // otherwise be 128 traces to redraw.
  const wires = new Map();
  data.permutation.forEach((source, slot) => {
    const pair = source < r ? Math.floor(source / 2) : null;
    const color = pair === null ? "#9a9aa2" : COLORS[pair % COLORS.length];
    const wire = wires.get(color) || { x: [], y: [], text: [] };
    const label = pair === null ? `dimension ${source} does not rotate` : `dimension ${source} (pair ${pair}) → slot ${slot} of x[P]`;
    wire.x.push(at(source), at(slot), null);
    wire.y.push(1, 0, null);
    wire.text.push(label, label, "");
    wires.set(color, wire);
  });
  const series = [...wires].map(([color, wire]) => ({
    x: wire.x,
    y: wire.y,
    text: wire.text,
    color,
    width: lineWidth(d > 32 ? 1 : 2),
    hovertemplate: "%{text}<extra></extra>",
    showlegend: false,
  }));
  const idx = [...Array(d).keys()];
  // Dots no wider than the room each dimension has, so 64 or 128 of them stay apart (a projector's
  // doubled size would run them together).
  const margin = sized(110, 175);
  const room = ((plotSize("plot-wiring").width || 800) - margin - 30) / d;
  const dot = Math.max(3, Math.min(lineWidth(4) * 2, Math.floor(room * 0.8)));
  const pairOf = (c) => (c < r ? `pair ${Math.floor(c / 2)}` : "pass-through");
  series.push({
    mode: d <= 32 ? "markers+text" : "markers",
    x: idx.map(at),
    y: idx.map(() => 1),
    text: idx.map(String),
    textposition: "top center",
    marker: { color: idx.map((c) => (c < r ? COLORS[Math.floor(c / 2) % COLORS.length] : "#9a9aa2")), size: dot },
    customdata: idx.map(pairOf),
    hovertemplate: "interleaved storage: dimension %{text} (%{customdata})<extra></extra>",
    showlegend: false,
  });
  series.push({
    mode: d <= 32 ? "markers+text" : "markers",
    x: idx.map(at),
    y: idx.map(() => 0),
    text: data.permutation.map(String),
    textposition: "bottom center",
    marker: { color: data.permutation.map((c) => (c < r ? COLORS[Math.floor(c / 2) % COLORS.length] : "#9a9aa2")), size: dot },
    customdata: data.permutation.map((c, slot) => [slot, pairOf(c)]),
    hovertemplate: "half storage: slot %{customdata[0]} holds dimension %{text} (%{customdata[1]})<extra></extra>",
    showlegend: false,
  });
  curves("plot-wiring", series, {
    title: `x → x[P]: neighbours (2j, 2j+1) move to slots (j, j + ${r / 2}); colour = pair`,
    xaxis: { visible: false, range: [0, 1] },
    yaxis: {
      range: [-0.45, 1.45],
      tickvals: [1, 0],
      ticktext: ["interleaved x", "half x[P]"],
      zeroline: false,
      showgrid: false,
      fixedrange: true,
    },
    margin: { l: margin },
  });
}

function matrices(data) {
  const panels = [
    ["interleaved", "interleaved on (q, k)"],
    ["half_permuted", "half on (q[P], k[P])"],
    ["half_raw", "half on raw (q, k): different"],
  ];
  // One colour scale for the three matrices, so equal colours are equal scores.
  const values = panels.flatMap(([key]) => data.scores[key].flat());
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const grid = panelGrid("plot-matrices", panels.length);
  const idx = [...Array(data.seq_len).keys()];
  const traces = panels.map(([key, label], i) => ({
    type: "heatmap",
    z: data.scores[key].map((row) => [...row]),
    x: idx,
    y: idx,
    zmin: lo,
    zmax: hi,
    colorscale: DIVERGING,
    showscale: i === 2,
    colorbar: { title: { text: "score" } },
    xaxis: i === 0 ? "x" : `x${i + 1}`,
    yaxis: i === 0 ? "y" : `y${i + 1}`,
    name: label,
    hovertemplate: `${label}<br>m = %{y}, n = %{x}<br>s = %{z:.12f}<extra></extra>`,
  }));
  const layout = {
    margin: { t: 40 },
    annotations: panels.map(([, label], i) => ({
      text: label,
      x: (grid.x[i][0] + grid.x[i][1]) / 2,
      y: grid.y[i][1],
      xref: "paper",
      yref: "paper",
      yanchor: "bottom",
      showarrow: false,
    })),
  };
  panels.forEach((_, i) => {
    const suffix = i === 0 ? "" : String(i + 1);
    layout[`xaxis${suffix}`] = {
      domain: grid.x[i],
      anchor: `y${suffix}`,
      range: [-0.5, data.seq_len - 0.5],
      title: { text: "key n" },
      constrain: "domain",
    };
    layout[`yaxis${suffix}`] = {
      range: [data.seq_len - 0.5, -0.5],
      constrain: "domain",
      domain: grid.y[i],
      anchor: `x${suffix}`,
      scaleanchor: `x${suffix}`,
      title: i === 0 || grid.stacked ? { text: "query m" } : undefined,
    };
  });
  // Three heatmaps in subplots with one shared colour bar: no mark draws that, so Plotly's own form.
  plotly("plot-matrices", traces, layout);
}

startPage({
  draw(data) {
    wiring(data);
    matrices(data);
    pairRows(data);
    out("rotary", `${data.rotary_dim} of ${data.head_dim} (${data.rotary_dim / 2} pairs)`);
    out("diff_permuted", fmt(data.max_diff_permuted, 3));
    out("diff_raw", fmt(data.max_diff_raw, 6));
    out("scale", fmt(data.scale, 6));
    out("diff_vectors", fmt(data.max_diff_vectors, 3));
    out("permutation", `[${data.permutation.join(", ")}]`);
  },
});
