// What the chart marks share (curves, bars, dials, planes): their Plotly figure built with the
// chart rules (chart-rules.js, axes.js) and their cheap update.
//
// The figure: the library's layout (layout.js baseLayout) under the mark's, sized to the
// container, its title and legend as HTML (chrome.js), words in the plot (text series,
// annotations without an arrow) as HTML labels, fixed axis margins, whole numbers hovered whole,
// log axes with 1-2-5 or decade ticks, an explicit range on every numeric axis (fixRanges: a
// zoomed axis keeps the reader's range), square panels as computed domains.
//
// The update, from what Plotly holds: when every trace kept its kind and style (and its point
// count, but for scatter traces) and the layout changed in its axes' ranges and shapes at most, only the traces whose points, hover texts or marker colours changed are handed on, and an
// axis whose range changed is moved with them.  Scatter traces (and a mark whose layout asks for
// `transition`: the clock's hands, the rotation's arrows) move with Plotly.animate without a
// redraw, a moved axis relaid beside it; bars with Plotly.restyle / Plotly.update.  Anything else
// is Plotly.react's.

/* global Plotly */

import { fixRanges, squareDomains, tidyLogAxes } from "../axes.js";
import { legendItems } from "../chrome.js";
import { plotState, stateOf } from "../figure.js";
import { paint, same } from "../paint.js";
import { annotationsAsLabels, drawnChartTrace, fixedAxisMargins, markLayout, wholeNumberHover, without } from "./chart-rules.js";

const AXIS = /^[xy]axis\d*$/;

// What may change in an update: the points, what only the hover reads (the legend is the page's
// own), and the text where the trace's mode does not write it on the plot.
const MOVES = ["x", "y", "name", "hovertemplate", "hovertext", "customdata"];
const IGNORED = ["uid"];
const movesOf = (trace) => [...IGNORED, ...(String(trace.mode || "").includes("text") ? MOVES : [...MOVES, "text"])];

// (per-point marker colours: a point that changes class)
const MARKER_MOVES = ["color"];

/** The Plotly figure of a chart mark from its page-form traces and layout. */
export function chartFigure(el, traces, pageLayout, forExport = false) {
  const { layout, title } = markLayout(el, pageLayout);
  const items = legendItems(traces, pageLayout || {});
  const labels = [];
  const drawn = traces.map((trace) => drawnChartTrace(el, trace, layout, labels, forExport));
  if (!forExport) labels.push(...annotationsAsLabels(layout));
  fixedAxisMargins(layout);
  wholeNumberHover(layout, drawn);
  tidyLogAxes(layout, drawn);
  fixRanges(el, layout, drawn);
  squareDomains(layout);
  return { traces: drawn, layout, title, items, heatmaps: [], labels, shown: traces };
}

// (shapes, a window's band or a marker line, are redrawn by Plotly alone when relaid)
const layoutFrame = (layout) => {
  const out = without(layout, ["transition", "shapes"]);
  for (const [key, value] of Object.entries(layout)) if (AXIS.test(key) && value) out[key] = without(value, ["range"]);
  return out;
};

const count = (values) => (values && typeof values.length === "number" ? values.length : -1);

/** The changes of one trace from `held` that an update may carry, or null when it cannot. */
function traceChange(trace, held) {
  const moves = movesOf(trace);
  if ((trace.type || "scatter") !== "scatter" && trace.type !== "bar") return same(without(trace, IGNORED), without(held, IGNORED)) ? {} : null;
  // (scatter points that come and go are joined by Plotly's animate as moved ones are; bars are laid out anew)
  const scatter = (trace.type || "scatter") === "scatter";
  if (!scatter && (count(trace.x) !== count(held.x) || count(trace.y) !== count(held.y))) return null;
  if ((count(trace.x) < 0) !== (count(held.x) < 0) || (count(trace.y) < 0) !== (count(held.y) < 0)) return null;
  const markerFrame = (marker) => (marker && typeof marker === "object" ? without(marker, MARKER_MOVES) : marker);
  if (!same(without({ ...trace, marker: markerFrame(trace.marker) }, moves), without({ ...held, marker: markerFrame(held.marker) }, moves))) return null;
  const change = {};
  for (const attr of moves) {
    if (attr === "uid") continue;
    if ((trace[attr] === undefined) !== (held[attr] === undefined)) return null;
    if (trace[attr] !== undefined && !same(trace[attr], held[attr])) change[attr] = trace[attr];
  }
  for (const attr of MARKER_MOVES) {
    const value = trace.marker?.[attr];
    if ((value === undefined) !== (held.marker?.[attr] === undefined)) return null;
    if (value !== undefined && !same(value, held.marker[attr])) change[`marker.${attr}`] = value;
  }
  return change;
}

/** A chart mark's cheap update from `held` to `figure` (see the module comment), or null. */
export function chartUpdate(el, figure, held) {
  if (figure.traces.length !== held.traces.length || !same(layoutFrame(figure.layout), layoutFrame(held.layout))) return null;
  const changes = [];
  for (let i = 0; i < figure.traces.length; i++) {
    const change = traceChange(figure.traces[i], held.traces[i]);
    if (change === null) return null;
    if (Object.keys(change).length) changes.push([i, change]);
  }
  const zoomed = stateOf(el)?.zoomed;
  const ranges = {};
  for (const [key, value] of Object.entries(figure.layout)) {
    if (!AXIS.test(key) || !value || zoomed?.has(key)) continue;
    if (value.range !== undefined && !same(value.range, held.layout[key]?.range)) ranges[key] = value.range;
  }
  const shapes = same(figure.layout.shapes, held.layout.shapes) ? null : (figure.layout.shapes || []).map((shape) => structuredClone(shape));
  if (!changes.length && !Object.keys(ranges).length && !shapes) return Promise.resolve(el);
  const indices = changes.map(([i]) => i);
  if (figure.layout.transition || changes.every(([i]) => (figure.traces[i].type || "scatter") === "scatter")) {
    // Plotly moves scatter traces and axes without laying the plot out again (its path for data
    // that moves: half of Plotly's time per move on /offsets, bench/RESULTS.md); animate takes
    // attributes as nested objects.  Bars are restyled: their widths are laid out.
    const data = changes.map(([, change]) => {
      const frame = {};
      for (const [path, value] of Object.entries(change)) {
        if (path.startsWith("marker.")) frame.marker = { ...frame.marker, [path.slice(7)]: value };
        else frame[path] = value;
      }
      return frame;
    });
    const transition = { duration: 0, ...figure.layout.transition };
    // (an axis moved by a transition or a relayout is reported as plotly_relayout: not the reader's zoom)
    const state = plotState(el);
    state.moving = (state.moving || 0) + 1;
    const settle = () => { state.moving -= 1; };
    const moves = [];
    if (transition.duration > 0) {
      if (shapes) return null;
      const layout = {};
      for (const [key, range] of Object.entries(ranges)) layout[key] = { range };
      moves.push(Plotly.animate(el, { data, traces: indices, layout }, { transition, frame: { duration: transition.duration, redraw: false }, mode: "immediate" }));
    } else {
      // Without a duration, an axis handed to animate is moved in Plotly's animation loop, a frame
      // later, and redrawn there whole; relaid at once it skips Plotly's defaults pass and draws in
      // this task, the points animated into it (the same SVG as a fresh draw: bench/RESULTS.md).
      if (changes.length) moves.push(Plotly.animate(el, { data, traces: indices }, { transition, frame: { duration: 0, redraw: false }, mode: "immediate" }));
      const relaid = {};
      for (const [key, range] of Object.entries(ranges)) relaid[`${key}.range`] = [...range];
      if (shapes) relaid.shapes = shapes;
      if (Object.keys(relaid).length) moves.push(Plotly.relayout(el, relaid));
    }
    const moved = Promise.all(moves).then(() => el);
    moved.then(settle, settle);
    return moved;
  }
  // One restyle of the changed traces: each attribute's values per trace (undefined: left alone).
  const traceUpdate = {};
  changes.forEach(([, change], k) => {
    for (const [path, value] of Object.entries(change)) (traceUpdate[path] ||= new Array(changes.length).fill(undefined))[k] = value;
  });
  const layoutUpdate = {};
  for (const [key, range] of Object.entries(ranges)) layoutUpdate[`${key}.range`] = [...range];
  if (shapes) layoutUpdate.shapes = shapes;
  if (!Object.keys(layoutUpdate).length) return Plotly.restyle(el, traceUpdate, indices);
  return Plotly.update(el, changes.length ? traceUpdate : {}, layoutUpdate, changes.length ? indices : undefined);
}

/** Draw or update chart mark `mark` on `el` from page-form `traces` and `layout`. */
export function paintChart(el, mark, traces, layout) {
  const node = typeof el === "string" ? document.getElementById(el) : el;
  if (!node) return Promise.resolve(null);
  plotState(node);
  return paint(node, {
    mark,
    asked: { traces, layout },
    build: (target, forExport) => chartFigure(target, traces, layout, forExport),
    update: chartUpdate,
  });
}
