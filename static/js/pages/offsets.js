// Score against offset: per-column min/max envelopes of s(Δ) for each base, marks where one hand returns.

import { startPage } from "../lib/page.js";
import { curves } from "../lib/marks/index.js";
import { table } from "../lib/marks/table.js";
import { COLORS, axis, lineWidth, offAxis, plotSize, sized, textWidth } from "../lib/plot.js";
import { approx, count, equals, out } from "../lib/numbers.js";


/** Widest band (mean − std … mean + std, over a column's offsets) among columns within [from, to]. */
function widestBand(data, curve, from, to) {
  let widest = 0;
  let offsets = 0;
  data.column_start.forEach((start, i) => {
    const stop = data.column_stop[i] - 1;
    if (start < from || stop > to) return;
    widest = Math.max(widest, curve.band_high[i] - curve.band_low[i]);
    offsets = Math.max(offsets, data.points_per_column[i]);
  });
  return { widest, offsets };
}

// What the curve of the first base does near Δ = 0 and over the last tenth of the range, in numbers.
function contentNote(data) {
  const curve = data.curves[0];
  const { near, far } = curve;
  const span = (part) => `Δ = ${count(part.from)} … ${count(part.to)}`;
  const base = data.curves.length > 1 ? ` (base ${approx(curve.base)})` : "";
  if (data.content === "constant") {
    return (
      `With constant content the score starts at s(0) ${equals(curve.s0, 6)}${base}; its root-mean-square is ` +
      `${approx(near.rms, 4)} over ${span(near)} and ${approx(far.rms, 4)} over ${span(far)}, where the largest |s| is ` +
      `${approx(far.max_abs, 4)}.`
    );
  }
  const draws = data.seeds === 1 ? "one random draw" : `the mean of ${data.seeds} random draws`;
  let text =
    `With random content the curve${base} is ${draws}; it does not decay: its root-mean-square is ` +
    `${approx(near.rms, 4)} over ${span(near)} and ${approx(far.rms, 4)} over ${span(far)}.`;
  if (data.seeds > 1) {
    text += ` The draws spread about it by a standard deviation (root-mean-square) of ${approx(near.rms_std, 4)} and ${approx(far.rms_std, 4)} there.`;
    const nearBand = widestBand(data, curve, near.from, near.to);
    const farBand = widestBand(data, curve, far.from, far.to);
    if (nearBand.offsets > 0 && farBand.offsets > nearBand.offsets) {
      text +=
        ` The shaded band is up to ${approx(farBand.widest, 3)} wide over ${span(far)} against ${approx(nearBand.widest, 3)} over ${span(near)}, ` +
        `mostly because a column there holds up to ${count(farBand.offsets)} offsets and spans the extremes of mean ± std over all of them.`;
    }
  }
  return text;
}

function rgba(hex, alpha) {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}

// Type size of the near-return labels, and the plot's side margins (set here, so the page knows
// how wide the plot area is when it chooses which labels fit).
const LABEL_SIZE = () => sized(12, 20);
const SIDES = () => ({ l: sized(72, 128), r: sized(28, 44) });

/** "a", "a and b", "a, b and c". */
function andList(items) {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}


/**
 * Labels for the near-return marks, written level in two rows above the plot: each mark, in order,
 * goes to the lower row if its label clears the last one written there by half a letter, else to
 * the upper row, else it stays an unlabelled dotted line (the title then lists every mark).
 */
function returnLabels(el, marks, spacing, xRange) {
  const size = LABEL_SIZE();
  const sides = SIDES();
  const width = Math.max(100, plotSize(el).width - sides.l - sides.r);
  const family = getComputedStyle(el).fontFamily || "sans-serif";
  const where = (delta) => {
    const at = spacing === "log" ? Math.log10(delta) : delta;
    return ((at - xRange[0]) / (xRange[1] - xRange[0] || 1)) * width;
  };
  const rowHeight = Math.ceil(size * 1.3);
  const rowEnds = [-Infinity, -Infinity];
  const annotations = [];
  const unlabelled = [];
  for (const mark of marks) {
    const text = `Δ=${count(mark.delta)}`;
    const px = where(mark.delta);
    const full = textWidth(text, size, family) * 1.08 + 2;
    // Centred on its line; starting at the line when that would reach over the left margin (the
    // top y tick is there), ending at it when it would run out of the figure on the right.
    const right = width + sides.r - 2;
    const xanchor = px - full / 2 < 0 ? "left" : px + full / 2 > right ? "right" : "center";
    const from = xanchor === "left" ? px : xanchor === "right" ? px - full : px - full / 2;
    const row = from < 0 || from + full > right ? -1 : rowEnds.findIndex((end) => from >= end + size / 2);
    if (row < 0) {
      unlabelled.push(mark.delta);
      continue;
    }
    rowEnds[row] = from + full;
    annotations.push({
      x: spacing === "log" ? Math.log10(mark.delta) : mark.delta,
      y: 1,
      xref: "x",
      yref: "paper",
      xanchor,
      yanchor: "bottom",
      yshift: 3 + row * rowHeight,
      showarrow: false,
      font: { color: "#444", size },
      text,
    });
  }
  const rows = annotations.some((note) => note.yshift > 3) ? 2 : 1;
  return { annotations, unlabelled, margin: { ...sides, t: rows * rowHeight + sized(10, 16) } };
}

// The table of bases: one row per curve, its base, s(0), its lowest s(Δ) and where, and the largest
// |s| over the last tenth of the offsets.
const BASE_COLUMNS = [
  { key: "base", format: (v) => approx(v) },
  { key: "s0", format: (v) => approx(v, 8) },
  { value: (curve) => curve.min.value, format: (v) => approx(v, 8) },
  { value: (curve) => curve.min.delta },
  { key: "tail_max_abs", format: (v) => approx(v, 6) },
];

startPage({
  draw(data) {
    const x = [...data.x];
    const hover = data.column_start.map(
      (start, i) => `Δ = ${start}${data.points_per_column[i] > 1 ? ` … ${data.column_stop[i] - 1} (${data.points_per_column[i]} offsets)` : ""}`,
    );
    const traces = [];
    data.curves.forEach((curve, i) => {
      const color = COLORS[i % COLORS.length];
      const name = `base ${approx(curve.base)}`;
      if (curve.band_low) {
        traces.push(
          { x, y: [...curve.band_low], line: { width: 0, color }, legendgroup: name, showlegend: false, hoverinfo: "skip" },
          {
            x,
            y: [...curve.band_high],
            fill: "tonexty",
            fillcolor: rgba(color, 0.15),
            line: { width: 0, color },
            name: `${name}: mean ± std over ${data.seeds} draws`,
            legendgroup: name,
            hoverinfo: "skip",
          },
        );
      }
      traces.push(
        {
          x,
          y: [...curve.low],
          line: { width: lineWidth(1), color },
          legendgroup: name,
          showlegend: false,
          text: hover,
          hovertemplate: `${name}<br>%{text}<br>min %{y:.6f}<extra></extra>`,
        },
        {
          x,
          y: [...curve.high],
          fill: "tonexty",
          fillcolor: rgba(color, 0.55),
          line: { width: lineWidth(1), color },
          name: data.content === "random" ? `${name}: mean` : name,
          legendgroup: name,
          text: hover,
          hovertemplate: `${name}<br>%{text}<br>max %{y:.6f}<extra></extra>`,
        },
      );
    });
    const marks = data.returns.marks.filter((mark) => mark.delta <= data.max_offset);
    const shapes = marks.map((mark) => ({
      type: "line",
      xref: "x",
      yref: "paper",
      x0: mark.delta,
      x1: mark.delta,
      y0: 0,
      y1: 1,
      line: { color: "#555", width: 1, dash: "dot" },
    }));
    const first = x.find((value) => value > 0) ?? 1;
    const last = x[x.length - 1];
    const xRange = data.spacing === "log" ? [Math.log10(first), Math.log10(last)] : [0, last];
    const { annotations, margin, unlabelled } = returnLabels(document.getElementById("plot-offsets"), marks, data.spacing, xRange);
    const listed = andList(marks.map((mark) => count(mark.delta)));
    curves("plot-offsets", traces, {
      title: `s(Δ) for ${data.content} content, d = ${data.head_dim}` +
        (data.dropped_pairs ? `, p-RoPE: ${data.dropped_pairs} slowest pairs not rotating` : "") +
        (unlabelled.length ? `<br>dotted: near returns at Δ = ${listed}; no room above the plot to label ${andList(unlabelled.map(count))}` : ""),
      xaxis: axis("offset Δ = n − m (tokens)", { range: xRange, ...(data.spacing === "log" ? { type: "log", exponentformat: "power" } : {}) }),
      yaxis: axis("score s(Δ)", offAxis()),
      shapes,
      annotations,
      margin,
    });

    out("points", `${count(data.total_points)} in ${data.column_start.length} columns (up to ${data.max_points_per_column} per column)`);
    out("pairs", `${data.kept_pairs} of ${data.pairs}${data.dropped_pairs ? ` (pairs ${data.kept_pairs}–${data.pairs - 1} dropped)` : ""}`);
    out(
      "hand",
      data.returns.theta > 0
        ? `j = ${data.returns.hand}: θ ${equals(data.returns.theta, 6)}, period ${approx(data.returns.period, 6)} tokens`
        : `j = ${data.returns.hand} does not rotate (dropped by p-RoPE)`,
    );
    out("first_return", marks.length ? `Δ = ${count(marks[0].delta)}, ${approx(marks[0].gap, 6)} rad from its start` : "none within the range");
    table('[data-out="base_rows"]', data.curves, BASE_COLUMNS);
    out("content_note", contentNote(data));
  },
});
