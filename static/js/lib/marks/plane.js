// The plane mark: square panels of the 2-D plane, each with the unit circle, arrows from the origin
// and an angle (an arc with its size written at its middle): the rotation lesson's query and key,
// before and after turning.  Panels sit side by side on a wide plot and stack on a narrow one
// (panelGrid), with a caption each; the axes keep one scale (`reach` on every side of 0).
//
//   plane(el, { panels }, { title, reach, margin?, gap?, captionAt? })
//     panels   [{ caption, arrows: [{ vector: [x, y], name, color, dash?, width? }],
//                 angle?: { from, sweep, radius, label, name, color } }, …]   (one or two panels)
//              from and sweep in degrees, counter-clockwise; the legend lists the first panel's
//              arrows and angle (the others share their entries: same legendgroup)
//     reach    the axes' half-range (a page moves it in steps, so the axes are not relaid while a
//              length is dragged)
//
// The cheap update: the unit circles are kept per plot (one WeakMap) and handed back as the same
// objects, and the layout asks for `transition: {duration: 0}`, so new vectors move the arrows and
// the arc (Plotly.animate, chart.js: no redraw of the planes).  Arrow hovers show (x, y) with
// four decimals.

import { lineWidth, panelCaptions, panelGrid } from "../layout.js";
import { paintChart } from "./chart.js";

const kept = new WeakMap(); // plot element → { count, circles }

function axesOf(i) {
  return i === 0 ? ["x", "y"] : [`x${i + 1}`, `y${i + 1}`];
}

function unitCircle(axes) {
  const x = [];
  const y = [];
  for (let i = 0; i <= 120; i += 1) {
    const t = (2 * Math.PI * i) / 120;
    x.push(Math.cos(t));
    y.push(Math.sin(t));
  }
  return { type: "scatter", mode: "lines", x, y, showlegend: false, xaxis: axes[0], yaxis: axes[1], line: { color: "#e0e0e6", width: 1 }, hoverinfo: "skip" };
}

// One arrow from the origin: a line whose end carries an arrow-head marker.
function arrowTrace({ vector, name, color, dash = "solid", width = 3 }, axes, legend) {
  return {
    type: "scatter",
    mode: "lines+markers",
    x: [0, vector[0]],
    y: [0, vector[1]],
    name,
    legendgroup: name,
    showlegend: legend,
    xaxis: axes[0],
    yaxis: axes[1],
    line: { color, width: lineWidth(width), dash },
    marker: { symbol: "arrow", angleref: "previous", size: [0, lineWidth(width) * 4], color },
    hovertemplate: `${name}<br>(%{x:.4f}, %{y:.4f})<extra></extra>`,
  };
}

// The arc from direction `from` to `from + sweep` (degrees) at `radius`, its label at its middle.
function angleTraces({ from, sweep, radius, label, name, color }, axes, legend) {
  const steps = 40;
  const x = [];
  const y = [];
  for (let i = 0; i <= steps; i += 1) {
    const t = ((from + (sweep * i) / steps) * Math.PI) / 180;
    x.push(radius * Math.cos(t));
    y.push(radius * Math.sin(t));
  }
  const mid = ((from + sweep / 2) * Math.PI) / 180;
  return [
    { type: "scatter", mode: "lines", x, y, name, legendgroup: "arc", showlegend: legend, xaxis: axes[0], yaxis: axes[1], line: { color, width: lineWidth(2) }, hoverinfo: "skip" },
    {
      type: "scatter",
      mode: "text",
      x: [1.45 * radius * Math.cos(mid)],
      y: [1.45 * radius * Math.sin(mid)],
      text: [label],
      textfont: { color, size: lineWidth(7) * 2 },
      showlegend: false,
      xaxis: axes[0],
      yaxis: axes[1],
      hoverinfo: "skip",
    },
  ];
}

// The panels' axes (equal scales, `reach` each side of 0) and captions, as squarePanels lays them.
function panelAxes(grid, count, reach, captions, captionAt) {
  const top = captionAt === "top";
  const layout = {};
  for (let i = 0; i < count; i += 1) {
    const [x, y] = axesOf(i);
    const suffix = i === 0 ? "" : String(i + 1);
    const square = { range: [-reach, reach], zeroline: true, zerolinecolor: "#c8c8cc", showgrid: false, constrain: "domain" };
    layout[`xaxis${suffix}`] = { domain: grid.stacked ? [0, 1] : grid.x[i], ...square, anchor: y };
    layout[`yaxis${suffix}`] = { domain: grid.y[i], ...square, scaleanchor: x, scaleratio: 1, anchor: x };
  }
  layout.annotations = panelCaptions(grid, captions, top);
  return layout;
}

/** Draw (or update) the planes in `target` (an element or its id); resolves when Plotly has drawn. */
export function plane(target, { panels }, { title = "", reach = 1.15, margin, gap = 0.08, captionAt = "top" } = {}) {
  const el = typeof target === "string" ? document.getElementById(target) : target;
  if (!el) return Promise.resolve(null);
  const count = panels.length;
  let entry = kept.get(el);
  if (!entry || entry.count !== count) {
    entry = { count, circles: panels.map((_, i) => unitCircle(axesOf(i))) };
    kept.set(el, entry);
  }
  const traces = [];
  panels.forEach((panel, i) => {
    const axes = axesOf(i);
    const legend = i === 0;
    traces.push(entry.circles[i]);
    for (const arrow of panel.arrows) traces.push(arrowTrace(arrow, axes, legend));
    if (panel.angle) traces.push(...angleTraces(panel.angle, axes, legend));
  });
  const grid = panelGrid(el, count, gap);
  return paintChart(el, "plane", traces, {
    title: { text: title },
    ...panelAxes(grid, count, reach, panels.map((panel) => panel.caption ?? ""), captionAt),
    ...(margin ? { margin } : {}),
    // The arrows turn as the positions move: Plotly moves them without redrawing the planes.
    transition: { duration: 0 },
  });
}
