// The dials mark: a grid of round dials, one hand each, a label under each dial (the clock's hands,
// one per rotating pair).  A page gives the angles (radians, counter-clockwise from 3 o'clock),
// the labels and the hover text; the mark lays the grid out for the plot's width (dials at least
// `minPixels` apart, so labels never run into each other), sizes the plot to the rows it needs
// (round dials: equal axis scales; on a projector at least 62% of the window, like every plot
// there), and draws it as a chart mark (chart.js).
//
//   dials(el, { angles, labels, hover }, { title, minPixels?, maxColumns?, uirevision? })
//   player(transport, { show, sync, speed, ready?, max?, every?, attribute? })  (below)
//     angles   one angle per dial (the page computes them: m·θ_j mod 2π on the clock)
//     labels   one short text per dial, written under it
//     hover    one hover text per hand, or (j) => text
//
// The cheap update: the rings, ticks and labels are kept per plot (one WeakMap) and handed back as
// the same objects while the dial count, the grid and the labels stay, so a new set of angles
// changes the hands' trace alone, which the chart update moves with Plotly.animate (no redraw
// of the dials: the layout asks for `transition: {duration: 0}`).  The hands' trace is named
// "hands" (tests and the JSON twin read it); hand j runs from its dial's centre to
// 0.9·radius·(cos a_j, sin a_j) from it.

import { COLORS } from "../colours.js";
import { paintChart } from "./chart.js";
import { isPresenter, lineWidth, plotSize, setPlotHeight, sized } from "../layout.js";

const TWO_PI = 2 * Math.PI;
const RADIUS = 0.42;
const ROW = 1.25; // rows of dials this far apart (in dial-centre units; columns are 1 apart)
const RING_STEPS = 48;
const MARGIN = 10; // px round the dials

const kept = new WeakMap(); // plot element → { key, statics: [ring, ticks, labels], grid }

/** The grid of `count` dials that fits the plot's width: { columns, rows, centres }. */
export function dialGrid(width, count, { minPixels = sized(92, 140), maxColumns = 16 } = {}) {
  const fit = Math.floor(width / minPixels);
  const columns = Math.max(2, Math.min(maxColumns, fit, Math.ceil(Math.sqrt(2 * count)) + 4));
  const rows = Math.ceil(count / columns);
  const centres = [];
  for (let j = 0; j < count; j += 1) centres.push([j % columns, -Math.floor(j / columns) * ROW]);
  return { columns, rows, centres };
}

function staticTraces(centres, labels) {
  const ring = { x: [], y: [] };
  const ticks = { x: [], y: [] };
  const text = { x: [], y: [], text: [] };
  centres.forEach(([cx, cy], j) => {
    for (let i = 0; i <= RING_STEPS; i += 1) {
      const t = (TWO_PI * i) / RING_STEPS;
      ring.x.push(cx + RADIUS * Math.cos(t));
      ring.y.push(cy + RADIUS * Math.sin(t));
    }
    ring.x.push(null);
    ring.y.push(null);
    ticks.x.push(cx + RADIUS, cx + RADIUS * 1.18, null);
    ticks.y.push(cy, cy, null);
    text.x.push(cx);
    text.y.push(cy - RADIUS - 0.16);
    text.text.push(String(labels[j] ?? ""));
  });
  const width = lineWidth(1);
  return [
    { type: "scatter", mode: "lines", x: ring.x, y: ring.y, line: { color: "#c9c9d0", width }, hoverinfo: "skip", showlegend: false },
    { type: "scatter", mode: "lines", x: ticks.x, y: ticks.y, line: { color: "#9a9aa2", width }, hoverinfo: "skip", showlegend: false },
    { type: "scatter", mode: "text", x: text.x, y: text.y, text: text.text, textfont: { size: sized(10, 16), color: "#333" }, hoverinfo: "skip", showlegend: false },
  ];
}

/** The hands' trace: one segment per dial (null-separated), hover text on both ends. */
export function handsTrace(centres, angles, hover) {
  const x = [];
  const y = [];
  const text = [];
  centres.forEach(([cx, cy], j) => {
    const angle = angles[j];
    x.push(cx, cx + 0.9 * RADIUS * Math.cos(angle), null);
    y.push(cy, cy + 0.9 * RADIUS * Math.sin(angle), null);
    const words = typeof hover === "function" ? hover(j) : hover?.[j] ?? "";
    text.push(words, words, "");
  });
  return { type: "scatter", mode: "lines", x, y, text, hoverinfo: "text", name: "hands", line: { color: COLORS[0], width: lineWidth(2.5) }, showlegend: false };
}

/** Draw (or update) the dials in `target` (an element or its id); resolves when Plotly has drawn. */
export function dials(target, { angles, labels = [], hover = [] }, { title = "", minPixels, maxColumns, uirevision = "dials" } = {}) {
  const el = typeof target === "string" ? document.getElementById(target) : target;
  if (!el) return Promise.resolve(null);
  const count = angles.length;
  const { width } = plotSize(el);
  const grid = dialGrid(width, count, { minPixels, maxColumns });
  const { columns, rows, centres } = grid;
  // As tall as the rows of dials need at the width they get (x spans columns + 0.2 dial units).
  const span = { x: columns + 0.2, y: rows * ROW + 0.1 };
  const natural = Math.round(2 * MARGIN + span.y * ((width - 2 * MARGIN) / span.x));
  setPlotHeight(el, isPresenter() ? Math.max(natural, Math.round(0.62 * window.innerHeight)) : natural);
  // Both ranges at one scale for the plot's size, so Plotly's scaleanchor has nothing to change:
  // an update (Plotly.animate, which keeps the ranges it is given) then draws what a first draw
  // (Plotly.react, which would widen one range to keep the scales equal) does.
  const size = plotSize(el);
  const across = Math.max(1, Math.max(200, Math.round(size.width)) - 2 * MARGIN);
  const down = Math.max(1, Math.round(size.height) - 2 * MARGIN);
  const yMiddle = (-(rows - 1) * ROW - 0.75 + 0.6) / 2;
  const ySpan = Math.max(span.y, (down * span.x) / across);
  const xSpan = (across * ySpan) / down;
  const xMiddle = (columns - 1) / 2;
  const key = JSON.stringify([count, columns, lineWidth(1), sized(10, 16), labels]);
  let entry = kept.get(el);
  if (!entry || entry.key !== key) {
    entry = { key, statics: staticTraces(centres, labels) };
    kept.set(el, entry);
  }
  const [ring, ticks, words] = entry.statics;
  return paintChart(el, "dials", [ring, ticks, handsTrace(centres, angles, hover), words], {
    title: { text: title },
    xaxis: { visible: false, range: [xMiddle - xSpan / 2, xMiddle + xSpan / 2], fixedrange: true },
    yaxis: { visible: false, range: [yMiddle - ySpan / 2, yMiddle + ySpan / 2], scaleanchor: "x", fixedrange: true },
    margin: { l: MARGIN, r: MARGIN, t: MARGIN, b: MARGIN },
    hovermode: "closest",
    uirevision,
    // The hands move on every frame of an animation: Plotly moves them without redrawing the dials.
    transition: { duration: 0 },
  });
}

/**
 * The player of a dial's position: buttons in `transport` (data-<attribute>="play" | "step" |
 * "back" | "reset") and an animation that advances the position on animation frames at
 * `speed()` positions per second.  `show(position)` draws a position (every frame that moves it);
 * `sync(position, finished)` hands it to the page: at most every `every` ms while playing
 * (finished false), and once with finished true when it pauses or a step lands.  The play button
 * says Play or Pause and carries aria-pressed.  Returns { moveTo, setPlaying, position (get/set),
 * playing (get) }; setting `position` moves the player without drawing or syncing (the page drew).
 */
export function player(transport, { show, sync, speed, ready = () => true, min = 0, max = Infinity, every = 250, attribute = "player" }) {
  let current = min;
  let playing = false;
  let frameId = 0;
  let lastTime = null;
  let carry = 0;
  let lastSync = 0;

  const moveTo = (position, finished) => {
    current = Math.max(min, Math.min(max, position));
    if (ready()) show(current);
    sync(current, finished);
  };

  const frame = (now) => {
    if (!playing || !ready()) return;
    if (lastTime === null) lastTime = now;
    carry += ((now - lastTime) / 1000) * speed();
    lastTime = now;
    const steps = Math.floor(carry);
    if (steps > 0) {
      carry -= steps;
      current = Math.min(max, current + steps);
      show(current);
      if (current >= max) {
        setPlaying(false);
        return;
      }
    }
    if (now - lastSync >= every) {
      lastSync = now;
      sync(current, false);
    }
    frameId = requestAnimationFrame(frame);
  };

  const setPlaying = (on) => {
    playing = on;
    const button = transport?.querySelector(`[data-${attribute}="play"]`);
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
      sync(current, true);
    }
  };

  transport?.addEventListener("click", (event) => {
    const button = event.target.closest(`[data-${attribute}]`);
    if (!button) return;
    const action = button.dataset[attribute];
    if (action === "play") setPlaying(!playing);
    else if (action === "step") moveTo(current + 1, true);
    else if (action === "back") moveTo(current - 1, true);
    else if (action === "reset") moveTo(min, true);
  });

  return {
    moveTo,
    setPlaying,
    get playing() {
      return playing;
    },
    get position() {
      return current;
    },
    set position(value) {
      current = value;
    },
  };
}
