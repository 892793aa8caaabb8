import { stateOf } from "./figure.js";
import { heatmapBitmap } from "./heatmap.js";
import { textSize } from "./layout.js";

// Exports: one plot as PNG or SVG, its title and legend drawn into the picture by Plotly.

/* global Plotly */

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
  const job = stateOf(el)?.job;
  if (!job) return;
  // the mark's figure as an export draws it: in-plot words drawn by Plotly, its legend's names whole
  const figure = job.build(el, true);
  const layout = { ...figure.layout };
  const extraTop = figure.title ? Math.round(textSize() * 2.6) : 0;
  const extraBottom = figure.items.length ? Math.round(textSize() * 1.6 * Math.ceil(figure.items.length / 3)) + 20 : 0;
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
