// Frequency ladder: wavelength and inverse frequency of each pair, against the pair index.

import { startPage } from "../lib/page.js";
import { curves } from "../lib/marks/index.js";
import { COLORS, axis, lineWidth } from "../lib/plot.js";
import { approx, count, equals, out } from "../lib/numbers.js";

startPage({
  draw(data) {
    const pairs = data.pair;
    const full = data.wavelength.map((w) => w <= data.context_len);
    const colors = full.map((isFull) => (isFull ? COLORS[0] : COLORS[1]));
    const hover = pairs.map(
      (j, i) =>
        `pair ${j}<br>θ ${equals(data.inv_freq[i])} rad/token<br>λ ${equals(data.wavelength[i])} tokens` +
        `<br>${approx(data.turns_in_context[i])} turns within L`,
    );
    curves(
      "plot-wavelength",
      [
        {
          mode: "lines+markers",
          x: [...pairs],
          y: [...data.wavelength],
          name: "wavelength 2π/θ<sub>j</sub>",
          color: "#888",
          width: lineWidth(1),
          marker: { color: colors, size: lineWidth(3) * 2 },
          text: hover,
          hoverinfo: "text",
        },
        {
          x: [pairs[0], pairs[pairs.length - 1]],
          y: [data.context_len, data.context_len],
          name: `context length L = ${count(data.context_len)}`,
          color: COLORS[2],
          dash: "dash",
          width: lineWidth(2),
          hoverinfo: "name",
        },
      ],
      {
        title: "Tokens per full turn (blue: completes a turn within L)",
        xaxis: axis("pair index j"),
        yaxis: axis("wavelength λ<sub>j</sub> (tokens)", { type: "log", exponentformat: "power" }),
      },
    );
    curves(
      "plot-frequency",
      [
        {
          mode: "lines+markers",
          x: [...pairs],
          y: [...data.inv_freq],
          name: "θ<sub>j</sub>",
          color: COLORS[0],
          width: lineWidth(2),
          marker: { size: lineWidth(2) * 2 },
          text: hover,
          hoverinfo: "text",
        },
      ],
      {
        title: "Radians per token",
        xaxis: axis("pair index j"),
        yaxis: axis("θ<sub>j</sub> (rad / token)", { type: "log", exponentformat: "power" }),
        legend: false,
      },
    );
    const last = data.inv_freq.length - 1;
    out("rotary_dim", `${data.rotary_dim} of ${data.head_dim} (${data.rotary_dim / 2} pairs)`);
    out("theta_first", `${approx(data.inv_freq[0])} rad/token (${approx(data.degrees_per_token[0])}° per token)`);
    out("theta_last", `${approx(data.inv_freq[last])} rad/token`);
    out("longest", `${approx(data.wavelength[last])} tokens`);
    out(
      "full_turns",
      data.first_pair_without_full_turn === null
        ? `all ${pairs.length} pairs`
        : `${data.pairs_with_full_turn} of ${pairs.length} (pairs ${data.first_pair_without_full_turn}–${last} never complete a turn)`,
    );
  },
});
