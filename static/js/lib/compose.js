import { axisName, fixRanges, tidyLogAxes } from "./axes.js";
import { legendItems } from "./chrome.js";
import { stateOf } from "./figure.js";
import { imageHeatmap, nativeHeatmap } from "./heatmap.js";
import { annotationLabel, placeholder, traceLabels } from "./labels.js";
import { baseLayout, merge, plotSize, textSize, textWidth, titleText } from "./layout.js";

// A line, marker or bar trace reaches Plotly as the page wrote it (name, hover template and
// texts included): Plotly draws its hover label.  Bar text the page did not place is for the
// hover only, not written on the bars (Plotly's default would write it inside them).  A name
// longer than `nameLimit` characters is broken into lines (below).  A copy: Plotly keeps what it
// is given, and the page's trace stays as the page wrote it.
function plotlyTrace(trace, nameLimit) {
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

export function compose(el, traces, pageLayout, forExport = false) {
  const layout = merge(baseLayout(), pageLayout);
  const title = titleText(layout.title);
  delete layout.title;
  delete layout.legend;
  delete layout.height;
  delete layout.width;
  const items = legendItems(traces, pageLayout || {});
  layout.showlegend = false;
  layout.autosize = false;
  const state = stateOf(el) || {};
  if (state.resets) layout.uirevision = `${layout.uirevision}:${state.resets}`;
  const size = plotSize(el);
  layout.width = Math.max(200, Math.round(size.width || 600));
  layout.height = Math.max(160, Math.round(size.height || 420));
  const hidden = state.hidden || new Set();
  // (an exported picture has Plotly's legend, which shows the names whole)
  const nameLimit = forExport ? Infinity : Math.max(16, Math.floor(layout.width / textSize()));
  const drawn = [];
  const images = [];
  const heatmaps = [];
  const labels = [];
  const carriers = [];
  traces.forEach((trace) => {
    // A heatmap that writes text in its cells or leaves gaps between them (a handful of labelled
    // cells) stays a Plotly heatmap, with its colour scale resolved the same way.
    if (trace.type === "heatmap" && (trace.texttemplate || trace.xgap || trace.ygap)) {
      drawn.push(nativeHeatmap(trace));
      return;
    }
    if (trace.type === "heatmap" && Array.isArray(trace.z) && trace.z.length && Array.isArray(trace.z[0])) {
      const { carrier, image, entry, axisPatch } = imageHeatmap(trace, layout);
      for (const [name, patch] of Object.entries(axisPatch)) layout[name] = merge(layout[name] || {}, patch);
      carriers.push(drawn.length);
      drawn.push(carrier);
      images.push(image);
      heatmaps.push(entry);
      return;
    }
    const key = trace.legendgroup || trace.name;
    const shown = key && hidden.has(key) ? { ...trace, visible: "legendonly" } : trace;
    if (!forExport && trace.mode === "text" && shown.visible !== "legendonly") {
      labels.push(...traceLabels(trace));
      drawn.push(placeholder(trace));
      return;
    }
    drawn.push(plotlyTrace(shown, nameLimit));
  });
  if (!forExport) labels.push(...annotationsAsLabels(layout));
  if (images.length) layout.images = [...(layout.images || []), ...images];
  roomForColourBars(layout, heatmaps, pageLayout, drawn, carriers);
  fixedAxisMargins(layout);
  wholeNumberHover(layout, drawn);
  tidyLogAxes(layout, drawn);
  fixRanges(el, layout, drawn);
  squareDomains(layout);
  return { traces: drawn, layout, title, items, heatmaps, carriers, labels, pageTraces: traces, pageLayout };
}

// Axes tied by scaleanchor with constrain "domain" (square cells): the shrunk domain, computed here
// as Plotly would (centred within the page's domain), is handed to Plotly instead of the constraint.
// Left to Plotly, it writes the domain back into the layout it was given, so the next figure, without
// it, differs in every such axis and Plotly.react redraws the whole plot (19 of 21 ms a move on
// /scores).  A zoom then keeps the ranges the reader chose, not the cells' squareness.
function squareDomains(layout) {
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

// Annotations without an arrow are words in the plot: the library writes them as HTML labels.
function annotationsAsLabels(layout) {
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
function fixedAxisMargins(layout) {
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
function wholeNumberHover(layout, drawn) {
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

// Room on the right for the image heatmaps' colour bars at the plot's right edge, from the start,
// measured as Plotly lays a bar out: its offset from the plot (the bar's x beyond 1), a pad, then
// the wider of its title (at 1.2 times the text size, as Plotly writes titles) and the bar with its
// tick labels beside it, and a pad.  The labels get
// the room of five characters ("−0.25") at least, so that most moves keep the margin: a new margin
// is a new layout of the whole plot (Plotly.react), where new tick labels alone are the heatmap
// path's cheap update (updates.js).  Where these are the only colour bars, Plotly is told not to
// push the margin out itself (autoexpand): it would measure each bar after drawing it and, when
// its labels' width changed, lay the whole plot out a second time (a relabelled bar 27 ms instead
// of 7 on /conventions).  Other colour bars (markers', labelled heatmaps') keep Plotly's push.
const BAR_LABEL_AT_LEAST = "\u22120.25";
const BAR_PAD = 10; // Plotly's colorbar.xpad
const BAR_TICK_GAP = 6; // between the bar and its labels (3–5 px drawn)
const BAR_SLACK = 6;

function roomForColourBars(layout, heatmaps, pageLayout, drawn, carriers) {
  if (pageLayout?.margin?.r > 0) return;
  const size = textSize();
  const plotWidth = layout.width - (layout.margin?.l || 0);
  const needs = [];
  heatmaps.forEach((entry, k) => {
    if (!entry.colourBar || entry.colourBarX < 1) return;
    const bar = drawn[carriers[k]].colorbar || {};
    const words = (text, px = size) => textWidth(String(text ?? "").replace(/<[^>]*>/g, ""), px);
    const labels = Math.max(words(BAR_LABEL_AT_LEAST), ...(bar.ticktext || []).map(words));
    const offset = Math.max(0, (entry.colourBarX - 1) * plotWidth);
    needs.push(offset + 2 * BAR_PAD + Math.max(words(titleText(bar.title), Math.round(size * 1.2)), (bar.thickness || 30) + BAR_TICK_GAP + labels) + BAR_SLACK);
  });
  if (!needs.length) return;
  const otherBars = drawn.some((trace, i) => !carriers.includes(i) && (trace.marker?.showscale || (trace.type === "heatmap" && trace.showscale !== false)));
  layout.margin = { ...layout.margin, r: Math.ceil(Math.max(...needs)), ...(otherBars ? {} : { autoexpand: false }) };
}
