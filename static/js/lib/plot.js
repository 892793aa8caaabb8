// The drawing paths shared by every page: lines and markers through Plotly.react, heatmaps as
// images, titles and legends as HTML beside the plot, one layout style, exports that put the
// title and the legend back into the picture.
//
// Why not plain Plotly for everything:
// - A Plotly heatmap maps every cell through a d3 colour scale and encodes a PNG synchronously
//   on each redraw (~100 ms at 512 × 512 here).  Here the page's own numbers are colour-mapped
//   through a lookup table into an uncompressed BMP (no encoding), shown as a layout image; when
//   only the numbers change, swapping that image is the whole redraw (Plotly.relayout of
//   images[k].source).  Hover reads the same numbers (the image has no hover of its own).
// - Titles and legends drawn by Plotly sit inside a fixed-size SVG: on a phone they are cut, on a
//   projector a long legend covers the data.  As HTML next to the plot they wrap and scale with the
//   page, and they cost the redraw nothing.
// - Sizes are explicit (the container's box, followed with a ResizeObserver) and margins fixed, so
//   no redraw pays for Plotly's autosize reflow or automargin passes.

/* global Plotly */

// Okabe–Ito: distinguishable for the common forms of colour blindness.
export const COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"];
// Signed values (scores, sines).  The scale is chosen from the data: blue–white–red centred on 0
// when the values straddle 0, one half of it (white to red, or blue to white) when they do not.
export const DIVERGING = "signed";
// Magnitudes: sequential and perceptually uniform.
export const SEQUENTIAL = "Cividis";

// ColorBrewer RdBu (11 classes, as plotly.py's plotly.colors.diverging.RdBu), blue for negative.
const RDBU = [
  [5, 48, 97], [33, 102, 172], [67, 147, 195], [146, 197, 222], [209, 229, 240], [247, 247, 247],
  [253, 219, 199], [244, 165, 130], [214, 96, 77], [178, 24, 43], [103, 0, 31],
];
// Cividis (as plotly.py's plotly.colors.sequential.Cividis).
const CIVIDIS = [
  [0, 34, 78], [18, 53, 112], [59, 73, 108], [87, 93, 109], [112, 113, 115], [138, 134, 120],
  [165, 156, 116], [195, 179, 105], [225, 204, 85], [254, 232, 56],
];
const SCALES = {
  diverging: RDBU,
  positive: RDBU.slice(5), // white → red
  negative: RDBU.slice(0, 6), // blue → white
  Cividis: CIVIDIS,
};
// Cells without a value (a causal mask, NaN): drawn light grey, and said so on hover.
const MISSING_RGB = [222, 222, 226];

/** True on a presenter page (?presenter=true): larger type and marks for a projector. */
export function isPresenter() {
  return document.body.classList.contains("presenter");
}

/** `normal` on a screen, `presenter` on a presenter page: the one place pages ask for a size. */
export function sized(normal, presenter) {
  return isPresenter() ? presenter : normal;
}

function isNarrow() {
  return window.innerWidth < 560;
}

/** True when the plot is too narrow for panels side by side (a phone). */
export function isNarrowPlot(el) {
  if (typeof el === "string") el = document.getElementById(el);
  return Boolean(el) && el.clientWidth < 600;
}

/**
 * The axes and captions of two square panels from panelGrid: side by side, or one above the other
 * on a phone.  `square(domain, anchor)` gives one axis (anchor: the axis it is scaled to); each
 * caption sits centred under its panel, or over it with `captionAt: "top"`.
 */
export function squarePanels(grid, square, captions, { captionAt = "bottom" } = {}) {
  const top = captionAt === "top";
  return {
    xaxis: { ...square(grid.stacked ? [0, 1] : grid.x[0]), anchor: "y" },
    yaxis: { ...square(grid.y[0], "x"), anchor: "x" },
    xaxis2: { ...square(grid.stacked ? [0, 1] : grid.x[1]), anchor: "y2" },
    yaxis2: { ...square(grid.y[1], "x2"), anchor: "x2" },
    annotations: captions.map((text, i) => ({
      text,
      x: grid.stacked ? 0.5 : (grid.x[i][0] + grid.x[i][1]) / 2,
      y: top ? grid.y[i][1] : grid.y[i][0],
      xref: "paper",
      yref: "paper",
      yanchor: top ? "bottom" : "top",
      showarrow: false,
    })),
  };
}

/**
 * Domains for `count` square panels of one figure: side by side on a wide plot, stacked (and the
 * plot made tall enough for them) on a narrow one, or when a panel would be narrower than
 * `minPanelWidth` pixels.  Returns {stacked, x: [domain…], y: [domain…]}.
 */
export function panelGrid(el, count, gap = 0.1, minPanelWidth = 300) {
  if (typeof el === "string") el = document.getElementById(el);
  const stacked = count > 1 && (isNarrowPlot(el) || el.clientWidth / count < minPanelWidth);
  el.classList.toggle("plot-stacked", stacked);
  el.style.height = stacked ? `${Math.round(el.clientWidth * 0.92 * count + 60)}px` : "";
  const share = (i) => [i / count + (i ? gap / 2 : 0), (i + 1) / count - (i < count - 1 ? gap / 2 : 0)];
  return {
    stacked,
    x: Array.from({ length: count }, (_, i) => (stacked ? [0, 0.86] : share(i))),
    y: Array.from({ length: count }, (_, i) => (stacked ? share(count - 1 - i) : [0, 1])),
  };
}

export function lineWidth(base = 2) {
  return isPresenter() ? base * 2 : base;
}

function fontSize() {
  // On a projector 23 px, so that even exponents and subscripts (drawn at 70%) stay at 16 px.
  if (isPresenter()) return 23;
  return isNarrow() ? 12 : 13;
}

export function baseLayout() {
  const presenter = isPresenter();
  const size = fontSize();
  return {
    font: { family: "system-ui, -apple-system, 'Segoe UI', Roboto, 'Liberation Sans', sans-serif", size, color: presenter ? "#000" : "#222" },
    // Fixed margins: room for tick labels (powers of ten included) and the axis title.
    margin: { l: Math.round(size * 5.2 + 8), r: Math.round(size * 1.5 + 8), t: Math.round(size * 1.2 + 6), b: Math.round(size * 3.8 + 8) },
    paper_bgcolor: "#fff",
    plot_bgcolor: "#fff",
    colorway: COLORS,
    hovermode: "closest",
    hoverlabel: { font: { size } },
    showlegend: false,
    // Keep the user's zoom across updates of the same view.
    uirevision: "keep",
  };
}

// ---- small helpers --------------------------------------------------------------------------

function merge(base, extra) {
  const out = { ...base };
  for (const [key, value] of Object.entries(extra || {})) {
    out[key] = value && typeof value === "object" && !Array.isArray(value) && base[key] && typeof base[key] === "object" && !Array.isArray(base[key])
      ? merge(base[key], value)
      : value;
  }
  return out;
}

// The markup Plotly accepts in text (and that our titles use): <sub>, <sup>, <b>, <i>, <em>,
// <br>.  Anything else is shown as text, so a word typed by the reader can never become markup.
const ALLOWED_TAGS = /^<\/?(sub|sup|b|i|em)>$|^<br\s*\/?>$/i;

export function richText(text) {
  const parts = String(text ?? "").split(/(<[^>]*>)/);
  return parts
    .map((part) => {
      if (ALLOWED_TAGS.test(part)) return part.toLowerCase().startsWith("<br") ? "<br>" : part.toLowerCase();
      return part.replace(/&(?![a-z]+;|#\d+;)/gi, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    })
    .join("");
}

function titleText(title) {
  if (!title) return "";
  return typeof title === "string" ? title : title.text || "";
}

/** Nice round number ≥ value (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10^k). */
function niceCeil(value) {
  if (!(value > 0) || !Number.isFinite(value)) return value;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const m of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (m * power >= value * (1 - 1e-12)) return m * power;
  return 10 * power;
}

function niceStep(span) {
  if (!(span > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(span));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * power >= span) return m * power;
  return 10 * power;
}

function extent(z) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const row of z) {
    for (const v of row) {
      if (v === null || !Number.isFinite(v)) continue;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  return [lo, hi];
}

/**
 * The colour scale and range for a heatmap of `z`: the page asks for DIVERGING (signed values)
 * or a named sequential scale; the range comes from the data, rounded outward a little so that
 * small changes of the data do not move the colour bar on every redraw.
 */
export function colourRange(z, scale, zmin, zmax, fixed = false) {
  // zauto: false (Plotly's own attribute) keeps the page's range as it is: a deliberate clip, or a
  // quantity with natural limits (a cosine).
  if (fixed && Number.isFinite(zmin) && Number.isFinite(zmax)) {
    if (scale !== DIVERGING) return { scale: SCALES[scale] || CIVIDIS, zmin, zmax, kind: "sequential" };
    if (zmin < 0 && zmax > 0) return { scale: SCALES.diverging, zmin, zmax, kind: "diverging" };
    return zmax > 0 ? { scale: SCALES.positive, zmin, zmax, kind: "positive" } : { scale: SCALES.negative, zmin, zmax, kind: "negative" };
  }
  let [lo, hi] = extent(z);
  // Signed values: a zmin/zmax from the page widens the extent to fit (heatmaps that share a scale).
  if (scale === DIVERGING && Number.isFinite(zmin) && Number.isFinite(zmax)) {
    lo = Math.min(lo, zmin);
    hi = Math.max(hi, zmax);
  }
  if (!(lo <= hi)) return { scale: SCALES[scale === DIVERGING ? "diverging" : scale] || CIVIDIS, zmin: -1, zmax: 1, kind: "empty" };
  if (scale === DIVERGING) {
    if (lo < 0 && hi > 0) {
      const limit = niceCeil(Math.max(-lo, hi));
      return { scale: SCALES.diverging, zmin: -limit, zmax: limit, kind: "diverging" };
    }
    const [a, b] = rounded(lo, hi);
    return hi > 0 || lo === hi && lo >= 0
      ? { scale: SCALES.positive, zmin: Math.max(0, a), zmax: b, kind: "positive" }
      : { scale: SCALES.negative, zmin: a, zmax: Math.min(0, b), kind: "negative" };
  }
  const [a, b] = zmin !== undefined && zmax !== undefined ? [zmin, zmax] : rounded(lo, hi);
  return { scale: SCALES[scale] || CIVIDIS, zmin: a, zmax: b, kind: "sequential" };
}

function rounded(lo, hi) {
  if (lo === hi) {
    const pad = Math.abs(lo) > 0 ? Math.abs(lo) * 0.05 : 1;
    return [lo - pad, hi + pad];
  }
  const step = niceStep((hi - lo) / 8);
  return [Math.floor(lo / step) * step, Math.ceil(hi / step) * step];
}

function plotlyScale(stops) {
  return stops.map((rgb, i) => [i / (stops.length - 1), `rgb(${rgb.join(",")})`]);
}

// Linear interpolation between the stops, as Plotly interpolates its colour bar.
const LUT_SIZE = 1024;
const lutCache = new Map();

function lookupTable(stops) {
  let lut = lutCache.get(stops);
  if (lut) return lut;
  lut = new Uint8Array(LUT_SIZE * 3);
  const last = stops.length - 1;
  for (let i = 0; i < LUT_SIZE; i++) {
    const t = (i / (LUT_SIZE - 1)) * last;
    const k = Math.min(last - 1, Math.floor(t));
    const f = t - k;
    for (let c = 0; c < 3; c++) lut[3 * i + c] = Math.round(stops[k][c] + (stops[k + 1][c] - stops[k][c]) * f);
  }
  lutCache.set(stops, lut);
  return lut;
}

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

/** An uncompressed 32-bit BMP of the colour-mapped cells (top row first), and its pixels. */
function heatmapBitmap(z, colour, cols, rows) {
  const width = cols.length;
  const height = rows.length;
  const header = 54;
  const bytes = new Uint8Array(header + width * height * 4);
  const view = new DataView(bytes.buffer);
  view.setUint8(0, 0x42);
  view.setUint8(1, 0x4d);
  view.setUint32(2, bytes.length, true);
  view.setUint32(10, header, true);
  view.setUint32(14, 40, true); // BITMAPINFOHEADER
  view.setInt32(18, width, true);
  view.setInt32(22, -height, true); // negative: rows top-down
  view.setUint16(26, 1, true);
  view.setUint16(28, 32, true);
  view.setUint32(30, 0, true); // BI_RGB
  view.setUint32(34, width * height * 4, true);
  const lut = lookupTable(colour.scale);
  const span = colour.zmax - colour.zmin || 1;
  const rowCache = new Uint8Array(z[0] ? z[0].length * 4 : 0);
  let offset = header;
  let lastRow = -1;
  for (let r = 0; r < height; r++) {
    const cellRow = rows[r];
    if (cellRow !== lastRow) {
      const values = z[cellRow];
      for (let c = 0; c < values.length; c++) {
        const v = values[c];
        let rgb0;
        let rgb1;
        let rgb2;
        if (v === null || !Number.isFinite(v)) {
          [rgb0, rgb1, rgb2] = MISSING_RGB;
        } else {
          let i = Math.round(((v - colour.zmin) / span) * (LUT_SIZE - 1));
          i = i < 0 ? 0 : i >= LUT_SIZE ? LUT_SIZE - 1 : i;
          rgb0 = lut[3 * i];
          rgb1 = lut[3 * i + 1];
          rgb2 = lut[3 * i + 2];
        }
        rowCache[4 * c] = rgb2; // BMP stores blue, green, red
        rowCache[4 * c + 1] = rgb1;
        rowCache[4 * c + 2] = rgb0;
        rowCache[4 * c + 3] = 255;
      }
      lastRow = cellRow;
    }
    for (let p = 0; p < width; p++) {
      const c = 4 * cols[p];
      bytes[offset++] = rowCache[c];
      bytes[offset++] = rowCache[c + 1];
      bytes[offset++] = rowCache[c + 2];
      bytes[offset++] = 255;
    }
  }
  return bytes;
}

function axisName(ref, letter) {
  if (!ref || ref === letter) return `${letter}axis`;
  return `${letter}axis${ref.slice(1)}`;
}

// The invisible traces standing in for image heatmaps (their points follow the image's extent).
const CARRIERS = new WeakSet();

/**
 * Replace a heatmap trace by an image of its cells and an invisible carrier trace that holds the
 * axes' categories and the colour bar.  Returns {carrier, image, entry} (entry: for hover/tests).
 */
function imageHeatmap(trace, layout, forExport = false) {
  const z = trace.z;
  const rowsN = z.length;
  const colsN = rowsN ? z[0].length : 0;
  const xs = numericCoords(trace.x, colsN);
  const ys = numericCoords(trace.y, rowsN);
  const xEdges = edgesOf(xs.centres);
  const yEdges = edgesOf(ys.centres);
  const colour = colourRange(z, trace.colorscale || SEQUENTIAL, trace.zmin, trace.zmax, trace.zauto === false);
  const xAxis = layout[axisName(trace.xaxis, "x")] || {};
  const yAxis = layout[axisName(trace.yaxis, "y")] || {};
  // The image is drawn top row first: the row at the top of the screen is the largest y unless the
  // y axis is reversed (its range given high to low, or autorange "reversed").
  const yRange = yAxis.range;
  const yReversed = yAxis.autorange === "reversed" || (Array.isArray(yRange) && yRange[0] > yRange[1]);
  const xRange = xAxis.range;
  const xReversed = xAxis.autorange === "reversed" || (Array.isArray(xRange) && xRange[0] > xRange[1]);
  const yTopFirst = yReversed ? yEdges : [...yEdges].reverse();
  const xLeftFirst = xReversed ? [...xEdges].reverse() : xEdges;
  const colsIndex = pixelCells(xLeftFirst).map((cell) => (xReversed ? colsN - 1 - cell : cell));
  const rowsIndex = pixelCells(yTopFirst).map((cell) => (yReversed ? cell : rowsN - 1 - cell));
  const bitmap = heatmapBitmap(z, colour, colsIndex, rowsIndex);
  const source = URL.createObjectURL(new Blob([bitmap], { type: "image/bmp" }));
  const xLo = Math.min(xEdges[0], xEdges[colsN]);
  const xHi = Math.max(xEdges[0], xEdges[colsN]);
  const yLo = Math.min(yEdges[0], yEdges[rowsN]);
  const yHi = Math.max(yEdges[0], yEdges[rowsN]);
  const image = {
    source,
    xref: trace.xaxis || "x",
    yref: trace.yaxis || "y",
    x: xReversed ? xHi : xLo,
    y: yReversed ? yLo : yHi,
    sizex: xHi - xLo,
    sizey: yHi - yLo,
    xanchor: "left",
    yanchor: "top",
    sizing: "stretch",
    layer: "above",
  };
  // Axis ranges: the cells' extent, in the direction the page asked for.
  const range = (lo, hi, reversed) => (reversed ? [hi, lo] : [lo, hi]);
  // (unless the page gave a range of its own, e.g. to show where a table ends).
  const axisPatch = {
    [axisName(trace.xaxis, "x")]: {
      ...(Array.isArray(xRange) ? {} : { range: range(xLo, xHi, xReversed) }),
      autorange: false,
      showgrid: false,
      ...(xs.categories ? categoryTicks(xs.categories) : {}),
    },
    [axisName(trace.yaxis, "y")]: {
      ...(Array.isArray(yRange) ? {} : { range: range(yLo, yHi, yReversed) }),
      autorange: false,
      showgrid: false,
      ...(ys.categories ? categoryTicks(ys.categories) : {}),
    },
  };
  const showscale = trace.showscale !== false;
  const carrier = {
    type: "scatter",
    mode: "markers",
    x: [xs.centres[0], xs.centres[colsN - 1]],
    y: [ys.centres[0], ys.centres[rowsN - 1]],
    xaxis: trace.xaxis,
    yaxis: trace.yaxis,
    hoverinfo: "skip",
    showlegend: false,
    // On screen the colour bar is HTML (showColourBars): a new range then costs no redraw of the
    // figure.  An exported picture gets Plotly's own, from this same scale and range.
    marker: forExport
      ? {
          size: 1,
          opacity: 0,
          color: [colour.zmin, colour.zmax],
          cmin: colour.zmin,
          cmax: colour.zmax,
          colorscale: plotlyScale(colour.scale),
          showscale,
          ...(showscale ? { colorbar: merge({ thickness: isPresenter() ? 24 : 14, len: 1, outlinewidth: 0, title: { side: "right" } }, trace.colorbar || {}) } : {}),
        }
      : { size: 1, opacity: 0, color: "#000" },
  };
  CARRIERS.add(carrier);
  const entry = {
    z,
    x: trace.x ? [...trace.x] : xs.centres,
    y: trace.y ? [...trace.y] : ys.centres,
    xEdges,
    yEdges,
    xCategories: xs.categories,
    yCategories: ys.categories,
    xaxis: trace.xaxis || "x",
    yaxis: trace.yaxis || "y",
    hovertemplate: trace.hovertemplate || "x %{x}<br>y %{y}<br>%{z}<extra></extra>",
    customdata: trace.customdata,
    text: trace.text,
    name: trace.name,
    colour,
    colourBar: showscale ? { title: titleText(trace.colorbar?.title), x: trace.colorbar?.x ?? 1.02, y: trace.colorbar?.y ?? 0.5, len: trace.colorbar?.len ?? 1 } : null,
    bitmap,
    width: colsIndex.length,
    height: rowsIndex.length,
    colsIndex,
    rowsIndex,
  };
  return { carrier, image, entry, axisPatch };
}

// Labelled cells (words, names) sit at 0, 1, 2 … on a linear axis that shows their labels.
function nativeHeatmap(trace) {
  if (Array.isArray(trace.colorscale)) return trace;
  const colour = colourRange(trace.z, trace.colorscale || SEQUENTIAL, trace.zmin, trace.zmax, trace.zauto === false);
  return { ...trace, colorscale: plotlyScale(colour.scale), zmin: colour.zmin, zmax: colour.zmax, zauto: false, reversescale: false };
}

function categoryTicks(categories) {
  return { type: "linear", tickmode: "array", tickvals: categories.map((_, i) => i), ticktext: categories.map((c) => String(c)) };
}

// ---- hover for image heatmaps -----------------------------------------------------------------

function formatNumber(value, spec) {
  if (value === null || value === undefined || (typeof value === "number" && !Number.isFinite(value))) return "masked (no value)";
  if (typeof value !== "number") return String(value);
  return d3Like(value, spec || "").replace(/^-/, "−").replace(/e-/, "e−");
}

// The part of d3-format the pages' hovers use: [,][.precision][d e f g %].  No format: an integer
// prints as an integer, any other number with up to six significant digits (as Plotly does).
function d3Like(value, spec) {
  const match = /^(,)?(?:\.(\d+))?([defg%])?$/.exec(spec);
  if (!match) return String(value);
  const [, grouped, precision, kind] = match;
  const digits = precision === undefined ? 6 : Number(precision);
  const fixed = (number, places) =>
    grouped ? number.toLocaleString("en-US", { minimumFractionDigits: places, maximumFractionDigits: places }) : number.toFixed(places);
  if (kind === "d") return fixed(Math.round(value), 0);
  if (kind === "f") return fixed(value, digits);
  if (kind === "%") return `${fixed(value * 100, digits)}%`;
  if (kind === "e") return value.toExponential(digits);
  if (kind === "g") return value.toPrecision(Math.max(1, digits));
  if (Number.isInteger(value) && precision === undefined) return grouped ? value.toLocaleString("en-US") : String(value);
  return String(Number(value.toPrecision(Math.max(1, digits))));
}

function pick(value, i, j) {
  if (value === undefined || value === null) return "";
  if (!Array.isArray(value)) return value;
  const row = value[i];
  return Array.isArray(row) ? row[j] : Array.isArray(value[0]) ? "" : value[j];
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

function attachHover(el) {
  if (el._imageHover) return;
  el._imageHover = true;
  el.addEventListener("mousemove", (event) => {
    const entries = el._heatmaps || [];
    const full = el._fullLayout;
    if (!entries.length || !full) return;
    const box = el.getBoundingClientRect();
    const px = event.clientX - box.left;
    const py = event.clientY - box.top;
    for (const entry of entries) {
      const xa = full[axisName(entry.xaxis, "x")];
      const ya = full[axisName(entry.yaxis, "y")];
      if (!xa || !ya) continue;
      const xv = xa.p2c(px - xa._offset);
      const yv = ya.p2c(py - ya._offset);
      const j = cellAt(entry.xEdges, xv);
      const i = cellAt(entry.yEdges, yv);
      if (i < 0 || j < 0) continue;
      const tip = tipOf(el);
      tip.innerHTML = richText(hoverText(entry, i, j));
      tip.hidden = false;
      placeTip(el, tip, px, py);
      return;
    }
    if (entries.length) tipOf(el).hidden = true;
  });
  el.addEventListener("mouseleave", () => {
    tipOf(el).hidden = true;
  });
}

function tipOf(el) {
  let tip = el.querySelector(":scope > .plot-tip");
  if (!tip) {
    tip = document.createElement("div");
    tip.className = "plot-tip";
    tip.setAttribute("role", "status");
    tip.hidden = true;
    el.appendChild(tip);
  }
  return tip;
}

function placeTip(el, tip, px, py) {
  const box = el.getBoundingClientRect();
  const left = Math.min(px + 14, box.width - tip.offsetWidth - 4);
  const top = py + 14 + tip.offsetHeight > box.height ? py - tip.offsetHeight - 10 : py + 14;
  tip.style.transform = `translate(${Math.max(0, left)}px, ${Math.max(0, top)}px)`;
}

/** The hover text of point `i` of a page trace, as Plotly would have written it. */
function pointText(trace, i, x, y) {
  const at = (value) => (Array.isArray(value) ? value[i] : value);
  if (trace.hovertemplate) {
    const values = { x, y, text: at(trace.text), customdata: at(trace.customdata) };
    const extra = /<extra>(.*?)<\/extra>/.exec(trace.hovertemplate);
    const main = at(trace.hovertemplate)
      .replace(/<extra>.*?<\/extra>/g, "")
      .replace(/%\{(\w+)(?::([^}]*))?\}/g, (_, name, spec) => (name in values ? formatNumber(values[name], spec) : ""));
    return extra && extra[1] ? `${main}<br><i>${extra[1]}</i>` : main;
  }
  const info = trace.hoverinfo || "all";
  if (info === "text") return String(at(trace.hovertext) ?? at(trace.text) ?? "");
  if (info === "name") return trace.name || "";
  const parts = [];
  if (info === "all" || info.includes("name")) if (trace.name) parts.push(trace.name);
  if (info === "all" || info.includes("x") || info.includes("y")) parts.push(`(${formatNumber(x, ".6g")}, ${formatNumber(y, ".6g")})`);
  if ((info === "all" || info.includes("text")) && at(trace.text) !== undefined) parts.push(String(at(trace.text)));
  return parts.join("<br>");
}

// Lines and bars: Plotly finds the point under the pointer (hover events); the text comes from
// the page's trace, so hover strings never enter Plotly's figure (screenTrace).
function attachTooltip(el) {
  if (!el.on || el._tooltip) return;
  el._tooltip = true;
  el.on("plotly_hover", (event) => {
    const point = event?.points?.[0];
    const trace = point ? (el._shown || [])[point.curveNumber] : null;
    if (!trace || trace.type === "heatmap" || trace.hoverinfo === "skip" || trace.hoverinfo === "none") return;
    const index = point.pointNumber ?? point.pointIndex;
    const text = pointText(trace, index, point.x, point.y);
    if (!text) return;
    const tip = tipOf(el);
    tip.innerHTML = richText(text);
    tip.hidden = false;
    const box = el.getBoundingClientRect();
    const mouse = event.event;
    placeTip(el, tip, mouse ? mouse.clientX - box.left : box.width / 2, mouse ? mouse.clientY - box.top : box.height / 2);
  });
  el.on("plotly_unhover", () => {
    tipOf(el).hidden = true;
  });
}

/** Nice tick values across [lo, hi]: about five, on 1-2-5 steps. */
function niceTicks(lo, hi) {
  if (!(hi > lo)) return [lo];
  const step = niceStep((hi - lo) / 5);
  const ticks = [];
  for (let v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) ticks.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  return ticks;
}

function tickLabel(value, step) {
  // As many decimals as the step has (a step of 2.5 labels −2.5, not −3).
  let digits = 0;
  while (digits < 10 && Math.abs(Math.round(step * 10 ** digits) - step * 10 ** digits) > 1e-6) digits++;
  const magnitude = Math.abs(value);
  const text = magnitude !== 0 && (magnitude >= 1e5 || magnitude < 1e-3) ? value.toExponential(1) : value.toFixed(Math.min(digits, 10));
  return text.replace(/^-/, "−");
}

// A heatmap's colour bar as HTML beside the plot area: the same stops and range as the image.
function showColourBars(el, heatmaps) {
  const full = el._fullLayout;
  const bars = heatmaps.filter((entry) => entry.colourBar);
  const old = [...el.querySelectorAll(":scope > .plot-colourbar")];
  old.slice(bars.length).forEach((node) => node.remove());
  if (!full || !bars.length) return;
  const size = full._size;
  bars.forEach((entry, k) => {
    let node = old[k];
    if (!node) {
      node = document.createElement("div");
      node.className = "plot-colourbar";
      node.setAttribute("role", "img");
      node.innerHTML = '<span class="plot-colourbar-title"></span><span class="plot-colourbar-bar"></span><span class="plot-colourbar-ticks"></span>';
      el.appendChild(node);
    }
    const { x, y, len, title } = entry.colourBar;
    const { zmin, zmax, scale } = entry.colour;
    const height = Math.max(60, len * size.h);
    const top = size.t + (1 - y) * size.h - height / 2;
    node.style.left = `${Math.round(size.l + x * size.w)}px`;
    node.style.top = `${Math.round(Math.max(0, top))}px`;
    node.style.height = `${Math.round(height)}px`;
    const stops = scale.map((rgb, i) => `rgb(${rgb.join(",")}) ${((100 * i) / (scale.length - 1)).toFixed(2)}%`);
    node.querySelector(".plot-colourbar-bar").style.background = `linear-gradient(to top, ${stops.join(", ")})`;
    node.querySelector(".plot-colourbar-title").innerHTML = richText(title);
    const ticks = niceTicks(zmin, zmax);
    const step = ticks.length > 1 ? ticks[1] - ticks[0] : 1;
    node.querySelector(".plot-colourbar-ticks").replaceChildren(
      ...ticks.map((value) => {
        const tick = document.createElement("span");
        tick.textContent = tickLabel(value, step);
        tick.style.bottom = `${(100 * (value - zmin)) / (zmax - zmin || 1)}%`;
        return tick;
      }),
    );
    node.setAttribute("aria-label", `colour scale${title ? ` (${title.replace(/<[^>]+>/g, "")})` : ""}: ${tickLabel(zmin, step)} to ${tickLabel(zmax, step)}`);
  });
}

// ---- title and legend beside the plot ---------------------------------------------------------

function chromeOf(el) {
  if (el._chrome) return el._chrome;
  const title = document.createElement("p");
  title.className = "plot-title";
  title.id = `${el.id || "plot"}-title`;
  const legend = document.createElement("ul");
  legend.className = "plot-legend";
  legend.setAttribute("aria-label", "Legend: press an entry to hide or show its curve");
  el.before(title);
  el.after(legend);
  if (!el.hasAttribute("aria-labelledby") && !el.hasAttribute("aria-label")) el.setAttribute("aria-labelledby", title.id);
  legend.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-trace]");
    if (!button) return;
    const name = button.dataset.trace;
    const hidden = el._hiddenTraces || (el._hiddenTraces = new Set());
    if (hidden.has(name)) hidden.delete(name);
    else hidden.add(name);
    button.setAttribute("aria-pressed", String(!hidden.has(name)));
    const last = el._lastDraw;
    if (last) paint(el, last.traces, last.layout, true);
  });
  el._chrome = { title, legend, titleHtml: null, legendKey: null };
  return el._chrome;
}

function swatch(trace, index) {
  const line = trace.line || {};
  const marker = trace.marker || {};
  const colour = (typeof line.color === "string" && line.color) || (typeof marker.color === "string" && marker.color) ||
    (typeof trace.fillcolor === "string" && trace.fillcolor) || COLORS[index % COLORS.length];
  const dash = line.dash && line.dash !== "solid" ? line.dash : "";
  const markersOnly = trace.mode === "markers";
  const fill = Boolean(trace.fill && trace.fill !== "none") && (line.width === 0 || !trace.mode?.includes("lines"));
  return { colour: fill && typeof trace.fillcolor === "string" ? trace.fillcolor : colour, dash, markersOnly, fill };
}

function legendItems(traces, layout) {
  if (layout.showlegend === false) return [];
  // One entry per named trace; pressing it hides or shows its whole legend group.
  const items = [];
  const names = new Set();
  traces.forEach((trace, index) => {
    if (trace.showlegend === false || !trace.name || trace.type === "heatmap" || names.has(trace.name)) return;
    names.add(trace.name);
    items.push({ name: trace.name, key: trace.legendgroup || trace.name, ...swatch(trace, index) });
  });
  return layout.showlegend === true || items.length > 1 ? items : [];
}

function showChrome(el, title, items) {
  const chrome = chromeOf(el);
  const html = richText(title);
  if (chrome.titleHtml !== html) {
    chrome.title.innerHTML = html;
    chrome.title.hidden = !html;
    chrome.titleHtml = html;
  }
  const hidden = el._hiddenTraces || new Set();
  const key = JSON.stringify([items, [...hidden]]);
  if (chrome.legendKey === key) return;
  chrome.legendKey = key;
  chrome.legend.hidden = items.length === 0;
  chrome.legend.replaceChildren(
    ...items.map((item) => {
      const li = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.trace = item.key;
      button.setAttribute("aria-pressed", String(!hidden.has(item.key)));
      const mark = document.createElement("span");
      mark.className = `swatch${item.markersOnly ? " swatch-marker" : ""}${item.fill ? " swatch-fill" : ""}${item.dash ? ` swatch-line-${item.dash}` : ""}`;
      mark.style.setProperty("--swatch", item.colour);
      mark.setAttribute("aria-hidden", "true");
      const label = document.createElement("span");
      label.innerHTML = richText(item.name);
      button.append(mark, label);
      li.appendChild(button);
      return li;
    }),
  );
}

// ---- composing and drawing ------------------------------------------------------------------------

/** Axes of the layout with type "log": one label per power of ten when they span several. */
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

function tidyLogAxes(layout, traces) {
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
    // Several decades: one label per power of ten (or per few); fewer: 1, 2 and 5 of each
    // decade written in full (0.5, 0.2; Plotly's "D2" would write the bare digits 5 and 2).
    if (decades !== null && decades >= 2.5) axisLayout.dtick = decades > 12 ? Math.ceil(decades / 8) : 1;
    else if (decades !== null && axisLayout.tickvals === undefined) Object.assign(axisLayout, oneTwoFive(lo, hi));
    if (!axisLayout.exponentformat) axisLayout.exponentformat = "power";
  }
}

// ---- text in the plot as HTML ------------------------------------------------------------------
//
// Words written into a plot (a trace of mode "text", an annotation without an arrow) change with
// the numbers, and changed text makes Plotly redraw the whole figure.  On screen they are HTML
// placed over the plot at their data or paper coordinates (showLabels), so the figure underneath
// keeps only what Plotly can move cheaply; exports draw them with Plotly as the page gave them.

function placeholder(trace) {
  return { type: "scatter", mode: "markers", x: trace.x, y: trace.y, xaxis: trace.xaxis, yaxis: trace.yaxis, hoverinfo: "skip", showlegend: false, marker: { size: 1, opacity: 0 } };
}

const TEXT_POSITION = {
  "top left": ["right", "bottom"],
  "top center": ["center", "bottom"],
  "top right": ["left", "bottom"],
  "middle left": ["right", "middle"],
  "middle center": ["center", "middle"],
  "middle right": ["left", "middle"],
  "bottom left": ["right", "top"],
  "bottom center": ["center", "top"],
  "bottom right": ["left", "top"],
};

function traceLabels(trace) {
  const [xanchor, yanchor] = TEXT_POSITION[trace.textposition || "middle center"] || ["center", "middle"];
  const font = trace.textfont || {};
  return (trace.x || []).map((x, i) => ({
    x,
    y: trace.y[i],
    xref: trace.xaxis || "x",
    yref: trace.yaxis || "y",
    log: false,
    text: Array.isArray(trace.text) ? trace.text[i] : trace.text,
    color: Array.isArray(font.color) ? font.color[i] : font.color,
    size: Array.isArray(font.size) ? font.size[i] : font.size,
    xanchor,
    yanchor,
    shift: [0, yanchor === "bottom" ? -4 : yanchor === "top" ? 4 : 0],
  }));
}

function annotationLabel(note) {
  return {
    x: note.x,
    y: note.y,
    xref: note.xref || "x",
    yref: note.yref || "y",
    log: true, // an annotation on a log axis gives log10 of its position, as Plotly reads it
    text: note.text,
    color: note.font?.color,
    size: note.font?.size,
    xanchor: !note.xanchor || note.xanchor === "auto" ? "center" : note.xanchor,
    yanchor: !note.yanchor || note.yanchor === "auto" ? "middle" : note.yanchor,
    angle: note.textangle || 0,
    background: note.bgcolor,
    shift: [note.xshift || 0, -(note.yshift || 0)],
  };
}

function labelPixel(full, ref, value, letter, log) {
  const size = full._size;
  if (ref === "paper") return letter === "x" ? size.l + value * size.w : size.t + (1 - value) * size.h;
  const axis = full[axisName(ref, letter)];
  if (!axis) return NaN;
  const linear = axis.type === "log" && !log ? Math.log10(value) : value;
  return axis._offset + axis.l2p(linear);
}

const ANCHOR_SHIFT = { left: "0%", center: "-50%", right: "-100%", top: "0%", middle: "-50%", bottom: "-100%" };

function showLabels(el, labels) {
  const full = el._fullLayout;
  let layer = el.querySelector(":scope > .plot-labels");
  if (!labels.length) {
    layer?.remove();
    return;
  }
  if (!full) return;
  if (!layer) {
    layer = document.createElement("div");
    layer.className = "plot-labels";
    layer.setAttribute("aria-hidden", "true");
    el.appendChild(layer);
  }
  const nodes = [...layer.children];
  nodes.slice(labels.length).forEach((node) => node.remove());
  labels.forEach((label, i) => {
    const node = nodes[i] || layer.appendChild(document.createElement("span"));
    const x = labelPixel(full, label.xref, label.x, "x", label.log) + label.shift[0];
    const y = labelPixel(full, label.yref, label.y, "y", label.log) + label.shift[1];
    const html = richText(label.text);
    if (node.innerHTML !== html) node.innerHTML = html;
    node.hidden = !Number.isFinite(x) || !Number.isFinite(y);
    node.style.transform = `translate(${x.toFixed(1)}px, ${y.toFixed(1)}px) translate(${ANCHOR_SHIFT[label.xanchor]}, ${ANCHOR_SHIFT[label.yanchor]})${label.angle ? ` rotate(${label.angle}deg)` : ""}`;
    node.style.transformOrigin = label.angle ? "left bottom" : "";
    node.style.color = label.color || "";
    node.style.fontSize = label.size ? `${label.size}px` : "";
    node.style.background = label.background || "";
  });
  keepInside(layer, labels);
}

// A level label that would run past the plot's left or right edge (a note centred on a narrow band)
// is moved sideways until it fits.
function keepInside(layer, labels) {
  const bounds = layer.getBoundingClientRect();
  [...layer.children].forEach((node, i) => {
    if (node.hidden || labels[i]?.angle) return;
    const box = node.getBoundingClientRect();
    const shift = box.width > bounds.width ? 0 : Math.min(0, bounds.right - box.right) + Math.max(0, bounds.left - box.left);
    if (shift) node.style.transform += ` translateX(${shift.toFixed(1)}px)`;
  });
}

// What Plotly gets of a line or bar trace on screen: everything but its name and hover texts,
// which the page's own legend and tooltip show (legendItems, attachTooltip).  A redraw whose only
// changes are animatable (x, y, colours, axis ranges: Plotly.PlotSchema's `anim`) then takes
// Plotly's transition path, which redraws the traces and axes and nothing else (~3× faster here).
function screenTrace(trace, index) {
  const out = { ...trace, name: `trace ${index}`, hoverinfo: trace.hoverinfo === "skip" ? "skip" : "none" };
  delete out.hovertemplate;
  delete out.hovertext;
  delete out.customdata;
  if (!String(trace.mode || "").includes("text") && trace.type !== "bar") delete out.text;
  if (trace.type === "bar" && !trace.textposition) delete out.text;
  return out;
}

function compose(el, traces, pageLayout, forExport = false) {
  const layout = merge(baseLayout(), pageLayout);
  const title = titleText(layout.title);
  delete layout.title;
  delete layout.legend;
  delete layout.height;
  delete layout.width;
  const items = legendItems(traces, pageLayout || {});
  layout.showlegend = false;
  layout.autosize = false;
  layout.width = Math.max(200, Math.round(el.clientWidth || 600));
  layout.height = Math.max(160, Math.round(el.clientHeight || 420));
  const hidden = el._hiddenTraces || new Set();
  const drawn = [];
  const images = [];
  const heatmaps = [];
  const labels = [];
  traces.forEach((trace, index) => {
    // A heatmap that writes text in its cells or leaves gaps between them (a handful of labelled
    // cells) stays a Plotly heatmap, with its colour scale resolved the same way.
    if (trace.type === "heatmap" && (trace.texttemplate || trace.xgap || trace.ygap)) {
      drawn.push(nativeHeatmap(trace));
      return;
    }
    if (trace.type === "heatmap" && Array.isArray(trace.z) && trace.z.length && Array.isArray(trace.z[0])) {
      const { carrier, image, entry, axisPatch } = imageHeatmap(trace, layout, forExport);
      for (const [name, patch] of Object.entries(axisPatch)) layout[name] = merge(layout[name] || {}, patch);
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
    drawn.push(forExport ? shown : screenTrace(shown, index));
  });
  if (!forExport && Array.isArray(layout.annotations)) {
    const kept = [];
    for (const note of layout.annotations) (note.showarrow === false ? labels : kept).push(note.showarrow === false ? annotationLabel(note) : note);
    layout.annotations = kept;
  }
  if (images.length) layout.images = [...(layout.images || []), ...images];
  // Room on the right for a colour bar beside the plot (drawn by Plotly in exports, as HTML on screen).
  if (heatmaps.some((entry) => entry.colourBar && entry.colourBar.x >= 1) && !(pageLayout?.margin?.r > 0)) {
    // as wide as the longest tick label needs (about 0.62 em a digit, 2.2 em for the bar and gaps)
    const chars = Math.max(...heatmaps.filter((entry) => entry.colourBar).map((entry) => {
      const ticks = niceTicks(entry.colour.zmin, entry.colour.zmax);
      const step = ticks.length > 1 ? ticks[1] - ticks[0] : 1;
      return Math.max(...ticks.map((value) => tickLabel(value, step).length));
    }));
    layout.margin = { ...layout.margin, r: Math.round(fontSize() * Math.max(6, 0.62 * chars + 2.2) + 10) };
  }
  for (const [key, value] of Object.entries(layout)) {
    if (/^[xy]axis\d*$/.test(key) && value && typeof value === "object") {
      layout[key] = merge({ automargin: false, title: { standoff: 6 } }, value);
    }
  }
  tidyLogAxes(layout, drawn);
  fixRanges(el, layout, drawn);
  // The transition path pays off when the traces keep their number of points (a slider moving a
  // curve); when points come and go, its enter/exit work costs more than a plain redraw.
  const lengths = drawn.map((trace) => (trace.x ? trace.x.length : 0) + "," + (trace.y ? trace.y.length : 0)).join(";");
  if (!forExport && el._pointCounts === lengths) layout.transition = { duration: 0 };
  if (!forExport) el._pointCounts = lengths;
  return { traces: drawn, layout, title, items, heatmaps, labels, pageTraces: traces, pageLayout };
}

/**
 * Explicit ranges for every numeric axis the page left to autorange (Plotly's transition path
 * needs them: an autoranged axis makes every redraw a full one).  Lines span their data exactly
 * along x; y gets 5% either side; markers 3% along x too; bars include 0 and half a bar; log
 * axes pad in decades.  An axis the reader zoomed keeps the reader's range.
 */
function fixRanges(el, layout, traces) {
  const extents = {};
  const touch = (name) => (extents[name] ||= { lo: Infinity, hi: -Infinity, markers: false, bars: false, numeric: true, spacing: Infinity });
  for (const trace of traces) {
    if (trace.visible === false) continue;
    for (const letter of ["x", "y"]) {
      const ref = trace[`${letter}axis`] || letter;
      const name = axisName(ref, letter);
      const values = trace[letter];
      if (!values || typeof values.length !== "number") continue;
      const e = touch(name);
      const log = layout[name]?.type === "log";
      let previous = null;
      for (const v of values) {
        if (v === null || v === undefined) continue;
        if (typeof v !== "number") {
          e.numeric = false;
          break;
        }
        if (!Number.isFinite(v) || (log && v <= 0)) continue;
        if (v < e.lo) e.lo = v;
        if (v > e.hi) e.hi = v;
        if (previous !== null && v !== previous) e.spacing = Math.min(e.spacing, Math.abs(v - previous));
        previous = v;
      }
      if (String(trace.mode || "").includes("markers") || (trace.type === "scatter" && !trace.mode)) e.markers = true;
      if (trace.type === "bar") e.bars = letter === "x" ? "position" : "value";
      // A heatmap drawn by Plotly (labelled cells) spans half a cell beyond its first and last centres.
      if (trace.type === "heatmap") e.cells = true;
    }
  }
  const full = el._fullLayout;
  for (const [name, e] of Object.entries(extents)) {
    const axisLayout = (layout[name] ||= {});
    if (Array.isArray(axisLayout.range) || axisLayout.autorange === "reversed" || axisLayout.matches || axisLayout.type === "category") continue;
    if (!e.numeric || !(e.lo <= e.hi)) continue;
    if (el._userRanged?.has(name) && full?.[name]?.range) {
      axisLayout.range = [...full[name].range];
      axisLayout.autorange = false;
      continue;
    }
    const log = axisLayout.type === "log";
    let lo = log ? Math.log10(e.lo) : e.lo;
    let hi = log ? Math.log10(e.hi) : e.hi;
    if (!log && (axisLayout.rangemode === "tozero" || e.bars === "value")) {
      lo = Math.min(lo, 0);
      hi = Math.max(hi, 0);
    }
    const span = hi - lo || Math.abs(hi) || 1;
    const along = name.startsWith("x");
    let pad = along && !e.markers && !e.bars ? 0 : along ? 0.03 : 0.05;
    if (e.bars === "position" || e.cells) {
      const half = (Number.isFinite(e.spacing) ? e.spacing : 1) / 2;
      lo -= half;
      hi += half;
      pad = 0;
    }
    lo -= span * pad;
    hi += span * pad;
    if (!log && (axisLayout.rangemode === "tozero" || e.bars === "value")) {
      if (e.lo >= 0) lo = Math.max(lo, 0);
      if (e.hi <= 0) hi = Math.min(hi, 0);
    }
    if (!log && axisLayout.rangemode === "nonnegative") lo = Math.max(lo, 0);
    if (lo === hi) {
      lo -= 0.5;
      hi += 0.5;
    }
    axisLayout.range = [lo, hi];
    axisLayout.autorange = false;
  }
}

function modeBar() {
  return [[
    {
      name: "Download this plot as PNG",
      icon: Plotly.Icons.camera,
      click: (gd) => exportFigure(gd, "png", gd.id || "plot"),
    },
    "resetScale2d",
  ]];
}

let config = null;
function plotConfig() {
  // One object for every call: a config that differs from the last one makes react start over.
  if (!config) config = { responsive: false, displaylogo: false, scrollZoom: false, modeBarButtons: modeBar(), showTips: false };
  return config;
}

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

function figureKey(traces, layout) {
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
function frameOf(figure) {
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
function planUpdate(el, figure, frame) {
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

const SHARP_BELOW = 400;

/** Compose and draw; skipped when the page's figure equals the one drawn there (unless forced). */
function paint(el, traces, layout, force = false) {
  const key = force ? null : figureKey(traces, [layout, el.clientWidth, el.clientHeight, isPresenter()]);
  if (key !== null && el.data && el._figureKey === key) {
    showChrome(el, titleText(layout.title), legendItems(traces, layout));
    return Promise.resolve(el);
  }
  const figure = compose(el, traces, layout);
  showChrome(el, figure.title, figure.items);
  el._figureKey = key;
  el._lastDraw = { traces, layout };
  // What the plot shows, as the page gave it (heatmaps with their numbers): read by the tests.
  el._shown = traces;
  el._heatmaps = figure.heatmaps;
  if (figure.heatmaps.length) attachHover(el);
  // Few cells on many pixels: sharp cell edges (the browser would blur an enlarged image).
  const sharp = figure.heatmaps.length > 0 && figure.heatmaps.every((entry) => entry.width < SHARP_BELOW && entry.height < SHARP_BELOW);
  if (sharp) el.dataset.sharp = "";
  else delete el.dataset.sharp;
  const frame = frameOf(figure);
  const first = !el.data;
  const plan = first ? { kind: "react" } : planUpdate(el, figure, frame);
  let drawn;
  if (plan.kind === "relayout") {
    // A heatmap's new numbers (and size): swap the image and move the axes; nothing else redraws.
    drawn = Object.keys(plan.update).length ? Plotly.relayout(el, plan.update) : Promise.resolve(el);
  } else if (plan.kind === "animate") {
    // Only these traces move (and the axes): Plotly redraws them alone, without a transition.
    drawn = Plotly.animate(el, { data: plan.data, traces: plan.traces, layout: plan.layout }, {
      transition: { duration: 0 },
      frame: { duration: 0, redraw: false },
      mode: "immediate",
    });
  } else if (plan.kind === "none") {
    drawn = Promise.resolve(el);
  } else {
    drawn = Plotly.react(el, figure.traces, figure.layout, plotConfig());
  }
  el._drawn = { frame, traces: figure.traces, layout: figure.layout };
  // The object URLs of the images replaced are released once the new ones are up.
  const old = el._sources || [];
  const current = figure.heatmaps.length ? figure.layout.images.slice(-figure.heatmaps.length).map((image) => image.source) : [];
  el._sources = current;
  Promise.resolve(drawn).then(() => old.forEach((url) => !current.includes(url) && URL.revokeObjectURL(url)));
  Promise.resolve(drawn).then(() => {
    showColourBars(el, figure.heatmaps);
    showLabels(el, figure.labels);
  });
  if (first) {
    watch(el);
    followSize(el);
    quietModeBar(el);
    attachTooltip(el);
    // An axis the reader zoomed or panned keeps that range through later redraws; a reset (double
    // click, the reset button) gives it back to the data.
    el.on?.("plotly_relayout", (change) => {
      const zoomed = el._userRanged || (el._userRanged = new Set());
      for (const key of Object.keys(change || {})) {
        const match = /^([xy]axis\d*)\.(range|autorange)/.exec(key);
        if (!match) continue;
        if (match[2] === "autorange") zoomed.delete(match[1]);
        else zoomed.add(match[1]);
      }
    });
  }
  return drawn;
}

// The mode bar's buttons are left out of the tab order: the page's toolbar offers the same
// exports by keyboard, and ten plots would otherwise put their buttons between every control.
function quietModeBar(el) {
  const mute = () => el.querySelectorAll(".modebar-btn").forEach((button) => button.setAttribute("tabindex", "-1"));
  mute();
  el.on?.("plotly_afterplot", mute);
}

// ---- sizes that follow the container ------------------------------------------------------------

let resizeObserver = null;
const sizes = new WeakMap();

function followSize(el) {
  if (typeof ResizeObserver === "undefined") return;
  if (!resizeObserver) {
    resizeObserver = new ResizeObserver((entries) => {
      for (const entry of entries) {
        const el = entry.target;
        const width = Math.round(el.clientWidth);
        const height = Math.round(el.clientHeight);
        const last = sizes.get(el);
        sizes.set(el, [width, height]);
        if (!last || (last[0] === width && last[1] === height) || !el._lastDraw) continue;
        const { traces, layout } = el._lastDraw;
        if (inView.get(el) === false) pending.set(el, { traces, layout });
        else paint(el, traces, layout, true);
      }
    });
  }
  sizes.set(el, [Math.round(el.clientWidth), Math.round(el.clientHeight)]);
  resizeObserver.observe(el);
}

// ---- plots out of view wait -------------------------------------------------------------------------
//
// A plot that has been drawn and is now outside the window is not redrawn at once: its newest
// figure waits, and is drawn when the plot comes within OFFSCREEN_MARGIN of the window.  A
// waiting plot carries data-pending; printing and image export draw every waiting plot first.
const OFFSCREEN_MARGIN = "200px 0px";
const pending = new Map(); // element → {traces, layout}
const inView = new WeakMap(); // element → last IntersectionObserver verdict
let observer = null;

function watch(el) {
  if (typeof IntersectionObserver === "undefined") return;
  if (observer === null) {
    observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          inView.set(entry.target, entry.isIntersecting);
          if (entry.isIntersecting) flush(entry.target);
        }
      },
      { rootMargin: OFFSCREEN_MARGIN },
    );
    window.addEventListener("beforeprint", () => flushAll());
  }
  observer.observe(el);
}

function flush(el) {
  const job = pending.get(el);
  if (!job) return Promise.resolve(el);
  pending.delete(el);
  return Promise.resolve(paint(el, job.traces, job.layout)).finally(() => {
    if (!pending.has(el)) delete el.dataset.pending;
  });
}

/** Draw every plot still waiting to come into view (before an export or printing). */
export function flushAll() {
  return Promise.all([...pending.keys()].map(flush));
}

/**
 * Draw or update a plot: `traces` and `layout` as Plotly takes them (heatmap traces become
 * images, the title and legend go beside the plot).  Skipped when the figure equals the one
 * already drawn there, and put off while the plot is out of view.  Returns a promise.
 */
function farBelowOrAbove(el) {
  const box = el.getBoundingClientRect();
  return box.top > window.innerHeight + 200 || box.bottom < -200;
}

export function draw(el, traces, layout = {}) {
  if (typeof el === "string") el = document.getElementById(el);
  // A plot that has never been drawn and starts well outside the window waits too: opening a
  // lesson draws what the reader sees first.
  if (!el.data && (inView.get(el) === false || (!inView.has(el) && farBelowOrAbove(el)))) {
    pending.set(el, { traces, layout });
    el.dataset.pending = "";
    watch(el);
    return Promise.resolve(el);
  }
  if (el.data && inView.get(el) === false) {
    // (its title and legend wait with it: they describe what is drawn)
    pending.set(el, { traces, layout });
    el.dataset.pending = "";
    return Promise.resolve(el);
  }
  pending.delete(el);
  delete el.dataset.pending;
  return paint(el, traces, layout);
}

/** What a plot shows, as the page gave it: traces with heatmaps' z (the numbers behind the pixels). */
export function shownTraces(el) {
  return el._lastDraw ? el._lastDraw.traces : [];
}

// ---- exports -------------------------------------------------------------------------------------

function dataUrl(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:image/bmp;base64,${btoa(binary)}`;
}

/**
 * Download one plot as PNG or SVG with its title and legend drawn into the picture, and its
 * heatmaps as embedded images (an exported SVG cannot reach the page's blob URLs).
 */
export async function exportFigure(el, format, filename) {
  const last = el._lastDraw;
  if (!last) return;
  const figure = compose(el, last.traces, last.layout, true);
  const layout = { ...figure.layout };
  const extraTop = figure.title ? Math.round(fontSize() * 2.6) : 0;
  const extraBottom = figure.items.length ? Math.round(fontSize() * 1.6 * Math.ceil(figure.items.length / 3)) + 20 : 0;
  layout.height += extraTop + extraBottom;
  layout.margin = { ...layout.margin, t: layout.margin.t + extraTop, b: layout.margin.b + extraBottom };
  if (figure.title) layout.title = { text: figure.title, x: 0.02, xanchor: "left" };
  if (figure.items.length) {
    layout.showlegend = true;
    layout.legend = { orientation: "h", x: 0, xanchor: "left", y: 0, yanchor: "top", yref: "container" };
    layout.legend.y = extraBottom / layout.height;
  }
  // Small matrices are enlarged in the picture itself (whole pixels per cell), so the exported
  // image keeps sharp cells wherever it is shown.
  const start = (layout.images || []).length - figure.heatmaps.length;
  layout.images = (layout.images || []).map((image, k) => {
    if (k < start) return image;
    const entry = figure.heatmaps[k - start];
    const factor = Math.max(1, Math.floor(800 / Math.max(entry.width, entry.height)));
    const widen = (index) => Int32Array.from({ length: index.length * factor }, (_, i) => index[Math.floor(i / factor)]);
    const bitmap = factor > 1 ? heatmapBitmap(entry.z, entry.colour, widen(entry.colsIndex), widen(entry.rowsIndex)) : entry.bitmap;
    return { ...image, source: dataUrl(bitmap) };
  });
  for (const image of figure.layout.images || []) if (image.source?.startsWith("blob:")) URL.revokeObjectURL(image.source);
  await Plotly.downloadImage({ data: figure.traces, layout, config: { displayModeBar: false } }, {
    format,
    filename,
    width: layout.width,
    height: layout.height,
  });
}

/**
 * Axis title helper.  Margins are fixed (baseLayout) rather than automatic: Plotly's automargin
 * measures every tick label after each redraw and can redraw a second time.
 */
export function axis(title, extra = {}) {
  return { title: { text: title }, zeroline: false, ...extra };
}

/**
 * Compact number formatting for readouts: `digits` significant digits, scientific when tiny or
 * huge.  Between 10^digits and 10^6 every digit of the integer part is printed (47,117, not a
 * 47,120 whose last zero would read as exact); static/js/lib/numbers.js adds "≈" where it rounds.
 */
export function fmt(value, digits = 4) {
  if (value === null || value === undefined) return "—";
  if (typeof value !== "number") return String(value);
  if (value === 0) return "0";
  const magnitude = Math.abs(value);
  if (magnitude >= 1e6 || magnitude < 1e-3) return value.toExponential(digits - 1);
  if (magnitude >= 10 ** digits) return Math.round(value).toLocaleString("en-US");
  return Number(value.toPrecision(digits)).toLocaleString("en-US", { maximumFractionDigits: 12 });
}
