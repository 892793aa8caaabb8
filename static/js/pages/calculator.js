// Context-extension calculator: fills each row's value from the JSON twin.

import { startPage } from "../lib/page.js";
import { COLORS, axis, draw, fmt, lineWidth } from "../lib/plot.js";

function out(name, text) {
  const slot = document.querySelector(`[data-out="${name}"]`);
  if (slot) slot.textContent = text;
}

function drawMargin(data) {
  const m = data.margin;
  const x = [...m.start];
  const traces = [];
  m.curves.forEach((curve, i) => {
    const color = COLORS[i];
    traces.push({ type: "scatter", mode: "lines", x: [...x], y: [...curve.low], name: `${curve.label} = ${fmt(curve.base, 6)}: lowest per column`, line: { color, width: lineWidth(1) } });
    traces.push({ type: "scatter", mode: "lines", x: [...x], y: [...curve.high], name: `${curve.label}: highest per column`, line: { color, width: lineWidth(1) }, fill: "tonexty", opacity: 0.5 });
  });
  traces.push({ type: "scatter", mode: "lines", x: [0, m.length - 1], y: [0, 0], name: "B = 0", line: { color: "#000", dash: "dash", width: lineWidth(1) } });
  draw("plot-margin", traces, {
    title: { text: `B<sub>m</sub> = Σ<sub>i</sub> cos(m·θ<sub>i</sub>) for distances m < ${m.length.toLocaleString("en-US")}` },
    xaxis: axis("distance m (tokens)"),
    yaxis: axis("B<sub>m</sub>"),
  });
}

const SOURCE = {
  table: "read from a table that scripts/men_table.py precomputed with the same search",
  live: "searched for this request",
};

function count(n) {
  return n.toLocaleString("en-US");
}

// Why a bound is not shown: no base up to 10^15 passes, or the search does not fit in one request.
function missing(data, source, length, name) {
  if (source !== null) return "no base up to 10^15 passes";
  const lengths = data.men_table_lengths;
  const table = lengths.length ? `; tabulated for ${name} = ${count(lengths[0])}, ${count(lengths[1])}, … ${count(lengths[lengths.length - 1])}` : "";
  return `not given for ${name} = ${count(length)}: searched live only up to ${count(data.men_live_limit)} at d = ${data.head_dim}${table}`;
}

function menNote(data) {
  const parts = [];
  if (data.men_base !== null) parts.push(`The smallest base for T is ${SOURCE[data.men_source]}.`);
  if (data.men_base_train !== null) parts.push(`The one for L is ${SOURCE[data.men_train_source]}.`);
  if (data.men_base !== null) {
    parts.push(
      `Bases passing the test do not form one interval, so this is the smallest passing base on a grid of ratio ` +
        `${fmt(data.men_grid_ratio, 5)}, refined by bisection to 0.01%; just below it, B_m first turns negative at m = ${data.men_first_negative_below}.`,
    );
  }
  return parts.join(" ");
}

startPage({
  draw(data) {
    drawMargin(data);
    out("scale", fmt(data.scale, 6));
    out("ntk_base", data.ntk_base === null ? "needs d > 2" : fmt(data.ntk_base, 6));
    out("dynamic_base", data.dynamic_base === null ? "needs d > 2 and T ≥ L" : `${fmt(data.dynamic_base, 6)} (α = ${fmt(data.dynamic_alpha, 6)})`);
    out("yarn", `${fmt(data.yarn_attention, 8)} (logits × ${fmt(data.yarn_logits, 6)})`);
    out("longrope", fmt(data.longrope_attention, 8));
    out("critical", fmt(data.critical_pair, 6));
    const b = data.llama3;
    out("edges", `${fmt(b.high_freq_wavelen, 6)} and ${fmt(b.low_freq_wavelen, 6)} tokens`);
    out("bands", `${b.kept} / ${b.smoothed} / ${b.divided}`);
    out("men", data.men_base === null ? missing(data, data.men_source, data.seq_len, "T") : `${fmt(data.men_base, 6)} (b = ${fmt(data.base, 6)} ${data.men_ok ? "is enough" : "is below it"})`);
    out("men_train", data.men_base_train === null ? missing(data, data.men_train_source, data.original_max_position_embeddings, "L") : fmt(data.men_base_train, 6));
    out("men_note", menNote(data));
  },
});
