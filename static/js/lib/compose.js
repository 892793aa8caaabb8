// legacy: the figure compiler of draw(), for the pages that still call draw() directly (draw.js
// names them).  It rewrites any Plotly figure with the rules the marks now apply each to its own
// figure (marks/heatmap.js, marks/chart.js); it goes when the last such page is on marks.

import { fixRanges, squareDomains, tidyLogAxes } from "./axes.js";
import { legendItems } from "./chrome.js";
import { stateOf } from "./figure.js";
import { imageHeatmap, nativeHeatmap, roomForColourBars } from "./heatmap.js";
import { placeholder, traceLabels } from "./labels.js";
import { baseLayout, merge, plotSize, textSize, titleText } from "./layout.js";
import { annotationsAsLabels, fixedAxisMargins, plotlyTrace, wholeNumberHover } from "./marks/chart-rules.js";

export function compose(el, traces, pageLayout, forExport = false) {
  const layout = merge(baseLayout(), pageLayout);
  const title = titleText(layout.title);
  delete layout.title;
  delete layout.legend;
  delete layout.height;
  delete layout.width;
  const items = legendItems(traces, pageLayout || {});
  layout.showlegend = false;
  layout.autosize = false;
  const state = stateOf(el) || {};
  if (state.resets) layout.uirevision = `${layout.uirevision}:${state.resets}`;
  const size = plotSize(el);
  layout.width = Math.max(200, Math.round(size.width || 600));
  layout.height = Math.max(160, Math.round(size.height || 420));
  const hidden = state.hidden || new Set();
  // (an exported picture has Plotly's legend, which shows the names whole)
  const nameLimit = forExport ? Infinity : Math.max(16, Math.floor(layout.width / textSize()));
  const drawn = [];
  const images = [];
  const heatmaps = [];
  const labels = [];
  const carriers = [];
  traces.forEach((trace) => {
    // A heatmap that writes text in its cells or leaves gaps between them (a handful of labelled
    // cells) stays a Plotly heatmap, with its colour scale resolved the same way.
    if (trace.type === "heatmap" && (trace.texttemplate || trace.xgap || trace.ygap)) {
      drawn.push(nativeHeatmap(trace));
      return;
    }
    if (trace.type === "heatmap" && Array.isArray(trace.z) && trace.z.length && Array.isArray(trace.z[0])) {
      const { carrier, image, entry, axisPatch } = imageHeatmap(trace, layout);
      for (const [name, patch] of Object.entries(axisPatch)) layout[name] = merge(layout[name] || {}, patch);
      carriers.push(drawn.length);
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
    drawn.push(plotlyTrace(shown, nameLimit));
  });
  if (!forExport) labels.push(...annotationsAsLabels(layout));
  if (images.length) layout.images = [...(layout.images || []), ...images];
  roomForColourBars(layout, heatmaps, pageLayout, drawn, carriers);
  fixedAxisMargins(layout);
  wholeNumberHover(layout, drawn);
  tidyLogAxes(layout, drawn);
  fixRanges(el, layout, drawn);
  squareDomains(layout);
  return { traces: drawn, layout, title, items, heatmaps, carriers, labels, pageTraces: traces, pageLayout };
}

