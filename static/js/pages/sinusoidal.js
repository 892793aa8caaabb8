// Sinusoidal table: heatmap of positions × dimensions, or curves of chosen columns.

import { startPage } from "../lib/page.js";
import { approx, out } from "../lib/numbers.js";
import { curves, heatmap } from "../lib/marks/index.js";
import { COLORS, DIVERGING, axis, fmt, lineWidth } from "../lib/plot.js";

startPage({
  draw(data, state) {
    const positions = [...data.positions];
    const columns = data.table[0] ? data.table[0].length : 0;
    if (state.plot === "curves") {
      const dims = state.dims.filter((c) => Number.isInteger(c) && c >= 0 && c < columns);
      const dropped = state.dims.filter((c) => !dims.includes(c));
      curves(
        "plot",
        dims.map((c, i) => ({
          x: positions,
          y: data.table.map((row) => row[c]),
          name: `column ${c}: ${data.columns[c]}`,
          color: COLORS[i % COLORS.length],
          width: lineWidth(2),
        })),
        {
          title: "Chosen columns along the positions",
          xaxis: axis("position p"),
          yaxis: axis("value", { range: [-1.1, 1.1] }),
        },
      );
      out("curve_note", dropped.length ? `Columns ${dropped.join(", ")} do not exist for d = ${data.dim}; they are not drawn.` : "");
    } else {
      heatmap(
        "plot",
        {
          z: data.table.map((row) => [...row]),
          x: data.columns.map((label, c) => c),
          y: positions,
          scale: DIVERGING,
          bar: "value",
          customdata: data.table.map(() => data.columns),
          hovertemplate: "position %{y}<br>column %{x} (%{customdata})<br>%{z:.6f}<extra></extra>",
        },
        {
          title: `Sinusoidal table (${data.layout})`,
          xaxis: axis("column (dimension)"),
          yaxis: axis("position p", { autorange: "reversed" }),
        },
      );
      out("curve_note", "");
    }
    const w = data.frequencies;
    out("positions", `${data.start} … ${data.start + data.seq_len - 1}`);
    out("w_first", `${fmt(w[0])} rad/position`);
    out("w_last", `${fmt(w[w.length - 1])} rad/position`);
    out("longest", `${approx((2 * Math.PI) / w[w.length - 1])} positions per turn`);
  },
});
