// Score against offset: per-column min/max envelopes of s(Δ) for each base, marks where one hand returns.

import { startPage } from "../lib/page.js";
import { COLORS, axis, draw, lineWidth, sized } from "../lib/plot.js";
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

function baseRows(data) {
  const body = document.querySelector('[data-out="base_rows"]');
  if (!body) return;
  body.replaceChildren(
    ...data.curves.map((curve) => {
      const row = document.createElement("tr");
      const values = [approx(curve.base), approx(curve.s0, 8), approx(curve.min.value, 8), curve.min.delta, approx(curve.tail_max_abs, 6)];
      for (const value of values) {
        const cell = document.createElement("td");
        cell.textContent = String(value);
        row.appendChild(cell);
      }
      return row;
    }),
  );
}

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
          { type: "scatter", mode: "lines", x, y: [...curve.band_low], line: { width: 0, color }, legendgroup: name, showlegend: false, hoverinfo: "skip" },
          {
            type: "scatter",
            mode: "lines",
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
          type: "scatter",
          mode: "lines",
          x,
          y: [...curve.low],
          line: { width: lineWidth(1), color },
          legendgroup: name,
          showlegend: false,
          text: hover,
          hovertemplate: `${name}<br>%{text}<br>min %{y:.6f}<extra></extra>`,
        },
        {
          type: "scatter",
          mode: "lines",
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
    // The marks' offsets, written above the plot (the first return is also a readout below): of
    // the first six, only those at least a label's width from the last one written (the others
    // stay dotted lines, as the title says).
    const el = document.getElementById("plot-offsets");
    const where = (delta) => (data.spacing === "log" ? (Math.log10(delta) - xRange[0]) / (xRange[1] - xRange[0] || 1) : delta / (xRange[1] || 1));
    const gap = (sized(13, 23) * 2.2) / Math.max(el.clientWidth - 120, 100);
    const named = [];
    for (const mark of marks.slice(0, 6)) {
      if (!named.length || where(mark.delta) - where(named[named.length - 1].delta) >= gap) named.push(mark);
    }
    const annotations = named.map((mark) => ({
      x: data.spacing === "log" ? Math.log10(mark.delta) : mark.delta,
      y: 1,
      xref: "x",
      yref: "paper",
      yanchor: "bottom",
      showarrow: false,
      font: { color: "#444" },
      text: `Δ=${mark.delta}`,
      textangle: -60,
      xanchor: "center",
    }));
    draw("plot-offsets", traces, {
      title: {
        text: `s(Δ) for ${data.content} content, d = ${data.head_dim}` +
          (data.dropped_pairs ? `, p-RoPE: ${data.dropped_pairs} slowest pairs not rotating` : "") +
          (named.length < Math.min(marks.length, 6) ? "; dotted: near returns, a label only where there is room" : ""),
      },
      xaxis: axis("offset Δ = n − m (tokens)", { range: xRange, ...(data.spacing === "log" ? { type: "log", exponentformat: "power" } : {}) }),
      yaxis: axis("score s(Δ)"),
      shapes,
      annotations,
      // Room above the plot for the labels of the near-return marks.
      margin: { t: sized(80, 130) },
    });

    out("points", `${data.total_points.toLocaleString("en-US")} in ${data.column_start.length} columns (up to ${data.max_points_per_column} per column)`);
    out("pairs", `${data.kept_pairs} of ${data.pairs}${data.dropped_pairs ? ` (pairs ${data.kept_pairs}–${data.pairs - 1} dropped)` : ""}`);
    out(
      "hand",
      data.returns.theta > 0
        ? `j = ${data.returns.hand}: θ ${equals(data.returns.theta, 6)}, period ${approx(data.returns.period, 6)} tokens`
        : `j = ${data.returns.hand} does not rotate (dropped by p-RoPE)`,
    );
    out("first_return", marks.length ? `Δ = ${count(marks[0].delta)}, ${approx(marks[0].gap, 6)} rad from its start` : "none within the range");
    baseRows(data);
    out("content_note", contentNote(data));
  },
});
