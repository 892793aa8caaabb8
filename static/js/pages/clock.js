// A clock with many hands.  One request brings θ_j; the browser turns the hands (the dials mark):
// hand j points at m·θ_j mod 2π (the same IEEE double multiply and remainder the server would do).
// Playing (the dials' player) advances m on animation frames and writes it to the address at most
// four times a second (replaceState); pausing or stepping writes it with pushState.

import { startPage } from "../lib/page.js";
import { plotly } from "../lib/marks/index.js";
import { COLORS, isPresenter, lineWidth, panelGrid, plotSize, squarePanels, textSize } from "../lib/plot.js";
import { approx, count, equals, out } from "../lib/numbers.js";
import { dials, player } from "../lib/marks/dials.js";
import { table } from "../lib/marks/table.js";


const TWO_PI = 2 * Math.PI;
const SYNC_MS = 250;
const MAX_POSITION = 1000000;

function tokens(value) {
  return `${approx(value, 4)} tokens`;
}

function radians(value) {
  return `${approx(value, 6)} rad (${approx((value * 180) / Math.PI, 4)}°)`;
}

// ---- the dials ----------------------------------------------------------------------------------

// Hand j points at m·θ_j mod 2π (the same IEEE double multiply and remainder the server would do).
function drawClock(data, position) {
  const angles = data.inv_freq.map((theta) => (position * theta) % TWO_PI);
  dials(
    "plot-clock",
    {
      angles,
      labels: data.period.map((period, j) => `j=${j} · ${approx(period, 3)}`),
      hover: (j) =>
        `hand ${j}<br>θ ${equals(data.inv_freq[j], 6)} rad/token<br>period ${tokens(data.period[j])}` +
        `<br>angle at m = ${position}: ${approx((angles[j] * 180) / Math.PI, 6)}°`,
    },
    { title: `Position m = ${position}: ${data.hands} hands (label: pair j · period in tokens)`, uirevision: "clock" },
  );
  out("position_now", String(position));
  handRows(data, position);
  drawSlow(data, position);
}

// ---- the slowest hands of two bases ---------------------------------------------------------------

const SLOW_COLORS = [COLORS[2], COLORS[1], COLORS[0]]; // slowest hand last, in blue

function slowTraces(hands, position, context, axes, legend) {
  const traces = [];
  const ring = { x: [], y: [] };
  for (let i = 0; i <= 96; i += 1) {
    const t = (TWO_PI * i) / 96;
    ring.x.push(Math.cos(t));
    ring.y.push(Math.sin(t));
  }
  traces.push({ type: "scatter", mode: "lines", x: ring.x, y: ring.y, xaxis: axes[0], yaxis: axes[1], line: { color: "#c9c9d0", width: 1 }, hoverinfo: "skip", showlegend: false });
  hands.pairs.forEach((pair, k) => {
    const theta = hands.inv_freq[k];
    const color = SLOW_COLORS[(SLOW_COLORS.length - hands.pairs.length + k) % SLOW_COLORS.length];
    const radius = 0.55 + 0.2 * k;
    // The arc the hand sweeps over the whole context, from position 0 to L − 1 (a full ring past one turn).
    const sweep = Math.min((context - 1) * theta, TWO_PI);
    const arc = { x: [], y: [] };
    const steps = Math.max(2, Math.ceil((sweep / TWO_PI) * 96));
    for (let i = 0; i <= steps; i += 1) {
      const t = (sweep * i) / steps;
      arc.x.push(radius * Math.cos(t));
      arc.y.push(radius * Math.sin(t));
    }
    const label = `hand ${pair}`;
    traces.push({
      type: "scatter",
      mode: "lines",
      x: arc.x,
      y: arc.y,
      xaxis: axes[0],
      yaxis: axes[1],
      name: `${label}: arc swept over positions 0 … L − 1`,
      legendgroup: `arc ${k}`,
      showlegend: legend,
      line: { color, width: lineWidth(1.5), dash: "dot" },
      hoverinfo: "skip",
    });
    const angle = (position * theta) % TWO_PI;
    traces.push({
      type: "scatter",
      mode: "lines+markers",
      x: [0, radius * Math.cos(angle)],
      y: [0, radius * Math.sin(angle)],
      xaxis: axes[0],
      yaxis: axes[1],
      name: `${label} at position m`,
      legendgroup: `hand ${k}`,
      showlegend: legend,
      line: { color, width: lineWidth(3) },
      marker: { size: [0, lineWidth(3) * 3], color },
      text: ["", `${label}<br>θ ${equals(theta, 6)} rad/token<br>angle at m = ${position}: ${approx((angle * 180) / Math.PI, 6)}°`],
      hoverinfo: "text",
    });
  });
  return traces;
}

function drawSlow(data, position) {
  const [first, second] = data.slow_hands;
  const grid = panelGrid("plot-slow", 2, 0.12);
  const square = (domain, anchor) => ({ domain, range: [-1.25, 1.25], visible: false, fixedrange: true, ...(anchor ? { scaleanchor: anchor } : {}) });
  const labels = [`base b ${equals(first.base, 6)}`, `second base b₂ ${equals(second.base, 6)}`];
  // Two square panels of hands, arcs and captions with Plotly's transition: no mark draws them.
  plotly("plot-slow", [...slowTraces(first, position, data.context_len, ["x", "y"], true), ...slowTraces(second, position, data.context_len, ["x2", "y2"], false)], {
    title: { text: `The ${first.pairs.length} slowest hands at position m = ${position}, two bases (L = ${count(data.context_len)})` },
    ...squarePanels(grid, square, labels),
    margin: { t: 10, l: 10, r: 10, b: 40 },
    transition: { duration: 0 }, // the hands move with the animation, as on the clock above
  });
}

function slowReadout(hands, context) {
  const pairs = hands.pairs;
  const range = pairs.length > 1 ? `hands ${pairs[0]}–${pairs[pairs.length - 1]}` : `hand ${pairs[0]}`;
  const periods = hands.period.map((p) => approx(p, 5)).join(", ");
  const turns = hands.turns_in_context.map((n) => approx(n, 4)).join(", ");
  return `${range}: periods ${periods} tokens; turns within L = ${count(context)}: ${turns}`;
}

// ---- the aliasing view --------------------------------------------------------------------------

// Which positions get a number beside their dot: the marked ones first, then in order, each only
// if its label would sit at least `room` (in the dial's units) from every label already chosen.
// Crowded dots go unlabelled on purpose (the title says so; hovering a dot names it).
function labelledPositions(hand, positions, highlight, room) {
  const chosen = [];
  const at = (i) => [Math.cos(hand.angles[i]), Math.sin(hand.angles[i])];
  const order = [...positions.keys()].sort((a, b) => Number(!highlight.includes(positions[a])) - Number(!highlight.includes(positions[b])) || a - b);
  for (const i of order) {
    const [x, y] = at(i);
    if (chosen.every((j) => Math.hypot(x - at(j)[0], y - at(j)[1]) * 1.2 >= room)) chosen.push(i);
  }
  return new Set(chosen);
}

function aliasTraces(hand, positions, axes, highlight, title, room) {
  const ring = { x: [], y: [] };
  for (let i = 0; i <= 96; i += 1) {
    const t = (TWO_PI * i) / 96;
    ring.x.push(Math.cos(t));
    ring.y.push(Math.sin(t));
  }
  const dots = { x: [], y: [], text: [], color: [], size: [] };
  const labels = { x: [], y: [], text: [] };
  const spokes = { x: [], y: [] };
  const labelled = labelledPositions(hand, positions, highlight, room);
  positions.forEach((p, i) => {
    const a = hand.angles[i];
    const marked = highlight.includes(p);
    dots.x.push(Math.cos(a));
    dots.y.push(Math.sin(a));
    dots.text.push(`position ${p}<br>angle ${approx(a, 6)} rad (${approx((a * 180) / Math.PI, 5)}°)`);
    dots.color.push(marked ? COLORS[1] : COLORS[0]);
    dots.size.push(lineWidth(marked ? 6 : 4) * 2);
    if (labelled.has(i)) {
      labels.x.push(1.2 * Math.cos(a));
      labels.y.push(1.2 * Math.sin(a));
      labels.text.push(String(p));
    }
    if (marked) {
      spokes.x.push(0, Math.cos(a), null);
      spokes.y.push(0, Math.sin(a), null);
    }
  });
  return [
    { type: "scatter", mode: "lines", x: ring.x, y: ring.y, xaxis: axes[0], yaxis: axes[1], line: { color: "#c9c9d0", width: 1 }, hoverinfo: "skip", showlegend: false },
    { type: "scatter", mode: "lines", x: spokes.x, y: spokes.y, xaxis: axes[0], yaxis: axes[1], line: { color: COLORS[1], width: lineWidth(2), dash: "dot" }, hoverinfo: "skip", showlegend: false },
    {
      type: "scatter",
      mode: "markers",
      x: dots.x,
      y: dots.y,
      text: dots.text,
      hoverinfo: "text",
      name: title,
      xaxis: axes[0],
      yaxis: axes[1],
      marker: { color: dots.color, size: dots.size, line: { color: "#fff", width: 1 } },
      showlegend: false,
    },
    {
      type: "scatter",
      mode: "text",
      x: labels.x,
      y: labels.y,
      text: labels.text,
      xaxis: axes[0],
      yaxis: axes[1],
      hoverinfo: "skip",
      showlegend: false,
    },
  ];
}

function drawAlias(data) {
  const { fast, slow, positions } = data.alias;
  const partner = fast.closest.delta;
  const highlight = [0, partner];
  const square = (domain, anchor) => ({
    domain,
    range: [-1.6, 1.6],
    visible: false,
    fixedrange: true,
    ...(anchor ? { scaleanchor: anchor } : {}),
  });
  const grid = panelGrid("plot-alias", 2, 0.14);
  // A label needs about two digits' width (and a line's height) of clear space: in the dial's units,
  // where the panel's smaller side spans the axis range of 3.2.
  const el = document.getElementById("plot-alias");
  const { width, height } = plotSize(el);
  const side = Math.min(width * (grid.x[0][1] - grid.x[0][0]), height * (grid.y[0][1] - grid.y[0][0])) - 20;
  const room = (textSize() * 1.9 * 3.2) / Math.max(side, 100);
  const labels = [
    `fast hand θ ${equals(fast.theta, 6)} (period ${approx(fast.period, 4)})`,
    `slow hand θ ${equals(slow.theta, 6)} (period ${approx(slow.period, 4)})`,
  ];
  // Two square panels of numbered dots: Plotly's own form.
  plotly(
    "plot-alias",
    [
      ...aliasTraces(fast, positions, ["x", "y"], highlight, "fast hand", room),
      ...aliasTraces(slow, positions, ["x2", "y2"], highlight, "slow hand", room),
    ],
    {
      title: { text: `Positions 0 … ${data.alias.count - 1} on two hands (orange: positions 0 and ${partner}; a dot too close to a numbered one goes unnumbered, hover it)` },
      ...squarePanels(grid, square, labels),
      margin: { t: 10, l: 10, r: 10, b: 50 },
    },
  );
}

// One row per hand; the angle column follows the position (the table mark rewrites only the cells
// whose value changed, so a frame of the animation writes the angle column alone).
const HAND_COLUMNS = [
  { value: (_, j) => j },
  { key: "theta", format: (v) => approx(v, 6) },
  { key: "period", format: (v) => approx(v, 6) },
  { key: "turns", format: (v) => approx(v, 5) },
  { key: "angle", format: (v) => approx(v * (180 / Math.PI), 6) },
];

function handRows(data, position) {
  const rows = data.inv_freq.map((theta, j) => ({ theta, period: data.period[j], turns: data.turns_in_context[j], angle: (position * theta) % TWO_PI }));
  table('[data-out="hand_rows"]', rows, HAND_COLUMNS);
}

function readouts(data) {
  const last = data.hands - 1;
  out("hands", String(data.hands));
  out("periods", `${tokens(data.period[0])} … ${tokens(data.period[last])}`);
  out("full_turns", `${data.hands_full_turn} of ${data.hands} within L = ${data.context_len}`);
  const d = data.distinct;
  out(
    "distinct",
    `${d.all_distinct ? "yes" : "no"}: every two positions differ by at least ${radians(d.separation)} on some hand ` +
      `(tightest at offset Δ = ${d.delta}, hand ${d.hand})`,
  );
  out(
    "slowest",
    data.slowest_alone_distinct
      ? `yes: its period ${tokens(data.period[last])} is longer than L − 1`
      : `no: it completes a turn within L (period ${tokens(data.period[last])})`,
  );
  const [first, second] = data.slow_hands;
  out("slow_first", slowReadout(first, data.context_len));
  out("slow_second", slowReadout(second, data.context_len));
  const ratio = second.period[second.period.length - 1] / first.period[first.period.length - 1];
  out(
    "slow_ratio",
    `period ${approx(second.period[second.period.length - 1], 5)} against ${approx(first.period[first.period.length - 1], 5)} tokens: ` +
      `${ratio >= 1 ? `${approx(ratio, 4)} times slower` : `${approx(1 / ratio, 4)} times faster`}`,
  );
  const { fast, slow } = data.alias;
  out("alias_sentence", aliasSentence(data));
  out("fast_return", `positions 0 and ${fast.closest.delta}: ${radians(fast.closest.gap)}`);
  out("fast_step", radians(fast.step));
  out(
    "slow_gaps",
    `0 and ${fast.closest.delta}: ${radians(slow.partner_gap)}; consecutive: ${radians(slow.step)}; ` +
      `all ${data.alias.count} ${slow.in_order ? "in order within" : "spread over"} ${approx(slow.span, 4)} rad`,
  );
}

function aliasSentence(data) {
  const { fast, slow, count: n } = data.alias;
  const closest = fast.closest;
  const fastPart = fast.in_order
    ? `On the fast one (θ ${equals(fast.theta, 6)}) they still span less than one turn and stay in order`
    : `On the fast one (θ ${equals(fast.theta, 6)}) they wrap around the dial and land out of order`;
  const near = `positions 0 and ${closest.delta} come within ${approx(Math.abs(closest.gap), 4)} rad (${approx((Math.abs(closest.gap) * 180) / Math.PI, 4)}°) of each other there`;
  const slowPart = slow.in_order
    ? `on the slow one (θ ${equals(slow.theta, 6)}) they fan out in order over ${approx(slow.span, 4)} rad`
    : `on the slow one (θ ${equals(slow.theta, 6)}) they too go round more than once (${approx(slow.span, 4)} rad in all)`;
  return `The second plot puts the positions 0 … ${n - 1} on just two hands. ${fastPart}, and ${near}; ${slowPart}.`;
}

// ---- animation ----------------------------------------------------------------------------------

let latest = null; // {data, state}
let synced = null; // the position last written to the page state / address

// Playing advances m on animation frames and hands it to the page controller (the state, the
// controls and the address) four times a second; pausing or stepping hands it over as finished.
const clock = player(document.querySelector(".transport"), {
  attribute: "clock",
  max: MAX_POSITION,
  every: SYNC_MS,
  ready: () => latest !== null,
  // An out-of-range speed typed into the box plays at the nearest allowed one (0.25 … 10000 tokens/s).
  speed: () => {
    const speed = Number(latest.state.speed);
    return Number.isFinite(speed) ? Math.min(10000, Math.max(0.25, speed)) : 2;
  },
  show: (position) => drawClock(latest.data, position),
  sync: (position, finished) => {
    if (!page) return;
    synced = position;
    page.set("position", position, { finished });
  },
});

let drawnFor = null; // the data and presenter mode the static parts were drawn for

const page = startPage({
  draw(data, state) {
    const first = latest === null;
    latest = { data, state };
    // A position that did not come from the animation (slider, Back/Forward, first paint) wins.
    if (first || state.position !== synced) {
      clock.position = Number.isInteger(state.position) ? state.position : 0;
      synced = clock.position;
    }
    // Only the clock depends on the position: the rest is redrawn when the data or the mode changes.
    const presenter = isPresenter();
    if (!drawnFor || drawnFor.data !== data || drawnFor.presenter !== presenter) {
      drawnFor = { data, presenter };
      drawAlias(data);
      readouts(data);
    }
    drawClock(data, clock.position);
  },
});
