// Precision of RoPE angles: per-column largest angle and score error in float32, bfloat16 and
// float16 against float64, and the first position where neighbours share an angle.

import { startPage } from "../lib/page.js";
import { curves } from "../lib/marks/index.js";
import { COLORS, axis, fmt, lineWidth, offAxis } from "../lib/plot.js";
import { count } from "../lib/numbers.js";
import { table } from "../lib/marks/table.js";

const DASH = { float32: "solid", bfloat16: "dash", float16: "dot" };

function positive(values) {
  return values.map((v) => (v > 0 && Number.isFinite(v) ? v : null));
}

// One curve per pair and dtype: the dtype's largest error of `kind` per column (zeros not drawn).
function errorSeries(data, kind) {
  const x = [...data.column_start];
  const series = [];
  data.curves.forEach((curve, i) => {
    for (const dtype of data.dtypes) {
      series.push({
        x: [...x],
        y: positive(curve.dtypes[dtype][kind]),
        name: `pair ${curve.pair}, ${dtype}`,
        color: COLORS[i % COLORS.length],
        dash: DASH[dtype],
        width: lineWidth(dtype === "float32" ? 2.5 : 1.5),
        connectgaps: false,
        hovertemplate: `pair ${curve.pair} ${dtype}<br>from position %{x}<br>%{y:.3g}<extra></extra>`,
      });
    }
  });
  return series;
}

function collisionCell(entry, seqLen) {
  if (entry.first_collision === null) return "none below 2^24";
  const within = entry.first_collision < seqLen;
  return `${count(entry.first_collision)}${within ? " (within target)" : ""}`;
}

// One row per pair: j (the row's header), θ_j, then per dtype the first collision (the cell names
// its dtype).  The columns are made once per dtype list and sequence length.
let columnsFor = { key: "", columns: [] };
function collisionColumns(dtypes, seqLen) {
  const key = `${dtypes.join(",")}|${seqLen}`;
  if (columnsFor.key !== key) {
    const columns = [
      { key: "pair", header: "row", data: { dtype: "" } },
      { key: "inv_freq", format: (v) => fmt(v, 6), data: { dtype: "" } },
      ...dtypes.map((d) => ({ value: (curve) => curve.dtypes[d], format: (entry) => collisionCell(entry, seqLen), data: { dtype: d } })),
    ];
    columnsFor = { key, columns };
  }
  return columnsFor.columns;
}

startPage({
  draw(data) {
    curves("plot-angle", errorSeries(data, "angle_error_max"), {
      title: `Angle error |φ̃ − m·θ| (largest per column), positions 0 … ${data.seq_len - 1}`,
      xaxis: axis("position m"),
      yaxis: axis("angle error (radians)", offAxis({ type: "log", exponentformat: "power" })),
    });
    curves("plot-score", errorSeries(data, "score_error_max"), {
      title: "Score term error |cos φ̃ − cos m·θ| (largest per column)",
      xaxis: axis("position m"),
      yaxis: axis("score error", offAxis({ type: "log", exponentformat: "power" })),
    });
    table('[data-out="collisions"]', data.curves, collisionColumns(data.dtypes, data.seq_len));
    const over = data.curves[0].dtypes.float16.overflow_from;
    const note = document.querySelector('[data-out="overflow"]');
    if (note) {
      note.textContent =
        over === null ? "" : `float16 cannot hold positions from ${count(over)} on (its largest finite value is 65504), so its curves stop there.`;
    }
  },
});
