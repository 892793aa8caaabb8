// Score matrix: heatmap of s_mn (block means above 512 positions), Toeplitz and identity readouts.

import { startPage } from "../lib/page.js";
import { DIVERGING, axis, draw, fmt } from "../lib/plot.js";

function out(name, text) {
  const slot = document.querySelector(`[data-out="${name}"]`);
  if (slot) slot.textContent = text;
}

function identityRows(items) {
  const body = document.querySelector('[data-out="identity_rows"]');
  if (!body) return;
  body.replaceChildren(
    ...items.map((item) => {
      const row = document.createElement("tr");
      for (const value of [item.m, item.n, fmt(item.shift_error, 3), fmt(item.orthogonality_error, 3)]) {
        const cell = document.createElement("td");
        cell.textContent = String(value);
        row.appendChild(cell);
      }
      return row;
    }),
  );
}

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
    draw(
      "plot-scores",
      [
        {
          type: "heatmap",
          z: data.scores.map((row) => [...row]),
          x: [...labels],
          y: [...labels],
          colorscale: DIVERGING,
          colorbar: { title: { text: "score" } },
          hovertemplate: hover,
          hoverongaps: false,
        },
      ],
      {
        title: {
          text: `s<sub>mn</sub> for ${data.content} content, L = ${data.seq_len}, d = ${data.head_dim}, ${data.pairing} pairing` +
            (data.causal ? ", causal" : "") + (data.theta_override !== "none" ? `, all θ = ${data.theta_override === "pi" ? "π" : "0"}` : ""),
        },
        xaxis: axis("key position n", { range: [-0.5, data.seq_len - 0.5], constrain: "domain" }),
        yaxis: axis("query position m", { range: [data.seq_len - 0.5, -0.5], scaleanchor: "x", constrain: "domain" }),
      },
    );
    out(
      "cells",
      data.block === 1
        ? `${blocks} × ${blocks} (every position)`
        : `${blocks} × ${blocks} blocks of ${data.block} positions (${data.full_blocks} full-size)`,
    );
    out("toeplitz", data.toeplitz.spread === null ? "—" : `${fmt(data.toeplitz.spread, 3)} (diagonal n − m = ${data.toeplitz.offset}${data.block > 1 ? " blocks" : ""})`);
    out("toeplitz_relative", data.toeplitz_relative === null ? "—" : fmt(data.toeplitz_relative, 3));
    out("identity", fmt(data.identity_max_error, 3));
    out("orthogonality", fmt(data.orthogonality_max_error, 3));
    out("range", `${fmt(data.score_min, 6)} … ${fmt(data.score_max, 6)}`);
    out("content_dot", data.content_dot === null ? "— (content differs per position)" : fmt(data.content_dot, 10));
    out("what_if", WHAT_IF[data.theta_override] ?? "");
    identityRows(data.identity);
  },
});
