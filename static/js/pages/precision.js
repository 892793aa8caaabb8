// Precision of RoPE angles: per-column largest angle and score error in float32, bfloat16 and
// float16 against float64, and the first position where neighbours share an angle.

import { startPage } from "../lib/page.js";
import { COLORS, axis, draw, fmt, lineWidth, offAxis } from "../lib/plot.js";
import { count } from "../lib/numbers.js";

const DASH = { float32: "solid", bfloat16: "dash", float16: "dot" };

function positive(values) {
  return values.map((v) => (v > 0 && Number.isFinite(v) ? v : null));
}

function curves(data, kind) {
  const x = [...data.column_start];
  const traces = [];
  data.curves.forEach((curve, i) => {
    for (const dtype of data.dtypes) {
      traces.push({
        type: "scatter",
        mode: "lines",
        x: [...x],
        y: positive(curve.dtypes[dtype][kind]),
        name: `pair ${curve.pair}, ${dtype}`,
        line: { color: COLORS[i % COLORS.length], dash: DASH[dtype], width: lineWidth(dtype === "float32" ? 2.5 : 1.5) },
        connectgaps: false,
        hovertemplate: `pair ${curve.pair} ${dtype}<br>from position %{x}<br>%{y:.3g}<extra></extra>`,
      });
    }
  });
  return traces;
}

function collisionCell(entry, seqLen) {
  if (entry.first_collision === null) return "none below 2^24";
  const within = entry.first_collision < seqLen;
  return `${count(entry.first_collision)}${within ? " (within target)" : ""}`;
}

startPage({
  draw(data) {
    draw("plot-angle", curves(data, "angle_error_max"), {
      title: { text: `Angle error |φ̃ − m·θ| (largest per column), positions 0 … ${data.seq_len - 1}` },
      xaxis: axis("position m"),
      yaxis: axis("angle error (radians)", offAxis({ type: "log", exponentformat: "power" })),
    });
    draw("plot-score", curves(data, "score_error_max"), {
      title: { text: "Score term error |cos φ̃ − cos m·θ| (largest per column)" },
      xaxis: axis("position m"),
      yaxis: axis("score error", offAxis({ type: "log", exponentformat: "power" })),
    });
    const body = document.querySelector('[data-out="collisions"]');
    if (body) {
      body.replaceChildren(
        ...data.curves.map((curve) => {
          const row = document.createElement("tr");
          const cells = [String(curve.pair), fmt(curve.inv_freq, 6), ...data.dtypes.map((d) => collisionCell(curve.dtypes[d], data.seq_len))];
          cells.forEach((text, i) => {
            const cell = document.createElement(i === 0 ? "th" : "td");
            if (i === 0) cell.scope = "row";
            cell.textContent = text;
            cell.dataset.dtype = i >= 2 ? data.dtypes[i - 2] : "";
            row.appendChild(cell);
          });
          return row;
        }),
      );
    }
    const over = data.curves[0].dtypes.float16.overflow_from;
    const note = document.querySelector('[data-out="overflow"]');
    if (note) {
      note.textContent =
        over === null ? "" : `float16 cannot hold positions from ${count(over)} on (its largest finite value is 65504), so its curves stop there.`;
    }
  },
});
