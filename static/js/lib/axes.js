// Axes: names and category ticks, 1-2-5 log ticks with full values, the explicit ranges every
// autoranged axis gets, and the axis settings pages share (axis, offAxis, belowCorner).

import { stateOf } from "./figure.js";
import { sized } from "./layout.js";

export function axisName(ref, letter) {
  if (!ref || ref === letter) return `${letter}axis`;
  return `${letter}axis${ref.slice(1)}`;
}

export function categoryTicks(categories) {
  return { type: "linear", tickmode: "array", tickvals: categories.map((_, i) => i), ticktext: categories.map((c) => String(c)) };
}

// ---- composing and drawing ------------------------------------------------------------------------

// Ticks at 1, 2 and 5 of each decade from lo to hi, labelled with their full values.
function oneTwoFive(lo, hi) {
  const tickvals = [];
  for (let k = Math.floor(Math.log10(lo)); k <= Math.ceil(Math.log10(hi)); k++) {
    for (const m of [1, 2, 5]) {
      const value = Number((m * 10 ** k).toPrecision(1));
      if (value >= lo * (1 - 1e-9) && value <= hi * (1 + 1e-9)) tickvals.push(value);
    }
  }
  // Under two such values in the range: Plotly's own ticks (they write full values there).
  if (tickvals.length < 2) return {};
  // Large values short, with an SI suffix (20k, 2M): long labels at these spacings run into each other.
  const short = (value) => (value >= 1e6 ? `${value / 1e6}M` : value >= 1e4 ? `${value / 1e3}k` : String(value));
  const ticktext = tickvals.map(short);
  return { tickmode: "array", tickvals, ticktext };
}

function decadeStep(key, axisLayout, layout, decades) {
  let step = decades > 12 ? Math.ceil(decades / 8) : 1;
  if (key[0] === "y" && layout.height) {
    const margin = layout.margin || {};
    const domain = Array.isArray(axisLayout.domain) ? axisLayout.domain[1] - axisLayout.domain[0] : 1;
    const room = (layout.height - (margin.t || 0) - (margin.b || 0)) * domain;
    const labels = Math.max(1, Math.floor(room / (2 * (layout.font?.size || 13))));
    step = Math.max(step, Math.ceil(decades / labels));
  }
  return step;
}

/** Axes of the layout with type "log": one label per power of ten (or per few) when they span several. */
export function tidyLogAxes(layout, traces) {
  for (const [key, axisLayout] of Object.entries(layout)) {
    if (!/^[xy]axis\d*$/.test(key) || !axisLayout || axisLayout.type !== "log" || axisLayout.dtick !== undefined) continue;
    let decades = null;
    let lo = Infinity;
    let hi = -Infinity;
    if (Array.isArray(axisLayout.range)) {
      decades = Math.abs(axisLayout.range[1] - axisLayout.range[0]);
      lo = 10 ** Math.min(...axisLayout.range);
      hi = 10 ** Math.max(...axisLayout.range);
    } else {
      const letter = key[0];
      const ref = key.length > 5 ? `${letter}${key.slice(5)}` : letter;
      for (const trace of traces) {
        if ((trace[`${letter}axis`] || letter) !== ref) continue;
        for (const v of trace[letter] || []) {
          if (typeof v === "number" && v > 0 && Number.isFinite(v)) {
            if (v < lo) lo = v;
            if (v > hi) hi = v;
          }
        }
      }
      if (lo < hi) decades = Math.log10(hi / lo);
    }
    // Several decades: one label per power of ten, or per few when the labels (a power of ten is
    // about two lines of text tall) would not fit the axis's height; fewer: 1, 2 and 5 of each
    // decade written in full (0.5, 0.2; Plotly's "D2" would write the bare digits 5 and 2).
    if (decades !== null && decades >= 2.5) axisLayout.dtick = decadeStep(key, axisLayout, layout, decades);
    else if (decades !== null && axisLayout.tickvals === undefined) Object.assign(axisLayout, oneTwoFive(lo, hi));
    if (!axisLayout.exponentformat) axisLayout.exponentformat = "power";
  }
}

/**
 * Explicit ranges for every numeric axis the page left to autorange: the same rule on every page
 * and every redraw, and what Plotly's transition path needs (an autoranged axis makes each of its
 * steps a full redraw) for pages that ask for a transition.  Lines span their data exactly
 * along x; y gets 5% either side; markers 3% along x too; bars include 0 and half a bar; log
 * axes pad in decades.  An axis the reader zoomed keeps the reader's range.
 */
export function fixRanges(el, layout, traces) {
  for (const [name, e] of Object.entries(extentsOf(layout, traces))) {
    const axisLayout = (layout[name] ||= {});
    if (Array.isArray(axisLayout.range) || axisLayout.autorange === "reversed" || axisLayout.matches || axisLayout.type === "category") continue;
    if (!e.numeric || !(e.lo <= e.hi)) continue;
    // (Plotly writes the range it draws, the reader's zoom too, into the layout it holds: el.layout)
    const zoomed = stateOf(el)?.zoomed?.has(name) && el.layout?.[name]?.range;
    axisLayout.range = zoomed ? [...el.layout[name].range] : rangeOf(e, axisLayout, name.startsWith("x"));
    axisLayout.autorange = false;
  }
}

/** Per axis of the visible traces: the data's extent, its smallest step, and what kinds of trace use it. */
function extentsOf(layout, traces) {
  const extents = {};
  for (const trace of traces) {
    if (trace.visible === false) continue;
    for (const letter of ["x", "y"]) {
      const name = axisName(trace[`${letter}axis`] || letter, letter);
      const values = trace[letter];
      if (!values || typeof values.length !== "number") continue;
      const e = (extents[name] ||= { lo: Infinity, hi: -Infinity, markers: false, bars: false, numeric: true, spacing: Infinity });
      measure(e, values, layout[name]?.type === "log");
      if (String(trace.mode || "").includes("markers") || (trace.type === "scatter" && !trace.mode)) e.markers = true;
      if (trace.type === "bar") e.bars = letter === "x" ? "position" : "value";
      // A heatmap drawn by Plotly (labelled cells) spans half a cell beyond its first and last centres.
      if (trace.type === "heatmap") e.cells = true;
    }
  }
  return extents;
}

/** Widen extent `e` to `values` (finite numbers; positive ones on a log axis); a word makes it not numeric. */
function measure(e, values, log) {
  let previous = null;
  for (const v of values) {
    if (v === null || v === undefined) continue;
    if (typeof v !== "number") {
      e.numeric = false;
      return;
    }
    if (!Number.isFinite(v) || (log && v <= 0)) continue;
    if (v < e.lo) e.lo = v;
    if (v > e.hi) e.hi = v;
    if (previous !== null && v !== previous) e.spacing = Math.min(e.spacing, Math.abs(v - previous));
    previous = v;
  }
}

/** The range of an axis over extent `e` (`along`: an x axis), padded as fixRanges says. */
function rangeOf(e, axisLayout, along) {
  const log = axisLayout.type === "log";
  const withZero = !log && (axisLayout.rangemode === "tozero" || e.bars === "value");
  let lo = log ? Math.log10(e.lo) : e.lo;
  let hi = log ? Math.log10(e.hi) : e.hi;
  if (withZero) {
    lo = Math.min(lo, 0);
    hi = Math.max(hi, 0);
  }
  const span = hi - lo || Math.abs(hi) || 1;
  let pad = along && !e.markers && !e.bars ? 0 : along ? 0.03 : 0.05;
  if (e.bars === "position" || e.cells) {
    const half = (Number.isFinite(e.spacing) ? e.spacing : 1) / 2;
    lo -= half;
    hi += half;
    pad = 0;
  }
  lo -= span * pad;
  hi += span * pad;
  // Padding does not cross zero for data on one side of it.
  if (withZero && e.lo >= 0) lo = Math.max(lo, 0);
  if (withZero && e.hi <= 0) hi = Math.min(hi, 0);
  if (!log && axisLayout.rangemode === "nonnegative") lo = Math.max(lo, 0);
  return lo === hi ? [lo - 0.5, hi + 0.5] : [lo, hi];
}

/**
 * Axis title helper.  Margins are fixed (baseLayout) rather than automatic: Plotly's automargin
 * measures every tick label after each redraw and can redraw a second time.
 */
export function axis(title, extra = {}) {
  return { title: { text: title }, zeroline: false, ...extra };
}

/**
 * Tick labels a few pixels further from their axis than Plotly's default: a y tick at the bottom
 * of the axis then never meets the x axis's first tick label in the corner (at presenter size the
 * two labels overlapped by a few pixels).
 */
export function offAxis(extra = {}) {
  return { ticklabelstandoff: sized(4, 8), ...extra };
}

/** For an x axis whose first tick label is wide (−150): its labels drop below a y tick at the corner. */
export function belowCorner(extra = {}) {
  return { ticklabelstandoff: sized(8, 14), ...extra };
}

// Axes tied by scaleanchor with constrain "domain" (square cells): the shrunk domain, computed here
// as Plotly would (centred within the page's domain), is handed to Plotly instead of the constraint.
// Left to Plotly, it writes the domain back into the layout it was given, so the next figure, without
// it, differs in every such axis and Plotly.react redraws the whole plot (19 of 21 ms a move on
// /scores).  A zoom then keeps the ranges the reader chose, not the cells' squareness.
export function squareDomains(layout) {
  const margin = layout.margin || {};
  const room = { x: layout.width - (margin.l || 0) - (margin.r || 0), y: layout.height - (margin.t || 0) - (margin.b || 0) };
  for (const [key, axis] of Object.entries(layout)) {
    if (!/^[xy]axis\d*$/.test(key) || !axis?.scaleanchor || axis.constrain !== "domain") continue;
    const otherKey = `${axis.scaleanchor[0]}axis${axis.scaleanchor.slice(1)}`;
    const other = layout[otherKey];
    if (!other || !Array.isArray(axis.range) || !Array.isArray(other.range) || !(room.x > 0 && room.y > 0)) continue;
    const sized = (name, ax) => {
      const domain = ax.domain || [0, 1];
      return { ax, domain, px: (domain[1] - domain[0]) * room[name[0]], span: Math.abs(ax.range[1] - ax.range[0]) * (ax === axis ? axis.scaleratio || 1 : 1) };
    };
    const a = sized(key, axis);
    const b = sized(otherKey, other);
    // the axis with more pixels per unit gives some up, so that both have the same
    const [wide, scale] = a.px / a.span > b.px / b.span ? [a, b.px / b.span] : [b, a.px / a.span];
    const keep = (wide.span * scale) / wide.px;
    const centre = (wide.domain[0] + wide.domain[1]) / 2;
    const half = ((wide.domain[1] - wide.domain[0]) * keep) / 2;
    wide.ax.domain = [centre - half, centre + half];
    // The domains now hold the ratio: Plotly is not asked to enforce it (it would rewrite them with
    // rounding noise, [1e-16, 0.99999…], and that alone is a change to redraw for).
    for (const ax of [axis, other]) {
      ax.domain = ax.domain || [0, 1];
      delete ax.constrain;
    }
    delete axis.scaleanchor;
  }
}
