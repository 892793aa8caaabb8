// The layout rules of the chart marks (curves, bars, dials, planes; marks/chart.js), the fixed
// axis margins and words-as-labels of the heatmap mark too: traces as Plotly takes them with long
// names broken, annotations without an arrow as HTML labels, fixed axis margins, whole-number
// hover formats.

import { axisName } from "../axes.js";
import { stateOf } from "../figure.js";
import { annotationLabel, placeholder, traceLabels } from "../labels.js";
import { baseLayout, merge, textSize, titleText } from "../layout.js";
import { figureSize, uirevision } from "../paint.js";

/** A copy of `object` without `keys`. */
export const without = (object, keys) => {
  const out = { ...object };
  for (const key of keys) delete out[key];
  return out;
};

/**
 * The start of every mark's Plotly layout: the library's layout under the page's, the title and
 * legend taken out (drawn as HTML, chrome.js), sized to the container, the zoom's uirevision.
 */
export function markLayout(el, pageLayout) {
  const layout = merge(baseLayout(), pageLayout);
  const title = titleText(layout.title);
  for (const key of ["title", "legend", "height", "width"]) delete layout[key];
  layout.showlegend = false;
  layout.autosize = false;
  layout.uirevision = uirevision(el, layout.uirevision);
  Object.assign(layout, figureSize(el));
  return { layout, title };
}

/**
 * A line, marker or bar trace of a mark as drawn: hidden from the HTML legend as Plotly's
 * "legendonly", a text series written as HTML labels (pushed onto `labels`, a placeholder drawn),
 * else plotlyTrace with names broken to the plot's width (whole in an export).
 */
export function drawnChartTrace(el, trace, layout, labels, forExport) {
  const key = trace.legendgroup || trace.name;
  const shown = key && stateOf(el)?.hidden?.has(key) ? { ...trace, visible: "legendonly" } : trace;
  if (!forExport && trace.mode === "text" && shown.visible !== "legendonly") {
    labels.push(...traceLabels(trace));
    return placeholder(trace);
  }
  // (an exported picture has Plotly's legend, which shows the names whole)
  return plotlyTrace(shown, forExport ? Infinity : Math.max(16, Math.floor(layout.width / textSize())));
}

// A line, marker or bar trace reaches Plotly as the page wrote it (name, hover template and
// texts included): Plotly draws its hover label.  Bar text the page did not place is for the
// hover only, not written on the bars (Plotly's default would write it inside them).  A name
// longer than `nameLimit` characters is broken into lines (below).  A copy: Plotly keeps what it
// is given, and the page's trace stays as the page wrote it.
export function plotlyTrace(trace, nameLimit) {
  const out = { ...trace };
  if (trace.type === "bar" && trace.text !== undefined && !trace.textposition && !trace.texttemplate) out.textposition = "none";
  if (typeof trace.name === "string" && visibleLength(trace.name) > nameLimit) out.name = wrapped(trace.name, nameLimit);
  return out;
}

// Plotly writes a trace's name beside the hover text, on one line: on a phone a long name would
// push the label out of the plot.  Broken at spaces into lines of at most `limit` characters
// (the legend under the plot is the page's own and keeps the name whole).
const visibleLength = (text) => text.replace(/<[^>]*>/g, "").length;

function wrapped(name, limit) {
  const lines = [];
  for (const part of name.split(/<br\s*\/?>/i)) {
    let line = "";
    for (const word of part.split(" ")) {
      const longer = line ? `${line} ${word}` : word;
      if (line && visibleLength(longer) > limit) {
        lines.push(line);
        line = word;
      } else line = longer;
    }
    lines.push(line);
  }
  return lines.join("<br>");
}

// Annotations without an arrow are words in the plot: the library writes them as HTML labels.
export function annotationsAsLabels(layout) {
  if (!Array.isArray(layout.annotations)) return [];
  const words = layout.annotations.filter((note) => note.showarrow === false);
  layout.annotations = layout.annotations.filter((note) => note.showarrow !== false);
  return words.map(annotationLabel);
}

// Margins are fixed (baseLayout): no axis pushes them out, and axis titles sit close to their ticks.
// Tick labels are never hidden by Plotly: its default hides one that crosses the figure's edge (the
// layout test finds any such label instead), and measures every label on every redraw to decide
// (3 of the 8 ms of a /relative length move).
// A range is copied: a zoom makes Plotly write into the range array it was given (range[0],
// range[1]), which would otherwise be the page's own.
export function fixedAxisMargins(layout) {
  for (const [key, value] of Object.entries(layout)) {
    if (/^[xy]axis\d*$/.test(key) && value && typeof value === "object") {
      layout[key] = merge({ automargin: false, ticklabeloverflow: "allow", title: { standoff: 6 } }, value);
      if (Array.isArray(value.range)) layout[key].range = [...value.range];
    }
  }
}

function allWhole(values) {
  if (!values || typeof values === "string" || typeof values.length !== "number") return undefined;
  let seen = false;
  for (const value of values) {
    if (value === null || value === undefined || Number.isNaN(value)) continue;
    if (!Number.isInteger(value)) return false;
    seen = true;
  }
  return seen || undefined;
}

// Plotly writes a bare %{x} in a hover template (and its own "(x, y)") in the axis's format, so
// 65262 beside ticks in thousands reads "65.262k".  An axis whose hovered values are all whole
// numbers (positions, offsets, counts) writes them whole, with thousands separators, unless the
// page gave the axis a hoverformat.
export function wholeNumberHover(layout, drawn) {
  const whole = new Map();
  for (const trace of drawn) {
    if (trace.type === "heatmap" || trace.hoverinfo === "skip" || trace.hoverinfo === "none" || trace.visible === false) continue;
    for (const letter of ["x", "y"]) {
      const name = axisName(trace[`${letter}axis`], letter);
      const verdict = allWhole(trace[letter]);
      if (verdict !== undefined && whole.get(name) !== false) whole.set(name, verdict);
    }
  }
  for (const [name, isWhole] of whole) {
    if (isWhole && layout[name]?.hoverformat === undefined) layout[name] = { ...layout[name], hoverformat: ",d" };
  }
}
