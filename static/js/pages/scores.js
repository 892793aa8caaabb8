// Score matrix: heatmap of s_mn (block means above 512 positions), Toeplitz and identity readouts.

import { startPage } from "../lib/page.js";
import { heatmap } from "../lib/marks/index.js";
import { table } from "../lib/marks/table.js";
import { DIVERGING, axis } from "../lib/plot.js";
import { approx, count, out } from "../lib/numbers.js";

// What the causal mask does and what RoPE does, for the matrix shown.
function causalNote(data) {
  if (!data.causal) return "";
  const exact = data.block === 1;
  const cells = exact ? "cells" : "blocks";
  let text =
    `Causal mask: query m may look only at keys n ≤ m, so the ${count(data.masked_cells)} ${cells} with n > m ` +
    `(of ${count(data.cells)}) are masked and left blank; ` +
    (exact ? "row m keeps its m + 1 scores." : `a block on the diagonal averages only its visible cells (n ≤ m).`);
  text +=
    " RoPE knows nothing of the mask: it turns each query and key by its own position first, so every score left " +
    "depends on the positions only through n − m ≤ 0, how far back the key is";
  if (data.content === "random") {
    text += ", together with the content, which here differs at every position.";
  } else if (data.toeplitz.spread !== null) {
    text += `; the visible cells of each diagonal agree to within ${approx(data.toeplitz.spread, 3)}.`;
  } else {
    text += ".";
  }
  return text;
}

function roundingNote(data) {
  if (data.toeplitz_relative === null) return "no diagonal holds two visible cells here.";
  const kind = data.content === "random" ? "(random content is not Toeplitz: the spread is the content's)" : "";
  return `here the largest spread along a diagonal is ${approx(data.toeplitz_relative, 3)} times the largest |score|${kind ? ` ${kind}` : ""}.`;
}

// The identity checks: one row per (m, n) pair, its two largest errors.
const IDENTITY_COLUMNS = [
  { key: "m" },
  { key: "n" },
  { key: "shift_error", format: (v) => approx(v, 3) },
  { key: "orthogonality_error", format: (v) => approx(v, 3) },
];

const WHAT_IF = {
  none: "",
  zero: "Every θⱼ = 0: nothing rotates, so every cell equals q·k/√d and position has vanished.",
  pi: "Every θⱼ = π: one step turns every pair half way round, so cells alternate ±q·k/√d with the parity of n − m.",
};

startPage({
  draw(data) {
    const blocks = data.starts.length;
    const labels = data.starts.map((start, i) => (data.sizes[i] === 1 ? start : start + (data.sizes[i] - 1) / 2));
    const hover = data.block === 1
      ? "query m = %{y}<br>key n = %{x}<br>s = %{z:.10f}<extra></extra>"
      : `query block centred at %{y}<br>key block centred at %{x}<br>mean of ${data.block}×${data.block} cells: %{z:.10f}<extra></extra>`;
    heatmap(
      "plot-scores",
      {
        z: data.scores.map((row) => [...row]),
        x: [...labels],
        y: [...labels],
        scale: DIVERGING,
        bar: "score",
        hovertemplate: hover,
        hoverongaps: false,
      },
      {
        title: `s<sub>mn</sub> for ${data.content} content, L = ${data.seq_len}, d = ${data.head_dim}, ${data.pairing} pairing` +
          (data.causal ? ", causal" : "") + (data.theta_override !== "none" ? `, all θ = ${data.theta_override === "pi" ? "π" : "0"}` : ""),
        square: true,
        xaxis: axis("key position n", { range: [-0.5, data.seq_len - 0.5] }),
        yaxis: axis("query position m", { range: [data.seq_len - 0.5, -0.5] }),
      },
    );
    out(
      "cells",
      data.block === 1
        ? `${blocks} × ${blocks} (every position)`
        : `${blocks} × ${blocks} blocks of ${data.block} positions (${data.full_blocks} full-size)`,
    );
    out("toeplitz", data.toeplitz.spread === null ? "—" : `${approx(data.toeplitz.spread, 3)} (diagonal n − m = ${data.toeplitz.offset}${data.block > 1 ? " blocks" : ""})`);
    out("toeplitz_relative", data.toeplitz_relative === null ? "—" : approx(data.toeplitz_relative, 3));
    out("identity", approx(data.identity_max_error, 3));
    out("orthogonality", approx(data.orthogonality_max_error, 3));
    out("range", `${approx(data.score_min, 6)} … ${approx(data.score_max, 6)}`);
    out("content_dot", data.content_dot === null ? "— (content differs per position)" : approx(data.content_dot, 10));
    out("what_if", WHAT_IF[data.theta_override] ?? "");
    out("causal_note", causalNote(data));
    out("rounding_note", roundingNote(data));
    table('[data-out="identity_rows"]', data.identity, IDENTITY_COLUMNS);
  },
});
