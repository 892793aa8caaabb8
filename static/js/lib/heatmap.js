import { axisName, categoryTicks } from "./axes.js";
import { axisMap, plotBox } from "./geometry.js";
import { LUT_SIZE, MISSING_RGB, SEQUENTIAL, colourRange, lookupTable, niceStep, plotlyScale } from "./colours.js";
import { plotState } from "./figure.js";
import { pick, placeTip, tipOf } from "./hover.js";
import { isPresenter, merge, richText, textSize, textWidth, titleText } from "./layout.js";
import { formatNumber } from "./numbers.js";

// ---- heatmaps as images ---------------------------------------------------------------------------

/** Cell edges from cell centres (midpoints; the outer edges half a cell out), as Plotly places them. */
function edgesOf(centres) {
  const n = centres.length;
  if (n === 1) return [centres[0] - 0.5, centres[0] + 0.5];
  const edges = new Array(n + 1);
  for (let i = 1; i < n; i++) edges[i] = (centres[i - 1] + centres[i]) / 2;
  edges[0] = centres[0] - (centres[1] - centres[0]) / 2;
  edges[n] = centres[n - 1] + (centres[n - 1] - centres[n - 2]) / 2;
  return edges;
}

function numericCoords(values, n) {
  if (!values || values.length !== n || values.some((v) => typeof v !== "number")) {
    return { centres: Array.from({ length: n }, (_, i) => i), categories: values && values.length === n ? [...values] : null };
  }
  return { centres: [...values], categories: null };
}

function uniform(edges) {
  const width = edges[1] - edges[0];
  return edges.every((edge, i) => Math.abs(edge - (edges[0] + i * width)) <= 1e-9 * Math.max(1, Math.abs(edge)));
}

// Image columns (rows) → cell index.  Uniform cells: one pixel per cell.  Cells of unequal width
// (a shorter last block): the image has several pixels per cell, each pixel taking the cell that
// covers its centre, so every cell keeps its true extent on the axis.
function pixelCells(edges) {
  const cells = edges.length - 1;
  if (uniform(edges)) return Int32Array.from({ length: cells }, (_, i) => i);
  const pixels = Math.min(8192, cells * 8);
  const out = new Int32Array(pixels);
  const lo = Math.min(edges[0], edges[cells]);
  const span = Math.abs(edges[cells] - edges[0]);
  const ascending = edges[cells] > edges[0];
  let cell = 0;
  for (let p = 0; p < pixels; p++) {
    const x = lo + ((p + 0.5) / pixels) * span;
    const v = ascending ? x : edges[0] - (x - lo);
    while (cell < cells - 1 && (ascending ? v >= edges[cell + 1] : v <= edges[cell + 1])) cell++;
    out[p] = cell;
  }
  return out;
}

const BMP_HEADER_BYTES = 54;

/** An uncompressed 32-bit BMP of the colour-mapped cells (top row first), and its pixels. */
export function heatmapBitmap(z, colour, cols, rows) {
  const width = cols.length;
  const bytes = bmpWithHeader(width, rows.length);
  const lut = lookupTable(colour.scale);
  const rowColours = new Uint8Array(z[0] ? z[0].length * 4 : 0);
  let offset = BMP_HEADER_BYTES;
  let lastRow = -1;
  for (const cellRow of rows) {
    // Consecutive pixel rows of one cell row (unequal cells) reuse its colours.
    if (cellRow !== lastRow) colourRow(z[cellRow], colour, lut, rowColours);
    lastRow = cellRow;
    for (let p = 0; p < width; p++) {
      const c = 4 * cols[p];
      bytes[offset++] = rowColours[c];
      bytes[offset++] = rowColours[c + 1];
      bytes[offset++] = rowColours[c + 2];
      bytes[offset++] = 255;
    }
  }
  return bytes;
}

/** The bytes of a width × height 32-bit BMP, its header written, its pixels still zero. */
function bmpWithHeader(width, height) {
  const bytes = new Uint8Array(BMP_HEADER_BYTES + width * height * 4);
  const view = new DataView(bytes.buffer);
  view.setUint8(0, 0x42); // "BM"
  view.setUint8(1, 0x4d);
  view.setUint32(2, bytes.length, true);
  view.setUint32(10, BMP_HEADER_BYTES, true);
  view.setUint32(14, 40, true); // BITMAPINFOHEADER
  view.setInt32(18, width, true);
  view.setInt32(22, -height, true); // negative: rows top-down
  view.setUint16(26, 1, true);
  view.setUint16(28, 32, true);
  view.setUint32(30, 0, true); // BI_RGB
  view.setUint32(34, width * height * 4, true);
  return bytes;
}

const MISSING = Uint8Array.from(MISSING_RGB);

/** Each value of one cell row as a BMP pixel (blue, green, red, 255) into `out`; missing ones grey. */
function colourRow(values, colour, lut, out) {
  const span = colour.zmax - colour.zmin || 1;
  for (let c = 0; c < values.length; c++) {
    const v = values[c];
    let rgb = MISSING;
    let k = 0;
    if (v !== null && Number.isFinite(v)) {
      const i = Math.round(((v - colour.zmin) / span) * (LUT_SIZE - 1));
      k = 3 * (i < 0 ? 0 : i >= LUT_SIZE ? LUT_SIZE - 1 : i);
      rgb = lut;
    }
    out[4 * c] = rgb[k + 2]; // BMP stores blue, green, red
    out[4 * c + 1] = rgb[k + 1];
    out[4 * c + 2] = rgb[k];
    out[4 * c + 3] = 255;
  }
}

/** Where the image of a heatmap trace lies: its cells' edges and which way each axis runs. */
function geometry(trace, layout) {
  const rowsN = trace.z.length;
  const colsN = rowsN ? trace.z[0].length : 0;
  const xs = numericCoords(trace.x, colsN);
  const ys = numericCoords(trace.y, rowsN);
  const xAxis = layout[axisName(trace.xaxis, "x")] || {};
  const yAxis = layout[axisName(trace.yaxis, "y")] || {};
  // The image is drawn top row first: the row at the top of the screen is the largest y unless the
  // y axis is reversed (its range given high to low, or autorange "reversed").
  const reversed = (axisLayout) => axisLayout.autorange === "reversed" || (Array.isArray(axisLayout.range) && axisLayout.range[0] > axisLayout.range[1]);
  const xEdges = edgesOf(xs.centres);
  const yEdges = edgesOf(ys.centres);
  const span = (edges) => [Math.min(edges[0], edges[edges.length - 1]), Math.max(edges[0], edges[edges.length - 1])];
  return {
    rowsN, colsN, xs, ys, xEdges, yEdges,
    xReversed: reversed(xAxis), yReversed: reversed(yAxis),
    xGiven: Array.isArray(xAxis.range), yGiven: Array.isArray(yAxis.range),
    xType: xAxis.type, yType: yAxis.type,
    xSpan: span(xEdges), ySpan: span(yEdges),
  };
}

/** The colour-mapped cells as a BMP, one pixel per cell (several where cells are unequal). */
function pixels(trace, g, colour) {
  const yTopFirst = g.yReversed ? g.yEdges : [...g.yEdges].reverse();
  const xLeftFirst = g.xReversed ? [...g.xEdges].reverse() : g.xEdges;
  const colsIndex = pixelCells(xLeftFirst).map((cell) => (g.xReversed ? g.colsN - 1 - cell : cell));
  const rowsIndex = pixelCells(yTopFirst).map((cell) => (g.yReversed ? cell : g.rowsN - 1 - cell));
  return { colsIndex, rowsIndex, bitmap: heatmapBitmap(trace.z, colour, colsIndex, rowsIndex) };
}

/** The layout image that shows the cells, stretched over their extent on the trace's axes. */
function imageOf(trace, g, source) {
  const [xLo, xHi] = g.xSpan;
  const [yLo, yHi] = g.ySpan;
  return {
    source,
    xref: trace.xaxis || "x",
    yref: trace.yaxis || "y",
    x: g.xReversed ? xHi : xLo,
    y: g.yReversed ? yLo : yHi,
    sizex: xHi - xLo,
    sizey: yHi - yLo,
    xanchor: "left",
    yanchor: "top",
    sizing: "stretch",
    layer: "above",
  };
}

/** The axes span the cells, in the direction the page asked for (unless it gave a range itself). */
function axesOf(trace, g) {
  const one = (given, [lo, hi], reversed, categories) => ({
    ...(given ? {} : { range: reversed ? [hi, lo] : [lo, hi] }),
    ticks: "", // (Plotly would add tick marks beside a heatmap, pushing the labels onto the axis title)
    autorange: false,
    showgrid: false,
    ...(categories ? categoryTicks(categories) : {}),
  });
  return {
    [axisName(trace.xaxis, "x")]: one(g.xGiven, g.xSpan, g.xReversed, g.xs.categories),
    [axisName(trace.yaxis, "y")]: one(g.yGiven, g.ySpan, g.yReversed, g.ys.categories),
  };
}

// (a log axis has no 0)
const CARRIER_AT = { linear: [0, 1], log: [1, 10] };
// The colour bar's carrier lies far beyond any range an axis is given (the library sets every
// range of an image heatmap's axes, axesOf): Plotly skips a heatmap wholly off the plot, where at
// [0, 1] it painted the transparent carrier into a canvas and an image again on every move of the
// axes (1.6 ms a seq_len move on /scores).  (Positive, for a log axis.  The marker pair stays
// inside: Plotly would write a marker's far position into its SVG, which refuses it.)
const BAR_CARRIER_AT = [1e300, 2e300];

/**
 * The trace Plotly gets in the image's place, showing nothing of its own.  With a colour bar it is
 * a transparent 2 × 2 heatmap of the image's lowest and highest value, on the image's scale, so
 * that Plotly draws and lays out the colour bar, its ticks and its title; without one, an invisible
 * marker pair.  It sits at the same two points (CARRIER_AT, BAR_CARRIER_AT) whatever the grid: the axes' ranges
 * come from the library (axesOf), never from Plotly's autoscale, and a trace whose x or y changed
 * is a recalculation of the whole plot (12–15 ms on /relative's length sliders), where a grid of
 * a new size is otherwise the heatmap mark's cheap update (marks/heatmap.js).
 */
function carrierOf(trace, g, colour, layout) {
  const at = (type) => [...(CARRIER_AT[type] || CARRIER_AT.linear)];
  const base = { x: at(g.xType), y: at(g.yType), xaxis: trace.xaxis, yaxis: trace.yaxis, hoverinfo: "skip", showlegend: false };
  if (trace.showscale === false) return { ...base, type: "scatter", mode: "markers", marker: { size: 1, opacity: 0, color: "#000" } };
  Object.assign(base, { x: [...BAR_CARRIER_AT], y: [...BAR_CARRIER_AT] });
  // Plotly recalculates and redraws the whole plot when a heatmap's zmin or zmax changes (12–16 ms
  // here on /scores) but only the colour bar when its tick labels do (4–6 ms): so the carrier keeps
  // the range 0 … 1 and the bar's ticks carry the values, placed where they fall in the range.
  // as many ticks as the bar's length holds at the figure's text size (a label and some space)
  const margin = layout.margin || {};
  const length = (trace.colorbar?.len ?? 1) * ((layout.height || 420) - (margin.t || 0) - (margin.b || 0));
  const { ticks, step } = barTicks(colour.zmin, colour.zmax, Math.max(2, Math.min(6, Math.floor(length / (1.6 * (layout.font?.size || 13))))));
  const span = colour.zmax - colour.zmin || 1;
  return {
    ...base,
    type: "heatmap",
    name: trace.name,
    z: [[0, 1], [1, 0]],
    opacity: 0,
    zmin: 0,
    zmax: 1,
    zauto: false,
    colorscale: plotlyScale(colour.scale),
    showscale: true,
    // (ticklabeloverflow: as on the axes, marks/chart-rules.js fixedAxisMargins)
    colorbar: merge(
      { thickness: isPresenter() ? 24 : 14, len: 1, outlinewidth: 0, ticklabelposition: "outside bottom", ticklabeloverflow: "allow", title: { side: "top" } },
      { ...(trace.colorbar || {}), tickmode: "array", tickvals: ticks.map((v) => (v - colour.zmin) / span), ticktext: ticks.map((v) => tickLabel(v, step)) },
    ),
  };
}

/** Round values inside [lo, hi] for a colour bar, at most `most` of them, as Plotly would choose. */
function barTicks(lo, hi, most) {
  let step = niceStep((hi - lo) / (most - 1));
  // niceStep rounds up, so this is at most `most` ticks unless the ends fall on them; then one step more
  if (Math.floor(hi / step + 1e-9) - Math.ceil(lo / step - 1e-9) + 1 > most) step = niceStep(step * 1.01);
  const within = (size) => {
    const found = [];
    for (let k = Math.ceil(lo / size - 1e-9); k * size <= hi + size * 1e-9; k++) found.push(Number((k * size).toPrecision(12)));
    return found;
  };
  let ticks = within(step);
  // at least two numbers, so that the bar says its range
  while (ticks.length < 2 && step > (hi - lo) * 1e-6) ticks = within((step = niceStep(step / 2.01)));
  return { ticks, step };
}

// As Plotly writes a tick: no more decimals than the step needs, no trailing zeros, a true minus sign.
function tickLabel(value, step) {
  const decimals = Math.max(0, Math.ceil(-Math.log10(step) - 1e-9) + (Number((step / 10 ** Math.floor(Math.log10(step))).toPrecision(3)) === 2.5 ? 1 : 0));
  const rounded = Number(value.toFixed(decimals)) || 0; // no "−0"
  const text = Math.abs(rounded) >= 1e4 ? rounded.toLocaleString("en-US") : String(rounded);
  return text.replace("-", "\u2212");
}

/** What hover and the tests read of an image heatmap: its numbers and how they were drawn. */
function entryOf(trace, g, colour, drawn, source) {
  return {
    z: trace.z,
    x: trace.x ? [...trace.x] : g.xs.centres,
    y: trace.y ? [...trace.y] : g.ys.centres,
    xEdges: g.xEdges,
    yEdges: g.yEdges,
    xCategories: g.xs.categories,
    yCategories: g.ys.categories,
    xaxis: trace.xaxis || "x",
    yaxis: trace.yaxis || "y",
    hovertemplate: trace.hovertemplate || "x %{x}<br>y %{y}<br>%{z}<extra></extra>",
    customdata: trace.customdata,
    text: trace.text,
    name: trace.name,
    colour,
    colourBar: trace.showscale !== false,
    colourBarX: trace.colorbar?.x ?? 1.02, // (a page may place the bar between panels)
    bitmap: drawn.bitmap,
    source,
    width: drawn.colsIndex.length,
    height: drawn.rowsIndex.length,
    colsIndex: drawn.colsIndex,
    rowsIndex: drawn.rowsIndex,
  };
}

/**
 * A heatmap trace as an image of its cells (a layout image) and a carrier trace for Plotly (the
 * axes' extent, the colour bar).  Returns {carrier, image, entry, axisPatch}.
 */
export function imageHeatmap(trace, layout) {
  const g = geometry(trace, layout);
  const colour = colourRange(trace.z, trace.colorscale || SEQUENTIAL, trace.zmin, trace.zmax, trace.zauto === false);
  const drawn = pixels(trace, g, colour);
  const source = URL.createObjectURL(new Blob([drawn.bitmap], { type: "image/bmp" }));
  return {
    carrier: carrierOf(trace, g, colour, layout),
    image: imageOf(trace, g, source),
    entry: entryOf(trace, g, colour, drawn, source),
    axisPatch: axesOf(trace, g),
  };
}

// Room on the right for the image heatmaps' colour bars at the plot's right edge, from the start,
// measured as Plotly lays a bar out: its offset from the plot (the bar's x beyond 1), a pad, then
// the wider of its title (at 1.2 times the text size, as Plotly writes titles) and the bar with its
// tick labels beside it, and a pad.  The labels get
// the room of five characters ("−0.25") at least, so that most moves keep the margin: a new margin
// is a new layout of the whole plot (Plotly.react), where new tick labels alone are the heatmap
// mark's cheap update (marks/heatmap.js).  Where these are the only colour bars, Plotly is told not to
// push the margin out itself (autoexpand): it would measure each bar after drawing it and, when
// its labels' width changed, lay the whole plot out a second time (a relabelled bar 27 ms instead
// of 7 on /conventions).  Other colour bars (markers', labelled heatmaps') keep Plotly's push.
const BAR_LABEL_AT_LEAST = "\u22120.25";
const BAR_PAD = 10; // Plotly's colorbar.xpad
const BAR_TICK_GAP = 6; // between the bar and its labels (3–5 px drawn)
const BAR_SLACK = 6;

export function roomForColourBars(layout, heatmaps, pageLayout, drawn, carriers) {
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

// Labelled cells (words, names) sit at 0, 1, 2 … on a linear axis that shows their labels.
export function nativeHeatmap(trace) {
  if (Array.isArray(trace.colorscale)) return trace;
  const colour = colourRange(trace.z, trace.colorscale || SEQUENTIAL, trace.zmin, trace.zmax, trace.zauto === false);
  return { ...trace, colorscale: plotlyScale(colour.scale), zmin: colour.zmin, zmax: colour.zmax, zauto: false, reversescale: false };
}

function hoverText(entry, i, j) {
  const values = {
    x: entry.xCategories ? entry.xCategories[j] : entry.x[j],
    y: entry.yCategories ? entry.yCategories[i] : entry.y[i],
    z: entry.z[i][j],
    customdata: pick(entry.customdata, i, j),
    text: pick(entry.text, i, j),
  };
  return entry.hovertemplate
    .replace(/<extra>.*?<\/extra>/g, "")
    .replace(/%\{(\w+)(?::([^}]*))?\}/g, (_, name, spec) => (name in values ? formatNumber(values[name], spec) : ""));
}

function cellAt(edges, value) {
  const n = edges.length - 1;
  const ascending = edges[n] > edges[0];
  if (ascending ? value < edges[0] || value > edges[n] : value > edges[0] || value < edges[n]) return -1;
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ascending ? edges[mid] <= value : edges[mid] >= value) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export function attachHover(el) {
  const state = plotState(el);
  if (state.hover) return;
  state.hover = true;
  el.addEventListener("mousemove", (event) => {
    const entries = state.heatmaps || [];
    if (!entries.length || !el.layout) return;
    const plot = plotBox(el);
    const box = el.getBoundingClientRect();
    const px = event.clientX - box.left;
    const py = event.clientY - box.top;
    for (const entry of entries) {
      const xa = axisMap(el, entry.xaxis, "x", plot);
      const ya = axisMap(el, entry.yaxis, "y", plot);
      if (!xa || !ya) continue;
      const xv = xa.toValue(px);
      const yv = ya.toValue(py);
      const j = cellAt(entry.xEdges, xv);
      const i = cellAt(entry.yEdges, yv);
      if (i < 0 || j < 0) continue;
      const tip = tipOf(el);
      tip.innerHTML = richText(hoverText(entry, i, j));
      tip.hidden = false;
      placeTip(el, tip, px, py);
      return;
    }
    tipOf(el).hidden = true; // off every image (a line in another panel has Plotly's own label)
  });
  el.addEventListener("mouseleave", () => {
    tipOf(el).hidden = true;
  });
}
