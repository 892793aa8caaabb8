// SmolLM2-135M's next-token loss against position past its trained length, one line per scaling
// method, from the precomputed curves (scripts/long_context.py).

import { startPage } from "../lib/page.js";
import { curves } from "../lib/marks/index.js";
import { COLORS, axis, fmt, lineWidth } from "../lib/plot.js";
import { out } from "../lib/numbers.js";
import { table } from "../lib/marks/table.js";

const ORDER = ["none", "linear", "ntk", "yarn", "dynamic"];
const DASH = { none: "solid", linear: "dot", ntk: "dashdot", yarn: "solid", dynamic: "dash" };

function parameters(p) {
  const parts = [];
  if (p.factor !== undefined) parts.push(`s = ${fmt(p.factor, 3)}`);
  if (p.base !== undefined) parts.push(`base ${fmt(p.base, 6)}`);
  if (p.attention_factor !== 1) parts.push(`attention factor ${fmt(p.attention_factor, 5)}`);
  return parts.length ? parts.join(", ") : `base ${fmt(p.rope_theta, 6)}`;
}

function marks(data) {
  // The table's window, outlined under the curves.
  const shapes = [{ type: "rect", layer: "below", xref: "x", yref: "paper", x0: data.window_start, x1: data.window_end, y0: 0, y1: 1, fillcolor: "rgba(31, 119, 180, 0.07)", line: { color: "rgba(31, 119, 180, 0.5)", width: 1 } }];
  const annotations = [];
  if (data.second_half !== null) {
    shapes.push({ type: "rect", layer: "below", xref: "x", yref: "paper", x0: data.second_half, x1: data.length, y0: 0, y1: 1, fillcolor: "#999", opacity: 0.15, line: { width: 0 } });
    // Above the plot, right of the trained-length line while that label sits left of it: inside, it
    // would cover curves or the position ticks.
    annotations.push({ xref: "x", yref: "paper", x: data.second_half, xanchor: "left", xshift: 6, y: 1, yanchor: "bottom", text: "repeated tokens", showarrow: false });
  }
  shapes.push({ type: "line", xref: "x", yref: "paper", x0: data.trained_length, x1: data.trained_length, y0: 0, y1: 1, line: { color: "#555", width: 1.5, dash: "dot" } });
  annotations.push({ xref: "x", yref: "paper", x: data.trained_length, xanchor: data.second_half !== null ? "right" : "center", xshift: data.second_half !== null ? -6 : 0, y: 1, yanchor: "bottom", text: `trained length ${data.trained_length}`, showarrow: false });
  return { shapes, annotations };
}

// One row per method shown: its name (the row's header), its parameters and three mean losses.
const MEAN_COLUMNS = [{ key: "title", header: "row" }, { key: "parameters" }, { key: "before" }, { key: "past" }, { key: "window" }];

function meansTable(data) {
  const L = data.trained_length.toLocaleString("en-US");
  const span = `positions ${data.window_start.toLocaleString("en-US")}–${(data.window_end - 1).toLocaleString("en-US")}`;
  const rows = ORDER.filter((m) => m in data.loss).map((m) => ({
    title: data.method_titles[m],
    parameters: parameters(data.methods[m]),
    before: `positions < ${L}: ${fmt(data.mean_before[m], 4)}`,
    past: `positions ≥ ${L}: ${fmt(data.mean_past[m], 4)}`,
    window: `${span}: ${fmt(data.mean_window[m], 4)}`,
  }));
  table('[data-out="means"]', rows, MEAN_COLUMNS);
}

startPage({
  draw(data, state) {
    const x = [...data.bin_centres];
    const series = ORDER.filter((m) => m in data.loss && state[`show_${m}`]).map((m) => ({
      x,
      y: [...data.loss[m]],
      name: data.method_titles[m],
      color: COLORS[ORDER.indexOf(m) % COLORS.length],
      dash: DASH[m],
      width: lineWidth(m === "none" ? 2.5 : 1.8),
      hovertemplate: `${m}<br>positions around %{x:.0f}<br>loss %{y:.3f} nats<extra></extra>`,
    }));
    const top = Math.max(1, ...ORDER.filter((m) => m in data.loss).flatMap((m) => data.loss[m]));
    curves("plot-loss", series, {
      title: `Next-token loss, mean per 256 positions: ${data.text_info.label}`,
      // Both axes start a little before 0 so their two "0" ticks do not meet in the corner.
      xaxis: axis("position t", { range: [-0.03 * data.length, data.length] }),
      yaxis: axis("loss (nats)", { range: [-0.06 * top, 1.04 * top] }),
      ...marks(data),
    });
    meansTable(data);
    out("label", data.text_info.label);
    out("source", `${data.text_info.source}. Licence: ${data.text_info.license}`);
    out("trained", `${data.trained_length.toLocaleString("en-US")} tokens (this text: ${data.length.toLocaleString("en-US")}, s = ${data.length / data.trained_length})`);
    const seconds = Object.values(data.run.seconds);
    const total = seconds.reduce((a, b) => a + b, 0);
    out("run", `${seconds.length} passes of ${data.length.toLocaleString("en-US")} tokens, ${Math.round(total / 60)} min in all, at most ${Math.round(data.run.peak_rss_mb)} MB of memory; ${data.run.attention}`);
    out("command", data.run.command);
    const c = data.copy_controls;
    const pairs = c.distances.map((d, i) => `${fmt(c.repeat_loss[i], 3)} nats at distance ${d.toLocaleString("en-US")}`);
    const here = data.text === "copy" ? `; on this text, at distance 8,192 and past the trained length, it is ${fmt(data.mean_past.none, 4)}` : "";
    out("controls", `Inside the trained length, with its own RoPE, the model's mean loss over a repeat of random tokens is ${pairs.join(", ")}${here}.`);
  },
});
