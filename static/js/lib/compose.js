import { fixRanges, tidyLogAxes } from "./axes.js";
import { legendItems } from "./chrome.js";
import { imageHeatmap, nativeHeatmap } from "./heatmap.js";
import { annotationLabel, placeholder, traceLabels } from "./labels.js";
import { baseLayout, merge, textSize, titleText } from "./layout.js";

// What Plotly gets of a line or bar trace on screen: everything but its name and hover texts,
// which the page's own legend and tooltip show (legendItems, attachTooltip), so that a new hover
// text or name is no change Plotly has to redraw for.
function screenTrace(trace, index) {
  const out = { ...trace, name: `trace ${index}`, hoverinfo: trace.hoverinfo === "skip" ? "skip" : "none" };
  delete out.hovertemplate;
  delete out.hovertext;
  delete out.customdata;
  if (!String(trace.mode || "").includes("text") && trace.type !== "bar") delete out.text;
  if (trace.type === "bar" && !trace.textposition) delete out.text;
  return out;
}

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
      const { carrier, image, entry, axisPatch } = imageHeatmap(trace, layout);
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
  roomForColourBars(layout, heatmaps, pageLayout);
  for (const [key, value] of Object.entries(layout)) {
    if (/^[xy]axis\d*$/.test(key) && value && typeof value === "object") {
      layout[key] = merge({ automargin: false, title: { standoff: 6 } }, value);
    }
  }
  tidyLogAxes(layout, drawn);
  fixRanges(el, layout, drawn);
  return { traces: drawn, layout, title, items, heatmaps, labels, pageTraces: traces, pageLayout };
}

// Room on the right for a colour bar at the plot's right edge, from the start: Plotly would push
// the margin out itself, but only after a first layout, and lays the axes out twice.
function roomForColourBars(layout, heatmaps, pageLayout) {
  const bars = heatmaps.filter((entry) => entry.colourBar && !(entry.colourBarX < 1));
  if (!bars.length || pageLayout?.margin?.r > 0) return;
  const digits = Math.max(...bars.map(({ colour }) => Math.max(...[colour.zmin, colour.zmax].map((v) => String(Number(v.toPrecision(3))).length))));
  // the bar, about 0.62 em a digit (and a sign), the title turned beside it
  layout.margin = { ...layout.margin, r: Math.round(textSize() * (0.62 * (digits + 1) + 3.6) + 10) };
}
