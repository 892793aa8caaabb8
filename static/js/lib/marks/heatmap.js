// The heatmap mark: a matrix of numbers as colour-mapped cells.
//
//   heatmap(el, {z, x, y, scale, zmin, zmax, zauto, hovertemplate, customdata, bar, hoverongaps},
//           {square, title, xaxis, yaxis, margin, shapes, annotations})
//
// `scale` is a Plotly colour scale (DIVERGING for signed values, SEQUENTIAL for magnitudes);
// zmin and zmax widen the range fitted to the data to hold them; with zauto: false they are the
// range (colours.js colourRange, as Plotly's zauto).  `bar` is
// the colour bar's title (false: no bar).  `square` makes cells square (y scaled as x, both
// constrained to their domain, as Plotly documents scaleanchor).  The figure is one Plotly
// heatmap trace; the library draws it as an image of the cells with Plotly's own colour bar over
// a transparent carrier, hovers over the cells with the page's hovertemplate, and on an update
// with new numbers swaps the image alone (the bar relabelled only when its rounded range moved,
// an axis moved only when its range did).

/* global Plotly */

import { fixRanges, squareDomains, tidyLogAxes } from "../axes.js";
import { plotState, stateOf } from "../figure.js";
import { plotBox } from "../geometry.js";
import { imageHeatmap, nativeHeatmap, roomForColourBars } from "../heatmap.js";
import { baseLayout, merge, richText, titleText } from "../layout.js";
import { paint, plotConfig, plotlyCopy, same } from "../paint.js";
import { legendItems } from "../chrome.js";
import { annotationsAsLabels, drawnChartTrace, fixedAxisMargins, markLayout, wholeNumberHover, without } from "./chart-rules.js";

const AXIS = /^[xy]axis\d*$/;
const AXIS_MOVES = ["range", "tickvals", "ticktext"];
const IMAGE_MOVES = ["source", "x", "y", "sizex", "sizey"];
const BAR_MOVES = ["tickvals", "ticktext"];

/** The Plotly trace and layout of a heatmap mark (exported for the mark's test). */
export function heatmapFigure(cells, options = {}) {
  const trace = { type: "heatmap", z: cells.z };
  if (cells.x !== undefined) trace.x = cells.x;
  if (cells.y !== undefined) trace.y = cells.y;
  if (cells.scale !== undefined) trace.colorscale = cells.scale;
  for (const key of ["zmin", "zmax", "zauto"]) if (cells[key] !== undefined) trace[key] = cells[key];
  if (cells.bar === false) trace.showscale = false;
  else if (cells.bar !== undefined) trace.colorbar = { title: { text: cells.bar } };
  for (const key of ["hovertemplate", "customdata", "hoverongaps", "name"]) if (cells[key] !== undefined) trace[key] = cells[key];
  const layout = {};
  if (options.title !== undefined) layout.title = { text: options.title };
  layout.xaxis = { ...(options.xaxis || {}) };
  layout.yaxis = { ...(options.yaxis || {}) };
  if (options.square) {
    layout.xaxis.constrain = "domain";
    layout.yaxis = { ...layout.yaxis, scaleanchor: "x", constrain: "domain" };
  }
  if (options.margin) layout.margin = options.margin;
  for (const key of ["shapes", "annotations"]) if (options[key]) layout[key] = options[key];
  return { traces: [trace], layout };
}

/**
 * The Plotly figure of a heatmap mark: each heatmap trace as a layout image of its colour-mapped
 * cells over a carrier trace that shows Plotly's colour bar (heatmap.js); a heatmap that writes
 * text in its cells or leaves gaps between them stays Plotly's own.  Its layout rules: the axes
 * span the cells without tick marks or grid, square cells as computed domains (axes.js
 * squareDomains: Plotly is not asked to keep the ratio), room for the colour bar measured
 * beforehand (heatmap.js roomForColourBars), fixed axis margins, words as HTML labels.
 */
export function heatmapPlotly(el, traces, pageLayout, forExport = false) {
  const { layout, title } = markLayout(el, pageLayout);
  const drawn = [];
  const images = [];
  const heatmaps = [];
  const carriers = [];
  const labels = [];
  // (lines or markers beside the cells, in a figure of the escape hatch: as the chart marks draw them)
  const others = [];
  for (const trace of traces) {
    if (trace.type !== "heatmap") {
      drawn.push(drawnChartTrace(el, trace, layout, labels, forExport));
      others.push(drawn[drawn.length - 1]);
      continue;
    }
    if (trace.texttemplate || trace.xgap || trace.ygap || !Array.isArray(trace.z?.[0])) {
      drawn.push(nativeHeatmap(trace));
      continue;
    }
    const { carrier, image, entry, axisPatch } = imageHeatmap(trace, layout);
    for (const [name, patch] of Object.entries(axisPatch)) layout[name] = merge(layout[name] || {}, patch);
    carriers.push(drawn.length);
    drawn.push(carrier);
    images.push(image);
    heatmaps.push(entry);
  }
  if (!forExport) labels.push(...annotationsAsLabels(layout));
  if (images.length) layout.images = [...(layout.images || []), ...images];
  roomForColourBars(layout, heatmaps, pageLayout, drawn, carriers);
  fixedAxisMargins(layout);
  const axisTitles = forExport ? [] : axisTitlesAsHtml(layout);
  if (others.length) wholeNumberHover(layout, others);
  tidyLogAxes(layout, drawn);
  fixRanges(el, layout, drawn);
  squareDomains(layout);
  return { traces: drawn, layout, title, items: legendItems(traces, pageLayout || {}), heatmaps, carriers, labels, axisTitles, shown: traces };
}

// ---- axis titles as HTML ------------------------------------------------------------------------
//
// Plotly places an axis title (with title.standoff, as every mark's axes have it) beyond the
// measured extent of that axis's tick labels, and measures each label anew whenever it moved (its
// cache is keyed by the label's position): on a move that changes an axis's range, 8 of the
// 14 ms of Plotly's update on /scores (seq_len), most of it forced layouts.  On screen the axis
// titles of a heatmap mark are therefore HTML, placed after each Plotly draw (plotly_afterplot:
// the marks' updates, a resize, the reader's zoom) where Plotly puts them on a fresh draw (its
// updates left them where the first draw did, over labels that grew): beyond the tick labels'
// boxes, read together in one layout, by Plotly's gap (standoff 6 px, its title's font at 1.2
// times the text size, as Plotly's bigFont).  Exports keep Plotly's own titles.  An axis with a
// title Plotly places otherwise (on the top or right side, free, overlaying, without tick labels
// or hidden) keeps Plotly's.

const ASIDE = { x: "bottom", y: "left" };

function axisTitlesAsHtml(layout) {
  const font = layout.font || baseLayout().font;
  const titles = [];
  for (const [key, axis] of Object.entries(layout)) {
    if (!AXIS.test(key) || !axis || typeof axis !== "object") continue;
    const text = titleText(axis.title);
    const letter = key[0];
    if (!text || axis.visible === false || axis.showticklabels === false || axis.anchor === "free" || axis.overlaying) continue;
    if (axis.side && axis.side !== ASIDE[letter]) continue;
    if (axis.ticklabelposition && axis.ticklabelposition.includes("inside")) continue;
    const own = axis.title?.font || {};
    titles.push({
      axis: key,
      id: letter + key.slice(5),
      text,
      size: own.size ?? Math.round(1.2 * (font.size || 12)),
      family: own.family || font.family,
      color: own.color || font.color,
    });
    layout[key] = { ...axis, title: { text: "" } };
  }
  return titles;
}

// Where Plotly puts a title box (measured on the heatmap pages at the text sizes 12, 13 and 23:
// within a pixel):
// an x title's top below the labels' bottom, a y title's right edge left of the labels' left.
const gapBelow = (size) => Math.max(0, 4.5 - 0.175 * size);
const gapLeft = (size) => 6.5 + 0.05 * size;

// What placing `el`'s titles needs, read from the page (one layout at most, shared by every plot
// read in the same round), or null when nothing moved.
function readAxisTitles(el) {
  const state = stateOf(el);
  const titles = state?.held?.axisTitles || [];
  const layer = el.querySelector(":scope > .plot-axis-titles");
  if (!titles.length || !el.layout) return { el, layer, titles: [] };
  // How far the tick labels reach across their axis depends on their texts, font and turn, not on
  // where they stand along it: read from their attributes (no layout), a key that holds when a
  // move only slid the ticks; their boxes are measured only when it changed.
  const ticks = titles.map((title) => [...el.querySelectorAll(`.main-svg g.${title.id}tick > text`)]);
  const box = plotBox(el);
  const domains = titles.map((title) => state.held.layout[title.axis]?.domain || [0, 1]);
  const across = (t) => [t.textContent, t.getAttribute("x"), t.getAttribute("y"), (t.getAttribute("transform") || "").replace(/^translate\([^)]*\)/, ""), t.getAttribute("style")];
  const keys = ticks.map((texts) => JSON.stringify([box, texts.map(across)]));
  const key = JSON.stringify([titles, box, domains, keys, el.layout.height]);
  if (layer && state.titlesKey === key) return null;
  const placed = (state.titlesPlaced ||= new Map());
  let origin = null;
  const extents = ticks.map((texts, i) => {
    const known = placed.get(titles[i].axis);
    if (known && known.key === keys[i]) return known.extent;
    const reach = reachOf(texts);
    if (reach !== undefined) {
      placed.set(titles[i].axis, { key: keys[i], extent: reach });
      return reach;
    }
    if (!origin) {
      // (from the plot's padding box, where Plotly's picture and the titles' layer start)
      const outer = el.getBoundingClientRect();
      origin = { left: outer.left + el.clientLeft, top: outer.top + el.clientTop };
    }
    const boxes = texts.map((t) => t.getBoundingClientRect()).filter((r) => r.width > 0 && r.height > 0);
    const extent = boxes.length ? { left: Math.min(...boxes.map((r) => r.left)) - origin.left, bottom: Math.max(...boxes.map((r) => r.bottom)) - origin.top } : null;
    placed.set(titles[i].axis, { key: keys[i], extent });
    return extent;
  });
  return { el, layer, titles, box, domains, extents, key };
}

// The tick labels' reach from their attributes and their font's metrics (a canvas measures the
// text as the SVG sets it), without laying the page out: the measuring after Plotly's draw would
// lay out the page then and again after the titles' writes, where the frame lays it out once.
// Undefined where a label is more than one plain line at a translation (a superscript, a line
// break, a turned label): those boxes are measured.
const TRANSLATE = /^\s*translate\(\s*(-?[\d.]+(?:e[-+]?\d+)?)(?:[\s,]+(-?[\d.]+(?:e[-+]?\d+)?))?\s*\)\s*$/;
let metrics = null;

function reachOf(texts) {
  let left = Infinity;
  let bottom = -Infinity;
  for (const t of texts) {
    if (t.style.display === "none" || !t.textContent) continue;
    if (t.childElementCount) return undefined;
    const moved = TRANSLATE.exec(t.getAttribute("transform") || "translate(0,0)");
    const size = t.style.fontSize;
    if (!moved || !size.endsWith("px") || !t.style.fontFamily) return undefined;
    metrics ||= document.createElement("canvas").getContext("2d");
    metrics.font = `${t.style.fontWeight || "normal"} ${size} ${t.style.fontFamily}`;
    const measured = metrics.measureText(t.textContent);
    const x = Number(t.getAttribute("x") || 0) + Number(moved[1]);
    const y = Number(t.getAttribute("y") || 0) + Number(moved[2] || 0);
    const anchor = t.getAttribute("text-anchor") || "start";
    left = Math.min(left, anchor === "end" ? x - measured.width : anchor === "middle" ? x - measured.width / 2 : x);
    bottom = Math.max(bottom, y + measured.fontBoundingBoxDescent);
  }
  return Number.isFinite(left) ? { left, bottom } : null;
}

function writeAxisTitles({ el, layer, titles, box, domains, extents, key }) {
  if (!titles.length) {
    layer?.remove();
    return;
  }
  const state = stateOf(el);
  if (!layer) {
    layer = document.createElement("div");
    layer.className = "plot-axis-titles";
    layer.setAttribute("aria-hidden", "true");
    Object.assign(layer.style, { position: "absolute", left: "0", top: "0", width: "0", height: "0", pointerEvents: "none" });
    el.appendChild(layer);
  }
  const heights = (state.titleHeights ||= new Map());
  const spans = [...layer.children];
  spans.slice(titles.length).forEach((span) => span.remove());
  titles.forEach((title, i) => {
    const span = spans[i] || layer.appendChild(document.createElement("span"));
    const html = richText(title.text);
    if (span.innerHTML !== html) span.innerHTML = html;
    Object.assign(span.style, { position: "absolute", left: "0", top: "0", whiteSpace: "nowrap", lineHeight: "normal", fontFamily: title.family, fontSize: `${title.size}px`, color: title.color || "" });
    const domain = domains[i];
    const extent = extents[i];
    span.hidden = !extent;
    if (!extent) return;
    // (as Plotly, a title that would leave the picture stays at its edge; its box read only then, once)
    const near = 2.5 * title.size;
    const height = () => {
      const which = JSON.stringify([title.text, title.size, title.family]);
      if (!heights.has(which)) heights.set(which, span.offsetHeight);
      return heights.get(which);
    };
    if (title.id[0] === "x") {
      const centre = box.l + box.w * ((domain[0] + domain[1]) / 2);
      let top = extent.bottom + gapBelow(title.size);
      if (top > el.layout.height - near) top = Math.min(top, el.layout.height - height());
      span.style.transformOrigin = "";
      span.style.transform = `translate(${centre.toFixed(1)}px, ${top.toFixed(1)}px) translate(-50%, 0)`;
    } else {
      // turned a quarter left about the middle of its bottom edge, which becomes its right edge
      const middle = box.t + box.h * (1 - (domain[0] + domain[1]) / 2);
      let right = extent.left - gapLeft(title.size);
      if (right < near) right = Math.max(right, height());
      span.style.transformOrigin = "50% 100%";
      span.style.transform = `translate(${right.toFixed(1)}px, ${middle.toFixed(1)}px) translate(-50%, -100%) rotate(-90deg)`;
    }
  });
  state.titlesKey = key;
}

// The plots drawn in one task (a page's draw() updates them one after another) are read together,
// then written together: one layout for all, and no title written between two Plotly draws (where
// it would make Plotly's own measuring lay the page out again).
const titlesDue = new Set();

function placeAxisTitles(el) {
  if (!titlesDue.size) {
    queueMicrotask(() => {
      const due = [...titlesDue];
      titlesDue.clear();
      due.map(readAxisTitles).filter(Boolean).forEach(writeAxisTitles);
    });
  }
  titlesDue.add(el);
}

/** Plotly.react for a heatmap mark's figure, its HTML axis titles placed after every Plotly draw. */
export function heatmapReact(el, figure) {
  const given = plotlyCopy(figure);
  // (Plotly writes into a colour bar it is given, y: 0.5 beside a given x: the carriers' bars are
  // copied too, so that the next update compares with the bar as built)
  given.traces = given.traces.map((trace) => (trace.colorbar ? { ...trace, colorbar: structuredClone(trace.colorbar) } : trace));
  return Plotly.react(el, given.traces, given.layout, plotConfig()).then((gd) => {
    const state = plotState(el);
    if (!state.titlesFollow && el.on) {
      state.titlesFollow = true;
      el.on("plotly_afterplot", () => placeAxisTitles(el));
    }
    placeAxisTitles(el);
    return gd;
  });
}

// The figure with what the cheap update may change taken out: the images' sources and extents,
// the axes' ranges and category ticks, the colour bars' ticks.
function frame(figure) {
  const layout = { ...figure.layout };
  for (const [key, value] of Object.entries(layout)) if (AXIS.test(key) && value) layout[key] = without(value, AXIS_MOVES);
  if (layout.images) layout.images = layout.images.map((image) => without(image, IMAGE_MOVES));
  const traces = figure.traces.map((trace, i) => (figure.carriers.includes(i) && trace.colorbar ? { ...trace, colorbar: without(trace.colorbar, BAR_MOVES) } : trace));
  return { traces, layout, axisTitles: figure.axisTitles };
}

/**
 * The heatmap's cheap update: where only the numbers (or the grid's size, or its labels)
 * changed, the image is swapped, an axis moved only where its range or ticks changed, a colour
 * bar relabelled only where its rounded range did (1–10 ms where react lays the whole plot out
 * again).  Null when anything else changed.
 */
export function heatmapUpdate(el, figure, held) {
  if (!figure.heatmaps.length || !held.carriers || !same(figure.carriers, held.carriers) || !same(frame(figure), frame(held))) return null;
  const zoomed = stateOf(el)?.zoomed;
  const axisUpdate = {};
  for (const [key, value] of Object.entries(figure.layout)) {
    if (!AXIS.test(key) || !value) continue;
    for (const attr of AXIS_MOVES) {
      if (attr === "range" && zoomed?.has(key)) continue;
      if (value[attr] !== undefined && !same(value[attr], held.layout[key]?.[attr])) axisUpdate[`${key}.${attr}`] = Array.isArray(value[attr]) ? [...value[attr]] : value[attr];
    }
  }
  const imageUpdate = {};
  figure.layout.images.forEach((image, i) => {
    for (const attr of IMAGE_MOVES) if (image[attr] !== held.layout.images[i][attr]) imageUpdate[`images[${i}].${attr}`] = image[attr];
  });
  const bars = figure.carriers.filter((i) => figure.traces[i].colorbar && !BAR_MOVES.every((attr) => same(figure.traces[i].colorbar[attr], held.traces[i].colorbar?.[attr])));
  const traceUpdate = {};
  for (const attr of BAR_MOVES) if (bars.length) traceUpdate[`colorbar.${attr}`] = bars.map((i) => figure.traces[i].colorbar[attr]);
  const axes = Object.keys(axisUpdate).length > 0;
  const images = Object.keys(imageUpdate).length > 0;
  if (!bars.length && !axes && !images) return Promise.resolve(el);
  // A relabelled colour bar is a restyle, and every restyle runs Plotly's defaults pass over the
  // whole figure: the images and axes go with it, in one Plotly.update.
  if (bars.length) return axes || images ? Plotly.update(el, traceUpdate, { ...axisUpdate, ...imageUpdate }, bars) : Plotly.restyle(el, traceUpdate, bars);
  // Otherwise each goes by Plotly's own short path: the images alone relaid are drawn at once
  // without the defaults pass, and so are axes whose ranges alone moved (a relayout that holds
  // both runs the pass: 4–8 ms on /learned and /transformer-xl).  An axis the mark moves is
  // counted in state.moving, so that the zoom listener (paint.js) does not take it for the reader's.
  const moves = [];
  if (images) moves.push(Plotly.relayout(el, imageUpdate));
  if (axes) {
    const state = plotState(el);
    state.moving = (state.moving || 0) + 1;
    const settle = () => { state.moving -= 1; };
    const moved = Plotly.relayout(el, axisUpdate);
    moved.then(settle, settle);
    moves.push(moved);
  }
  return Promise.all(moves).then(() => el);
}

/** Draw or update a heatmap mark on `el` (an element or its id). */
export function heatmap(el, cells, options = {}) {
  const node = typeof el === "string" ? document.getElementById(el) : el;
  if (!node) return Promise.resolve(null);
  const { traces, layout } = heatmapFigure(cells, options);
  return paint(node, {
    mark: "heatmap",
    asked: { traces, layout },
    build: (target, forExport) => heatmapPlotly(target, traces, layout, forExport),
    update: heatmapUpdate,
    react: heatmapReact,
  });
}
