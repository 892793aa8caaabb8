// Every family on one offset axis, and their score / bias matrices side by side.

import { startPage } from "../lib/page.js";
import { plotly } from "../lib/marks/index.js";
import { COLORS, DIVERGING, SEQUENTIAL, axis, dominatedLimit, fmt, isNarrowPlot, lineWidth, narrowSpread, panelGrid, plotSize, setPlotHeight, sized, spreadPercent } from "../lib/plot.js";
import { approx, count, equals, out } from "../lib/numbers.js";


// Each panel's title sits above it; `short` is the title on a phone-wide plot (no sentence is cut).
const PANELS = [
  { key: "rope", title: "RoPE score, constant content", color: COLORS[0] },
  { key: "sinusoidal", title: "sinusoid PE(p)·PE(p+Δ)", color: COLORS[2] },
  { key: "t5", title: "T5 bias b[bucket(Δ)]", color: COLORS[3] },
  { key: "alibi", title: "ALiBi −m<sub>h</sub>·|Δ| (past keys)", color: COLORS[1] },
  { key: "shaw", title: "Shaw: clipped offset used", color: COLORS[4] },
  { key: "nope", title: "NoPE: nothing", color: COLORS[7] },
  { key: "learned", title: "learned table (all-MiniLM-L6-v2): P<sub>p</sub>·P<sub>p+Δ</sub>, mean over p", short: "learned (MiniLM): P<sub>p</sub>·P<sub>p+Δ</sub>, mean over p", color: COLORS[5] },
  { key: "transformer_xl", title: "Transformer-XL term (d) vᵀW<sub>k,R</sub>R<sub>−Δ</sub>, past keys", short: "Transformer-XL term (d), past keys", color: COLORS[6] },
];


function curveTraces(curve, color, name, axes, decimated, shape = "linear") {
  const x = curve.x_low.map((lo, i) => (lo + curve.x_high[i]) / 2);
  if (!decimated) {
    return [
      {
        type: "scatter",
        mode: "lines",
        x,
        y: [...curve.low],
        name,
        line: { color, width: lineWidth(1.5), shape },
        showlegend: false,
        hovertemplate: `${name}<br>Δ = %{x}<br>%{y:.6g}<extra></extra>`,
        ...axes,
      },
    ];
  }
  return [
    { type: "scatter", mode: "lines", x, y: [...curve.low], line: { color, width: 0.5 }, showlegend: false, hoverinfo: "skip", ...axes },
    {
      type: "scatter",
      mode: "lines",
      x,
      y: [...curve.high],
      fill: "tonexty",
      fillcolor: color,
      line: { color, width: 0.5 },
      name,
      showlegend: false,
      hovertemplate: `${name}<br>Δ ≈ %{x} (column max)<br>%{y:.6g}<extra></extra>`,
      ...axes,
    },
  ];
}

function drawOffsets(data) {
  const n = PANELS.length;
  const el = document.getElementById("plot-offsets");
  const narrow = isNarrowPlot(el);
  // A band above each panel for its title, as tall as a line of text: the title never covers a curve.
  const margin = { t: sized(8, 12), b: sized(56, 96) };
  const inner = Math.max(200, plotSize(el).height - margin.t - margin.b);
  const titleBand = sized(20, 34) / inner;
  const gap = sized(10, 16) / inner;
  const height = (1 - n * titleBand - gap * (n - 1)) / n;
  const layout = {
    title: { text: `What position adds to the score, Δ = key − query from −${data.max_offset} to ${data.max_offset}` },
    showlegend: false,
    annotations: [],
    margin,
  };
  const traces = [];
  PANELS.forEach((panel, i) => {
    const suffix = i === 0 ? "" : String(i + 1);
    const axes = { xaxis: `x${suffix}`, yaxis: `y${suffix}` };
    const top = 1 - titleBand - i * (height + titleBand + gap);
    layout[`yaxis${suffix}`] = axis("", { domain: [top - height, top], anchor: `x${suffix}`, nticks: 4 });
    layout[`xaxis${suffix}`] = axis(i === n - 1 ? "offset Δ = key − query" : "", {
      anchor: `y${suffix}`,
      matches: i === 0 ? undefined : "x",
      showticklabels: i === n - 1,
      range: [-data.max_offset, data.max_offset],
    });
    layout.annotations.push({
      text: narrow && panel.short ? panel.short : panel.title,
      xref: "paper",
      yref: "paper",
      x: 0,
      y: top,
      xanchor: "left",
      yanchor: "bottom",
      yshift: 1,
      showarrow: false,
    });
    if (panel.key === "alibi") {
      const heads = data.alibi_slopes.length;
      const shown = Math.min(heads, 16);
      for (let s = 0; s < shown; s += 1) {
        const h = Math.floor((s * heads) / shown);
        traces.push({
          type: "scatter",
          mode: "lines",
          x: [...data.alibi_offsets],
          y: [...data.alibi_penalty[h]],
          name: `ALiBi head ${h}`,
          line: { color: h === data.head ? COLORS[1] : COLORS[5], width: lineWidth(h === data.head ? 2.5 : 1) },
          hovertemplate: `ALiBi head ${h} (m ${equals(data.alibi_slopes[h])})<br>Δ = %{x}<br>%{y:.5g}<extra></extra>`,
          ...axes,
        });
      }
    } else {
      const shape = panel.key === "t5" ? "hvh" : "linear";
      traces.push(...curveTraces(data.curves[panel.key], panel.color, panel.title, axes, data.decimated, shape));
    }
  });
  // Eight panels on one shared offset axis: Plotly's own form.
  return plotly("plot-offsets", traces, layout);
}

function drawHeatmaps(data) {
  const positions = Array.from({ length: data.seq_len }, (_, i) => i);
  const titles = {
    rope: "RoPE score",
    sinusoidal: "PE·PE<sup>⊤</sup>",
    t5: "T5 bias",
    alibi: `ALiBi head ${data.head}`,
    shaw: "Shaw clipped offset",
    nope: "NoPE",
    learned: "learned P·Pᵀ (MiniLM)",
    transformer_xl: "Transformer-XL (d)",
  };
  const traces = [];
  const notes = [];
  const layout = { annotations: [], margin: { l: 10, r: 10, t: 10, b: 10 } };
  // Three matrices a row on a wide screen, two on a phone; the plot as tall as its rows of squares.
  const el = document.getElementById("plot-heatmaps");
  const { width } = plotSize(el);
  const cols = width < 600 ? 2 : 3;
  const rows = Math.ceil(data.families.length / cols);
  const extents = Object.fromEntries(data.families.map((family) => {
    const values = data.heatmaps[family].flat().filter((v) => v !== null && Number.isFinite(v));
    return [family, [Math.min(...values), Math.max(...values)]];
  }));
  // A constant matrix says its one value on a second line under its name.
  const twoLines = data.families.some((family) => family !== "nope" && extents[family][0] === extents[family][1]);
  const label = sized(24, 34) * (twoLines ? 2 : 1);
  // Each matrix is a square as wide as its column less its colour bar; a row is that square, its
  // caption and a gap, so the caption sits on the square (a row as tall as the column is wide left
  // the square floating in the middle of it, its caption far above).
  const bar = sized(70, 104) / width;
  const side = (1 / cols - 0.03 - bar) * (width - 20);
  const rowPixels = side + label + sized(12, 18);
  const height = Math.round(rows * rowPixels + 20);
  setPlotHeight(el, height);
  const rowShare = rowPixels / (height - 20);
  data.families.forEach((family, i) => {
    const z = data.heatmaps[family];
    const [lo, hi] = extents[family];
    // One cell that dominates (the learned table's (0, 0): position 0's row is far longer than the
    // others) would leave the rest white: its colours stop at the 99.5th percentile of |value|.
    // A spread under 1 % of the values' size is said in words, since the full ramp magnifies it.
    const dominated = dominatedLimit(z);
    if (dominated) {
      notes.push(`${titles[family]}'s colours stop at ±${fmt(dominated.limit, 3)}, the 99.5th percentile of |value| (largest ${fmt(dominated.largest, 3)})`);
    } else if (narrowSpread(lo, hi)) {
      notes.push(`${titles[family]} differs by only ${fmt(spreadPercent(lo, hi), 2)} % of its size (${fmt(lo, 6)} … ${fmt(hi, 6)})`);
    }
    const suffix = i === 0 ? "" : String(i + 1);
    const row = Math.floor(i / cols);
    const col = i % cols;
    // Each matrix has its own colour bar (its numbers) at its right, inside its column.
    const x0 = col / cols + 0.02;
    const x1 = (col + 1) / cols - 0.01 - bar;
    const y1 = 1 - row * rowShare - label / (height - 20);
    const y0 = Math.max(0, y1 - side / (height - 20));
    traces.push({
      type: "heatmap",
      z: z.map((r) => [...r]),
      x: positions,
      y: positions,
      xaxis: `x${suffix}`,
      yaxis: `y${suffix}`,
      colorscale: DIVERGING,
      ...(dominated ? { zmin: -dominated.limit, zmax: dominated.limit, zauto: false } : {}),
      // as tall as the square the matrix is drawn in
      colorbar: { x: x1 + 0.005, xanchor: "left", y: (y0 + y1) / 2, len: y1 - y0 },
      hoverongaps: false,
      hovertemplate: `${titles[family]}<br>query %{y}, key %{x}<br>%{z:.5g}<extra></extra>`,
    });
    layout[`xaxis${suffix}`] = axis("", { domain: [x0, x1], anchor: `y${suffix}`, showticklabels: false });
    layout[`yaxis${suffix}`] = axis("", { domain: [y0, y1], anchor: `x${suffix}`, autorange: "reversed", showticklabels: false, scaleanchor: `x${suffix}`, constrain: "domain" });
    layout.annotations.push({
      // The range is on the colour bar; a constant matrix says its one value.
      text: lo === hi ? `${titles[family]}${family === "nope" ? ": " : "<br>"}all ${approx(lo)}` : titles[family],
      xref: "paper",
      yref: "paper",
      x: (col + 0.5) / cols,
      y: y1 + 0.01,
      xanchor: "center",
      yanchor: "bottom",
      showarrow: false,
    });
  });
  layout.title = { text: `The same quantities for every query (rows) and key (columns)${notes.length ? `; ${notes.join("; ")}` : ""}` };
  // A grid of matrices, each with its own colour bar and caption: Plotly's own form.
  return plotly("plot-heatmaps", traces, layout);
}

// NoPE with a causal mask: equal scores, yet row m's weight 1/(m + 1) tells where the query is.
function drawNope(data) {
  const nope = data.nope_causal;
  const L = data.seq_len;
  const positions = Array.from({ length: L }, (_, i) => i);
  // Between the panels: the weight matrix's colour bar, then the second panel's y ticks and title.
  const grid = panelGrid("plot-nope", 2, sized(0.16, 0.3));
  const wholeTicks = L <= 10 ? { tick0: 0, dtick: 1 } : {};
  // A heatmap and a curve side by side: Plotly's own form.
  plotly(
    "plot-nope",
    [
      {
        type: "heatmap",
        z: nope.weights.map((row) => [...row]),
        x: positions,
        y: positions,
        colorscale: SEQUENTIAL,
        zmin: 0,
        zmax: 1,
        // beside the matrix, not at the far right over the second panel
        colorbar: {
          title: { text: "weight" },
          x: (grid.stacked ? 0.86 : grid.x[0][1]) + 0.01,
          xanchor: "left",
          y: (grid.y[0][0] + grid.y[0][1]) / 2,
          yanchor: "middle",
          len: grid.y[0][1] - grid.y[0][0],
        },
        hoverongaps: false,
        hovertemplate: "query %{y}, key %{x}<br>weight %{z:.6g}<extra></extra>",
        xaxis: "x",
        yaxis: "y",
      },
      {
        type: "scatter",
        mode: "lines+markers",
        x: [...positions],
        y: [...nope.output],
        name: "out<sub>m</sub>: the value only token 0 carries, after attention",
        line: { color: COLORS[0], width: lineWidth(2) },
        marker: { size: lineWidth(3) * 2 },
        xaxis: "x2",
        yaxis: "y2",
      },
    ],
    {
      title: { text: `NoPE under a causal mask: equal scores, weights a<sub>mn</sub> (${grid.stacked ? "top" : "left"}) and out<sub>m</sub> (${grid.stacked ? "bottom" : "right"})` },
      // Positions are whole numbers: a short sequence gets a tick at each one, not at halves.
      xaxis: axis("key position n", { domain: grid.stacked ? [0, 0.86] : grid.x[0], anchor: "y", ...wholeTicks }),
      yaxis: axis("query position m", { domain: grid.y[0], autorange: "reversed", anchor: "x", scaleanchor: "x", constrain: "domain", ...wholeTicks }),
      xaxis2: axis("position m", { domain: grid.x[1], anchor: "y2", ...wholeTicks }),
      yaxis2: axis("out<sub>m</sub>", { domain: grid.y[1], anchor: "x2", rangemode: "tozero" }),
    },
  );
  const last = L - 1;
  out(
    "nope_weights",
    L > 1
      ? `row m gives each key n ≤ m the same weight: row 1 ${equals(nope.weights[1][0], 6)} each, row ${last} ${equals(nope.weights[last][0], 6)} each`
      : "row 0: weight 1 on key 0",
  );
  out(
    "nope_recovered",
    nope.rounded_back
      ? `m for every m < ${count(L)} (largest error ${approx(nope.largest_recovery_error, 2)})`
      : `not every m is read back (largest error ${approx(nope.largest_recovery_error, 3)})`,
  );
  out(
    "nope_note",
    `Every token has the same content and there is no position signal, so every score is equal; the causal mask still ` +
      `limits query m to the keys 0 … m, and softmax spreads its weight evenly over them. A value only the first token ` +
      `carries (like a beginning-of-sequence marker) comes out as outₘ, which falls from ${approx(nope.output[0], 4)} at m = 0 ` +
      `to ${approx(nope.output[last], 4)} at m = ${last}: one more layer can read the position off it.`,
  );
}

startPage({
  draw(data) {
    drawOffsets(data);
    drawHeatmaps(data);
    drawNope(data);
    out("rope0", `${approx(data.rope_at_zero)} (√${data.head_dim} ${equals(Math.sqrt(data.head_dim))})`);
    out("sin0", approx(data.sinusoid_at_zero));
    out("anchor", `p = ${data.sinusoid_anchors.join(" vs ")}: largest difference ${approx(data.sinusoid_anchor_difference)}`);
    out("t5far", `Δ = −${data.max_offset}: ${data.t5_far_bucket_left}; Δ = +${data.max_offset}: ${data.t5_far_bucket_right}`);
    out("slopes", `${approx(data.alibi_slopes[0])} … ${approx(data.alibi_slopes[data.alibi_slopes.length - 1])} (${data.num_heads} heads)`);
    out("columns", data.decimated ? `${data.offsets_count} offsets in ${data.curves.rope.low.length} columns (min/max band)` : "1 (every offset drawn)");
  },
});
