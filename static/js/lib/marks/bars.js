// The bars mark: one bar per x, one Plotly bar trace per series.
//
//   bars(el, [{x, y, name, color, hovertemplate, text, ...}], {title, xaxis, yaxis, barmode, bargap, legend})
//
// Text given with a series is for the hover (the library does not write it on the bars unless
// the series sets textposition).

import { paintChart } from "./chart.js";
import { chartLayout } from "./plotly.js";

function barTrace(series) {
  const trace = { type: "bar" };
  for (const [key, value] of Object.entries(series)) if (key !== "color" && value !== undefined) trace[key] = value;
  if (series.color !== undefined) trace.marker = { ...(series.marker || {}), color: series.color };
  return trace;
}

/** The Plotly traces and layout of a bars mark (exported for the mark's test). */
export function barsFigure(series, options = {}) {
  const layout = chartLayout(options);
  if (options.barmode) layout.barmode = options.barmode;
  if (options.bargap !== undefined) layout.bargap = options.bargap;
  return { traces: series.map(barTrace), layout };
}

/** Draw or update a bars mark on `el` (an element or its id). */
export function bars(el, series, options = {}) {
  const { traces, layout } = barsFigure(series, options);
  return paintChart(el, "bars", traces, layout);
}
