// A real learned position table beside a sinusoid of the same shape: values, similarity,
// similarity by distance, principal components, and the cliff at max_len.

import { startPage } from "../lib/page.js";
import { curves, heatmap, plotly } from "../lib/marks/index.js";
import { COLORS, DIVERGING, SEQUENTIAL, axis, fmt, lineWidth, offAxis, panelGrid, sized } from "../lib/plot.js";
import { out } from "../lib/numbers.js";

const maxAbs = (rows) => rows.reduce((m, row) => Math.max(m, ...row.map((v) => Math.abs(v ?? 0))), 0) || 1;

// The colour range of the table: the 99.5th percentile of |value|, so that a few large entries
// (position 0's row is much longer than the others) do not wash out the rest; hover shows every value.
function robustLimit(rows) {
  const values = rows.flat().map((v) => Math.abs(v ?? 0)).sort((a, b) => a - b);
  if (!values.length) return 1;
  return values[Math.min(values.length - 1, Math.floor(0.995 * values.length))] || maxAbs(rows);
}

function drawTable(data) {
  const limit = robustLimit(data.table);
  const largest = maxAbs(data.table);
  heatmap(
    "plot-table",
    {
      z: data.table.map((row) => [...row]),
      x: [...data.columns],
      y: [...data.positions],
      zmin: -limit,
      zmax: limit,
      zauto: false,
      scale: DIVERGING,
      bar: "value",
      hovertemplate: "position %{y}<br>column %{x}<br>%{z:.7g}<extra></extra>",
    },
    {
      // A clipped scale says so in the title (the colour bar has room for its numbers only).
      title: `${data.info.title}, as stored: positions ${data.first_position}–${data.last_position} × columns ${data.first_column}–${data.last_column}` +
        (limit < largest ? `; colours stop at ±${fmt(limit, 3)}, the 99.5th percentile of |value| (largest ${fmt(largest, 3)})` : ""),
      xaxis: axis("column"),
      yaxis: axis("position p", { autorange: "reversed" }),
    },
  );
}

// The sinusoid's similarity depends on |p − q| only: its heatmap is laid out from the values by
// distance (the twin sends the whole matrix only for an odd width, where that does not hold).
function sinusoidMatrix(data) {
  if (data.sinusoid_similarity) return data.sinusoid_similarity;
  const byDistance = data.by_offset.sinusoid;
  return data.positions.map((p) => data.positions.map((q) => byDistance[Math.abs(p - q)]));
}

function drawSimilarity(data) {
  const positions = [...data.positions];
  const grid = panelGrid("plot-similarity", 2, 0.2, 460);
  const heat = (z, axes, title, colorbar) => ({
    type: "heatmap",
    z: z.map((row) => [...row]),
    x: positions,
    y: positions,
    zmin: -1,
    zmax: 1,
    zauto: false,
    colorscale: DIVERGING,
    colorbar: { title: { text: "cos" }, ...colorbar },
    hovertemplate: `${title}<br>p %{y}, q %{x}<br>cos = %{z:.4f}<extra></extra>`,
    ...axes,
  });
  // Two heatmaps on subplots with one colour bar: no mark draws that, Plotly does as it is.
  plotly(
    "plot-similarity",
    [
      // One colour scale (cos from −1 to 1) serves both: one colour bar.
      heat(data.similarity, { xaxis: "x", yaxis: "y", showscale: false }, "learned", {}),
      heat(sinusoidMatrix(data), { xaxis: "x2", yaxis: "y2" }, "sinusoid", { len: 1 }),
    ],
    {
      title: {
        text: `Cosine similarity between positions: learned (${grid.stacked ? "top" : "left"}) and sinusoid d = ${data.dim} (${grid.stacked ? "bottom" : "right"}, constant diagonals)`,
      },
      xaxis: axis("position q", { domain: grid.x[0], anchor: "y" }),
      yaxis: axis("position p", { autorange: "reversed", domain: grid.y[0], anchor: "x" }),
      xaxis2: axis("position q", { domain: grid.x[1], anchor: "y2" }),
      yaxis2: axis(grid.stacked ? "position p" : "", { autorange: "reversed", anchor: "x2", domain: grid.y[1] }),
    },
  );
}

function drawOffset(data) {
  const b = data.by_offset;
  const x = [...b.offsets];
  const traces = [
    { mode: "lines", x, y: [...b.learned_low], line: { color: COLORS[1], width: 0 }, hoverinfo: "skip", showlegend: false },
    {
      mode: "lines",
      x,
      y: [...b.learned_high],
      fill: "tonexty",
      fillcolor: "rgba(213,94,0,0.18)",
      line: { color: COLORS[1], width: 0 },
      name: "learned: smallest … largest over p",
      hoverinfo: "skip",
    },
    {
      mode: "lines",
      x,
      y: [...b.learned_mean],
      name: "learned: mean over p",
      line: { color: COLORS[1], width: lineWidth(2) },
      hovertemplate: "Δ = %{x}<br>mean cos %{y:.4f}<extra>learned</extra>",
    },
  ];
  if (b.sinusoid) {
    traces.push({
      mode: "lines",
      x,
      y: [...b.sinusoid],
      name: "sinusoid (the same for every p)",
      line: { color: COLORS[0], width: lineWidth(2), dash: "dash" },
      hovertemplate: "Δ = %{x}<br>cos %{y:.4f}<extra>sinusoid</extra>",
    });
  }
  curves("plot-offset", traces, {
    title: "How similar are two positions Δ apart? cos(P<sub>p</sub>, P<sub>p+Δ</sub>) over every p",
    xaxis: axis("distance Δ (positions)"),
    yaxis: axis("cosine similarity", offAxis({ range: [-1.05, 1.05] })),
  });
}

function drawPca(data) {
  const learned = data.pca.learned;
  const sinusoid = data.pca.sinusoid;
  const positions = learned.pc1.map((_, p) => p);
  const scatter = (part, axes, name, showscale) => ({
    type: "scatter",
    mode: "lines+markers",
    x: [...part.pc1],
    y: [...part.pc2],
    name,
    line: { color: "rgba(120,120,120,0.35)", width: 0.6 },
    marker: {
      size: 5,
      color: positions,
      colorscale: SEQUENTIAL,
      cmin: 0,
      cmax: positions.length - 1,
      showscale,
      colorbar: showscale ? { title: { text: "position" } } : undefined,
    },
    customdata: positions,
    hovertemplate: `${name}<br>position %{customdata}<br>PC1 %{x:.4f}, PC2 %{y:.4f}<extra></extra>`,
    ...axes,
  });
  const pct = (v) => `${fmt(100 * v, 3)}%`;
  const grid = panelGrid("plot-pca", 2, 0.14, 500);
  // Two scatter panels on subplots, each square (scaleanchor), one colour bar: drawn by Plotly as it is.
  plotly(
    "plot-pca",
    [scatter(learned, { xaxis: "x", yaxis: "y" }, "learned", false), scatter(sinusoid, { xaxis: "x2", yaxis: "y2" }, "sinusoid", true)],
    {
      title: { text: "Every position on the first two principal components (colour: position; lines join neighbours)" },
      showlegend: false,
      xaxis: axis(`learned PC1 (${pct(learned.explained_variance_ratio[0])})`, { domain: grid.x[0], anchor: "y", nticks: 5 }),
      yaxis: axis(`PC2 (${pct(learned.explained_variance_ratio[1])})`, { scaleanchor: "x", domain: grid.y[0], anchor: "x" }),
      xaxis2: axis(`sinusoid PC1 (${pct(sinusoid.explained_variance_ratio[0])})`, { domain: grid.x[1], anchor: "y2", nticks: 5 }),
      yaxis2: axis(`PC2 (${pct(sinusoid.explained_variance_ratio[1])})`, { anchor: "x2", scaleanchor: "x2", domain: grid.y[1] }),
    },
  );
}

function drawVariance(data) {
  const learned = data.pca.learned;
  const sinusoid = data.pca.sinusoid;
  const ks = learned.explained_variance_ratio.map((_, k) => k + 1);
  // Bars on one y axis, cumulative lines on a second (overlaying) one: no mark mixes them.
  plotly(
    "plot-variance",
    [
      { type: "bar", x: ks, y: [...learned.explained_variance_ratio], name: "learned", marker: { color: COLORS[1] }, hovertemplate: "PC%{x}: %{y:.2%}<extra>learned</extra>" },
      { type: "bar", x: ks, y: [...sinusoid.explained_variance_ratio], name: "sinusoid", marker: { color: COLORS[0] }, hovertemplate: "PC%{x}: %{y:.2%}<extra>sinusoid</extra>" },
      { type: "scatter", mode: "lines+markers", x: ks, y: [...learned.cumulative], name: "learned, cumulative", yaxis: "y2", line: { color: COLORS[1], width: lineWidth(1.5) } },
      { type: "scatter", mode: "lines+markers", x: ks, y: [...sinusoid.cumulative], name: "sinusoid, cumulative", yaxis: "y2", line: { color: COLORS[0], width: lineWidth(1.5), dash: "dash" } },
    ],
    {
      title: { text: "Share of the variance of the rows, first principal components" },
      barmode: "group",
      xaxis: axis("component", { dtick: 1 }),
      yaxis: axis("share", { tickformat: ".0%", rangemode: "tozero" }),
      yaxis2: axis("cumulative", { overlaying: "y", side: "right", range: [0, 1.02], tickformat: ".0%" }),
      margin: { r: sized(80, 130) },  // the second axis: tick labels and title on the right
    },
  );
}

// The series of one curve: the line itself, or (decimated) the band between its min and max per column.
function curveSeries(cliff, curve, name, style, hover) {
  const x = [...cliff.x];
  if (!cliff.decimated) {
    return [{ mode: "lines", x, y: [...curve.low], name, line: style, connectgaps: false, hovertemplate: hover }];
  }
  return [
    { mode: "lines", x, y: [...curve.low], line: { ...style, width: 0.5 }, showlegend: false, hoverinfo: "skip", connectgaps: false },
    { mode: "lines", x, y: [...curve.high], fill: "tonexty", line: { ...style, width: 0.5 }, name: `${name} (min/max per column)`, connectgaps: false, hovertemplate: hover },
  ];
}

function cliffShapes(data, yref = "paper") {
  const end = data.max_len - 0.5;
  const stop = data.max_len + data.beyond - 0.5;
  if (data.beyond === 0) return { shapes: [], annotations: [] };
  return {
    shapes: [
      { type: "rect", xref: "x", yref, x0: end, x1: stop, y0: 0, y1: 1, fillcolor: "#999", opacity: 0.18, line: { width: 0 } },
      { type: "line", xref: "x", yref, x0: end, x1: end, y0: 0, y1: 1, line: { color: "#555", width: 1.5, dash: "dot" } },
    ],
    annotations: [
      {
        xref: "x",
        yref,
        x: (end + stop) / 2,
        y: 0.95,
        text: `no row: positions ≥ ${data.max_len}`,
        showarrow: false,
      },
    ],
  };
}

function drawCliff(data) {
  const cliff = data.cliff;
  const marks = cliffShapes(data);
  curves(
    "plot-cliff",
    [
      ...curveSeries(cliff, cliff.learned, `learned: cos(P<sub>${data.position}</sub>, P<sub>x</sub>)`, { color: COLORS[1], width: lineWidth(1.5) }, "x = %{x}<br>cos %{y:.4f}<extra>learned</extra>"),
      ...curveSeries(cliff, cliff.sinusoid, `sinusoid: cos(PE<sub>${data.position}</sub>, PE<sub>x</sub>)`, { color: COLORS[0], width: lineWidth(1.5), dash: "dash" }, "x = %{x}<br>cos %{y:.4f}<extra>sinusoid</extra>"),
    ],
    {
      title: `Position ${data.position} against every position: the learned table ends at ${data.max_len - 1}, the sinusoid goes on`,
      xaxis: axis("position x"),
      yaxis: axis("cosine similarity", offAxis({ range: [-1.05, 1.05] })),
      ...marks,
    },
  );
  curves(
    "plot-norms",
    [
      ...curveSeries(cliff, cliff.learned_norm, "learned ‖P<sub>x</sub>‖", { color: COLORS[1], width: lineWidth(1.5) }, "x = %{x}<br>‖P<sub>x</sub>‖ = %{y:.5g}<extra>learned</extra>"),
      ...(cliff.sinusoid_norm
        ? curveSeries(cliff, cliff.sinusoid_norm, "sinusoid ‖PE<sub>x</sub>‖", { color: COLORS[0], width: lineWidth(1.5), dash: "dash" }, "x = %{x}<br>‖PE<sub>x</sub>‖ = %{y:.5g}<extra>sinusoid</extra>")
        : [
            {
              mode: "lines",
              x: [cliff.x[0], cliff.x[cliff.x.length - 1]],
              y: [data.sinusoid_norm, data.sinusoid_norm],
              name: `sinusoid ‖PE<sub>x</sub>‖ = √(d/2) = ${fmt(data.sinusoid_norm)}`,
              line: { color: COLORS[0], width: lineWidth(1.5), dash: "dash" },
              hovertemplate: "‖PE<sub>x</sub>‖ = %{y:.5g} at every x<extra>sinusoid</extra>",
            },
          ]),
    ],
    {
      title: "Length of the vector each position gets (log scale)",
      xaxis: axis("position x"),
      yaxis: axis("norm", { type: "log" }),
      ...marks,
    },
  );
}

startPage({
  draw(data) {
    drawTable(data);
    drawSimilarity(data);
    drawOffset(data);
    drawPca(data);
    drawVariance(data);
    drawCliff(data);

    const info = data.info;
    out("tensor", `${info.tensor} (${info.origin === "shipped" ? "shipped with the app" : info.file})`);
    out("shape", `${info.shape[0]} × ${info.shape[1]} ${info.dtype}${info.first_position_row ? ` (rows 0–${info.first_position_row - 1} reserved)` : ""}`);
    out("sha", info.sha256);
    document.querySelector('[data-out="sha"]')?.setAttribute("title", info.sha256);
    out("source", `${info.source?.model ?? info.title}${info.source?.package ? ` via ${info.source.package}` : ""}; licence ${info.license ?? "not stated"}`);
    const n = data.neighbour_similarity;
    out("neighbours", `learned ${fmt(n.learned)} · sinusoid ${n.sinusoid === null ? "—" : fmt(n.sinusoid)}`);
    const share = (part) => `${fmt(100 * part.cumulative[Math.min(1, part.cumulative.length - 1)], 3)}%`;
    out("pc12", `learned ${share(data.pca.learned)} · sinusoid ${share(data.pca.sinusoid)}${data.pc12_turns === null ? "" : `; learned PC1/PC2 turns ${fmt(data.pc12_turns, 3)} times (every ${fmt(data.pc12_period, 3)} positions)`}`);
    const k90 = (part) => {
      const k = part.cumulative.findIndex((v) => v >= 0.9);
      return k < 0 ? `> ${part.cumulative.length}` : String(k + 1);
    };
    out("pc90", `learned ${k90(data.pca.learned)} · sinusoid ${k90(data.pca.sinusoid)}`);
    out("position", `${data.position}: ‖Pₚ‖ = ${fmt(Math.hypot(...data.row))}, first values ${data.row.slice(0, 3).map((v) => fmt(v)).join(", ")} …`);
    out("missing", `${data.first_missing_position} (the table has ${data.max_len} rows)`);
  },
});
