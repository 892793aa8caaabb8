// Why position? The inspected word's output in the sentence and in its reordering, with and without position.

import { startPage } from "../lib/page.js";
import { bars, plotly } from "../lib/marks/index.js";
import { COLORS, DIVERGING, axis, panelGrid, sized } from "../lib/plot.js";
import { approx, equals, out } from "../lib/numbers.js";
import { table } from "../lib/marks/table.js";

const NAMES = { none: "no position", learned: "learned table", sinusoidal: "sinusoidal", rope: "RoPE" };

// The tables: the size of each scheme's difference, and the two outputs component by component
// (heading row in the <thead>, one row per component).  Numbers are written in full (String).
const NORM_COLUMNS = [
  { key: "name", header: "row" },
  { key: "diff_norm" },
  { key: "max_abs_diff" },
  { key: "identical", format: (yes) => (yes ? "yes" : "no") },
];
const VECTOR_KEYS = ["c", "none_out", "none_other", "none_diff", "out", "other", "diff"];
const HEAD_COLUMNS = VECTOR_KEYS.map((_, c) => ({ value: (labels) => labels[c], header: "col" }));
const VECTOR_COLUMNS = VECTOR_KEYS.map((key, c) => (c === 0 ? { key, header: "row" } : { key }));

function vectorPlot(id, data, scheme, key) {
  const components = Array.from({ length: data.dim }, (_, c) => c);
  const first = data.words.join(" ");
  const second = data.other_words.join(" ");
  const exact = scheme.identical ? "identical in every bit" : `difference norm ${approx(scheme.diff_norm)}`;
  return bars(
    id,
    [
      { x: components, y: [...scheme.out], name: `in “${first}”`, color: COLORS[0] },
      { x: components, y: [...scheme.other_out], name: `in “${second}”`, color: COLORS[1] },
      { x: components, y: [...scheme.diff], name: "difference", color: COLORS[7] },
    ],
    {
      title: `${NAMES[key]}: output for “${data.word_text}” (${exact})`,
      barmode: "group",
      xaxis: axis("component of the output vector", { dtick: 1 }),
      yaxis: axis("value"),
    },
  );
}

function scoreHeatmaps(data, key) {
  const labels = data.words.map((w, i) => `${i} ${w}`);
  const none = data.schemes.none.scores;
  const other = data.schemes[key].scores;
  // One colour scale for both matrices, so equal colours are equal scores.
  const values = [...none.flat(), ...other.flat()].filter(Number.isFinite);
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const heat = (z, xaxis, yaxis, showscale) => ({
    type: "heatmap",
    z: z.map((row) => [...row]),
    x: labels,
    y: labels,
    xaxis,
    yaxis,
    zmin: lo,
    zmax: hi,
    colorscale: DIVERGING,
    showscale,
    colorbar: { title: { text: "score" } },
    hovertemplate: "query %{y}<br>key %{x}<br>score %{z:.6g}<extra></extra>",
  });
  // Side by side on a wide screen, one above the other on a phone: two heatmaps on subplots with
  // one colour bar, a figure no mark draws, so it goes to Plotly as it is.
  const grid = panelGrid("plot-scores", 2, 0.14);
  const stacked = grid.stacked;
  const size = sized(13, 20);
  const longest = Math.max(...labels.map((label) => label.length));
  const left = Math.round(Math.min(220, longest * size * 0.62 + size * 2.6));
  return plotly("plot-scores", [heat(none, "x", "y", false), heat(other, "x2", "y2", true)], {
    title: { text: `Scores q·k/√d in “${data.words.join(" ")}”: no position (${stacked ? "top" : "left"}), ${NAMES[key]} (${stacked ? "bottom" : "right"})` },
    margin: { l: left, b: Math.round(size * 2.4 + longest * size * 0.5) },
    xaxis: axis("key", { domain: grid.x[0], type: "category", tickangle: -40, anchor: "y" }),
    yaxis: axis("query", { autorange: "reversed", type: "category", domain: grid.y[0], anchor: "x" }),
    xaxis2: axis("key", { domain: grid.x[1], type: "category", tickangle: -40, anchor: "y2" }),
    yaxis2: axis(stacked ? "query" : "", { autorange: "reversed", type: "category", anchor: "x2", domain: grid.y[1] }),
  });
}

startPage({
  draw(data, state) {
    const key = state.position in data.schemes ? state.position : "sinusoidal";
    const none = data.schemes.none;
    const chosen = data.schemes[key];
    vectorPlot("plot-none", data, none, "none");
    vectorPlot("plot-with", data, chosen, key);
    scoreHeatmaps(data, key);

    out("word", `#${data.word} “${data.word_text}” (#${data.other_index} in the reordered sentence)`);
    out("other", data.other_words.join(" "));
    out(
      "none_diff",
      none.identical ? `exactly 0 (all ${data.dim} components equal)` : `‖diff‖ = ${none.diff_norm} (not identical!)`,
    );
    out("with_diff", `${NAMES[key]}: ‖diff‖ ${equals(chosen.diff_norm)}`);
    out("equivariant", none.equivariant ? "yes, bit for bit, for every word" : `no (largest gap ${none.largest_row_difference})`);
    out(
      "repeats",
      data.repeats.length
        ? data.repeats
            .map((r) => `“${r.word}” at ${r.positions.join(", ")}: ${r.none ? "equal" : "different"} (with ${NAMES[key]}: ${r[key] ? "equal" : "different"})`)
            .join("; ")
        : "no word repeats in this sentence",
    );

    table(
      '[data-table="norms"]',
      data.positions.map((p) => ({ name: NAMES[p], ...data.schemes[p] })),
      NORM_COLUMNS,
    );
    table('[data-table="vectors-head"]', [["component", "no position, sentence", "reordered", "difference", `${NAMES[key]}, sentence`, "reordered", "difference"]], HEAD_COLUMNS);
    table(
      '[data-table="vectors"]',
      Array.from({ length: data.dim }, (_, c) => ({
        c,
        none_out: none.out[c],
        none_other: none.other_out[c],
        none_diff: none.diff[c],
        out: chosen.out[c],
        other: chosen.other_out[c],
        diff: chosen.diff[c],
      })),
      VECTOR_COLUMNS,
    );
  },
});
