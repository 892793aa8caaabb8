// The escape hatch: a figure as Plotly takes it, for a figure no mark's data form describes
// (three heatmap panels sharing one colour bar, curves and heatmaps in one figure).  The figure
// is not rewritten by a compiler: it is built by the rules of the marks whose traces it holds —
// heatmap traces as the heatmap mark draws them (images, Plotly's colour bar, square cells; its
// cheap update), any other trace as the chart marks do (chart.js: HTML labels for words, explicit
// ranges; their cheap update) — and gets what every plot gets (paint.js): size, HTML title and
// legend, export, state, waiting while out of view, zoom kept and reset.
//
//   plotly(el, traces, layout)                      as above
//   plotly(el, traces, layout, { unchanged: true }) Plotly.react with the figure exactly as given
//                                                   (but for its size, title and legend); no cheap
//                                                   update

import { legendItems } from "../chrome.js";
import { titleText } from "../layout.js";
import { figureSize, paint, uirevision } from "../paint.js";
import { chartFigure, chartUpdate, paintChart } from "./chart.js";
import { heatmapPlotly, heatmapReact, heatmapUpdate } from "./heatmap.js";

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

/** A Plotly figure as Plotly takes it, drawn as the module comment says. */
export function plotly(el, traces, layout = {}, { unchanged = false } = {}) {
  const node = typeof el === "string" ? document.getElementById(el) : el;
  if (!node) return Promise.resolve(null);
  const asked = { traces, layout };
  if (unchanged) return paint(node, { mark: "plotly", asked, build: (target, forExport) => hatchFigure(target, traces, layout, forExport) });
  if (traces.some((trace) => trace.type === "heatmap")) {
    return paint(node, { mark: "plotly-heatmap", asked, build: (target, forExport) => heatmapPlotly(target, traces, layout, forExport), update: heatmapUpdate, react: heatmapReact });
  }
  return paint(node, { mark: "plotly-chart", asked, build: (target, forExport) => chartFigure(target, traces, layout, forExport), update: chartUpdate });
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
