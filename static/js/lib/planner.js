import { CARRIERS } from "./heatmap.js";

// Figures whose JSON is at most this many characters are compared with the last one drawn in the
// same element, and not redrawn when equal: a slider that changes one plot of a page then costs
// one redraw, not one per plot.
const COMPARE_LIMIT = 400_000;

function numberCount(value, budget) {
  // Cheap upper bound of the serialised size, so big figures are not stringified just to learn that.
  if (Array.isArray(value)) {
    let total = value.length;
    for (const item of value) {
      if (total > budget) break;
      if (item && typeof item === "object") total += numberCount(item, budget - total);
    }
    return total;
  }
  if (value && typeof value === "object") {
    let total = 0;
    for (const item of Object.values(value)) {
      if (total > budget) break;
      if (item && typeof item === "object") total += numberCount(item, budget - total);
    }
    return total;
  }
  return 0;
}

export function figureKey(traces, layout) {
  if (numberCount(traces, COMPARE_LIMIT / 8) > COMPARE_LIMIT / 8) return null;
  const key = JSON.stringify([traces, layout]);
  return key.length > COMPARE_LIMIT ? null : key;
}

// Attributes Plotly can move without a redraw (Plotly.PlotSchema marks them `anim`): a change of
// these alone, on traces that keep their number of points, is an animation of those traces.
const ANIMATABLE = ["x", "y", "fillcolor", "marker.color", "marker.size", "marker.opacity", "marker.line.color", "marker.line.width", "line.color", "line.width"];

const AXIS_MOVES = ["range", "autorange", "tickvals", "ticktext"];

function without(object, paths) {
  const out = JSON.parse(JSON.stringify(object));
  for (const path of paths) {
    const parts = path.split(".");
    let node = out;
    for (const part of parts.slice(0, -1)) node = node?.[part];
    if (node && typeof node === "object") delete node[parts[parts.length - 1]];
  }
  return out;
}

function read(object, path) {
  return path.split(".").reduce((node, part) => (node == null ? undefined : node[part]), object);
}

/**
 * The figure with what may change cheaply taken out: the traces' animatable attributes, the axes'
 * ranges and tick labels, the images' sources and places, the carriers' corners.  Two figures
 * with the same frame differ only in those (see planUpdate).  null: too large to compare.
 */
export function frameOf(figure) {
  if (numberCount(figure.traces, COMPARE_LIMIT / 8) > COMPARE_LIMIT / 8) return null;
  const traces = figure.traces.map((trace) => without(trace, ANIMATABLE));
  const layout = { ...figure.layout, transition: undefined };
  layout.images = (layout.images || []).map((image) => ({ xref: image.xref, yref: image.yref, layer: image.layer }));
  for (const key of Object.keys(layout)) {
    if (/^[xy]axis\d*$/.test(key) && layout[key]) layout[key] = without(layout[key], AXIS_MOVES);
  }
  const text = JSON.stringify([traces, layout]);
  return text.length > COMPARE_LIMIT ? null : text;
}

/**
 * The cheapest call that turns the last figure drawn in `el` into `figure`:
 * - "relayout": only images and axis ranges/ticks changed (a heatmap's new numbers or size);
 * - "animate": only animatable attributes of some traces (keeping their number of points) and axis
 *   ranges changed; only those traces are redrawn (Plotly.animate with `traces`);
 * - "react": anything else.
 */
export function planUpdate(el, figure, frame) {
  const previous = el._drawn;
  if (!previous || frame === null || frame !== previous.frame) return { kind: "react" };
  const axes = {};
  for (const [key, value] of Object.entries(figure.layout)) {
    if (!/^[xy]axis\d*$/.test(key) || !value) continue;
    for (const attr of AXIS_MOVES) {
      const now = value[attr];
      if (JSON.stringify(now) !== JSON.stringify(previous.layout[key]?.[attr]) && now !== undefined) axes[`${key}.${attr}`] = now;
    }
  }
  const imagesChanged = JSON.stringify(figure.layout.images || []) !== JSON.stringify(previous.layout.images || []);
  if (figure.heatmaps.length) {
    // The image swap redraws nothing else: it is right only while every other trace keeps its points.
    const moved = figure.traces.some((trace, i) => !CARRIERS.has(trace) && ANIMATABLE.some((path) => JSON.stringify(read(trace, path)) !== JSON.stringify(read(previous.traces[i], path))));
    if (moved) return { kind: "react" };
    return { kind: "relayout", update: { ...axes, ...(imagesChanged ? { images: figure.layout.images } : {}) } };
  }
  if (imagesChanged) return { kind: "react" };
  const indices = [];
  const data = [];
  for (const [i, trace] of figure.traces.entries()) {
    const before = previous.traces[i];
    const change = {};
    for (const path of ANIMATABLE) {
      const now = read(trace, path);
      if (JSON.stringify(now) === JSON.stringify(read(before, path))) continue;
      const length = (value) => (Array.isArray(value) ? value.length : -1);
      if ((path === "x" || path === "y") && length(now) !== length(read(before, path))) return { kind: "react" };
      change[path] = now;
    }
    if (Object.keys(change).length) {
      indices.push(i);
      // Plotly.animate takes nested objects, not dotted paths.
      const nested = {};
      for (const [path, value] of Object.entries(change)) {
        const parts = path.split(".");
        let node = nested;
        for (const part of parts.slice(0, -1)) node = node[part] ||= {};
        node[parts[parts.length - 1]] = value;
      }
      data.push(nested);
    }
  }
  if (!indices.length && !Object.keys(axes).length) return { kind: "none" };
  if (Object.keys(axes).some((key) => !key.endsWith(".range"))) return { kind: "react" };
  const layout = {};
  for (const [key, value] of Object.entries(axes)) {
    const [axis, attr] = key.split(".");
    (layout[axis] ||= {})[attr] = value;
  }
  return { kind: "animate", data, traces: indices, layout };
}
