// The escape hatch: a figure as Plotly takes it, drawn by the library (draw.js), so it gets the
// library's size, HTML title and legend, export and state.  Every other mark builds its figure
// and draws it through paintMark, which records which mark drew the plot (figure.js: `mark`).

import { draw } from "../draw.js";
import { plotState } from "../figure.js";

const element = (el) => (typeof el === "string" ? document.getElementById(el) : el);

/** Draw `traces` and `layout` (Plotly's own form) on `el` as mark `name`. */
export function paintMark(el, name, traces, layout) {
  const node = element(el);
  plotState(node).mark = name;
  return draw(node, traces, layout);
}

/** A Plotly figure as Plotly takes it: `traces` and `layout` are not rewritten by the page. */
export function plotly(el, traces, layout = {}) {
  return paintMark(el, "plotly", traces, layout);
}

/** The layout keys the chart marks (curves, bars) share: title, axes and whether Plotly's legend shows. */
export function chartLayout(options) {
  const layout = {};
  if (options.title !== undefined) layout.title = { text: options.title };
  if (options.xaxis) layout.xaxis = { ...options.xaxis };
  if (options.yaxis) layout.yaxis = { ...options.yaxis };
  if (options.legend !== undefined) layout.showlegend = options.legend;
  return layout;
}
