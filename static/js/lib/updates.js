// Each drawing path's own cheap update, tried before Plotly.react (draw.js):
// - heatmapSwap: image heatmaps whose numbers or labels changed on a grid of the same extent,
//   nothing else: the images are swapped, the axes' ranges and category ticks set, the colour bars
//   relabelled, in one Plotly call (1–10 ms where react lays the whole plot out again, 30–50 ms
//   on /absolute);
// - pointsMove: curves and markers whose points moved (as many as before) and hover texts
//   changed, nothing else: Plotly moves those traces and the axes without laying the plot out
//   again (Plotly.animate without a redraw, its path for data that moves; with the page's
//   transition, if it asked for one).
// Each compares the new figure's frames (framesOf: the figure with what its path may change
// cheaply taken out, computed once per draw) with those of the figure Plotly holds (the plot's state: `given`, figure.js);
// anything else differing is Plotly.react's work.  Each returns Plotly's promise, or null when it
// does not apply.

/* global Plotly */

import { plotState, stateOf } from "./figure.js";
import { same } from "./same.js";

const AXIS = /^[xy]axis\d*$/;

const AXIS_MOVES = ["range", "tickvals", "ticktext"];

const IMAGE_MOVES = ["source", "x", "y", "sizex", "sizey"];

// Plotly moves these of a scatter trace without a redraw (its schema marks them animatable).
const POINT_MOVES = ["x", "y"];

// What only the hover label reads (the legend is the page's own: chrome.js): these may change
// with the points (and `text`, where the trace's mode does not write it: movesOf); Plotly.animate
// stores them, and the next hover writes them.
const HOVER_ONLY = ["name", "hovertemplate", "hovertext", "customdata"];

const MOVES = [...POINT_MOVES, ...HOVER_ONLY];

// A trace's text is for the hover alone unless its mode writes it on the plot.
const movesOf = (trace) => (String(trace.mode || "").includes("text") ? MOVES : [...MOVES, "text"]);

// Per-point marker colours (a point that changes class) change with the points: Plotly styles the
// markers again after a move, and merges a frame's marker into the trace's (size and line stay).
const MARKER_MOVES = ["color"];

const markerFrame = (marker) => (marker && typeof marker === "object" ? without(marker, MARKER_MOVES) : marker);

const without = (object, keys) => {
  const out = { ...object };
  for (const key of keys) delete out[key];
  return out;
};

function layoutFrame(layout, imageMoves) {
  const out = { ...layout };
  for (const [key, value] of Object.entries(layout)) if (AXIS.test(key) && value) out[key] = without(value, AXIS_MOVES);
  if (layout.images) out.images = layout.images.map((image) => without(image, imageMoves));
  return out;
}

/**
 * The axes' ranges and ticks that differ from the ones drawn, as relayout paths; an axis the
 * reader zoomed keeps its range (as Plotly.react keeps it, by the layout's uirevision).
 */
function axisChanges(el, layout, last, changes) {
  for (const [key, value] of Object.entries(layout)) {
    if (!AXIS.test(key) || !value) continue;
    for (const attr of AXIS_MOVES) {
      if (attr === "range" && stateOf(el)?.zoomed?.has(key)) continue;
      if (value[attr] !== undefined && !same(value[attr], last[key]?.[attr])) changes[`${key}.${attr}`] = value[attr];
    }
  }
  return changes;
}

// ---- heatmaps: images swapped ---------------------------------------------------------------------
//
// A grid of a new size moves the images and the axes' ranges and ticks; the carriers (heatmap.js)
// stay where they are, so Plotly recalculates nothing.

function heatmapFrame(figure) {
  const traces = figure.traces.map((trace, i) => {
    if (!figure.carriers.includes(i)) return trace;
    const carrier = { ...trace };
    if (trace.colorbar) carrier.colorbar = without(trace.colorbar, ["tickvals", "ticktext"]);
    return carrier;
  });
  return JSON.stringify([traces, layoutFrame(figure.layout, IMAGE_MOVES)]);
}

export function heatmapSwap(el, figure, frames) {
  const last = stateOf(el)?.given;
  if (frames.heatmap === null || !last || last.frames.heatmap !== frames.heatmap) return null;
  const layoutUpdate = axisChanges(el, figure.layout, last.layout, {});
  figure.layout.images.forEach((image, i) => {
    for (const attr of IMAGE_MOVES) if (image[attr] !== last.layout.images[i][attr]) layoutUpdate[`images[${i}].${attr}`] = image[attr];
  });
  const bars = figure.carriers.filter((i) => figure.traces[i].colorbar && !same(figure.traces[i].colorbar, last.traces[i].colorbar));
  const traceUpdate = bars.length
    ? { "colorbar.tickvals": bars.map((i) => figure.traces[i].colorbar.tickvals), "colorbar.ticktext": bars.map((i) => figure.traces[i].colorbar.ticktext) }
    : {};
  remember(el, { traces: figure.traces, layout: figure.layout }, frames);
  const paths = Object.keys(layoutUpdate);
  // Plotly.update costs 3–4 ms more than the relayout or restyle it combines, even with one half
  // empty; but a relayout that moves an axis would reach the page's zoom listener as the reader's
  // zoom (draw.js: plotly_relayout), so axes move with Plotly.update, which reports itself apart.
  if (!bars.length && !paths.length) return Promise.resolve(el);
  if (!bars.length && !paths.some((path) => AXIS.test(path.split(".")[0]))) return Plotly.relayout(el, layoutUpdate);
  return paths.length ? Plotly.update(el, traceUpdate, layoutUpdate, bars) : Plotly.restyle(el, traceUpdate, bars);
}

// ---- curves and markers: points moved ---------------------------------------------------------------

const movable = (trace) => (trace.type || "scatter") === "scatter";

function pointsFrame(figure) {
  if (figure.heatmaps.length) return null;
  const traces = figure.traces.map((trace) => {
    if (!movable(trace)) return trace;
    const moves = movesOf(trace);
    const frame = { ...without(trace, moves), points: [trace.x?.length, trace.y?.length], has: moves.filter((attr) => trace[attr] !== undefined) };
    if (trace.marker) frame.marker = { ...markerFrame(trace.marker), has: MARKER_MOVES.filter((attr) => trace.marker[attr] !== undefined) };
    return frame;
  });
  return JSON.stringify([traces, layoutFrame(without(figure.layout, ["transition"]), [])]);
}

export function pointsMove(el, figure, frames) {
  const last = stateOf(el)?.given;
  if (frames.points === null || !last || last.frames.points !== frames.points) return null;
  const axes = axisChanges(el, figure.layout, last.layout, {});
  // (tick labels a page sets itself are not something a move can carry)
  if (Object.keys(axes).some((path) => !path.endsWith(".range"))) return null;
  const moved = [];
  const data = [];
  figure.traces.forEach((trace, i) => {
    if (!movable(trace)) return;
    const change = {};
    for (const attr of movesOf(trace)) if (trace[attr] !== undefined && !same(trace[attr], last.traces[i][attr])) change[attr] = trace[attr];
    for (const attr of MARKER_MOVES) {
      const value = trace.marker?.[attr];
      if (value !== undefined && !same(value, last.traces[i].marker?.[attr])) change.marker = { ...change.marker, [attr]: value };
    }
    if (Object.keys(change).length) {
      moved.push(i);
      data.push(change);
    }
  });
  const layout = {};
  for (const [path, value] of Object.entries(axes)) layout[path.split(".")[0]] = { range: value };
  remember(el, figure, frames);
  if (!moved.length && !Object.keys(layout).length) return Promise.resolve(el);
  // (a page that asked for a transition, the clock's gliding hands, gets it)
  const transition = { duration: 0, ...figure.layout.transition };
  return Plotly.animate(el, { data, traces: moved, layout }, { transition, frame: { duration: transition.duration, redraw: false }, mode: "immediate" });
}

/** The figure as each path compares it (null: the path does not apply to this figure). */
export function framesOf(figure) {
  return { heatmap: figure.heatmaps.length ? heatmapFrame(figure) : null, points: pointsFrame(figure) };
}

/** What Plotly holds after a draw (`given`), with its frames. */
export function remember(el, given, frames) {
  plotState(el).given = { traces: given.traces, layout: given.layout, frames };
}
