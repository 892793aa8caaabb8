// Rotation in the plane: original vectors (grey), rotated ones, the angle between them, in two panels.

import { startPage } from "../lib/page.js";
import { COLORS, axis, draw, lineWidth, panelGrid, sized, squarePanels } from "../lib/plot.js";
import { approx, equals, out } from "../lib/numbers.js";

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

// One arrow from the origin as a line whose end carries an arrow-head marker.
function arrow(vector, name, color, axes, { dash = "solid", width = 3, legend = true } = {}) {
  return {
    type: "scatter",
    mode: "lines+markers",
    x: [0, vector[0]],
    y: [0, vector[1]],
    name,
    legendgroup: name,
    showlegend: legend,
    xaxis: axes[0],
    yaxis: axes[1],
    line: { color, width: lineWidth(width), dash },
    marker: { symbol: "arrow", angleref: "previous", size: [0, lineWidth(width) * 4], color },
    hovertemplate: `${name}<br>(%{x:.4f}, %{y:.4f})<extra></extra>`,
  };
}

// The arc from direction a to a + sweep (degrees) at radius r, with the angle written at its middle.
function arc(fromDeg, sweepDeg, radius, axes, label, legend) {
  const steps = 40;
  const xs = [];
  const ys = [];
  for (let i = 0; i <= steps; i += 1) {
    const t = ((fromDeg + (sweepDeg * i) / steps) * Math.PI) / 180;
    xs.push(radius * Math.cos(t));
    ys.push(radius * Math.sin(t));
  }
  const mid = ((fromDeg + sweepDeg / 2) * Math.PI) / 180;
  return [
    {
      type: "scatter",
      mode: "lines",
      x: xs,
      y: ys,
      name: "angle from R<sub>m</sub> q to R<sub>n</sub> k",
      legendgroup: "arc",
      showlegend: legend,
      xaxis: axes[0],
      yaxis: axes[1],
      line: { color: COLORS[2], width: lineWidth(2) },
      hoverinfo: "skip",
    },
    {
      type: "scatter",
      mode: "text",
      x: [1.45 * radius * Math.cos(mid)],
      y: [1.45 * radius * Math.sin(mid)],
      text: [label],
      textfont: { color: COLORS[2], size: lineWidth(7) * 2 },
      showlegend: false,
      xaxis: axes[0],
      yaxis: axes[1],
      hoverinfo: "skip",
    },
  ];
}

function unitCircle(radius, axes) {
  const xs = [];
  const ys = [];
  for (let i = 0; i <= 120; i += 1) {
    const t = (2 * Math.PI * i) / 120;
    xs.push(radius * Math.cos(t));
    ys.push(radius * Math.sin(t));
  }
  return {
    type: "scatter",
    mode: "lines",
    x: xs,
    y: ys,
    showlegend: false,
    xaxis: axes[0],
    yaxis: axes[1],
    line: { color: "#e0e0e6", width: 1 },
    hoverinfo: "skip",
  };
}

// Lengths go up to 3 (the sliders' maximum); 1.15 leaves room round the unit circle.
const REACHES = [1.15, 1.65, 2.2, 3.3];

function panelTraces(data, panel, axes, legend) {
  const traces = [unitCircle(1, axes)];
  traces.push(arrow(data.q, "q (before rotation)", GREY, axes, { dash: "dot", width: 2, legend }));
  traces.push(arrow(data.k, "k (before rotation)", GREY, axes, { dash: "dash", width: 2, legend }));
  traces.push(arrow(panel.q_rot, "R<sub>m</sub> q (rotated query)", COLORS[0], axes, { legend }));
  traces.push(arrow(panel.k_rot, "R<sub>n</sub> k (rotated key)", COLORS[1], axes, { legend }));
  traces.push(...arc(panel.q_direction, panel.angle, 0.3, axes, `${approx(panel.angle_between, 4)}°`, legend));
  return traces;
}

startPage({
  draw(data) {
    const [left, right] = data.panels;
    // The planes' scale moves in a few steps, not with every length: while a length is dragged the
    // arrow visibly grows against fixed axes (and the axes are not redrawn on each move).
    const longest = 1.1 * Math.max(data.q_len, data.k_len);
    const reach = REACHES.find((r) => r >= longest) ?? longest;
    const square = (domain, anchor) => ({
      domain,
      range: [-reach, reach],
      zeroline: true,
      zerolinecolor: "#c8c8cc",
      showgrid: false,
      constrain: "domain",
      ...(anchor ? { scaleanchor: anchor, scaleratio: 1 } : {}),
    });
    const grid = panelGrid("plot-planes", 2, 0.08);
    const [leftLabel, rightLabel] = [`positions m = ${left.m}, n = ${left.n}`, `shifted by k = ${data.shift}: m = ${right.m}, n = ${right.n}`];
    draw(
      "plot-planes",
      [...panelTraces(data, left, ["x", "y"], true), ...panelTraces(data, right, ["x2", "y2"], false)],
      {
        title: { text: `θ ${equals(data.theta, 6, " rad")} (${approx(data.theta_degrees, 5)}°) per token, offset n − m = ${data.offset}` },
        ...squarePanels(grid, square, [leftLabel, rightLabel], { captionAt: "top" }),
        // Room on the left for the left panel's y ticks ("−0.5" is about 2.4 em wide), at either type size.
        margin: { t: 44, l: sized(40, 72), r: 20, b: sized(30, 40) },
        // The arrows turn as m moves: Plotly moves them without redrawing the planes.
        transition: { duration: 0 },
      },
    );

    const curve = data.norm_curve;
    draw(
      "plot-norms",
      [
        {
          type: "scatter",
          mode: "lines",
          x: [...curve.positions],
          y: [...curve.rotated],
          name: "‖R<sub>m</sub> q‖ (rotation)",
          line: { color: COLORS[0], width: lineWidth(3) },
        },
        {
          type: "scatter",
          mode: "lines+markers",
          x: [...curve.positions],
          y: [...curve.additive],
          name: "‖q + p<sub>m</sub>‖ (addition)",
          line: { color: COLORS[4], width: lineWidth(2) },
          marker: { size: lineWidth(2) * 2 },
        },
        {
          type: "scatter",
          mode: "markers",
          x: [left.m],
          y: [data.norms.q_add],
          name: `position m = ${left.m}`,
          marker: { color: "#000", size: lineWidth(5) * 2, symbol: "diamond" },
        },
      ],
      {
        title: { text: "Length of the query against its position" },
        xaxis: axis("position m"),
        yaxis: axis("length", { rangemode: "tozero" }),
      },
    );

    const shift = data.shift_curve;
    draw(
      "plot-shift",
      [
        {
          type: "scatter",
          mode: "lines+markers",
          x: [...shift.shift],
          y: [...shift.rope],
          name: "rotation: ⟨R<sub>m+k</sub> q, R<sub>n+k</sub> k⟩/√2",
          line: { color: COLORS[0], width: lineWidth(3) },
          marker: { size: lineWidth(2) * 2 },
        },
        {
          type: "scatter",
          mode: "lines+markers",
          x: [...shift.shift],
          y: [...shift.additive],
          name: "addition: ⟨q + p<sub>m+k</sub>, k + p<sub>n+k</sub>⟩/√2",
          line: { color: COLORS[4], width: lineWidth(2) },
          marker: { size: lineWidth(2) * 2 },
        },
        {
          type: "scatter",
          mode: "markers",
          x: [data.shift],
          y: [right.score],
          name: `shift k = ${data.shift}`,
          marker: { color: "#000", size: lineWidth(5) * 2, symbol: "diamond" },
        },
      ],
      {
        title: { text: `Score of the pair with gap ${data.offset}, shifted by k` },
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
