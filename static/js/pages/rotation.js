// Rotation in the plane: original vectors (grey), rotated ones, the angle between them, in two panels.

import { startPage } from "../lib/page.js";
import { curves } from "../lib/marks/index.js";
import { COLORS, axis, lineWidth, sized } from "../lib/plot.js";
import { approx, equals, out } from "../lib/numbers.js";
import { plane } from "../lib/marks/plane.js";

const GREY = "#9a9aa2";

function degrees(value) {
  return `${approx(value, 6)}°`;
}

// The notes' example, for the current controls: the first panel's angle is the angle from q to k
// plus the turn of the gap, (n − m)·θ, brought into (−180°, 180°].
function gapSentence(data) {
  const [left] = data.panels;
  const sum = data.original_angle + data.gap_turn_degrees;
  const wrapped = Math.abs(sum - left.angle) > 1e-9 * Math.max(1, Math.abs(sum));
  const turn = data.gap_turn_degrees;
  return (
    `Here θ ${equals(data.theta_degrees, 6, "°")} per token and the gap n − m = ${data.offset}, so the turn adds ` +
    `${approx(turn, 6)}°, and the angle from Rₘq to Rₙk is ${degrees(data.original_angle)} plus that` +
    (wrapped ? `, ${degrees(sum)}, which is ${degrees(left.angle)} once brought into (−180°, 180°].` : `, ${degrees(left.angle)}.`)
  );
}

// Lengths go up to 3 (the sliders' maximum); 1.15 leaves room round the unit circle.
const REACHES = [1.15, 1.65, 2.2, 3.3];

// One panel of the planes: q and k before rotation (grey), the rotated query and key, the angle
// from the rotated query to the rotated key.
function panelOf(data, panel, caption) {
  return {
    caption,
    arrows: [
      { vector: data.q, name: "q (before rotation)", color: GREY, dash: "dot", width: 2 },
      { vector: data.k, name: "k (before rotation)", color: GREY, dash: "dash", width: 2 },
      { vector: panel.q_rot, name: "R<sub>m</sub> q (rotated query)", color: COLORS[0] },
      { vector: panel.k_rot, name: "R<sub>n</sub> k (rotated key)", color: COLORS[1] },
    ],
    angle: {
      from: panel.q_direction,
      sweep: panel.angle,
      radius: 0.3,
      label: `${approx(panel.angle_between, 4)}°`,
      name: "angle from R<sub>m</sub> q to R<sub>n</sub> k",
      color: COLORS[2],
    },
  };
}

startPage({
  draw(data) {
    const [left, right] = data.panels;
    // The planes' scale moves in a few steps, not with every length: while a length is dragged the
    // arrow visibly grows against fixed axes (and the axes are not redrawn on each move).
    const longest = 1.1 * Math.max(data.q_len, data.k_len);
    const reach = REACHES.find((r) => r >= longest) ?? longest;
    plane(
      "plot-planes",
      {
        panels: [
          panelOf(data, left, `positions m = ${left.m}, n = ${left.n}`),
          panelOf(data, right, `shifted by k = ${data.shift}: m = ${right.m}, n = ${right.n}`),
        ],
      },
      {
        title: `θ ${equals(data.theta, 6, " rad")} (${approx(data.theta_degrees, 5)}°) per token, offset n − m = ${data.offset}`,
        reach,
        // Room on the left for the left panel's y ticks ("−0.5" is about 2.4 em wide), at either type size.
        margin: { t: 44, l: sized(40, 72), r: 20, b: sized(30, 40) },
      },
    );

    const curve = data.norm_curve;
    curves(
      "plot-norms",
      [
        {
          x: [...curve.positions],
          y: [...curve.rotated],
          name: "‖R<sub>m</sub> q‖ (rotation)",
          color: COLORS[0],
          width: lineWidth(3),
        },
        {
          mode: "lines+markers",
          x: [...curve.positions],
          y: [...curve.additive],
          name: "‖q + p<sub>m</sub>‖ (addition)",
          color: COLORS[4],
          width: lineWidth(2),
          marker: { size: lineWidth(2) * 2 },
        },
        {
          mode: "markers",
          x: [left.m],
          y: [data.norms.q_add],
          name: `position m = ${left.m}`,
          marker: { color: "#000", size: lineWidth(5) * 2, symbol: "diamond" },
        },
      ],
      {
        title: "Length of the query against its position",
        xaxis: axis("position m"),
        yaxis: axis("length", { rangemode: "tozero" }),
      },
    );

    const shift = data.shift_curve;
    curves(
      "plot-shift",
      [
        {
          mode: "lines+markers",
          x: [...shift.shift],
          y: [...shift.rope],
          name: "rotation: ⟨R<sub>m+k</sub> q, R<sub>n+k</sub> k⟩/√2",
          color: COLORS[0],
          width: lineWidth(3),
          marker: { size: lineWidth(2) * 2 },
        },
        {
          mode: "lines+markers",
          x: [...shift.shift],
          y: [...shift.additive],
          name: "addition: ⟨q + p<sub>m+k</sub>, k + p<sub>n+k</sub>⟩/√2",
          color: COLORS[4],
          width: lineWidth(2),
          marker: { size: lineWidth(2) * 2 },
        },
        {
          mode: "markers",
          x: [data.shift],
          y: [right.score],
          name: `shift k = ${data.shift}`,
          marker: { color: "#000", size: lineWidth(5) * 2, symbol: "diamond" },
        },
      ],
      {
        title: `Score of the pair with gap ${data.offset}, shifted by k`,
        xaxis: axis("shift k (both positions)"),
        yaxis: axis("score"),
      },
    );

    out("gap_sentence", gapSentence(data));
    out("angle_left", degrees(left.angle));
    const apart = right.angle - left.angle;
    out(
      "angle_right",
      apart === 0
        ? `${degrees(right.angle)} (the first panel's, exactly)`
        : Math.abs(apart) <= 1e-9 * Math.max(1, Math.abs(left.angle))
          ? `${degrees(right.angle)} (the first panel's up to floating-point rounding, ${approx(apart, 2)}°)`
          : degrees(right.angle),
    );
    out("score_left", approx(left.score, 10));
    out("score_right", approx(right.score, 10));
    const scale = Math.max(Math.abs(left.score), Math.abs(right.score), 1e-300);
    out(
      "score_change",
      data.score_change === 0
        ? "0 (exactly)"
        : `${approx(data.score_change, 3)}${Math.abs(data.score_change) <= 1e-12 * Math.max(scale, 1) ? " (floating-point rounding)" : ""}`,
    );
    out("dot_left", approx(left.dot, 10));
    out("norm_q", `${approx(data.norms.q, 10)} and ${approx(data.norms.q_rot, 10)}`);
    out("norm_q_add", approx(data.norms.q_add, 10));
    out("norm_k", `${approx(data.norms.k, 10)} and ${approx(data.norms.k_rot, 10)}`);
    out("norm_k_add", approx(data.norms.k_add, 10));
  },
});
