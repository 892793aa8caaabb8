// Where a plot's axes lie on screen, from what the library gave Plotly and Plotly's public layout
// (gd.layout, into which Plotly writes the ranges it draws: autoranged, zoomed or panned): the
// width, height and margins a mark set (fixed margins, no automargin), each axis's domain and
// range.  Hover over an image heatmap (heatmap.js) and the in-plot words (labels.js) use it.
// A figure whose margins Plotly may push out itself (a colour bar that is not an image heatmap's,
// whose margin.autoexpand is left on) is measured from Plotly instead (plotly-internals.js).

import { axisName } from "./axes.js";
import { plotArea } from "./plotly-internals.js";

// Plotly pushes a margin out for colour bars, legends and automargin axes unless told not to.
function pushed(gd) {
  const layout = gd.layout || {};
  if (layout.margin?.autoexpand === false) return false;
  if (layout.showlegend) return true;
  return (gd.data || []).some((trace) => trace.visible !== false && (trace.marker?.showscale || ((trace.type === "heatmap" || trace.type === "contour") && trace.showscale !== false)));
}

/** The plot area {l, t, w, h} in pixels from the plot's top left corner. */
export function plotBox(gd) {
  if (pushed(gd)) return plotArea(gd);
  const layout = gd.layout || {};
  const margin = layout.margin || {};
  const round = (value, fallback) => Math.round(value ?? fallback);
  const l = round(margin.l, 80);
  const r = round(margin.r, 80);
  const t = round(margin.t, 100);
  const b = round(margin.b, 80);
  return { l, t, w: Math.round(layout.width) - l - r, h: Math.round(layout.height) - t - b };
}

/**
 * One axis as a map between its values and pixels: {toPixel(value), toValue(pixel)} (pixels
 * from the plot's left or top edge); `log` values are given as they are (not log10) unless
 * `asLog` (an annotation on a log axis gives log10 of its position, as Plotly reads it); a
 * category stands at its index in the order the traces first give it (Plotly's default order).
 * Null when the axis is not drawn yet (no range).
 */
export function axisMap(gd, ref, letter, box = plotBox(gd)) {
  const name = axisName(ref, letter);
  const axis = gd.layout?.[name];
  if (!axis || !Array.isArray(axis.range) || axis.type === "multicategory" || axis.type === "date") return null;
  const index = axis.type === "category" ? categoryIndex(gd, ref || letter, letter) : null;
  const [r0, r1] = axis.range.map(Number);
  if (!Number.isFinite(r0) || !Number.isFinite(r1) || r0 === r1) return null;
  const domain = Array.isArray(axis.domain) ? axis.domain : [0, 1];
  const log = axis.type === "log";
  const across = letter === "x";
  const offset = across ? box.l + domain[0] * box.w : box.t + (1 - domain[1]) * box.h;
  const length = (domain[1] - domain[0]) * (across ? box.w : box.h);
  const m = (across ? 1 : -1) * (length / (r1 - r0));
  const start = across ? r0 : r1;
  return {
    toPixel(value, asLog = false) {
      const linear = index ? (index.has(value) ? index.get(value) : typeof value === "number" ? value : NaN) : log && !asLog ? Math.log10(value) : value;
      return offset + m * (linear - start);
    },
    toValue(pixel) {
      const linear = start + (pixel - offset) / m;
      return log ? 10 ** linear : linear;
    },
  };
}

// A category axis's categories, in the order the axis's traces first give them.
function categoryIndex(gd, ref, letter) {
  const index = new Map();
  for (const trace of gd.data || []) {
    if ((trace[`${letter}axis`] || letter) !== ref) continue;
    for (const value of trace[letter] || []) if (value !== null && value !== undefined && !index.has(value)) index.set(value, index.size);
  }
  return index;
}
