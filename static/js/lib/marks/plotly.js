// The escape hatch: a figure as Plotly takes it, handed to Plotly.react unchanged but for what
// every plot gets (paint.js): its size (the container's), the title above and legend below as
// HTML, export, state, waiting while out of view, zoom kept and reset.  No cheap update: an
// equal figure draws nothing, any other goes to Plotly.react, which works out itself what to
// redraw.  (Heatmaps here are Plotly's own, words are Plotly's SVG text: a figure that wants the
// library's image heatmap or HTML labels is drawn by a mark.)

import { legendItems } from "../chrome.js";
import { titleText } from "../layout.js";
import { figureSize, paint, uirevision } from "../paint.js";
import { paintChart } from "./chart.js";

/**
 * Draw `traces` and `layout` (Plotly's own form: scatter and bar traces) on `el` as chart mark
 * `name`, with the chart marks' rules and cheap update (chart.js).  A new mark whose figure is
 * lines, markers or bars builds it and calls this.
 */
export function paintMark(el, name, traces, layout) {
  return paintChart(el, name, traces, layout);
}

function hatchFigure(el, traces, pageLayout, forExport) {
  const { title, legend, ...layout } = pageLayout;
  const items = legendItems(traces, pageLayout);
  if (!forExport) layout.showlegend = false;
  Object.assign(layout, { autosize: false, ...figureSize(el), uirevision: uirevision(el, pageLayout.uirevision ?? "keep") });
  return { traces, layout, title: titleText(title), items, heatmaps: [], labels: [], shown: traces };
}

/** A Plotly figure as Plotly takes it: `traces` and `layout` are not rewritten (but for size and chrome). */
export function plotly(el, traces, layout = {}) {
  const node = typeof el === "string" ? document.getElementById(el) : el;
  return paint(node, { mark: "plotly", asked: { traces, layout }, build: (target, forExport) => hatchFigure(target, traces, layout, forExport) });
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
