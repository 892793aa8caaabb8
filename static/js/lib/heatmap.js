import { axisName, categoryTicks } from "./axes.js";
import { LUT_SIZE, MISSING_RGB, SEQUENTIAL, colourRange, lookupTable, niceTicks, plotlyScale } from "./colours.js";
import { pick, placeTip, tipOf } from "./hover.js";
import { isPresenter, merge, richText, titleText } from "./layout.js";
import { formatNumber, tickLabel } from "./numbers.js";

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
export function heatmapBitmap(z, colour, cols, rows) {
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

/**
 * Replace a heatmap trace by an image of its cells and an invisible carrier trace that holds the
 * axes' categories and the colour bar.  Returns {carrier, image, entry} (entry: for hover/tests).
 */
export function imageHeatmap(trace, layout, forExport = false) {
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
    source,
    width: colsIndex.length,
    height: rowsIndex.length,
    colsIndex,
    rowsIndex,
  };
  return { carrier, image, entry, axisPatch };
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

// A heatmap's colour bar as HTML beside the plot area: the same stops and range as the image.
export function showColourBars(el, heatmaps) {
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
