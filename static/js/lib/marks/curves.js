// The curves mark: lines (or markers) of y against x, one per series.
//
//   curves(el, [{x, y, name, color, width, dash, mode, hovertemplate, ...}],
//          {title, xaxis, yaxis, legend, shapes, annotations, margin})
//
// Each series becomes one Plotly scatter trace; keys other than color/width/dash pass to the
// trace as Plotly names them (legendgroup, showlegend, fill, fillcolor, marker, hoverinfo,
// customdata, text, xaxis, yaxis).  `legend: true` shows the legend for one curve too, `false`
// never.  An update whose series moved (as many points as before) moves them without a new layout
// of the plot; an axis moves only when its range changed.

import { paintChart } from "./chart.js";
import { chartLayout } from "./plotly.js";

const OWN = new Set(["color", "width", "dash"]);

function curveTrace(series) {
  const trace = { type: "scatter", mode: series.mode || "lines" };
  for (const [key, value] of Object.entries(series)) if (!OWN.has(key) && key !== "mode" && value !== undefined) trace[key] = value;
  const line = { ...(series.line || {}) };
  if (series.color !== undefined) line.color = series.color;
  if (series.width !== undefined) line.width = series.width;
  if (series.dash !== undefined) line.dash = series.dash;
  if (Object.keys(line).length) trace.line = line;
  return trace;
}

/** The Plotly traces and layout of a curves mark (exported for the mark's test). */
export function curvesFigure(series, options = {}) {
  const layout = chartLayout(options);
  for (const key of ["shapes", "annotations"]) if (options[key]) layout[key] = options[key];
  if (options.margin) layout.margin = options.margin;
  return { traces: series.map(curveTrace), layout };
}

/** Draw or update a curves mark on `el` (an element or its id). */
export function curves(el, series, options = {}) {
  const { traces, layout } = curvesFigure(series, options);
  return paintChart(el, "curves", traces, layout);
}
