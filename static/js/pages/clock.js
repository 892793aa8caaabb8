// A clock with many hands.  One request brings θ_j; the browser turns the hands: hand j points at
// m·θ_j mod 2π (the same IEEE double multiply and remainder the server would do).  Playing advances
// m on animation frames and writes it to the address at most four times a second (replaceState);
// pausing or stepping writes it with pushState.

import { startPage } from "../lib/page.js";
import { COLORS, draw, isPresenter, lineWidth, panelGrid, plotSize, setPlotHeight, sized, squarePanels, textSize } from "../lib/plot.js";
import { approx, count, equals, out } from "../lib/numbers.js";


const TWO_PI = 2 * Math.PI;
const SYNC_MS = 250;
const MAX_POSITION = 1000000;

function tokens(value) {
  return `${approx(value, 4)} tokens`;
}

function radians(value) {
  return `${approx(value, 6)} rad (${approx((value * 180) / Math.PI, 4)}°)`;
}

// ---- the dial grid ------------------------------------------------------------------------------

// Dials at least this many pixels apart, so their labels never run into each other.
function dialPixels() {
  return sized(92, 140);
}

function layoutGrid(hands) {
  const el = document.getElementById("plot-clock");
  const fit = Math.floor((el ? plotSize(el).width : 900) / dialPixels());
  const columns = Math.max(2, Math.min(16, fit, Math.ceil(Math.sqrt(2 * hands)) + 4));
  const rows = Math.ceil(hands / columns);
  const centres = [];
  for (let j = 0; j < hands; j += 1) centres.push([j % columns, -Math.floor(j / columns) * 1.25]);
  return { columns, rows, centres };
}

function clockTraces(data, position) {
  const { centres } = layoutGrid(data.hands);
  const ring = { x: [], y: [] };
  const ticks = { x: [], y: [] };
  const hands = { x: [], y: [], text: [] };
  const labels = { x: [], y: [], text: [] };
  const radius = 0.42;
  centres.forEach(([cx, cy], j) => {
    for (let i = 0; i <= 48; i += 1) {
      const t = (TWO_PI * i) / 48;
      ring.x.push(cx + radius * Math.cos(t));
      ring.y.push(cy + radius * Math.sin(t));
    }
    ring.x.push(null);
    ring.y.push(null);
    ticks.x.push(cx + radius, cx + radius * 1.18, null);
    ticks.y.push(cy, cy, null);
    const angle = (position * data.inv_freq[j]) % TWO_PI;
    hands.x.push(cx, cx + 0.9 * radius * Math.cos(angle), null);
    hands.y.push(cy, cy + 0.9 * radius * Math.sin(angle), null);
    const hover = `hand ${j}<br>θ ${equals(data.inv_freq[j], 6)} rad/token<br>period ${tokens(data.period[j])}` +
      `<br>angle at m = ${position}: ${approx((angle * 180) / Math.PI, 6)}°`;
    hands.text.push(hover, hover, "");
    labels.x.push(cx);
    labels.y.push(cy - radius - 0.16);
    labels.text.push(`j=${j} · ${approx(data.period[j], 3)}`);
  });
  const presenterScale = lineWidth(1);
  return [
    { type: "scatter", mode: "lines", x: ring.x, y: ring.y, line: { color: "#c9c9d0", width: presenterScale }, hoverinfo: "skip", showlegend: false },
    { type: "scatter", mode: "lines", x: ticks.x, y: ticks.y, line: { color: "#9a9aa2", width: presenterScale }, hoverinfo: "skip", showlegend: false },
    {
      type: "scatter",
      mode: "lines",
      x: hands.x,
      y: hands.y,
      text: hands.text,
      hoverinfo: "text",
      name: "hands",
      line: { color: COLORS[0], width: lineWidth(2.5) },
      showlegend: false,
    },
    {
      type: "scatter",
      mode: "text",
      x: labels.x,
      y: labels.y,
      text: labels.text,
      textfont: { size: sized(10, 16), color: "#333" },
      hoverinfo: "skip",
      showlegend: false,
    },
  ];
}

function drawClock(data, position) {
  const { columns, rows } = layoutGrid(data.hands);
  const el = document.getElementById("plot-clock");
  // As tall as the rows of dials need at the width they get (the dials are round: equal axis scales).
  // (and, on a projector, at least 60% of the window, like every plot there)
  const natural = Math.round(20 + (rows * 1.25 + 0.1) * ((plotSize(el).width - 20) / columns));
  const height = isPresenter() ? Math.max(natural, Math.round(0.62 * window.innerHeight)) : natural;
  setPlotHeight(el, height);
  draw("plot-clock", clockTraces(data, position), {
    title: { text: `Position m = ${position}: ${data.hands} hands (label: pair j · period in tokens)` },
    xaxis: { visible: false, range: [-0.6, columns - 0.4], fixedrange: true },
    yaxis: { visible: false, range: [-(rows - 1) * 1.25 - 0.75, 0.6], scaleanchor: "x", fixedrange: true },
    margin: { l: 10, r: 10, t: 10, b: 10 },
    hovermode: "closest",
    uirevision: "clock",
    // The hands move on every frame of the animation: Plotly moves them without redrawing the dials.
    transition: { duration: 0 },
  });
  out("position_now", String(position));
  showAngles(data, position);
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
  draw("plot-slow", [...slowTraces(first, position, data.context_len, ["x", "y"], true), ...slowTraces(second, position, data.context_len, ["x2", "y2"], false)], {
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
  draw(
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

// One row per hand, built once per data; the angle column follows the position.
let angleCells = [];

function handRows(data) {
  const body = document.querySelector('[data-out="hand_rows"]');
  if (!body) return;
  angleCells = [];
  const rows = data.inv_freq.map((theta, j) => {
    const row = document.createElement("tr");
    const values = [j, approx(theta, 6), approx(data.period[j], 6), approx(data.turns_in_context[j], 5), ""];
    values.forEach((value, i) => {
      const cell = document.createElement("td");
      cell.textContent = String(value);
      row.appendChild(cell);
      if (i === values.length - 1) angleCells.push(cell);
    });
    return row;
  });
  body.replaceChildren(...rows);
}

function showAngles(data, position) {
  data.inv_freq.forEach((theta, j) => {
    if (angleCells[j]) angleCells[j].textContent = approx(((position * theta) % TWO_PI) * (180 / Math.PI), 6);
  });
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
let current = 0; // the position drawn
let synced = null; // the position last written to the page state / address
let playing = false;
let frameId = 0;
let lastTime = null;
let carry = 0;
let lastSync = 0;

// Hand the position to the page controller: it updates the state, the controls and the address.
function sync(push) {
  if (!page) return;
  if (current !== synced) synced = current;
  page.set("position", current, { finished: push });
}

function moveTo(position, push) {
  current = Math.max(0, Math.min(MAX_POSITION, position));
  if (latest) drawClock(latest.data, current);
  sync(push);
}

function frame(now) {
  if (!playing || !latest) return;
  if (lastTime === null) lastTime = now;
  const speed = Number(latest.state.speed);
  // An out-of-range speed typed into the box plays at the nearest allowed one (0.25 … 10000 tokens/s).
  carry += ((now - lastTime) / 1000) * (Number.isFinite(speed) ? Math.min(10000, Math.max(0.25, speed)) : 2);
  lastTime = now;
  const steps = Math.floor(carry);
  if (steps > 0) {
    carry -= steps;
    current = Math.min(MAX_POSITION, current + steps);
    drawClock(latest.data, current);
    if (current >= MAX_POSITION) {
      setPlaying(false);
      return;
    }
  }
  if (now - lastSync >= SYNC_MS) {
    lastSync = now;
    sync(false);
  }
  frameId = requestAnimationFrame(frame);
}

function setPlaying(on) {
  playing = on;
  const button = document.querySelector('[data-clock="play"]');
  if (button) {
    button.setAttribute("aria-pressed", String(on));
    button.textContent = on ? "Pause" : "Play";
  }
  cancelAnimationFrame(frameId);
  if (on) {
    lastTime = null;
    carry = 0;
    lastSync = performance.now();
    frameId = requestAnimationFrame(frame);
  } else {
    sync(true);
  }
}

document.querySelector(".transport")?.addEventListener("click", (event) => {
  const button = event.target.closest("[data-clock]");
  if (!button) return;
  const action = button.dataset.clock;
  if (action === "play") setPlaying(!playing);
  else if (action === "step") moveTo(current + 1, true);
  else if (action === "back") moveTo(current - 1, true);
  else if (action === "reset") moveTo(0, true);
});

let drawnFor = null; // the data and presenter mode the static parts were drawn for

const page = startPage({
  draw(data, state) {
    const first = latest === null;
    latest = { data, state };
    // A position that did not come from the animation (slider, Back/Forward, first paint) wins.
    if (first || state.position !== synced) {
      current = Number.isInteger(state.position) ? state.position : 0;
      synced = current;
    }
    // Only the clock depends on the position: the rest is redrawn when the data or the mode changes.
    const presenter = isPresenter();
    if (!drawnFor || drawnFor.data !== data || drawnFor.presenter !== presenter) {
      drawnFor = { data, presenter };
      handRows(data);
      drawAlias(data);
      readouts(data);
    }
    drawClock(data, current);
  },
});
