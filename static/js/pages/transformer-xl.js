// Transformer-XL: the four score terms, their sum, term d by distance and c by key, and R.

import { startPage } from "../lib/page.js";
import { heatmap, plotly } from "../lib/marks/index.js";
import { COLORS, DIVERGING, axis, fmt, panelGrid, plotSize, setPlotHeight, textSize } from "../lib/plot.js";
import { out } from "../lib/numbers.js";

const maxAbs = (rows) => rows.reduce((m, row) => Math.max(m, ...row.map((v) => Math.abs(v ?? 0))), 0) || 1;

const TERMS = [
  { key: "a", title: "(a) content · content", short: "(a)" },
  { key: "b", title: "(b) content · position", short: "(b)" },
  { key: "c", title: "(c) u · content: constant down columns", short: "(c) constant down columns" },
  { key: "d", title: "(d) v · position: constant along diagonals", short: "(d) constant along diagonals" },
];

// A matrix of scores over (query, key): its cells, offsets i − j as customdata, gaps (keys after
// their query) left blank.
function scoreCells(data, z) {
  return {
    z: z.map((row) => row.map((v) => (v === null ? null : v))),
    x: [...data.key_positions],
    y: [...data.query_positions],
    customdata: data.offset_matrix.map((row) => [...row]),
    hoverongaps: false,
  };
}

// One panel of the four-term figure, as Plotly's heatmap trace.
function heat(data, z, extra) {
  return { type: "heatmap", ...scoreCells(data, z), colorscale: DIVERGING, ...extra };
}

function drawTerms(data) {
  const limit = Math.max(...TERMS.map((t) => maxAbs(data.terms[t.key])));
  const traces = [];
  const layout = {
    title: {
      text: `The four terms, on one colour scale (±${fmt(limit)}): ${TERMS.map((t) => t.title).join(" · ")}; grey: a key after its query`,
    },
    annotations: [],
  };
  // Two by two on a wide screen, one column on a phone; the plot as tall as its rows of squares.
  const el = document.getElementById("plot-terms");
  const { width } = plotSize(el);
  const cols = width < 600 ? 1 : 2;
  const rows = Math.ceil(TERMS.length / cols);
  setPlotHeight(el, Math.round((width / cols) * rows * 0.95 + 60));
  TERMS.forEach((term, n) => {
    const suffix = n === 0 ? "" : String(n + 1);
    const col = n % cols;
    const row = Math.floor(n / cols);
    const x0 = col / cols + (col ? 0.06 : 0);
    const x1 = (col + 1) / cols - 0.06;
    const y1 = 1 - row / rows - 0.05 / rows;
    const y0 = y1 + 0.05 / rows - (1 / rows) * 0.82;
    traces.push(
      heat(data, data.terms[term.key], {
        xaxis: `x${suffix}`,
        yaxis: `y${suffix}`,
        zmin: -limit,
        zmax: limit,
        showscale: n === 0,
        colorbar: { title: { text: "term" }, x: 1.02, len: 0.9 },
        hovertemplate: `${term.title}<br>query i = %{y}, key j = %{x}<br>i − j = %{customdata}<br>%{z:.5g}<extra></extra>`,
      }),
    );
    // Key positions are labelled under the bottom row only: the panels share them.
    layout[`xaxis${suffix}`] = axis(row === rows - 1 ? "key position j" : "", { domain: [x0, x1], anchor: `y${suffix}`, showticklabels: row === rows - 1 });
    layout[`yaxis${suffix}`] = axis(col === 0 ? "query i" : "", { domain: [y0, y1], anchor: `x${suffix}`, autorange: "reversed" });
    // A panel's label says what to look for when it fits above the panel; the title says it too.
    const labelSize = textSize();
    const fits = term.short.length * labelSize * 0.55 < width * (x1 - x0) * 0.85;
    const text = fits ? term.short : `(${term.key})`;
    layout.annotations.push({ text, xref: "paper", yref: "paper", x: (x0 + x1) / 2, y: y1 + 0.005, xanchor: "center", yanchor: "bottom", showarrow: false });
  });
  // Four heatmaps on subplots with panel labels and one colour bar: Plotly draws it as it is.
  plotly("plot-terms", traces, layout);
}

function drawSum(data) {
  const limit = maxAbs(data.terms.sum);
  heatmap(
    "plot-sum",
    {
      ...scoreCells(data, data.terms.sum),
      scale: DIVERGING,
      zmin: -limit,
      zmax: limit,
      bar: "A",
      hovertemplate: "query i = %{y}, key j = %{x}<br>i − j = %{customdata}<br>A = %{z:.5g}<extra></extra>",
    },
    {
      title: `A = (a) + (b) + (c) + (d), before the scale 1/√d = ${fmt(data.scale)}`,
      xaxis: axis("key position j (memory, then segment)"),
      yaxis: axis("query position i", { autorange: "reversed" }),
    },
  );
}

function drawBiases(data) {
  const grid = panelGrid("plot-biases", 2, 0.12, 320);
  // A curve and bars on two subplots: no mark draws that, Plotly does as it is.
  plotly(
    "plot-biases",
    [
      {
        type: "scatter",
        mode: "lines+markers",
        x: [...data.offsets],
        y: [...data.position_bias],
        name: "(d) vᵀ W<sub>k,R</sub> R<sub>i−j</sub>",
        line: { color: COLORS[1] },
        hovertemplate: "i − j = %{x}<br>(d) = %{y:.5g}<extra></extra>",
      },
      {
        type: "bar",
        x: [...data.key_positions],
        y: [...data.content_bias],
        name: "(c) uᵀ W<sub>k,E</sub> E<sub>j</sub>",
        xaxis: "x2",
        yaxis: "y2",
        marker: { color: COLORS[2] },
        hovertemplate: "key j = %{x}<br>(c) = %{y:.5g}<extra></extra>",
      },
    ],
    {
      title: { text: "Term (d) is one number per distance; term (c) one number per key" },
      xaxis: axis("distance i − j", { domain: grid.stacked ? [0, 1] : grid.x[0], anchor: "y" }),
      yaxis: axis("(d)", { domain: grid.y[0], anchor: "x" }),
      xaxis2: axis("key position j", { domain: grid.stacked ? [0, 1] : grid.x[1], anchor: "y2" }),
      yaxis2: axis("(c)", { anchor: "x2", domain: grid.y[1] }),
    },
  );
}

function drawR(data) {
  const half = data.d_model / 2;
  const labels = Array.from({ length: data.d_model }, (_, c) => (c < half ? `sin ω${c}` : `cos ω${c - half}`));
  heatmap(
    "plot-r",
    {
      z: data.R.map((row) => [...row]),
      x: labels.map((_, c) => c),
      y: [...data.offsets],
      customdata: data.R.map(() => labels),
      zmin: -1,
      zmax: 1,
      zauto: false,
      scale: DIVERGING,
      bar: "R",
      hovertemplate: "distance %{y}<br>column %{x} (%{customdata})<br>%{z:.6f}<extra></extra>",
    },
    {
      title: `R: one row per distance k = i − j, [sin(k·ω), cos(k·ω)], d = ${data.d_model}`,
      xaxis: axis("column (sines, then cosines)"),
      yaxis: axis("distance k", { autorange: "reversed" }),
    },
  );
}

startPage({
  draw(data) {
    drawTerms(data);
    drawSum(data);
    drawBiases(data);
    drawR(data);
    for (const term of ["a", "b", "c", "d"]) {
      const s = data.structure[term];
      out(term, `${fmt(s.diagonal)} · ${fmt(s.column)}`);
    }
    out("layout", `i = ${data.query_positions[0]} … ${data.query_positions[data.query_positions.length - 1]}; i − j = 0 … ${data.key_len - 1}`);
    out("scale", `1/√${data.d_model} = ${fmt(data.scale)}`);
  },
});
