// Absolute encodings: sinusoidal table, PE·PEᵀ, the shift matrix M_k, a learned table, and ‖x + p_m‖.

import { startPage } from "../lib/page.js";
import { curves, heatmap, plotly } from "../lib/marks/index.js";
import { COLORS, DIVERGING, axis, clipLimit, fmt, isNarrowPlot, lineWidth, panelGrid, plotSize, sized } from "../lib/plot.js";
import { out } from "../lib/numbers.js";

// One panel of the two-panel similarity figure (Plotly's heatmap trace).
function heat(z, extra = {}) {
  return { type: "heatmap", z: z.map((row) => [...row]), colorscale: DIVERGING, ...extra };
}

startPage({
  draw(data) {
    const positions = [...data.positions];
    const columns = data.columns.map((_, c) => c);
    heatmap(
      "plot-table",
      {
        z: data.table.map((row) => [...row]),
        x: columns,
        y: positions,
        scale: DIVERGING,
        customdata: data.table.map(() => data.columns),
        bar: "value",
        hovertemplate: "position %{y}<br>column %{x} (%{customdata})<br>%{z:.6f}<extra></extra>",
      },
      {
        title: `Sinusoidal table, ${data.layout} layout (d = ${data.dim}, base ${fmt(data.base)})`,
        xaxis: axis("column"),
        yaxis: axis("position p", { autorange: "reversed" }),
      },
    );

    const learnedPositions = positions.slice(0, data.learned_rows);
    // Side by side on a wide screen, one above the other on a phone.
    // Each panel has its own colour bar: side by side only where both fit with their labels.
    const grid = panelGrid("plot-similarity", 2, 0.2, 460);
    const stacked = grid.stacked;
    const largest = Math.max(0, ...data.learned_similarity.flatMap((row) => Array.from(row, Math.abs)));
    // Cell (0, 0) dominates (position 0's row is far longer than the others): the colours stop at
    // the 99.5th percentile of |value|; hover shows every value.
    const limit = clipLimit(data.learned_similarity);
    const clipped = limit > 0 && limit < largest;
    const lacking = data.missing_positions ? `; positions ${data.learned_rows}–${data.seq_len - 1} have no learned row` : "";
    // Two heatmaps on subplots, each with its own colour bar: no mark draws that, Plotly does as it is.
    plotly(
      "plot-similarity",
      [
        heat(data.similarity, {
          x: positions,
          y: positions,
          xaxis: "x",
          yaxis: "y",
          colorbar: stacked ? { title: { text: "PE·PE" }, x: 1.0, y: 0.78, len: 0.44 } : { title: { text: "PE·PE" }, x: 0.4, len: 0.9 },
          hovertemplate: "p %{y}, q %{x}<br>PE(p)·PE(q) = %{z:.6f}<extra></extra>",
        }),
        heat(data.learned_similarity, {
          x: learnedPositions,
          y: learnedPositions,
          xaxis: "x2",
          yaxis: "y2",
          colorbar: stacked ? { title: { text: "P·P" }, x: 1.0, y: 0.22, len: 0.44 } : { title: { text: "P·P" }, x: 1.0, len: 0.9 },
          ...(clipped ? { zmin: -limit, zmax: limit, zauto: false } : {}),
          hovertemplate: "p %{y}, q %{x}<br>P(p)·P(q) = %{z:.3e}<extra></extra>",
        }),
      ],
      {
        title: {
          text: `PE·PE<sup>⊤</sup> of the sinusoid (${stacked ? "top" : "left"}: constant diagonals) and P·P<sup>⊤</sup> of the learned table (${stacked ? "bottom" : "right"}` +
            (clipped ? `; its colours stop at ±${fmt(limit, 3)}, the 99.5th percentile of |value| (largest ${fmt(largest, 3)})` : "") + `${lacking})`,
        },
        xaxis: axis("position q", { domain: stacked ? grid.x[0] : [0, 0.36], anchor: "y" }),
        yaxis: axis("position p", { autorange: "reversed", domain: grid.y[0], anchor: "x" }),
        // the table's own rows (the title names the positions it lacks)
        xaxis2: axis("position q", { domain: stacked ? grid.x[1] : [0.56, 0.92], anchor: "y2" }),
        yaxis2: axis("position p", { autorange: "reversed", anchor: "x2", domain: grid.y[1] }),
      },
    );

    heatmap(
      "plot-shift",
      {
        z: data.shift_matrix.map((row) => [...row]),
        x: columns,
        y: columns,
        scale: DIVERGING,
        bar: "entry",
        hovertemplate: "row %{y}, column %{x}<br>%{z:.6f}<extra></extra>",
      },
      {
        title: `Shift matrix M<sub>k</sub> for k = ${data.shift}: PE(p + ${data.shift}) = M<sub>k</sub> PE(p) for every p`,
        xaxis: axis("column", { scaleanchor: "y", constrain: "domain" }),
        yaxis: axis("row", { autorange: "reversed", constrain: "domain" }),
      },
    );

    const missing = data.missing_positions;
    // The grey band of positions without a row is labelled where it is tall enough for its words (on
    // two lines on a phone, where one would run over the y ticks); the title names them in any case.
    const narrowLearned = isNarrowPlot("plot-learned");
    const bandPixels = missing ? ((data.seq_len - data.max_len) / data.seq_len) * (plotSize("plot-learned").height - sized(80, 150)) : 0;
    const bandLabel = bandPixels >= sized(16, 28) * (narrowLearned ? 2 : 1) + 4;
    heatmap(
      "plot-learned",
      {
        z: data.learned_table.map((row) => [...row]),
        x: columns,
        y: learnedPositions,
        scale: DIVERGING,
        bar: "value",
        hovertemplate: "position %{y}<br>column %{x}<br>%{z:.5f}<extra></extra>",
      },
      {
        title: missing
          ? `Learned table: ${data.max_len} rows; positions ${data.first_missing_position}–${data.seq_len - 1} have no vector`
          : `Learned table (GPT-2 style, std 0.01): ${data.max_len} rows`,
        xaxis: axis("column"),
        yaxis: axis("position p", { autorange: false, range: [data.seq_len - 0.5, -0.5] }),
        shapes: missing
          ? [
              {
                type: "rect",
                xref: "paper",
                yref: "y",
                x0: 0,
                x1: 1,
                y0: data.max_len - 0.5,
                y1: data.seq_len - 0.5,
                fillcolor: "#999",
                opacity: 0.25,
                line: { width: 0 },
              },
            ]
          : [],
        annotations: bandLabel
          ? [
              {
                xref: "paper",
                yref: "y",
                x: 0.5,
                y: (data.max_len + data.seq_len - 1) / 2,
                text: `no row: positions ≥ ${data.max_len}${narrowLearned ? "<br>" : " "}cannot be encoded`,
                showarrow: false,
              },
            ]
          : [],
      },
    );

    curves(
      "plot-norms",
      [
        {
          mode: "lines+markers",
          x: positions,
          y: [...data.norm_sinusoidal],
          name: "‖x + PE(m)‖ sinusoidal",
          line: { color: COLORS[0], width: lineWidth(2) },
          marker: { size: 4 },
        },
        {
          mode: "lines+markers",
          x: positions,
          y: data.norm_learned.map((v) => (v === null ? null : v)),
          name: "‖x + P(m)‖ learned (none past max_len)",
          line: { color: COLORS[1], width: lineWidth(2) },
          marker: { size: 4 },
          connectgaps: false,
        },
        {
          mode: "lines",
          x: positions,
          y: [...data.norm_rotated],
          name: "‖R<sub>m</sub> x‖ rotation (RoPE)",
          line: { color: COLORS[2], width: lineWidth(2), dash: "dash" },
        },
      ],
      {
        title: "Length of the token vector after position is added (x: one seeded token vector)",
        xaxis: axis("position m"),
        yaxis: axis("norm"),
      },
    );

    out("toeplitz", fmt(data.toeplitz_deviation));
    out("residual", `${fmt(data.shift_residual_max)} (largest angle ${fmt((data.seq_len - 1 + Math.abs(data.shift)) * data.frequencies[0])} rad)`);
    const [[a, b], [c, e]] = data.shift_block_first;
    out("block", `[[${fmt(a)}, ${fmt(b)}], [${fmt(c)}, ${fmt(e)}]] (angle k·w₀ = ${fmt(data.shift_angles[0])})`);
    out("orthogonal", fmt(data.shift_orthogonality));
    out(
      "learned",
      missing
        ? `${data.max_len} rows: ${missing} of the ${data.seq_len} positions (from ${data.first_missing_position}) have none`
        : `${data.max_len} rows: every position shown has one`,
    );
    const lo = Math.min(...data.norm_sinusoidal);
    const hi = Math.max(...data.norm_sinusoidal);
    out("norms", `sinusoidal ${fmt(lo)} … ${fmt(hi)}; ‖x‖ = ${fmt(data.x_norm)}; ‖PE(m)‖ = ${fmt(data.pe_norm[0])}`);
  },
});
