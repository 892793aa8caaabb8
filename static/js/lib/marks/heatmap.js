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

import { paintMark } from "./plotly.js";

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

/** Draw or update a heatmap mark on `el` (an element or its id). */
export function heatmap(el, cells, options = {}) {
  const { traces, layout } = heatmapFigure(cells, options);
  return paintMark(el, "heatmap", traces, layout);
}
